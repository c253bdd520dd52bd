"""Closed-world loader for the TOML matrices.

An unknown file, table or key, a wrong type, a missing required key, an empty
source or two rows with the same key is an error that names the file, the row
and the key. Rows become frozen records.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from gpudoctor.filecache import cached
from gpudoctor.matrices import records as r
from gpudoctor.serde import DataError, from_data

SCHEMA_VERSION = 1

# file stem -> {table name -> record type in gpudoctor.matrices.records}; the type is
# looked up when its file is loaded, so that only loaded files build their record classes.
TABLES: dict[str, dict[str, str]] = {
    "cuda": {
        "toolkit": "CudaToolkit",
        "minor_compat": "MinorCompat",
        "arch_support": "ArchSupport",
        "driver_branch": "DriverBranch",
        "arch_driver": "ArchDriver",
    },
    "gpus": {"gpu": "GpuModel", "precision": "PrecisionSupport", "precision_quirk": "PrecisionQuirk", "family": "GpuFamily",
             "shared_name": "GpuSharedName"},
    "torch": {"release": "TorchRelease", "build": "TorchBuild"},
    "tensorflow": {"release": "TensorflowRelease"},
    "jax": {"release": "JaxRelease"},
    "cudnn": {"release": "CudnnRelease"},
    "cupy": {"package": "CupyPackage"},
    "onnxruntime": {"release": "OnnxruntimeRelease"},
    "companions": {"pin": "CompanionPin", "framework_pin": "FrameworkPin", "extension_wheel": "ExtensionWheel",
                   "gpu_library": "GpuLibrary", "image": "Image"},
    "rates": {"achievable": "AchievableRate", "mig": "MigShare"},
}

# (file stem, table) -> the fields that identify a row; unique within a table.
# The overlay written by `matrix refresh` never replaces a shipped row with the
# same key.
KEYS: dict[tuple[str, str], tuple[str, ...]] = {
    ("cuda", "toolkit"): ("version",),
    ("cuda", "minor_compat"): ("cuda_major",),
    ("cuda", "arch_support"): ("cuda_from",),
    ("cuda", "driver_branch"): ("branch",),
    ("cuda", "arch_driver"): ("compute_capability",),
    ("gpus", "gpu"): ("name",),
    ("gpus", "precision"): ("compute_capability",),
    ("gpus", "precision_quirk"): ("pattern", "precision"),
    ("gpus", "family"): ("pattern",),
    ("gpus", "shared_name"): ("pattern",),
    ("torch", "release"): ("version",),
    ("torch", "build"): ("series", "variant", "platform", "index_url"),
    ("tensorflow", "release"): ("version",),
    ("jax", "release"): ("version_from",),
    ("cudnn", "release"): ("version_from",),
    ("cupy", "package"): ("package",),
    ("onnxruntime", "release"): ("version_from", "cuda_major"),
    ("companions", "pin"): ("package", "version"),
    ("companions", "framework_pin"): ("framework", "framework_version", "package"),
    ("companions", "extension_wheel"): ("package",),
    ("companions", "gpu_library"): ("package", "version_from", "cuda_major"),
    ("companions", "image"): ("repository", "tag"),
    ("rates", "achievable"): ("compute_capability", "board", "test", "accumulate"),
    ("rates", "mig"): ("compute_capability", "gpu"),
}

# Paths are strings, not pathlib (check loads this module; pathlib costs it ~4 ms).
SHIPPED_DIR = os.path.dirname(os.path.realpath(__file__))


def row_key(stem: str, table: str, row: Any) -> tuple[Any, ...]:
    """The identifying fields of a record (or of a raw TOML row dict)."""
    names = KEYS[(stem, table)]
    if isinstance(row, dict):
        return tuple(row.get(n) for n in names)
    return tuple(getattr(row, n) for n in names)


class MatrixError(ValueError):
    """A matrix file does not follow the schema."""


def _row_id(row: dict[str, Any], stem: str, table: str) -> str:
    parts = [f"{n}={row[n]!r}" for n in KEYS[(stem, table)] if n in row]
    return ", ".join(parts) or "?"


def _parse_toml(text: str, origin: str) -> dict[str, Any]:
    # Imported here: a load served from the parse cache never needs the parser.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MatrixError(f"{origin}: not valid TOML: {exc}") from None


def parse_file(stem: str, text: str, origin: str) -> tuple[str, Tables]:
    """Parse one matrix file's text. Returns (data_as_of, {table: records})."""
    return validate(stem, _parse_toml(text, origin), origin)


class Tables(Mapping[str, tuple[Any, ...]]):
    """One matrix file's tables by name, each checked and built the first time
    it is read: `check` reads torch.toml's releases without building its
    hundreds of build rows. A table that breaks the schema raises MatrixError
    when it is read."""

    def __init__(self, names: Iterable[str], build: Callable[[str], tuple[Any, ...]]) -> None:
        self._names = tuple(names)
        self._build = build
        self._built: dict[str, tuple[Any, ...]] = {}

    def __getitem__(self, name: str) -> tuple[Any, ...]:
        if name not in self._built:
            if name not in self._names:
                raise KeyError(name)
            self._built[name] = self._build(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def validate(stem: str, doc: dict[str, Any], origin: str, lazy: bool = False) -> tuple[str, Tables]:
    """Check a parsed matrix document against the schema and build its records:
    every table now, or (`lazy`) each on first use, the file's own layout now."""
    if stem not in TABLES:
        raise MatrixError(f"{origin}: unknown matrix file {stem!r} (known: {', '.join(sorted(TABLES))})")
    doc = dict(doc)
    version = doc.pop("schema_version", None)
    if version != SCHEMA_VERSION:
        raise MatrixError(f"{origin}: schema_version is {version!r}, expected {SCHEMA_VERSION}")
    as_of = doc.pop("data_as_of", None)
    if not isinstance(as_of, str) or not as_of:
        raise MatrixError(f"{origin}: data_as_of must be a date string like \"2026-11-29\"")
    for name, rows in doc.items():
        if name not in TABLES[stem]:
            raise MatrixError(f"{origin}: unknown table {name!r} (known: {', '.join(TABLES[stem])})")
        if not isinstance(rows, list):
            raise MatrixError(f"{origin}: {name} must be an array of tables ([[{name}]])")
    tables = Tables(TABLES[stem], lambda name: _records(stem, name, doc.get(name, []), origin))
    if not lazy:
        for name in tables:
            tables[name]
    return as_of, tables


def _records(stem: str, name: str, rows: list[Any], origin: str) -> tuple[Any, ...]:
    record = getattr(r, TABLES[stem][name])
    out = []
    seen: dict[tuple[Any, ...], int] = {}
    for i, row in enumerate(rows):
        where = f"{origin}: {name}[{i}] ({_row_id(row, stem, name) if isinstance(row, dict) else '?'})"
        try:
            item = from_data(record, row, "row")
        except DataError as exc:
            raise MatrixError(f"{where}: {str(exc).removeprefix('row: ').removeprefix('row.')}") from None
        if not str(getattr(item, "source", "")).strip():
            raise MatrixError(f"{where}: source must not be empty")
        key = row_key(stem, name, item)
        if key in seen:
            raise MatrixError(f"{where}: duplicate key {', '.join(KEYS[(stem, name)])} "
                              f"(same as {name}[{seen[key]}])")
        seen[key] = i
        out.append(item)
    return tuple(out)


def read_doc(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The parsed TOML of a data file (the matrices, install_channels.toml),
    from gpudoctor.filecache while the file is unchanged (parsing torch.toml
    costs ~0.1 s). It is validated afresh on every load."""
    path = os.fspath(path)
    st = os.stat(path)

    def parse() -> dict[str, Any]:
        with open(path, encoding="utf-8") as f:
            return _parse_toml(f.read(), path)

    def decode(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ValueError("not a parsed document")
        return value

    return cached("m-", path, st.st_size, st.st_mtime_ns, parse, lambda doc: doc, decode)


def load_file(directory: str | os.PathLike[str], stem: str, lazy: bool = False) -> tuple[str, Tables] | None:
    """Load one matrix file from `directory` (see validate for `lazy`); None when it is not there."""
    path = os.path.join(directory, f"{stem}.toml")
    if not os.path.isfile(path):
        return None
    return validate(stem, read_doc(path), path, lazy)


def load_dir(directory: str | os.PathLike[str]) -> tuple[dict[str, str], dict[str, dict[str, tuple[Any, ...]]]]:
    """Load every known matrix file present in `directory`, every table built and checked."""
    as_of: dict[str, str] = {}
    data: dict[str, dict[str, tuple[Any, ...]]] = {}
    for stem in TABLES:
        loaded = load_file(directory, stem)
        if loaded is not None:
            as_of[stem], data[stem] = loaded[0], dict(loaded[1])
    return as_of, data
