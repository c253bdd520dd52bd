"""The rows of cupy.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class CupyPackage:
    """cupy.toml [[package]]: a CuPy wheel name and the CUDA it needs."""

    package: str  # "cupy-cuda12x"
    cuda_major: int
    source: str
    cuda_min: str | None = None  # "12.0"
    version_from: str | None = None  # first CuPy release with this package
    version_to: str | None = None
    # First release whose wheel has the [ctk] extra (CUDA components from PyPI);
    # None: the package never had it (cupy-cuda11x needs a local CUDA Toolkit).
    ctk_extra_from: str | None = None
    note: str = ""
