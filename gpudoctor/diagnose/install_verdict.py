"""An install command asking for a CUDA variant of torch that no release publishes for the
paste's Python: `pip install torch --index-url .../cu116` on Python 3.11 finds nothing,
because the last release with cu116 wheels (1.13.1) stops at Python 3.10."""

from __future__ import annotations

import re

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.build import OS_WHEEL_PLATFORM
from gpudoctor.findings import Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.matrices.framework_queries import torch_series
from gpudoctor.rules.registry import RULES
from gpudoctor.versions import parse_numeric, python_version


def variant_without_wheels_for_python(d: Diagnosis, m: Matrices) -> list[Finding]:
    """torch asked for by its CUDA variant only (no version pinned) on a Python newer than
    every release of that variant supports. None where a version is known (GD503 judges
    that) or a tool's output shows torch installed."""
    s = d.snapshot
    torch = s.framework("torch")
    py = python_version(s.system.python.value)
    if torch is None or torch.version.known or not torch.cuda.known or py is None or torch.deep is not None:
        return []
    variant = "cu" + str(torch.cuda.value).replace(".", "")
    platform = OS_WHEEL_PLATFORM.get(str(s.system.os.value))
    series = {b.series for b in m.torch_builds
              if b.variant == variant and (platform is None or b.platform == platform)}
    releases = [r for r in m.torch_releases if torch_series(r.version) in series]
    if not releases:
        return []
    newest = max(releases, key=lambda r: (python_version(r.python_max) or (0,), parse_numeric(r.version) or ()))
    top = python_version(newest.python_max)
    if top is None or py <= top:
        return []
    cuda_src = next((r.source for r in d.reads if r.fact == "torch.cuda"), "the paste")
    py_src = s.system.python.source
    return [RULES["GD503"].finding(
        f"No torch release publishes {variant} wheels for Python {s.system.python.value}: the newest with {variant} "
        f"(torch {newest.version}) supports Python up to {newest.python_max}", subject="torch",
        evidence=[Evidence("system.python", str(s.system.python.value), py_src),
                  Evidence("torch.cuda", str(torch.cuda.value), cuda_src),
                  Evidence("torch.python_range", f"{newest.python_min}–{newest.python_max}", newest.source)],
        fix=Fix(f"Use a Python up to {newest.python_max} for {variant}, or a newer CUDA variant that has wheels for "
                f"Python {s.system.python.value} (`gpudoctor install torch --python {s.system.python.value}` names one).",
                (f"uv venv --python {newest.python_max}", f"gpudoctor install torch --python {s.system.python.value}")))]


# pip's "Could not find a version that satisfies the requirement cumm<0.5.0,>=0.4.5 (from spconv)
# (from versions: 0.1.0, 0.5.0, ...)": the requirement's specifiers and the versions listed.
_PIP_ASKED = re.compile(r"satisfies the requirement [\w.\[\]-]+? ?((?:[=<>~!]=?=?[\w.*+!-]+,? ?)+)"
                        r"(?:\([^)\n]{0,80}\) ?)?\(from versions: ([^)\n]{1,4000})\)")


def pip_refusal_severity(text: str, python: str | None) -> Severity | None:
    """How sure pip's refusal is to mean "no file for this Python": an error where the pin is older
    than a listed release (pins_an_older_release); a warning where it lies above every listed one
    on a Python past its end of life (3.7 and older, PEP 537), whose newer releases no project
    builds for; None (nothing to say) otherwise."""
    if pins_an_older_release(text):
        return Severity.ERROR
    py = parse_numeric(python)
    refusal = _refusal(text)
    if not (py and py[:2] <= (3, 7) and refusal):
        return None
    spec, listed = refusal
    floors = [Version(s.version) for s in spec if s.operator in (">=", ">", "~=", "==") and "*" not in s.version]
    return Severity.WARNING if floors and max(floors) > max(listed) else None


def _refusal(text: str) -> tuple[SpecifierSet, list[Version]] | None:
    """pip's refusal read: the requirement's specifiers and the versions it lists (None: not one)."""
    m = _PIP_ASKED.search(text)
    if m is None:
        return None
    try:
        spec = SpecifierSet(m.group(1).replace(" ", "").rstrip(","))
        listed = [Version(v) for v in (p.strip() for p in m.group(2).split(",")) if v]
        for s in spec:
            Version(s.version.rstrip(".*"))  # a specifier pip would not accept either
    except (InvalidSpecifier, InvalidVersion):
        return None
    return (spec, listed) if listed else None


def pins_an_older_release(text: str) -> bool:
    """Whether pip's refusal pins a release older than the newest it lists: every version the
    requirement allows lies below a version that has a file here, so the pinned one exists
    and has none for this Python or platform. A pin above every listed version may be a
    release not yet out, a typo: it proves nothing."""
    refusal = _refusal(text)
    if refusal is None:
        return False
    spec, listed = refusal
    bounds = [Version(s.version) for s in spec if s.operator in ("==", "===", "<", "<=") and "*" not in s.version]
    return bool(bounds) and not any(spec.contains(v, prereleases=True) for v in listed) and min(bounds) <= max(listed)
