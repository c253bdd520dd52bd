"""The real path on a real GPU (marked `gpu`; skipped without one unless
GPUDOCTOR_REQUIRE_GPU=1).

The target interpreter is GPUDOCTOR_TEST_TORCH_PYTHON (a CUDA build of torch)
or, if unset, the interpreter running the tests. When GPUDOCTOR_GPU_OUT is set,
the reports are written there as recorded fixtures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from smoke_helpers import validate

from gpudoctor.host import RealHost
from gpudoctor.smoke import SmokeOptions, run_smoke
from gpudoctor.smoke.driver import run_driver_check

pytestmark = pytest.mark.gpu


def target_python() -> str:
    return os.environ.get("GPUDOCTOR_TEST_TORCH_PYTHON") or RealHost().python


def record(name: str, data: dict) -> None:
    out = os.environ.get("GPUDOCTOR_GPU_OUT")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / name).write_text(json.dumps(data, indent=2) + "\n")


@pytest.fixture(scope="module")
def quick_report():
    report = run_smoke(RealHost(), target_python(), SmokeOptions(backend="torch"))
    record("smoke-quick.json", report.to_json())
    assert report.device_type == "cuda" and report.gpus, [f.title for f in report.findings]
    return report


def test_driver_check_passes_on_every_gpu():
    doc = run_driver_check(RealHost())
    record("driver-check.json", doc)
    assert doc["outcome"] == "ok" and doc["cuinit"] == 0 and doc["device_count"] >= 1
    assert all(d["failed_step"] is None for d in doc["devices"]), doc["devices"]


def test_quick_smoke_passes_and_is_schema_valid(quick_report):
    data = quick_report.to_json()
    validate(data)
    assert data["device_type"] == "cuda" and data["gpus"]
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert errors == [], errors
    for gpu in data["gpus"]:
        statuses = {t["name"]: t["status"] for t in gpu["tests"]}
        assert statuses["cuda_driver"] == "pass" and statuses["gemm_fp32"] == "pass"
        assert statuses["gemm_fp16"] == "pass" and statuses["copy_d2d"] == "pass"
        assert set(statuses.values()) <= {"pass", "skip"}, statuses


def test_fp16_gemm_is_measured_against_the_peak_when_the_gpu_is_known(quick_report):
    for gpu in quick_report.gpus:
        fp16 = {t.name: t for t in gpu.tests}["gemm_fp16"]
        assert fp16.value and fp16.value > 0
        if gpu.model:
            assert fp16.peak and 0 < fp16.fraction_of_peak < 1.5


def test_nvml_was_sampled_during_every_timed_gemm(quick_report):
    """The samples come from the runner's own NVML calls while the kernel runs."""
    for gpu in quick_report.gpus:
        for t in gpu.tests:
            if t.name.startswith("gemm_") and t.value:
                assert t.samples and t.samples["n"] >= 3, (t.name, t.samples)
                assert t.samples["sm_clock_mhz"] and t.samples["max_sm_clock_mhz"]


def test_tf32_forced_by_the_environment_is_reported(monkeypatch):
    """TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (NVIDIA's containers) makes torch's default FP32 matmul
    precision TF32: GD718 must say so, with a TF32-sized error under the default (on GPUs that
    have TF32). The pinned gemm_fp32 test itself may pass: torch 2.13/2.14 honour "highest"."""
    monkeypatch.setenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1")
    report = run_smoke(RealHost(), target_python(), SmokeOptions(backend="torch", gpus=(0,)))
    assert report.device_type == "cuda" and report.gpus, [f.title for f in report.findings]
    gpu = report.gpus[0]
    if not gpu.compute_capability or float(gpu.compute_capability) < 8.0:
        pytest.skip("no TF32 below sm_80")
    record("smoke-tf32-override.json", report.to_json())
    assert "GD718" in [f.code for f in report.findings], [f.title for f in report.findings]
    assert report.precision["env"]["TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"] == "1"


def test_multi_gpu_nccl_and_peer_access(quick_report):
    if len(quick_report.gpus) < 2:
        pytest.skip("one GPU: no NCCL all-reduce")
    node = {t.name: t for t in quick_report.node_tests}
    assert node["p2p"].status == "pass"
    assert node["nccl_allreduce"].status == "pass" and node["nccl_allreduce"].value > 0
