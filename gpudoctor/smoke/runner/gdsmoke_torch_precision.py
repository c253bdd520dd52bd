"""What FP32 matmuls do in this process by default, read before any test changes it.

NVIDIA's containers set TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1: torch then starts with
float32 matmul precision "high", so every FP32 matmul of the user's code runs as TF32
(10-bit mantissa) while the GEMM tests, which pin "highest", still pass.
NVIDIA_TF32_OVERRIDE=0 does the opposite for every CUDA library: TF32 requests run
as full FP32. The runner records both variables and torch's defaults as facts and
measures one small FP32 product under the process default; the judge decides.
"""

import os

ENV_VARS = ("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "NVIDIA_TF32_OVERRIDE")


def _read(fn):
    try:
        return fn()
    except Exception as exc:  # an attribute this torch lacks, or a mixed-API guard
        text = str(exc).strip()
        return "error: %s" % (text.splitlines()[0][:200] if text else type(exc).__name__)


def precision_defaults(torch):
    """Never raises: a torch without one of these attributes records the error as the fact."""
    backends = getattr(torch, "backends", None)
    matmul = getattr(getattr(backends, "cuda", None), "matmul", None)
    cudnn = getattr(backends, "cudnn", None)
    facts = {"env": dict((k, os.environ.get(k)) for k in ENV_VARS),
             "float32_matmul_precision": _read(lambda: torch.get_float32_matmul_precision())}
    # torch >= 2.9 has the fp32_precision API; reading the legacy flags after the new API
    # has been used raises, so each is read on its own and only the legacy one as fallback.
    if matmul is not None and hasattr(matmul, "fp32_precision"):
        facts["cuda_matmul_fp32_precision"] = _read(lambda: str(matmul.fp32_precision))
    facts["cuda_matmul_allow_tf32"] = _read(lambda: bool(matmul.allow_tf32))
    conv = getattr(cudnn, "conv", None)
    if conv is not None and hasattr(conv, "fp32_precision"):
        facts["cudnn_conv_fp32_precision"] = _read(lambda: str(conv.fp32_precision))
    else:
        facts["cudnn_allow_tf32"] = _read(lambda: bool(cudnn.allow_tf32))
    return facts


def default_fp32_error(torch, device, numerics):
    """Normwise error of a small FP32 product under the process default precision
    (no pinning): TF32-sized (1e-4..1e-3) when FP32 silently runs as TF32."""
    try:
        err, finite = numerics(torch, "fp32", device)
    except Exception as exc:
        return None, str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    return (err if finite else None), None
