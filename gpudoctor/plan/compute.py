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
    """An end-to-end utilisation measured by others, with its range and source."""

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
    "small": Prior(0.10, 0.02, 0.30, "assumption: tiny MLP/LSTM steps are bound by kernel launches"),
}
SMALL_MODEL_FACTOR = 0.7  # MosaicML A100: 125M at 44.8 % vs 7B at 64.2 % MFU
MULTI_GPU_EFFICIENCY = 0.9  # assumption: data-parallel scaling per added GPU
DECODE_BANDWIDTH_FRACTION = 0.7  # assumption: decode streams weights + KV at 70 % of datasheet bandwidth

# Convolutional networks train at the speed of their memory traffic, not of the tensor
# cores: NVIDIA's ResNet-50 v1.5 figures (DeepLearningExamples PyTorch/Classification/
# ConvNets/resnet50v1.5 README, pytorch-21.03, one GPU, DALI input) scale with bandwidth
# (V100 900 GB/s: 1,200 img/s AMP; A100 80GB 2,039 GB/s: 2,470 img/s AMP, 938 img/s TF32),
# not with the 16-bit peak. Traffic per image is fitted to those runs as a multiple of the
# model's saved activations (geometric mean of the two AMP runs; the TF32 run for fp32),
# so it carries over to the other measured CNNs; timm's RTX 3090 AMP run (936 GB/s,
# 1,218 img/s NHWC) is the check, not part of the fit.
RESNET50_ACT_AMP = 4.3053e7  # gpudoctor/data/plan_presets.toml, resnet50 act_amp
RESNET50_ACT_FP32 = 8.36443e7
CONV_TRAFFIC = {
    "amp": math.sqrt(900e9 / 1200 * 2039e9 / 2470) / RESNET50_ACT_AMP,
    "fp32": 2039e9 / 938 / RESNET50_ACT_FP32,
}
# Compute ceilings of the same runs: V100 FP32 367 img/s = 57 % of the FP32 peak; timm's
# RTX 3090 AMP run = 42 % of its 16-bit peak (above it the bandwidth bound binds first).
CONV_FP32_UTIL = 367 * 3 * 8.09969e9 / 15.7e12
CONV_AMP_UTIL = 0.42


@dataclass(frozen=True)
class StepTime:
    """How long one optimizer step takes on a GPU, and the throughput and bound that follow."""

    seconds: float  # one optimizer step (batch x grad_accum per GPU, all GPUs in parallel)
    tflops_peak: float
    utilisation: float
    prior_source: str
    samples_per_s: float  # all GPUs together
    tokens_per_s: float | None
    bound: str = "compute"  # "compute" | "memory bandwidth" | "input pipeline"


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
    if job.precision == "fp8":
        return PRIORS["fp8"]
    return PRIORS[gpu_class(gpu)]


def _conv_step(spec: ModelSpec, job: Job, gpu: GpuModel, flops: float, samples: int) -> tuple | None:
    """(seconds, peak, utilisation, source, bound) for a measured CNN/UNet: the slower of its
    compute and its memory traffic."""
    fp32 = job.precision == "fp32"
    # cuDNN convolutions use TF32 tensor cores in fp32 by default (torch.backends.cudnn.allow_tf32)
    peak = (gpu.tf32_tflops or gpu.fp32_tflops) if fp32 else peak_tflops(gpu, job.precision)
    if not peak:
        return None
    util = CONV_FP32_UTIL if fp32 else CONV_AMP_UTIL
    compute = flops / (peak * 1e12 * util)
    source = ("NVIDIA DeepLearningExamples ResNet-50 (V100/A100, AMP and TF32) fitted on memory bandwidth; "
              "timm RTX 3090 AMP as the check")
    if not gpu.memory_bandwidth_gbs:
        return compute, peak, util, source, "compute"
    m = spec.measured
    act = m.act_fp32 if fp32 else (m.act_bf16 if job.precision == "bf16" else m.act_amp)
    scale = (job.image_size / spec.image_size) ** 2 if job.image_size and spec.image_size else 1.0
    traffic = CONV_TRAFFIC["fp32" if fp32 else "amp"] * act * scale * samples
    memory = traffic / (gpu.memory_bandwidth_gbs * 1e9)
    if memory > compute:
        return memory, peak, util, source, "memory bandwidth"
    return compute, peak, util, source, "compute"


def step_time(spec: ModelSpec, job: Job, gpu: GpuModel, flops_per_step: float | None = None) -> StepTime | None:
    """Seconds per optimizer step on `job.gpus` GPUs of this model; None without a peak figure.

    Several GPUs run their share in parallel at MULTI_GPU_EFFICIENCY: the step takes longer
    than on one GPU by that factor, and the throughput is every GPU's samples over that step,
    so hours = steps x step time agree with the throughput."""
    samples = job.batch * job.grad_accum  # per GPU per step
    flops = flops_per_step if flops_per_step else flops_per_sample(spec, job) * job.batch
    flops *= job.grad_accum
    bound = "compute"
    if spec.family in ("cnn", "unet") and spec.measured is not None and not job.inference:
        conv = _conv_step(spec, job, gpu, flops, samples)
        if conv is None:
            return None
        seconds, peak, util, source, bound = conv
    else:
        peak = peak_tflops(gpu, job.precision)
        if not peak:
            return None
        prior = prior_for(spec, job, gpu)
        util, source = prior.value, prior.source
        if spec.params < 1e9 and spec.family not in ("mlp", "rnn") and job.precision != "fp32":
            util *= SMALL_MODEL_FACTOR
        seconds = flops / (peak * 1e12 * util)
    if job.input_rate and samples / job.input_rate > seconds:  # the data pipeline feeds each GPU
        seconds, bound = samples / job.input_rate, "input pipeline"
    if job.gpus > 1:
        seconds /= MULTI_GPU_EFFICIENCY
    seq = spec.tokens_per_sample(job.seq, job.image_size)
    samples_per_s = samples * job.gpus / seconds
    tokens = samples_per_s * seq if spec.is_transformer or spec.family == "rnn" else None
    return StepTime(seconds=seconds, tflops_peak=peak, utilisation=util, prior_source=source,
                    samples_per_s=samples_per_s, tokens_per_s=tokens, bound=bound)


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
