"""Fixes that reinstall a framework come from the install engine, so that
`check` and `install` never disagree about which build works here."""

from __future__ import annotations

from gpudoctor.findings import Fix
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import Framework, Snapshot


def reinstall_fix(s: Snapshot, m: Matrices, fw: Framework, why: str) -> Fix:
    """A Fix whose commands install a build of `fw` that works on this machine."""
    # Imported here: the install engine is needed only when a rule fires, and it
    # always ships with gpudoctor.
    from gpudoctor.install.from_snapshot import fix_for_snapshot

    fix = fix_for_snapshot(s, m, fw.name, why)
    if fix is not None:
        return fix
    for recipes in (BUILT_AT_INSTALL, CUDA_PACKAGE):
        if fw.name in recipes:
            text, commands = recipes[fw.name]
            return Fix(f"{why} {text}", commands)
    return Fix(f"{why} `gpudoctor install {fw.name}` prints the exact command for this machine.",
               (f"gpudoctor install {fw.name}",))


# Packages the install engine does not plan, whose PyPI release is a source
# distribution built at install time: without the backend's CMake flag the build
# is CPU-only. Each recipe is the project's own README's.
BUILT_AT_INSTALL = {
    "llama-cpp-python": (
        "`pip install llama-cpp-python` compiles llama.cpp for the CPU unless CMAKE_ARGS turns a GPU backend on; "
        "rebuild it with CUDA (needs the CUDA toolkit and a C++ compiler), or install a prebuilt CUDA wheel from "
        "the project's index (cu121 to cu125; source: https://github.com/abetlen/llama-cpp-python#installation).",
        ('CMAKE_ARGS="-DGGML_CUDA=on" pip install --force-reinstall --no-cache-dir llama-cpp-python',
         "pip install --force-reinstall llama-cpp-python --extra-index-url https://abetlen.github.io/llama-cpp-python/whl/cu124"),
    ),
    "llama.cpp": (
        "llama.cpp builds for the CPU unless CMake turns a GPU backend on (GGML_CUDA; LLAMA_CUBLAS before mid-2024): "
        "rebuild it with CUDA (needs the CUDA toolkit; source: https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md).",
        ("cmake -B build -DGGML_CUDA=ON && cmake --build build --config Release",),
    ),
}


# Libraries the install engine does not plan whose CUDA build is another package
# or comes from the project's own index; each recipe is the project's install page's.
CUDA_PACKAGE = {
    "dgl": (
        "DGL's CUDA builds come from its own wheel index, one per torch and CUDA release (the version then "
        "carries +cuXXX); plain `pip install dgl` is the CPU build (source: https://www.dgl.ai/pages/start.html).",
        ("pip uninstall -y dgl", "pip install dgl -f https://data.dgl.ai/wheels/torch-2.3/cu121/repo.html"),
    ),
    "mxnet": (
        "MXNet's CUDA builds are the packages named for their CUDA, mxnet-cuXXX; plain mxnet is the CPU build "
        "(source: https://mxnet.apache.org/versions/1.9.1/get_started).",
        ("pip uninstall -y mxnet", "pip install mxnet-cu112"),
    ),
    "paddle": (
        "Paddle's CUDA build is the paddlepaddle-gpu package, for the CUDA its index names; plain paddlepaddle "
        "is the CPU build (source: https://www.paddlepaddle.org.cn/install/quick).",
        ("pip uninstall -y paddlepaddle", "python -m pip install paddlepaddle-gpu -i "
         "https://www.paddlepaddle.org.cn/packages/stable/cu118/"),
    ),
}
