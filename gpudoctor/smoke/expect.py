"""What a smoke result should be: tolerances, expected peaks, and why a GPU is slow.

Tolerances are normwise relative errors, max|out - ref| / max|ref|, against a
reference computed from the same rounded inputs (FP64 for GEMM, FP32 for
convolution and attention), so they bound only the kernel's own error:
  fp32  1e-5  FP32 accumulation gives ~1e-6 at K=512; a silent TF32 gives
              3e-4..6e-4, so this is what proves "TF32 off" really is off.
  tf32  5e-3  10-bit mantissa inputs: ~6e-4 observed in simulation.
  fp16  5e-3  output rounding (unit roundoff 4.9e-4) plus reduced-precision
              split-K reductions, which PyTorch allows by default.
  bf16  3e-2  unit roundoff 3.9e-3, same reasoning.
  fp8   3e-2  inputs are exact in the reference; the BF16 output rounds.
A broken kernel (garbage, zeros, wrong layout) lands near 1, far above all.
"""

from __future__ import annotations

from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records import GpuModel
from gpudoctor.snapshot import Gpu, Snapshot
from gpudoctor.versions import compute_capability

TOLERANCE = {
    "gemm_fp32": 1e-5, "gemm_tf32": 5e-3, "gemm_fp16": 5e-3, "gemm_bf16": 3e-2, "gemm_fp8": 3e-2,
    "conv_fp16": 1e-2, "conv_bf16": 5e-2,  # forward and both gradients vs FP32 (TF32 off)
    "sdpa_fp16": 1e-2, "sdpa_bf16": 5e-2,  # the default-selected kernel vs FP32 math
}
# Copies: below this fraction of the memory or PCIe peak a rate is "low". (GEMMs are
# judged against achievable rates instead: gpudoctor/smoke/rates.py.)
PERF_FLOOR = 0.6
PEAK_FIELD = {"copy_d2d": "memory_bandwidth_gbs"}
# One direction, per lane, after line encoding (PCI-SIG base specifications).
PCIE_LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
PCIE_SOURCE = "PCI Express base specifications 1.0-6.0, per-lane rate after encoding"
def match_model(matrices: Matrices, name: str, cc: str | None) -> GpuModel | None:
    """The gpus.toml row for a device name, only if its compute capability agrees
    (a fuzzy name match to the wrong GPU would give a wrong peak)."""
    model = matrices.gpu(name)
    if model is None:
        return None
    if cc and compute_capability(cc) != compute_capability(model.compute_capability):
        return None
    return model


def _bus(bus_id: str | None) -> str | None:
    """'00000000:3B:00.0' (NVML) and '0000:3b:00.0' (CUDA) -> '3b:00.0'."""
    if not bus_id:
        return None
    parts = bus_id.lower().split(":")
    return ":".join(parts[-2:]) if len(parts) >= 2 else bus_id.lower()


def snapshot_gpu(snapshot: Snapshot | None, pci_bus_id: str | None, index: int) -> Gpu | None:
    """The snapshot's GPU for a CUDA ordinal: by PCI bus id, else by CUDA order."""
    if snapshot is None or snapshot.gpus is None:
        return None
    want = _bus(pci_bus_id)
    if want:
        for gpu in snapshot.gpus:
            if _bus(gpu.pci_bus_id) == want:
                return gpu
    visible = snapshot.visible_gpus() or ()
    return visible[index] if 0 <= index < len(visible) else None


def pcie_peak_gbs(gpu: Gpu | None) -> float | None:
    if gpu is None or not gpu.pcie_gen_max or not gpu.pcie_width_max:
        return None
    lane = PCIE_LANE_GBS.get(gpu.pcie_gen_max)
    return lane * gpu.pcie_width_max if lane else None


def expected_peak(test: str, model: GpuModel | None, gpu: Gpu | None) -> tuple[float | None, str]:
    """(peak, where it comes from) for a test's rate, or (None, "")."""
    if test == "copy_h2d":
        peak = pcie_peak_gbs(gpu)
        if peak is None:
            return None, ""
        return peak, f"PCIe gen{gpu.pcie_gen_max} x{gpu.pcie_width_max} (nvml; {PCIE_SOURCE})"
    field = PEAK_FIELD.get(test)
    value = getattr(model, field, None) if model and field else None
    return (value, f"gpus.toml {model.name}.{field} ({model.source})") if value else (None, "")


def pcie_degraded(gpu: Gpu | None) -> str | None:
    """A link narrower than it can be. (A lower generation at idle is normal power
    saving, so only the width counts as degraded.)"""
    if gpu is None or not gpu.pcie_width_current or not gpu.pcie_width_max:
        return None
    if gpu.pcie_width_current < gpu.pcie_width_max:
        return f"x{gpu.pcie_width_current} of x{gpu.pcie_width_max}"
    return None
