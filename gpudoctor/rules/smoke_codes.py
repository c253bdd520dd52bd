"""GD7xx: findings of the smoke kernels. Raised by `gpudoctor smoke`
(gpudoctor.smoke.judge), not by `check`'s rule loop, so check=None."""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.rules.rule import Rule

FAMILY = "smoke"
E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

DRIVER_INIT_FAILED = Rule(
    "GD701", "driver-init-failed", "smoke-failure", E,
    "libcuda could not be loaded, cuInit failed, or a GPU failed context creation or a memory allocation",
    FAMILY, since="0.1.0")
FRAMEWORK_CANNOT_USE_GPU = Rule(
    "GD702", "framework-cannot-use-gpu", "smoke-failure", E,
    "the framework under test cannot be imported or cannot reach the GPUs the driver sees", FAMILY, since="0.1.0")
SMOKE_CRASHED = Rule(
    "GD703", "smoke-crashed", "smoke-failure", E,
    "the smoke runner process died (segfault, abort, non-zero exit) inside a test", FAMILY, since="0.1.0")
SMOKE_TIMEOUT = Rule(
    "GD704", "smoke-timeout", "smoke-failure", E,
    "the smoke runner hung and was killed at its timeout", FAMILY, since="0.1.0")
WRONG_NUMERICS = Rule(
    "GD705", "wrong-numerics", "smoke-failure", E,
    "a GEMM, convolution or attention result differs from its high-precision reference beyond tolerance",
    FAMILY, since="0.1.0")
NO_KERNEL_IMAGE = Rule(
    "GD706", "no-kernel-image", "arch-not-in-build", E,
    "a kernel launch failed because the build has no code for this GPU's architecture", FAMILY, since="0.1.0")
CUDNN_FAILURE = Rule(
    "GD707", "cudnn-failure", "smoke-failure", E,
    "a cuDNN convolution failed to run", FAMILY, since="0.1.0")
GEMM_BELOW_PEAK = Rule(
    "GD708", "gemm-below-peak", "performance", W,
    "a GEMM ran far below this GPU's dense peak for its precision, with the likely cause", FAMILY, since="0.1.0")
COPY_BANDWIDTH_LOW = Rule(
    "GD709", "copy-bandwidth-low", "performance", W,
    "device-to-device or host-to-device copy bandwidth far below the memory or PCIe link's peak", FAMILY, since="0.1.0")
NCCL_FAILURE = Rule(
    "GD710", "nccl-failure", "smoke-failure", E,
    "the NCCL all-reduce across the local GPUs failed or returned wrong sums", FAMILY, since="0.1.0")
NO_PEER_ACCESS = Rule(
    "GD711", "no-peer-access", "performance", INFO,
    "some GPU pairs cannot access each other's memory directly (no NVLink/PCIe peer-to-peer)", FAMILY, since="0.1.0")
SDPA_MATH_FALLBACK = Rule(
    "GD712", "sdpa-math-fallback", "performance", W,
    "scaled-dot-product attention in FP16/BF16 falls back to the unfused math kernel on this GPU", FAMILY, since="0.1.0")
PRECISION_SKIPPED = Rule(
    "GD713", "precision-skipped", "precision-unsupported", INFO,
    "a precision was skipped because the GPU or the framework build does not support it", FAMILY, since="0.1.0")
MEMORY_PATTERN_ERRORS = Rule(
    "GD714", "memory-pattern-errors", "hardware-health", E,
    "GPU memory read back different values than were written (smoke --full)", FAMILY, since="0.1.0")
KERNEL_ERROR = Rule(
    "GD715", "kernel-error", "smoke-failure", E,
    "a smoke test raised an error (the CUDA error is named when the message carries one)", FAMILY, since="0.1.0")
RAN_ON_CPU = Rule(
    "GD716", "ran-on-cpu", "info", INFO,
    "smoke ran with --allow-cpu on the CPU: the numerics were checked, no GPU was tested", FAMILY, since="0.1.0")
DRIVER_INIT_SLOW = Rule(
    "GD717", "driver-init-slow", "performance", W,
    "cuInit or a GPU's context creation took many seconds (usually persistence mode off): every CUDA process "
    "start pays it", FAMILY, since="0.1.0")
FP32_RUNS_AS_TF32 = Rule(
    "GD718", "fp32-runs-as-tf32", "info", W,
    "the framework's FP32 matmuls default to TF32 in this environment (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1, "
    "or a non-'highest' default precision)", FAMILY, since="0.1.0")
TF32_DISABLED_BY_ENV = Rule(
    "GD719", "tf32-disabled-by-environment", "info", INFO,
    "NVIDIA_TF32_OVERRIDE=0 turns TF32 off in every CUDA library: TF32 matmuls and convolutions run as FP32",
    FAMILY, since="0.1.0")

RULES: tuple[Rule, ...] = (
    DRIVER_INIT_FAILED,
    FRAMEWORK_CANNOT_USE_GPU,
    SMOKE_CRASHED,
    SMOKE_TIMEOUT,
    WRONG_NUMERICS,
    NO_KERNEL_IMAGE,
    CUDNN_FAILURE,
    GEMM_BELOW_PEAK,
    COPY_BANDWIDTH_LOW,
    NCCL_FAILURE,
    NO_PEER_ACCESS,
    SDPA_MATH_FALLBACK,
    PRECISION_SKIPPED,
    MEMORY_PATTERN_ERRORS,
    KERNEL_ERROR,
    RAN_ON_CPU,
    DRIVER_INIT_SLOW,
    FP32_RUNS_AS_TF32,
    TF32_DISABLED_BY_ENV,
)
