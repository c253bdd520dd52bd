"""The error catalogue (gpudoctor/data/errors.toml): what a CUDA / cuDNN / NCCL /
framework error message means, how to confirm the cause, and the fix.

`explain "TEXT"` prints the entries a message matches; `diagnose` turns the
entries an error line matches into GD8xx findings.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
from dataclasses import dataclass, field
from importlib import resources

from gpudoctor import cuerrors
from gpudoctor.diagnose.paste import Paste, lower_same_length
from gpudoctor.findings import CATEGORIES
from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class ErrorEntry:
    """One error of the catalogue (errors.toml): the messages it matches, what causes it,
    how to confirm that, and the fix, with its source."""

    id: str
    title: str
    patterns: tuple[str, ...]
    causes: tuple[str, ...]
    confirm: tuple[str, ...]
    fix: str
    source: str
    commands: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()  # an ordered ladder, when the fix is one
    code: str | None = None  # the GD8xx finding diagnose raises
    category: str | None = None  # overrides the code's category; required without a code
    frameworks: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    note: str = ""
    # Where the framework prints the message: source-file URLs (repository and path).
    printed_by: tuple[str, ...] = ()
    # Entries whose match anywhere else in the same paste (usually an earlier
    # line) carries the real cause: this message is then only its consequence,
    # and diagnose reports those instead of this one.
    deferred_by: tuple[str, ...] = ()
    # A statement that says something only beside one of these entries' messages (a GPU's
    # overclock beside a kernel that crashed at random): without one, nothing is said.
    only_with: tuple[str, ...] = ()
    # A message that means "running on the CPU": where the paste shows an NVIDIA
    # GPU it says the framework did not get it, and diagnose warns in this category.
    with_gpu: str | None = None
    # The category a message takes in a paste from WSL2, where it means the Linux guest does
    # not get the GPU (a GPU in TCC mode, one "busy or unavailable"); elsewhere it is as above.
    in_wsl: str | None = None
    # The category a message takes where the paste shows neither a container nor WSL2 (the
    # runtime's "no CUDA-capable device" on a bare machine: its driver sees no GPU).
    bare_metal: str | None = None
    # The category a message takes in a paste from native Windows (or macOS), where the
    # framework's build for that platform lacks the feature (PyTorch's NCCL): a platform
    # without it, not a broken install.
    on_windows: str | None = None
    # A message only the host prints (its kernel's module loader, the container daemon):
    # a container in the same paste does not make it the container's "no GPU".
    host_side: bool = False
    # A regular expression the next non-blank line must match: a traceback quotes the
    # failing source line and then its exception ("assert ..." then "AssertionError"),
    # where the same source line in a pasted script is followed by more code.
    followed_by: str = ""
    compiled: tuple[re.Pattern, ...] = field(default=(), compare=False, repr=False)
    # Per pattern, a lower-case literal every match contains (None: no such literal):
    # lines without it are skipped without running the regex.
    literals: tuple[str | None, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Match:
    """A catalogue entry matched on one line of the paste."""

    entry: ErrorEntry
    line_no: int  # 1-based
    text: str  # the whole line, trimmed


class CatalogError(ValueError):
    pass


@functools.lru_cache(maxsize=1)
def load_catalog() -> tuple[ErrorEntry, ...]:
    raw = (resources.files("gpudoctor") / "data" / "errors.toml").read_text(encoding="utf-8")
    return parse_catalog(raw)


def parse_catalog(raw: str) -> tuple[ErrorEntry, ...]:
    """Closed-world: unknown keys, bad regexes, unknown categories and
    duplicate ids are errors naming the entry."""
    data = tomllib.loads(raw)
    if data.get("schema_version") != 1:
        raise CatalogError(f"errors.toml: schema_version {data.get('schema_version')!r} is not supported")
    entries: list[ErrorEntry] = []
    seen: set[str] = set()
    for i, row in enumerate(data.get("error", [])):
        where = f"errors.toml error[{i}] ({row.get('id', '?')})"
        try:
            entry = from_data(ErrorEntry, row, where)
        except DataError as exc:
            raise CatalogError(str(exc)) from None
        if entry.id in seen:
            raise CatalogError(f"{where}: duplicate id")
        seen.add(entry.id)
        if entry.category is not None and entry.category not in CATEGORIES:
            raise CatalogError(f"{where}: unknown category {entry.category!r}")
        if entry.with_gpu is not None and entry.with_gpu not in CATEGORIES:
            raise CatalogError(f"{where}: unknown with_gpu category {entry.with_gpu!r}")
        if entry.in_wsl is not None and entry.in_wsl not in CATEGORIES:
            raise CatalogError(f"{where}: unknown in_wsl category {entry.in_wsl!r}")
        if entry.bare_metal is not None and entry.bare_metal not in CATEGORIES:
            raise CatalogError(f"{where}: unknown bare_metal category {entry.bare_metal!r}")
        if entry.on_windows is not None and entry.on_windows not in CATEGORIES:
            raise CatalogError(f"{where}: unknown on_windows category {entry.on_windows!r}")
        if entry.code is None and entry.category is None:
            raise CatalogError(f"{where}: needs a code or a category")
        if not entry.source.startswith("https://"):
            raise CatalogError(f"{where}: source must be an https URL")
        if any(not url.startswith("https://") for url in entry.printed_by):
            raise CatalogError(f"{where}: printed_by must be https URLs")
        try:
            compiled = tuple(re.compile(p, re.I | re.M) for p in entry.patterns)
        except re.error as exc:
            raise CatalogError(f"{where}: bad pattern: {exc}") from None
        try:
            re.compile(entry.followed_by)
        except re.error as exc:
            raise CatalogError(f"{where}: bad followed_by: {exc}") from None
        literals = tuple(required_literal(p) for p in entry.patterns)
        entries.append(ErrorEntry(**{**entry.__dict__, "compiled": compiled, "literals": literals}))
    for entry in entries:
        unknown = [i for i in entry.deferred_by + entry.only_with if i not in seen or i == entry.id]
        if unknown:
            raise CatalogError(f"errors.toml ({entry.id}): deferred_by or only_with names unknown entries {unknown}")
    return tuple(entries)


_META = set("\\.^$*+?{}[]|()")


def required_literal(pattern: str) -> str | None:
    """The longest run of plain characters outside any group, class or
    quantified atom: text every match must contain. None when the pattern has
    a top-level alternative or no run of at least 3 characters."""
    runs, run, depth, i = [], "", 0, 0
    while i < len(pattern):
        c = pattern[i]
        nxt = pattern[i + 1] if i + 1 < len(pattern) else ""
        if c == "\\":
            esc = pattern[i + 1:i + 2]
            if depth == 0 and esc and not esc.isalnum() and pattern[i + 2:i + 3] not in ("?", "*", "{"):
                run, i = run + esc, i + 2
                continue
            runs.append(run)
            run, i = "", i + 2
            continue
        if c in "([{":
            runs.append(run)
            run = ""
            if c in "[{":  # a class or a quantifier: skip to its end
                i = pattern.find("]" if c == "[" else "}", i + 2) + 1 or len(pattern)
                continue
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return None
        elif depth == 0 and c not in _META:
            if nxt in ("?", "*", "{"):
                runs.append(run)
                run = ""
            else:
                run += c
            i += 1
            continue
        else:
            runs.append(run)
            run = ""
        i += 1
    runs.append(run)
    best = max(runs, key=lambda r: len(r.strip()))
    return best.lower() if len(best.strip()) >= 3 else None


def match_text(text: str, entries: tuple[ErrorEntry, ...] | None = None, paste: Paste | None = None) -> list[Match]:
    """Every line of `text` that an entry matches. On one line only the first
    entry in catalogue order counts: specific entries come before general ones.
    Patterns are matched line by line; a literal filter skips most lines (the
    paste's own lines_with, when `text` is a Paste's text: its index of line
    shapes answers ~400 literals without a pass over a long log for each)."""
    entries = load_catalog() if entries is None else entries
    lower = lower_same_length(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    best: dict[int, tuple[int, int]] = {}  # line number -> (entry index, line end)
    for idx, entry in enumerate(entries):
        for pattern, literal in zip(entry.compiled, entry.literals or (None,) * len(entry.compiled)):
            candidates = ((paste.line_no(a), a, b) for a, b in paste.lines_with(literal)) \
                if paste is not None and literal else _candidate_lines(lower, starts, literal)
            for line, start, end in candidates:
                if line in best and best[line][0] <= idx:
                    continue
                if pattern.search(text, start, end) and _next_line_fits(entry, text, end):
                    best[line] = (idx, end)
    return [Match(entries[idx], line, text[starts[line - 1]:end].strip()[:400])
            for line, (idx, end) in sorted(best.items())]


def numbered_matches(line: str, line_no: int = 1) -> list[Match]:
    """The matches of a line that gives a CUDA error only by its number ("CUDA error
    209 at kernel.cu:12"), read as the runtime's message for that number; the match's
    text says which message it was read as."""
    spelled = cuerrors.spelled_out(line)
    if not spelled:
        return []
    text = f"{line.strip()[:300]} ({spelled[0][1]})"
    return [Match(m.entry, line_no, text) for m in match_text(text)]


def _next_line_fits(entry: ErrorEntry, text: str, end: int) -> bool:
    """Whether the first non-blank line after `end` matches the entry's followed_by (no such
    requirement: True). Looks at most 2,000 characters ahead: a paste's size is capped, a
    line's is not."""
    if not entry.followed_by:
        return True
    following = text[end:end + 2000].lstrip("\r\n \t").split("\n", 1)[0]
    return re.match(entry.followed_by, following, re.I) is not None


def _candidate_lines(lower: str, starts: list[int], literal: str | None):
    """(line number, start, end) of the lines that contain `literal` (all lines without one)."""
    last = len(starts)
    if literal is None:
        for n in range(1, last + 1):
            yield n, starts[n - 1], (starts[n] - 1 if n < last else len(lower))
        return
    pos = lower.find(literal)
    while pos >= 0:
        n = bisect.bisect_right(starts, pos)
        end = starts[n] - 1 if n < last else len(lower)
        yield n, starts[n - 1], end
        pos = lower.find(literal, end)
