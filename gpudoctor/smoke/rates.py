"""What rate a healthy GPU of this kind reaches: achievable, not the datasheet peak.

A datasheet peak assumes the boost clock (a sustained GEMM runs at the clock its power
limit allows: a 70 W T4 holds FP16 near 37 % of it) and, on GeForce and workstation
Ampere/Ada/Blackwell, the dual-issue FP32 path that cuBLAS SGEMM cannot fill (about
60 %). So each GEMM is judged against the fraction of the peak that published cuBLAS
measurements of healthy GPUs of the same compute capability and board class reach
(gpudoctor/matrices/rates.toml). A MIG slice is judged against its share of the SMs and
of the memory slices (and so of the memory bandwidth). Where no measurement exists the
test gets no rate verdict and says why: a guessed threshold would be a guessed verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records import AchievableRate, GpuModel, MigShare
from gpudoctor.smoke import expect
from gpudoctor.snapshot import Gpu
from gpudoctor.versions import compute_capability

# A board powered by the PCIe slot alone may draw at most 75 W (PCI Express CEM
# specification); such boards, and Max-Q boards, run any sustained GEMM at their cap.
POWER_CAPPED_W = 75.0
# Healthy runs of one board model differ by up to ~15 % between published sources
# (RTX 4090 SGEMM 46.5-55.0 TFLOPS, H100 BF16 789-795); a rate below this share of the
# achievable one is low, not noise.
RATE_MARGIN = 0.8
GEMM_PEAK_FIELD = {"gemm_fp32": "fp32_tflops", "gemm_tf32": "tf32_tflops", "gemm_fp16": "fp16_tflops",
                   "gemm_bf16": "bf16_tflops", "gemm_fp8": "fp8_tflops"}
MIG_PROFILE = re.compile(r"\bMIG\s+(\d+)g\.(\d+)gb\b", re.IGNORECASE)
RATES = "gpudoctor/matrices/rates.toml"


@dataclass(frozen=True)
class Share:
    """The part of a GPU a MIG slice has."""

    profile: str  # "1g.5gb"
    compute: float  # share of the SMs
    memory: float  # share of the memory slices (and bandwidth)
    source: str


@dataclass(frozen=True)
class Expected:
    """peak: the (share-scaled) datasheet figure; expected: what a healthy GPU reaches;
    floor: below it the rate is "low". None where there is no verdict, `why` says why."""

    peak: float | None = None
    expected: float | None = None
    floor: float | None = None
    source: str = ""
    why: str = ""


def board_class(model: GpuModel) -> str:
    """data-center | workstation | consumer | laptop | embedded, or power-capped (see POWER_CAPPED_W).
    rates.toml has no laptop rows: a laptop's clock is its maker's power limit, so no verdict."""
    if model.segment == "laptop":
        return "laptop"  # before the power cap: a 45 W laptop part is not a 75 W slot-powered card
    if (model.tdp_w is not None and model.tdp_w <= POWER_CAPPED_W) or "max-q" in model.name.lower():
        return "power-capped"
    return model.segment


def mig_share(matrices: Matrices, name: str, model: GpuModel | None) -> Share | str | None:
    """None for a whole GPU; a Share for a MIG slice; a reason string when the slice's
    share cannot be told (its GPU is not in rates.toml [[mig]])."""
    found = MIG_PROFILE.search(name or "")
    if not found:
        return None
    profile = f"{found.group(1)}g.{found.group(2)}gb"
    row: MigShare | None = next((m for m in matrices.table("rates", "mig") if model and m.gpu == model.name), None)
    if row is None or model is None:
        return f"a MIG {profile} slice of a GPU whose slice shares are not in {RATES}"
    slices = max(1, min(row.memory_slices, round(int(found.group(2)) / model.memory_gb * row.memory_slices)))
    compute = min(1.0, int(found.group(1)) / row.compute_slices)
    return Share(profile, compute, slices / row.memory_slices,
                 f"{RATES} mig {row.gpu}: {found.group(1)} of {row.compute_slices} compute slices, {slices} of "
                 f"{row.memory_slices} memory slices ({row.source})")


def achievable(matrices: Matrices, model: GpuModel, test: str, accumulate: str) -> AchievableRate | None:
    want = compute_capability(model.compute_capability)
    board = board_class(model)
    for row in matrices.table("rates", "achievable"):
        if (compute_capability(row.compute_capability) == want and row.board == board and row.test == test
                and row.accumulate == accumulate):
            return row
    return None


def gemm_expected(matrices: Matrices, test: str, model: GpuModel | None, share: Share | str | None,
                  accumulate: str = "fp32") -> Expected:
    if model is None:
        return Expected(why="GPU not in the matrices")
    peak = getattr(model, GEMM_PEAK_FIELD.get(test, ""), None)
    if not peak:
        return Expected(why=f"no {test.removeprefix('gemm_').upper()} peak for {model.name}")
    if isinstance(share, str):
        return Expected(why=share)
    scale = share.compute if share else 1.0
    peak_source = f"gpus.toml {model.name}.{GEMM_PEAK_FIELD[test]} ({model.source})" + (
        f" x {share.compute:.3g} ({share.source})" if share else "")
    row = achievable(matrices, model, test, accumulate)
    if row is None:
        return Expected(peak * scale, source=peak_source,
                        why=f"no published achievable rate for sm_{model.compute_capability.replace('.', '')} "
                            f"{board_class(model)} {test} ({accumulate} accumulation) in {RATES}")
    expected = peak * scale * row.fraction
    return Expected(peak * scale, expected, RATE_MARGIN * expected,
                    f"{RATES}: {row.fraction:g} of the peak, {row.measured} ({row.source}); peak: {peak_source}")


def copy_expected(test: str, model: GpuModel | None, share: Share | str | None, gpu: Gpu | None) -> Expected:
    """Copies keep the peak-based floor (expect.PERF_FLOOR); a MIG slice has its memory share."""
    peak, source = expect.expected_peak(test, model, gpu)
    if peak is None:
        return Expected(why="no peak known")
    if test == "copy_d2d" and share is not None:
        if isinstance(share, str):
            return Expected(why=share)
        peak, source = peak * share.memory, f"{source} x {share.memory:.3g} ({share.source})"
    return Expected(peak, peak, expect.PERF_FLOOR * peak, source)
