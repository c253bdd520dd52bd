"""Signals (recognised error lines) -> GD8xx findings, and the combined report.

Where the paste says more than the message alone, the finding's category
says it too: a "no kernel image" error on a GPU older than every architecture
in the build is `arch-dropped`, newer is `arch-too-new-for-cuda`; a missing
libcuda.so under WSL2 is `wsl`.
"""

from __future__ import annotations

import dataclasses
import re

from gpudoctor.compat import parse_arch_list
from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.catalog import load_catalog
from gpudoctor.diagnose.collect import Read, source_line
from gpudoctor.doctor import Report, judge, verdicts
from gpudoctor.findings import CATEGORIES, Evidence, Finding, Fix, Outcome, RuleResult, Severity, sort_findings
from gpudoctor.matrices import Matrices
from gpudoctor.rules.registry import RULES
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import compute_capability, parse_numeric

MAX_EVIDENCE = 3


def signal_findings(d: Diagnosis, m: Matrices | None = None) -> list[Finding]:
    entries = {e.id: e for e in load_catalog()}
    by_key: dict[tuple[str, str], Finding] = {}
    seen = {sig.entry for sig in d.signals}
    for sig in d.signals:
        entry = entries.get(sig.entry)
        if entry is None:
            continue
        if entry.with_gpu and d.snapshot.gpus:
            entry = dataclasses.replace(entry, code=FELL_BACK_TO_CPU, category=entry.with_gpu)
        if entry.in_wsl and d.snapshot.system.wsl.value:
            entry = dataclasses.replace(entry, code=entry.code or FELL_BACK_TO_CPU, category=entry.in_wsl)
        if entry.code is None or entry.code not in RULES:
            continue
        if seen.intersection(entry.deferred_by):
            continue  # the paste also shows the message that names the real cause
        rule = RULES[entry.code]
        category = _category(entry.code, entry.category, d, m)
        severity = None
        if entry.code == "GD807" and _cuda_it_wants_is_there(sig.text, d.snapshot):
            category = "cudnn-missing"  # not another CUDA: the right one, not found
        if _other_cudnn_major_shown(sig.text, sig.source, d.snapshot):
            category = "cudnn-version-mismatch"
        if category == "arch-in-range":
            # PyTorch warns for any capability above its highest, but a cubin serves every
            # later minor of its major: GB10 (12.1) runs the sm_120 kernels.
            category, severity = "info", Severity.INFO
        evidence = Evidence("error", sig.text, sig.source)
        key = (entry.code, entry.id)
        if key in by_key:
            f = by_key[key]
            if len(f.evidence) < MAX_EVIDENCE:
                by_key[key] = dataclasses.replace(f, evidence=f.evidence + (evidence,))
            continue
        by_key[key] = rule.finding(
            entry.title, evidence=[evidence], category=category, severity=severity,
            fix=Fix(" ".join((entry.fix, *entry.steps)) + f" (source: {entry.source})", entry.commands),
        )
    return list(by_key.values())


# The CUDA a missing library belongs to: "libcudart.so.10.2", "libnvrtc.so.12", "cudart64_110.dll".
_SONAME = re.compile(r"\blib(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink)\.so\.(\d+)(?:\.(\d))?\b|"
                     r"\b(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc)64_(\d{2,3})(?:_0)?\.dll", re.I)


def _cuda_it_wants_is_there(text: str, s: Snapshot) -> bool:
    """A CUDA library of version X is missing and the paste shows CUDA X
    installed: the library is not where the framework looks (a venv without
    the runtime, a path not searched), which is a missing library rather than
    a framework built for another CUDA."""
    m = _SONAME.search(text)
    if m is None:
        return False
    if m.group(3):
        digits = m.group(3)
        want = (int(digits[:-1]), int(digits[-1])) if len(digits) == 3 else (int(digits), None)
    else:
        want = (int(m.group(1)), int(m.group(2)) if m.group(2) else None)
    for rt in s.cuda_runtimes or ():
        have = parse_numeric(rt.version or "") or ()
        if len(have) >= 1 and have[0] == want[0] and (want[1] is None or (len(have) > 1 and have[1] == want[1])):
            return True
    return False


_REQUIRE_CUDNN = re.compile(r"Require cuDNN (\d+)\.", re.I)


def _other_cudnn_major_shown(text: str, source: str, s: Snapshot) -> bool:
    """The message names the cuDNN major its build wants and the paste shows another
    (on another line: the free-text reader also reads the message's own "cuDNN 8")."""
    m = _REQUIRE_CUDNN.search(text)
    if m is None:
        return False
    line = source_line(source)
    majors = {(parse_numeric(lib.version) or (None,))[0] for lib in s.cudnn or ()
              if lib.version and (line is None or source_line(lib.source) != line)}
    return bool(majors) and int(m.group(1)) not in majors


def _category(code: str, entry_category: str | None, d: Diagnosis, m: Matrices | None) -> str | None:
    if code == "GD801":
        found = _arch_category(d.snapshot, {r.fact: r.value for r in d.reads}, m)
        return entry_category if found == "arch-not-in-build" and entry_category else found
    if code in NO_GPU_CODES or entry_category == "no-driver":
        # "No driver" seen from inside WSL or a container (or a batch job given no GPU)
        # is about the boundary, not the machine: the driver belongs to the host.
        system = d.snapshot.system
        if system.wsl.value:
            return "wsl"
        if system.container.known and system.container.value != "none":
            return "container-no-gpu"
    return entry_category


# The warning a "running on the CPU" message becomes beside an NVIDIA GPU.
FELL_BACK_TO_CPU = "GD850"

# Codes whose message says "no driver / no device / no libcuda".
NO_GPU_CODES = {"GD803", "GD809", "GD813"}


def _arch_category(s: Snapshot, reads: dict[str, str], m: Matrices | None) -> str:
    """Whether the GPU is below or above what the build covers: from the
    build's arch list, else PyTorch's stated range, else what the build's CUDA
    can compile for at all (a cu121 build has nothing for sm_120)."""
    ccs = [c for c in (compute_capability(g.compute_capability) for g in s.gpus or ()) if c is not None]
    low = high = None
    for fw in s.frameworks or ():
        entries = parse_arch_list(fw.arch_list.value or ())
        if not entries and fw.cuda.known and m is not None:
            entries = parse_arch_list(m.arch_support(fw.cuda.value))
        if entries:
            low, high = min(e.cc for e in entries), max(e.cc for e in entries)
            break
    low = compute_capability(reads.get("torch.cc_min")) or low
    high = compute_capability(reads.get("torch.cc_max")) or high
    if ccs and low and all(c < low for c in ccs):
        return "arch-dropped"
    if ccs and high and all(c > high and c.major != high.major for c in ccs):
        return "arch-too-new-for-cuda"
    if ccs and low and high and reads.get("torch.cc_max") and all(low <= c and c.major == high.major for c in ccs):
        return "arch-in-range"
    if ccs and low is None and high is None and m is not None:
        return _against_current_builds(ccs, m)
    return "arch-not-in-build"


def _against_current_builds(ccs: list, m: Matrices) -> str:
    """With the build unknown, the GPU against the CUDA builds of the newest
    PyTorch series: below every one of them, the builds dropped it (a K80);
    above the range of some of them, a build for an older CUDA predates it (an
    RTX 50xx on a cu126 build). PyTorch's builds stand in for any framework's:
    their CUDA sets the architectures a build can carry."""
    lists = [parse_arch_list(b.arch_list) for b in m.current_torch_cuda_builds()]
    if not lists:
        return "arch-not-in-build"
    if all(c < min(e.cc for e in entries) for entries in lists for c in ccs):
        return "arch-dropped"
    if any(all(c.major > max(e.cc for e in entries).major for c in ccs) for entries in lists):
        return "arch-too-new-for-cuda"
    return "arch-not-in-build"


# A paste shows what is there, rarely what is missing. These rules conclude
# from a missing fact, which on a live machine means "looked, not found" but in
# a paste means "not shown": a finding of theirs stands only when the paste
# showed the facts it needs.
ABSENCE_RULES = {
    # TensorFlow loads the cuDNN on the system (PyTorch and JAX bring theirs as wheels):
    # a paste that shows the system's cuDNN shows what TensorFlow will find.
    "GD404": ("no cuDNN of the needed major",
              lambda s, f: f.subject == "tensorflow" and bool(s.cudnn) and not any(lib.kind == "pip" for lib in s.cudnn)),
    "GD607": ("no GPU device nodes", lambda s, f: s.system.gpu_device_nodes.known),
    "GD609": ("no WSL libcuda", lambda s, f: s.system.wsl_libcuda.known),
}


def diagnose_report(d: Diagnosis, m: Matrices, debug: bool = False) -> Report:
    """The rules' report on the snapshot read, with the GD8xx findings added."""
    report = judge(d.snapshot, m, debug=debug)
    results, findings = [], []
    for r in report.results:
        guard = ABSENCE_RULES.get(r.code)
        if guard and r.outcome is Outcome.FINDING:
            kept = tuple(f for f in r.findings if guard[1](d.snapshot, f))
            r = RuleResult(r.code, Outcome.FINDING, r.detail, kept) if kept else \
                RuleResult(r.code, Outcome.UNKNOWN, f"a paste cannot show {guard[0]}")
        results.append(r)
        findings += r.findings
    extra = signal_findings(d, m)
    extra += cpu_fallback_findings(d, findings + extra)
    results += [RuleResult(code, Outcome.FINDING, "", tuple(f for f in extra if f.code == code))
                for code in sorted({f.code for f in extra})]
    findings = sort_findings(findings + extra)
    return dataclasses.replace(report, findings=tuple(findings), results=tuple(results),
                               verdicts=tuple(verdicts(d.snapshot, m, findings, results)))


# Messages that say "CUDA is unavailable to this program" and no more.
CPU_FALLBACK_MESSAGES = {"cuda-not-available", "whisper-fp16-on-cpu", "torch-deserialize-cuda", "yolo-cuda-unavailable",
                         "lightning-gpus-requested-none-available", "jax-no-gpu-fallback", "rvc-no-nvidia-gpu-found",
                         "torch-autocast-cuda-unavailable", "gpu-not-detected-statement"}
# Categories of a finding that already says why CUDA is unavailable.
_EXPLAINS = CATEGORIES - {"precision-unsupported", "smoke-failure", "performance", "info", "policy"}


def cpu_fallback_findings(d: Diagnosis, findings: list[Finding]) -> list[Finding]:
    """CUDA is unavailable to the framework and no finding says why: the one
    likely cause that where it runs implies. A container started without GPU
    access shows no GPU; under WSL the Windows driver provides CUDA; on Windows a
    plain `pip install torch` is PyPI's CPU-only wheel. Elsewhere nothing is said."""
    s = d.snapshot
    said = [sig for sig in d.signals if sig.entry in CPU_FALLBACK_MESSAGES]
    off = [fw for fw in s.frameworks or () if fw.deep is not None and fw.deep.is_available is False]
    if not (said or off) or any(f.severity is not Severity.INFO and f.category in _EXPLAINS for f in findings):
        return []
    evidence = [Evidence("error", sig.text, sig.source) for sig in said[:2]] + \
        [Evidence(f"{fw.name}.is_available", "False", next((r.source for r in d.reads
                                                             if r.fact == f"{fw.name}.is_available"), "the paste"))
         for fw in off[:1]]
    container, wsl, os_name = s.system.container.value, s.system.wsl.value, s.system.os.value
    torch = s.framework("torch")
    rule = RULES["GD820"]
    # A container under WSL2 (Docker Desktop's WSL2 backend) is the inner boundary: with no
    # message that names the WSL2 side, a container not given the GPU is the likelier cause.
    if container not in (None, "none"):
        evidence.append(Evidence("system.container", str(container), s.system.container.source))
        return [rule.finding(
            f"CUDA is unavailable inside this {container} container: it was most likely started without GPU access",
            evidence=evidence, category="container-no-gpu",
            fix=Fix("Start it with GPU access: docker run --gpus all (compose: deploy.resources.reservations.devices "
                    "with capabilities [gpu]); Kubernetes: a nvidia.com/gpu limit, the NVIDIA device plugin and "
                    "runtimeClassName: nvidia; Singularity/Apptainer: --nv. The host needs the NVIDIA Container Toolkit.",
                    ("docker run --rm --gpus all IMAGE nvidia-smi",)))]
    if wsl:
        evidence.append(Evidence("system.wsl", "True", s.system.wsl.source))
        return [rule.finding(
            "CUDA is unavailable under WSL 2: the Windows NVIDIA driver must provide it (/usr/lib/wsl/lib)",
            evidence=evidence, category="wsl",
            fix=Fix("Install or update the NVIDIA driver on Windows (never a Linux driver inside WSL), run "
                    "`wsl --update`, then check `nvidia-smi` inside WSL.", ("ls -l /usr/lib/wsl/lib/libcuda*", "nvidia-smi")))]
    plain = torch is None or torch.version.value is None or "+" not in str(torch.version.value)
    if os_name == "windows" and plain and (torch is None or torch.build.value in (None, "cpu")):
        evidence.append(Evidence("system.os", "windows", s.system.os.source))
        return [rule.finding(
            "CUDA is unavailable on Windows: most often PyPI's torch, which is a CPU-only build there",
            evidence=evidence, category="cpu-only-build",
            fix=Fix("Check `torch.version.cuda` (None: a CPU build); install a CUDA build from the PyTorch index "
                    "(`gpudoctor install torch` prints the command for this machine).", ("gpudoctor install torch",)))]
    return []


def read_data(d: Diagnosis) -> dict:
    """The "read" section of the JSON output: what was read from where."""
    return {
        "formats": list(d.formats),
        "facts": [_read(r) for r in d.reads],
        "errors": [{"entry": s.entry, "title": s.title, "code": s.code, "text": s.text, "source": s.source}
                   for s in d.signals],
        "conflicts": list(d.conflicts),
    }


def _read(r: Read) -> dict:
    return {"fact": r.fact, "value": r.value, "source": r.source}
