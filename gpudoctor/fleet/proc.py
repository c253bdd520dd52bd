"""Child processes for the fleet commands: argv only, a hard deadline, and a
child that dies with its parent (gpudoctor.child runs them).

`srun` and the per-node check can run for minutes, so at the deadline the
process group gets SIGTERM and GRACE_S to go before SIGKILL: srun's SIGTERM
cancels the job step on every node. The child also asks the kernel to send it
SIGTERM when gpudoctor dies (Linux PR_SET_PDEATHSIG): a killed `fleet collect`
leaves no srun behind.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpudoctor.child import Lines, run_child

GRACE_S = 5.0  # between SIGTERM and SIGKILL at the deadline: srun needs a moment to cancel the step
# srun --label lines are short (an envelope travels in 900-character parts) and
# the per-node check prints indented JSON; a longer line is handed over in pieces.
MAX_LINE_CHARS = 1024 * 1024


@dataclass(frozen=True)
class Finished:
    """How a fleet child process ended: exit status, stderr, and whether the deadline killed it."""

    returncode: int | None  # None: killed at the deadline, or never started
    stderr: str
    timed_out: bool
    seconds: float
    error: str | None = None  # why it could not start


def run_streaming(argv: Sequence[str], timeout: float, on_line: Callable[[str], None],
                  stderr_limit: int = 256 * 1024, env: dict[str, str] | None = None) -> Finished:
    """Run argv; hand each stdout line to on_line as it arrives (so what came
    before a timeout is kept); keep the last `stderr_limit` characters of stderr."""
    err: collections.deque[str] = collections.deque()
    size = 0

    def keep_err(line: str) -> None:
        nonlocal size
        err.append(line + "\n")
        size += len(line) + 1
        while size > stderr_limit and len(err) > 1:
            size -= len(err.popleft())

    ended = run_child(argv, timeout=timeout, stdout=Lines(on_line, MAX_LINE_CHARS),
                      stderr=Lines(keep_err, MAX_LINE_CHARS), env=env, grace_s=GRACE_S, reap_group=True)
    if ended.start_error is not None:
        exc = ended.start_error
        return Finished(None, "", False, 0.0, f"{argv[0]}: {exc.strerror or exc}")
    return Finished(ended.returncode, "".join(err), ended.timed_out, ended.duration_s)
