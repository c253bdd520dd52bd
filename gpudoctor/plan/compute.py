"""Step time and throughput: FLOPs of a step ÷ (dense peak × a utilisation prior).

The priors are end-to-end utilisations measured by others (model FLOPs
utilisation, MFU), per GPU class; docs/plan.md lists them with sources. They
are priors, not predictions: real runs land anywhere in the stated ranges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpudoctor.matrices.records import GpuModel
from gpudoctor.plan.job import Job
from gpudoctor.plan.models import ModelSpec
from gpudoctor.versions import compute_capability


@dataclass(frozen=True)
class Prior:
    value: float
    low: float
    high: float
    source: str


PRIORS = {
    "hopper+": Prior(0.40, 0.35, 0.46, "mosaicml/llm-foundry benchmarks: H100 bf16 MFU 35-46 % (1B-70B)"),
    "a100": Prior(0.50, 0.45, 0.64, "mosaicml/llm-foundry benchmarks: A100 bf16 MFU 45-64 %; GPT-NeoX 48 %"),
    "other": Prior(0.35, 0.15, 0.51, "torchtune README: Llama-3.1-8B on one RTX 4090 ~51 % MFU; "
                                      "HF BERT-large V100 fp16 batch 4 ~15 %"),
    "fp8": Prior(0.25, 0.21, 0.30, "mosaicml/llm-foundry: H100 fp8 MFU 21-30 % of the fp8 peak"),
    "fp32": Prior(0.50, 0.15, 0.60, "NVIDIA DeepLearningExamples ResNet-50: V100 FP32 367 img/s = 57 % of FP32 peak"),
    "conv": Prior(0.20, 0.15, 0.42, "NVIDIA DeepLearningExamples ResNet-50 AMP: A100 2,470 img/s = 19.5 %, "
                                    "V100 1,200 img/s = 24 %; timm RTX 3090 NHWC 1,218 img/s = 42 %"),
    "small": Prior(0.10, 0.02, 0.30, "assumption: tiny MLP/LSTM steps are bound by kernel launches"),
}
SMALL_MODEL_FACTOR = 0.7  # MosaicML A100: 125M at 44.8 % vs 7B at 64.2 % MFU
MULTI_GPU_EFFICIENCY = 0.9  # assumption: data-parallel scaling per added GPU
DECODE_BANDWIDTH_FRACTION = 0.7  # assumption: decode streams weights + KV at 70 % of datasheet bandwidth


@dataclass(frozen=True)
class StepTime:
    seconds: float  # one optimizer step (batch x grad_accum per GPU, all GPUs in parallel)
    tflops_peak: float
    utilisation: float
    prior_source: str
    samples_per_s: float
    tokens_per_s: float | None


def gpu_class(gpu: GpuModel) -> str:
    cc = compute_capability(gpu.compute_capability)
    if cc is not None and cc.major >= 9 and gpu.segment == "data-center":
        return "hopper+"
    if cc is not None and (cc.major, cc.minor) == (8, 0):
        return "a100"
    return "other"


def peak_tflops(gpu: GpuModel, precision: str) -> float | None:
    """Dense peak for the precision's matmuls (FP32-accumulate tensor rate for 16-bit)."""
    return {"fp32": gpu.fp32_tflops, "amp-fp16": gpu.fp16_tflops, "amp-bf16": gpu.bf16_tflops,
            "bf16": gpu.bf16_tflops, "fp8": gpu.fp8_tflops}[precision]


def flops_per_sample(spec: ModelSpec, job: Job) -> float:
    """FLOPs one training sample costs (forward + backward, + recomputation)."""
    seq = spec.tokens_per_sample(job.seq, job.image_size)
    if spec.has_shape:
        matmul = float(spec.matmul_params())
        attention = 2.0 * spec.layers * spec.hidden * seq  # per token, forward: QK^T and PV
        forward = (2 * matmul + attention) * seq
        if job.peft:  # frozen base: no weight gradients, only input gradients
            total = 2 * forward
        else:
            total = 3 * forward
        if job.inference:
            return forward
        return total + (forward if job.grad_checkpointing else 0.0)
    if spec.measured is not None:
        scale = 1.0
        if spec.family in ("cnn", "unet") and job.image_size and spec.image_size:
            scale = (job.image_size / spec.image_size) ** 2
        elif spec.family == "rnn" and job.seq and spec.max_seq:
            scale = job.seq / spec.max_seq
        forward = spec.measured.fwd_flops * scale
        return forward if job.inference else 3 * forward
    return (2.0 if job.inference else 6.0) * spec.params * max(seq, 1)


def prior_for(spec: ModelSpec, job: Job, gpu: GpuModel) -> Prior:
    if spec.family in ("mlp", "rnn"):
        return PRIORS["small"]
    if job.precision == "fp32":
        return PRIORS["fp32"]
    if spec.family in ("cnn", "unet"):
        return PRIORS["conv"]
    if job.precision == "fp8":
        return PRIORS["fp8"]
    return PRIORS[gpu_class(gpu)]


def step_time(spec: ModelSpec, job: Job, gpu: GpuModel, flops_per_step: float | None = None) -> StepTime | None:
    """Seconds per optimizer step on `job.gpus` GPUs of this model; None without a peak figure."""
    peak = peak_tflops(gpu, job.precision)
    if not peak:
        return None
    prior = prior_for(spec, job, gpu)
    util = prior.value
    if spec.params < 1e9 and spec.family not in ("mlp", "rnn") and job.precision != "fp32":
        util *= SMALL_MODEL_FACTOR
    samples = job.batch * job.grad_accum  # per GPU per step
    flops = flops_per_step if flops_per_step else flops_per_sample(spec, job) * job.batch
    flops *= job.grad_accum
    seconds = flops / (peak * 1e12 * util)
    scale = job.gpus * (MULTI_GPU_EFFICIENCY if job.gpus > 1 else 1.0)
    seq = spec.tokens_per_sample(job.seq, job.image_size)
    samples_per_s = samples * scale / seconds
    tokens = samples_per_s * seq if spec.is_transformer or spec.family == "rnn" else None
    return StepTime(seconds=seconds, tflops_peak=peak, utilisation=util, prior_source=prior.source,
                    samples_per_s=samples_per_s, tokens_per_s=tokens)


def decode_tokens_per_s(weights_bytes: float, kv_bytes: float, batch: int, gpu: GpuModel) -> float | None:
    """Inference decode rate: every token streams the weights and the KV cache once."""
    if not gpu.memory_bandwidth_gbs:
        return None
    seconds = (weights_bytes + kv_bytes) / (gpu.memory_bandwidth_gbs * 1e9 * DECODE_BANDWIDTH_FRACTION)
    return batch / seconds


def total_steps(spec: ModelSpec, job: Job) -> float | None:
    """Optimizer steps the whole run takes, from --tokens or --samples x --epochs."""
    per_step = job.batch * job.grad_accum * job.gpus
    if job.tokens:
        seq = spec.tokens_per_sample(job.seq, job.image_size) or 1
        return math.ceil(job.tokens / (per_step * seq))
    if job.samples:
        return math.ceil(job.samples * job.epochs / per_step)
    return None
