"""The compatibility matrices: shipped TOML data (plus an optional user overlay
written by `gpudoctor matrix refresh`), loaded once, queried by rules,
install and plan.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from gpudoctor.matrices import records as r
from gpudoctor.matrices.loader import SHIPPED_DIR, TABLES, MatrixError, load_dir, row_key
from gpudoctor.versions import (
    ComputeCapability,
    CudaVersion,
    compute_capability,
    cuda_version,
    driver_at_least,
    parse_numeric,
)

__all__ = ["FRAMEWORKS", "Matrices", "MatrixError", "load_matrices", "overlay_dir"]

PYPI_SIMPLE = "https://pypi.org/simple"

# What `newest_known` and `is_newer_than_known` answer for.
FRAMEWORKS = ("torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib", "cudnn", "cupy", "cuda")


def overlay_dir() -> Path:
    """Where `matrix refresh` writes its user overlay (never over shipped data)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpudoctor" / "matrices"


def _vkey(text: str | None) -> tuple[int, ...]:
    return parse_numeric(text) or ()


def _version(text: str | None) -> Version | None:
    """packaging's Version, with any local tag ("+cu130") dropped; None on junk."""
    if not text:
        return None
    try:
        return Version(str(text).split("+", 1)[0].strip())
    except InvalidVersion:
        return None


def _cudnn_key(text: str | None) -> tuple[int, ...]:
    """cuDNN versions compare on major.minor.patch: the 4th field is a build."""
    return (parse_numeric(text) or ())[:3]


def _in_range(v: Version, lo: str, hi: str | None) -> bool:
    lo_v, hi_v = _version(lo), _version(hi)
    return lo_v is not None and lo_v <= v and (hi_v is None or v <= hi_v)


class Matrices:
    """All tables, with the queries the rest of gpudoctor needs."""

    def __init__(self, tables: dict[str, dict[str, tuple[Any, ...]]], as_of: dict[str, str]) -> None:
        self._t = tables
        self.as_of = as_of

    def table(self, stem: str, name: str) -> tuple[Any, ...]:
        return self._t.get(stem, {}).get(name, ())

    # --- CUDA toolkit and driver -------------------------------------------------
    @property
    def toolkits(self) -> tuple[r.CudaToolkit, ...]:
        return self.table("cuda", "toolkit")

    @property
    def minor_compat(self) -> tuple[r.MinorCompat, ...]:
        return self.table("cuda", "minor_compat")

    def toolkit_min_driver(self, cuda: str | CudaVersion, os_name: str = "linux") -> str | None:
        """Driver bundled with the first (GA) release of that CUDA major.minor."""
        cv = cuda if isinstance(cuda, CudaVersion) else cuda_version(cuda)
        if cv is None:
            return None
        rows = [t for t in self.toolkits if cuda_version(t.version) == cv]
        values = [t.min_driver_linux if os_name == "linux" else t.min_driver_windows for t in rows]
        values = [v for v in values if v]
        return min(values, key=_vkey) if values else None

    def minor_compat_floor(self, cuda_major: int, os_name: str = "linux") -> str | None:
        for row in self.minor_compat:
            if row.cuda_major == cuda_major:
                return row.min_driver_linux if os_name == "linux" else row.min_driver_windows
        return None

    def driver_max_cuda(self, driver: str, os_name: str = "linux") -> CudaVersion | None:
        """Newest CUDA major.minor whose toolkit driver is <= `driver`: what
        cuDriverGetVersion would report, derived when libcuda cannot be asked."""
        best: CudaVersion | None = None
        for t in self.toolkits:
            floor = t.min_driver_linux if os_name == "linux" else t.min_driver_windows
            cv = cuda_version(t.version)
            if floor and cv and driver_at_least(driver, floor) and (best is None or cv > best):
                best = cv
        return best

    def arch_support(self, cuda: str | CudaVersion) -> tuple[str, ...]:
        """Real SASS targets nvcc of that toolkit can compile for."""
        cv = cuda if isinstance(cuda, CudaVersion) else cuda_version(cuda)
        if cv is None:
            return ()
        for row in self.table("cuda", "arch_support"):
            lo, hi = cuda_version(row.cuda_from), cuda_version(row.cuda_to) if row.cuda_to else None
            if lo and lo <= cv and (hi is None or cv <= hi):
                return row.sm
        return ()

    @property
    def driver_branches(self) -> tuple[r.DriverBranch, ...]:
        return self.table("cuda", "driver_branch")

    # --- GPUs ------------------------------------------------------------------------
    @property
    def gpus(self) -> tuple[r.GpuModel, ...]:
        return self.table("gpus", "gpu")

    def gpu(self, name: str) -> r.GpuModel | None:
        """The model for a device or user-given name; None when nothing is close."""
        hits = self.gpu_candidates(name, limit=1)
        return hits[0] if hits else None

    def gpu_candidates(self, name: str, limit: int = 5) -> list[r.GpuModel]:
        norm = _norm_gpu(name)
        if not norm:
            return []
        exact = [g for g in self.gpus
                 if norm == _norm_gpu(g.name) or norm in (_norm_gpu(n) for n in g.nvml_names)]
        if exact:
            return exact[:limit]
        keys: dict[str, r.GpuModel] = {}
        for g in self.gpus:
            for key in (g.name, *g.nvml_names):
                keys.setdefault(_norm_gpu(key), g)
        # Substring either way ("4090" in "geforce rtx 4090"), preferring the tightest.
        subs = sorted((k for k in keys if norm in k or k in norm), key=lambda k: abs(len(k) - len(norm)))
        picked: list[r.GpuModel] = []
        for k in subs + difflib.get_close_matches(norm, list(keys), n=limit, cutoff=0.6):
            if keys[k] not in picked:
                picked.append(keys[k])
        return picked[:limit]

    def precision(self, cc: str | ComputeCapability) -> r.PrecisionSupport | None:
        want = cc if isinstance(cc, ComputeCapability) else compute_capability(cc)
        if want is None:
            return None
        rows = [(compute_capability(p.compute_capability), p) for p in self.table("gpus", "precision")]
        exact = [p for c, p in rows if c == want]
        if exact:
            return exact[0]
        # An unlisted minor inherits the closest lower row of the same major (8.7 -> 8.6).
        same = sorted(((c, p) for c, p in rows if c and c.major == want.major and c <= want), key=lambda x: x[0])
        return same[-1][1] if same else None

    # --- PyTorch -----------------------------------------------------------------------
    @property
    def torch_releases(self) -> tuple[r.TorchRelease, ...]:
        return self.table("torch", "release")

    @property
    def torch_builds(self) -> tuple[r.TorchBuild, ...]:
        return self.table("torch", "build")

    def torch_release(self, version: str) -> r.TorchRelease | None:
        public = version.split("+", 1)[0]
        for rel in self.torch_releases:
            if rel.version == public:
                return rel
        return None

    def torch_build(self, version: str, variant: str, platform: str = "linux-x86_64",
                    pypi: bool | None = None) -> r.TorchBuild | None:
        """The build of `variant` for the series of `version` on `platform`.

        A variant can exist twice: as PyPI's default wheel and on
        download.pytorch.org (the PyPI cu13x wheels carry no PTX). `pypi=True`
        or False picks one; None prefers the PyPI row, the common install path
        (a PyPI wheel's dist-info version has no "+cuXXX" tag, its version.py has).
        """
        series = torch_series(version)
        rows = [b for b in self.torch_builds
                if b.series == series and b.variant == variant and b.platform == platform
                and (pypi is None or b.pypi_default == pypi)]
        rows.sort(key=lambda b: not b.pypi_default)
        return rows[0] if rows else None

    def torch_pypi_build(self, version: str, platform: str = "linux-x86_64") -> r.TorchBuild | None:
        """What a plain `pip install torch==version` gets on `platform`."""
        series = torch_series(version)
        for b in self.torch_builds:
            if b.series == series and b.platform == platform and b.pypi_default:
                return b
        return None

    def torch_builds_of(self, version: str, platform: str | None = None) -> list[r.TorchBuild]:
        series = torch_series(version)
        return [b for b in self.torch_builds
                if b.series == series and (platform is None or b.platform == platform)]

    def newest_torch(self) -> str | None:
        return self.newest_known("torch")

    # --- TensorFlow ----------------------------------------------------------------------
    @property
    def tensorflow_releases(self) -> tuple[r.TensorflowRelease, ...]:
        return self.table("tensorflow", "release")

    def tensorflow_release(self, version: str) -> r.TensorflowRelease | None:
        """The row of the minor series of `version` ("2.18.1" -> the 2.18 row)."""
        series = torch_series(version)
        for rel in self.tensorflow_releases:
            if rel.version == series:
                return rel
        return None

    # --- JAX -----------------------------------------------------------------------------
    @property
    def jax_releases(self) -> tuple[r.JaxRelease, ...]:
        return self.table("jax", "release")

    def jax_requirements(self, version: str) -> r.JaxRelease | None:
        """The range that contains `version` (jax or jaxlib; they release together).
        None for a version outside every range, e.g. newer than the data knows."""
        v = _version(version)
        if v is None:
            return None
        hits = [row for row in self.jax_releases if _in_range(v, row.version_from, row.version_to)]
        # An overlay range may start inside an open shipped one: the later start wins.
        return max(hits, key=lambda row: _version(row.version_from)) if hits else None

    # --- cuDNN ---------------------------------------------------------------------------
    @property
    def cudnn_releases(self) -> tuple[r.CudnnRelease, ...]:
        return self.table("cudnn", "release")

    def cudnn_release(self, version: str) -> r.CudnnRelease | None:
        """The support-matrix range of a cuDNN version ("9.10.2.21", "9.10.2", 91002)."""
        key = _cudnn_key(cudnn_text(version))
        if not key:
            return None
        hits = [row for row in self.cudnn_releases
                if _cudnn_key(row.version_from) <= key
                and (row.version_to is None or key <= _cudnn_key(row.version_to))]
        return max(hits, key=lambda row: _cudnn_key(row.version_from)) if hits else None

    def cudnn_min_sm(self, version: str) -> str | None:
        """Lowest compute capability a cuDNN release supports (9.11+: "7.5")."""
        row = self.cudnn_release(version)
        return row.min_sm if row else None

    # --- CuPy ----------------------------------------------------------------------------
    @property
    def cupy_packages(self) -> tuple[r.CupyPackage, ...]:
        return self.table("cupy", "package")

    def cupy_package(self, cuda_major: int) -> r.CupyPackage | None:
        """The CuPy wheel for a CUDA major (12 -> cupy-cuda12x)."""
        for row in self.cupy_packages:
            if row.cuda_major == cuda_major:
                return row
        return None

    def cupy_package_named(self, name: str) -> r.CupyPackage | None:
        want = name.strip().lower().replace("_", "-")
        for row in self.cupy_packages:
            if row.package == want:
                return row
        return None

    # --- What the data knows -------------------------------------------------------------
    def newest_known(self, framework: str) -> str | None:
        """The newest release of `framework` in the data (shipped plus overlay);
        one of FRAMEWORKS. None when the data has none."""
        name = framework.strip().lower()
        if name == "torch":
            versions = [rel.version for rel in self.torch_releases]
        elif name in ("torchvision", "torchaudio"):
            versions = [getattr(rel, name) for rel in self.torch_releases if getattr(rel, name)]
        elif name == "tensorflow":
            versions = [v for rel in self.tensorflow_releases for v in (rel.releases or (rel.version,))]
        elif name in ("jax", "jaxlib"):
            versions = [row.version_to or row.version_from for row in self.jax_releases]
        elif name == "cudnn":
            versions = [row.version_to or row.version_from for row in self.cudnn_releases]
        elif name == "cupy":
            versions = [row.version_to for row in self.cupy_packages if row.version_to]
        elif name == "cuda":
            versions = [t.version for t in self.toolkits]
        else:
            raise ValueError(f"unknown framework {framework!r} (known: {', '.join(FRAMEWORKS)})")
        parsed = [(v, _version(v)) for v in versions]
        parsed = [(text, v) for text, v in parsed if v is not None]
        return max(parsed, key=lambda p: p[1])[0] if parsed else None

    def is_newer_than_known(self, framework: str, version: str) -> bool | None:
        """True when `version` is past everything the data knows of `framework`
        (suggest `gpudoctor matrix refresh`); None when either does not parse."""
        have, newest = _version(version), _version(self.newest_known(framework))
        if have is None or newest is None:
            return None
        if framework.strip().lower() == "cudnn":
            return _cudnn_key(str(have)) > _cudnn_key(str(newest))
        return have > newest


def torch_series(version: str) -> str:
    """'2.14.1+cu130' -> '2.14'."""
    nums = parse_numeric(version.split("+", 1)[0]) or ()
    return ".".join(str(n) for n in nums[:2])


def cudnn_text(version: str | int) -> str:
    """A cuDNN version as text; CUDNN_VERSION integers are decoded
    (8902 -> "8.9.2", 91002 -> "9.10.2": 9.x uses major*10000)."""
    if isinstance(version, int) or str(version).isdigit():
        v = int(version)
        if v >= 10000:
            return f"{v // 10000}.{(v // 100) % 100}.{v % 100}"
        return f"{v // 1000}.{(v // 100) % 10}.{v % 100}"
    return str(version)


def _norm_gpu(name: str) -> str:
    s = name.lower()
    s = re.sub(r"\b(nvidia|geforce|tesla|quadro)\b", " ", s)
    s = re.sub(r"[^a-z0-9]+", " ", s)
    return " ".join(s.split())


@functools.lru_cache(maxsize=4)
def load_matrices(shipped: str | None = None, overlay: str | None = "") -> Matrices:
    """Shipped data, with the user overlay's rows appended where it has newer
    ones. `overlay=None` disables the overlay; "" means the default place."""
    as_of, tables = load_dir(Path(shipped) if shipped else SHIPPED_DIR)
    over_path = overlay_dir() if overlay == "" else (Path(overlay) if overlay else None)
    if over_path is not None and over_path.is_dir():
        try:
            o_as_of, o_tables = load_dir(over_path)
        except MatrixError:
            o_as_of, o_tables = {}, {}  # a broken overlay never hides the shipped data
        for stem, tabs in o_tables.items():
            for name, rows in tabs.items():
                have = tables.setdefault(stem, {}).setdefault(name, ())
                keys = {row_key(stem, name, row) for row in have}
                # The overlay only adds: a row whose key the shipped data has is ignored.
                tables[stem][name] = have + tuple(row for row in rows if row_key(stem, name, row) not in keys)
            as_of[stem] = max(as_of.get(stem, ""), o_as_of.get(stem, ""))
    for stem in TABLES:
        for name in TABLES[stem]:
            tables.setdefault(stem, {}).setdefault(name, ())
    return Matrices(tables, as_of)
