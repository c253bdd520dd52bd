"""Package lists: pip freeze, pip list, pip show, conda list, collect_env's
[pip3]/[conda] lines, and Ultralytics' `yolo checks` table. Names are
collected first; `interpret` then turns the interesting ones into framework,
cuDNN, NCCL and CUDA-runtime facts."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts, Value
from gpudoctor.diagnose.paste import Paste
from gpudoctor.rules.runtimes import SHARED_MODULE

_NAME = r"[A-Za-z0-9_][A-Za-z0-9._-]{0,80}"  # conda's own start with "_": _pytorch_select
# Also as a list item in a sentence's markdown: "- `ctranslate2==4.4.0`".
# A version ends at the first character no version has: "tensorflow-gpu==1.14.0下默认使用cpu" is 1.14.0,
# and a sentence's full stop is not the version's: "TensorFlow==2.3." is 2.3.
_FREEZE = re.compile(rf"^(?:\[(pip\d?)\] |[ \t]{{0,4}}[-*][ \t]{{1,2}}`?)?({_NAME})==([\w.+!*-]{{1,60}}?)\.?"
                     r"(?:`?[ \t]*$|(?=[^\x00-\x7f]))", re.M | re.A)
_CONDA_TAGGED = re.compile(rf"^\[conda\] ({_NAME})[ \t]{{1,60}}(\S{{1,60}})(?:[ \t]{{1,60}}(\S{{1,80}}))?"
                           rf"(?:[ \t]{{1,60}}(\S{{1,40}}))?[ \t]*$", re.M)
# "torch    2.1.0+cu121" (pip list), "pytorch  2.1.0  py3.10_cuda12.1_cudnn8.9.2_0  pytorch" (conda list)
_COLUMNS = re.compile(rf"^({_NAME})[ \t]{{2,60}}(\d[\w.+!-]{{0,60}})(?:[ \t]{{1,60}}(\S{{1,80}}))?"
                      rf"(?:[ \t]{{1,60}}(\S{{1,40}}))?[ \t]*$", re.M)
# conda's transaction plan: "  jaxlib   conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1"
_CONDA_PLAN = re.compile(rf"^[ \t]+({_NAME})[ \t]+[\w./-]{{0,80}}::\1-(\d[\w.+!]{{0,60}})-(\S{{1,80}})"
                         rf"(?:[ \t]+\S{{1,80}})?[ \t]*$", re.M | re.I)
_SHOW = re.compile(rf"^Name: ({_NAME})[ \t]*\nVersion: (\S{{1,60}})", re.M)
# A version list typed as "name: version" lines, as issue forms ask ("paddlepaddle: 2.3.2",
# "- paddlepaddle-gpu:2.3.2"); only the interesting names count.
_COLON_LIST = re.compile(rf"^[ \t]*(?:[-*][ \t]+)?({_NAME})[ \t]*:[ \t]*v?(\d[\w.+!-]{{0,60}})[ \t]*$", re.M)
_CHECKS = re.compile(r"^(torch|torchvision)[ \t]{1,40}[^\s\d]{1,3}[ \t]{0,4}(\d[\w.+]{0,40}?)(?:>=|[ \t]*$)", re.M)

# Only these names are taken from bare "name  version" columns, where a
# false match would otherwise be easy.
_INTERESTING = re.compile(r"^(torch|torchvision|torchaudio|pytorch|pytorch-cuda|_pytorch_select|pytorch-mutex|cpuonly|"
                          r"pytorch-triton|triton|tensorflow.*|"
                          r"tf-nightly.*|jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|cupy.*|nvidia-.*|cudatoolkit|cudnn|nccl|"
                          r"cuda-version|cuda-cudart|cuda-runtime|cuda-nvcc|deepspeed|xformers|flash-attn|"
                          r"bitsandbytes|python|ultralytics|vllm|onnxruntime(-gpu|-directml|-openvino|-silicon|-training)?|"
                          r"mxnet(-cu\d+(mkl)?)?|dgl(-cu\d+|-cuda[\d.]+)?|paddlepaddle(-gpu)?|(cudf|cuml|cugraph)(-cu\d+)?|numba-cuda)$",
                          re.I)


# Each interesting name contains one of these: the filter for the column lines.
_COLUMN_WORDS = ("torch", "tensorflow", "tf-nightly", "jax", "cupy", "nvidia-", "cudatoolkit", "cudnn", "nccl",
                 "cuda-", "deepspeed", "xformers", "flash-attn", "bitsandbytes", "python", "ultralytics", "vllm",
                 "triton", "mxnet", "dgl", "paddlepaddle", "onnxruntime", "cudf", "cuml", "cugraph", "numba-cuda",
                 "cpuonly")


# The reporter naming two builds of one module as installed together: "I had installed both
# onnxruntime and onnxruntime-gpu" (GD510/GD511 judge them as a listing's).
_BOTH = re.compile(rf"\bboth[ \t]+\W?({_NAME})\W?[ \t]+and[ \t]+\W?({_NAME})", re.I)


def parse(p: Paste, f: Facts) -> None:
    for m in p.scan(_BOTH, "both"):
        first, second = m.group(1).lower().rstrip("."), m.group(2).lower().rstrip(".")
        if first != second and any(names.fullmatch(first) and names.fullmatch(second)
                                   for names, *_ in SHARED_MODULE.values()):
            for name in (first, second):
                f.package(name, "(named in the paste)", p.where("free text", m.start()))
    for m in p.scan(_FREEZE, "=="):
        f.saw(f"pip freeze ([{m.group(1)}])" if m.group(1) else "pip freeze")
        f.package(m.group(2), m.group(3), p.where("pip freeze" if not m.group(1) else "collect_env", m.start()))
    for m in p.scan(_CONDA_TAGGED, "[conda]"):
        f.saw("collect_env [conda]")
        _conda(f, m.group(1), m.group(2), m.group(3), p.where("collect_env [conda]", m.start()))
    conda_block = "# packages in environment at" in p.text or re.search(r"^#\s*Name\s+Version\s+Build", p.text, re.M)
    for m in p.scan(_COLUMNS, *_COLUMN_WORDS):
        name = m.group(1)
        if not _INTERESTING.match(name):
            continue
        what = "conda list" if (conda_block or m.group(3) is not None) else "pip list"
        f.saw(what)
        src = p.where(what, m.start())
        if what == "conda list":
            _conda(f, name, m.group(2), m.group(3), src)
        else:
            f.package(name, m.group(2), src)
    for m in p.scan(_CONDA_PLAN, "::"):
        if _INTERESTING.match(m.group(1)):
            f.saw("conda install plan")
            _conda(f, m.group(1), m.group(2), m.group(3), p.where("conda install plan", m.start()))
    for m in _SHOW.finditer(p.text):
        f.saw("pip show")
        f.package(m.group(1), m.group(2), p.where("pip show", m.start()))
        requires = re.search(r"^Requires: ([^\n]{0,2000})", p.text[m.end():m.end() + 3000], re.M)
        cu = re.search(r"nvidia-[\w-]+-cu(\d+)", requires.group(1)) if requires else None
        if cu and m.group(1).lower() == "torch":
            f.fw("torch", "build", "cuda", p.where("pip show Requires", m.start()))
    listed = list(p.scan(_COLON_LIST, *_COLUMN_WORDS))
    for i, m in enumerate(listed):
        # a list, not one "name: 1.2" line in prose: another such line within a few lines
        near = any(abs(o.start() - m.start()) < 400 for o in listed[max(0, i - 1):i + 2] if o is not m)
        # ("PyTorch: 2.8.0+cu128" is prose's name for torch, read by the free-text reader; conda's
        # "pytorch" package is another thing)
        if near and _INTERESTING.match(m.group(1)) and m.group(1).lower() != "pytorch":
            f.saw("version list")
            f.package(m.group(1), m.group(2), p.where("version list", m.start()))
    for m in p.scan(_CHECKS, "torch"):
        f.saw("yolo checks")
        f.package(m.group(1), m.group(2), p.where("yolo checks", m.start()))


def _conda(f: Facts, name: str, version: str, build: str | None, src: str) -> None:
    key = name.lower()
    if key == "pytorch" and build:
        cuda = re.search(r"cuda(\d+\.\d+)", build)
        cudnn = re.search(r"cudnn(\d+(?:\.\d+)*)", build)
        if cuda:
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "cuda", cuda.group(1), src)
        elif re.search(r"(^|_)cpu(_|$)", build):
            f.fw("torch", "build", "cpu", src)
        if cudnn:
            f.fw("torch", "cudnn", cudnn.group(1), src)
    elif key in ("_pytorch_select", "pytorch-mutex") and build:
        # The variant selectors: Anaconda's "_pytorch_select 0.1 cpu_0" / "gpu_0", the pytorch
        # channel's "pytorch-mutex 1.0 cpu" / "cuda" (the mutex its cpuonly package pins).
        if re.match(r"cpu(_|$)", build):
            f.fw("torch", "build", "cpu", src)
        elif re.match(r"(?:gpu|cuda)(_|$)", build):
            f.fw("torch", "build", "cuda", src)
    elif key == "cpuonly":
        f.fw("torch", "build", "cpu", src)
    elif key in ("jaxlib", "tensorflow", "tensorflow-base") and build:
        # conda-forge's builds say what they are: "cuda120py311h…" or "cpu_py311h…"
        fw = "jax" if key == "jaxlib" else "tensorflow"
        if re.match(r"cuda\d", build):
            f.fw(fw, "build", "cuda", src)
        elif re.match(r"cpu_", build):
            f.fw(fw, "build", "cpu", src)
    f.package("torch" if key == "pytorch" else name, version, src)
    if key in ("cudatoolkit", "cuda-cudart", "cuda-runtime"):
        f.runtime(version=version, path="(conda environment)", kind="conda", source=src)
    elif key == "cudnn":
        f.library("cudnn", version=version, path="(conda environment)", kind="conda", source=src)
    elif key == "nccl":
        f.library("nccl", version=version, path="(conda environment)", kind="conda", source=src)
    elif key == "pytorch-cuda":
        f.fw("torch", "cuda", version, src)


# Whole-environment listings: what they do not list is not installed (unlike `pip show x`).
_LISTINGS = ("pip list", "pip freeze", "conda list")


def interpret(f: Facts) -> None:
    """Turn collected package versions into facts the rules read."""
    pk = f.packages
    for name in ("torch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly", "jax", "cupy"):
        if name in pk:
            _framework(f, name, pk[name])
    for name, v in pk.items():
        floored = re.fullmatch(r"(cudf|cuml|cugraph)(?:-cu(\d+))?|(numba-cuda|vllm|flash-attn|ctranslate2)", name)
        if floored:  # a GPU library with architecture floors (companions.toml [[gpu_library]])
            lib = floored.group(1) or floored.group(3)
            f.fw(lib, "version", v.value, v.source, v.rank)
            if floored.group(2):
                f.fw(lib, "cuda", f"{floored.group(2)}.x", v.source, v.rank)  # cudf-cu12: its CUDA major
        if name.startswith("cupy-cuda"):
            f.fw("cupy", "version", v.value, v.source)
            f.fw("cupy", "build", "cuda", v.source)
        lib = re.fullmatch(r"nvidia-(cudnn|nccl)-cu(\d+)", name)
        if lib:
            f.library(lib.group(1), version=v.value, path=f"(pip wheel {name})", kind="pip", source=v.source,
                      cuda_major=int(lib.group(2)))
        rt = re.fullmatch(r"nvidia-cuda-runtime-cu(\d+)", name)
        if rt:
            f.runtime(version=v.value, path=f"(pip wheel {name})", kind="pip", source=v.source)
    jaxlib = pk.get("jaxlib")
    if jaxlib:
        tag = re.search(r"\+cuda(\d+)(?:\.cudnn(\d)(\d+))?", jaxlib.value)
        # (unless JAX shows a GPU device: a version retyped in prose drops its "+cuda111" tag)
        if not tag and re.match(r"0\.[0-3]\.", jaxlib.value) and f.fw_get("jax", "is_available") is not True:
            # Before 0.4 a CUDA jaxlib carried its CUDA in the version ("0.1.67+cuda111", from
            # Google's index); PyPI's plain jaxlib was, and is, the CPU build.
            f.fw("jax", "version", jaxlib.value, jaxlib.source, jaxlib.rank)
            f.fw("jax", "build", "cpu", jaxlib.source, jaxlib.rank)
        if tag:
            f.fw("jax", "build", "cuda", jaxlib.source)
            if tag.group(2):
                f.fw("jax", "cudnn", f"{tag.group(2)}.{tag.group(3)}", jaxlib.source)
    plugins = [name for name in pk if re.fullmatch(r"jax-cuda\d+-(plugin|pjrt)", name)]
    for name in plugins:
        f.fw("jax", "build", "cuda", pk[name].source)
    listed = jaxlib is not None and jaxlib.source.startswith(_LISTINGS)
    if jaxlib is not None and listed and not plugins and f.fw_get("jax", "build") is None \
            and f.fw_get("jax", "is_available") is False:
        # JAX answered with CPU devices only, and the environment's listing has no CUDA part:
        # jaxlib carries CUDA either in its version ("+cuda12.cudnn89", Google's index, before the
        # plugins) or beside it as jax-cuda12-plugin/pjrt; PyPI's plain jaxlib is the CPU build.
        f.fw("jax", "build", "cpu", jaxlib.source, jaxlib.rank)
    _companion_builds(f)
    _onnxruntime(f)
    if "python" in pk:
        f.put("system.python", pk["python"].value, pk["python"].source)


# Libraries whose CUDA build has another package name or a local version, while the plain name from
# PyPI is the CPU build: "mxnet-cu112" vs "mxnet" (https://mxnet.apache.org/versions/1.9.1/get_started),
# "paddlepaddle-gpu" (its CUDA in ".post117") vs "paddlepaddle" (https://www.paddlepaddle.org.cn/install/quick),
# "dgl-cu113" before 1.0, then "dgl 1.1.2+cu118" from DGL's own wheel index vs plain "dgl" (DGL: the CPU and
# CUDA builds share one name from 0.3 on; https://www.dgl.ai/pages/start.html).
_CUDA_NAMED = re.compile(r"(mxnet|dgl)-cu(\d{2,3})(?:mkl)?|(dgl)-cuda(\d{1,2}\.\d)|(paddlepaddle)-gpu")
_PIP_LISTINGS = ("pip list", "pip freeze")


def cuda_named_build(name: str, version: str | None) -> tuple[str, str | None] | None:
    """(framework, its CUDA or None) for a package whose name says it is a CUDA build."""
    m = _CUDA_NAMED.fullmatch(name.lower())
    if m is None:
        return None
    post = re.search(r"\.post(\d{2,3})$", version or "")
    digits = m.group(2) or (post.group(1) if post else None)
    return ("paddle" if m.group(5) else m.group(1) or m.group(3),
            f"{digits[:-1]}.{digits[-1]}" if digits else m.group(4))


def _companion_builds(f: Facts) -> None:
    pk = f.packages
    for name, v in pk.items():
        named = cuda_named_build(name, v.value)
        if named is None:
            continue
        fw, cuda = named
        f.fw(fw, "version", v.value, v.source, v.rank)
        f.fw(fw, "build", "cuda", v.source)
        if cuda:
            f.fw(fw, "cuda", cuda, v.source)
    for name, fw in (("mxnet", "mxnet"), ("dgl", "dgl"), ("paddlepaddle", "paddle")):
        plain = pk.get(name)
        if plain is None or f.fw_get(fw, "build") is not None:
            continue
        f.fw(fw, "version", plain.value, plain.source, plain.rank)
        local = re.search(r"\+cu(\d{2,3})$", plain.value)
        if local:
            f.fw(fw, "build", "cuda", plain.source)
            f.fw(fw, "cuda", f"{local.group(1)[:-1]}.{local.group(1)[-1]}", plain.source)
        elif plain.source.startswith(_PIP_LISTINGS) and (fw != "dgl" or _cuda_torch(f)):
            # A source build also shows the plain version: for DGL only beside a CUDA torch, the
            # pairing its maintainers meet (a CPU DGL pulled in next to a CUDA torch).
            f.fw(fw, "build", "cpu", plain.source, plain.rank)


def _onnxruntime(f: Facts) -> None:
    """onnxruntime-gpu is ONNX Runtime's CUDA build on PyPI (the plain name is the CPU build, and the
    others are DirectML, OpenVINO... builds): its version is the one the CUDA provider comes from."""
    gpu = f.packages.get("onnxruntime-gpu")
    if gpu is not None:
        f.fw("onnxruntime", "version", gpu.value, gpu.source, gpu.rank)
        f.fw("onnxruntime", "build", "cuda", gpu.source, gpu.rank)


def _cuda_torch(f: Facts) -> bool:
    return f.fw_get("torch", "build") == "cuda" or bool(re.search(r"\+cu\d", str(f.fw_get("torch", "version") or "")))


def _framework(f: Facts, name: str, v: Value) -> None:
    fw = "tensorflow" if name.startswith("tensorflow") or name == "tf-nightly" else name
    f.fw(fw, "version", v.value, v.source, v.rank)
    if name == "tensorflow-cpu":
        f.fw(fw, "build", "cpu", v.source)
