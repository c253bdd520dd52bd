"""GD509-GD511: inference runtimes installed as Python packages (ONNX Runtime), and
frameworks whose builds are packages of different names that install one module.

ONNX Runtime is not built against a framework: its GPU package loads the CUDA and
cuDNN libraries of the CUDA major it was compiled for, and PyPI ships the CPU build
and the GPU build under different names that install the same `onnxruntime` module.
PaddlePaddle and CuPy do the same (paddlepaddle / paddlepaddle-gpu, one cupy-cudaNNx per
CUDA).
"""

from __future__ import annotations

import re

from gpudoctor.findings import Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.common import ev, ev_value, fw_label
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import cuda_version

FAMILY = "frameworks"

REQUIREMENTS = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"

# The distributions that install the `onnxruntime` import package: the CPU build, the CUDA
# (and TensorRT) build, and the DirectML, OpenVINO and Apple-silicon builds.
ORT_DISTRIBUTIONS = ("onnxruntime", "onnxruntime-gpu", "onnxruntime-directml", "onnxruntime-openvino",
                     "onnxruntime-silicon", "onnxruntime-training")

# Frameworks whose builds are distributions of different names installing one import package:
# module -> (the distributions' names, the plain (CPU or source) one, the source that says to keep
# only one). ONNX Runtime's are judged by GD510, the others by GD511.
SHARED_MODULE = {
    "onnxruntime": (re.compile("|".join(map(re.escape, ORT_DISTRIBUTIONS))), "onnxruntime",
                    "https://github.com/microsoft/onnxruntime/issues/3787"),
    # a Paddle maintainer: both wheels install into site-packages/paddle, keep one
    "paddle": (re.compile(r"paddlepaddle(?:-gpu)?"), "paddlepaddle", "https://github.com/PaddlePaddle/Paddle/issues/47344"),
    # CuPy warns itself ("multiple CuPy packages are installed") and asks to uninstall all but one
    "cupy": (re.compile(r"cupy(?:-cuda\d{2,3}x?|-rocm-\d+-\d+)?"), "cupy",
             "https://github.com/cupy/cupy/blob/main/cupy/_environment.py"),
}


def _serves(build_cuda_major: int, build_cuda: str | None, have) -> bool:
    """A build serves a CUDA of its major from 11 on (minor-version compatibility; the
    requirements page says so for 11.x and 12.x); before 11 only its own minor."""
    if have.major != build_cuda_major:
        return False
    built = cuda_version(build_cuda)
    return build_cuda_major >= 11 or built is None or built == have


@rule("GD509", "onnxruntime-no-build-for-cuda", "framework-cuda-mismatch", Severity.ERROR,
      "ONNX Runtime's GPU build of this release is made for another CUDA than the one the environment has.",
      FAMILY, since="0.1.0")
def ort_cuda(s: Snapshot, m: Matrices) -> Findings:
    fw = s.framework("onnxruntime")
    version = fw.version.value if fw is not None and fw.build.value == "cuda" else None
    if fw is None or version is None:
        raise Unknown("no CUDA build of ONNX Runtime with a known version")
    builds = m.onnxruntime_builds(version)
    if not builds:
        raise Unknown(f"onnxruntime {version} is not in gpudoctor's data")
    runtimes = [(rt, v) for rt in s.cuda_runtimes or () if (v := cuda_version(rt.version)) is not None]
    if not runtimes:
        raise Unknown("the CUDA installed is unknown")
    if any(_serves(b.cuda_major, b.cuda, v) for b in builds for _, v in runtimes):
        return
    rt, have = runtimes[0]
    made_for = " or ".join(f"CUDA {b.cuda or f'{b.cuda_major}.x'} (cuDNN {b.cudnn})" for b in builds)
    # A CUDA only stated in prose may be nvidia-smi's (the driver's) rather than the
    # libraries': a warning then, an error once a tool or the toolkit shows them.
    stated_only = all(r.kind == "stated" for r, _ in runtimes)
    newer = max(builds, key=lambda b: b.cuda_major).cuda_major < have.major
    yield ort_cuda.finding(
        f"{fw_label(fw)}'s GPU build is made for {made_for}; the environment has CUDA {rt.version}",
        subject="onnxruntime", severity=Severity.WARNING if stated_only else None,
        evidence=[ev("onnxruntime.version", fw.version), ev_value("cuda", rt.version, rt.source),
                  ev_value("onnxruntime.builds", made_for, builds[0].source)],
        fix=Fix("The CUDA provider loads the CUDA and cuDNN libraries of the CUDA major its build was made for, "
                "so it fails to start ('Failed to create CUDAExecutionProvider') and the session runs on the CPU. "
                + ("Install an onnxruntime-gpu release built for your CUDA (1.19 and later are CUDA 12 builds on "
                   "PyPI), or add the CUDA and cuDNN libraries its build needs. "
                   if newer else "Install the CUDA and cuDNN its build needs, or an onnxruntime-gpu release built for "
                                 "your CUDA. ") + f"(source: {REQUIREMENTS})",
                ("pip install -U onnxruntime-gpu",) if newer else ()),
    )


@rule("GD510", "onnxruntime-packages-conflict", "library-conflict", Severity.WARNING,
      "More than one ONNX Runtime package is installed (onnxruntime next to onnxruntime-gpu).", FAMILY, since="0.1.0")
def ort_packages(s: Snapshot, m: Matrices) -> Findings:
    found = [c for c in s.companions or () if c.framework == "onnxruntime" and c.name in ORT_DISTRIBUTIONS]
    if not found:
        # Not "none installed": `check` does not look for these packages (yet), and a paste may not list them.
        raise Unknown("no ONNX Runtime package is known")
    if len(found) < 2:
        return
    names = ", ".join(f"{c.name} {c.version.value}" for c in found)
    others = [c.name for c in found if c.name != "onnxruntime-gpu"]
    yield ort_packages.finding(
        f"{names} are installed together",
        subject="onnxruntime", evidence=[ev(c.name, c.version) for c in found],
        fix=Fix("Each of these packages installs the same `onnxruntime` module, so whichever was installed last "
                "overwrites the other's files: with the CPU package on top only CPUExecutionProvider is available. "
                "Keep one: uninstall them all, then install the one you need (onnxruntime-gpu has the CPU provider too). "
                "(source: https://github.com/microsoft/onnxruntime/issues/3787, "
                "https://github.com/microsoft/onnxruntime/issues/10685)",
                (f"pip uninstall -y {' '.join(c.name for c in found)}",
                 "pip install onnxruntime-gpu" if "onnxruntime-gpu" in {c.name for c in found}
                 else f"pip install {others[0]}")),
    )


@rule("GD511", "framework-packages-conflict", "library-conflict", Severity.WARNING,
      "More than one build of one framework is installed as packages of different names that install the same "
      "module (paddlepaddle next to paddlepaddle-gpu, two cupy packages).",
      FAMILY, since="0.1.0")
def framework_packages(s: Snapshot, m: Matrices) -> Findings:
    found = [c for c in s.companions or () if c.framework in SHARED_MODULE and c.framework != "onnxruntime"]
    if not found:
        raise Unknown("no package of a framework whose builds share one module is known")
    for module, (_, plain, guide) in SHARED_MODULE.items():
        same = [c for c in found if c.framework == module]
        if len(same) < 2:
            continue
        yield framework_packages.finding(
            f"{', '.join(f'{c.name} {c.version.value}' for c in same)} are installed together",
            subject=module, evidence=[ev(c.name, c.version) for c in same],
            fix=Fix(f"These packages all install the `{module}` module, so the one installed last overwrites the "
                    "other's files and uninstalling one breaks the other: the environment may run the CPU build or a "
                    "build for another CUDA. Uninstall them all, then install the one build you need. "
                    f"(source: {guide})",
                    (f"pip uninstall -y {' '.join(c.name for c in same)}",
                     f"pip install {next((c.name for c in same if c.name != plain), plain)}   # the CUDA build")))


RULES: tuple[Rule, ...] = (ort_cuda, ort_packages, framework_packages)
