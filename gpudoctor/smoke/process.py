"""Run the smoke runner: own process group, hard deadline, stderr read live.

gpudoctor.child runs it, as it runs every command, with two things the runner
needs: the stderr lines are handed over as they arrive (progress events, and
the last lines of a process that segfaults or hangs), and the whole process
group is killed at the end even when the runner exited normally, so no spawned
NCCL worker outlives it. Argv only, never a shell.
"""

from __future__ import annotations

import collections
import json
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpudoctor.child import MAX_OUTPUT_BYTES, Capture, Lines, run_child

EVENT_PREFIX = "@@gdsmoke "  # runner/gdsmoke_common.py has its own copy (pinned by tests/smoke/test_runner_constants.py)
TAIL_LINES = 20


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


def signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run_streaming(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                  on_event: Callable[[dict], None] | None = None) -> ProcessOutcome:
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    events: list[dict] = []

    def on_stderr(line: str) -> None:
        event = parse_event(line)
        if event is None:
            if line.strip():
                tail.append(line)
            return
        if len(events) >= MAX_EVENTS:
            return  # a runner that floods events: keep the first ones, go on draining
        events.append(event)
        if on_event is not None:
            try:
                on_event(event)
            except Exception:  # noqa: BLE001 - a display problem must not stop the run
                pass

    # The document the runner prints last: keep the head, drain the rest (memory stays bounded).
    out = Capture(MAX_OUTPUT_BYTES, stop=False)
    ended = run_child(argv, timeout=timeout, stdout=out, stderr=Lines(on_stderr), env=env, reap_group=True)
    if ended.start_error is not None:
        return ProcessOutcome("not-started", error=ended.error)
    rc = ended.returncode
    sig = signal_name(rc)
    status = "timeout" if ended.timed_out else ("crashed" if sig or rc != 0 else "exited")
    return ProcessOutcome(status, rc, sig, out.text(), tuple(tail), tuple(events), ended.duration_s)
