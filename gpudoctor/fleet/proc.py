"""Child processes for the fleet commands: argv only, a hard deadline, and a
child that dies with its parent.

`srun` and the per-node check can run for minutes, so besides the deadline
(the whole process group is killed, like host.run_command) the child asks the
kernel to send it SIGTERM when gpudoctor dies (Linux PR_SET_PDEATHSIG): a
killed `fleet collect` leaves no srun behind, and srun's SIGTERM cancels the
job step on every node.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

PR_SET_PDEATHSIG = 1
GRACE_S = 5.0  # between SIGTERM and SIGKILL at the deadline: srun needs a moment to cancel the step


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the deadline still holds


@dataclass(frozen=True)
class Finished:
    returncode: int | None  # None: killed at the deadline, or never started
    stderr: str
    timed_out: bool
    seconds: float
    error: str | None = None  # why it could not start


def run_streaming(argv: Sequence[str], timeout: float, on_line: Callable[[str], None],
                  stderr_limit: int = 256 * 1024, env: dict[str, str] | None = None) -> Finished:
    """Run argv; hand each stdout line to on_line as it arrives (so what came
    before a timeout is kept); keep the last `stderr_limit` characters of stderr."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", env=env,
                                start_new_session=True,
                                preexec_fn=_die_with_parent if sys.platform == "linux" else None)
    except OSError as exc:
        return Finished(None, "", False, 0.0, f"{argv[0]}: {exc.strerror or exc}")
    err: list[str] = []

    def read_err() -> None:
        size = 0
        for line in proc.stderr:  # type: ignore[union-attr]
            err.append(line)
            size += len(line)
            while size > stderr_limit and len(err) > 1:
                size -= len(err.pop(0))

    def read_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            on_line(line.rstrip("\n"))

    readers = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        stop_group(proc)
    except BaseException:  # Ctrl-C or SIGTERM of gpudoctor itself: take the children along
        stop_group(proc)
        raise
    for t in readers:
        t.join(timeout=2.0)
    return Finished(None if timed_out else proc.returncode, "".join(err), timed_out, time.monotonic() - start)


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, SIGKILL it after a grace period."""
    for sig, wait in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError, OSError):
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
