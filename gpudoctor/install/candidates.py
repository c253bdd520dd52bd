"""Install candidates and the verdict on each: the shared vocabulary of the
framework modules (torch, tensorflow, jax, cupy) and the checks.

A Candidate is one installable thing (a release and a variant: a wheel index,
an extra, a package name). An Assessment is what the checks found: the
blockers that rule it out, each with what would lift it, and the reasons and
warnings that go with it when it works.
"""

from __future__ import annotations

from dataclasses import field

from packaging.version import InvalidVersion, Version

from gpudoctor.frozen import frozen

# Blocker kinds, in the order they are reported.
BLOCKER_KINDS = ("version", "platform", "python", "arch", "cudnn", "driver")


@frozen
class Blocker:
    """Why a candidate build cannot work on the target, and what would lift it."""

    kind: str  # one of BLOCKER_KINDS
    text: str  # "no kernels for sm_61 (build has sm_75 ... sm_120, compute_120)"
    need: str | None = None  # what would lift it: "driver >= 580.65.06"


@frozen
class Candidate:
    """One published build of a framework (release, variant, platform) and what it needs."""

    framework: str  # "torch"
    version: str  # "2.14.1"
    variant: str  # "cu126" | "cpu" | "cuda12" | "cupy-cuda12x" | "and-cuda"
    platform: str  # "linux-x86_64"
    source: str  # where the facts about it come from
    cuda: str | None = None  # CUDA it was built with / needs, "12.6"
    python_min: str | None = None
    python_max: str | None = None
    # torch.cuda.get_arch_list()-style list; None when the data has none.
    arch_list: tuple[str, ...] | None = None
    min_sm: str | None = None  # a documented floor instead of (or besides) an arch list
    cudnn: str | None = None  # cuDNN the build bundles or pins exactly
    # cuDNN reached through a floor pin: pip takes the newest of `cudnn_package`>=floor.
    cudnn_floor: str | None = None
    cudnn_package: str | None = None  # "nvidia-cudnn-cu12"
    min_driver: str | None = None  # a documented driver floor besides CUDA's own
    pypi_default: bool = False
    index_url: str | None = None
    # Framework-specific facts the command builders need ("torchvision" -> "0.24.1").
    extras: tuple[tuple[str, str], ...] = ()
    # A range of releases ((from, to), to None = current) when the candidate
    # is not one release: the request must overlap it, pip picks within it.
    version_range: tuple[str | None, str | None] | None = None
    # Blockers the framework module already knows (no build for this platform...).
    preset: tuple[Blocker, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.framework} {self.version} {self.variant}".strip()

    def extra(self, key: str) -> str | None:
        return dict(self.extras).get(key)


@frozen
class Assessment:
    """A candidate judged against the target: its blockers, reasons and warnings."""

    candidate: Candidate
    blockers: tuple[Blocker, ...] = ()
    reasons: tuple[str, ...] = ()  # why it works (kernels, driver, cuDNN), for the chosen one
    warnings: tuple[str, ...] = ()  # works, with a caveat (PTX JIT, driver unknown)
    # Extra requirements the install needs to work here ("nvidia-cudnn-cu12<9.11").
    constraints: tuple[str, ...] = ()
    ptx_only: bool = False  # some GPU runs it only through PTX JIT
    kinds: frozenset[str] = field(default=frozenset())

    @property
    def works(self) -> bool:
        return not self.blockers

    def blocker_text(self) -> str:
        return "; ".join(b.text for b in self.blockers)


def version_key(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def cuda_key(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    out = []
    for part in text.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def preference(a: Assessment) -> tuple:
    """Sort key, best first when sorted in reverse: newest release, then
    native SASS over PTX JIT, then the PyPI default variant, then the newest CUDA."""
    c = a.candidate
    return (version_key(c.version), not a.ptx_only, c.pypi_default, cuda_key(c.cuda), c.variant)
