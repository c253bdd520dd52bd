"""The driver-level check: the real ctypes script against no libcuda and
against a fake libcuda.so.1 scripted per scenario, then judged."""

from __future__ import annotations

import ast
import os
import subprocess
import time

import pytest
from smoke_helpers import fake_host

from gpudoctor.host import RealHost
from gpudoctor.matrices import load_matrices
from gpudoctor.smoke.driver import DRIVER_SCRIPT, RUNNER_DIR, run_driver_check
from gpudoctor.smoke.judge import SmokeInput, judge
from gpudoctor.smoke.judge_driver import driver_findings


def codes_of(findings):
    return sorted(f.code for f in findings)


def test_no_libcuda_is_a_clear_fast_finding():
    host = RealHost(environ={"PATH": os.environ.get("PATH", ""), "LD_LIBRARY_PATH": "/nonexistent"})
    if subprocess.run(["sh", "-c", "ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '"]).returncode == 0:
        pytest.skip("this machine has a real libcuda")
    start = time.monotonic()
    doc = run_driver_check(host)
    elapsed = time.monotonic() - start
    assert doc["outcome"] == "ok" and doc["library"]["loaded"] is False
    assert any("libcuda.so.1" in t for t in doc["library"]["tried"])
    findings, usable = driver_findings(doc)
    assert not usable and codes_of(findings) == ["GD701"]
    assert "no CUDA driver" in findings[0].title
    assert elapsed < 1.0, f"the no-driver check took {elapsed:.2f} s"


def test_healthy_fake_gpu_passes_every_step(fake_libcuda):
    doc = run_driver_check(fake_host(fake_libcuda, device_count=2))
    assert doc["cuinit"] == 0 and doc["device_count"] == 2
    assert doc["library"]["path"].endswith("libcuda.so.1") and str(fake_libcuda) in doc["library"]["path"]
    assert [d["failed_step"] for d in doc["devices"]] == [None, None]
    assert doc["devices"][1] | {"seconds": 0, "context_seconds": 0} == {
        "index": 1, "name": "NVIDIA H200", "cc": "9.0", "pci_bus_id": "0000:19:00.0", "memory_total_mib": 143771,
        "result": 0, "failed_step": None, "seconds": 0, "context_seconds": 0}
    findings, usable = driver_findings(doc)
    assert usable and findings == []


@pytest.mark.parametrize("code, name, fix_words", [
    (802, "CUDA_ERROR_SYSTEM_NOT_READY", "Fabric Manager"),
    (804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "compat"),
    (999, "CUDA_ERROR_UNKNOWN", "nvidia_uvm"),
    (100, "CUDA_ERROR_NO_DEVICE", "CUDA_VISIBLE_DEVICES"),
    (34, "CUDA_ERROR_STUB_LIBRARY", "stubs"),
    (3, "CUDA_ERROR_NOT_INITIALIZED", "spawn"),
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "reboot"),
])
def test_cuinit_failure_is_named_with_its_fix(fake_libcuda, code, name, fix_words):
    doc = run_driver_check(fake_host(fake_libcuda, cuinit=code))
    assert doc["cuinit"] == code and doc["devices"] == []
    findings, usable = driver_findings(doc)
    assert not usable and codes_of(findings) == ["GD701"]
    f = findings[0]
    assert name in f.title and str(code) in f.title
    assert fix_words.lower() in (f.fix.text + " ".join(f.fix.commands)).lower()
    assert any(e.fact == "driver_cuda_api" and e.value == "13.0" for e in f.evidence)


@pytest.mark.parametrize("step, code", [("cuDevicePrimaryCtxRetain", 46), ("cuMemAlloc", 2), ("cuMemsetD8", 999)])
def test_a_failing_step_on_one_gpu_is_reported_for_that_gpu(fake_libcuda, step, code):
    doc = run_driver_check(fake_host(fake_libcuda, device_count=2, fail_step=step, fail_device=1, fail_code=code))
    assert [d["failed_step"] for d in doc["devices"]] == [None, step]
    findings, usable = driver_findings(doc)
    assert usable  # GPU 0 still works
    assert codes_of(findings) == ["GD701"] and findings[0].subject == "GPU 1"
    assert step in findings[0].title and str(code) in findings[0].title


def test_memory_that_reads_back_wrong_is_caught(fake_libcuda):
    doc = run_driver_check(fake_host(fake_libcuda, corrupt=1))
    assert doc["devices"][0]["failed_step"] == "verify"
    findings, usable = driver_findings(doc)
    assert not usable and "read back different bytes" in findings[0].title


def test_hanging_cuinit_costs_only_the_timeout(fake_libcuda):
    start = time.monotonic()
    doc = run_driver_check(fake_host(fake_libcuda, cuinit_hang=30), timeout=1.0)
    assert time.monotonic() - start < 5
    assert doc["outcome"] == "timeout"
    findings, _ = driver_findings(doc)
    assert "hangs" in findings[0].title


def test_segfaulting_libcuda_is_a_finding_not_a_crash(fake_libcuda):
    doc = run_driver_check(fake_host(fake_libcuda, cuinit_segv=1))
    assert doc["outcome"] == "crashed" and doc["returncode"] < 0
    findings, usable = driver_findings(doc)
    assert not usable and findings[0].code == "GD701" and "crashed" in findings[0].title


def test_judge_without_runner_lists_the_driver_gpus(fake_libcuda):
    doc = run_driver_check(fake_host(fake_libcuda, device_count=2, fail_step="cuMemAlloc", fail_device=0))
    report = judge(SmokeInput(driver=doc, runner=None, process=None), load_matrices())
    # GPU 1 still works, so this is not the fast path: the judge wanted a runner.
    assert [g.tests[0].status for g in report.gpus] == ["fail", "pass"]
    assert int(report.exit_code) == 1


def test_runner_scripts_parse_as_python38():
    """The scripts run under the TARGET interpreter, which may be 3.8."""
    for path in sorted(RUNNER_DIR.glob("gdsmoke_*.py")):
        ast.parse(path.read_text(), filename=str(path), feature_version=(3, 8))


def test_driver_script_runs_on_python38(fake_libcuda):
    python38 = os.environ.get("GPUDOCTOR_TEST_PY38_PYTHON")
    if not python38:
        pytest.skip("set GPUDOCTOR_TEST_PY38_PYTHON to a Python 3.8 interpreter")
    host = fake_host(fake_libcuda)
    res = host.run([python38, str(DRIVER_SCRIPT)], timeout=30, env=dict(host.env()))
    assert res.ok, res.stderr
    assert '"cuinit": 0' in res.stdout and '"failed_step": null' in res.stdout


def test_a_timeout_names_the_step_that_was_running_and_the_limit(fake_libcuda):
    doc = run_driver_check(fake_host(fake_libcuda, cuinit_hang=30), timeout=1.0, limit_why="1 s (test)")
    assert doc["running"]["step"] == "cuInit" and doc["steps_done"] == []
    (f,) = driver_findings(doc)[0]
    assert f.title.startswith("cuInit did not return within 1 s")
    assert any(e.fact == "limit" and e.value == "1 s (test)" for e in f.evidence)


def test_a_slow_cuinit_that_returns_is_reported_as_slow_not_as_a_hang(fake_libcuda):
    """6 s: NVIDIA/nvtrust#113 measured cuInit at 6.5 s on one confidential-computing GPU."""
    doc = run_driver_check(fake_host(fake_libcuda, cuinit_hang=6), timeout=20.0)
    assert doc["outcome"] == "ok" and doc["cuinit_seconds"] >= 6.0
    findings, usable = driver_findings(doc)
    assert usable and codes_of(findings) == ["GD717"]
    assert "slow, not hung" in findings[0].title and findings[0].severity.value == "warning"


@pytest.mark.parametrize("gpus, persistence, limit", [
    (8, False, 110.0), (8, True, 30.0), (1, None, 40.0), (0, None, 30.0)])
def test_the_driver_limit_scales_with_gpus_unless_persistence_mode_is_on(gpus, persistence, limit):
    from gpudoctor.smoke.driver import driver_limit
    from gpudoctor.snapshot import Gpu, Snapshot

    snap = Snapshot(gpus=tuple(Gpu(index=i, name="NVIDIA A100-SXM4-80GB", persistence_mode=persistence)
                               for i in range(gpus))) if gpus else None
    seconds, why = driver_limit(RealHost(environ={}), snap)
    assert seconds == limit
    assert ("persistence mode off" in why) is (persistence is False)
