"""GD4xx: cuDNN and NCCL against the frameworks and GPUs that use them."""

from __future__ import annotations

import posixpath


from gpudoctor.findings import Fix, Severity
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
    on_search_path,
)
from gpudoctor.rules.fixes import reinstall_fix
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Framework, Library, Snapshot
from gpudoctor.versions import compute_capability, parse_numeric

FAMILY = "libraries"


def _ver(text: str | None) -> tuple[int, ...]:
    return parse_numeric(text) or ()


def _pip_libs(s: Snapshot, name: str) -> list[Library]:
    return [lib for lib in (s.cudnn if name == "cudnn" else s.nccl) or () if lib.kind == "pip" and lib.version]


def cudnn_loaded(s: Snapshot, fw: Framework) -> tuple[str | None, str] | None:
    """(version, source) of the cuDNN a framework gets: what it loaded (--deep),
    else the pip wheel installed beside it."""
    if fw.deep and fw.deep.cudnn_runtime:
        said = "the framework's own message in the paste" if s.origin == "diagnose" else f"{fw.name} --deep import"
        return fw.deep.cudnn_runtime, said
    pips = _pip_libs(s, "cudnn")
    return (pips[0].version, pips[0].source) if pips else None


def cudnn_in_use(s: Snapshot, fw: Framework) -> tuple[str | None, str] | None:
    """What a framework gets, else what it was built with."""
    got = cudnn_loaded(s, fw)
    if got is None and fw.cudnn.known:
        return fw.cudnn.value, fw.cudnn.source
    return got


@rule("GD401", "cudnn-drops-gpu", "arch-dropped", Severity.ERROR,
      "The cuDNN a framework uses does not support a GPU (cuDNN >= 9.11 needs sm_75 or newer).", FAMILY, since="0.1.0")
def cudnn_drops_gpu(s: Snapshot, m: Matrices) -> Findings:
    gpus = need_gpus(s)
    for fw in cuda_frameworks(s):
        used = cudnn_in_use(s, fw)
        version, said = used if used else (None, "")
        if version is None or not _ver(version):
            continue  # unknown, or only a requirement range (jax)
        row = m.cudnn_release(version)
        if row is None:
            raise Unknown(f"no cuDNN matrix row covers {version}")
        min_cc, source = compute_capability(row.min_sm), row.source
        assert min_cc is not None  # cudnn.toml's min_sm is a required "X.Y"
        for g in gpus:
            cc = gpu_cc(g)
            if cc is None or cc >= min_cc:
                continue
            yield cudnn_drops_gpu.finding(
                f"cuDNN {version} (used by {fw_label(fw)}) supports sm_{min_cc.major}{min_cc.minor}+; "
                f"{gpu_label(g)} is older: convolutions fail at first use",
                subject=f"GPU {g.index} × {fw.name}",
                evidence=[gpu_evidence(g), ev_value(f"{fw.name}.cudnn", version, said),
                          ev_value("cudnn.min_sm", str(min_cc), source)],
                fix=reinstall_fix(s, m, fw, "cuDNN 9.10.2 is the last release for Maxwell, Pascal and Volta; "
                                            "builds for CUDA 12.6 (cu126) ship it."),
            )


@rule("GD402", "cudnn-version-mismatch", "cudnn-version-mismatch", Severity.ERROR,
      "The cuDNN a framework loads differs from the one it was built for.", FAMILY, since="0.1.0")
def cudnn_mismatch(s: Snapshot, m: Matrices) -> Findings:
    if s.frameworks is None:
        raise Unknown("frameworks were not probed")
    for fw in cuda_frameworks(s):
        built = fw.cudnn.value
        if not built:
            continue
        got = cudnn_loaded(s, fw)
        if got is None:
            continue
        have, source = got
        b, h = _ver(built), _ver(have)
        if not b or not h or h[:len(b)] == b[:len(h)]:
            continue
        incompatible = b[0] != h[0] or h[:2] < b[:2]
        yield cudnn_mismatch.finding(
            f"{fw_label(fw)} was built for cuDNN {built} but gets cuDNN {have}"
            + ("" if incompatible else " (newer minor: usually works, untested by the framework)"),
            severity=Severity.ERROR if incompatible else Severity.WARNING, subject=fw.name,
            evidence=[ev(f"{fw.name}.cudnn", fw.cudnn), ev_value("cudnn.loaded", have, source)],
            fix=Fix("Another package (often TensorFlow, JAX or a manual pip install) changed the nvidia-cudnn "
                    "wheel. Reinstall the version the framework pins, in separate environments if two "
                    "frameworks need different ones.",
                    (f"pip install --force-reinstall --no-deps '{_cudnn_wheel(s, fw)}=={built}'",)),
        )


def cudnn_major_needed(requirement: str | None) -> int | None:
    """The cuDNN major a framework needs: from an exact version ("9.13.0.50")
    or a requirement specifier such as jax's "<10.0,>=9.8"."""
    if not requirement:
        return None
    exact = _ver(requirement)
    if exact:
        return exact[0]
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # a specifier is rare: jax's "<10.0,>=9.8"

    try:
        spec = SpecifierSet(requirement)
    except InvalidSpecifier:
        return None
    floors = [_ver(x.version) for x in spec if x.operator in (">=", "==", "~=", ">")]
    return floors[0][0] if floors and floors[0] else None


def _cudnn_wheel(s: Snapshot, fw: Framework) -> str:
    major = (parse_numeric(fw.cuda.value) or (12,))[0]
    return f"nvidia-cudnn-cu{major}"


@rule("GD403", "cudnn-shadowed", "library-conflict", Severity.WARNING,
      "A cuDNN on LD_LIBRARY_PATH can shadow the one a framework ships.", FAMILY, since="0.1.0")
def cudnn_shadowed(s: Snapshot, m: Matrices) -> Findings:
    if s.cudnn is None:
        raise Unknown("cuDNN installations were not probed")
    for fw in cuda_frameworks(s):
        loaded = [p for p in (fw.deep.loaded_libraries if fw.deep else ()) if "libcudnn" in posixpath.basename(p)]
        wheel_dirs = [lib.path for lib in _pip_libs(s, "cudnn")]
        foreign = [p for p in loaded if wheel_dirs and not any(p.startswith(d) for d in wheel_dirs)]
        if foreign:
            yield cudnn_shadowed.finding(
                f"{fw_label(fw)} loaded cuDNN from {posixpath.dirname(foreign[0])}, not from its own wheel",
                severity=Severity.ERROR, subject=fw.name,
                evidence=[ev_value(f"{fw.name}.loaded_libraries", foreign[0], "/proc/self/maps (--deep)"),
                          ev_value("cudnn.wheel", wheel_dirs[0], "site-packages")],
                fix=shadow_fix(),
            )
            continue
        if not wheel_dirs:
            continue
        own = _ver(_pip_libs(s, "cudnn")[0].version)
        for lib in s.cudnn:
            v = _ver(lib.version)
            if (lib.ld_library_path or lib.kind == "ld-library-path") and v and own and v[0] == own[0] and v[:3] != own[:3]:
                shipped = _pip_libs(s, "cudnn")[0].version
                yield cudnn_shadowed.finding(
                    f"LD_LIBRARY_PATH has cuDNN {lib.version} ({lib.path}); {fw_label(fw)} ships {shipped}",
                    subject=fw.name,
                    evidence=[ev_value("cudnn.ld_library_path", f"{lib.version} at {lib.path}", lib.source)],
                    fix=shadow_fix(),
                )
                break


def shadow_fix() -> Fix:
    return Fix("Remove the system cuDNN directory from LD_LIBRARY_PATH for this environment (frameworks "
               "installed with pip find their own cuDNN), then confirm with `gpudoctor check --deep`.",
               ("echo $LD_LIBRARY_PATH", "unset LD_LIBRARY_PATH   # or remove only the cuDNN directory",
                "gpudoctor check --deep"))


@rule("GD404", "cudnn-missing", "cudnn-missing", Severity.ERROR,
      "A framework built for CUDA finds no cuDNN of the major it needs.", FAMILY, since="0.1.0")
def cudnn_missing(s: Snapshot, m: Matrices) -> Findings:
    if s.cudnn is None:
        raise Unknown("cuDNN installations were not probed")
    for fw in cuda_frameworks(s):
        if not fw.cudnn.known:  # CuPy and others that do not record a cuDNN need none here
            continue
        need = cudnn_major_needed(fw.cudnn.value)
        if need is None or any(_ver(lib.version)[:1] == (need,) for lib in s.cudnn):
            continue
        pkg = f"{_cudnn_wheel(s, fw)}=={fw.cudnn.value}" if fw.name == "torch" else _cudnn_wheel(s, fw)
        yield cudnn_missing.finding(
            f"{fw_label(fw)} needs cuDNN {need}.x and none was found",
            subject=fw.name, evidence=[ev(f"{fw.name}.cudnn", fw.cudnn),
                                       ev_value("cudnn", "none found", "site-packages, CUDA_HOME, LD_LIBRARY_PATH, ldconfig")],
            fix=Fix("Install the cuDNN wheel the framework expects (or reinstall the framework with its CUDA "
                    "extras, e.g. tensorflow[and-cuda], jax[cuda12]).", (f"pip install '{pkg}'",)),
        )


@rule("GD405", "several-cudnn-same-major", "library-conflict", Severity.WARNING,
      "Several cuDNN versions of one major are on the global library path.", FAMILY, since="0.1.0")
def several_cudnn(s: Snapshot, m: Matrices) -> Findings:
    if s.cudnn is None:
        raise Unknown("cuDNN installations were not probed")
    shared = [lib for lib in s.cudnn if on_search_path(lib) and _ver(lib.version)]  # "linux": no version
    by_major: dict[int, list[Library]] = {}
    for lib in shared:
        by_major.setdefault(_ver(lib.version)[0], []).append(lib)
    for major, libs in sorted(by_major.items()):
        if len({_ver(lib.version)[:3] for lib in libs}) < 2:
            continue
        yield several_cudnn.finding(
            f"{len(libs)} different cuDNN {major}.x versions are on the library search path",
            evidence=[ev_value("cudnn", f"{lib.version} at {lib.path}", lib.source) for lib in libs],
            fix=Fix("Keep one cuDNN per major on the search path; which one loads otherwise depends on order.",
                    ("ldconfig -p | grep libcudnn", "echo $LD_LIBRARY_PATH")),
        )


@rule("GD406", "nccl-version-mismatch", "library-conflict", Severity.WARNING,
      "The NCCL wheel installed differs from the one a framework pins.", FAMILY, since="0.1.0")
def nccl_mismatch(s: Snapshot, m: Matrices) -> Findings:
    if s.nccl is None:
        raise Unknown("NCCL installations were not probed")
    for fw in cuda_frameworks(s):
        pins = _ver(fw.nccl.value)
        for lib in _pip_libs(s, "nccl"):
            have = _ver(lib.version)
            if pins and have and have[:len(pins)] != pins[:len(have)]:
                yield nccl_mismatch.finding(
                    f"{fw_label(fw)} pins NCCL {fw.nccl.value}; the environment has NCCL {lib.version}",
                    subject=fw.name, evidence=[ev(f"{fw.name}.nccl", fw.nccl),
                                               ev_value("nccl.installed", lib.version, lib.source)],
                    fix=Fix("Multi-GPU collectives may hang or fail with a different NCCL. Reinstall the pinned one.",
                            ("pip install --force-reinstall --no-deps "
                             f"'nvidia-nccl-cu{(parse_numeric(fw.cuda.value) or (12,))[0]}=={fw.nccl.value}'",)),
                )


@rule("GD407", "frameworks-need-different-cudnn", "library-conflict", Severity.WARNING,
      "Two frameworks in one environment need different cuDNN majors.", FAMILY, since="0.1.0")
def frameworks_cudnn_majors(s: Snapshot, m: Matrices) -> Findings:
    if s.frameworks is None:
        raise Unknown("frameworks were not probed")
    needs = [(fw, cudnn_major_needed(fw.cudnn.value)) for fw in cuda_frameworks(s) if fw.cudnn.known]
    needs = [(fw, major) for fw, major in needs if major is not None]
    if len({major for _, major in needs}) < 2:
        return
    said = ", ".join(f"{fw_label(fw)} cuDNN {major}" for fw, major in needs)
    yield frameworks_cudnn_majors.finding(
        f"One environment, two cuDNN majors: {said}",
        evidence=[ev(f"{fw.name}.cudnn", fw.cudnn) for fw, _ in needs],
        fix=Fix("Only one nvidia-cudnn wheel (one libcudnn.so.N on the library path) can be loaded, so one of "
                "the frameworks gets the wrong cuDNN: pick versions whose cuDNN majors agree, or give each "
                "framework its own environment.",
                ("python -m venv .venv-torch && .venv-torch/bin/pip install torch",
                 "python -m venv .venv-tf && .venv-tf/bin/pip install 'tensorflow[and-cuda]'")),
    )


# Libraries that bring no cuDNN of their own and load the one on the library path by its major.
_LOADS_CUDNN_MAJOR = ("ctranslate2",)


@rule("GD408", "library-loads-absent-cudnn-major", "cudnn-version-mismatch", Severity.WARNING,
      "A library that loads the environment's cuDNN (CTranslate2) needs a cuDNN major the environment does not have.",
      FAMILY, since="0.1.0")
def library_cudnn_major(s: Snapshot, m: Matrices) -> Findings:
    from gpudoctor.matrices import companion_queries as q

    libs = [fw for fw in s.frameworks or () if fw.name in _LOADS_CUDNN_MAJOR and fw.version.known]
    if not libs:
        return
    # What the environment offers: the cuDNN libraries the snapshot shows, and the one a CUDA torch brings.
    offered: list[tuple[str | None, str]] = [(lib.version, lib.source) for lib in s.cudnn or () if lib.version]
    offered += [(fw.cudnn.value, fw.cudnn.source) for fw in cuda_frameworks(s) if fw.name == "torch" and fw.cudnn.known]
    majors = {_ver(v)[0]: (v, src) for v, src in offered if _ver(v)}
    if not majors:
        raise Unknown("no cuDNN is shown")
    for fw in libs:
        need = q.gpu_library_need(m, fw.name, fw.version.value, None, "cudnn_major")
        if need is None or need[0] in majors:
            continue
        have = sorted(majors)
        version, source = majors[have[-1]]
        release = q.gpu_library_releases_with(m, fw.name, "cudnn_major", have[-1])
        yield library_cudnn_major.finding(
            f"{fw.name} {fw.version.value} loads cuDNN {need[0]}; this environment has cuDNN "
            f"{', '.join(str(v) for v in have)}", subject=fw.name,
            evidence=[ev(f"{fw.name}.version", fw.version), ev_value(f"{fw.name}.cudnn_major", need[0], need[1]),
                      ev_value("cudnn.version", version, source)],
            fix=Fix(f"{fw.name} opens libcudnn*.so.{need[0]} (cudnn*64_{need[0]}.dll) by name and finds none: install "
                    f"the {fw.name} release built for the cuDNN you have, or add a cuDNN {need[0]} (the nvidia-cudnn "
                    "wheel) to the environment.",
                    (f"pip install '{fw.name}{release}'",) if release else ()),
        )


RULES: tuple[Rule, ...] = (
    cudnn_drops_gpu,
    cudnn_mismatch,
    cudnn_shadowed,
    cudnn_missing,
    several_cudnn,
    nccl_mismatch,
    frameworks_cudnn_majors,
    library_cudnn_major,
)
