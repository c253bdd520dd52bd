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

from gpudoctor.findings import CATEGORIES
from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class ErrorEntry:
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
    compiled: tuple[re.Pattern, ...] = field(default=(), compare=False, repr=False)
    # Per pattern, a lower-case literal every match contains (None: no such literal):
    # lines without it are skipped without running the regex.
    literals: tuple[str | None, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Match:
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
        if entry.code is None and entry.category is None:
            raise CatalogError(f"{where}: needs a code or a category")
        if not entry.source.startswith("https://"):
            raise CatalogError(f"{where}: source must be an https URL")
        try:
            compiled = tuple(re.compile(p, re.I | re.M) for p in entry.patterns)
        except re.error as exc:
            raise CatalogError(f"{where}: bad pattern: {exc}") from None
        literals = tuple(required_literal(p) for p in entry.patterns)
        entries.append(ErrorEntry(**{**entry.__dict__, "compiled": compiled, "literals": literals}))
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
            if depth == 0 and esc and not esc.isalnum():
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
    best = max(runs, key=len)
    return best.lower() if len(best.strip()) >= 3 else None


def match_text(text: str, entries: tuple[ErrorEntry, ...] | None = None) -> list[Match]:
    """Every line of `text` that an entry matches. On one line only the first
    entry in catalogue order counts: specific entries come before general ones.
    Patterns are matched line by line; a literal filter skips most lines."""
    entries = load_catalog() if entries is None else entries
    lower = text.lower()
    if len(lower) != len(text):
        lower = None
    best: dict[int, tuple[int, int]] = {}  # line start -> (entry index, line end)
    for idx, entry in enumerate(entries):
        for pattern, literal in zip(entry.compiled, entry.literals or (None,) * len(entry.compiled)):
            for start, end in _candidate_lines(text, lower, literal):
                if start in best and best[start][0] <= idx:
                    continue
                if pattern.search(text, start, end):
                    best[start] = (idx, end)
    out: list[Match] = []
    starts: list[int] | None = None
    for line_start in sorted(best):
        if starts is None:
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
        idx, end = best[line_start]
        out.append(Match(entries[idx], _line_no(starts, line_start), text[line_start:end].strip()[:400]))
    return out


def _candidate_lines(text: str, lower: str | None, literal: str | None):
    if literal is None or lower is None:
        pos = 0
        while pos <= len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            yield pos, end
            pos = end + 1
        return
    pos = lower.find(literal)
    while pos >= 0:
        start = lower.rfind("\n", 0, pos) + 1
        end = lower.find("\n", pos)
        end = len(lower) if end < 0 else end
        yield start, end
        pos = lower.find(literal, end)


def _line_no(starts: list[int], pos: int) -> int:
    return bisect.bisect_right(starts, pos)


def entries_for(text: str) -> list[ErrorEntry]:
    """Distinct entries matched by `text`, in catalogue order."""
    hit = {m.entry.id for m in match_text(text)}
    return [e for e in load_catalog() if e.id in hit]
