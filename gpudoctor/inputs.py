"""The one door for files the user names: bounded in size, in time, in kind.

Every file input (`check --from`, `install --from`, `report --from`,
`explain --from`, `smoke --snapshot`, `diagnose FILE`, `diagnose --error-file`,
`plan --config`, `plan --prices`) is read here, so none can hang on a FIFO,
fill memory from /dev/zero or crash on binary bytes:

- only a regular file, or `-` for stdin, is accepted (checked with stat(),
  before open(): opening a FIFO with no writer blocks forever);
- at most `limit` bytes are read; a larger input is refused ("too large: N MB,
  limit M MB"), or, for `read_window`, read as a head and a tail with the part
  in between counted, never silently dropped;
- a read that takes longer than `timeout` seconds (a slow pipe, a stuck network
  file system) stops with an error instead of waiting.

Errors are `InputError`: one line, exit 2.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import stat
import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, BinaryIO

from gpudoctor.cli import InputError  # one line on stderr, exit 2

MIB = 1024 * 1024
SNAPSHOT_LIMIT = 32 * MIB  # a snapshot or `check --json` report is ~100 KB; 32 MB is generous
CONFIG_LIMIT = 16 * MIB  # a Hugging Face config.json (some carry large label maps)
PRICES_LIMIT = 4 * MIB
ERROR_TEXT_LIMIT = 16 * MIB
READ_TIMEOUT_S = 60.0  # a whole read: enough for 32 MB over a slow network file system
CHUNK = 1 * MIB
# JSON that no gpudoctor file holds: refused before Python's own limits turn it into a crash.
JSON_MAX_DEPTH = 64
JSON_MAX_INT_DIGITS = 40


@dataclass(frozen=True)
class Window:
    """What `read_window` read: the head, and when the input was larger than
    the window, the tail and an exact account of what lies between them."""

    head: bytes
    tail: bytes = b""
    total_bytes: int = 0
    skipped_bytes: int = 0  # bytes between head and tail, not read by any parser
    skipped_from_line: int = 0  # 1-based line numbers of the skipped part (first, last)
    skipped_to_line: int = 0
    tail_first_line: int = 0  # line number of the tail's first line in the whole input
    stopped: str = ""  # why reading stopped early ("timed out after 60 s"), when it did

    @property
    def complete(self) -> bool:
        return not self.skipped_bytes and not self.stopped

    def not_read(self) -> dict[str, Any] | None:
        """The JSON account of what was not read; None when everything was."""
        if self.complete:
            return None
        return {"bytes": self.skipped_bytes, "from_byte": len(self.head), "to_byte": len(self.head) + self.skipped_bytes,
                "from_line": self.skipped_from_line, "to_line": self.skipped_to_line,
                "total_bytes": self.total_bytes, "stopped": self.stopped or None}

    def describe(self, name: str) -> str:
        parts = []
        if self.skipped_bytes:
            parts.append(f"{_mb(self.skipped_bytes)} MB in the middle of {name} were not read (bytes "
                         f"{len(self.head):,}-{len(self.head) + self.skipped_bytes:,}, lines "
                         f"{self.skipped_from_line:,}-{self.skipped_to_line:,} of {_mb(self.total_bytes)} MB); "
                         f"the first {_mb(len(self.head))} MB and the last {_mb(len(self.tail))} MB were read")
        if self.stopped:
            parts.append(f"reading {name} stopped: {self.stopped}; what came after was not read")
        return "; ".join(parts)


def _mb(n: int) -> str:
    return f"{n / MIB:,.1f}"


def _too_large(name: str, size: int | None, limit: int) -> InputError:
    shown = f"{_mb(size)} MB" if size is not None else f"more than {_mb(limit)} MB"
    return InputError(f"{name}: too large: {shown}, limit {_mb(limit)} MB")


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return word
    return "not a regular file"


def _open(path: str, name: str, stdin_ok: bool = True) -> tuple[BinaryIO, int | None]:
    """An open regular file (or stdin for '-') and its size when known."""
    if path == "-" and stdin_ok:
        return sys.stdin.buffer, None
    hint = ", or - to read stdin" if stdin_ok else ""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{name} is {_kind(st.st_mode)}: give a regular file{hint}")
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO between stat and open, open must not block.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"{name} is not a regular file: give a regular file{hint}")
    return os.fdopen(fd, "rb"), st.st_size


class _Reader:
    """Chunks of a file or stdin, each read waiting at most until the deadline."""

    def __init__(self, fh: BinaryIO, name: str, timeout: float) -> None:
        self.fh, self.name, self.timeout = fh, name, timeout
        self.deadline = time.monotonic() + timeout
        try:
            self.fd: int | None = fh.fileno()
            # A terminal is a person typing a paste: no deadline (Ctrl-D ends it, Ctrl-C aborts).
            self.interactive = os.isatty(self.fd)
        except (OSError, ValueError, AttributeError):
            self.fd, self.interactive = None, False

    def chunk(self) -> bytes:
        if self.fd is not None and not self.interactive:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            try:
                ready, _, _ = select.select([self.fd], [], [], left)
            except (OSError, ValueError):
                ready = [self.fd]  # not selectable (a Windows file): regular files never block long
            if not ready:
                raise TimeoutError
            try:
                return os.read(self.fd, CHUNK)
            except BlockingIOError:
                return self.chunk()
            except OSError as exc:
                raise InputError(f"cannot read {self.name}: {exc.strerror or exc}") from None
        try:
            return self.fh.read1(CHUNK) if hasattr(self.fh, "read1") else self.fh.read(CHUNK)
        except OSError as exc:
            raise InputError(f"cannot read {self.name}: {exc.strerror or exc}") from None


def read_bytes(path: str, *, limit: int, name: str | None = None, timeout: float = READ_TIMEOUT_S,
               stdin_ok: bool = True) -> bytes:
    """The whole of `path` (or stdin for '-' when `stdin_ok`), at most `limit` bytes; InputError otherwise."""
    name = name or ("stdin" if path == "-" else path)
    fh, size = _open(path, name, stdin_ok)
    if size is not None and size > limit:
        fh.close()
        raise _too_large(name, size, limit)
    reader = _Reader(fh, name, timeout)
    parts: list[bytes] = []
    got = 0
    try:
        while True:
            try:
                data = reader.chunk()
            except TimeoutError:
                raise InputError(f"{name}: timed out after {timeout:g} s of reading") from None
            if not data:
                break
            got += len(data)
            if got > limit:  # /proc files and pipes report no size: count what arrives
                raise _too_large(name, None, limit)
            parts.append(data)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
    return b"".join(parts)


def read_text(path: str, *, limit: int, name: str | None = None, timeout: float = READ_TIMEOUT_S,
              stdin_ok: bool = True) -> str:
    """`read_bytes` decoded as UTF-8; binary input is refused with one line."""
    name = name or ("stdin" if path == "-" else path)
    data = read_bytes(path, limit=limit, name=name, timeout=timeout, stdin_ok=stdin_ok)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 text (a binary file?): byte {exc.start:,} is {data[exc.start]:#04x}") \
            from None
    if "\x00" in text:
        raise InputError(f"{name} is not text: it holds NUL bytes (a binary file?)")
    return text


def read_window(path: str, *, head: int, tail: int, name: str | None = None,
                timeout: float = READ_TIMEOUT_S) -> Window:
    """Stream `path` (or stdin) in memory bounded by head + tail + one chunk:
    the first `head` bytes and the last `tail` bytes are kept, the bytes in
    between are counted (with their line numbers) and dropped. When the read
    time runs out, what was read is kept and `stopped` says so."""
    name = name or ("stdin" if path == "-" else path)
    fh, _ = _open(path, name)
    reader = _Reader(fh, name, timeout)
    first = bytearray()
    rest: deque[bytes] = deque()
    rest_bytes = total = newlines = 0  # newlines: in `first` and everything dropped so far
    stopped = ""
    try:
        while True:
            try:
                data = reader.chunk()
            except TimeoutError:
                stopped = f"timed out after {timeout:g} s"
                break
            if not data:
                break
            total += len(data)
            room = head - len(first)
            if room > 0:
                first += data[:room]
                newlines += data[:room].count(b"\n")
                data = data[room:]
            if data:
                rest.append(data)
                rest_bytes += len(data)
            while rest and rest_bytes - len(rest[0]) >= tail:
                dropped = rest.popleft()
                rest_bytes -= len(dropped)
                newlines += dropped.count(b"\n")
    finally:
        if path != "-":
            fh.close()
    kept = b"".join(rest)
    cut = max(0, len(kept) - tail)
    if cut:
        newlines += kept[:cut].count(b"\n")
        kept = kept[cut:]
    skipped = total - len(first) - len(kept)
    if skipped and (nl := kept.find(b"\n")) >= 0:
        # Start the tail on a line of its own: the partial line joins the skipped part.
        newlines += 1
        skipped += nl + 1
        kept = kept[nl + 1:]
    if not skipped:
        return Window(bytes(first) + kept, total_bytes=total, stopped=stopped)
    head_lines = first.count(b"\n")
    return Window(bytes(first), kept, total, skipped, skipped_from_line=head_lines + 1, skipped_to_line=newlines,
                  tail_first_line=newlines + 1, stopped=stopped)


def _int(text: str) -> int:
    if len(text.lstrip("-")) > JSON_MAX_INT_DIGITS:
        raise InputError(f"a number with {len(text.lstrip('-')):,} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is out of range")
    return value


def _constant(text: str) -> float:
    raise InputError(f"{text} is not a JSON value")


_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth_ok(text: str, limit: int) -> bool:
    """Whether brackets nest at most `limit` deep (outside strings): checked
    before decoding, because json's recursion limit ends in a RecursionError."""
    if text.count("[") + text.count("{") <= limit:
        return True
    depth = 0
    for m in _JSON_TOKENS.finditer(text):  # strings are skipped whole, at C speed
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def parse_json(text: str, name: str, *, max_depth: int = JSON_MAX_DEPTH) -> Any:
    """JSON text as Python data; InputError (one line) for anything that is not
    plain JSON gpudoctor could have written: invalid syntax, NaN/Infinity,
    integers of more than 40 digits, nesting deeper than `max_depth`."""
    if not _depth_ok(text, max_depth):
        raise InputError(f"{name} is not a gpudoctor file: JSON nested more than {max_depth} levels deep")
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except InputError as exc:
        raise InputError(f"{name} is not valid JSON for gpudoctor: {exc}") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{name} is not valid JSON: {exc}") from None
    except ValueError as exc:  # Python's own integer-size limit, should a hook be bypassed
        raise InputError(f"{name} is not valid JSON for gpudoctor: {exc}") from None
