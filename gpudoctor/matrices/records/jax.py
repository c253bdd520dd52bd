"""The rows of jax.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class JaxRelease:
    """jax.toml [[release]]: requirements of a range of jax/jaxlib releases."""

    version_from: str  # "0.8.0"
    extras: tuple[str, ...]  # ("cuda12", "cuda12-local", "cuda13", "cuda13-local")
    source: str
    version_to: str | None = None  # inclusive; the newest release the data knows
    cuda12_min: str | None = None  # minimum CUDA 12 runtime, "12.1"
    cuda13_min: str | None = None
    cudnn_min: str | None = None  # floor the CUDA 12 (and 11) wheels pin
    cudnn13_min: str | None = None  # floor the CUDA 13 wheels pin (nvidia-cudnn-cu13)
    min_driver_cuda12: str | None = None
    min_driver_cuda13: str | None = None
    min_sm_cuda12: str | None = None  # "5.2"
    min_sm_cuda13: str | None = None  # "7.5"
    # CUDA 11 wheels (jax[cuda11_pip], up to 0.4.25): the runtime, cuDNN floor and driver they need.
    cuda11_min: str | None = None
    cudnn11_min: str | None = None
    min_driver_cuda11: str | None = None
    python_min: str | None = None
    note: str = ""
