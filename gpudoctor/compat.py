"""The compatibility rules that existing tools get wrong, as pure functions.

- Same-major cubin compatibility: SASS built for sm_XY runs on any GPU of
  compute capability X.Z with Z >= Y (sm_86 runs on 8.9, never on 9.0).
  `sm_XYa` (arch-specific) runs only on exactly X.Y.
- PTX forward compatibility: compute_XY (the `+PTX` of TORCH_CUDA_ARCH_LIST)
  is JIT-compiled by the driver for any GPU of capability >= X.Y, but only when
  the driver understands that PTX ISA: its CUDA version must be at least the
  CUDA the PTX was generated with.
- CUDA minor-version compatibility: a runtime of major M runs on any driver at
  or above M's floor (12.x: 525.60.13, 13.x: 580.65.06 on Linux), with a
  limited feature set (no JIT of newer PTX) below the toolkit's own driver.
"""

from __future__ import annotations

import enum
import functools
import re

from gpudoctor.frozen import frozen
from gpudoctor.versions import (
    ComputeCapability,
    CudaVersion,
    compute_capability,
    cuda_version,
    driver_at_least,
    driver_tuple,
)

_ENTRY = re.compile(r"^(sm|compute)_(\d+)(\d)([af]?)$")


@frozen
class ArchEntry:
    """One entry of an arch list: sm_86 (SASS) or compute_90 (PTX)."""

    kind: str  # "sass" | "ptx"
    cc: ComputeCapability
    suffix: str = ""  # "" | "a" (arch-specific) | "f" (family)

    def __str__(self) -> str:
        prefix = "sm" if self.kind == "sass" else "compute"
        return f"{prefix}_{self.cc.major}{self.cc.minor}{self.suffix}"


def parse_arch_list(items) -> list[ArchEntry]:
    """Accepts get_arch_list() style ("sm_86", "compute_90") and
    TORCH_CUDA_ARCH_LIST style ("8.6", "9.0+PTX"); ignores junk."""
    return list(_parse_arch_tuple(tuple(str(x) for x in items or ())))


@functools.lru_cache(maxsize=1024)
def _parse_arch_tuple(items: tuple[str, ...]) -> tuple[ArchEntry, ...]:
    # Install planning asks about the same few hundred arch lists thousands of times.
    out: list[ArchEntry] = []
    for raw in items or ():
        s = str(raw).strip().lower()
        m = _ENTRY.match(s)
        if m:
            kind = "sass" if m.group(1) == "sm" else "ptx"
            out.append(ArchEntry(kind, ComputeCapability(int(m.group(2)), int(m.group(3))), m.group(4)))
            continue
        ptx = s.endswith("+ptx")
        cc = compute_capability(s.removesuffix("+ptx"))
        if cc is not None:
            out.append(ArchEntry("sass", cc))
            if ptx:
                out.append(ArchEntry("ptx", cc))
    # Ordered by capability, SASS before PTX of the same capability.
    return tuple(sorted(set(out), key=lambda e: (e.cc, e.kind == "ptx", e.suffix)))


class KernelKind(str, enum.Enum):
    SASS = "sass"  # exact cubin for this GPU
    SASS_COMPATIBLE = "sass-compatible"  # cubin of a lower minor of the same major
    PTX_JIT = "ptx-jit"  # only PTX: the driver must JIT-compile it
    NONE = "none"


@frozen
class KernelMatch:
    """Which kernels of a build a GPU would run: native SASS, PTX JIT or none."""

    kind: KernelKind
    entry: ArchEntry | None = None

    @property
    def runs(self) -> bool:
        return self.kind is not KernelKind.NONE


def kernel_for(cc: ComputeCapability, arch_list) -> KernelMatch:
    """How (and whether) a GPU of capability `cc` gets kernels from a build."""
    entries = parse_arch_list(arch_list)
    sass = [e for e in entries if e.kind == "sass"]
    for e in sass:
        if e.cc == cc:
            return KernelMatch(KernelKind.SASS, e)
    compatible = [e for e in sass if e.suffix != "a" and e.cc.major == cc.major and e.cc.minor <= cc.minor]
    if compatible:
        return KernelMatch(KernelKind.SASS_COMPATIBLE, max(compatible, key=lambda e: e.cc))
    ptx = [e for e in entries if e.kind == "ptx" and e.suffix != "a" and e.cc <= cc]
    if ptx:
        return KernelMatch(KernelKind.PTX_JIT, max(ptx, key=lambda e: e.cc))
    return KernelMatch(KernelKind.NONE)


def ptx_jit_supported(driver_cuda_api: str | None, built_with_cuda: str | None) -> bool | None:
    """A driver JIT-compiles PTX only from a CUDA no newer than its own."""
    have, need = cuda_version(driver_cuda_api), cuda_version(built_with_cuda)
    if have is None or need is None:
        return None
    return have >= need


class DriverSupport(str, enum.Enum):
    NATIVE = "native"  # the driver's CUDA is at least the runtime's
    MINOR_COMPAT = "minor-compat"  # same major, driver at or above the major's floor
    TOO_OLD = "too-old"
    UNKNOWN = "unknown"


@frozen
class DriverVerdict:
    """Whether a driver runs a CUDA runtime: fully, through minor-version compatibility, or not."""

    support: DriverSupport
    needed_full: str | None = None  # driver bundled with that toolkit
    needed_compat: str | None = None  # minor-version-compatibility floor of the major
    driver_cuda: CudaVersion | None = None


def driver_supports(runtime_cuda: str | None, driver_version: str | None,
                    driver_cuda_api: str | None, matrices, os_name: str = "linux") -> DriverVerdict:
    """Can a driver run code built against `runtime_cuda`?

    Uses the driver's own CUDA API version when known (cuDriverGetVersion),
    else derives it from the driver release and the toolkit table.
    """
    rt = cuda_version(runtime_cuda)
    if rt is None:
        return DriverVerdict(DriverSupport.UNKNOWN)
    full = matrices.toolkit_min_driver(rt, os_name)
    floor = matrices.minor_compat_floor(rt.major, os_name)
    dcuda = cuda_version(driver_cuda_api)
    if dcuda is None and driver_version:
        dcuda = matrices.driver_max_cuda(driver_version, os_name)
    if dcuda is None:
        return DriverVerdict(DriverSupport.UNKNOWN, full, floor)
    if dcuda >= rt:
        return DriverVerdict(DriverSupport.NATIVE, full, floor, dcuda)
    if dcuda.major == rt.major and rt.major >= 11:
        ok = driver_at_least(driver_version, floor) if (driver_version and floor) else None
        if ok is None:
            # No release number: the driver's CUDA of the same major means it
            # is at least that major's first driver, which is the floor or above.
            ok = floor is not None
        if ok:
            return DriverVerdict(DriverSupport.MINOR_COMPAT, full, floor, dcuda)
    return DriverVerdict(DriverSupport.TOO_OLD, full, floor, dcuda)


@frozen
class ArchDriverVerdict:
    """Whether a driver release can drive a GPU architecture at all."""

    ok: bool
    text: str  # "Blackwell (sm_120) needs driver >= 570.26 (CUDA 12.8's); this one is 560.35.03"
    need: str | None = None  # "driver >= 570.26" | "a driver of branch R580 or older"
    source: str = ""


def arch_driver_verdict(cc: ComputeCapability, driver: str | None, os_name: str, matrices) -> ArchDriverVerdict | None:
    """None when it cannot be told (no driver, no row for the architecture, a
    driver that does not parse); otherwise the verdict, from matrices/cuda.toml
    [[arch_driver]]. Independent of any framework: an older branch never runs a
    newer architecture, and a branch past `last_branch` no longer runs an old one."""
    row = matrices.arch_driver(cc)
    if row is None or not driver:
        return None
    floor = row.min_driver_windows if os_name == "windows" else row.min_driver_linux
    name = f"{row.arch} ({cc.sm})"
    if floor:
        at = driver_at_least(driver, floor)
        if at is None:
            return None
        if not at:
            return ArchDriverVerdict(False, f"{name} needs driver >= {floor} (the driver of CUDA {row.first_cuda}, "
                                            f"its first toolkit); this one is {driver}",
                                     f"driver >= {floor}", row.source)
    if row.last_branch is not None:
        # Branches are numbered in fives (R570, R575, R580); Windows releases of R580 are
        # numbered 580.xx to 584.xx (581.57), so a paste that does not say its OS is read so too.
        branch = (driver_tuple(driver) or (0,))[0] // 5 * 5
        if branch > row.last_branch:
            return ArchDriverVerdict(False, f"driver branch R{branch} no longer supports {name}: "
                                            f"R{row.last_branch} is the last branch for it",
                                     f"a driver of branch R{row.last_branch} or older", row.source)
    return ArchDriverVerdict(True, f"driver {driver} supports {name}", None, row.source)
