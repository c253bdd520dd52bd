"""The row types of the compatibility matrices.

Each TOML file under gpudoctor/matrices/ holds `schema_version`, `data_as_of`
and one array of tables per fact type; each row becomes one of these frozen
records. Fields are facts only: what to run belongs in a rule's Fix.

Every row has `source` (a URL or "owner/repo path@commit") and may have
`note`, where conflicts between sources are written down.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CudaToolkit:
    """cuda.toml [[toolkit]]: the driver bundled with each toolkit release
    (NVIDIA release notes, "CUDA Toolkit and Corresponding Driver Versions")."""

    version: str  # "12.8.1" for 12.8 Update 1, "12.8.0" for GA
    label: str  # "12.8 Update 1", as NVIDIA names it
    # None where the release notes' driver row was not retrieved: the major's
    # minor-version floor still runs it (the loader still demands a source).
    min_driver_linux: str | None = None
    source: str = ""
    min_driver_windows: str | None = None  # None where NVIDIA lists N/A (13.x)
    cudart: str | None = None  # libcudart version shipped, "12.8.57"
    note: str = ""


@dataclass(frozen=True)
class MinorCompat:
    """cuda.toml [[minor_compat]]: the lowest driver that runs every minor
    release of a CUDA major through minor-version compatibility."""

    cuda_major: int
    min_driver_linux: str
    source: str
    min_driver_windows: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ArchSupport:
    """cuda.toml [[arch_support]]: the real SASS targets nvcc accepts for a
    range of toolkits (inclusive), e.g. 12.8..12.8 -> sm_50..sm_120."""

    cuda_from: str  # "12.8"
    sm: tuple[str, ...]  # ("sm_50", ..., "sm_120")
    source: str
    cuda_to: str | None = None  # inclusive; None = still current
    note: str = ""


@dataclass(frozen=True)
class DriverBranch:
    """cuda.toml [[driver_branch]]: what a driver branch runs and supports."""

    branch: int  # 535, 580
    max_cuda_major: int  # newest CUDA major without the forward-compat package
    source: str
    designation: str | None = None  # "LTSB", "Production Branch", "New Feature Branch"
    end_of_life: str | None = None  # "2028-06"
    # Architectures for which this is the last branch ("Maxwell", "Pascal", "Volta").
    last_for_arch: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class ArchDriver:
    """cuda.toml [[arch_driver]]: the driver range that runs one architecture
    (NVIDIA's "CUDA Toolkit, Driver, and Architecture Matrix")."""

    compute_capability: str  # "12.0"
    arch: str  # "Blackwell"
    first_cuda: str  # first toolkit that supports it, "12.8"
    source: str
    min_driver_linux: str | None = None  # that toolkit's driver; None: any driver in use
    min_driver_windows: str | None = None
    last_branch: int | None = None  # newest branch that still supports it (580 for Pascal)
    note: str = ""


@dataclass(frozen=True)
class GpuModel:
    """gpus.toml [[gpu]]: one GPU model. TFLOPS are dense (not sparse)."""

    name: str  # canonical, "H100 SXM5 80GB"
    compute_capability: str  # "9.0"
    arch: str  # "Hopper"
    memory_gb: float
    source: str
    # Device names as NVML / nvidia-smi / CUDA report them, matched case-insensitively.
    nvml_names: tuple[str, ...] = ()
    segment: str = "data-center"  # "data-center" | "workstation" | "consumer" | "laptop" | "embedded"
    memory_bandwidth_gbs: float | None = None
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None  # tensor core, dense
    fp16_tflops: float | None = None  # tensor core, FP32 accumulate, dense
    bf16_tflops: float | None = None
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None
    tdp_w: float | None = None
    interconnect: str | None = None  # "NVLink 4 900 GB/s", "PCIe 5.0 x16"
    release_year: int | None = None
    note: str = ""


@dataclass(frozen=True)
class GpuFamily:
    """gpus.toml [[family]]: the compute capability of a model family, for names
    without a [[gpu]] row. `pattern` is matched against the normalised name."""

    pattern: str  # "^(rtx )?30(50|60|70|80|90)( ti)?\\b"
    compute_capability: str
    arch: str
    examples: tuple[str, ...]  # names that must match this family and no other
    source: str
    note: str = ""


@dataclass(frozen=True)
class PrecisionSupport:
    """gpus.toml [[precision]]: hardware precision support by compute capability."""

    compute_capability: str  # exact: "8.9"
    fp16_tensor_cores: bool
    tf32: bool
    bf16: bool
    fp8: bool
    fp4: bool
    source: str
    note: str = ""


@dataclass(frozen=True)
class TorchRelease:
    """torch.toml [[release]]: one PyTorch release on PyPI."""

    version: str  # "2.14.1"
    python_min: str  # "3.10"
    python_max: str  # "3.14" (newest supported, experimental ones excluded)
    source: str
    torchvision: str | None = None
    torchaudio: str | None = None
    released: str | None = None  # "2026-10-15"
    note: str = ""


@dataclass(frozen=True)
class TorchBuild:
    """torch.toml [[build]]: one wheel variant of a release series on one platform."""

    series: str  # "2.14": the minor series; applies to all its patch releases
    variant: str  # "cu130" | "cu126" | "cpu" | "rocm6.4" | "xpu"
    platform: str  # "linux-x86_64" | "linux-aarch64" | "windows-x86_64" | "macos-arm64"
    source: str
    cuda: str | None = None  # "13.0" (None for cpu/rocm/xpu)
    cudnn: str | None = None  # bundled/pinned cuDNN, "9.13.0.50"
    nccl: str | None = None
    # As torch.cuda.get_arch_list() prints it: ("sm_75", ..., "sm_120", "compute_120").
    arch_list: tuple[str, ...] = ()
    pypi_default: bool = False  # a plain `pip install torch` gets this variant here
    index_url: str | None = None  # "https://download.pytorch.org/whl/cu130"
    os_min: str | None = None  # oldest OS release the wheels' platform tag allows (macOS "14.0")
    # How pip reaches index_url: "index" (--index-url), "extra-index" (--extra-index-url:
    # the old indexes mirror no dependencies) or "find-links" (-f <index_url>/torch_stable.html, <= 1.10).
    index_kind: str = "index"
    note: str = ""


@dataclass(frozen=True)
class TensorflowRelease:
    """tensorflow.toml [[release]]: tested build configuration of one release."""

    version: str  # "2.18"
    python_min: str
    python_max: str
    source: str
    cuda: str | None = None  # "12.5"
    cudnn: str | None = None  # "9.3"
    and_cuda_extra: bool = False  # `pip install tensorflow[and-cuda]` exists
    windows_native_gpu: bool = False
    arch_list: tuple[str, ...] = ()
    # The patch releases of this series on PyPI ("2.15.0", "2.15.0.post1", "2.15.1").
    releases: tuple[str, ...] = ()
    # Floors that `tensorflow[and-cuda]` pins in its wheel metadata (nvidia-*-cu12 >= ...):
    and_cuda_runtime: str | None = None  # nvidia-cuda-runtime-cu12 floor, "12.5.82"
    and_cuda_cudnn: str | None = None  # nvidia-cudnn-cu12 floor, "9.3.0.75"
    gpu_package: str | None = None  # the GPU wheel's name when it is not `tensorflow` ("tensorflow-gpu", <= 2.0)
    note: str = ""


@dataclass(frozen=True)
class JaxRelease:
    """jax.toml [[release]]: requirements of a range of jax/jaxlib releases."""

    version_from: str  # "0.8.0"
    extras: tuple[str, ...]  # ("cuda12", "cuda12-local", "cuda13", "cuda13-local")
    source: str
    version_to: str | None = None  # inclusive; the newest release the data knows
    cuda12_min: str | None = None  # minimum CUDA 12 runtime, "12.1"
    cuda13_min: str | None = None
    cudnn_min: str | None = None  # floor the CUDA 12 (and 11) wheels pin
    cudnn13_min: str | None = None  # floor the CUDA 13 wheels pin (nvidia-cudnn-cu13)
    min_driver_cuda12: str | None = None
    min_driver_cuda13: str | None = None
    min_sm_cuda12: str | None = None  # "5.2"
    min_sm_cuda13: str | None = None  # "7.5"
    # CUDA 11 wheels (jax[cuda11_pip], up to 0.4.25): the runtime, cuDNN floor and driver they need.
    cuda11_min: str | None = None
    cudnn11_min: str | None = None
    min_driver_cuda11: str | None = None
    python_min: str | None = None
    note: str = ""


@dataclass(frozen=True)
class CudnnRelease:
    """cudnn.toml [[release]]: support matrix of a cuDNN release range."""

    version_from: str  # "9.11.0"
    cuda_majors: tuple[int, ...]  # (12, 13)
    min_sm: str  # "7.5"
    source: str
    version_to: str | None = None
    max_sm: str | None = None
    min_driver_linux: str | None = None  # for the newest CUDA major it supports
    min_driver_windows: str | None = None
    note: str = ""


@dataclass(frozen=True)
class CupyPackage:
    """cupy.toml [[package]]: a CuPy wheel name and the CUDA it needs."""

    package: str  # "cupy-cuda12x"
    cuda_major: int
    source: str
    cuda_min: str | None = None  # "12.0"
    version_from: str | None = None  # first CuPy release with this package
    version_to: str | None = None
    # First release whose wheel has the [ctk] extra (CUDA components from PyPI);
    # None: the package never had it (cupy-cuda11x needs a local CUDA Toolkit).
    ctk_extra_from: str | None = None
    note: str = ""


@dataclass(frozen=True)
class AchievableRate:
    """rates.toml [[achievable]]: the fraction of the dense datasheet peak that a healthy GPU
    of one compute capability and board class reaches in a large cuBLAS GEMM, taken from
    published measurements (the lowest healthy figure when several sources agree)."""

    compute_capability: str  # exact: "8.9"
    board: str  # "data-center" | "workstation" | "consumer" | "power-capped"
    test: str  # the smoke test: "gemm_fp32", "gemm_tf32", "gemm_fp16", "gemm_bf16", "gemm_fp8"
    accumulate: str  # "fp32" (FP32 accumulation) | "fast" | "default" (FP8 accumulation modes)
    fraction: float  # measured TFLOPS / gpus.toml dense peak
    measured: str  # what was measured: "L4: 53.80 TFLOPS at 8192^3 (peak 121)"
    source: str
    note: str = ""


@dataclass(frozen=True)
class MigShare:
    """rates.toml [[mig]]: how a MIG-capable GPU divides into slices. A profile "Ng.Mgb" gets
    N of `compute_slices` of the SMs and the memory slices that hold its M GB."""

    compute_capability: str
    gpu: str  # gpus.toml name
    compute_slices: int  # 7 on A100/H100/H200, 4 on A30
    memory_slices: int  # 8 on A100/H100/H200, 4 on A30
    source: str
    note: str = ""


@dataclass(frozen=True)
class CompanionPin:
    """companions.toml [[pin]]: the framework releases a companion release's wheels require."""

    package: str  # "xformers"
    version: str  # "0.0.29.post3"
    framework: str  # "torch"
    requires: str  # PEP 440 specifier: "==2.6.0"
    source: str
    note: str = ""


@dataclass(frozen=True)
class FrameworkPin:
    """companions.toml [[framework_pin]]: what a framework release's wheels require of a companion."""

    framework: str
    framework_version: str  # "2.6.0"
    package: str  # "triton"
    requires: str  # "==3.2.0"
    source: str
    note: str = ""


@dataclass(frozen=True)
class ExtensionWheel:
    """companions.toml [[extension_wheel]]: how a prebuilt extension's wheel local
    version names the build it was made for (regex groups cuda, torch, abi)."""

    package: str
    local_pattern: str
    source: str
    note: str = ""


@dataclass(frozen=True)
class GpuLibrary:
    """companions.toml [[gpu_library]]: needs of a GPU library over a release range
    (inclusive), optionally for one CUDA major. Unset fields are not known for it."""

    package: str  # "rapids" (cudf, cuml, cugraph share the release) | "numba-cuda"
    version_from: str
    source: str
    version_to: str | None = None
    cuda_major: int | None = None
    min_sm: str | None = None
    min_driver_linux: str | None = None
    python_min: str | None = None
    python_max: str | None = None
    note: str = ""


@dataclass(frozen=True)
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
