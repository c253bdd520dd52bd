"""gpudoctor.child, the one runner behind host.run_command, the smoke runner
and the fleet commands: real processes, real signals, real pipes."""

from __future__ import annotations

import signal
import sys
import threading
import time

import pytest

from gpudoctor import child
from gpudoctor.child import Capture, Lines, run_child
from gpudoctor.fleet.proc import run_streaming as fleet_run
from gpudoctor.host import run_command
from gpudoctor.smoke.process import run_streaming as smoke_run

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups and /proc are Linux's here")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:  # a zombie waiting for its reaper is dead too
            return fh.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


def _gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def _pid(path, seconds: float = 10.0) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.02)
    raise AssertionError("the grandchild never wrote its pid")


def _run(argv, **kw):
    out, err = Capture(), Capture()
    return run_child(argv, stdout=out, stderr=err, **kw), out, err


# --- the deadline ---------------------------------------------------------------------

@pytest.mark.parametrize("reap_group", [False, True], ids=["wait-for-pipes", "reap-group"])
def test_the_deadline_kills_the_whole_group(tmp_path, reap_group):
    pidfile = tmp_path / "grandchild"
    start = time.monotonic()
    ended, _, _ = _run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=0.5, reap_group=reap_group)
    assert ended.timed_out and ended.returncode is None and not ended.overflowed
    assert time.monotonic() - start < 5
    assert _gone(_pid(pidfile)), "a grandchild outlived the deadline"


def test_a_grace_period_sends_sigterm_first(tmp_path):
    script = "trap 'echo got-term; exit 0' TERM; sleep 60 & wait"
    graceful, out, _ = _run(["sh", "-c", script], timeout=0.5, grace_s=3.0)
    assert graceful.timed_out and "got-term" in out.text()
    at_once, out, _ = _run(["sh", "-c", script], timeout=0.5)
    assert at_once.timed_out and "got-term" not in out.text()


def test_a_grandchild_holding_the_pipe_open(tmp_path):
    # The child exits at once, its grandchild keeps stdout open. host waits for
    # the pipes (until the deadline: a timeout); smoke and fleet reap the group
    # when the child exits.
    pidfile = tmp_path / "grandchild"
    argv = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; echo started; exit 0"]
    start = time.monotonic()
    reaped, out, _ = _run(argv, timeout=30, reap_group=True)
    assert reaped.returncode == 0 and not reaped.timed_out and out.text() == "started\n"
    assert time.monotonic() - start < 5 and _gone(_pid(pidfile))
    pidfile.unlink()
    waited, out, _ = _run(argv, timeout=1.0)
    assert waited.timed_out and waited.returncode is None and out.text() == "started\n"
    assert _gone(_pid(pidfile))


# --- output caps ----------------------------------------------------------------------

def test_a_stream_over_its_cap_stops_the_child():
    start = time.monotonic()
    out = Capture(100_000)
    ended = run_child(["sh", "-c", "yes gpu"], timeout=20, stdout=out, stderr=Capture())
    assert ended.overflowed and not ended.timed_out and ended.returncode is None
    assert len(b"".join(out.parts)) == 100_000 and out.full
    assert time.monotonic() - start < 10


def test_a_draining_capture_keeps_the_head_and_lets_the_child_finish():
    out = Capture(1000, stop=False)
    code = "import sys; sys.stdout.write('x' * 300000); sys.exit(3)"
    ended = run_child([sys.executable, "-c", code], timeout=20, stdout=out, stderr=Capture())
    assert ended.returncode == 3 and not ended.overflowed
    assert out.text() == "x" * 1000 and out.size == 300_000


def test_the_default_cap_is_4_mb_per_stream():
    assert child.MAX_OUTPUT_BYTES == 4 * 1024 * 1024 == Capture().limit


def test_lines_are_decoded_like_a_text_pipe_and_bounded():
    got: list[str] = []
    lines = Lines(got.append, max_line=10)
    for chunk in (b"a\r", b"\nb\rc\n", "é".encode()[:1], "é".encode()[1:] + b"\n\xff\n", b"x" * 25):
        assert lines.feed(chunk)
    lines.close()
    assert got == ["a", "b", "c", "é", "\ufffd", "x" * 10, "x" * 10, "x" * 5]


def test_lines_arrive_while_the_child_runs():
    seen: list[tuple[str, float]] = []
    start = time.monotonic()
    code = "import sys, time; print('first', flush=True); time.sleep(1.5); print('second')"
    ended = run_child([sys.executable, "-c", code], timeout=20,
                      stdout=Lines(lambda line: seen.append((line, time.monotonic() - start))), stderr=Capture())
    assert ended.returncode == 0 and [line for line, _ in seen] == ["first", "second"]
    assert seen[0][1] < seen[1][1] - 1.0  # handed over before the child finished


def test_stdin_is_fed_and_closed():
    ended, out, _ = _run(["cat"], timeout=20, stdin=b"hello\nworld")
    assert ended.returncode == 0 and out.text() == "hello\nworld"


# --- a child that cannot start is a fact ---------------------------------------------

def test_a_missing_executable_is_a_fact_not_an_exception(tmp_path):
    ended, _, _ = _run([str(tmp_path / "no-such-tool"), "--version"], timeout=5)
    assert ended.returncode is None and isinstance(ended.start_error, FileNotFoundError)
    assert ended.error is not None and ended.error.startswith("FileNotFoundError: ")
    # Each caller keeps the words it recorded before.
    assert run_command([str(tmp_path / "no-such-tool")], timeout=5).error == "not found"
    smoke = smoke_run([str(tmp_path / "no-such-tool")], timeout=5)
    assert smoke.status == "not-started" and smoke.error.startswith("FileNotFoundError")
    fleet = fleet_run([str(tmp_path / "no-such-tool")], 5, print)
    assert fleet.returncode is None and fleet.error == f"{tmp_path / 'no-such-tool'}: No such file or directory"


def test_a_file_that_is_not_executable_is_a_fact(tmp_path):
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o644)
    ended, _, _ = _run([str(tool)], timeout=5)
    assert isinstance(ended.start_error, PermissionError) and ended.error.startswith("PermissionError: ")
    assert run_command([str(tool)], timeout=5).error.startswith("PermissionError: ")


# --- interrupts -----------------------------------------------------------------------

class _Interrupted(Exception):
    pass


def test_an_interrupt_kills_the_group_and_is_re_raised(tmp_path):
    pidfile = tmp_path / "grandchild"

    def on_alarm(signum, frame):
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, on_alarm)
    start = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(_Interrupted):
            _run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < 5, "the interrupt waited for the child"
    assert _gone(_pid(pidfile), 1.0), "the grandchild outlived the interrupt"
    assert not child._RUNNING


def test_a_child_waited_on_in_another_thread_is_killed_on_the_way_out():
    result: list = []
    worker = threading.Thread(target=lambda: result.append(_run(["sleep", "60"], timeout=60)[0]))
    worker.start()
    deadline = time.monotonic() + 10
    while not child._RUNNING and time.monotonic() < deadline:
        time.sleep(0.02)
    child.kill_running_commands()
    worker.join(10)
    assert not worker.is_alive() and result[0].returncode == -signal.SIGKILL


def test_a_child_started_but_not_yet_registered_is_still_killed(monkeypatch):
    # The race behind a flaky SIGTERM test: a worker thread's Popen has
    # returned, but the thread has not yet run the line that registers the
    # child (it waits for the GIL) when the main thread kills what runs.
    started, release = threading.Event(), threading.Event()
    real_popen = child.subprocess.Popen

    def slow_popen(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        started.set()
        release.wait(10)  # the registering thread is held up here
        return proc

    monkeypatch.setattr(child.subprocess, "Popen", slow_popen)
    result: list = []
    worker = threading.Thread(target=lambda: result.append(_run(["sleep", "60"], timeout=60)[0]))
    worker.start()
    assert started.wait(10)
    killer = threading.Thread(target=child.kill_running_commands)
    killer.start()
    time.sleep(0.2)
    release.set()
    killer.join(10)
    worker.join(10)
    assert not worker.is_alive() and result[0].returncode == -signal.SIGKILL
