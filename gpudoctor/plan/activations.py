"""What a training step keeps for backward: bytes per element by precision, the
tensors one transformer layer saves, the logits/loss block.

The layer terms follow Korthikanti et al. 2022 (arXiv 2205.05198, Table 2),
generalised to mixed precision, gated MLPs, RMSNorm, fused attention, frozen
weights, encoder-decoder stacks, mixture-of-experts and torch.compile; the
sources of every coefficient are in docs/plan.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.plan.job import LOSS_CHUNKS, Job
from gpudoctor.plan.models import ModelSpec

LOSS_BYTES_FP32 = 12  # per logit: log-softmax output, its gradient, the logits' fp32 gradient
# Saved activations that stay on the GPU with activation offloading: the layers whose
# copies are still in flight to (or back from) CPU memory (torchtune OffloadActivations
# streams one layer ahead).
OFFLOAD_RESIDENT_LAYERS = 2


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
class Trainable:
    """Which parts keep their inputs for a weight gradient."""

    qkv: bool = True
    o: bool = True
    mlp_in: bool = True
    mlp_out: bool = True
    head: bool = True
    norms: bool = True


FULL = Trainable()


def lora_trainable(targets: str, head: bool = False) -> Trainable:
    return Trainable(qkv=True, o=targets in ("attn", "all"), mlp_in=targets == "all",
                     mlp_out=targets == "all", head=head, norms=False)


def lora_params(spec: ModelSpec, rank: int, targets: str, head: bool = False) -> int:
    h, inner, kvd = spec.hidden, spec.attn_dim, spec.kv * spec.hd
    mats = [(h, inner), (h, kvd)]  # q, v
    if targets in ("attn", "all"):
        mats += [(h, kvd), (inner, h)]  # k, o
    per_layer = sum(rank * (i + o) for i, o in mats)
    if targets == "all":
        f = spec.active_ffn
        mlp = [(h, f), (f, h)] + ([(h, f)] if spec.gated_mlp else [])
        per_layer += sum(rank * (i + o) for i, o in mlp)
    out = spec.total_layers * per_layer + spec.dec_layers * sum(rank * (i + o) for i, o in mats)  # cross-attention
    if head and spec.head == "lm":
        out += rank * (spec.hidden + spec.vocab)
    return out


def _norm(spec: ModelSpec, b: Bytes, tr: Trainable, compiled: bool) -> float:
    # LayerNorm keeps its input; the HF/torchtune RMSNorm keeps an fp32 copy and, when its
    # weight trains, the normalised tensor too. Compiled, the norm is one fused kernel that
    # keeps its input and recomputes the rest in backward.
    if compiled or spec.norm == "layernorm":
        return b.res
    return 4 + (b.res if tr.norms else 0)


def attention_bytes_per_token(spec: ModelSpec, b: Bytes, seq: int, attention: str, tr: Trainable,
                              compiled: bool = False) -> float:
    """Bytes an attention block saves per token, in units of `hidden` elements."""
    h, a = spec.hidden, spec.heads
    width = spec.attn_dim / h  # q/k/v/output width relative to hidden (gemma, T5: not 1)
    drop = 1.0 if spec.dropout else 0.0
    attn = _norm(spec, b, tr, compiled) + (b.lin if tr.qkv else 0) + 3 * b.act * width  # q, k, v (GQA repeated)
    if attention == "eager":
        probs = b.soft + drop * (1 + b.soft) + (2 if b.amp else 0)  # softmax, dropout, autocast copy
        attn += probs * a * seq / h + (b.lin * width if tr.o else 0)
    else:
        attn += b.act * width + 4 * a / h  # fused attention keeps its output and the log-sum-exp
    return attn + drop


def mlp_bytes_per_token(spec: ModelSpec, b: Bytes, tr: Trainable, compiled: bool = False) -> float:
    f = spec.active_ffn / spec.hidden  # mixture-of-experts: the experts a token is routed to
    drop = 1.0 if spec.dropout else 0.0
    mlp = _norm(spec, b, tr, compiled) + (b.lin if tr.mlp_in else 0) + drop
    if spec.gated_mlp:
        # gate, SiLU(gate), up; their product is the down projection's input. Compiled, the
        # SiLU output is recomputed from the gate (calibrated on torchtune's table, docs/plan.md).
        mlp += (2 if compiled else 3) * f * b.act + (f * b.lin if tr.mlp_out else 0)
    else:
        kept = 4 if spec.activation == "gelu_new" and not compiled else 1  # HF GPT-2's Python gelu keeps 4
        mlp += kept * f * b.act + (f * b.lin if tr.mlp_out else 0)
    return mlp


def layer_bytes_per_token(spec: ModelSpec, b: Bytes, seq: int, attention: str, tr: Trainable,
                          compiled: bool = False) -> float:
    """Bytes one transformer layer saves for backward, per token of the micro-batch."""
    attn = attention_bytes_per_token(spec, b, seq, attention, tr, compiled)
    return (attn + mlp_bytes_per_token(spec, b, tr, compiled)) * spec.hidden


def outer_bytes_per_token(spec: ModelSpec, b: Bytes, tr: Trainable, compiled: bool = False) -> float:
    """Embedding and final norm / head input, per token."""
    h = spec.hidden
    drop = 1.0 if spec.dropout else 0.0
    if spec.family == "encoder":
        return (b.res + drop) * h
    return (drop + _norm(spec, b, tr, compiled) + (b.lin if tr.head else 0)) * h


@dataclass(frozen=True)
class Saved:
    """Activation bytes of a training step, by when they are held: forward, recompute and backward."""

    forward: float  # saved for backward when the forward ends
    recompute: float  # extra while one checkpointed layer is recomputed
    transient: float  # one layer's gradient temporaries in backward
    tail: float  # still saved when the last layer is recomputed (checkpointing)


def transformer_activations(spec: ModelSpec, job: Job, b: Bytes, tokens: int, seq: int,
                            tr: Trainable) -> Saved:
    attention = job.attention or spec.attention
    compiled = job.compile
    layer = layer_bytes_per_token(spec, b, seq, attention, tr, compiled) * tokens
    if job.bnb_keeps_inputs():
        # bitsandbytes < 0.43.2: every 4-bit linear keeps its input, a second copy next to the
        # dropout output its LoRA adapter keeps (QLoRA trains with lora_dropout 0.05-0.1).
        layer += b.lin * (2 + spec.attn_dim / spec.hidden + spec.active_ffn / spec.hidden) * spec.hidden * tokens
    cross = attention_bytes_per_token(spec, b, seq, attention, tr, compiled) * spec.hidden * tokens
    outer = outer_bytes_per_token(spec, b, tr, compiled) * tokens
    # Gradients of one layer's largest activations exist while it runs backward.
    biggest = spec.active_ffn * b.act * (2 if spec.gated_mlp else 1)
    if attention == "eager":
        biggest = max(biggest, spec.heads * seq * b.soft)
    transient = 2 * biggest * tokens
    layers = spec.total_layers
    if job.grad_checkpointing:
        kept = b.res * spec.hidden * tokens  # each layer's input
        resident = min(layers, OFFLOAD_RESIDENT_LAYERS) if job.activation_offload else layers
        recompute = layer + (cross if spec.dec_layers else 0)
        return Saved(resident * kept + outer, recompute, transient, kept + outer)
    per_layers = layers * layer + spec.dec_layers * cross
    if job.activation_offload:
        per_layers = min(layers, OFFLOAD_RESIDENT_LAYERS) * (layer + (cross if spec.dec_layers else 0))
    return Saved(per_layers + outer, 0.0, transient, 0.0)


def loss_bytes_per_logit(job: Job, b: Bytes) -> float:
    logits = 4 if job.fp32_logits else b.logits
    if not job.chunked_ce:
        return LOSS_BYTES_FP32 + logits
    # torchtune CEWithChunkedOutputLoss: the 16-bit logits stay whole; each chunk is upcast
    # (one chunk's fp32 copy exists at a time) and its fp32 log-softmax kept for backward;
    # compiled, the chunk's loss is one fused kernel that keeps nothing in fp32.
    chunk = 4.0 / LOSS_CHUNKS
    return b.logits + chunk + (0 if job.compile else 4)


def loss_block(spec: ModelSpec, job: Job, b: Bytes, tokens: int) -> float:
    """Logits over the vocabulary, their fp32 log-softmax and gradients, at the loss."""
    if spec.head != "lm" or not spec.vocab:
        return 0.0
    return float(tokens) * spec.vocab * loss_bytes_per_logit(job, b)
