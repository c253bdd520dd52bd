"""Queries on the framework release tables (torch, tensorflow, jax, cudnn,
cupy): which release a version is, what it needs, and whether it is newer
than the data. Matrices inherits them; `table` is Matrices' own."""

from __future__ import annotations

import functools
from typing import Any

from packaging.version import InvalidVersion, Version

from gpudoctor.compat import kernel_for
from gpudoctor.matrices import records as r
from gpudoctor.versions import parse_numeric

# What `newest_known` and `is_newer_than_known` answer for.
FRAMEWORKS = ("torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib", "cudnn", "cupy", "cuda")


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


class FrameworkQueries:
    """The framework-release half of Matrices' queries."""

    def table(self, stem: str, name: str) -> tuple[Any, ...]:
        raise NotImplementedError  # Matrices reads the tables

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

    def current_torch_cuda_builds(self, series_count: int = 3) -> list[r.TorchBuild]:
        """The CUDA builds (with an arch list) of the newest `series_count` torch
        series: what people install now. Their CUDA sets which architectures any
        current framework build can carry."""
        series = sorted({b.series for b in self.torch_builds}, key=lambda v: parse_numeric(v) or ())
        current = set(series[-series_count:])
        return [b for b in self.torch_builds if b.series in current and b.variant.startswith("cu") and b.arch_list]

    def newest_torch_build_running(self, cc: Any, platform: str = "linux-x86_64") -> r.TorchBuild | None:
        """The newest torch CUDA build on `platform` with kernels (SASS or PTX) for `cc`."""
        runs = [b for b in self.torch_builds if b.platform == platform and b.variant.startswith("cu")
                and b.arch_list and kernel_for(cc, b.arch_list).runs]
        return max(runs, key=lambda b: (parse_numeric(b.series) or (), parse_numeric(b.variant[2:]) or ()),
                   default=None)

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
        # Every hit's start parses (_in_range checked it); `or v` only tells mypy so.
        return max(hits, key=lambda row: _version(row.version_from) or v) if hits else None

    # --- cuDNN ---------------------------------------------------------------------------
    @property
    def cudnn_releases(self) -> tuple[r.CudnnRelease, ...]:
        return self.table("cudnn", "release")

    def cudnn_release(self, version: str | int) -> r.CudnnRelease | None:
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

    # --- ONNX Runtime --------------------------------------------------------------------
    @property
    def onnxruntime_releases(self) -> tuple[r.OnnxruntimeRelease, ...]:
        return self.table("onnxruntime", "release")

    def onnxruntime_builds(self, version: str) -> list[r.OnnxruntimeRelease]:
        """The GPU builds (one per CUDA major) of an ONNX Runtime release; [] for a
        version the data does not know (newer than it, or not a version)."""
        v = _version(version)
        if v is None:
            return []
        return [row for row in self.onnxruntime_releases if _in_range(v, row.version_from, row.version_to)]

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
            versions = [t.version for t in self.table("cuda", "toolkit")]
        else:
            raise ValueError(f"unknown framework {framework!r} (known: {', '.join(FRAMEWORKS)})")
        parsed = [(text, v) for text in versions if (v := _version(text)) is not None]
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
