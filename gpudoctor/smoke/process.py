"""Run the smoke runner: own process group, hard deadline, stderr read live.

This is `gpudoctor.host.run_command` plus two things the runner needs: the
stderr lines are handed over as they arrive (progress events, and the last
lines of a process that segfaults or hangs), and the whole process group is
killed at the end even when the runner exited normally, so no spawned NCCL
worker outlives it. Argv only, never a shell.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpudoctor.host import CHILD_PREEXEC

EVENT_PREFIX = "@@gdsmoke "  # runner/gdsmoke_common.py has its own copy (pinned by tests/smoke/test_runner_constants.py)
TAIL_LINES = 20
READER_JOIN_S = 2.0


@dataclass(frozen=True)
class ProcessOutcome:
    """How the runner process ended. `status`: exited | crashed | timeout | not-started."""

    status: str
    returncode: int | None = None
    signal: str | None = None
    stdout: str = ""
    stderr_tail: tuple[str, ...] = ()
    events: tuple[dict[str, Any], ...] = ()  # the runner's progress events, in order
    duration_s: float = 0.0
    error: str | None = None  # why it could not start

    def describe(self) -> str:
        """How it ended, as a predicate: 'the runner ' + describe()."""
        if self.status == "timeout":
            return f"was killed at its {self.duration_s:.0f} s timeout"
        if self.signal:
            return f"was killed by {self.signal}"
        if self.status == "not-started":
            return f"could not start: {self.error}"
        return f"exited with status {self.returncode}"


def parse_event(line: str) -> dict | None:
    if not line.startswith(EVENT_PREFIX):
        return None
    try:
        event = json.loads(line[len(EVENT_PREFIX):])
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


MAX_EVENTS = 10_000  # a full run on 8 GPUs sends a few hundred
MAX_STDOUT_CHARS = 4 * 1024 * 1024


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run_streaming(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                  on_event: Callable[[dict], None] | None = None) -> ProcessOutcome:
    argv = [str(a) for a in argv]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", env=dict(env) if env is not None else None,
                                start_new_session=True, preexec_fn=CHILD_PREEXEC)
    except OSError as exc:
        return ProcessOutcome("not-started", error=f"{type(exc).__name__}: {exc.strerror or exc}")
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    events: list[dict] = []
    out_parts: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in iter(lambda: proc.stderr.readline(65536), ""):  # type: ignore[union-attr] - bounded lines
            line = raw.rstrip("\n")
            event = parse_event(line)
            if event is None:
                if line.strip():
                    tail.append(line)
                continue
            if len(events) >= MAX_EVENTS:
                continue  # a runner that floods events: keep the first ones, go on draining
            events.append(event)
            if on_event is not None:
                try:
                    on_event(event)
                except Exception:  # noqa: BLE001 - a display problem must not stop the run
                    pass

    def read_stdout() -> None:
        assert proc.stdout is not None
        kept = 0
        for chunk in iter(lambda: proc.stdout.read(65536), ""):  # type: ignore[union-attr]
            if kept < MAX_STDOUT_CHARS:  # drain the rest, keep the head: memory stays bounded
                out_parts.append(chunk[: MAX_STDOUT_CHARS - kept])
                kept += len(out_parts[-1])

    readers = [threading.Thread(target=read_stderr, daemon=True), threading.Thread(target=read_stdout, daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc.pid)  # the group id is the runner's pid (start_new_session)
        if timed_out:
            try:  # a process stuck in the driver (D state) may never be reaped: do not wait for it
                proc.wait(timeout=READER_JOIN_S)
            except subprocess.TimeoutExpired:
                pass
    for t in readers:
        t.join(READER_JOIN_S)
    duration = time.monotonic() - start
    rc = None if timed_out else proc.returncode
    sig = signal_name(rc)
    status = "timeout" if timed_out else ("crashed" if sig or rc != 0 else "exited")
    return ProcessOutcome(status, rc, sig, "".join(out_parts), tuple(tail), tuple(events), duration)
