"""What the user asked for: a framework, an optional PEP 440 version
request, and companion packages (torchvision, torchaudio) to pair with it."""

from __future__ import annotations

import re

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpudoctor.frozen import frozen
from gpudoctor.install.target import TargetError

# Accepted spellings -> the framework's name in gpudoctor.
FRAMEWORKS = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow",
              "jax": "jax", "cupy": "cupy"}
# Packages that must come from the same index and release train as the framework.
COMPANIONS = {"torch": ("torchvision", "torchaudio")}

_BARE = re.compile(r"^\d+(\.\d+){0,2}$")


@frozen
class Request:
    """What the user asked to install: a framework, a version specifier, companions."""

    framework: str
    spec: SpecifierSet = SpecifierSet()
    companions: tuple[str, ...] = ()
    # The version installed now, when the plan is to replace it (a fix from `check`).
    replaces: str | None = None

    def allows(self, version: str) -> bool:
        try:
            return self.spec.contains(Version(version), prereleases=True)
        except InvalidVersion:
            return False

    def allows_range(self, lo: str | None, hi: str | None) -> bool:
        """Whether some release in [lo, hi] (hi None: open-ended) can match.
        Checked at the ends and just past an open end: specifiers are unions
        of intervals, so an overlap shows at one of those points or inside
        the request's own bounds, which are tested too."""
        points = [v for v in (lo, hi) if v]
        if hi is None:
            points.append("999999")
        for s in self.spec:
            points.append(s.version.replace(".*", ""))
        lo_v, hi_v = _ver(lo), (_ver(hi) if hi else None)
        for p in points:
            v = _ver(p)
            if v is None or (lo_v and v < lo_v) or (hi_v and v > hi_v):
                continue
            if self.spec.contains(v, prereleases=True):
                return True
        return not self.spec

    @property
    def spec_text(self) -> str:
        return str(self.spec)


def _ver(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def _spec_from_text(text: str, framework: str) -> SpecifierSet:
    text = text.strip()
    if not text:
        return SpecifierSet()
    if _BARE.match(text):
        # "2.5" means the 2.5 series; "2.5.1" that exact release.
        return SpecifierSet(f"=={text}.*" if text.count(".") == 1 else f"=={text}")
    if text[0].isalpha():
        # Imported here: packaging.requirements pulls in markers and tags (~40 ms),
        # which `check` never needs.
        from packaging.requirements import InvalidRequirement, Requirement

        try:
            req = Requirement(text)
        except InvalidRequirement:
            raise TargetError(f"bad version request {text!r}: give a PEP 440 specifier like '>=2.4' "
                              f"or '{framework}==2.5.1'") from None
        if FRAMEWORKS.get(req.name.lower()) != framework:
            raise TargetError(f"--version names {req.name!r}, but the framework is {framework!r}")
        if req.extras or req.marker or req.url:
            raise TargetError(f"bad version request {text!r}: extras, markers and URLs are chosen by gpudoctor")
        return req.specifier
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise TargetError(f"bad version request {text!r}: give a PEP 440 specifier like '>=2.4' "
                          f"or '{framework}==2.5.1'") from None


def parse_request(framework_arg: str, packages: tuple[str, ...] = (), version: str | None = None) -> Request:
    """`framework_arg` may carry a specifier itself ("torch==2.5.1")."""
    head = re.match(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)", framework_arg or "")
    name = FRAMEWORKS.get(head.group(1).lower()) if head else None
    if name is None:
        raise TargetError(f"unknown framework {framework_arg!r}: use torch, tensorflow, jax or cupy",
                          ("torch", "tensorflow", "jax", "cupy"))
    spec = _spec_from_text(framework_arg, name) if framework_arg.strip() != head.group(1) else SpecifierSet()
    if version:
        spec &= _spec_from_text(version, name)
    allowed = COMPANIONS.get(name, ())
    companions: list[str] = []
    for pkg in packages:
        key = pkg.strip().lower()
        if key not in allowed:
            extra = (f"; {name} pairs with {', '.join(allowed)}" if allowed
                     else f"; {name} has no companion packages gpudoctor pairs")
            raise TargetError(f"cannot pair {pkg!r} with {name}{extra}. Install other packages separately.",
                              allowed)
        if key not in companions:
            companions.append(key)
    return Request(name, spec, tuple(companions))
