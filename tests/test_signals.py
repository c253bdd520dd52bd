"""Ctrl-C and SIGTERM: gpudoctor kills the child it is waiting for (its whole
process group) and exits 130 / 143. Real processes, real signals."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from cli_helpers import module_argv

HANGING_PYTHON = """#!/bin/sh
# A target interpreter that never answers: it records its pid, then waits in a child of its own.
echo $$ > "{pidfile}"
sleep 600 &
echo $! >> "{pidfile}"
wait
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose (its parent reaps it)
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return False


def _wait_for(path, seconds: float = 20.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            pids = [int(x) for x in path.read_text().split()]
            if len(pids) == 2:
                return pids
        time.sleep(0.05)
    raise AssertionError("the child never started")


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("argv", [["check", "--python", "{py}"], ["plan", "llama3-8b", "--exact", "--python", "{py}"]],
                         ids=["check", "plan-exact"])
def test_a_signal_kills_the_child_group_and_sets_the_exit_code(tmp_path, sig, code, argv):
    pidfile = tmp_path / "pids"
    py = tmp_path / "python"
    py.write_text(HANGING_PYTHON.format(pidfile=pidfile))
    py.chmod(0o755)
    args = [a.replace("{py}", str(py)) for a in argv]
    proc = subprocess.Popen(module_argv(*args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        children = _wait_for(pidfile)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in children if _alive(p)], "a child outlived gpudoctor"
