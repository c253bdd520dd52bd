"""The rows of gpus.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
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


@frozen
class GpuSharedName:
    """gpus.toml [[shared_name]]: a model name sold as boards of different compute
    capabilities (a GT 640: GF116, GK107, GK208). It gives no compute capability, only
    the newest of them: a GPU older than a build or a CUDA whichever board it is."""

    pattern: str
    compute_capabilities: tuple[str, ...]  # every one the name is sold with, oldest first
    examples: tuple[str, ...]
    source: str
    note: str = ""


@frozen
class GpuFamily:
    """gpus.toml [[family]]: the compute capability of a model family, for names
    without a [[gpu]] row. `pattern` is matched against the normalised name."""

    pattern: str  # "^(rtx )?30(50|60|70|80|90)( ti)?\\b"
    compute_capability: str
    arch: str
    examples: tuple[str, ...]  # names that must match this family and no other
    source: str
    note: str = ""


@frozen
class PrecisionQuirk:
    """gpus.toml [[precision_quirk]]: boards whose compute capability's [[precision]] row is
    right for the architecture and wrong for them. `pattern` is matched against the
    normalised name, as a family's."""

    pattern: str  # "^gtx 16[3-6]0\\b"
    compute_capability: str
    precision: str  # one of PRECISIONS
    examples: tuple[str, ...]  # names that must match
    effect: str  # what goes wrong, for the finding
    source: str
    note: str = ""


# The precisions GD612 and --require-precision judge, each a PrecisionSupport field.
PRECISIONS = ("fp16", "tf32", "bf16", "fp8")


@frozen
class PrecisionSupport:
    """gpus.toml [[precision]]: hardware precision support by compute capability."""

    compute_capability: str  # exact: "8.9"
    fp16_tensor_cores: bool
    fp16: bool  # FP16 arithmetic at least as fast as FP32 (not on 3.x, 5.0, 5.2, 6.1)
    tf32: bool
    bf16: bool
    fp8: bool
    fp4: bool
    source: str
    note: str = ""
