"""The rows of cuda.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class CudaToolkit:
    """cuda.toml [[toolkit]]: the driver bundled with each toolkit release
    (NVIDIA release notes, "CUDA Toolkit and Corresponding Driver Versions")."""

    version: str  # "12.8.1" for 12.8 Update 1, "12.8.0" for GA
    label: str  # "12.8 Update 1", as NVIDIA names it
    # None where the release notes' driver row was not retrieved: the major's
    # minor-version floor still runs it (the loader still demands a source).
    min_driver_linux: str | None = None
    source: str = ""
    min_driver_windows: str | None = None  # None where NVIDIA lists N/A (13.x)
    cudart: str | None = None  # libcudart version shipped, "12.8.57"
    note: str = ""


@frozen
class MinorCompat:
    """cuda.toml [[minor_compat]]: the lowest driver that runs every minor
    release of a CUDA major through minor-version compatibility."""

    cuda_major: int
    min_driver_linux: str
    source: str
    min_driver_windows: str | None = None
    note: str = ""


@frozen
class ArchSupport:
    """cuda.toml [[arch_support]]: the real SASS targets nvcc accepts for a
    range of toolkits (inclusive), e.g. 12.8..12.8 -> sm_50..sm_120."""

    cuda_from: str  # "12.8"
    sm: tuple[str, ...]  # ("sm_50", ..., "sm_120")
    source: str
    cuda_to: str | None = None  # inclusive; None = still current
    note: str = ""


@frozen
class DriverBranch:
    """cuda.toml [[driver_branch]]: what a driver branch runs and supports."""

    branch: int  # 535, 580
    max_cuda_major: int  # newest CUDA major without the forward-compat package
    source: str
    designation: str | None = None  # "LTSB", "Production Branch", "New Feature Branch"
    end_of_life: str | None = None  # "2028-06"
    # Architectures for which this is the last branch ("Maxwell", "Pascal", "Volta").
    last_for_arch: tuple[str, ...] = ()
    note: str = ""


@frozen
class ArchDriver:
    """cuda.toml [[arch_driver]]: the driver range that runs one architecture
    (NVIDIA's "CUDA Toolkit, Driver, and Architecture Matrix")."""

    compute_capability: str  # "12.0"
    arch: str  # "Blackwell"
    first_cuda: str  # first toolkit that supports it, "12.8"
    source: str
    min_driver_linux: str | None = None  # that toolkit's driver; None: any driver in use
    min_driver_windows: str | None = None
    last_branch: int | None = None  # newest branch that still supports it (580 for Pascal)
    note: str = ""
