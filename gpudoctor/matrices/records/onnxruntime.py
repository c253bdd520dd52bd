"""The rows of onnxruntime.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from gpudoctor.frozen import frozen


@frozen
class OnnxruntimeRelease:
    """onnxruntime.toml [[release]]: the GPU build of a range of ONNX Runtime releases
    (inclusive) for one CUDA major, as ONNX Runtime's requirements table gives it."""

    version_from: str  # "1.15.0"
    version_to: str  # inclusive: "1.17.99" covers every 1.17 patch release
    cuda_major: int
    source: str
    cuda: str | None = None  # "11.8"; None where the table says only "12.x"
    cudnn: str | None = None  # "8.2.4" (Linux), or the major alone ("9") where the table says "9.x"
    on_pypi: bool = False  # what `pip install onnxruntime-gpu` installs for these releases
    note: str = ""
