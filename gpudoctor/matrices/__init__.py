"""The compatibility matrices: shipped TOML data (plus an optional user overlay
written by `gpudoctor matrix refresh`), loaded once, queried by rules,
install and plan.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import Any

from gpudoctor.matrices import gpu_names
from gpudoctor.matrices import records as r
from gpudoctor.matrices.framework_queries import FRAMEWORKS, FrameworkQueries, cudnn_text, torch_series
from gpudoctor.matrices.loader import (
    SHIPPED_DIR,
    TABLES,
    MatrixError,
    Tables,
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

__all__ = ["FRAMEWORKS", "Matrices", "MatrixError", "cudnn_text", "load_matrices", "overlay_dir", "torch_series"]

PYPI_SIMPLE = "https://pypi.org/simple"


def overlay_dir() -> str:
    """Where `matrix refresh` writes its user overlay (never over shipped data)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpudoctor", "matrices")


def _vkey(text: str | None) -> tuple[int, ...]:
    return parse_numeric(text) or ()


class Matrices(FrameworkQueries):
    """All tables, with the queries the rest of gpudoctor needs."""

    def __init__(self, tables: dict[str, Mapping[str, tuple[Any, ...]]], as_of: dict[str, str],
                 loader: Callable[[str], tuple[str, Mapping[str, tuple[Any, ...]]]] | None = None) -> None:
        # With a loader, a file is parsed the first time one of its tables is asked
        # for: `check` on a machine without torch never pays for torch.toml.
        self._t = dict(tables)
        self._as_of = dict(as_of)
        self._loader = loader
        self._gpu_words_cache: list[tuple[int, list[str]]] | None = None
        self._ranked: dict[tuple[str, float | None], list[tuple[int, r.GpuModel]]] = {}

    def _stem(self, stem: str) -> Mapping[str, tuple[Any, ...]]:
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

    def toolkit_min_driver(self, cuda: str | CudaVersion | None, os_name: str = "linux") -> str | None:
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

    def driver_max_cuda(self, driver: str | None, os_name: str = "linux") -> CudaVersion | None:
        """Newest CUDA major.minor whose toolkit driver is <= `driver`: what
        cuDriverGetVersion would report, derived when libcuda cannot be asked."""
        best: CudaVersion | None = None
        for t in self.toolkits:
            floor = t.min_driver_linux if os_name == "linux" else t.min_driver_windows
            cv = cuda_version(t.version)
            if not floor and cv and cv.minor == 0 and os_name != "linux":
                # NVIDIA gives no Windows driver per 13.x toolkit; the major's compatibility
                # floor (580.88 for 13) is its first driver, so it runs at least x.0.
                floor = self.minor_compat_floor(cv.major, os_name)
            if floor and cv and driver_at_least(driver, floor) and (best is None or cv > best):
                best = cv
        return best

    def arch_support(self, cuda: str | CudaVersion | None) -> tuple[str, ...]:
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

    def precision_quirks(self, name: str, cc: str | None) -> list[r.PrecisionQuirk]:
        """The [[precision_quirk]] rows that name a board ('NVIDIA GeForce GTX 1660 SUPER') of
        that compute capability."""
        return [q for q in gpu_names.families_of(self.table("gpus", "precision_quirk"), name)
                if q.compute_capability == cc]  # matched as a family's pattern

    def gpu_family(self, name: str) -> r.GpuFamily | None:
        """The family that gives a name's compute capability when no row does
        ('GeForce RTX 3060 Laptop GPU', 'Quadro P1000'); None when no family or
        more than one matches."""
        found = gpu_names.families_of(self.table("gpus", "family"), name)
        return found[0] if len(found) == 1 else None

    def gpu_shared_name(self, name: str) -> r.GpuSharedName | None:
        """The boards of different compute capabilities a name is sold as, when no row
        or family answers for it ('GeForce GT 640'); None otherwise."""
        found = gpu_names.families_of(self.table("gpus", "shared_name"), name)  # same matching as families
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


@functools.lru_cache(maxsize=4)
def load_matrices(shipped: str | None = None, overlay: str | None = "") -> Matrices:
    """Shipped data, with the user overlay's rows appended where it has newer
    ones. `overlay=None` disables the overlay; "" means the default place.
    Files are parsed lazily, on first use of one of their tables."""
    shipped_dir = shipped or SHIPPED_DIR
    over_path = overlay_dir() if overlay == "" else (overlay or None)

    def load(stem: str) -> tuple[str, Mapping[str, tuple[Any, ...]]]:
        shipped_file = load_file(shipped_dir, stem, lazy=True)
        as_of, shipped_tables = shipped_file if shipped_file is not None else ("", Tables((), tuple))
        extra = None
        if over_path is not None and os.path.isdir(over_path):
            try:
                extra = load_file(over_path, stem, lazy=True)
            except MatrixError:
                extra = None  # a broken overlay never hides the shipped data
        if extra is not None:
            as_of = max(as_of, extra[0])

        def merged(name: str) -> tuple[Any, ...]:
            have = shipped_tables.get(name, ())
            try:
                rows = extra[1].get(name, ()) if extra is not None else ()
            except MatrixError:
                return have  # nor does one broken overlay table
            keys = {row_key(stem, name, row) for row in have}
            # The overlay only adds: a row whose key the shipped data has is ignored.
            return have + tuple(row for row in rows if row_key(stem, name, row) not in keys)

        return as_of, Tables(TABLES[stem], merged)

    return Matrices({}, {}, loader=load)
