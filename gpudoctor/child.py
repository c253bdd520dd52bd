"""Every child process gpudoctor starts, started and waited on in one place.

`run_child` runs an argv (never through a shell) in a process group of its
own, with a hard deadline: at the deadline, when a stream passes its cap, and
when gpudoctor itself is interrupted (Ctrl-C, SIGTERM: the exception is
re-raised once the group is stopped), the whole group goes, so a hung tool
takes everything it spawned along. The child also asks Linux to SIGTERM it
when gpudoctor dies however it dies, SIGKILL included. A child that cannot
start is a fact (`Ended.start_error`), never an exception.

What happens to the output is the caller's: each stream is read in its own
thread and handed, chunk by chunk, to a sink: `Capture` keeps the head (4 MB
by default), `Lines` hands over each line as it arrives. The callers are
host.run_command (probes, plan), smoke.process (the smoke runner) and
fleet.proc (srun and the per-node check).
"""

from __future__ import annotations

import codecs
import ctypes
import io
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Protocol
from gpudoctor.frozen import frozen

# What one command may print, per stream. The largest honest answer gpudoctor
# asks for (a target's sys.path, nvidia-smi for 8 GPUs, an import's error) is
# a few KB; a command that prints more is stopped, and its answer is not used.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
LINE_CHARS = 65536  # a longer line is handed over in pieces of this size
PIPE_CHUNK = 65536
AFTER_STOP_S = 2.0  # how long the pipes are read, and the child waited for, once it is stopped
PR_SET_PDEATHSIG = 1


def _prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None  # not Linux: the deadline still holds


# Looked up once, in gpudoctor's process: between fork and exec the child only calls it
# (no dlopen there, which could wait forever on a lock another thread held at the fork).
_PRCTL = _prctl() if sys.platform == "linux" else None


def die_with_parent() -> None:  # runs in the child, between fork and exec
    """Ask Linux to send the child SIGTERM when gpudoctor dies, however it dies
    (SIGKILL included): no target interpreter outlives the doctor."""
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGTERM)


CHILD_PREEXEC = die_with_parent if _PRCTL is not None else None


class Sink(Protocol):
    """Where one output stream goes."""

    def feed(self, data: bytes) -> bool:
        """Take the next chunk; False when the stream is over its cap and the child must be stopped."""
        ...

    def close(self) -> None:
        """The stream ended (or was cut off)."""
        ...


def decode(data: bytes) -> str:
    """As a text-mode pipe reads it: UTF-8, undecodable bytes replaced, universal newlines."""
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


class Capture:
    """Keeps the first `limit` bytes of a stream. Past them the child is
    stopped (`stop=True`: an answer that long is not one we asked for), or the
    rest is read and dropped (`stop=False`), so the child never blocks on a
    full pipe and memory stays bounded."""

    def __init__(self, limit: int = MAX_OUTPUT_BYTES, *, stop: bool = True) -> None:
        self.limit, self.stop = limit, stop
        self.parts: list[bytes] = []
        self.size = 0  # bytes the stream carried, kept or not

    @property
    def full(self) -> bool:
        return self.size > self.limit

    def feed(self, data: bytes) -> bool:
        keep = self.limit - self.size
        if keep > 0:
            self.parts.append(data[:keep])
        self.size += len(data)
        return not (self.stop and self.full)

    def close(self) -> None:
        pass

    def text(self) -> str:
        return decode(b"".join(self.parts))


class Lines:
    """Hands each line, without its newline, to `on_line` as it arrives (in
    the reading thread), decoded as a text-mode pipe would. A line longer
    than `max_line` characters comes in pieces of that size."""

    def __init__(self, on_line: Callable[[str], None], max_line: int = LINE_CHARS) -> None:
        self.on_line, self.max_line = on_line, max_line
        self._decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")(errors="replace"),
                                                     translate=True)
        self._pending: list[str] = []  # the line read so far, shorter than max_line
        self._pending_len = 0

    def feed(self, data: bytes) -> bool:
        self._take(self._decoder.decode(data))
        return True

    def close(self) -> None:
        self._take(self._decoder.decode(b"", final=True))
        if self._pending_len:
            self._hand("".join(self._pending))
        self._pending, self._pending_len = [], 0

    def _take(self, text: str) -> None:
        *ends, rest = text.split("\n")
        for piece in ends:
            self._hand("".join(self._pending) + piece)
            self._pending, self._pending_len = [], 0
        if rest:
            self._pending.append(rest)
            self._pending_len += len(rest)
        while self._pending_len >= self.max_line:
            line = "".join(self._pending)
            self.on_line(line[:self.max_line])
            self._pending, self._pending_len = [line[self.max_line:]], len(line) - self.max_line

    def _hand(self, line: str) -> None:
        for i in range(0, max(len(line), 1), self.max_line):
            self.on_line(line[i:i + self.max_line])


@frozen
class Ended:
    """How a child ended. `returncode` is None when it never started or when
    gpudoctor stopped it (deadline, output cap); negative: killed by a signal."""

    returncode: int | None
    timed_out: bool = False
    overflowed: bool = False  # a stream passed its cap and the child was stopped
    start_error: OSError | None = None  # why it could not start
    duration_s: float = 0.0

    @property
    def error(self) -> str | None:
        exc = self.start_error
        return None if exc is None else f"{type(exc).__name__}: {exc.strerror or exc}"


# Children running now, in any thread: a command run in a worker thread never
# sees the main thread's Ctrl-C, so the main thread kills these on its way out.
# _STARTING is held from Popen until the child is in _RUNNING: a child another
# thread has just started (and may not have registered yet, waiting for the GIL)
# is still found and killed.
_RUNNING: set[subprocess.Popen] = set()
_STARTING = threading.RLock()


def kill_running_commands() -> None:
    """Kill the process group of every child still running (for a thread
    that is interrupted while another one waits on a child)."""
    got = _STARTING.acquire(timeout=AFTER_STOP_S)  # a start stuck in exec must not hold up the exit
    try:
        running = list(_RUNNING)
    finally:
        if got:
            _STARTING.release()
    for proc in running:
        kill_group(proc)


def kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> bool:
    """Signal the child's process group (its id is the child's pid); False when it is gone."""
    try:
        os.killpg(proc.pid, sig)
        return True
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.send_signal(sig)
        except OSError:
            pass
        return False


def stop_group(proc: subprocess.Popen, grace_s: float) -> None:
    """SIGKILL the group; with a grace period, SIGTERM it first and give the
    child that long to exit (srun cancels its job step on SIGTERM)."""
    if grace_s > 0 and kill_group(proc, signal.SIGTERM):
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
    kill_group(proc)


def run_child(argv: Sequence[str], *, timeout: float, stdout: Sink, stderr: Sink,
              env: Mapping[str, str] | None = None, stdin: bytes | None = None,
              grace_s: float = 0.0, reap_group: bool = False) -> Ended:
    """Run argv until it and its pipes are done, or the deadline.

    reap_group: when the child exits, kill what it left in its group (an NCCL
    worker) and read its pipes for at most AFTER_STOP_S more. Without it the
    pipes are read until they close: a grandchild holding one open past the
    deadline counts as a timeout.
    """
    argv = [str(a) for a in argv]
    start = time.monotonic()
    with _STARTING:
        try:
            # No timeout argument here: `deadline` below bounds the whole run, and
            # stop_group kills the child's group when it passes.
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                start_new_session=True,
                preexec_fn=CHILD_PREEXEC,
            )
        except OSError as exc:
            return Ended(None, start_error=exc)
        _RUNNING.add(proc)
    full = threading.Event()
    assert proc.stdout is not None and proc.stderr is not None
    readers = [_Reader(proc.stdout, stdout, full), _Reader(proc.stderr, stderr, full)]
    threads: list[_PipeThread] = list(readers)
    if stdin is not None:
        assert proc.stdin is not None
        threads.append(_Feeder(proc.stdin, stdin))
    deadline = start + timeout
    try:
        for t in threads:
            t.start()
        timed_out = _wait(proc, readers, deadline, full, reap_group)
        stopped = timed_out or full.is_set()
        if stopped:
            stop_group(proc, grace_s)
        elif reap_group:
            kill_group(proc)  # the child is done: whatever it left in its group goes too
        if stopped or reap_group:
            until = time.monotonic() + AFTER_STOP_S
            for r in readers:
                r.done.wait(max(0.0, until - time.monotonic()))
        if not all(r.done.is_set() for r in readers) and not reap_group:  # a pipe held open past the deadline
            timed_out = not full.is_set()
            kill_group(proc)
    except BaseException:
        stop_group(proc, grace_s)  # Ctrl-C or SIGTERM: the child must not outlive gpudoctor
        raise
    finally:
        _RUNNING.discard(proc)
        _reap(proc, threads)
    duration = time.monotonic() - start
    if full.is_set() or timed_out:
        return Ended(None, timed_out=timed_out and not full.is_set(), overflowed=full.is_set(),
                     duration_s=duration)
    return Ended(proc.returncode, duration_s=duration)


def _wait(proc: subprocess.Popen, readers: list[_Reader], deadline: float, full: threading.Event,
          reap_group: bool) -> bool:
    """Wait for the child (and, without reap_group, its pipes); True at the deadline."""
    while not full.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        if reap_group and proc.poll() is not None:
            return False
        # Wait on the pipes first: a reader wakes us the moment the child
        # closes them (it exits), where Popen.wait(timeout) polls with sleeps
        # of up to 50 ms. Short slices keep Ctrl-C and the deadline prompt.
        reader = next((r for r in readers if not r.done.is_set()), None)
        if reader is not None:
            reader.done.wait(min(left, 0.25))
            continue
        try:
            proc.wait(timeout=min(left, 0.05))  # the pipes are closed: the child is exiting
            return False
        except subprocess.TimeoutExpired:
            continue
    return False


class _PipeThread(threading.Thread):
    """A thread that owns one pipe; `done` is set when it no longer uses it.
    (Not is_alive(): on Python 3.11 a join interrupted by a signal handler's
    exception can mark a running thread as stopped.)"""

    def __init__(self, pipe: IO[bytes]) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.done = threading.Event()


class _Reader(_PipeThread):
    """Reads one pipe to its end into its sink; sets `full` (and stops
    reading) when the sink says the stream passed its cap."""

    def __init__(self, pipe: IO[bytes], sink: Sink, full: threading.Event) -> None:
        super().__init__(pipe)
        self.sink, self.full = sink, full

    def run(self) -> None:
        try:
            while True:
                data = self.pipe.read1(PIPE_CHUNK)  # type: ignore[attr-defined]
                if not data:
                    return
                if not self.sink.feed(data):
                    self.full.set()
                    return
        except (OSError, ValueError):
            return
        finally:
            self.done.set()
            self.sink.close()


class _Feeder(_PipeThread):
    """Writes the child's stdin and closes it."""

    def __init__(self, pipe: IO[bytes], data: bytes) -> None:
        super().__init__(pipe)
        self.data = data

    def run(self) -> None:
        try:
            self.pipe.write(self.data)
        except (BrokenPipeError, OSError, ValueError):
            pass  # the child stopped reading: its exit status tells the rest
        finally:
            try:
                self.pipe.close()
            except OSError:
                pass
            self.done.set()


def _reap(proc: subprocess.Popen, threads: list[_PipeThread]) -> None:
    for t in threads:
        # A pipe still in use is left to its daemon thread: closing a buffered
        # pipe waits for the thread's read or write to return, which a process
        # that escaped the group could hold off for ever.
        if t.done.is_set():
            try:
                t.pipe.close()
            except OSError:
                pass
    try:  # a process stuck in the kernel (D state) may never be reaped: do not wait for it
        proc.wait(timeout=AFTER_STOP_S)
    except subprocess.TimeoutExpired:
        pass
