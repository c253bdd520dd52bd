"""What is being trained: a model's shape, from a preset, explicit options or a
Hugging Face config.json.

A `ModelSpec` carries what the memory and compute formulas need. Transformers
are described by their shape; convolutional networks, diffusion UNets, the MLP
and the LSTM by measured per-sample numbers (activation bytes and FLOPs at a
reference input size), because their memory does not follow from a handful of
shape numbers.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PRESETS_FILE = Path(__file__).resolve().parent.parent / "data" / "plan_presets.toml"

TRANSFORMER_FAMILIES = ("decoder", "encoder", "vit", "seq2seq")
FAMILIES = TRANSFORMER_FAMILIES + ("cnn", "unet", "mlp", "rnn", "generic")


class ModelError(ValueError):
    """A model cannot be resolved (unknown preset, bad config, missing shape)."""


@dataclass(frozen=True)
class Measured:
    """Per-sample numbers at the reference input size, for models whose memory
    does not follow from a few shape numbers (see bench/plan_calibrate.py)."""

    fwd_flops: float  # forward FLOPs per sample (2 x multiply-accumulates)
    act_fp32: float  # bytes per sample live at the activation peak, fp32 training
    act_amp: float  # same under autocast (16-bit matmuls/convolutions)
    act_bf16: float  # same with the whole model in bf16
    source: str = ""


@dataclass(frozen=True)
class ModelSpec:
    """A model's shape as the memory and compute models need it, with where it came from."""

    name: str
    family: str  # one of FAMILIES
    params: int
    source: str
    layers: int = 0
    hidden: int = 0
    heads: int = 0
    kv_heads: int = 0  # 0 = same as heads
    head_dim: int = 0  # 0 = hidden / heads (gemma, T5: set explicitly)
    dec_layers: int = 0  # seq2seq: decoder layers (`layers` is the encoder's)
    # mixture-of-experts: experts per layer, experts each token is routed to, their
    # width; a shared expert's width (0: none). `ffn` is then unused.
    experts: int = 0
    experts_active: int = 0
    expert_ffn: int = 0
    shared_ffn: int = 0
    ffn: int = 0
    vocab: int = 0
    max_seq: int = 0  # context length; the default --seq
    tied_embeddings: bool = False
    gated_mlp: bool = False  # SwiGLU: gate, up and down projections
    norm: str = "layernorm"  # "layernorm" | "rmsnorm" (fp32 upcast inside, as HF/torchtune write it)
    activation: str = "gelu"  # "gelu" | "gelu_new" (HF GPT-2's Python version) | "silu"
    dropout: bool = False
    attention: str = "sdpa"  # "sdpa" (fused, no s^2 scores kept) | "eager"
    head: str = "lm"  # "lm" (token logits over the vocabulary) | "cls" | "none"
    bias: bool = True
    learned_positions: bool = False
    image_size: int = 0  # reference input size (vit, cnn, unet)
    patch: int = 0  # vit
    classes: int = 0  # vit classifier
    measured: Measured | None = None
    aliases: tuple[str, ...] = ()
    note: str = ""

    @property
    def is_transformer(self) -> bool:
        return self.family in TRANSFORMER_FAMILIES

    @property
    def kv(self) -> int:
        return self.kv_heads or self.heads

    @property
    def hd(self) -> int:
        return self.head_dim or self.hidden // max(self.heads, 1)

    @property
    def attn_dim(self) -> int:
        """Width of q and of the attention output (heads x head dim)."""
        return self.heads * self.hd

    @property
    def total_layers(self) -> int:
        return self.layers + self.dec_layers

    @property
    def active_ffn(self) -> int:
        """MLP width one token passes through (mixture-of-experts: the routed experts + shared)."""
        if self.experts:
            return self.experts_active * self.expert_ffn + self.shared_ffn
        return self.ffn

    @property
    def has_shape(self) -> bool:
        return self.is_transformer and self.layers > 0 and self.hidden > 0

    def tokens_per_sample(self, seq: int | None, image_size: int | None) -> int:
        if self.family == "vit":
            size = image_size or self.image_size or 224
            return (size // (self.patch or 16)) ** 2 + 1
        return seq or self.max_seq or 0

    # --- parameter anatomy --------------------------------------------------------------
    def embedding_params(self) -> int:
        """Parameters of the input embeddings (lookup tables, not matmuls)."""
        if not self.is_transformer:
            return 0
        if self.family == "vit":
            return 0
        pos = self.max_seq * self.hidden if self.learned_positions else 0
        types = 2 * self.hidden if self.family == "encoder" else 0
        return self.vocab * self.hidden + pos + types

    def head_params(self) -> int:
        """LM head matrix; counted once in `params` when tied to the embedding."""
        return self.vocab * self.hidden if self.head == "lm" else 0

    def attn_linear_params(self) -> int:
        h = self.hidden
        return 2 * h * self.attn_dim + 2 * h * self.kv * self.hd

    def mlp_linear_params(self, active: bool = False) -> int:
        per = 3 if self.gated_mlp else 2
        if self.experts:
            routed = (self.experts_active if active else self.experts) * self.expert_ffn
            return per * self.hidden * (routed + self.shared_ffn) + self.hidden * self.experts  # + router
        return per * self.hidden * self.ffn

    def layer_linear_params(self) -> int:
        """Matmul weights of one (encoder / decoder-only) layer: what QLoRA quantizes."""
        return self.attn_linear_params() + self.mlp_linear_params()

    def all_linear_params(self) -> int:
        """Matmul weights of every layer (a seq2seq decoder layer adds cross-attention)."""
        return self.total_layers * self.layer_linear_params() + self.dec_layers * self.attn_linear_params()

    def matmul_params(self) -> int:
        """Parameters that take part in a matmul per token (6·N FLOPs rule); mixture-of-experts
        counts the experts a token is routed to (active parameters)."""
        if not self.has_shape:
            return self.params
        layer = self.attn_linear_params() + self.mlp_linear_params(active=True)
        return self.total_layers * layer + self.dec_layers * self.attn_linear_params() + self.head_params()

    @property
    def active_params(self) -> int:
        """Parameters one token uses (total for dense models)."""
        if not (self.experts and self.has_shape):
            return self.params
        return self.params - self.total_layers * (self.mlp_linear_params() - self.mlp_linear_params(active=True))

    def largest_tensor(self) -> int:
        """Elements of the largest parameter tensor (per-tensor temporaries)."""
        if not self.has_shape:
            return self.params // 10 or self.params
        return max(self.vocab * self.hidden, self.hidden * max(self.ffn, self.expert_ffn), self.hidden * self.attn_dim)


def shape_params(spec: ModelSpec) -> int:
    """Parameter count computed from the shape (checked against each preset's published count)."""
    h, layers, f = spec.hidden, spec.layers, spec.ffn
    kvd, inner = spec.kv * spec.hd, spec.attn_dim
    b = 1 if spec.bias else 0
    norm = (2 if spec.norm == "layernorm" else 1) * h
    attn = spec.attn_linear_params() + b * (inner + 2 * kvd + h)
    mlp = spec.mlp_linear_params() + (b * ((2 if spec.gated_mlp else 1) * f + h) if not spec.experts else 0)
    if spec.family == "seq2seq":
        return _seq2seq_params(spec, attn, mlp, norm)
    total = layers * (attn + mlp + 2 * norm)
    if spec.family == "vit":
        tokens = (spec.image_size // spec.patch) ** 2 + 1
        total += 3 * spec.patch * spec.patch * h + h + h + tokens * h + norm + h * spec.classes + spec.classes
        return total
    total += spec.embedding_params()
    if spec.family == "encoder":
        total += norm + h * h + h  # embedding LayerNorm, pooler
        total += h * 2 + 2 if spec.head == "cls" else 0  # two-label classifier
    else:
        total += norm  # final norm
        if spec.head == "lm" and not spec.tied_embeddings:
            total += spec.vocab * h
    return total


def _seq2seq_params(spec: ModelSpec, attn: int, mlp: int, norm: int) -> int:
    """T5 / mT5 (RMS-style norms, relative position buckets, no biases, a final norm per
    stack) or BART (learned positions, a LayerNorm on each stack's embeddings, biases)."""
    h = spec.hidden
    enc = spec.layers * (attn + mlp + 2 * norm)
    dec = spec.dec_layers * (2 * attn + mlp + 3 * norm)
    total = spec.vocab * h + enc + dec  # one shared embedding
    if spec.learned_positions:  # BART: max_position_embeddings + 2 positions per stack
        total += 2 * (spec.max_seq + 2) * h + 2 * norm
    else:  # T5: 32 relative-position buckets per head in each stack's first layer, final norms
        total += 2 * 32 * spec.heads + 2 * norm
    if not spec.tied_embeddings:
        total += spec.vocab * h
    return total


# --- presets -----------------------------------------------------------------------------
def _load_presets() -> dict[str, ModelSpec]:
    doc = tomllib.loads(PRESETS_FILE.read_text(encoding="utf-8"))
    out: dict[str, ModelSpec] = {}
    for i, row in enumerate(doc.get("preset", [])):
        try:
            spec = from_data(ModelSpec, row, f"preset[{i}]")
        except DataError as exc:
            raise ModelError(f"{PRESETS_FILE.name}: {exc}") from None
        out[spec.name] = spec
    return out


_PRESETS: dict[str, ModelSpec] | None = None


def presets() -> dict[str, ModelSpec]:
    global _PRESETS
    if _PRESETS is None:
        _PRESETS = _load_presets()
    return _PRESETS


def find_preset(name: str) -> ModelSpec:
    key = name.strip().lower().replace("_", "-")
    table = presets()
    if key in table:
        return table[key]
    for spec in table.values():
        if key in spec.aliases:
            return spec
    names = sorted(set(table) | {a for s in table.values() for a in s.aliases})
    close = difflib.get_close_matches(key, names, n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ModelError(f"unknown model preset {name!r}{hint} (gpudoctor plan --list shows all)")


# --- explicit shape ----------------------------------------------------------------------
def explicit(params: float | None, layers: int | None, hidden: int | None, heads: int | None,
             vocab: int | None, ffn: int | None, seq: int | None, kv_heads: int | None = None,
             base: ModelSpec | None = None) -> ModelSpec:
    """A model from --params/--layers/--hidden/... (over a preset when one is given)."""
    if base is not None:
        shape = {"layers": layers, "hidden": hidden, "heads": heads, "vocab": vocab, "ffn": ffn, "kv_heads": kv_heads}
        changes = {k: v for k, v in shape.items() if v}
        spec = replace(base, **changes) if changes else base
        if changes and spec.has_shape:
            spec = replace(spec, params=shape_params(spec), name=f"{base.name} (modified)")
        if params:
            spec = replace(spec, params=int(params))
        return spec
    if not (layers and hidden):
        if not params:
            raise ModelError("give a preset, --config FILE, --torch MODULE:FACTORY, or a shape "
                             "(--params, or --layers and --hidden)")
        return ModelSpec(name=f"{_human(params)} parameters", family="generic", params=int(params),
                         source="--params", note="no shape given: activations are not estimated")
    heads = heads or max(1, hidden // 128)
    spec = ModelSpec(name="custom transformer", family="decoder", params=0, source="explicit shape options",
                     layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads or 0,
                     ffn=ffn or 4 * hidden, vocab=vocab or 0, max_seq=seq or 2048,
                     head="lm" if vocab else "none", bias=False, norm="layernorm")
    return replace(spec, params=int(params) if params else shape_params(spec))


def _human(n: float) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(int(n))


# --- Hugging Face config.json: gpudoctor/plan/hf_config.py ----------------------------------
def from_hf_config(path: str) -> ModelSpec:
    from gpudoctor.plan.hf_config import from_hf_config as parse

    return parse(path)


def resolve(name: str | None, config: str | None) -> ModelSpec | None:
    if config:
        return from_hf_config(config)
    if name:
        return find_preset(name)
    return None
