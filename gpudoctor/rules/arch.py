"""GD3xx: each GPU's architecture against the kernels a build contains."""

from __future__ import annotations

from collections.abc import Iterator

from gpudoctor.compat import KernelKind, kernel_for, parse_arch_list
from gpudoctor.findings import Evidence, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.common import (
    cuda_frameworks,
    ev,
    ev_value,
    fw_label,
    gpu_cc,
    gpu_evidence,
    gpu_label,
    need_gpus,
)
from gpudoctor.matrices import companion_queries as q
from gpudoctor.rules.fixes import reinstall_fix
from gpudoctor.rules.rule import Findings, Rule, rule
from gpudoctor.snapshot import Framework, Gpu, Snapshot
from gpudoctor.versions import compute_capability, cuda_version

FAMILY = "arch"


# Frameworks that load whichever CUDA libraries of their major are installed (JAX's nvidia-* wheels,
# CuPy's toolkit or wheels): the CUDA they were built with does not bound the libraries that run.
_LOADS_ANY_MINOR = ("jax", "cupy")


def _missing(s: Snapshot, m: Matrices | None = None) -> Iterator[tuple[Gpu, Framework, str]]:
    """(gpu, framework, reason) for every GPU a CUDA build has no kernel for.
    reason: 'too-new' | 'dropped' | 'gap' | 'predates'. Without the build's arch list, the
    CUDA it was built with still bounds it from below: no build can hold code
    for a GPU older than every architecture its nvcc compiles for."""
    gpus = need_gpus(s)
    # A framework whose build a report does not show (TF 1.x named in prose) but whose release
    # was only ever built with one CUDA: whatever its build, that CUDA predates a newer GPU.
    unknown_build = [fw for fw in s.frameworks or () if not fw.build.known and fw.cuda.known
                     and not (fw.arch_list.known and fw.arch_list.value) and m is not None]
    for fw in cuda_frameworks(s) + unknown_build:
        if (not fw.arch_list.known or not fw.arch_list.value) and m is not None and fw.cuda.known:
            can = [c for c in (compute_capability(x) for x in m.arch_support(fw.cuda.value)) if c]
            for g in gpus:
                cc = gpu_cc(g)
                if can and cc is not None and cc < min(can) and fw.build.known:
                    yield g, fw, "dropped"
                elif can and cc is not None and cc.major > max(can).major and fw.name not in _LOADS_ANY_MINOR:
                    # Its CUDA predates the GPU: PTX may JIT the framework's own kernels, but
                    # that CUDA's libraries (cuBLAS, cuDNN) have no code for it.
                    yield g, fw, "predates"
            continue
        if not fw.arch_list.known or not fw.arch_list.value:
            continue
        entries = parse_arch_list(fw.arch_list.value)
        if not entries:
            continue
        lowest, highest = min(e.cc for e in entries), max(e.cc for e in entries)
        can = [c for c in (compute_capability(x) for x in m.arch_support(fw.cuda.value)) if c] \
            if m is not None and fw.cuda.known and fw.name not in _LOADS_ANY_MINOR else []
        for g in gpus:
            cc = gpu_cc(g)
            if cc is not None and can and cc.major > max(can).major and kernel_for(cc, fw.arch_list.value).runs:
                yield g, fw, "predates"  # the build's PTX runs, its CUDA's libraries do not (TF 2.3 on Ada)
                continue
            if cc is None or kernel_for(cc, fw.arch_list.value).runs:
                continue
            reason = "too-new" if cc > highest else "dropped" if cc < lowest else "gap"
            yield g, fw, reason


def _evidence(g: Gpu, fw: Framework) -> list[Evidence]:
    return [gpu_evidence(g), ev(f"{fw.name}.arch_list", fw.arch_list), ev(f"{fw.name}.version", fw.version)]


def _title(g: Gpu, fw: Framework) -> str:
    return f"{fw_label(fw)} has no kernels for {gpu_label(g)}"


@rule("GD301", "arch-not-in-build", "arch-not-in-build", Severity.ERROR,
      "A GPU's architecture is not in a build's arch list (no SASS of its major, no PTX to JIT).", FAMILY, since="0.1.0")
def not_in_build(s: Snapshot, m: Matrices) -> Findings:
    for g, fw, reason in _missing(s):
        if reason == "gap":
            yield not_in_build.finding(
                _title(g, fw) + ": 'no kernel image is available for execution on the device'",
                subject=f"GPU {g.index} × {fw.name}", evidence=_evidence(g, fw),
                fix=reinstall_fix(s, m, fw, f"This build skips sm_{(g.compute_capability or '').replace('.', '')} "
                                            "(same-major SASS runs only on equal or newer minors, PTX only "
                                            "forward)."),
            )


@rule("GD302", "arch-too-new-for-build", "arch-too-new-for-cuda", Severity.ERROR,
      "A GPU is newer than every architecture in a build (e.g. RTX 50xx with a cu126 build).", FAMILY, since="0.1.0")
def too_new(s: Snapshot, m: Matrices) -> Findings:
    for g, fw, reason in _missing(s, m):
        if reason == "predates":
            yield too_new.finding(
                f"{fw_label(fw)} is built with CUDA {fw.cuda.value}, older than {gpu_label(g)}",
                subject=f"GPU {g.index} × {fw.name}", severity=Severity.WARNING,
                evidence=[gpu_evidence(g), ev(f"{fw.name}.cuda", fw.cuda), ev(f"{fw.name}.version", fw.version)],
                fix=reinstall_fix(s, m, fw, f"CUDA {fw.cuda.value} cannot compile for this GPU: its libraries "
                                            "(cuBLAS, cuDNN) fail on it even where PTX JIT runs the framework's own "
                                            "kernels. A release built with a newer CUDA is needed."),
            )
        if reason != "too-new":
            continue
        cc = gpu_cc(g)
        assert cc is not None  # _missing judges only GPUs whose compute capability is known
        can = m.arch_support(fw.cuda.value) if fw.cuda.known else ()
        why = (f"CUDA {fw.cuda.value} cannot even compile for sm_{cc.major}{cc.minor}; a build with a newer CUDA "
               "is needed." if can and cc.sm not in can and all(c < cc for c in map(compute_capability, can) if c)
               else "The build has neither SASS of this major nor PTX that could be JIT-compiled.")
        yield too_new.finding(
            _title(g, fw) + " (GPU newer than the build)", subject=f"GPU {g.index} × {fw.name}",
            evidence=_evidence(g, fw) + [ev(f"{fw.name}.cuda", fw.cuda)],
            fix=reinstall_fix(s, m, fw, why),
        )


@rule("GD303", "arch-dropped-from-build", "arch-dropped", Severity.ERROR,
      "A GPU is older than every architecture in a build: its support was dropped (e.g. Pascal in cu128).",
      FAMILY, since="0.1.0")
def dropped(s: Snapshot, m: Matrices) -> Findings:
    for g, fw, reason in _missing(s, m):
        if reason != "dropped":
            continue
        yield dropped.finding(
            _title(g, fw) + " (support for this architecture was dropped)", subject=f"GPU {g.index} × {fw.name}",
            evidence=_evidence(g, fw) + [ev(f"{fw.name}.cuda", fw.cuda)],
            fix=reinstall_fix(s, m, fw, "Builds for an older CUDA still carry kernels for this GPU."),
        )


@rule("GD304", "ptx-jit-only", "performance", Severity.INFO,
      "A GPU runs a build only through PTX JIT: slow first start, possibly slower kernels.", FAMILY, since="0.1.0")
def ptx_only(s: Snapshot, m: Matrices) -> Findings:
    gpus = need_gpus(s)
    for fw in cuda_frameworks(s):
        if not fw.arch_list.known:
            continue
        for g in gpus:
            cc = gpu_cc(g)
            km = kernel_for(cc, fw.arch_list.value) if cc else None
            if km is None or km.kind is not KernelKind.PTX_JIT:
                continue
            yield ptx_only.finding(
                f"{gpu_label(g)} has no SASS in {fw_label(fw)}: the driver JIT-compiles {km.entry} PTX",
                subject=f"GPU {g.index} × {fw.name}", evidence=_evidence(g, fw),
                fix=Fix("It works, but the first run JIT-compiles every kernel (minutes; cached in "
                        "~/.nv/ComputeCache, raise CUDA_CACHE_MAXSIZE so it fits) and the PTX was not tuned "
                        "for this GPU. A build with native SASS avoids both.",
                        ("export CUDA_CACHE_MAXSIZE=4294967296", f"gpudoctor install {fw.name}")),
            )


@rule("GD305", "toolkit-cannot-target-gpu", "arch-dropped", Severity.WARNING,
      "The CUDA toolkit on this machine cannot compile for an older GPU (e.g. CUDA 13 and Pascal).", FAMILY, since="0.1.0")
def toolkit_cannot_target(s: Snapshot, m: Matrices) -> Findings:
    gpus = need_gpus(s)
    last: dict = {}
    for rt in s.cuda_runtimes or ():
        if rt.kind != "toolkit" or not (rt.nvcc or rt.version):
            continue
        last = last or _last_toolkits(m)
        targets = m.arch_support(rt.nvcc or rt.version)
        if not targets:
            continue
        oldest = min(c for c in map(compute_capability, targets) if c)  # the matrix's sm labels all parse
        for g in gpus:
            cc = gpu_cc(g)
            # A newer GPU can still run PTX this toolkit emits; an older one cannot run anything it emits.
            if cc is None or cc >= oldest:
                continue
            yield toolkit_cannot_target.finding(
                f"nvcc {rt.nvcc or rt.version} {rt.path if rt.path.startswith('(') else f'({rt.path})'} "
                f"cannot compile for {gpu_label(g)}",
                subject=f"GPU {g.index}",
                evidence=[gpu_evidence(g), ev_value("toolkit.sm", ", ".join(targets), "matrices/cuda.toml arch_support"),
                          ev_value("toolkit.version", rt.nvcc or rt.version, rt.source)],
                fix=Fix("Extensions and programs you build here will have no kernels for this GPU. Use the newest "
                        f"toolkit that still targets it{_last_toolkit_for(cc, last)}.",
                        ("# https://developer.nvidia.com/cuda-toolkit-archive",)),
            )


def _last_toolkits(m: Matrices) -> dict:
    """sm -> the newest toolkit of the matrices that compiles for it."""
    last: dict = {}
    for t in m.toolkits:
        cv = cuda_version(t.version)
        for sm in m.arch_support(cv) if cv else ():
            if sm not in last or cv > last[sm]:
                last[sm] = cv
    return last


def _last_toolkit_for(cc, last: dict) -> str:
    """': CUDA 10.2 for sm_30', from _last_toolkits; '' where no toolkit compiles for it."""
    cv = last.get(cc.sm)
    return f": CUDA {cv.major}.{cv.minor} for {cc.sm}" if cv else ""


@rule("GD306", "gpu-older-than-current-builds", "arch-dropped", Severity.WARNING,
      "A GPU is older than every current framework build (e.g. a K40 or K80): only old releases run on it.",
      FAMILY, since="0.1.0")
def older_than_current_builds(s: Snapshot, m: Matrices) -> Findings:
    gpus = need_gpus(s)
    if not gpus or cuda_frameworks(s):
        return  # an installed CUDA build is judged against its own arch list (GD301-GD303)
    current = [parse_arch_list(b.arch_list) for b in m.current_torch_cuda_builds()]
    if not current:
        return
    floor = min(min(e.cc for e in entries) for entries in current)
    for g in gpus:
        cc = gpu_cc(g)
        if cc is None or cc >= floor:
            continue
        last = m.newest_torch_build_running(cc)
        if last is not None:
            how = (f"The newest PyTorch build with kernels for it is torch {last.series} ({last.variant}); "
                   f"`gpudoctor install torch --gpu \"{g.name}\"` gives the exact command, and older "
                   "TensorFlow/JAX/CuPy releases have the same floor.")
        else:
            how = "No PyTorch build in gpudoctor's data has kernels for it, " + _newest_cuda_for(m, cc)
        yield older_than_current_builds.finding(
            f"{gpu_label(g)} is older than every current framework build (they start at sm_{floor.major}{floor.minor})",
            subject=f"GPU {g.index}", evidence=[gpu_evidence(g)],
            fix=Fix(how, (f"gpudoctor install torch --gpu \"{g.name}\"",) if last is not None else ()),
        )


def _newest_cuda_for(m: Matrices, cc) -> str:
    """What the CUDA toolkits still do for an old GPU: a program built with a
    CUDA that cannot compile for it has no code for it, whatever the driver."""
    rows = [r for r in m.table("cuda", "arch_support")
            if any(c is not None and c <= cc and c.major == cc.major for c in map(compute_capability, r.sm))]
    sm = f"sm_{cc.major}{cc.minor}"
    if not rows:
        oldest = m.table("cuda", "arch_support")[0]  # the table is sorted by cuda_from
        return (f"and no CUDA toolkit in gpudoctor's data compiles for {sm} (CUDA {oldest.cuda_from} starts at "
                f"{oldest.sm[0]}; matrices/cuda.toml arch_support): nothing built with CUDA "
                f"{oldest.cuda_from} or later runs on it, whatever the driver. Use a newer GPU.")
    newest = rows[-1]
    return (f"and CUDA {newest.cuda_to or newest.cuda_from} is the newest toolkit that compiles for {sm} "
            "(matrices/cuda.toml arch_support): a program built with a newer CUDA has no code for it, whatever the "
            "driver. Only software built with that toolkit or an older one runs on it; or use a newer GPU.")


@rule("GD307", "image-drops-gpu", "arch-dropped", Severity.ERROR,
      "A framework image's release notes support compute capability X.Y and later; a GPU is older.", FAMILY,
      since="0.1.0")
def image_gpu_floor(s: Snapshot, m: Matrices) -> Findings:
    floor = s.system.image_min_sm
    if floor.value is None:
        return
    image = s.system.image.value or "the image"
    repository = image.split(":", 1)[0]
    torch = next((fw for fw in cuda_frameworks(s) if fw.name == "torch"), None)
    for g in need_gpus(s):
        if q.sm_at_least(g.compute_capability, floor.value) is not False:
            continue
        older = q.image_tags_for(m, repository, sm=g.compute_capability)
        instead = (f"{repository}:{older[0].tag}-py3 is the newest tag in gpudoctor's data that supports it"
                   if older else "no tag in gpudoctor's data supports it")
        why = (f"{image} has no kernels for compute capability {g.compute_capability} ({instead}). "
               "Or build on a CUDA base image and install a torch build that has them:")
        fix = reinstall_fix(s, m, torch, why) if torch is not None else Fix(why)
        yield image_gpu_floor.finding(
            f"{image} supports compute capability {floor.value} and later (its release notes); {gpu_label(g)}",
            subject=f"GPU {g.index} × image",
            evidence=[gpu_evidence(g), ev("system.image_min_sm", floor)],
            fix=fix,
        )


RULES: tuple[Rule, ...] = (
    not_in_build,
    too_new,
    dropped,
    ptx_only,
    toolkit_cannot_target,
    older_than_current_builds,
    image_gpu_floor,
)
