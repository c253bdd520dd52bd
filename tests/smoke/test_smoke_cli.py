"""`gpudoctor smoke` through click's CliRunner: exit codes, JSON, progress."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import invoke
from smoke_helpers import validate, write_runner

FIXTURES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture
def no_driver(monkeypatch):
    if subprocess.run(["sh", "-c", "ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '"]).returncode == 0:
        pytest.skip("this machine has a real libcuda")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/nonexistent")


@pytest.fixture
def fake_gpu(monkeypatch, fake_libcuda):
    for var in ("FAKE_CUINIT", "FAKE_DEVICE_COUNT", "FAKE_FAIL_STEP", "FAKE_CORRUPT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(fake_libcuda))


def canned_runner(tmp_path: Path, fixture: str) -> str:
    """A runner that prints the runner document of a judge fixture."""
    doc = json.loads((FIXTURES / fixture).read_text())["runner"]
    (tmp_path / "doc.json").write_text(json.dumps(doc))
    return write_runner(tmp_path, f"print(open({str(tmp_path / 'doc.json')!r}).read().replace(chr(10), ' '))\n")


def test_no_driver_exits_1_fast_with_a_finding(no_driver):
    start = time.monotonic()
    result = invoke("smoke", "--json")
    elapsed = time.monotonic() - start
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    validate(data)
    assert [f["code"] for f in data["findings"]] == ["GD701"] and data["gpus"] == []
    assert elapsed < 1.0, f"{elapsed:.2f} s"


def test_no_driver_text_output_has_no_traceback(no_driver):
    result = invoke("smoke")
    assert result.exit_code == 1
    assert "GD701" in result.stdout and "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize("args, message", [
    (("--gpus", "zero"), "--gpus must be"),
    (("--gpus", "0,0"), "distinct"),
    (("--python", "/nonexistent/python3"), "no interpreter"),
    (("--timeout", "0"), "positive"),
    (("--backend", "tensorflow"), "tensorflow"),
    (("--snapshot", "/nonexistent/snap.json"), "cannot read"),
])
def test_bad_input_exits_2_with_one_line(args, message):
    result = invoke("smoke", *args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_gpu_index_beyond_the_visible_gpus_exits_2(fake_gpu):
    result = invoke("smoke", "--gpus", "0,3")
    assert result.exit_code == 2 and "only 1 GPU(s) visible" in result.stderr


def test_healthy_gpu_exits_0(fake_gpu, tmp_path):
    result = invoke("smoke", "--json", "--runner", canned_runner(tmp_path, "GD701/good.json"))
    assert result.exit_code == 0, result.stdout
    data = json.loads(result.stdout)
    validate(data)
    assert data["exit_code"] == 0 and data["gpus"][0]["tests"][0]["name"] == "cuda_driver"


def test_performance_warning_exits_0_and_1_under_strict(fake_gpu, tmp_path):
    runner = canned_runner(tmp_path, "GD709/bad.json")
    assert invoke("smoke", "--json", "--runner", runner).exit_code == 0
    result = invoke("smoke", "--json", "--strict", "--runner", runner)
    assert result.exit_code == 1 and "GD709" in result.stdout


def test_wrong_numbers_exit_1(fake_gpu, tmp_path):
    result = invoke("smoke", "--runner", canned_runner(tmp_path, "GD705/bad.json"))
    assert result.exit_code == 1 and "GD705" in result.stdout and "FAIL" in result.stdout


def test_segfaulting_runner_exits_1_as_crashed(tmp_path):
    runner = write_runner(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)\n")
    result = invoke("smoke", "--json", "--allow-cpu", "--runner", runner)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    validate(data)
    assert [f["code"] for f in data["findings"] if f["severity"] == "error"] == ["GD703"]


def test_hanging_runner_exits_1_at_the_timeout(tmp_path):
    runner = write_runner(tmp_path, "time.sleep(60)\n")
    start = time.monotonic()
    result = invoke("smoke", "--json", "--allow-cpu", "--timeout", "2", "--runner", runner)
    assert result.exit_code == 1 and time.monotonic() - start < 8
    assert "GD704" in result.stdout


def test_plain_progress_lines_when_not_a_terminal(tmp_path, torch_python):
    result = invoke("smoke", "--allow-cpu", "--python", torch_python)
    assert result.exit_code == 0, result.stdout
    assert "gpudoctor smoke: GPU 0 gemm_bf16: ok" in result.stderr
    assert "PASS" in result.stdout and "gemm_fp16" in result.stdout


def test_allow_cpu_json_with_torch(torch_python):
    result = invoke("smoke", "--json", "--allow-cpu", "--python", torch_python)
    assert result.exit_code == 0
    validate(json.loads(result.stdout))
    assert result.stderr == ""  # --json off a terminal: no progress lines
