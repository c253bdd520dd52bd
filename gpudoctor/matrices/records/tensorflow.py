"""The rows of tensorflow.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class TensorflowRelease:
    """tensorflow.toml [[release]]: tested build configuration of one release."""

    version: str  # "2.18"
    python_min: str
    python_max: str
    source: str
    cuda: str | None = None  # "12.5"
    cudnn: str | None = None  # "9.3"
    and_cuda_extra: bool = False  # `pip install tensorflow[and-cuda]` exists
    windows_native_gpu: bool = False
    arch_list: tuple[str, ...] = ()
    # The patch releases of this series on PyPI ("2.15.0", "2.15.0.post1", "2.15.1").
    releases: tuple[str, ...] = ()
    # Floors that `tensorflow[and-cuda]` pins in its wheel metadata (nvidia-*-cu12 >= ...):
    and_cuda_runtime: str | None = None  # nvidia-cuda-runtime-cu12 floor, "12.5.82"
    and_cuda_cudnn: str | None = None  # nvidia-cudnn-cu12 floor, "9.3.0.75"
    gpu_package: str | None = None  # the GPU wheel's name when it is not `tensorflow` ("tensorflow-gpu", <= 2.0)
    note: str = ""
