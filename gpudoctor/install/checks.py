"""The checks every candidate goes through, in the issue's order:
(a) published for this Python and platform, (b) kernels for every GPU
(same-major cubin, PTX JIT), (c) runs on the driver (minor-version
compatibility; PTX JIT needs a driver at least as new as the PTX), (d) cuDNN's
SM floor. Pure functions of (candidate, target, request, matrices).
"""

from __future__ import annotations

import functools

from gpudoctor.compat import (
    DriverSupport,
    arch_driver_verdict,
    KernelKind,
    driver_supports,
    kernel_for,
    parse_arch_list,
    ptx_jit_supported,
)
from gpudoctor.install.candidates import Assessment, Blocker, Candidate
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target
from gpudoctor.versions import compute_capability, cuda_version, driver_at_least, parse_numeric, python_version


def _vt(text: str | None) -> tuple[int, ...]:
    return parse_numeric(text) or ()


@functools.lru_cache(maxsize=512)
def _driver_max_cuda(matrices, driver: str, os_name: str):
    return matrices.driver_max_cuda(driver, os_name)


@functools.lru_cache(maxsize=2048)
def _driver_verdict(matrices, runtime: str, driver: str | None, driver_cuda: str | None, os_name: str):
    """compat.driver_supports scans the toolkit table: one answer per distinct question."""
    return driver_supports(runtime, driver, driver_cuda, matrices, os_name)


def driver_cuda_of(target: Target, matrices) -> str | None:
    """The newest CUDA the driver runs natively: what it reports, else derived."""
    if target.driver_cuda:
        return target.driver_cuda
    if target.driver:
        derived = _driver_max_cuda(matrices, target.driver, target.os)
        return str(derived) if derived else None
    return None


def short_arch_list(arch_list) -> str:
    entries = [str(e) for e in parse_arch_list(arch_list)]
    return ", ".join(entries) if entries else "none"


def newest_cudnn_row(floor: str | None, matrices, cuda_major: int | None):
    rows = [r for r in matrices.table("cudnn", "release")
            if (cuda_major is None or not r.cuda_majors or cuda_major in r.cuda_majors)
            and (r.version_to is None or not floor or _vt(r.version_to) >= _vt(floor))]
    return max(rows, key=lambda r: _vt(r.version_from)) if rows else None


def _cudnn_cap_for(cc, floor: str, matrices, cuda_major: int | None) -> str | None:
    """The first cuDNN release that drops `cc`: pinning below it keeps the GPU,
    provided the floor is lower. None when no such cap helps."""
    rows = sorted((r for r in matrices.table("cudnn", "release")
                   if cuda_major is None or not r.cuda_majors or cuda_major in r.cuda_majors),
                  key=lambda r: _vt(r.version_from))
    for prev, row in zip(rows, rows[1:]):
        lo_prev, lo = compute_capability(prev.min_sm), compute_capability(row.min_sm)
        if lo_prev and lo and lo_prev <= cc < lo and _vt(floor) < _vt(row.version_from):
            return row.version_from.rsplit(".0", 1)[0] if row.version_from.endswith(".0") else row.version_from
    return None


def _check_python(c: Candidate, target: Target) -> Blocker | None:
    if target.python is None or not (c.python_min or c.python_max):
        return None
    lo, hi = python_version(c.python_min), python_version(c.python_max)
    if (lo and target.python < lo) or (hi and target.python > hi):
        span = f"{c.python_min or '?'}–{c.python_max}" if c.python_max else f">= {c.python_min}"
        return Blocker("python", f"published for Python {span}, not {target.python_text}",
                       f"Python {span} for {c.framework} {c.version}")
    return None


def _check_kernels(c: Candidate, target: Target, matrices, reasons: list, warnings: list,
                   blockers: list) -> bool:
    """Appends what it finds; returns True when some GPU runs only through PTX JIT."""
    ptx_only = False
    min_sm = compute_capability(c.min_sm) if c.min_sm else None
    for g in target.gpus:
        if min_sm and g.cc < min_sm:
            blockers.append(Blocker("arch", f"needs sm_{min_sm.major}{min_sm.minor}+, {g.label()} is older"))
            continue
        if c.arch_list is None:
            if min_sm:
                reasons.append(f"{g.label()}: at or above the documented floor sm_{min_sm.major}{min_sm.minor}")
            else:
                warnings.append(f"the kernel list of {c.label} is not in gpudoctor's data: "
                                f"{g.label()} is not checked")
            continue
        match = kernel_for(g.cc, c.arch_list)
        if match.kind is KernelKind.NONE:
            blockers.append(Blocker("arch", f"no kernels for {g.label()} (build has {short_arch_list(c.arch_list)})"))
        elif match.kind is KernelKind.SASS:
            reasons.append(f"{g.label()}: native {match.entry} kernels")
        elif match.kind is KernelKind.SASS_COMPATIBLE:
            reasons.append(f"{g.label()}: runs the {match.entry} kernels (same major, lower minor)")
        else:
            ptx_only = True
            have = driver_cuda_of(target, matrices)
            need = c.cuda
            ok = ptx_jit_supported(have, need)
            if ok is False:
                floor = matrices.toolkit_min_driver(need, target.os)
                blockers.append(Blocker(
                    "driver", f"{g.label()} runs it only through PTX JIT of {match.entry}, which needs a driver "
                              f"for CUDA >= {need} (this one: {have})",
                    f"driver >= {floor} for PTX JIT of {c.label}" if floor else f"a driver for CUDA >= {need}"))
            else:
                warnings.append(f"{g.label()} has no native kernels in {c.label}: the driver JIT-compiles the "
                                f"{match.entry} PTX (slow first start; raise CUDA_CACHE_MAXSIZE)"
                                + ("" if ok else f"; needs a driver for CUDA >= {need}"))
    return ptx_only


def _check_driver(c: Candidate, target: Target, matrices, reasons: list, warnings: list,
                  blockers: list) -> None:
    cv = cuda_version(c.cuda)
    if cv is None:
        return
    floor = matrices.minor_compat_floor(cv.major, target.os)
    if not target.driver and not target.driver_cuda:
        need = c.min_driver or floor or matrices.toolkit_min_driver(cv, target.os)
        warnings.append(f"the driver is unknown: {c.label} needs driver >= {need}" if need
                        else f"the driver is unknown: {c.label} needs a driver for CUDA {cv}")
        return
    verdict = _driver_verdict(matrices, c.cuda, target.driver, target.driver_cuda, target.os)
    support = verdict.support
    if target.driver and floor and support in (DriverSupport.TOO_OLD, DriverSupport.UNKNOWN):
        # The major's floor alone decides when the toolkit table cannot (it may
        # lack rows for this OS, or predate this driver).
        at_floor = driver_at_least(target.driver, floor)
        if at_floor is not None:
            support = DriverSupport.MINOR_COMPAT if at_floor else DriverSupport.TOO_OLD
    if support is DriverSupport.TOO_OLD:
        need = verdict.needed_compat or verdict.needed_full
        have = target.driver or f"CUDA {target.driver_cuda}"
        blockers.append(Blocker("driver", f"CUDA {cv} needs driver >= {need}, this one is {have}",
                                f"driver >= {need} for {c.variant}" if need else None))
        return
    if c.min_driver and target.driver and not driver_at_least(target.driver, c.min_driver):
        blockers.append(Blocker("driver", f"{c.framework} documents driver >= {c.min_driver} for {c.variant}, "
                                          f"this one is {target.driver}",
                                f"driver >= {c.min_driver} for {c.framework} {c.variant}"))
        return
    if support is DriverSupport.NATIVE:
        reasons.append(f"driver {target.driver or ''} runs CUDA {cv} natively".replace("  ", " "))
    elif support is DriverSupport.MINOR_COMPAT:
        reasons.append(f"driver {target.driver or ''} runs CUDA {cv} through minor-version compatibility "
                       f"(>= {floor})".replace("  ", " "))
    else:
        warnings.append(f"could not tell whether driver {target.driver} runs CUDA {cv}; needs >= {floor}")


def check_gpu_drivers(target: Target, matrices) -> list[Blocker]:
    """GD108's rule for a target: a driver too old for a GPU's architecture (or
    past its last branch) runs no build at all, whatever CUDA it was built with."""
    out: list[Blocker] = []
    if not target.driver:
        return out
    for g in target.gpus:
        verdict = arch_driver_verdict(g.cc, target.driver, target.os, matrices)
        if verdict is not None and not verdict.ok:
            need = verdict.need
            if need and need.startswith("driver >="):
                need = f"upgrade the driver to >= {need.removeprefix('driver >= ')} ({g.label()})"
            elif need:
                need = f"{need} ({g.label()})"
            out.append(Blocker("driver", f"{g.label()}: {verdict.text}", need))
    return out


def _check_cudnn(c: Candidate, target: Target, matrices, reasons: list, blockers: list,
                 constraints: list) -> None:
    if not target.gpus:
        return
    lowest = min(g.cc for g in target.gpus)
    major = cuda_version(c.cuda).major if cuda_version(c.cuda) else None
    if c.cudnn:
        row = matrices.cudnn_release(c.cudnn)
        floor = compute_capability(row.min_sm) if row else None
        if floor and lowest < floor:
            who = ", ".join(g.label() for g in target.gpus if g.cc < floor)
            blockers.append(Blocker("cudnn", f"bundles cuDNN {c.cudnn}, which needs sm_{floor.major}{floor.minor}+ "
                                             f"({who} is older)"))
        elif floor:
            reasons.append(f"cuDNN {c.cudnn} supports sm_{floor.major}{floor.minor} and newer")
        return
    if c.cudnn_floor and c.cudnn_package:
        newest = newest_cudnn_row(c.cudnn_floor, matrices, major)
        floor = compute_capability(newest.min_sm) if newest else None
        if floor is None or lowest >= floor:
            return
        cap = _cudnn_cap_for(lowest, c.cudnn_floor, matrices, major)
        if cap:
            constraints.append(f"{c.cudnn_package}<{cap}")
            reasons.append(f"pins {c.cudnn_package}<{cap}: {c.label} accepts any cuDNN >= {c.cudnn_floor}, and "
                           f"cuDNN {cap} and newer need sm_{floor.major}{floor.minor}+")
        else:
            blockers.append(Blocker("cudnn", f"needs cuDNN >= {c.cudnn_floor}, which needs "
                                             f"sm_{floor.major}{floor.minor}+"))


@functools.lru_cache(maxsize=256)
def _gpu_drivers(target: Target, matrices) -> tuple[Blocker, ...]:
    return tuple(check_gpu_drivers(target, matrices))


def assess(c: Candidate, target: Target, request: Request, matrices) -> Assessment:
    blockers: list[Blocker] = list(c.preset)
    reasons: list[str] = []
    warnings: list[str] = []
    constraints: list[str] = []
    allowed = request.allows_range(*c.version_range) if c.version_range else request.allows(c.version)
    if not allowed:
        blockers.append(Blocker("version", f"outside the request {request.spec_text}"))
    py = _check_python(c, target)
    if py:
        blockers.append(py)
    ptx_only = False
    if not target.cpu_only and c.cuda is not None:
        gpu_driver = _gpu_drivers(target, matrices)
        blockers += gpu_driver  # first: the one fix that matters, whatever else is wrong
        ptx_only = _check_kernels(c, target, matrices, reasons, warnings, blockers)
        if not gpu_driver:
            _check_driver(c, target, matrices, reasons, warnings, blockers)
        _check_cudnn(c, target, matrices, reasons, blockers, constraints)
    kinds = frozenset(b.kind for b in blockers)
    return Assessment(c, tuple(blockers), tuple(reasons), tuple(warnings), tuple(constraints), ptx_only, kinds)
