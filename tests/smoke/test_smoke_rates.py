"""The judge fed with published measurements: healthy GPUs find no problem, throttled or
Tensor-Core-less runs name the cause their samples show.

Every figure below carries its source. "derived:" marks a figure computed from sourced
ones (the formula is stated), for situations no source measured as a whole.
"""

from __future__ import annotations

import pytest

from gpudoctor.matrices import load_matrices
from gpudoctor.smoke import rates, samples
from gpudoctor.smoke.judge import SmokeInput, judge

ZZ = "zzc0721/torch-performance-test-data database.md@bbb8e247"
L4 = "zzc0721/torch-performance-test-data#120"
T4_FORUM = "forums.developer.nvidia.com/t/about-gpu-peak-performance/264462"
WH90 = "waynehacking8/blackwell-tensorcore-kernels results/bench_sm90a.csv@fd74d2ac"
WH90_CLOCKS = "waynehacking8/blackwell-tensorcore-kernels results/bench_sm90a.clocks.csv@fd74d2ac"
MAMF = "stas00/ml-engineering compute/accelerator/README.md@b9e29720 (MAMF table)"
SGEMM_4090 = "SGEMM_CUDA-style README, 'Running the kernels on a NVIDIA RTX 4090 (Ada, SM89)', cuBLAS row"
MIG_GUIDE = "docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
A4000_THERMAL = "rammsguns/llm-rig#97"
R3090_CAP = "ashalliants/ninfer-3090#72"
TF_2080TI = "tensorflow/tensorflow#24531"
A100_BMC_CAP = "l4rz/reverse-engineering-dell-idrac-to-get-rid-of-gpu-throttling#3"


@pytest.fixture(scope="module")
def matrices():
    return load_matrices()


def gemm(name: str, tflops: float, source: str, samples_raw: dict | None = None, **extra) -> dict:
    assert source  # every figure is cited
    t = {"name": name, "status": "ok", "max_rel_error": 1e-6 if name == "gemm_fp32" else 1e-3, "tflops": tflops,
         **extra}
    if samples_raw is not None:
        t["samples"] = samples_raw
    return t


PER_SAMPLE = ("sm_clock_mhz", "power_w", "temperature_c", "reasons")


def timed(n: int, **columns) -> dict:
    """n samples in the timed window: a per-sample column given as one value repeats it;
    the limits (max clock, power limits) are single values."""
    raw: dict = {"phase": ["timed"] * n}
    for key, value in columns.items():
        raw[key] = [value] * n if key in PER_SAMPLE and not isinstance(value, list) else value
    return raw


def doc(name: str, cc: str, tests: list[dict], **gpu) -> dict:
    return {"format": "gpudoctor-smoke-runner", "version": 1, "backend": "torch", "device_type": "cuda",
            "framework": {"name": "torch", "version": "2.9.0+cu128"}, "mode": "quick", "error": None,
            "node_tests": [], "gpus": [{"index": 0, "name": name, "cc": cc, "tests": tests, **gpu}]}


def judged(matrices, runner: dict):
    return judge(SmokeInput(runner=runner), matrices)


HEALTHY = {
    "T4 at its 70 W cap": doc("Tesla T4", "7.5", [
        gemm("gemm_fp32", 4.17, ZZ),
        gemm("gemm_fp16", 24.0, T4_FORUM, timed(5, power_w=70.0, reasons=0x4, power_limit_w=70.0,
                                                default_power_limit_w=70.0)),  # "power capping ... about 70W"
    ]),
    "RTX 4090": doc("NVIDIA GeForce RTX 4090", "8.9", [
        gemm("gemm_fp32", 49.3, SGEMM_4090),  # 49305.6 GFLOPs at 4096^3
        gemm("gemm_fp16", 171.06, ZZ), gemm("gemm_bf16", 173.31, ZZ),
    ]),
    "A100 SXM4 80GB": doc("NVIDIA A100-SXM4-80GB", "8.0", [
        gemm("gemm_fp32", 19.18, ZZ), gemm("gemm_fp16", 258.74, ZZ), gemm("gemm_bf16", 264.53, ZZ),
    ]),
    "H100 SXM": doc("NVIDIA H100 80GB HBM3", "9.0", [
        gemm("gemm_fp32", 45.68, WH90), gemm("gemm_tf32", 399.35, WH90),  # TF32 at 4096^3, below the 8192^3 row
        gemm("gemm_fp16", 749.89, WH90), gemm("gemm_bf16", 794.5, MAMF),
        gemm("gemm_fp8", 1402.6, MAMF, accumulate="default"),
    ]),
    "H200 (same compute as H100 SXM)": doc("NVIDIA H200", "9.0", [
        gemm("gemm_fp16", 761.84, ZZ), gemm("gemm_bf16", 789.24, ZZ),
        gemm("gemm_fp8", 1402.6, MAMF, accumulate="fast"),
    ]),
    "L4 at its 72 W cap": doc("NVIDIA L4", "8.9", [
        gemm("gemm_fp32", 12.53, L4), gemm("gemm_tf32", 24.00, L4),  # TF32 at 4096^3: below the 8192^3 row
        gemm("gemm_fp16", 53.02, L4), gemm("gemm_bf16", 54.91, L4),  # 4096^3 figures of the same report
    ]),
    "A100 MIG 1g.5gb slice": doc("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "8.0", [
        # derived: A100 40GB 247.63 TFLOPS (ZZ) x 1/7, the 1g.5gb fraction of SMs (MIG_GUIDE)
        gemm("gemm_fp16", 247.63 / 7, f"derived: {ZZ} x 1/7 ({MIG_GUIDE})"),
        gemm("gemm_fp32", 18.11 / 7, f"derived: {ZZ} x 1/7 ({MIG_GUIDE})"),
    ], multiprocessors=14),
}


@pytest.mark.parametrize("case", list(HEALTHY), ids=list(HEALTHY))
def test_published_healthy_measurements_find_no_problem(matrices, case):
    report = judged(matrices, HEALTHY[case])
    assert [f.code for f in report.findings] == [], [f.title for f in report.findings]
    gemms = [t for t in report.gpus[0].tests if t.name.startswith("gemm_")]
    assert gemms and all(t.perf == "ok" for t in gemms), [(t.name, t.perf, t.detail) for t in gemms]


def test_the_old_peak_floor_would_have_failed_these_gpus(matrices):
    """The reason for achievable rates: 60 % of the peak flags the T4, the RTX 4090's FP32 and the MIG slice."""
    flagged = []
    for case in ("T4 at its 70 W cap", "RTX 4090", "L4 at its 72 W cap", "A100 MIG 1g.5gb slice"):
        gpu = judged(matrices, HEALTHY[case]).gpus[0]
        model = matrices.gpu(gpu.model)
        flagged += [(case, t.name) for t in gpu.tests  # against the whole GPU's datasheet peak, as before
                    if t.value is not None and t.value < 0.6 * getattr(model, rates.GEMM_PEAK_FIELD[t.name])]
    assert ("RTX 4090", "gemm_fp32") in flagged and ("T4 at its 70 W cap", "gemm_fp16") in flagged
    assert ("A100 MIG 1g.5gb slice", "gemm_fp16") in flagged


def test_a_power_capped_board_at_its_cap_gets_a_note_not_a_warning(matrices):
    t = {t.name: t for t in judged(matrices, HEALTHY["T4 at its 70 W cap"]).gpus[0].tests}["gemm_fp16"]
    assert t.perf == "ok" and t.cause == "power-cap" and "normal for this 70 W board" in t.detail


def test_a_mig_slice_is_judged_against_its_share(matrices):
    report = judged(matrices, HEALTHY["A100 MIG 1g.5gb slice"])
    gpu = report.gpus[0]
    fp16 = {t.name: t for t in gpu.tests}["gemm_fp16"]
    assert gpu.mig_profile == "1g.5gb" and gpu.model == "A100 SXM4 40GB"
    assert fp16.peak == pytest.approx(312 / 7)
    share = rates.mig_share(matrices, gpu.name, matrices.gpu("A100 SXM4 40GB"))
    assert share.memory == pytest.approx(1 / 8)


def test_a_mig_slice_of_a_gpu_without_slice_data_gets_no_rate_verdict(matrices):
    runner = doc("NVIDIA B200 MIG 1g.23gb", "10.0", [gemm("gemm_fp16", 100.0, "any figure: no verdict expected")])
    t = judged(matrices, runner).gpus[0].tests[0]
    assert t.perf is None and "slice shares are not in" in t.detail


def thermal_a4000() -> dict:
    """RTX A4000 heat-soaked (A4000_THERMAL): 1155 MHz of an unthrottled 1875 MHz at 92 C, 140/140 W,
    thermal slowdown active. The rate: derived: the workstation-Ampere achievable SGEMM fraction
    (0.60, siboehm/SGEMM_CUDA on an RTX A6000) x the 19.2 TFLOPS peak x 1155/1875."""
    rate = 0.60 * 19.2 * 1155 / 1875
    raw = timed(6, sm_clock_mhz=1155, power_w=140.0, temperature_c=92, reasons=0x20 | 0x4,
                max_sm_clock_mhz=1875, power_limit_w=140.0, default_power_limit_w=140.0)
    return doc("NVIDIA RTX A4000", "8.6", [gemm("gemm_fp32", rate, f"derived: {A4000_THERMAL}", raw)])


def test_a_thermally_throttled_gpu_names_thermal(matrices):
    report = judged(matrices, thermal_a4000())
    (f,) = [f for f in report.findings if f.code == "GD708"]
    assert "thermal throttling at 92 C" in f.title
    assert {t.name: t for t in report.gpus[0].tests}["gemm_fp32"].cause == "thermal"


def test_a_power_capped_3090_at_the_expected_rate_passes_with_a_note(matrices):
    """RTX 3090 at its 315 W cap (R3090_CAP): 314 W, SM 1500-1515 MHz of a 1695 MHz rated boost,
    sw_power_cap in 161 of 162 samples, 75 C max. The rate: derived: 75.64 TFLOPS (ZZ) x 1507/1695."""
    raw = timed(162, sm_clock_mhz=[1500, 1515] * 81, power_w=314.0, temperature_c=75,
                reasons=[0x4] * 161 + [0], max_sm_clock_mhz=1695, power_limit_w=315.0, default_power_limit_w=315.0)
    runner = doc("NVIDIA GeForce RTX 3090", "8.6", [
        gemm("gemm_fp32", 24.46, ZZ), gemm("gemm_fp16", 75.64 * 1507 / 1695, f"derived: {ZZ}, {R3090_CAP}", raw)])
    report = judged(matrices, runner)
    fp16 = {t.name: t for t in report.gpus[0].tests}["gemm_fp16"]
    assert report.findings == () and fp16.perf == "ok" and fp16.cause == "power-cap"
    assert "normal for a sustained GEMM" in fp16.detail and fp16.samples["reasons"]["sw_power_cap"] > 0.99


def test_a_16bit_gemm_at_fp32_speed_names_tensor_cores_not_used(matrices):
    """RTX 2080: FP32 9.23 TFLOPS (ZZ). FP16 derived: 1.1 x FP32, the low end of the "10-40 %
    improvement over FP32" reported for RTX 2080 Ti FP16 without Tensor Core GEMMs (TF_2080TI)."""
    runner = doc("NVIDIA GeForce RTX 2080", "7.5", [
        gemm("gemm_fp32", 9.23, ZZ), gemm("gemm_fp16", 1.1 * 9.23, f"derived: {ZZ}, {TF_2080TI}")])
    report = judged(matrices, runner)
    (f,) = [f for f in report.findings if f.code == "GD708"]
    assert "did not run on Tensor Cores" in f.title and "FP16" in f.title


def test_a_power_cap_below_the_limit_is_named_from_the_samples():
    """A100 SXM4 80GB, 400 W limit, SW power cap already at 240 W under full load (A100_BMC_CAP)."""
    s = samples.summarise(timed(10, power_w=240.0, reasons=0x4, power_limit_w=400.0, default_power_limit_w=400.0))
    assert samples.clock_cause(s)[0] == "power-cap-below-limit"


def test_a_lowered_power_limit_is_named():
    """A limit set below the default, the 3090 figures of R3090_CAP with the limit at 250 W (derived)."""
    s = samples.summarise(timed(10, power_w=249.0, reasons=0x4, power_limit_w=250.0, default_power_limit_w=350.0))
    key, why = samples.clock_cause(s)
    assert key == "power-limit-lowered" and "250 W" in why and "350 W" in why


def test_an_idle_h100_sample_names_no_cause():
    """Idle H100 (WH90_CLOCKS): 345 MHz of 1980 MHz, 26 C, 72.37 W, GpuIdle. Labelled as the
    warm-up, it is not read as the timed window's clocks."""
    raw = {"phase": ["clock_warmup"], "sm_clock_mhz": [345], "temperature_c": [26], "power_w": [72.37],
           "reasons": [0x1], "max_sm_clock_mhz": 1980}
    assert samples.summarise(raw, phase="timed") is None
    s = samples.summarise(raw, phase="clock_warmup")
    assert s.sm_clock_mhz == 345 and s.share("gpu_idle") == 1.0
