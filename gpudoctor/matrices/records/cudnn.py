"""The rows of cudnn.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class CudnnRelease:
    """cudnn.toml [[release]]: support matrix of a cuDNN release range."""

    version_from: str  # "9.11.0"
    cuda_majors: tuple[int, ...]  # (12, 13)
    min_sm: str  # "7.5"
    source: str
    version_to: str | None = None
    max_sm: str | None = None
    min_driver_linux: str | None = None  # for the newest CUDA major it supports
    min_driver_windows: str | None = None
    note: str = ""
