"""Pasted text, made safe to parse: decoded, normalised, addressable by line.

Pastes arrive as anything: UTF-8 with emoji, cp1252 from a Windows console,
mojibake, ANSI colour codes, NUL bytes from a binary, Windows line endings,
10 MB logs. Parsers only ever see `Paste`: plain text with "\n" line ends and a
way to turn a match position into the 1-based line number that sources cite.
"""

from __future__ import annotations

import bisect
import functools
import re
import string
from dataclasses import dataclass, field

# CSI/OSC escape sequences (colours, cursor moves, hyperlinks) and other C0 controls except \t and \n.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Fullwidth punctuation some consoles (CJK locales) print in "GPU 0： Tesla P100".
_FULLWIDTH = {"：": ":", "，": ",", "（": "(", "）": ")", "\u00a0": " ", "\u3000": " "}


def _cp1252(byte: int) -> str:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return "\ufffd"


# surrogateescape turns each invalid byte 0x80-0xff into U+DC80-U+DCFF: map them to cp1252 in one C-level pass.
_ESCAPED = {0xDC00 + b: _cp1252(b) for b in range(0x80, 0x100)}
_CONTINUATION = re.compile(r"\n(?=[ \t]{0,40}[a-z(\[])")
_CONTINUES = re.compile(r"[ \t]{0,40}[a-z(\[]")
_HARD_WRAP = 120  # lines at least this long may have been cut by a terminal or a text box
# A message wrapped at a fixed width by hand or a text box, mid-sentence, where the rest starts with a
# capitalised word ("...were compiled with different" / "CUDA versions. PyTorch has ..."): joined only
# into the view that adds matches (errors.py), never replacing what the pasted lines match.
_CUT_SENTENCE = re.compile(r"[^\n]{59}[a-z,]\n[A-Z][A-Za-z]")
_UPPER_REST = re.compile(r"(?!(?:INFO|WARN(?:ING)?|ERROR|DEBUG|CRITICAL|FATAL|TRACE|Traceback|File)\b)[A-Z][A-Za-z]")
_LOWER_OR_COMMA = frozenset(string.ascii_lowercase + ",")
_CUT_WORD = re.compile(r"[\w.]$")
_CUT_REST = re.compile(r"(?!\d{2,4}[-:/])[a-z0-9]")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def decode(data: bytes | str) -> str:
    """Bytes to text without ever failing: UTF-8 where it is valid, and each
    invalid byte decoded as cp1252 (what Windows consoles write), so a paste
    that mixes encodings keeps its readable parts. Linear in the input."""
    if isinstance(data, str):
        return data
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with a byte-order mark (PowerShell's `>`)
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="surrogateescape").translate(_ESCAPED)


def lower_same_length(text: str) -> str:
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    text = _CONTROL.sub("", text)
    for char, plain in _FULLWIDTH.items():
        if char in text:
            text = text.replace(char, plain)
    return text


@dataclass
class Paste:
    """One input (the pasted file, or the --error text), normalised."""

    text: str
    label: str = ""  # "" for the paste itself, "--error" for the error text
    _starts: list[int] = field(default_factory=list, repr=False)
    # Lines a tool parser has read: the free-text reader leaves them alone.
    claimed: set[int] = field(default_factory=set, repr=False)
    # For a rewrapped view (unwrapped()): the pasted line number each of its lines
    # starts at, so that sources cite the lines as pasted.
    _pasted_lines: list[int] | None = field(default=None, repr=False)
    # For a rewrapped view: its line numbers that a continuation was joined to.
    joined: set[int] = field(default_factory=set, repr=False)
    _lines_with: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, data: bytes | str, label: str = "") -> Paste:
        text = normalise(decode(data))
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        return cls(text, label, starts)

    def line_no(self, pos: int) -> int:
        """1-based line number of a character offset."""
        return bisect.bisect_right(self._starts, pos)

    def unwrapped(self) -> Paste:
        """The text with wrapped sentences joined: a line that carries a sentence on
        (it starts in lower case or with a bracket) is appended to the one before,
        with one space between. Sources still cite the pasted line numbers. `self`
        when nothing is wrapped."""
        lines = self.text.split("\n")
        if not _CONTINUATION.search(self.text) and not any(len(line) >= _HARD_WRAP for line in lines) \
                and not _CUT_SENTENCE.search(self.text):
            return self
        out: list[str] = []
        pasted: list[int] = []
        joined: set[int] = set()
        for number, line in enumerate(lines, 1):
            if out and len(out[-1]) >= _HARD_WRAP and _CUT_WORD.search(out[-1]) and _CUT_REST.match(line):
                out[-1] += line  # a long line cut at a fixed width, mid-word or mid-number ("11." / "0 which")
                joined.add(len(out))
            elif out and _CONTINUES.match(line):
                out[-1] = out[-1].rstrip() + " " + line.strip()
                joined.add(len(out))
            elif out and 60 <= len(out[-1]) <= 300 and out[-1][-1:] in _LOWER_OR_COMMA and _UPPER_REST.match(line):
                out[-1] = out[-1] + " " + line.strip()
                joined.add(len(out))
            else:
                out.append(line)
                pasted.append(number)
        text = "\n".join(out)
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        return Paste(text, self.label, starts, self.claimed, pasted, joined)

    def pasted_line(self, number: int) -> int:
        """The pasted line number of this text's line `number` (the same unless unwrapped)."""
        return self._pasted_lines[number - 1] if self._pasted_lines else number

    def start_of(self, number: int) -> int:
        """The offset where line `number` (1-based) starts."""
        return self._starts[max(0, min(number, len(self._starts)) - 1)]

    def line(self, number: int) -> str:
        if number < 1 or number > len(self._starts):
            return ""
        start = self._starts[number - 1]
        end = self._starts[number] - 1 if number < len(self._starts) else len(self.text)
        return self.text[start:end]

    def where(self, what: str, pos: int, claim: bool = True) -> str:
        """A source label: 'nvidia-smi banner line 3'; in the --error text,
        '--error: torch warning line 1'. Marks the line as read by a tool
        parser unless claim is False."""
        prefix = f"{self.label}: " if self.label else ""
        line = self.pasted_line(self.line_no(pos))
        if claim:
            self.claimed.add(line)
        return f"{prefix}{what} line {line}"

    def __len__(self) -> int:
        return len(self.text)

    @functools.cached_property
    def lower(self) -> str:
        """The text lower-cased, offset for offset (non-ASCII letters whose
        lower case has another length are left as they are)."""
        return lower_same_length(self.text)

    def scan(self, rx: re.Pattern, *needles: str):
        """rx's matches on the lines that contain one of `needles` (lower
        case). For patterns that match within one line: the filter keeps
        expensive patterns off the lines that cannot match."""
        lines = sorted({span for needle in needles for span in self.lines_with(needle)})
        for start, end in lines:
            yield from rx.finditer(self.text, start, end)

    def lines_with(self, needle: str) -> list[tuple[int, int]]:
        """(start, end) of every line that contains `needle` (lower case),
        found with str.find: a cheap filter before a costlier regex. Kept per
        needle: the parsers ask for the same few words ("torch", "cuda") again."""
        cached = self._lines_with.get(needle)
        if cached is None:
            cached = self._lines_with[needle] = self._find_lines(needle)
        return cached

    def _find_lines(self, needle: str) -> list[tuple[int, int]]:
        if "\n" in needle:
            return self._scan_lines(needle)
        shapes, offsets, members = self._shapes
        exact = needle.encode("utf-8", "surrogatepass")
        key = exact.translate(_DIGITS_TO_ZERO)
        found: list[int] = []
        pos = shapes.find(key)
        while pos >= 0:
            shape = bisect.bisect_right(offsets, pos) - 1
            found.extend(members[shape])
            pos = shapes.find(key, offsets[shape + 1]) if shape + 1 < len(offsets) else -1
        found.sort()
        spans = [self._span(i) for i in found]
        if b"0" in key:  # a needle with digits matched a line's shape: the line itself must hold it
            spans = [(a, b) for a, b in spans if needle in self.lower[a:b]]
        return spans

    @functools.cached_property
    def _shapes(self) -> tuple[bytes, list[int], list[list[int]]]:
        """The text's distinct lines with every digit made 0, joined by newlines
        (UTF-8, lower case), the offset each starts at there, and the lines
        (0-based) each one stands for. A long log is mostly a few line shapes (a
        progress bar, a metric line with new numbers): _find_lines looks for a
        needle in those, once each, instead of in every line. A needle without
        digits is in a line exactly when it is in the line's shape."""
        members: dict[bytes, list[int]] = {}
        for i, line in enumerate(self.lower.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO).split(b"\n")):
            members.setdefault(line, []).append(i)
        offsets, at = [], 0
        for line in members:
            offsets.append(at)
            at += len(line) + 1
        return b"\n".join(members), offsets, list(members.values())

    def _span(self, index: int) -> tuple[int, int]:
        """(start, end) offsets of the 0-based line `index`, without its newline."""
        starts = self._starts
        return starts[index], (starts[index + 1] - 1 if index + 1 < len(starts) else len(self.text))

    def _scan_lines(self, needle: str) -> list[tuple[int, int]]:
        hay = self.lower
        out: list[tuple[int, int]] = []
        pos = hay.find(needle)
        while pos >= 0:
            out.append(self._span(bisect.bisect_right(self._starts, pos) - 1))
            pos = hay.find(needle, out[-1][1])
        return out
