"""Write matrix rows back as TOML (the overlay written by `matrix refresh`).

The row types hold only strings, numbers, booleans, tuples of those and
string-keyed tables of tuples (an inline table), so a small writer is enough; tomllib (or tomli) reads what it writes, and the
loader validates it like any shipped file.
"""

from __future__ import annotations

import json
import math
from dataclasses import MISSING, fields
from typing import Any

from gpudoctor.matrices.loader import SCHEMA_VERSION


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} as TOML")
        return repr(value)
    if isinstance(value, str):
        # JSON string escaping is valid TOML basic-string escaping for our text.
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _value(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_scalar(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    return _scalar(value)


def row_lines(table: str, row: Any) -> list[str]:
    """One [[table]] block; fields left at their default are omitted."""
    lines = [f"[[{table}]]"]
    for f in fields(row):
        value = getattr(row, f.name)
        default = f.default if f.default is not MISSING else \
            f.default_factory() if f.default_factory is not MISSING else MISSING
        if default is not MISSING and value == default:
            continue
        if value is None:
            continue
        lines.append(f"{f.name} = {_value(value)}")
    return lines


def dump(header: str, data_as_of: str, tables: dict[str, list[Any]]) -> str:
    """A whole matrix file: comment header, schema_version, data_as_of, rows."""
    out = [f"# {line}" if line else "#" for line in header.strip().splitlines()]
    out += [f"schema_version = {SCHEMA_VERSION}", f"data_as_of = {_scalar(data_as_of)}"]
    for table, rows in tables.items():
        for row in rows:
            out.append("")
            out.extend(row_lines(table, row))
    return "\n".join(out) + "\n"
