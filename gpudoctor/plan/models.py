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
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PRESETS_FILE = Path(__file__).resolve().parent.parent / "data" / "plan_presets.toml"

TRANSFORMER_FAMILIES = ("decoder", "encoder", "vit")
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
    name: str
    family: str  # one of FAMILIES
    params: int
    source: str
    layers: int = 0
    hidden: int = 0
    heads: int = 0
    kv_heads: int = 0  # 0 = same as heads
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

    def layer_linear_params(self) -> int:
        """Matmul weights of one transformer layer (what QLoRA quantizes)."""
        h, hd = self.hidden, self.hidden // max(self.heads, 1)
        attn = 2 * h * h + 2 * h * self.kv * hd
        mlp = (3 if self.gated_mlp else 2) * h * self.ffn
        return attn + mlp

    def matmul_params(self) -> int:
        """Parameters that take part in a matmul per token (6·N FLOPs rule)."""
        if not self.has_shape:
            return self.params
        return self.layers * self.layer_linear_params() + self.head_params()

    def largest_tensor(self) -> int:
        """Elements of the largest parameter tensor (per-tensor temporaries)."""
        if not self.has_shape:
            return self.params // 10 or self.params
        return max(self.vocab * self.hidden, self.hidden * self.ffn, self.hidden * self.hidden)


def shape_params(spec: ModelSpec) -> int:
    """Parameter count computed from the shape (checked against each preset's published count)."""
    h, layers, f = spec.hidden, spec.layers, spec.ffn
    hd = h // spec.heads
    kvd = spec.kv * hd
    b = 1 if spec.bias else 0
    norm = (2 if spec.norm == "layernorm" else 1) * h
    attn = 2 * h * h + 2 * h * kvd + b * (2 * h + 2 * kvd)
    mlp = (3 if spec.gated_mlp else 2) * h * f + b * ((2 if spec.gated_mlp else 1) * f + h)
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
        changes = {k: v for k, v in dict(layers=layers, hidden=hidden, heads=heads, vocab=vocab, ffn=ffn,
                                         kv_heads=kv_heads).items() if v}
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


# --- Hugging Face config.json ------------------------------------------------------------
GATED_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
               "gemma3_text", "phi3", "olmo", "olmo2", "internlm2", "cohere", "granite", "starcoder2x"}
ENCODER_TYPES = {"bert", "roberta", "xlm-roberta", "electra", "deberta", "deberta-v2", "distilbert",
                 "camembert", "mpnet", "albert"}
VIT_TYPES = {"vit", "deit", "beit", "dinov2", "vit_mae"}


def _first(cfg: dict, *keys: str, default=None):
    for k in keys:
        if cfg.get(k) is not None:
            return cfg[k]
    return default


def from_hf_config(path: str) -> ModelSpec:
    """A ModelSpec from a local config.json (llama/mistral/qwen, gpt2, bert, vit style keys)."""
    p = Path(path)
    try:
        cfg = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(cfg, dict):
        raise ModelError(f"{path}: expected a JSON object")
    if isinstance(cfg.get("text_config"), dict):  # multimodal wrappers: plan the language model
        cfg = {**cfg["text_config"], "model_type": cfg["text_config"].get("model_type", cfg.get("model_type"))}
    mtype = str(cfg.get("model_type", "")).lower()
    hidden = _first(cfg, "hidden_size", "n_embd", "d_model", "dim")
    layers = _first(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    heads = _first(cfg, "num_attention_heads", "n_head", "num_heads", "n_heads")
    if not (isinstance(hidden, int) and isinstance(layers, int) and isinstance(heads, int)):
        raise ModelError(f"{path}: no hidden size / layer count / head count found "
                         "(expected hidden_size, num_hidden_layers, num_attention_heads or n_embd, n_layer, n_head)")
    family = "encoder" if mtype in ENCODER_TYPES else ("vit" if mtype in VIT_TYPES else "decoder")
    gated = mtype in GATED_TYPES or (str(cfg.get("hidden_act", "")) in ("silu", "swiglu") and mtype != "gpt2")
    ffn = _first(cfg, "intermediate_size", "n_inner", "ffn_dim", "d_ff") or 4 * hidden
    dropout_keys = ("hidden_dropout_prob", "resid_pdrop", "dropout", "hidden_dropout", "attention_dropout")
    dropout = any(isinstance(cfg.get(k), (int, float)) and cfg[k] > 0 for k in dropout_keys)
    notes = []
    if _first(cfg, "num_local_experts", "num_experts", "n_routed_experts"):
        notes.append("mixture-of-experts: planned as a dense model of the same shape (experts not counted)")
    spec = ModelSpec(
        name=str(cfg.get("_name_or_path") or p.parent.name or mtype or "config.json"),
        family=family,
        params=0,
        source=str(p),
        layers=layers, hidden=hidden, heads=heads,
        kv_heads=int(_first(cfg, "num_key_value_heads", "num_kv_heads", default=0) or 0),
        ffn=int(ffn),
        vocab=int(_first(cfg, "vocab_size", default=0) or 0) if family != "vit" else 0,
        max_seq=int(_first(cfg, "max_position_embeddings", "n_positions", "n_ctx", "seq_length", default=2048)),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", mtype == "gpt2")),
        gated_mlp=gated,
        norm="rmsnorm" if (gated or "rms_norm_eps" in cfg) else "layernorm",
        activation="silu" if gated else ("gelu_new" if cfg.get("activation_function") == "gelu_new" else "gelu"),
        dropout=dropout,
        head="cls" if family in ("encoder", "vit") else "lm",
        bias=not gated and mtype not in ("gemma",),
        learned_positions=mtype in ("gpt2", "gpt_neo", "opt") or family == "encoder",
        image_size=int(cfg.get("image_size", 224)) if family == "vit" else 0,
        patch=int(cfg.get("patch_size", 16)) if family == "vit" else 0,
        classes=1000 if family == "vit" else 0,
        note="; ".join(notes),
    )
    return replace(spec, params=shape_params(spec))


def resolve(name: str | None, config: str | None) -> ModelSpec | None:
    if config:
        return from_hf_config(config)
    if name:
        return find_preset(name)
    return None
