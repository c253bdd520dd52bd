"""Process control: a runner that segfaults, hangs, prints garbage or leaves
children behind costs at most its timeout and is reported, never raised."""

from __future__ import annotations

import os
import time
from pathlib import Path

from smoke_helpers import validate, write_runner

from gpudoctor.host import RealHost
from gpudoctor.smoke import SmokeOptions, run_smoke
from gpudoctor.smoke.process import run_streaming

GPU_EVENT = 'print("@@gdsmoke " + json.dumps({"ev": "gpu", "index": 0, "name": "NVIDIA H200", "cc": "9.0"}), ' \
            'file=sys.stderr, flush=True)\n'


def start_event(test: str, gpu: int | None = 0) -> str:
    return f'print("@@gdsmoke " + json.dumps({{"ev": "start", "gpu": {gpu!r}, "test": "{test}"}}), ' \
           f'file=sys.stderr, flush=True)\n'


def done_event(test: str, status: str = "ok", **fields) -> str:
    payload = {"name": test, "status": status, **fields}
    return f'print("@@gdsmoke " + json.dumps({{"ev": "done", "gpu": 0, "test": {payload!r}}}), ' \
           f'file=sys.stderr, flush=True)\n'


def smoke(runner: str, timeout: float = 30.0):
    return run_smoke(RealHost(), None, SmokeOptions(allow_cpu=True, runner_script=runner, timeout_s=timeout))


def gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return True
    return "\nState:\tZ" in status.read_text()


def test_segfault_inside_a_test_is_crashed_with_the_last_stderr_lines(tmp_path):
    runner = write_runner(tmp_path, GPU_EVENT + done_event("gemm_fp32", max_rel_error=1e-7, tflops=50.0)
                          + start_event("gemm_bf16")
                          + 'print("cublasLt: about to run", file=sys.stderr, flush=True)\n'
                          + "os.kill(os.getpid(), signal.SIGSEGV)\n")
    report = smoke(runner)
    tests = {t.name: t for t in report.gpus[0].tests}
    assert tests["gemm_fp32"].status == "pass"
    assert tests["gemm_bf16"].status == "crashed" and "SIGSEGV" in tests["gemm_bf16"].detail
    crash = [f for f in report.findings if f.code == "GD703"]
    assert len(crash) == 1 and "gemm_bf16" in crash[0].title and crash[0].subject == "GPU 0"
    assert any("cublasLt: about to run" in e.value for e in crash[0].evidence)
    assert int(report.exit_code) == 1
    validate(report.to_json())


def test_hang_costs_only_the_timeout_and_kills_the_whole_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    runner = write_runner(tmp_path, GPU_EVENT + start_event("conv_fp16"), f"""
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        open({str(pidfile)!r}, "w").write(str(child.pid))
        time.sleep(120)
    """)
    start = time.monotonic()
    report = smoke(runner, timeout=3.0)
    elapsed = time.monotonic() - start
    assert elapsed < 10, f"took {elapsed:.1f} s"
    tests = {t.name: t for t in report.gpus[0].tests}
    assert tests["conv_fp16"].status == "timeout"
    assert [f.code for f in report.findings if f.severity.value == "error"] == ["GD704"]
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(child), "the runner's child survived the timeout"


def test_children_left_behind_by_a_finished_runner_are_killed(tmp_path):
    pidfile = tmp_path / "child.pid"
    runner = write_runner(tmp_path, f"""
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open({str(pidfile)!r}, "w").write(str(child.pid))
        print("not json")
    """)
    outcome = run_streaming([os.sys.executable, runner], timeout=20)
    assert outcome.status == "exited" and outcome.duration_s < 10
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(child)


def test_crash_before_any_test_is_attributed_to_startup(tmp_path):
    runner = write_runner(tmp_path, 'print("Fatal Python error: Aborted", file=sys.stderr, flush=True)\n'
                                    "os.abort()\n")
    report = smoke(runner)
    crash = [f for f in report.findings if f.code == "GD703"]
    assert len(crash) == 1 and crash[0].subject == "runner" and "while starting" in crash[0].title
    assert "SIGABRT" in crash[0].title
    validate(report.to_json())


def test_nonzero_exit_without_a_document_is_a_crash(tmp_path):
    runner = write_runner(tmp_path, 'print("Traceback: boom", file=sys.stderr)\nsys.exit(3)\n')
    report = smoke(runner)
    assert [f.code for f in report.findings if f.severity.value == "error"] == ["GD703"]
    assert "exited with status 3" in report.findings[-1].title or any(
        "status 3" in f.title for f in report.findings)


def test_garbage_on_stdout_is_reported_not_parsed(tmp_path):
    runner = write_runner(tmp_path, 'print("hello, not JSON")\nprint("noise", file=sys.stderr)\n')
    report = smoke(runner)
    errors = [f for f in report.findings if f.severity.value == "error"]
    assert [f.code for f in errors] == ["GD702"] and "no JSON" in errors[0].evidence[0].value
    assert int(report.exit_code) == 1


def test_events_and_stderr_tail_are_separated(tmp_path):
    runner = write_runner(tmp_path, GPU_EVENT + "".join(f'print("line {i}", file=sys.stderr)\n' for i in range(40)))
    seen = []
    outcome = run_streaming([os.sys.executable, runner], timeout=20, on_event=seen.append)
    assert [e["ev"] for e in seen] == ["gpu"] and outcome.events == tuple(seen)
    assert outcome.stderr_tail[-1] == "line 39" and len(outcome.stderr_tail) == 20
    assert not any(line.startswith("@@gdsmoke") for line in outcome.stderr_tail)


def test_missing_interpreter_is_not_started():
    outcome = run_streaming(["/nonexistent/python", "x.py"], timeout=5)
    assert outcome.status == "not-started" and "FileNotFoundError" in outcome.error
