"""nvidia-smi, the fallback when NVML cannot be used from Python.

Run at most once per collect() (the driver and GPU probes share the answer),
always with a timeout: a hung nvidia-smi costs its timeout and nothing more.
"""

from __future__ import annotations

import re

from gpudoctor.frozen import frozen
from gpudoctor.host import CommandResult
from gpudoctor.probes.context import Context

SMI_TIMEOUT_S = 5.0
SMI_FALLBACK_PATHS = ("/usr/bin/nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi")

# Columns asked for, in order. compute_cap needs a driver >= 510; when a field
# is refused the query is repeated with BASIC_FIELDS.
FIELDS = (
    "index", "name", "uuid", "pci.bus_id", "driver_version", "compute_cap",
    "memory.total", "memory.used", "mig.mode.current", "persistence_mode",
    "ecc.mode.current", "ecc.errors.uncorrected.volatile.total",
    "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max",
)
BASIC_FIELDS = ("index", "name", "uuid", "pci.bus_id", "driver_version", "memory.total", "memory.used")
# More GPUs than any one machine holds (an HGX board has 8, the largest nodes 16):
# an answer listing more is not believed, and no more than this many rows are parsed.
MAX_GPUS = 64
_VERSION = re.compile(r"\d{1,4}(?:\.\d{1,4}){1,3}")
_CC = re.compile(r"\d{1,2}\.\d{1,2}")
_MISSING = {"", "n/a", "[n/a]", "[not supported]", "not supported", "[unknown error]", "[insufficient permissions]"}


@frozen
class SmiAnswer:
    """One nvidia-smi query: which nvidia-smi ran, the rows it printed, and every run of it."""

    path: str | None  # the nvidia-smi that ran; None when there is none
    rows: tuple[dict[str, str | None], ...]
    results: tuple[CommandResult, ...]  # every run, for `tried`

    @property
    def ok(self) -> bool:
        return bool(self.results) and self.results[-1].ok

    def tried(self) -> tuple[str, ...]:
        if self.path is None:
            return ("nvidia-smi: not on PATH",)
        return tuple(r.describe() for r in self.results)


def find_smi(ctx: Context) -> str | None:
    found = ctx.host.which("nvidia-smi")
    if found:
        return found
    return next((p for p in SMI_FALLBACK_PATHS if ctx.host.exists(p)), None)


def query(ctx: Context) -> SmiAnswer:
    return ctx.cached("nvidia-smi", lambda: _query(ctx))


def _argv(path: str, fields: tuple[str, ...]) -> list[str]:
    return [path, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"]


def _query(ctx: Context) -> SmiAnswer:
    path = find_smi(ctx)
    if path is None:
        return SmiAnswer(None, (), ())
    results = []
    for fields in (FIELDS, BASIC_FIELDS):
        res = ctx.host.run(_argv(path, fields), timeout=SMI_TIMEOUT_S)
        results.append(res)
        if res.ok:
            return SmiAnswer(path, tuple(_parse(res.stdout, fields)), tuple(results))
        # Retry with fewer fields only when this nvidia-smi refused one of them.
        if res.timed_out or "field" not in (res.stdout + res.stderr).lower():
            break
    return SmiAnswer(path, (), tuple(results))


def _parse(text: str, fields: tuple[str, ...]) -> list[dict[str, str | None]]:
    """Rows nvidia-smi could have printed; anything else (garbage, a broken
    install, a fake) is skipped, so its facts stay unknown."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields):
            continue
        row = {f: (None if c.lower() in _MISSING else c) for f, c in zip(fields, cells, strict=True)}
        if not _plausible(row):
            continue
        rows.append(row)
        if len(rows) > MAX_GPUS:
            return []  # not a real machine's answer
    return rows


def _plausible(row: dict[str, str | None]) -> bool:
    index, name = row.get("index"), row.get("name")
    if not (index and index.isdigit() and len(index) <= 3 and name and len(name) <= 96 and name.isprintable()):
        return False
    checks = (("driver_version", _VERSION), ("compute_cap", _CC))
    return all(row.get(key) is None or rx.fullmatch(row[key] or "") for key, rx in checks)
