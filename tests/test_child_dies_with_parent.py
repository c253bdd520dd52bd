"""Every child gpudoctor starts dies with it, even when gpudoctor is killed
with SIGKILL (no chance to clean up): Linux's parent-death signal."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie waiting for its reaper is dead too
        return fh.read().split(") ")[-1][0] != "Z"


@pytest.mark.parametrize("runner", ["host", "fleet"])
def test_sigkilled_gpudoctor_takes_its_child_along(tmp_path, runner):
    pidfile = tmp_path / "child.pid"
    child = ["sh", "-c", f"echo $$ > {pidfile}; exec sleep 60"]
    call = {"host": f"from gpudoctor.host import run_command; run_command({child!r}, timeout=120)",
            "fleet": f"from gpudoctor.fleet.proc import run_streaming; run_streaming({child!r}, 120, print)"}[runner]
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(call)])
    try:
        deadline = time.monotonic() + 20
        while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        assert _alive(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the child outlived a SIGKILLed gpudoctor"
    finally:
        parent.kill()
