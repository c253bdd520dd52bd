"""`gpudoctor matrix refresh`: learn releases newer than the shipped data from
PyPI's JSON API and write them as a user overlay.

The only network access gpudoctor makes, and only on that explicit command.
What PyPI metadata tells is derived; what it does not tell (arch lists, driver
floors) is left empty or carried over from the newest shipped row, and the
row's note says which. The overlay is rebuilt from scratch against the shipped
data on every run, validated by the same loader, and written atomically; it
never replaces a shipped row (see load_matrices).
"""

from __future__ import annotations

import difflib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

from gpudoctor.matrices import PYPI_SIMPLE, Matrices, torch_series
from gpudoctor.matrices import records as r
from gpudoctor.matrices.loader import MatrixError, parse_file
from gpudoctor.matrices.pypi_metadata import (
    LINUX_X86,
    PYPI_JSON,
    PyPI,
    RefreshError,
    _date,
    _major_minor,
    _v,
    cuda_of,
    cudnn_of,
    nccl_of,
    pins,
    python_floor,
    releases_after,
    wheel_pythons,
)
from gpudoctor.matrices.tomlwrite import dump

# --- deriving rows ---------------------------------------------------------------------------------
@dataclass
class Plan:
    """What `matrix refresh` learned from PyPI: new rows by matrix file and table, and what it skipped."""

    rows: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, stem: str, table: str, row: Any) -> None:
        self.rows.setdefault(stem, {}).setdefault(table, []).append(row)

    def count(self) -> int:
        return sum(len(rows) for tables in self.rows.values() for rows in tables.values())


def _derived(today: str, what: str) -> str:
    return f"Derived by `gpudoctor matrix refresh` on {today} from PyPI metadata; {what}"


def derive_torch(m: Matrices, pypi: PyPI, plan: Plan, today: str) -> None:
    proj = pypi.project("torch")
    known_series = {b.series for b in m.torch_builds}
    for v in releases_after(proj, m.newest_known("torch")):
        files = proj["releases"][v]
        info = pypi.release_info("torch", v, proj)
        pys = wheel_pythons(files)
        lo = python_floor((info or {}).get("requires_python")) or (f"{pys[0][0]}.{pys[0][1]}" if pys else None)
        if not pys or lo is None:
            plan.notes.append(f"torch {v}: no CPython wheels on PyPI; skipped")
            continue
        url = f"{PYPI_JSON}/torch/{v}/json" if info is not proj["info"] else f"{PYPI_JSON}/torch/json"
        plan.add("torch", "release", r.TorchRelease(
            version=v, python_min=lo, python_max=f"{pys[-1][0]}.{pys[-1][1]}", released=_date(files), source=url,
            note=_derived(today, "torchvision/torchaudio pairing not derived.")))
        series = torch_series(v)
        if series in known_series:
            continue
        if info is None:
            plan.notes.append(f"torch {v}: PyPI serves no per-release metadata; the {series} build rows were not derived")
            continue
        p = pins(info.get("requires_dist"), LINUX_X86)
        cuda = cuda_of(p)
        if cuda is None:
            plan.notes.append(f"torch {v}: no CUDA pins in its metadata; the {series} build rows were not derived")
            continue
        known_series.add(series)
        variant = "cu" + cuda.replace(".", "")
        plan.add("torch", "build", r.TorchBuild(
            series=series, variant=variant, platform="linux-x86_64", cuda=cuda, cudnn=cudnn_of(p), nccl=nccl_of(p),
            pypi_default=True, index_url=PYPI_SIMPLE, source=url,
            note=_derived(today, f"CUDA {cuda} from the CUDA runtime pins of torch {v}; the arch list is not in the "
                                 "metadata (empty = unknown).")))


def derive_tensorflow(m: Matrices, pypi: PyPI, plan: Plan, today: str) -> None:
    proj = pypi.project("tensorflow")
    known = {rel.version for rel in m.tensorflow_releases}
    newest = m.newest_known("tensorflow")
    by_series: dict[str, list[str]] = {}
    for v in releases_after(proj, newest):
        by_series.setdefault(torch_series(v), []).append(v)
    for series, versions in by_series.items():
        if series in known:
            plan.notes.append(f"tensorflow {', '.join(versions)}: new patch release(s) of the known {series} series; "
                              "its shipped row stays")
            continue
        latest = versions[-1]
        files = proj["releases"][latest]
        info = pypi.release_info("tensorflow", latest, proj) or {}
        pys = wheel_pythons(files)
        if not pys:
            plan.notes.append(f"tensorflow {latest}: no CPython wheels on PyPI; skipped")
            continue
        p = pins(info.get("requires_dist"), LINUX_X86, extra="and-cuda")
        runtime, dnn = p.get("nvidia-cuda-runtime-cu12"), p.get("nvidia-cudnn-cu12")
        url = f"{PYPI_JSON}/tensorflow/json" if info is proj["info"] else f"{PYPI_JSON}/tensorflow/{latest}/json"
        plan.add("tensorflow", "release", r.TensorflowRelease(
            version=series, python_min=python_floor(info.get("requires_python")) or f"3.{pys[0][1]}",
            python_max=f"3.{pys[-1][1]}", cuda=_major_minor(runtime), cudnn=_major_minor(dnn),
            and_cuda_extra=bool(runtime or dnn), and_cuda_runtime=runtime, and_cuda_cudnn=dnn,
            releases=tuple(versions), source=url,
            note=_derived(today, "CUDA/cuDNN are the [and-cuda] floors, not the tested build configuration; "
                                 "arch list not in the metadata.")))


def derive_jax(m: Matrices, pypi: PyPI, plan: Plan, today: str) -> None:
    proj = pypi.project("jax")
    new = releases_after(proj, m.newest_known("jax"))
    jaxlib = pypi.project("jaxlib")
    plug12, plug13 = pypi.project("jax-cuda12-plugin"), pypi.project("jax-cuda13-plugin")
    lib_new = releases_after(jaxlib, m.newest_known("jaxlib"))
    if lib_new != new:
        plan.notes.append(f"jaxlib releases after the data ({', '.join(lib_new) or 'none'}) differ from jax's "
                          f"({', '.join(new) or 'none'})")
    if not new:
        return
    first, last = new[0], new[-1]
    info = pypi.release_info("jax", last, proj) or {}
    extras = tuple(sorted({e for line in info.get("requires_dist") or () for e in re.findall(r'extra == "([^"]+)"', line)
                           if e.startswith("cuda")}))
    prev = max(m.jax_releases, key=lambda row: Version(row.version_from), default=None)
    p12 = pins((pypi.release_info("jax-cuda12-plugin", last, plug12) or {}).get("requires_dist"), LINUX_X86, "with-cuda")
    p13 = pins((pypi.release_info("jax-cuda13-plugin", last, plug13) or {}).get("requires_dist"), LINUX_X86, "with-cuda")
    carried = "min driver and SM carried over from the newest shipped range (not in PyPI metadata)."
    plan.add("jax", "release", r.JaxRelease(
        version_from=first, version_to=last, extras=extras or (prev.extras if prev else ()),
        python_min=python_floor(info.get("requires_python")) or (prev.python_min if prev else None),
        cuda12_min=_major_minor(p12.get("nvidia-cuda-runtime-cu12")) or (prev.cuda12_min if prev else None),
        cuda13_min=_major_minor(p13.get("nvidia-cuda-runtime")) or (prev.cuda13_min if prev else None),
        cudnn_min=p12.get("nvidia-cudnn-cu12") or (prev.cudnn_min if prev else None),
        cudnn13_min=p13.get("nvidia-cudnn-cu13") or (prev.cudnn13_min if prev else None),
        min_driver_cuda12=prev.min_driver_cuda12 if prev else None, min_driver_cuda13=prev.min_driver_cuda13 if prev else None,
        min_sm_cuda12=prev.min_sm_cuda12 if prev else None, min_sm_cuda13=prev.min_sm_cuda13 if prev else None,
        source=f"{PYPI_JSON}/jax/json; {PYPI_JSON}/jax-cuda12-plugin/json; {PYPI_JSON}/jax-cuda13-plugin/json",
        note=_derived(today, carried)))


def _cudnn3(v: Version) -> tuple[int, ...]:
    return v.release[:3]


def derive_cudnn(m: Matrices, pypi: PyPI, plan: Plan, today: str) -> None:
    newest = m.newest_known("cudnn")
    found: dict[str, set[int]] = {}
    for major, name in ((12, "nvidia-cudnn-cu12"), (13, "nvidia-cudnn-cu13")):
        for v in releases_after(pypi.project(name), newest, key=_cudnn3):
            found.setdefault(".".join(map(str, Version(v).release[:3])), set()).add(major)
    if not found:
        return
    ordered = sorted(found, key=Version)
    prev = max(m.cudnn_releases, key=lambda row: Version(row.version_from), default=None)
    # One range per run of releases with the same CUDA majors: 9.28.1 has a cu13 wheel only.
    runs: list[list[str]] = []
    for v in ordered:
        if runs and found[runs[-1][-1]] == found[v]:
            runs[-1].append(v)
        else:
            runs.append([v])
    for run in runs:
        plan.add("cudnn", "release", r.CudnnRelease(
            version_from=run[0], version_to=run[-1], cuda_majors=tuple(sorted(found[run[0]])),
            min_sm=prev.min_sm if prev else "7.5", max_sm=prev.max_sm if prev else None,
            min_driver_linux=prev.min_driver_linux if prev else None,
            min_driver_windows=prev.min_driver_windows if prev else None,
            source=f"{PYPI_JSON}/nvidia-cudnn-cu12/json; {PYPI_JSON}/nvidia-cudnn-cu13/json",
            note=_derived(today, "CUDA majors from the wheels on PyPI; SM range and drivers carried over from the "
                                 "newest shipped range (not in PyPI metadata).")))


def note_cupy_and_cuda(m: Matrices, pypi: PyPI, plan: Plan) -> None:
    for row in (m.cupy_package(12), m.cupy_package(13)):
        if row is None:
            continue
        new = releases_after(pypi.project(row.package), row.version_to)
        if new:
            plan.notes.append(f"{row.package} {new[-1]} is newer than the data ({row.version_to}); "
                              f"it still needs CUDA {row.cuda_major}.x")
    newest_toolkit = _v(m.newest_known("cuda"))
    for name in ("nvidia-cuda-runtime", "nvidia-cuda-runtime-cu12"):
        for v in releases_after(pypi.project(name), None)[-1:]:
            mm = _v(_major_minor(v))
            if newest_toolkit and mm and mm > Version(_major_minor(str(newest_toolkit)) or "0"):
                plan.notes.append(f"{name} {v}: CUDA {mm} is newer than the toolkit table ({newest_toolkit}); its driver "
                                  "floor is not in PyPI metadata (minor-version compatibility of its major applies)")


def build_plan(shipped: Matrices, pypi: PyPI, today: str) -> Plan:
    plan = Plan()
    derive_torch(shipped, pypi, plan, today)
    derive_tensorflow(shipped, pypi, plan, today)
    derive_jax(shipped, pypi, plan, today)
    derive_cudnn(shipped, pypi, plan, today)
    note_cupy_and_cuda(shipped, pypi, plan)
    return plan


# --- writing the overlay ------------------------------------------------------------------------------
HEADER = ("Overlay written by `gpudoctor matrix refresh` from PyPI metadata. It only adds\n"
          "rows newer than the shipped data and is rebuilt on every refresh; delete it to\n"
          "go back to the shipped data.")


def render(plan: Plan, today: str) -> dict[str, str]:
    """{file stem: TOML text}, each validated by the loader."""
    out = {}
    for stem, tables in sorted(plan.rows.items()):
        text = dump(HEADER, today, tables)
        try:
            parse_file(stem, text, f"overlay {stem}.toml")
        except MatrixError as exc:  # a derived row the schema rejects is a bug here
            raise RefreshError(f"derived data failed validation: {exc}") from None
        out[stem] = text
    return out


def diff(directory: Path, texts: dict[str, str]) -> str:
    """Unified diff from the overlay on disk to the one `texts` describes."""
    chunks: list[str] = []
    stems = sorted(set(texts) | {p.stem for p in directory.glob("*.toml")} if directory.is_dir() else set(texts))
    for stem in stems:
        path = directory / f"{stem}.toml"
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        new = texts.get(stem, "")
        chunks.extend(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                           f"{path} (current)", f"{path} (refreshed)"))
    return "".join(chunks)


def write(directory: Path, texts: dict[str, str]) -> list[Path]:
    """Replace the overlay atomically file by file; remove stale overlay files."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, text in texts.items():
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, directory / f"{stem}.toml")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(directory / f"{stem}.toml")
    for path in directory.glob("*.toml"):
        if path.stem not in texts:
            path.unlink()
    return written
