"""The memory model: peak GPU memory of one training step (or of inference),
per GPU, broken down the way the caching allocator sees it.

The peak is the largest of three moments of a step:

* loss: forward done, all saved activations live, the logits / loss block
  (for language-model heads) and its gradient being computed;
* backward: with activation checkpointing, one layer recomputed while the
  gradients fill up;
* optimizer step: weights, gradients, optimizer states and the step's
  temporaries, after the activations are gone.

Sources for every coefficient are in docs/plan.md; the activation terms follow
Korthikanti et al. 2022 (arXiv 2205.05198, Table 2), generalised to mixed
precision, gated MLPs, RMSNorm, fused attention and frozen weights, and checked
against gpudoctor's exact mode (tests/test_plan_exact.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudoctor.plan.activations import (  # noqa: F401 - re-exported for tests and exact mode
    FULL,
    PRECISION_BYTES,
    Bytes,
    Trainable,
    layer_bytes_per_token,
    lora_params,
    lora_trainable,
    loss_block,
    transformer_activations,
)
from gpudoctor.plan.job import GIB, Job, JobError
from gpudoctor.plan.models import ModelSpec

# QLoRA's NF4: 4 bits per weight plus the block constants: an fp32 absmax per block of 64
# (0.5 bits), or with double quantization an 8-bit absmax per 64 and an fp32 constant per
# 256 of those (8/64 + 32/(64*256) = 0.127 bits). bitsandbytes and torchao both use these
# block sizes (QLoRA arXiv 2305.14314, section 3).
NF4_BYTES = (4 + 8 / 64 + 32 / (64 * 256)) / 8
NF4_BYTES_NO_DQ = (4 + 32 / 64) / 8
WORKSPACE = 64 * (1 << 20)  # cuBLAS/cuDNN workspaces
ZERO_BUCKET_ELEMENTS = 5e8  # DeepSpeed reduce_bucket_size / allgather_bucket_size default


@dataclass(frozen=True)
class Memory:
    """Peak memory per GPU, in bytes."""

    weights: float  # parameters as stored (+ autocast copies of matmul weights)
    gradients: float
    optimizer: float
    activations: float  # tensors saved for backward (or KV cache + working set in inference)
    other: float  # logits/loss block, step temporaries, workspaces, buffers, allocator slack
    context: float  # CUDA context and loaded kernels
    phase: str
    slack: float = 0.0  # part of `other`: caching-allocator reserve beyond live tensors
    paged: float = 0.0  # part of `optimizer`: paged states in CUDA managed memory
    notes: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict)

    @property
    def peak(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.other + self.context

    @property
    def allocated(self) -> float:
        """Live tensor bytes at the peak (what torch.cuda.max_memory_allocated reports;
        paged optimizer states live outside the caching allocator)."""
        return self.peak - self.context - self.slack - self.paged

    @property
    def needed(self) -> float:
        """What must fit on the GPU: the peak less paged states, which page out to CPU memory."""
        return self.peak - self.paged

    @property
    def kv_cache(self) -> float:
        return self.activations if self.phase == "inference" else 0.0

    def gib(self) -> dict[str, float]:
        return {"weights_gib": self.weights / GIB, "gradients_gib": self.gradients / GIB,
                "optimizer_gib": self.optimizer / GIB, "activations_gib": self.activations / GIB,
                "other_gib": self.other / GIB, "context_gib": self.context / GIB, "peak_gib": self.peak / GIB}


# --- parameters and states -----------------------------------------------------------------
def optimizer_state_bytes(job: Job, spec: ModelSpec, trainable: float, state: int) -> float:
    if job.optimizer in ("adamw", "adam"):
        return 2 * state * trainable
    if job.optimizer == "sgd":
        return state * trainable  # momentum buffer
    if job.optimizer in ("adam8bit", "paged-adamw8bit"):
        return 2 * trainable  # bitsandbytes: 1 byte each for m and v (block-wise quantized)
    if job.optimizer == "paged-adamw":
        return 8 * trainable  # bitsandbytes 32-bit states: fp32 m and v whatever the parameter dtype
    # Adafactor (beta1=None): factored second moment, rows + columns per matrix.
    width = spec.hidden if spec.hidden else 1024
    return 4 * trainable * 2 / width


def step_temporaries(job: Job, spec: ModelSpec, trainable: float, state: int) -> float:
    """Memory the optimizer step allocates and frees (bitsandbytes' kernels update in place)."""
    if job.optimizer in ("sgd", "adam8bit", "paged-adamw", "paged-adamw8bit") or job.optimizer_impl == "fused":
        return 0.0
    if job.optimizer_impl == "per-param" or job.optimizer_in_backward:
        return float(spec.largest_tensor()) * state
    return trainable * state  # foreach: e.g. AdamW's sqrt(v) for every parameter at once


@dataclass(frozen=True)
class States:
    """What the parameters hold in memory (not the activations), in bytes before ZeRO/FSDP sharding."""

    weights: float
    casts: float  # autocast's 16-bit weight copies
    grads: float
    opt: float
    temps: float
    trainable: float
    tr: Trainable
    state: int


def _states(spec: ModelSpec, job: Job, b: Bytes, notes: list[str]) -> States:
    """Weights, gradients, optimizer states and step temporaries before sharding."""
    params = float(spec.params)
    if not job.peft:
        casts = float(spec.matmul_params() if spec.has_shape else params) * b.cast
        weights, grads, master = params * b.weight, params * b.grad, 0.0
        if job.sharded and b.amp:
            # DeepSpeed/FSDP mixed precision: 16-bit weights and gradients, fp32 master in the optimizer.
            weights, grads, casts, master = params * 2, params * 2, 0.0, params * 4
        opt = optimizer_state_bytes(job, spec, params, b.state) + master
        return States(weights, casts, grads, opt, step_temporaries(job, spec, params, b.state), params, FULL,
                      b.state)
    trainable = float(lora_params(spec, job.lora_rank or 64, job.lora_targets, job.lora_head))
    tr = lora_trainable("all" if job.qlora and job.lora_targets == "qv" else job.lora_targets, job.lora_head)
    base = 4 if job.precision == "fp32" else 2  # a frozen base is loaded in 16-bit unless fp32
    if job.qlora:
        quantized = float(spec.all_linear_params())
        nf4 = NF4_BYTES if job.double_quant else NF4_BYTES_NO_DQ
        weights = quantized * nf4 + (params - quantized) * 2
        dq = "" if job.double_quant else ", no double quantization"
        notes.append(f"QLoRA: layer weights in NF4 ({nf4 * 8:.3f} bits{dq}), embeddings/norms/head in 16-bit")
        if job.bnb_keeps_inputs():  # MatMul4Bit saved its input for a weight gradient never taken
            notes.append(f"bitsandbytes {job.bnb_version} (before 0.43.2) keeps every 4-bit layer's input for "
                         "backward (bitsandbytes PR #1270): upgrade with pip install -U 'bitsandbytes>=0.43.2'")
        elif job.quantizer == "bitsandbytes" and not job.bnb_version:
            notes.append("QLoRA assumes bitsandbytes >= 0.43.2; older releases keep each 4-bit layer's input "
                         "for backward (PR #1270): say which with --bnb-version or --python")
    else:
        weights = params * base
    adapter_bytes = 2 if job.precision == "bf16" else 4
    weights += trainable * adapter_bytes
    opt = optimizer_state_bytes(job, spec, trainable, adapter_bytes)
    return States(weights, 0.0, trainable * adapter_bytes, opt,
                  step_temporaries(job, spec, trainable, adapter_bytes), trainable, tr, adapter_bytes)


def _measured_activations(spec: ModelSpec, job: Job, notes: list[str]) -> float:
    """Per-sample bytes measured on the reference implementation, scaled to the input size."""
    m = spec.measured
    per = {"fp32": m.act_fp32, "bf16": m.act_bf16}.get(job.precision, m.act_amp)
    scale = 1.0
    if spec.family in ("cnn", "unet", "vit") and job.image_size and spec.image_size:
        scale = (job.image_size / spec.image_size) ** 2
    elif spec.family == "rnn" and job.seq and spec.max_seq:
        scale = job.seq / spec.max_seq
    if job.grad_checkpointing:
        notes.append("gradient checkpointing is not modelled for this model family (ignored)")
    return per * job.batch * scale


def estimate(spec: ModelSpec, job: Job) -> Memory:
    """Peak memory per GPU for `job` on `spec`."""
    job.check()
    if job.inference:
        return _inference(spec, job)
    if job.peft and not spec.has_shape:
        raise JobError("LoRA/QLoRA planning needs a transformer shape (a preset, --config or --layers/--hidden)")
    b = PRECISION_BYTES[job.precision]
    notes: list[str] = []
    n = job.gpus
    seq = spec.tokens_per_sample(job.seq, job.image_size)
    tokens = job.batch * seq
    st = _states(spec, job, b, notes)
    weights, casts, grads, opt, temps, trainable = st.weights, st.casts, st.grads, st.opt, st.temps, st.trainable
    paged = opt if job.paged else 0.0
    if job.paged:
        notes.append("paged optimizer states live in CUDA managed memory: they page out to CPU memory when "
                     "the GPU is full (slower), and torch's memory statistics do not show them")
    if job.optimizer_in_backward:
        grads = float(spec.largest_tensor()) * (2 if job.precision == "bf16" else 4)
        notes.append("optimizer step fused into backward: one parameter's gradient at a time")

    # Sharding across GPUs.
    buffers = 0.0
    if job.sharded >= 1:
        opt, paged, temps = opt / n, paged / n, temps / n
        buffers += min(ZERO_BUCKET_ELEMENTS, trainable) * 2
    if job.sharded >= 2:
        grads /= n
    if job.sharded >= 3:
        weights /= n
        largest_layer = max(spec.layers and spec.layer_linear_params(), spec.vocab * spec.hidden) \
            if spec.has_shape else spec.largest_tensor()
        buffers += 4 * float(largest_layer)  # gathered 16-bit weights + gradients of one unit
    elif n > 1 and not job.sharded:
        buffers += grads  # DDP's gradient buckets (gradient_as_bucket_view=False)
        notes.append("DDP: gradient buckets double the gradient memory (gradient_as_bucket_view=False)")
    if job.offload_optimizer:
        opt, paged, temps = 0.0, 0.0, 0.0
        notes.append("optimizer states and step in CPU memory")

    # Activations.
    loss = recompute = transient = tail = 0.0
    if spec.has_shape:
        saved = transformer_activations(spec, job, b, tokens, seq, st.tr)
        acts, recompute, transient, tail = saved.forward, saved.recompute, saved.transient, saved.tail
        loss = loss_block(spec, job, b, tokens)
        if job.qlora:
            transient += spec.hidden * max(spec.ffn, spec.expert_ffn) * 2  # one layer weight dequantized at a time
    elif spec.measured is not None:
        acts = _measured_activations(spec, job, notes)
    else:
        acts = 0.0
        notes.append("no model shape: activations not estimated (give --layers and --hidden)")
    if job.activation_offload:
        notes.append("activation offloading: saved activations stream to CPU memory (pinned host memory "
                     "of their size is needed)")

    kept = grads if (job.grad_accum > 1 or job.keep_grads) else 0.0
    phases = {
        "loss": (weights + casts, kept, opt, acts, loss + WORKSPACE + buffers),
        # Backward: gradients fill up while saved activations are freed. Without checkpointing
        # its first layer (all saved, the loss gradient gone) is the moment; with it the last
        # recompute (all gradients, one layer's input and its recomputed activations).
        "backward": (weights + casts, grads if recompute else kept, opt, (tail + recompute) if recompute else acts,
                     transient + WORKSPACE + buffers),
        "optimizer step": (weights, grads, opt, 0.0, temps + WORKSPACE + buffers),
    }
    phase = max(phases, key=lambda k: sum(phases[k]))
    w, g, o, a, other = phases[phase]
    slack = job.allocator_slack * (a + other)
    return Memory(weights=w, gradients=g, optimizer=o, activations=a, other=other + slack,
                  context=job.cuda_context_gib * GIB, phase=phase, slack=slack, paged=paged, notes=tuple(notes),
                  detail={"trainable_params": trainable, "tokens_per_microbatch": tokens, "seq": seq,
                          "loss_block_bytes": loss, "phase_totals_gib": {k: sum(v) / GIB for k, v in
                                                                         phases.items()}})


def _inference(spec: ModelSpec, job: Job) -> Memory:
    """Weights + KV cache + the working set of one prefill."""
    b16 = {"fp32": 4, "fp8": 1}.get(job.precision, 2)
    params = float(spec.params)
    notes = []
    if job.qlora and spec.has_shape:
        quantized = float(spec.all_linear_params())
        weights = quantized * (NF4_BYTES if job.double_quant else NF4_BYTES_NO_DQ) + (params - quantized) * 2
        notes.append("4-bit (NF4) layer weights")
    else:
        weights = params * b16
    context = job.context or job.seq or spec.max_seq or 2048
    kv = act = 0.0
    if spec.has_shape:
        kv_bytes = 4 if job.precision == "fp32" else (1 if job.precision == "fp8" else 2)
        # decoder self-attention (+ a seq2seq decoder's cross-attention keys and values)
        kv = 2.0 * (spec.dec_layers * 2 or spec.layers) * spec.kv * spec.hd * context * job.batch * kv_bytes
        ab = 4 if job.precision == "fp32" else 2
        # prefill: one layer's MLP hidden and attention tensors for the whole prompt, last-token logits
        act = job.batch * context * spec.hidden * ab * (3 * spec.active_ffn / spec.hidden + 4)
        act += job.batch * spec.vocab * 4
    elif spec.measured is not None:
        act = spec.measured.act_amp * job.batch * 0.25
        notes.append("inference working set taken as a quarter of the training activations (no KV cache)")
    return Memory(weights=weights, gradients=0.0, optimizer=0.0, activations=kv, other=act + WORKSPACE,
                  context=job.cuda_context_gib * GIB, phase="inference", notes=tuple(notes),
                  detail={"kv_cache_bytes": kv, "context_tokens": context})
