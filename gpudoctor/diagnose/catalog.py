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
        entries.append(ErrorEntry(**{**entry.__dict__, "compiled": compiled}))
    return tuple(entries)


def match_text(text: str, entries: tuple[ErrorEntry, ...] | None = None) -> list[Match]:
    """Every line of `text` that an entry matches. On one line only the first
    entry in catalogue order counts: specific entries come before general ones."""
    entries = load_catalog() if entries is None else entries
    starts: list[int] | None = None
    best: dict[int, tuple[int, int, int]] = {}  # line start -> (entry index, match start, match end)
    for idx, entry in enumerate(entries):
        for pattern in entry.compiled:
            for m in pattern.finditer(text):
                line_start = text.rfind("\n", 0, m.start()) + 1
                if line_start not in best or best[line_start][0] > idx:
                    best[line_start] = (idx, m.start(), m.end())
    out: list[Match] = []
    for line_start in sorted(best):
        if starts is None:
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
        idx, _, _ = best[line_start]
        end = text.find("\n", line_start)
        line = text[line_start:end if end >= 0 else len(text)].strip()
        out.append(Match(entries[idx], _line_no(starts, line_start), line[:400]))
    return out


def _line_no(starts: list[int], pos: int) -> int:
    return bisect.bisect_right(starts, pos)


def entries_for(text: str) -> list[ErrorEntry]:
    """Distinct entries matched by `text`, in catalogue order."""
    hit = {m.entry.id for m in match_text(text)}
    return [e for e in load_catalog() if e.id in hit]
