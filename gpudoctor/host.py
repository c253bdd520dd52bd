"""The only door to the machine.

Probes never touch the OS directly: they ask a `Host`. `RealHost` runs commands
(argv lists only, always with a timeout, the whole process group killed on
timeout), reads files and the environment. Tests use `tests.fakes.FakeHost`,
which answers only what a scenario scripted.
"""

from __future__ import annotations

import ctypes
import glob as _glob
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

# A read of a file we only need the head of (version files, /proc entries).
DEFAULT_READ_LIMIT = 1 << 20
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


# For every Popen gpudoctor makes (host, smoke runner, fleet collect).
CHILD_PREEXEC = die_with_parent if _PRCTL is not None else None


@dataclass(frozen=True)
class CommandResult:
    """What running one argv gave. `error` is set when it could not run at all."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.error is None

    def describe(self) -> str:
        """One line saying how the command ended, for a fact's `tried` list."""
        cmd = " ".join(self.argv)
        if self.error:
            return f"{cmd}: {self.error}"
        if self.timed_out:
            return f"{cmd}: timed out after {self.duration_s:.1f} s"
        if self.returncode != 0:
            tail = (self.stderr or self.stdout).strip().splitlines()[-1:] or [""]
            return f"{cmd}: exit {self.returncode} {tail[0]}".rstrip()
        return f"{cmd}: ok"


class NvmlError(Exception):
    """An NVML call failed; `name` is NVML's error name without the prefix
    (for example "LibraryNotFound", "DriverNotLoaded", "LibRmVersionMismatch",
    "NotSupported")."""

    def __init__(self, name: str, message: str = "") -> None:
        super().__init__(message or name)
        self.name = name


class NvmlPort(Protocol):
    """Our own narrow view of NVML, so fakes are keyed by our API, not pynvml's."""

    def init(self) -> None: ...

    def shutdown(self) -> None: ...

    def call(self, name: str, *args: Any) -> Any:
        """Call pynvml function `name` (e.g. "nvmlDeviceGetCount"); raise NvmlError."""
        ...


class Host(Protocol):
    def run(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            stdin: str | None = None) -> CommandResult: ...

    def read_text(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> str | None: ...

    def read_bytes(self, path: str, offset: int = 0, size: int = -1) -> bytes | None: ...

    def open_binary(self, path: str) -> BinaryIO | None:
        """An open, seekable binary file, or None; for walking large binaries
        (a 1 GB CUDA library) by seeks without reading them whole."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def listdir(self, path: str) -> list[str]: ...

    def glob(self, pattern: str) -> list[str]: ...

    def realpath(self, path: str) -> str: ...

    def file_size(self, path: str) -> int | None: ...

    def env(self) -> Mapping[str, str]: ...

    def which(self, name: str) -> str | None: ...

    def nvml(self) -> NvmlPort: ...

    @property
    def python(self) -> str:
        """The interpreter gpudoctor itself runs on."""
        ...


# What one command may print, per stream. The largest honest answer gpudoctor
# asks for (a target's sys.path, nvidia-smi for 8 GPUs, an import's error) is
# a few KB; a command that prints more is stopped, and its answer is not used.
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
_PIPE_CHUNK = 65536


# Commands running now, in any thread: a command run in a worker thread never
# sees the main thread's Ctrl-C, so the main thread kills these on its way out.
_RUNNING: set[subprocess.Popen] = set()


def kill_running_commands() -> None:
    """Kill the process group of every command still running (for a thread
    that is interrupted while another one waits on a command)."""
    for proc in list(_RUNNING):
        _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


class _Drain(threading.Thread):
    """Reads one pipe to its end, keeping at most `limit` bytes; sets `full`
    (and stops reading) when the command printed more."""

    def __init__(self, pipe: BinaryIO, limit: int, full: threading.Event) -> None:
        super().__init__(daemon=True)
        self.pipe, self.limit, self.full = pipe, limit, full
        self.parts: list[bytes] = []
        self.size = 0

    def run(self) -> None:
        try:
            while True:
                data = self.pipe.read1(_PIPE_CHUNK)  # type: ignore[attr-defined]
                if not data:
                    return
                self.parts.append(data[: max(0, self.limit - self.size)])
                self.size += len(data)
                if self.size > self.limit:
                    self.full.set()
                    return
        except (OSError, ValueError):
            return

    def text(self) -> str:
        # As text=True would have it: universal newlines, undecodable bytes replaced.
        text = b"".join(self.parts).decode("utf-8", errors="replace")
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _feed(pipe: BinaryIO, data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the child stopped reading: its exit status tells the rest
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def run_command(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                stdin: str | None = None, max_output: int = MAX_OUTPUT_BYTES) -> CommandResult:
    """Run argv (never through a shell) with a hard timeout and capped output.

    The child gets its own process group, so a hung tool and everything it
    spawned is killed at once: at the deadline, when it prints more than
    `max_output` bytes on a stream, and when gpudoctor itself is interrupted
    (Ctrl-C, SIGTERM: the exception is re-raised once the group is dead).
    Output read so far is kept.
    """
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            start_new_session=True,
            preexec_fn=CHILD_PREEXEC,
        )
    except FileNotFoundError:
        return CommandResult(argv, None, error="not found")
    except OSError as exc:
        return CommandResult(argv, None, error=f"{type(exc).__name__}: {exc.strerror or exc}")
    _RUNNING.add(proc)
    full = threading.Event()
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Drain(proc.stdout, max_output, full), _Drain(proc.stderr, max_output, full)
    threads: list[threading.Thread] = [out, err]
    if stdin is not None:
        assert proc.stdin is not None
        threads.append(threading.Thread(target=_feed, args=(proc.stdin, stdin.encode()), daemon=True))
    deadline = start + timeout
    timed_out = False
    try:
        for t in threads:
            t.start()
        while not full.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            # Wait on the pipes first: a thread join wakes the moment the child
            # closes them (it exits), where Popen.wait(timeout) polls with sleeps
            # of up to 50 ms. Short slices keep Ctrl-C and the deadline prompt.
            drain = next((t for t in (out, err) if t.is_alive()), None)
            if drain is not None:
                drain.join(min(left, 0.25))
                continue
            try:
                proc.wait(timeout=min(left, 0.05))  # the pipes are closed: the child is exiting
                break
            except subprocess.TimeoutExpired:
                continue
        if timed_out or full.is_set():
            _kill_group(proc)
        for t in (out, err):
            t.join(max(0.1, deadline - time.monotonic()) if not (timed_out or full.is_set()) else 2)
        if out.is_alive() or err.is_alive():  # a grandchild holds the pipe open past the deadline
            timed_out = not full.is_set()
            _kill_group(proc)
    except BaseException:
        _kill_group(proc)  # Ctrl-C or SIGTERM: the child must not outlive gpudoctor
        raise
    finally:
        _RUNNING.discard(proc)
        _reap(proc)
    duration = time.monotonic() - start
    if full.is_set():
        return CommandResult(argv, None, out.text(), err.text(), duration_s=duration,
                             error=f"printed more than {max_output // (1024 * 1024)} MB; stopped")
    if timed_out:
        return CommandResult(argv, None, out.text(), err.text(), timed_out=True, duration_s=duration)
    return CommandResult(argv, proc.returncode, out.text(), err.text(), duration_s=duration)


def _reap(proc: subprocess.Popen) -> None:
    for pipe in (proc.stdout, proc.stderr, proc.stdin):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass
    try:  # a process stuck in the kernel (D state) may never be reaped: do not wait for it
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass


class RealNvml:
    """NvmlPort over pynvml, imported lazily (it costs ~40 ms and may be absent)."""

    def __init__(self) -> None:
        self._mod: Any = None

    def _pynvml(self) -> Any:
        if self._mod is None:
            try:
                import pynvml  # noqa: PLC0415 - only this module may import pynvml
            except ImportError as exc:  # pragma: no cover - it is a dependency
                raise NvmlError("ModuleNotFound", str(exc)) from exc
            self._mod = pynvml
        return self._mod

    def _translate(self, exc: Exception) -> NvmlError:
        # pynvml raises subclasses named like NVMLError_DriverNotLoaded.
        cls = type(exc).__name__
        name = cls.split("NVMLError_", 1)[1] if cls.startswith("NVMLError_") else cls
        return NvmlError(name, str(exc))

    def init(self) -> None:
        mod = self._pynvml()
        try:
            mod.nvmlInit()
        except mod.NVMLError as exc:
            raise self._translate(exc) from exc

    def shutdown(self) -> None:
        mod = self._pynvml()
        try:
            mod.nvmlShutdown()
        except mod.NVMLError:
            pass

    def call(self, name: str, *args: Any) -> Any:
        mod = self._pynvml()
        fn = getattr(mod, name, None)
        if fn is None:
            raise NvmlError("FunctionNotFound", f"pynvml has no {name}")
        try:
            value = fn(*args)
        except mod.NVMLError as exc:
            raise self._translate(exc) from exc
        # Older nvidia-ml-py returned bytes; current versions return str.
        return value.decode(errors="replace") if isinstance(value, bytes) else value


@dataclass
class RealHost:
    """The machine gpudoctor runs on."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    _nvml: RealNvml = field(default_factory=RealNvml)

    def run(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            stdin: str | None = None) -> CommandResult:
        return run_command(argv, timeout=timeout, env=env, stdin=stdin)

    def read_text(self, path: str, limit: int = DEFAULT_READ_LIMIT) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                return fh.read(limit)
        except OSError:
            return None

    def read_bytes(self, path: str, offset: int = 0, size: int = -1) -> bytes | None:
        try:
            with open(path, "rb") as fh:
                fh.seek(offset)
                return fh.read(size)
        except OSError:
            return None

    def open_binary(self, path: str) -> BinaryIO | None:
        try:
            return open(path, "rb")  # noqa: SIM115 - the caller closes it
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(os.listdir(path))
        except OSError:
            return []

    def glob(self, pattern: str) -> list[str]:
        return sorted(_glob.glob(pattern))

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def file_size(self, path: str) -> int | None:
        try:
            return os.path.getsize(path)
        except OSError:
            return None

    def env(self) -> Mapping[str, str]:
        return self.environ

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.environ.get("PATH"))

    def nvml(self) -> NvmlPort:
        return self._nvml

    @property
    def python(self) -> str:
        return sys.executable
