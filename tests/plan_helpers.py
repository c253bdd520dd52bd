"""A small GPU table for plan tests (independent of the shipped gpus.toml)."""

from __future__ import annotations

from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records import GpuModel, PrecisionSupport

RTX4090 = GpuModel(name="GeForce RTX 4090", compute_capability="8.9", arch="Ada", memory_gb=24, source="test",
                   nvml_names=("NVIDIA GeForce RTX 4090",), segment="consumer", memory_bandwidth_gbs=1008,
                   fp32_tflops=82.6, fp16_tflops=165.2, bf16_tflops=165.2, fp8_tflops=330.3, tdp_w=450)
A100_80 = GpuModel(name="A100 SXM4 80GB", compute_capability="8.0", arch="Ampere", memory_gb=80, source="test",
                   nvml_names=("NVIDIA A100-SXM4-80GB",), memory_bandwidth_gbs=2039, fp32_tflops=19.5,
                   fp16_tflops=312, bf16_tflops=312, tdp_w=400)
H100 = GpuModel(name="H100 SXM5 80GB", compute_capability="9.0", arch="Hopper", memory_gb=80, source="test",
                nvml_names=("NVIDIA H100 80GB HBM3",), memory_bandwidth_gbs=3350, fp32_tflops=67, fp16_tflops=989,
                bf16_tflops=989, fp8_tflops=1979, tdp_w=700)
T4 = GpuModel(name="T4", compute_capability="7.5", arch="Turing", memory_gb=16, source="test",
              nvml_names=("Tesla T4",), memory_bandwidth_gbs=320, fp32_tflops=8.1, fp16_tflops=65, tdp_w=70)
A10 = GpuModel(name="A10", compute_capability="8.6", arch="Ampere", memory_gb=24, source="test",
               memory_bandwidth_gbs=600, fp32_tflops=31.2, fp16_tflops=125, bf16_tflops=125, tdp_w=150)
GPUS = (RTX4090, A100_80, H100, T4, A10)


def precision(cc, bf16, fp8):
    return PrecisionSupport(compute_capability=cc, fp16_tensor_cores=True, fp16=True, tf32=bf16, bf16=bf16, fp8=fp8, fp4=False,
                            source="test")


def small_matrices(gpus=GPUS) -> Matrices:
    prec = (precision("7.5", False, False), precision("8.0", True, False), precision("8.6", True, False),
            precision("8.9", True, True), precision("9.0", True, True))
    return Matrices({"gpus": {"gpu": tuple(gpus), "precision": prec}}, {"gpus": "test"})
