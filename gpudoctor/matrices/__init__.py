"""The compatibility matrices: shipped TOML data (plus an optional user overlay
written by `gpudoctor matrix refresh`), loaded once, queried by rules,
install and plan.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from gpudoctor.matrices import gpu_names
from gpudoctor.matrices import records as r
from gpudoctor.matrices.loader import (
    SHIPPED_DIR,
    TABLES,
    MatrixError,
    load_file,
    row_key,
)
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


@functools.lru_cache(maxsize=1024)
def _cudnn_key(text: str | None) -> tuple[int, ...]:
    """cuDNN versions compare on major.minor.patch: the 4th field is a build."""
    return (parse_numeric(text) or ())[:3]


def _in_range(v: Version, lo: str, hi: str | None) -> bool:
    lo_v, hi_v = _version(lo), _version(hi)
    return lo_v is not None and lo_v <= v and (hi_v is None or v <= hi_v)


class Matrices:
    """All tables, with the queries the rest of gpudoctor needs."""

    def __init__(self, tables: dict[str, dict[str, tuple[Any, ...]]], as_of: dict[str, str],
                 loader: Callable[[str], tuple[str, dict[str, tuple[Any, ...]]]] | None = None) -> None:
        # With a loader, a file is parsed the first time one of its tables is asked
        # for: `check` on a machine without torch never pays for torch.toml.
        self._t = dict(tables)
        self._as_of = dict(as_of)
        self._loader = loader
        self._gpu_words_cache: list[tuple[int, list[str]]] | None = None
        self._ranked: dict[tuple[str, float | None], list[tuple[int, r.GpuModel]]] = {}

    def _stem(self, stem: str) -> dict[str, tuple[Any, ...]]:
        if stem not in self._t:
            if self._loader is None or stem not in TABLES:
                return {}
            self._as_of[stem], self._t[stem] = self._loader(stem)
        return self._t[stem]

    def table(self, stem: str, name: str) -> tuple[Any, ...]:
        return self._stem(stem).get(name, ())

    @property
    def as_of(self) -> dict[str, str]:
        """The `data_as_of` date of each matrix file (loads them all)."""
        for stem in TABLES:
            self._stem(stem)
        return self._as_of

    def data_as_of(self, stem: str) -> str | None:
        self._stem(stem)
        return self._as_of.get(stem)

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

    def arch_driver(self, cc: str | ComputeCapability) -> r.ArchDriver | None:
        """The driver range of an architecture (exact compute capability only:
        Jetson's 5.3/6.2/7.2/8.7/11.0 run their JetPack's driver and have no row)."""
        want = cc if isinstance(cc, ComputeCapability) else compute_capability(cc)
        for row in self.table("cuda", "arch_driver"):
            if want is not None and compute_capability(row.compute_capability) == want:
                return row
        return None

    # --- GPUs ------------------------------------------------------------------------
    @property
    def gpus(self) -> tuple[r.GpuModel, ...]:
        return self.table("gpus", "gpu")

    def gpu(self, name: str, memory_gb: float | None = None) -> r.GpuModel | None:
        """The model for a device or user-given name; None unless a row's name or
        NVML string matches word for word (a mere close spelling is not enough).
        `memory_gb` separates models that report the same name (RTX 4060 Ti 8/16 GB)."""
        ranked = self._rank_gpus(name, memory_gb)
        if not ranked or ranked[0][0] >= gpu_names.CLOSE_SPELLING:
            return None
        # A short name that several models share ("RTX 6000": Quadro RTX 6000 or RTX 6000 Ada)
        # names none of them unless they agree on the compute capability.
        best = [g for score, g in ranked if score == ranked[0][0]]
        if ranked[0][0] > 0 and len({g.compute_capability for g in best}) > 1:
            return None
        return ranked[0][1]

    def gpu_candidates(self, name: str, limit: int = 5, memory_gb: float | None = None) -> list[r.GpuModel]:
        """Models for a name, best first (gpu_names.rank): exact matches, then rows
        containing every word of the name, then rows whose words all occur in it,
        then close spellings."""
        return [g for _, g in self._rank_gpus(name, memory_gb)[:limit]]

    def gpu_matches(self, name: str) -> list[r.GpuModel]:
        """Every row whose words (or whose device name's words) match the name's,
        best first; close spellings excluded."""
        return [g for score, g in self._rank_gpus(name, None) if score < gpu_names.CLOSE_SPELLING]

    def gpu_family(self, name: str) -> r.GpuFamily | None:
        """The family that gives a name's compute capability when no row does
        ('GeForce RTX 3060 Laptop GPU', 'Quadro P1000'); None when no family or
        more than one matches."""
        found = gpu_names.families_of(self.table("gpus", "family"), name)
        return found[0] if len(found) == 1 else None

    def _rank_gpus(self, name: str, memory_gb: float | None) -> list[tuple[int, r.GpuModel]]:
        key = (name, memory_gb)
        if key not in self._ranked:  # rules and install planning ask about the same few names often
            if self._gpu_words_cache is None:
                self._gpu_words_cache = [(i, gpu_names.normalise(k).split()) for i, g in enumerate(self.gpus)
                                         for k in (g.name, *g.nvml_names)]
            self._ranked[key] = gpu_names.rank(self.gpus, self._gpu_words_cache, name, memory_gb)
        return self._ranked[key]

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
        """The CuPy wheel for a CUDA major (12 -> cupy-cuda12x): the unified one
        when the major has one, not a per-version package (cupy-cuda110)."""
        rows = [row for row in self.cupy_packages if row.cuda_major == cuda_major]
        unified = [row for row in rows if row.package.endswith("x")]
        best = unified or rows
        return best[0] if best else None

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
        (suggest `gpudoctor matrix refresh`); None when either does not parse.
        TensorFlow is judged by series and CuPy by major (see below)."""
        name = framework.strip().lower()
        have, newest = _version(version), _version(self.newest_known(name))
        if have is None or newest is None:
            return None
        if name == "cudnn":
            return _cudnn_key(str(have)) > _cudnn_key(str(newest))
        # A TensorFlow row describes a whole series and a CuPy row a whole
        # package: a new patch (or CuPy minor) changes neither, and refresh
        # cannot add one, so only a new series (CuPy major) counts as unknown.
        if name == "tensorflow" and self.tensorflow_release(str(have)) is not None:
            return False
        if name == "cupy":
            return have.major > newest.major
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


@functools.lru_cache(maxsize=4)
def load_matrices(shipped: str | None = None, overlay: str | None = "") -> Matrices:
    """Shipped data, with the user overlay's rows appended where it has newer
    ones. `overlay=None` disables the overlay; "" means the default place.
    Files are parsed lazily, on first use of one of their tables."""
    shipped_dir = Path(shipped) if shipped else SHIPPED_DIR
    over_path = overlay_dir() if overlay == "" else (Path(overlay) if overlay else None)

    def load(stem: str) -> tuple[str, dict[str, tuple[Any, ...]]]:
        as_of, tables = load_file(shipped_dir, stem) or ("", {})
        tables = {name: tables.get(name, ()) for name in TABLES[stem]}
        if over_path is not None and over_path.is_dir():
            try:
                extra = load_file(over_path, stem)
            except MatrixError:
                extra = None  # a broken overlay never hides the shipped data
            if extra is not None:
                o_as_of, o_tables = extra
                for name, rows in o_tables.items():
                    have = tables.get(name, ())
                    keys = {row_key(stem, name, row) for row in have}
                    # The overlay only adds: a row whose key the shipped data has is ignored.
                    tables[name] = have + tuple(row for row in rows if row_key(stem, name, row) not in keys)
                as_of = max(as_of, o_as_of)
        return as_of, tables

    return Matrices({}, {}, loader=load)
