"""FakeHost: a whole machine described as data, for probe tests.

Commands match on the exact argv; an unscripted command fails the test.
Files, directories and environment are what the scenario lists, nothing else.
"""

from __future__ import annotations

import fnmatch
import io
import posixpath
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.host import CommandResult, NvmlError


class UnscriptedCall(AssertionError):
    pass


@dataclass
class FakeCommand:
    argv: Sequence[str]
    stdout: str = ""
    stderr: str = ""
    returncode: int | None = 0
    # Simulate a hang: the command "runs" this long; past the caller's timeout
    # it is reported as timed out after sleeping only the timeout.
    hang_s: float = 0.0
    error: str | None = None  # e.g. "not found"
    stdin_contains: str | None = None  # match only when stdin contains this
    repeat: bool = True  # may be called more than once


class FakeNvml:
    """NvmlPort answering from a dict {function name: value | NvmlError | callable}."""

    def __init__(self, answers: Mapping[str, Any] | None = None, init_error: str | None = None) -> None:
        self.answers = dict(answers or {})
        self.init_error = init_error
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def init(self) -> None:
        if self.init_error:
            raise NvmlError(self.init_error)

    def shutdown(self) -> None:
        pass

    def call(self, name: str, *args: Any) -> Any:
        self.calls.append((name, args))
        if name not in self.answers:
            raise NvmlError("FunctionNotFound", f"not scripted: {name}")
        ans = self.answers[name]
        if callable(ans):
            ans = ans(*args)
        if isinstance(ans, NvmlError):
            raise ans
        return ans


@dataclass
class FakeHost:
    commands: list[FakeCommand] = field(default_factory=list)
    files: dict[str, str | bytes] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    environ: dict[str, str] = field(default_factory=dict)
    executables: dict[str, str] = field(default_factory=dict)  # name -> path for which()
    links: dict[str, str] = field(default_factory=dict)  # path -> realpath
    fake_nvml: FakeNvml = field(default_factory=lambda: FakeNvml(init_error="LibraryNotFound"))
    python_path: str = "/usr/bin/python3"
    ran: list[tuple[str, ...]] = field(default_factory=list)
    started: list[tuple[str, ...]] = field(default_factory=list)

    def run(self, argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
            stdin: str | None = None) -> CommandResult:
        argv = tuple(str(a) for a in argv)
        self.ran.append(argv)
        for cmd in self.commands:
            if tuple(cmd.argv) != argv:
                continue
            if cmd.stdin_contains is not None and (stdin is None or cmd.stdin_contains not in stdin):
                continue
            if not cmd.repeat:
                self.commands.remove(cmd)
            if cmd.error:
                return CommandResult(argv, None, error=cmd.error)
            if cmd.hang_s > timeout:
                time.sleep(timeout)
                return CommandResult(argv, None, timed_out=True, duration_s=timeout)
            if cmd.hang_s:
                time.sleep(cmd.hang_s)
            return CommandResult(argv, cmd.returncode, cmd.stdout, cmd.stderr, duration_s=cmd.hang_s)
        raise UnscriptedCall(f"unscripted command: {argv}")

    def start(self, argv: Sequence[str], *, timeout: float) -> None:
        self.started.append(tuple(str(a) for a in argv))  # run() still answers from the script

    def _all_dirs(self) -> set[str]:
        out = set(self.dirs)
        for path in self.files:
            d = posixpath.dirname(path)
            while d and d != "/":
                out.add(d)
                d = posixpath.dirname(d)
        return out

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        data = self.files.get(self.realpath(path))
        if data is None:
            return None
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        return text[:limit]

    def read_bytes(self, path: str, offset: int = 0, size: int = -1) -> bytes | None:
        data = self.files.get(self.realpath(path))
        if data is None:
            return None
        raw = data if isinstance(data, bytes) else data.encode()
        return raw[offset:] if size < 0 else raw[offset:offset + size]

    def open_binary(self, path: str) -> io.BytesIO | None:
        data = self.files.get(self.realpath(path))
        if data is None:
            return None
        return io.BytesIO(data if isinstance(data, bytes) else data.encode())

    def exists(self, path: str) -> bool:
        p = self.realpath(path)
        return p in self.files or p in self._all_dirs()

    def is_dir(self, path: str) -> bool:
        return self.realpath(path) in self._all_dirs()

    def listdir(self, path: str) -> list[str]:
        base = self.realpath(path).rstrip("/")
        names = set()
        for p in list(self.files) + list(self._all_dirs()):
            if posixpath.dirname(p) == base:
                names.add(posixpath.basename(p))
        return sorted(names)

    def glob(self, pattern: str) -> list[str]:
        # Like glob.glob, a "*" does not cross a "/".
        depth = pattern.count("/")
        return sorted(p for p in set(self.files) | self._all_dirs()
                      if p.count("/") == depth and fnmatch.fnmatchcase(p, pattern))

    def realpath(self, path: str) -> str:
        path = posixpath.normpath(path)
        for _ in range(10):
            target = self.links.get(path)
            if target is None:
                # A link may also be a parent directory of the path.
                for link, dest in self.links.items():
                    if path.startswith(link + "/"):
                        target = dest + path[len(link):]
                        break
            if target is None:
                return path
            path = target
        return path

    def file_size(self, path: str) -> int | None:
        data = self.files.get(self.realpath(path))
        return None if data is None else len(data)

    def file_stamp(self, path: str) -> tuple[int, int] | None:
        return None  # a scripted machine's files are not cached

    def env(self) -> Mapping[str, str]:
        return self.environ

    def which(self, name: str) -> str | None:
        return self.executables.get(name)

    def nvml(self) -> FakeNvml:
        return self.fake_nvml

    @property
    def python(self) -> str:
        return self.python_path
