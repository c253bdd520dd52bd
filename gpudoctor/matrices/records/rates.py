"""The rows of rates.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
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


@frozen
class MigShare:
    """rates.toml [[mig]]: how a MIG-capable GPU divides into slices. A profile "Ng.Mgb" gets
    N of `compute_slices` of the SMs and the memory slices that hold its M GB."""

    compute_capability: str
    gpu: str  # gpus.toml name
    compute_slices: int  # 7 on A100/H100/H200, 4 on A30
    memory_slices: int  # 8 on A100/H100/H200, 4 on A30
    source: str
    note: str = ""
