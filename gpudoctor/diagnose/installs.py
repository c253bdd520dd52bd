"""The install commands a report shows: `pip install torch==2.0.1 --index-url
https://download.pytorch.org/whl/cu118` says which build was asked for; a
plain `pip install torch` on Windows gets PyPI's CPU-only wheel. These are
what the person ran, not what is installed, so they rank as stated facts and
any tool output outranks them. Arguments are read as `gpudoctor lint` reads
them, and builds are named as it names them."""

from __future__ import annotations

import re
import shlex

from gpudoctor.diagnose.collect import STATED, Facts
from gpudoctor.diagnose.packages import cuda_named_build
from gpudoctor.diagnose.paste import Paste
from gpudoctor.lint.model import Source
from gpudoctor.lint.readers_pip import add_args
from gpudoctor.lint.resolve import variant_of_index

# Markdown around a command in prose ("it installs with **pip install x** and works") ends it.
_INSTALL = re.compile(r"(?:^|[\s>$#*`])(?:uv[ \t]+)?pip3?(?:\.exe)?[ \t]+install[ \t]+([^\n`]{1,600}?)(?:\*\*|`|$)",
                      re.I | re.M)
# Where PyPI's default torch wheel is CPU-only.
_CPU_DEFAULT = {"windows": "windows-x86_64", "darwin": "macos-arm64"}


def parse(p: Paste, f: Facts) -> None:
    jax: list[tuple[str, str]] = []
    for m in p.scan(_INSTALL, "install"):
        try:
            tokens = shlex.split(m.group(1), comments=True)
        except ValueError:
            tokens = m.group(1).split()
        source = Source("paste", "requirements")
        add_args(source, [(t, 1) for t in tokens])
        _llama_cpp(p, f, source, m.start(1))
        _cuda_named(p, f, source, m.start(1))
        jax += [(_jax_build(tokens), p.where("install command", m.start(1), claim=False))
                for t in tokens if _JAX.fullmatch(t) or _JAX_CUDA.match(t) or "jaxlib-" in t.lower()][:1]
        if any(t.lower().startswith("tensorflow-cpu") for t in tokens):
            f.fw("tensorflow", "build", "cpu", p.where("install command", m.start(1), claim=False), STATED)
        torch = source.find("torch")
        if torch is None:
            continue
        src = p.where("install command", m.start(1), claim=False)
        exact = re.fullmatch(r"===?([\w.+!-]{1,60})", torch.spec or "")
        version = exact.group(1) if exact else None
        local = version.split("+", 1)[1] if version and "+" in version else None
        variant = local or next((v for v in (variant_of_index(u) for u, _ in source.indexes) if v), None)
        if variant is None and not source.indexes and not torch.url:
            # No index: PyPI's default wheel, CPU-only on Windows and macOS.
            if f.get("system.os") in _CPU_DEFAULT:
                variant = "cpu"
        if version:
            f.fw("torch", "version", version, src, STATED)
        if variant == "cpu":
            f.fw("torch", "build", "cpu", src, STATED)
        elif variant and re.fullmatch(r"cu\d{3,4}", variant):
            f.fw("torch", "build", "cuda", src, STATED)
            f.fw("torch", "cuda", f"{variant[2:-1]}.{variant[-1]}", src, STATED)
        f.saw("install command")
    _conda_cpuonly(p, f)
    # Several install commands (one tried after another): any that asked for a CUDA jax
    # makes "CPU" unproven; every one plain means the CPU jaxlib.
    builds = {b for b, _ in jax}
    # (A framework that answered "CUDA available" is no CPU build, whatever was typed before.)
    if builds == {"cpu"} and f.get("system.os") != "darwin" and f.fw_get("jax", "is_available") is not True:
        f.fw("jax", "build", "cpu", jax[0][1], STATED)
    elif "cuda" in builds:
        f.fw("jax", "build", "cuda", next(src for b, src in jax if b == "cuda"), STATED)


# `pip install jax`, `jax[cuda12]`, `jaxlib==0.4.7+cuda11.cudnn86`, `"jax[cpu]>=0.4"`.
_JAX = re.compile(r"(?:jax|jaxlib)(?:\[[\w,\s-]*\])?(?:[=<>~!]=?[\w.+*-]*)?(?:,[=<>~!]=?[\w.+*-]*)*", re.I)
# What makes a jax install a CUDA one: a cuda/gpu extra (jax[cuda12], jax[cuda12_pip], the
# old jax[cuda]), a jaxlib version with +cuda, the CUDA plugin package, or the CUDA release
# index. Without any of them pip installs PyPI's jaxlib, which has been CPU-only in every
# release (source: https://docs.jax.dev/en/latest/installation.html).
_JAX_CUDA = re.compile(r"jax\[[^\]]*(?:cuda|gpu|tpu)|jaxlib[^\s]*\+cuda|jax-cuda\d+-(?:plugin|pjrt)|jax_cuda_releases|"
                       r"jax-releases|jax_releases", re.I)


def _jax_build(tokens: list[str]) -> str:
    if any(_JAX_CUDA.search(t) for t in tokens):
        return "cuda"
    # "$BASE_URL/$CUDA_VERSION/jaxlib-0.1.42-...whl": a file named through shell variables the
    # paste may set anywhere, so which build it is stays unknown
    return "unknown" if any("$" in t for t in tokens) else "cpu"


# `conda install pytorch torchvision cpuonly -c pytorch`: the pytorch channel's `cpuonly`
# metapackage pins the CPU build (source: https://pytorch.org/get-started/previous-versions/).
_CONDA_CPUONLY = re.compile(r"\bconda[ \t]+install\b[^\n]{0,300}?\b(?:cpuonly|pytorch-cpu)\b", re.I)


def _conda_cpuonly(p: Paste, f: Facts) -> None:
    for m in p.scan(_CONDA_CPUONLY, "cpuonly", "pytorch-cpu") if f.fw_get("torch", "is_available") is not True else ():
        f.fw("torch", "build", "cpu", p.where("install command", m.start(), claim=False), STATED)
        f.saw("install command")
        return


# llama-cpp-python's PyPI release is an sdist that compiles llama.cpp at install time,
# for the CPU unless CMAKE_ARGS (or -C cmake.args) turns a backend on (GGML_CUDA, and
# LLAMA_CUBLAS/LLAMA_CUDA in older releases). Its own wheel indexes say the build in
# their last path part: .../whl/cu124, .../whl/cpu (source:
# https://github.com/abetlen/llama-cpp-python#installation).
_CMAKE_BACKEND = re.compile(r"CMAKE_ARGS|cmake\.args|GGML_[A-Z]{2,10}|LLAMA_(?:CUBLAS|CUDA|HIPBLAS|METAL|VULKAN|CLBLAST)",
                            re.I)
_LLAMA_INDEX = re.compile(r"/(cu\d{3}|cpu|metal|rocm[\d.]*|vulkan)/?$", re.I)


def _llama_cpp(p: Paste, f: Facts, source: Source, at: int) -> None:
    req = source.find("llama-cpp-python") or source.find("llama_cpp_python")
    if req is None or req.url:
        return
    src = p.where("install command", at, claim=False)
    exact = re.fullmatch(r"===?([\w.+!-]{1,60})", req.spec or "")
    if exact:
        f.fw("llama-cpp-python", "version", exact.group(1), src, STATED)
    tags = [t.group(1).lower() for t in (_LLAMA_INDEX.search(u) for u, _ in source.indexes) if t]
    if tags:
        if tags[0] == "cpu":
            f.fw("llama-cpp-python", "build", "cpu", src, STATED)
        elif tags[0].startswith("cu"):
            f.fw("llama-cpp-python", "build", "cuda", src, STATED)
            f.fw("llama-cpp-python", "cuda", f"{tags[0][2:-1]}.{tags[0][-1]}", src, STATED)
    elif not source.indexes and not _CMAKE_BACKEND.search(p.text) and f.get("system.os") != "darwin":
        # (On macOS the same command builds the Metal backend: the README's default there.)
        f.fw("llama-cpp-python", "build", "cpu", src, STATED)


# The plain PyPI names of frameworks whose CUDA build has a name of its own: the CPU builds.
_CPU_NAMES = {"paddlepaddle": "paddle", "mxnet": "mxnet"}


def _cuda_named(p: Paste, f: Facts, source: Source, at: int) -> None:
    """`pip install mxnet-cu112`, `pip install paddlepaddle-gpu==2.5.1.post117`: the name asked for a CUDA build;
    `pip install paddlepaddle` the CPU one."""
    for req in source.reqs:
        if req.name in _CPU_NAMES and not req.url and f.fw_get(_CPU_NAMES[req.name], "build") is None:
            f.fw(_CPU_NAMES[req.name], "build", "cpu", p.where("install command", at, claim=False), STATED)
        exact = re.fullmatch(r"===?([\w.+!-]{1,60})", req.spec or "")
        named = cuda_named_build(req.name, exact.group(1) if exact else None)
        if named is None or req.url:
            continue
        fw, cuda = named
        src = p.where("install command", at, claim=False)
        f.fw(fw, "build", "cuda", src, STATED)
        if cuda:
            f.fw(fw, "cuda", cuda, src, STATED)
        if exact:
            f.fw(fw, "version", exact.group(1), src, STATED)
