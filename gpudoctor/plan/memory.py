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

from gpudoctor.plan.job import GIB, Job, JobError
from gpudoctor.plan.models import ModelSpec

NF4_BYTES = 4.127 / 8  # QLoRA: 4-bit NormalFloat + double-quantized constants (arXiv 2305.14314)
WORKSPACE = 64 * (1 << 20)  # cuBLAS/cuDNN workspaces
LOSS_BYTES_FP32 = 12  # per logit: log-softmax output, its gradient, the logits' fp32 gradient
ZERO_BUCKET_ELEMENTS = 5e8  # DeepSpeed reduce_bucket_size / allgather_bucket_size default


@dataclass(frozen=True)
class Bytes:
    """Bytes per element for one precision regime."""

    weight: int  # parameter as stored
    grad: int
    state: int  # one optimizer state element (Adam m or v, SGD momentum)
    cast: int  # autocast's low-precision copy of a matmul weight, kept for backward
    lin: float  # an input saved by a trainable linear layer
    act: int  # other saved activations (q, k, v, MLP hidden)
    res: int  # residual stream, norm inputs
    soft: int  # softmax output of eager attention
    amp: bool
    logits: int


PRECISION_BYTES = {
    "fp32": Bytes(4, 4, 4, 0, 4, 4, 4, 4, False, 4),
    # torch.autocast: fp32 weights, 16-bit matmuls, fp32 residual stream and softmax.
    "amp-fp16": Bytes(4, 4, 4, 2, 2, 2, 4, 4, True, 2),
    "amp-bf16": Bytes(4, 4, 4, 2, 2, 2, 4, 4, True, 2),
    # Everything in bf16, optimizer states too (torch keeps states in the parameter dtype).
    "bf16": Bytes(2, 2, 2, 0, 2, 2, 2, 2, False, 2),
    # Transformer Engine style: as AMP, GEMM inputs and a weight copy (plus its transpose) in fp8.
    "fp8": Bytes(4, 4, 4, 2, 1, 2, 4, 4, True, 2),
}


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
    notes: tuple[str, ...] = ()
    detail: dict = field(default_factory=dict)

    @property
    def peak(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.other + self.context

    @property
    def allocated(self) -> float:
        """Live tensor bytes at the peak (what torch.cuda.max_memory_allocated reports)."""
        return self.peak - self.context - self.slack

    def gib(self) -> dict[str, float]:
        return {"weights_gib": self.weights / GIB, "gradients_gib": self.gradients / GIB,
                "optimizer_gib": self.optimizer / GIB, "activations_gib": self.activations / GIB,
                "other_gib": self.other / GIB, "context_gib": self.context / GIB, "peak_gib": self.peak / GIB}


@dataclass(frozen=True)
class Trainable:
    """Which parts keep their inputs for a weight gradient."""

    qkv: bool = True
    o: bool = True
    mlp_in: bool = True
    mlp_out: bool = True
    head: bool = True
    norms: bool = True


FULL = Trainable()


def lora_trainable(targets: str) -> Trainable:
    return Trainable(qkv=True, o=targets in ("attn", "all"), mlp_in=targets == "all",
                     mlp_out=targets == "all", head=False, norms=False)


def lora_params(spec: ModelSpec, rank: int, targets: str) -> int:
    h, hd = spec.hidden, spec.hidden // spec.heads
    kvd = spec.kv * hd
    mats = [(h, h), (h, kvd)]  # q, v
    if targets in ("attn", "all"):
        mats += [(h, kvd), (h, h)]  # k, o
    if targets == "all":
        mats += [(h, spec.ffn), (spec.ffn, h)] + ([(h, spec.ffn)] if spec.gated_mlp else [])
    return spec.layers * sum(rank * (i + o) for i, o in mats)


# --- activations ---------------------------------------------------------------------------
def layer_bytes_per_token(spec: ModelSpec, b: Bytes, seq: int, attention: str, tr: Trainable) -> float:
    """Bytes one transformer layer saves for backward, per token of the micro-batch."""
    h, f, a = spec.hidden, spec.ffn / spec.hidden, spec.heads
    drop = 1.0 if spec.dropout else 0.0
    # LayerNorm keeps its input; the HF/torchtune RMSNorm keeps an fp32 copy and,
    # when its weight trains, the normalised tensor too.
    norm = b.res if spec.norm == "layernorm" else 4 + (b.res if tr.norms else 0)
    attn = norm + (b.lin if tr.qkv else 0) + 3 * b.act  # q, k, v (GQA heads repeated, as HF does)
    if attention == "eager":
        probs = b.soft + drop * (1 + b.soft) + (2 if b.amp else 0)  # softmax, dropout, autocast copy
        attn += probs * a * seq / h + (b.lin if tr.o else 0)
    else:
        attn += b.act + 4 * a / h  # fused attention keeps its output and the log-sum-exp
    attn += drop
    mlp = norm + (b.lin if tr.mlp_in else 0) + drop
    if spec.gated_mlp:
        mlp += 3 * f * b.act + (f * b.lin if tr.mlp_out else 0)  # gate, SiLU(gate), up; product
    else:
        kept = 4 if spec.activation == "gelu_new" else 1  # HF GPT-2's Python gelu keeps 4 tensors
        mlp += kept * f * b.act + (f * b.lin if tr.mlp_out else 0)
    return (attn + mlp) * h


def outer_bytes_per_token(spec: ModelSpec, b: Bytes, tr: Trainable) -> float:
    """Embedding and final norm / head input, per token."""
    h = spec.hidden
    drop = 1.0 if spec.dropout else 0.0
    if spec.family == "encoder":
        return (b.res + drop) * h
    norm = b.res if spec.norm == "layernorm" else 4 + (b.res if tr.norms else 0)
    return (drop + norm + (b.lin if tr.head else 0)) * h


def transformer_activations(spec: ModelSpec, job: Job, b: Bytes, tokens: int, seq: int,
                            tr: Trainable) -> tuple[float, float, float]:
    """(saved for backward, extra while one layer is recomputed, backward temporaries)."""
    attention = job.attention or spec.attention
    layer = layer_bytes_per_token(spec, b, seq, attention, tr) * tokens
    outer = outer_bytes_per_token(spec, b, tr) * tokens
    # Gradients of one layer's largest activations exist while it runs backward.
    biggest = spec.ffn * b.act * (2 if spec.gated_mlp else 1)
    if attention == "eager":
        biggest = max(biggest, spec.heads * seq * b.soft)
    transient = 2 * biggest * tokens
    if job.grad_checkpointing:
        return spec.layers * b.res * spec.hidden * tokens + outer, layer, transient
    return spec.layers * layer + outer, 0.0, transient


def loss_block(spec: ModelSpec, b: Bytes, tokens: int, fp32_logits: bool = False) -> float:
    """Logits over the vocabulary, their fp32 log-softmax and gradients, at the loss."""
    if spec.head != "lm" or not spec.vocab:
        return 0.0
    return float(tokens) * spec.vocab * (LOSS_BYTES_FP32 + (4 if fp32_logits else b.logits))


# --- parameters and states -----------------------------------------------------------------
def optimizer_state_bytes(job: Job, spec: ModelSpec, trainable: float, state: int) -> float:
    if job.optimizer in ("adamw", "adam"):
        return 2 * state * trainable
    if job.optimizer == "sgd":
        return state * trainable  # momentum buffer
    if job.optimizer == "adam8bit":
        return 2 * trainable  # bitsandbytes: 1 byte each for m and v (block-wise quantized)
    # Adafactor (beta1=None): factored second moment, rows + columns per matrix.
    width = spec.hidden if spec.hidden else 1024
    return 4 * trainable * 2 / width


def step_temporaries(job: Job, spec: ModelSpec, trainable: float, state: int) -> float:
    """Memory the optimizer step allocates and frees."""
    if job.optimizer in ("sgd", "adam8bit") or job.optimizer_impl == "fused":
        return 0.0
    if job.optimizer_impl == "per-param" or job.optimizer_in_backward:
        return float(spec.largest_tensor()) * state
    return trainable * state  # foreach: e.g. AdamW's sqrt(v) for every parameter at once


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
    params = float(spec.params)
    seq = spec.tokens_per_sample(job.seq, job.image_size)
    tokens = job.batch * seq

    # Parameters, gradients, optimizer states.
    if job.peft:
        trainable = float(lora_params(spec, job.lora_rank or 64, job.lora_targets))
        tr = lora_trainable("all" if job.qlora and job.lora_targets == "qv" else job.lora_targets)
        base = 4 if job.precision == "fp32" else 2  # a frozen base is loaded in 16-bit unless fp32
        if job.qlora:
            quantized = float(spec.layers * spec.layer_linear_params())
            weights = quantized * NF4_BYTES + (params - quantized) * 2
            notes.append("QLoRA: layer weights in NF4 (4.127 bits), embeddings/norms/head in 16-bit")
        else:
            weights = params * base
        adapter_bytes = 2 if job.precision == "bf16" else 4
        weights += trainable * adapter_bytes
        grads = trainable * adapter_bytes
        state = adapter_bytes
        casts = 0.0
        master = 0.0
    else:
        trainable, tr = params, FULL
        weights, grads, state, master = params * b.weight, params * b.grad, b.state, 0.0
        casts = float(spec.matmul_params() if spec.has_shape else params) * b.cast
        if job.sharded and b.amp:
            # DeepSpeed/FSDP mixed precision: 16-bit weights and gradients, fp32 master in the optimizer.
            weights, grads, casts, master = params * 2, params * 2, 0.0, params * 4
    opt = optimizer_state_bytes(job, spec, trainable, state) + master
    temps = step_temporaries(job, spec, trainable, state)
    if job.optimizer_in_backward:
        grads = float(spec.largest_tensor()) * (2 if job.precision == "bf16" else 4)
        notes.append("optimizer step fused into backward: one parameter's gradient at a time")

    # Sharding across GPUs.
    buffers = 0.0
    if job.sharded >= 1:
        opt /= n
        temps /= n
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
        opt, temps = 0.0, 0.0
        notes.append("optimizer states and step in CPU memory")

    # Activations.
    loss = 0.0
    recompute = transient = 0.0
    if spec.has_shape:
        acts, recompute, transient = transformer_activations(spec, job, b, tokens, seq, tr)
        loss = loss_block(spec, b, tokens, job.fp32_logits)
        if job.qlora:
            transient += spec.hidden * spec.ffn * 2  # one layer weight dequantized at a time
    elif spec.measured is not None:
        per = {"fp32": spec.measured.act_fp32, "bf16": spec.measured.act_bf16}.get(job.precision,
                                                                                   spec.measured.act_amp)
        scale = 1.0
        if spec.family in ("cnn", "unet", "vit") and job.image_size and spec.image_size:
            scale = (job.image_size / spec.image_size) ** 2
        elif spec.family == "rnn" and job.seq and spec.max_seq:
            scale = job.seq / spec.max_seq
        acts = per * job.batch * scale
        if job.grad_checkpointing:
            notes.append("gradient checkpointing is not modelled for this model family (ignored)")
    else:
        acts = 0.0
        notes.append("no model shape: activations not estimated (give --layers and --hidden)")

    kept = grads if (job.grad_accum > 1 or job.keep_grads) else 0.0
    phases = {
        "loss": (weights + casts, kept, opt, acts, loss + WORKSPACE + buffers),
        "backward": (weights + casts, grads if recompute else kept, opt, acts + recompute,
                     transient + WORKSPACE + buffers),
        "optimizer step": (weights, grads, opt, 0.0, temps + WORKSPACE + buffers),
    }
    phase = max(phases, key=lambda k: sum(phases[k]))
    w, g, o, a, other = phases[phase]
    slack = job.allocator_slack * (a + other)
    return Memory(weights=w, gradients=g, optimizer=o, activations=a, other=other + slack,
                  context=job.cuda_context_gib * GIB, phase=phase, slack=slack, notes=tuple(notes),
                  detail={"trainable_params": trainable, "tokens_per_microbatch": tokens, "seq": seq,
                          "loss_block_bytes": loss, "phase_totals_gib": {k: sum(v) / GIB for k, v in
                                                                         phases.items()}})


def _inference(spec: ModelSpec, job: Job) -> Memory:
    """Weights + KV cache + the working set of one prefill."""
    b16 = {"fp32": 4, "fp8": 1}.get(job.precision, 2)
    params = float(spec.params)
    notes = []
    if job.qlora and spec.has_shape:
        quantized = float(spec.layers * spec.layer_linear_params())
        weights = quantized * NF4_BYTES + (params - quantized) * 2
        notes.append("4-bit (NF4) layer weights")
    else:
        weights = params * b16
    context = job.context or job.seq or spec.max_seq or 2048
    kv = act = 0.0
    if spec.has_shape:
        hd = spec.hidden // spec.heads
        kv_bytes = 4 if job.precision == "fp32" else (1 if job.precision == "fp8" else 2)
        kv = 2.0 * spec.layers * spec.kv * hd * context * job.batch * kv_bytes
        ab = 4 if job.precision == "fp32" else 2
        # prefill: one layer's MLP hidden and attention tensors for the whole prompt, last-token logits
        act = job.batch * context * spec.hidden * ab * (3 * spec.ffn / spec.hidden + 4)
        act += job.batch * spec.vocab * 4
    elif spec.measured is not None:
        act = spec.measured.act_amp * job.batch * 0.25
        notes.append("inference working set taken as a quarter of the training activations (no KV cache)")
    return Memory(weights=weights, gradients=0.0, optimizer=0.0, activations=kv, other=act + WORKSPACE,
                  context=job.cuda_context_gib * GIB, phase="inference", notes=tuple(notes),
                  detail={"kv_cache_bytes": kv, "context_tokens": context})
