"""The rows of companions.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class CompanionPin:
    """companions.toml [[pin]]: the framework releases a companion release's wheels require."""

    package: str  # "xformers"
    version: str  # "0.0.29.post3"
    framework: str  # "torch"
    requires: str  # PEP 440 specifier: "==2.6.0"
    source: str
    note: str = ""


@frozen
class FrameworkPin:
    """companions.toml [[framework_pin]]: what a framework release's wheels require of a companion."""

    framework: str
    framework_version: str  # "2.6.0"
    package: str  # "triton"
    requires: str  # "==3.2.0"
    source: str
    note: str = ""


@frozen
class ExtensionWheel:
    """companions.toml [[extension_wheel]]: how a prebuilt extension's wheel local
    version names the build it was made for (regex groups cuda, torch, abi)."""

    package: str
    local_pattern: str
    source: str
    note: str = ""


@frozen
class GpuLibrary:
    """companions.toml [[gpu_library]]: needs of a GPU library over a release range
    (inclusive), optionally for one CUDA major. Unset fields are not known for it."""

    package: str  # "rapids" (cudf, cuml, cugraph share the release) | "numba-cuda" | "vllm" | "flash-attn" | "ctranslate2"
    version_from: str
    source: str
    version_to: str | None = None
    cuda_major: int | None = None
    min_sm: str | None = None
    min_driver_linux: str | None = None
    python_min: str | None = None
    python_max: str | None = None
    cudnn_major: int | None = None  # the cuDNN major it loads at run time (CTranslate2)
    note: str = ""


@frozen
class Image:
    """companions.toml [[image]]: what a framework container image tag holds and needs,
    as its release notes state it. Unset fields are not stated in the row's source."""

    repository: str  # "nvcr.io/nvidia/pytorch"
    tag: str  # "24.10"
    cuda: str
    framework: str
    source: str
    framework_version: str | None = None
    min_sm: str | None = None  # "supports CUDA compute capability 6.0 and later"
    # "requires NVIDIA Driver release 450 or later": the floor for any GPU.
    min_driver_linux: str | None = None
    # "data center GPUs may use 418.40 (or later R418), 440.33 (or later R440)": the oldest
    # release of each branch that runs it on a data-center GPU (CUDA forward compatibility).
    datacenter_drivers: tuple[str, ...] = ()
    cudnn: str | None = None
    ubuntu: str | None = None
    python: str | None = None
    note: str = ""
