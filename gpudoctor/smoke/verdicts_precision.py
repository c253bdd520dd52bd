"""TF32 in the target process: what the user's FP32 matmuls really run as (GD718, GD719).

Judged from facts the runner read before any test (the two override variables and torch's
defaults), with the error of a small FP32 product under the process default as measured
support. Only GPUs with TF32 (sm_80+) are concerned: older ones run FP32 whatever is set.
"""

from __future__ import annotations

from gpudoctor.findings import Evidence, Finding, Fix
from gpudoctor.matrices import Matrices
from gpudoctor.rules import smoke_codes as codes
from gpudoctor.smoke import expect
from gpudoctor.smoke.model import GpuResult

TORCH_ENV_DOC = "https://docs.pytorch.org/docs/stable/cuda_environment_variables.html"
NVIDIA_ENV_SOURCE = "NVIDIA_TF32_OVERRIDE=0 turns TF32 off in all NVIDIA libraries " \
                    "(https://github.com/alibaba/DeepRec/blob/main/docs/docs_en/NVIDIA-TF32.md)"
TF32_PRECISIONS = ("high", "medium")


def _tf32_gpus(gpus: list[GpuResult], matrices: Matrices) -> list[GpuResult]:
    out = []
    for g in gpus:
        support = matrices.precision(g.compute_capability) if g.compute_capability else None
        if support is not None and support.tf32:
            out.append(g)
    return out


def _facts_evidence(facts: dict, source: str) -> list[Evidence]:
    env = facts.get("env") or {}
    out = [Evidence(name, "unset" if value is None else repr(value), f"environment of the target process ({source})")
           for name, value in sorted(env.items())]
    for key in ("float32_matmul_precision", "cuda_matmul_fp32_precision", "cuda_matmul_allow_tf32",
                "cudnn_conv_fp32_precision", "cudnn_allow_tf32"):
        if key in facts:
            out.append(Evidence(f"torch.{key}", str(facts[key]), f"{source}, read before any test"))
    return out


def precision_findings(facts: dict | None, raw_gpus: list[dict], gpus: list[GpuResult], matrices: Matrices,
                       source: str) -> list[Finding]:
    if not isinstance(facts, dict):
        return []
    tf32 = _tf32_gpus(gpus, matrices)
    if not tf32:
        return []
    env = facts.get("env") or {}
    disabled = env.get("NVIDIA_TF32_OVERRIDE") == "0"
    out: list[Finding] = []
    names = ", ".join(f"GPU {g.index}" for g in tf32)
    measured = [(g.get("index"), g.get("fp32_default_max_rel_error")) for g in raw_gpus
                if isinstance(g.get("fp32_default_max_rel_error"), (int, float))]
    fp32_tol = expect.TOLERANCE["gemm_fp32"]
    tf32_default = (facts.get("float32_matmul_precision") in TF32_PRECISIONS
                    or facts.get("cuda_matmul_allow_tf32") is True or facts.get("cuda_matmul_fp32_precision") == "tf32")
    if (tf32_default or env.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1") and not disabled:
        by = "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1" if env.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE") == "1" else \
            "the process default"
        evidence = _facts_evidence(facts, source)
        evidence += [Evidence(f"GPU {i}: FP32 product under the default precision",
                              f"max relative error {err:.2g} ({'TF32-sized' if err > fp32_tol else 'FP32-sized'}; "
                              f"FP32 gives under {fp32_tol:g})", source) for i, err in measured]
        evidence.append(Evidence("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "sets torch's default FP32 matmul precision to "
                                 "TF32 (NVIDIA's containers set it)", TORCH_ENV_DOC))
        out.append(codes.FP32_RUNS_AS_TF32.finding(
            f"FP32 matmuls run as TF32 by default on {names} ({by}): 10-bit mantissa, about 1e-3 relative error",
            subject="runner", evidence=evidence,
            fix=Fix("If your code needs FP32 accuracy, unset the variable or call "
                    "torch.set_float32_matmul_precision('highest') before the first matmul; if TF32 is what you "
                    "want, set it explicitly in your code so it does not depend on the image.",
                    ("env | grep -i tf32", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=0 python train.py"))))
    if disabled:
        tf32_runs = [(g.index, t) for g in tf32 for t in g.tests
                     if t.name == "gemm_tf32" and t.max_rel_error is not None]
        evidence = _facts_evidence(facts, source)
        evidence += [Evidence(f"GPU {i}: gemm_tf32", f"max relative error {t.max_rel_error:.2g}"
                              + (f", {t.value:.1f} TFLOPS" if t.value else ""), source) for i, t in tf32_runs]
        out.append(codes.TF32_DISABLED_BY_ENV.finding(
            f"NVIDIA_TF32_OVERRIDE=0: TF32 is off in every CUDA library on {names}; TF32 matmuls and convolutions "
            "run as FP32 (several times slower)",
            subject="runner", evidence=[*evidence, Evidence("NVIDIA_TF32_OVERRIDE", "0", NVIDIA_ENV_SOURCE)],
            fix=Fix("Unset NVIDIA_TF32_OVERRIDE unless full FP32 everywhere is intended (it overrides what the "
                    "framework asks for).", ("env | grep NVIDIA_TF32_OVERRIDE", "unset NVIDIA_TF32_OVERRIDE"))))
    return out
