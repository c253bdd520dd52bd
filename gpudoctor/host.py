"""The only door to the machine.

Probes never touch the OS directly: they ask a `Host`. `RealHost` runs commands
(argv lists only, always with a timeout, the whole process group killed on
timeout; gpudoctor.child starts them), reads files and the environment. Tests
use `tests.fakes.FakeHost`, which answers only what a scenario scripted.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, BinaryIO, Protocol

from gpudoctor.child import MAX_OUTPUT_BYTES, Capture, kill_running_commands, run_child
from gpudoctor.frozen import frozen, mutable

# A read of a file we only need the head of (version files, /proc entries).
DEFAULT_READ_LIMIT = 1 << 20


@frozen
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

    def start(self, argv: Sequence[str], *, timeout: float) -> None:
        """Begin run(argv) now, in the background, for a probe that will ask for
        it later; a host may also do nothing here."""
        ...

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

    def file_stamp(self, path: str) -> tuple[int, int] | None:
        """(size, mtime in ns) of a file on the machine itself, for results kept
        in gpudoctor.filecache; None where the host cannot say: nothing is cached."""
        ...

    def env(self) -> Mapping[str, str]: ...

    def which(self, name: str) -> str | None: ...

    def nvml(self) -> NvmlPort: ...

    @property
    def python(self) -> str:
        """The interpreter gpudoctor itself runs on."""
        ...


def run_command(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
                stdin: str | None = None, max_output: int = MAX_OUTPUT_BYTES) -> CommandResult:
    """Run argv (never through a shell) with a hard timeout and capped output
    (gpudoctor.child: its own process group, killed at the deadline, when it
    prints more than `max_output` bytes on a stream, and when gpudoctor is
    interrupted). Output read so far is kept."""
    argv = tuple(str(a) for a in argv)
    out, err = Capture(max_output), Capture(max_output)
    ended = run_child(argv, timeout=timeout, stdout=out, stderr=err, env=env,
                      stdin=stdin.encode() if stdin is not None else None)
    if ended.start_error is not None:
        return CommandResult(argv, None, error="not found" if isinstance(ended.start_error, FileNotFoundError)
                             else ended.error)
    if ended.overflowed:
        return CommandResult(argv, None, out.text(), err.text(), duration_s=ended.duration_s,
                             error=f"printed more than {max_output // (1024 * 1024)} MB; stopped")
    return CommandResult(argv, ended.returncode, out.text(), err.text(), timed_out=ended.timed_out,
                         duration_s=ended.duration_s)


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


@mutable
class RealHost:
    """The machine gpudoctor runs on."""

    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    _nvml: RealNvml = field(default_factory=RealNvml)
    # Commands begun by start(): (argv, timeout) -> (worker thread, its result once it ends)
    _started: dict[tuple[tuple[str, ...], float], tuple[threading.Thread, list[CommandResult]]] = field(
        default_factory=dict, repr=False)

    def run(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            stdin: str | None = None) -> CommandResult:
        early = self._started.pop((tuple(argv), timeout), None) if env is None and stdin is None else None
        if early is not None:
            worker, result = early
            try:
                worker.join()  # bounded: the command has its own deadline
            except BaseException:
                kill_running_commands()  # Ctrl-C or SIGTERM while waiting: nothing outlives gpudoctor
                raise
            if result:
                return result[0]
        return run_command(argv, timeout=timeout, env=env, stdin=stdin)

    def start(self, argv: Sequence[str], *, timeout: float) -> None:
        # A command a probe runs after the target interpreter answers (nvcc --version)
        # runs meanwhile instead: check waits for one child at a time, not two in turn.
        key = (tuple(argv), timeout)
        if key in self._started:
            return
        result: list[CommandResult] = []
        worker = threading.Thread(target=lambda: result.append(run_command(argv, timeout=timeout)), daemon=True)
        worker.start()
        self._started[key] = (worker, result)

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
        import glob  # noqa: PLC0415 - few checks glob; its import costs ~1 ms

        return sorted(glob.glob(pattern))

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def file_size(self, path: str) -> int | None:
        try:
            return os.path.getsize(path)
        except OSError:
            return None

    def file_stamp(self, path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def env(self) -> Mapping[str, str]:
        return self.environ

    def which(self, name: str) -> str | None:
        # shutil.which's search on POSIX, without importing shutil (and bz2 and
        # lzma with it: ~2.5 ms of every check).
        def runnable(candidate: str) -> bool:
            return os.path.isfile(candidate) and os.access(candidate, os.X_OK)

        if os.sep in name:
            return name if runnable(name) else None
        path = self.environ.get("PATH", os.defpath)
        for directory in dict.fromkeys(path.split(os.pathsep)) if path else ():
            candidate = os.path.join(directory, name)
            if runnable(candidate):
                return candidate
        return None

    def nvml(self) -> NvmlPort:
        return self._nvml

    @property
    def python(self) -> str:
        return sys.executable
