"""Judge logic: tolerances, expected peaks, performance causes, attribution."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from smoke_helpers import validate

from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.smoke import expect, rates
from gpudoctor.smoke.judge import SmokeInput, judge
from gpudoctor.smoke.process import ProcessOutcome
from gpudoctor.snapshot import Gpu, Snapshot

FIXTURES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def matrices():
    return load_matrices()


def healthy() -> dict:
    return json.loads((FIXTURES / "GD701" / "good.json").read_text())


def set_test(data: dict, name: str, gpu: int = 0, **changes) -> dict:
    for t in data["runner"]["gpus"][gpu]["tests"]:
        if t["name"] == name:
            t.update(changes)
            return data
    raise KeyError(name)


def run(data: dict, matrices, **kw):
    return judge(SmokeInput.from_dict(data), matrices, **kw)


def results_of(report, gpu: int = 0):
    return {t.name: t for t in report.gpus[gpu].tests}


def codes(report):
    return [f.code for f in report.findings]


@pytest.mark.parametrize("err, status", [(1e-5, "pass"), (1.01e-5, "fail"), (None, "fail")])
def test_fp32_tolerance_boundary(matrices, err, status):
    report = run(set_test(healthy(), "gemm_fp32", max_rel_error=err), matrices)
    t = results_of(report)["gemm_fp32"]
    assert t.status == status and t.tolerance == expect.TOLERANCE["gemm_fp32"]
    assert ("GD705" in codes(report)) is (status == "fail")
    if err is None:
        assert "NaN or Inf" in t.detail


def test_driver_result_is_the_first_test_row(matrices):
    report = run(healthy(), matrices)
    assert report.gpus[0].tests[0].name == "cuda_driver" and report.gpus[0].tests[0].status == "pass"
    assert report.gpus[0].model == "H200 SXM 141GB"


def test_expected_rates_are_achievable_fractions_of_the_matrix_peaks(matrices):
    report = run(healthy(), matrices)
    model = matrices.gpu("NVIDIA H200")
    row = rates.achievable(matrices, model, "gemm_bf16", "fp32")
    t = results_of(report)["gemm_bf16"]
    assert t.peak == model.bf16_tflops and t.fraction_of_peak == pytest.approx(t.value / model.bf16_tflops)
    assert t.expected == pytest.approx(model.bf16_tflops * row.fraction) and row.fraction < 1
    d2d = results_of(report)["copy_d2d"]
    assert d2d.expected == d2d.peak == model.memory_bandwidth_gbs
    h2d = results_of(report)["copy_h2d"]  # from the snapshot's PCIe gen5 x16
    assert h2d.expected == pytest.approx(16 * expect.PCIE_LANE_GBS[5])


def test_a_gpu_name_matching_a_row_with_another_compute_capability_gets_no_peak(matrices):
    data = healthy()
    data["runner"]["gpus"][0]["cc"] = "8.0"
    set_test(data, "gemm_bf16", tflops=10.0)
    report = run(data, matrices)
    t = results_of(report)["gemm_bf16"]
    assert t.expected is None and t.perf is None and report.gpus[0].model is None
    assert "GD708" not in codes(report)


def test_an_unknown_gpu_gets_no_performance_verdict(matrices):
    data = healthy()
    data["runner"]["gpus"][0]["name"] = "NVIDIA Imaginary X9000"
    set_test(data, "gemm_bf16", tflops=1.0)
    report = run(data, matrices)
    assert results_of(report)["gemm_bf16"].expected is None
    assert "GD708" not in codes(report) and int(report.exit_code) == 0


def slow_16bit(data: dict, tflops: float) -> dict:
    set_test(data, "gemm_fp16", tflops=tflops)
    return set_test(data, "gemm_bf16", tflops=tflops)


def cause(report) -> str:
    f = [f for f in report.findings if f.code == "GD708"][0]
    return next(e.value for e in f.evidence if e.fact == "cause")


def with_samples(data: dict, name: str, **columns) -> dict:
    """NVML columns for one test, every sample in the timed window."""
    n = max(len(v) for v in columns.values() if isinstance(v, list))
    raw = {"phase": ["timed"] * n, **columns}
    return set_test(data, name, samples=raw)


def test_thermal_throttling_is_named_from_the_samples_not_the_snapshot(matrices):
    data = slow_16bit(healthy(), 300.0)
    data["snapshot"]["gpus"][0]["throttle_reasons"] = ["GpuIdle"]  # an idle snapshot says nothing
    for name in ("gemm_fp16", "gemm_bf16"):
        with_samples(data, name, sm_clock_mhz=[1100] * 5, power_w=[600] * 5, temperature_c=[91] * 5,
                     reasons=[0x20] * 5, max_sm_clock_mhz=1980, power_limit_w=700)
    report = run(data, matrices)
    assert cause(report) == "thermal"
    f = [f for f in report.findings if f.code == "GD708"][0]
    assert "thermal" in f.title and f.severity is Severity.WARNING
    assert any(e.fact == "gemm_fp16.nvml" and "1100 MHz of 1980" in e.value for e in f.evidence)


def test_16bit_no_faster_than_the_measured_fp32_means_tensor_cores_were_not_used(matrices):
    data = slow_16bit(healthy(), 60.0)  # the FP32 GEMM of this document ran at 51.8
    data["snapshot"] = None
    assert cause(run(data, matrices)) == "tensor-cores-not-used"


def test_a_narrow_pcie_link_is_not_blamed_for_a_slow_gemm(matrices):
    data = slow_16bit(healthy(), 300.0)
    data["snapshot"]["gpus"][0]["pcie_width_current"] = 8
    assert cause(run(data, matrices)) == "unknown"


def test_low_clocks_without_a_reason_are_named_clocks_low(matrices):
    data = slow_16bit(healthy(), 300.0)
    for name in ("gemm_fp16", "gemm_bf16"):
        with_samples(data, name, sm_clock_mhz=[900] * 4, reasons=[0] * 4, max_sm_clock_mhz=1980)
    assert cause(run(data, matrices)) == "clocks-low"


def test_clocks_at_maximum_do_not_explain_a_slow_gemm(matrices):
    data = slow_16bit(healthy(), 300.0)
    for name in ("gemm_fp16", "gemm_bf16"):
        with_samples(data, name, sm_clock_mhz=[1980] * 4, reasons=[0] * 4, max_sm_clock_mhz=1980)
    report = run(data, matrices)
    assert cause(report) == "unknown"
    assert "not held down" in [f for f in report.findings if f.code == "GD708"][0].title


def test_slow_without_samples_says_unknown(matrices):
    data = slow_16bit(healthy(), 300.0)
    report = run(data, matrices)
    assert cause(report) == "unknown"
    assert "NVML was not sampled" in [f for f in report.findings if f.code == "GD708"][0].title


def test_idle_generation_downshift_is_not_called_degraded(matrices):
    data = healthy()
    data["snapshot"]["gpus"][0]["pcie_gen_current"] = 1
    assert codes(run(data, matrices)) == []


def test_strict_turns_performance_warnings_into_failure(matrices):
    data = slow_16bit(healthy(), 300.0)
    assert int(run(data, matrices).exit_code) == 0
    assert int(run(data, matrices, strict=True).exit_code) == 1


def test_snapshot_gpu_is_matched_by_bus_id_not_position():
    snap = Snapshot(gpus=(Gpu(index=0, name="a", pci_bus_id="00000000:3B:00.0"),
                          Gpu(index=1, name="b", pci_bus_id="00000000:18:00.0")))
    assert expect.snapshot_gpu(snap, "0000:18:00.0", 0).name == "b"
    assert expect.snapshot_gpu(snap, None, 0).name == "a"
    assert expect.snapshot_gpu(None, "0000:18:00.0", 0) is None


def test_crash_in_a_node_test_is_attributed_to_the_node(matrices):
    data = json.loads((FIXTURES / "GD710" / "good.json").read_text())
    events = [{"ev": "gpu", "index": i, "name": "NVIDIA H200", "cc": "9.0"} for i in (0, 1)]
    events.append({"ev": "done", "gpu": None, "test": data["runner"]["node_tests"][0]})
    events.append({"ev": "start", "gpu": None, "test": "nccl_allreduce"})
    data["runner"] = None
    data["process"] = {"status": "crashed", "returncode": -6, "signal": "SIGABRT", "stderr_tail": ["NCCL WARN x"],
                       "events": events}
    report = run(data, matrices)
    assert [t.status for t in report.node_tests] == ["pass", "crashed"]
    crash = [f for f in report.findings if f.code == "GD703"][0]
    assert crash.subject == "node" and "nccl_allreduce" in crash.title


def test_sdpa_math_on_the_cpu_is_not_a_finding(matrices):
    data = json.loads((FIXTURES / "GD712" / "bad.json").read_text())
    data["runner"]["device_type"] = "cpu"
    assert "GD712" not in codes(run(data, matrices))


def test_process_outcome_round_trips_through_json():
    proc = ProcessOutcome("crashed", -11, "SIGSEGV", "", ("a", "b"), ({"ev": "gpu", "index": 0},), 1.5)
    again = SmokeInput.from_dict({"process": json.loads(json.dumps(
        {k: list(v) if isinstance(v, tuple) else v for k, v in proc.__dict__.items()}))}).process
    assert again == proc


def test_report_json_keeps_tflops_or_gbps_never_both(matrices):
    data = run(copy.deepcopy(healthy()), matrices).to_json()
    for t in data["gpus"][0]["tests"]:
        assert not ("tflops" in t and "gbps" in t)
    rates = {t["name"]: ("tflops" if "tflops" in t else "gbps" if "gbps" in t else None) for t in data["gpus"][0]["tests"]}
    assert rates["gemm_fp8"] == "tflops" and rates["copy_d2d"] == "gbps" and rates["conv_fp16"] is None


def test_crash_after_every_test_reported_is_a_warning(matrices):
    data = healthy()
    data["process"] = {"status": "crashed", "returncode": -11, "signal": "SIGSEGV",
                       "stderr_tail": ["Segmentation fault in ncclCommDestroy"]}
    report = run(data, matrices)
    late = [f for f in report.findings if f.code == "GD703"]
    assert len(late) == 1 and late[0].severity is Severity.WARNING and "after reporting every test" in late[0].title
    assert int(report.exit_code) == 0 and int(run(data, matrices, strict=True).exit_code) == 1


@pytest.mark.parametrize("code", ["GD708", "GD717", "GD718", "GD719"])
def test_sampled_and_fact_based_fixtures_fire_only_when_bad(matrices, code):
    bad = json.loads((FIXTURES / code / "bad.json").read_text())
    good = json.loads((FIXTURES / code / "good.json").read_text())
    found = [f for f in run(bad, matrices).findings if f.code == code]
    assert found and all(e.source for f in found for e in f.evidence)
    assert code not in codes(run(good, matrices))


def test_tf32_disabled_by_the_environment_is_not_called_slow(matrices):
    data = json.loads((FIXTURES / "GD719" / "bad.json").read_text())
    t = results_of(run(data, matrices))["gemm_tf32"]
    assert t.perf is None and "NVIDIA_TF32_OVERRIDE=0" in t.detail
    assert "GD708" not in codes(run(data, matrices))


def test_tf32_facts_are_in_the_report(matrices):
    data = json.loads((FIXTURES / "GD718" / "bad.json").read_text())
    out = run(data, matrices).to_json()
    assert out["precision"]["env"]["TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"] == "1"
    validate(out)
