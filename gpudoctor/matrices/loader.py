"""Closed-world loader for the TOML matrices.

An unknown file, table or key, a wrong type, or a missing required key is an
error that names the file, the row and the key. Rows become frozen records.
"""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from gpudoctor.matrices import records as r
from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SCHEMA_VERSION = 1

# file stem -> {table name -> record type}
TABLES: dict[str, dict[str, type]] = {
    "cuda": {
        "toolkit": r.CudaToolkit,
        "minor_compat": r.MinorCompat,
        "arch_support": r.ArchSupport,
        "driver_branch": r.DriverBranch,
    },
    "gpus": {"gpu": r.GpuModel, "precision": r.PrecisionSupport},
    "torch": {"release": r.TorchRelease, "build": r.TorchBuild},
    "tensorflow": {"release": r.TensorflowRelease},
    "jax": {"release": r.JaxRelease},
    "cudnn": {"release": r.CudnnRelease},
    "cupy": {"package": r.CupyPackage},
}

SHIPPED_DIR = Path(__file__).resolve().parent


class MatrixError(ValueError):
    """A matrix file does not follow the schema."""


def _row_id(row: dict[str, Any], record: type) -> str:
    first = fields(record)[0].name
    value = row.get(first)
    return f"{first}={value!r}" if value is not None else "?"


def parse_file(stem: str, text: str, origin: str) -> tuple[str, dict[str, tuple[Any, ...]]]:
    """Parse one matrix file's text. Returns (data_as_of, {table: records})."""
    if stem not in TABLES:
        raise MatrixError(f"{origin}: unknown matrix file {stem!r} (known: {', '.join(sorted(TABLES))})")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MatrixError(f"{origin}: not valid TOML: {exc}") from None
    version = doc.pop("schema_version", None)
    if version != SCHEMA_VERSION:
        raise MatrixError(f"{origin}: schema_version is {version!r}, expected {SCHEMA_VERSION}")
    as_of = doc.pop("data_as_of", None)
    if not isinstance(as_of, str) or not as_of:
        raise MatrixError(f"{origin}: data_as_of must be a date string like \"2026-11-29\"")
    tables: dict[str, tuple[Any, ...]] = {}
    for name, rows in doc.items():
        record = TABLES[stem].get(name)
        if record is None:
            raise MatrixError(f"{origin}: unknown table {name!r} (known: {', '.join(TABLES[stem])})")
        if not isinstance(rows, list):
            raise MatrixError(f"{origin}: {name} must be an array of tables ([[{name}]])")
        out = []
        for i, row in enumerate(rows):
            where = f"{origin}: {name}[{i}] ({_row_id(row, record) if isinstance(row, dict) else '?'})"
            try:
                item = from_data(record, row, "row")
            except DataError as exc:
                raise MatrixError(f"{where}: {str(exc).removeprefix('row: ').removeprefix('row.')}") from None
            if not str(getattr(item, "source", "")).strip():
                raise MatrixError(f"{where}: source must not be empty")
            out.append(item)
        tables[name] = tuple(out)
    for name in TABLES[stem]:
        tables.setdefault(name, ())
    return as_of, tables


def load_dir(directory: Path) -> tuple[dict[str, str], dict[str, dict[str, tuple[Any, ...]]]]:
    """Load every known matrix file present in `directory`."""
    as_of: dict[str, str] = {}
    data: dict[str, dict[str, tuple[Any, ...]]] = {}
    for stem in TABLES:
        path = directory / f"{stem}.toml"
        if not path.is_file():
            continue
        as_of[stem], data[stem] = parse_file(stem, path.read_text(encoding="utf-8"), str(path))
    return as_of, data
