"""A ModelSpec from a local Hugging Face (or timm) config.json, never downloaded.

Decoders (llama / mistral / qwen / gemma / gpt2 / gpt_bigcode style keys), mixture-of-
experts decoders (mixtral, qwen-moe, olmoe, deepseek), encoders (bert style),
encoder-decoders (T5, mT5, BART), vision transformers, and convolutional networks
that gpudoctor has a measured preset for (HF ResNet, timm `architecture`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from gpudoctor.plan.models import ModelError, ModelSpec, find_preset, shape_params

MAX_CONFIG_BYTES = 4 << 20  # config.json files are a few KB; refuse anything that is not one
GATED_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
               "gemma3_text", "phi3", "olmo", "olmo2", "olmoe", "internlm2", "cohere", "granite", "starcoder2x",
               "deepseek_v2", "deepseek_v3"}
TIED_BY_DEFAULT = {"gpt2", "gpt_bigcode", "gemma", "gemma2", "gemma3_text", "t5", "bart", "mbart"}
ENCODER_TYPES = {"bert", "roberta", "xlm-roberta", "electra", "deberta", "deberta-v2", "distilbert",
                 "camembert", "mpnet", "albert"}
VIT_TYPES = {"vit", "deit", "beit", "dinov2", "vit_mae", "vit_msn", "clip_vision_model", "siglip_vision_model"}
T5_TYPES = {"t5", "mt5", "umt5"}
BART_TYPES = {"bart", "mbart"}
# timm / HF names of the convolutional networks gpudoctor has measured presets for
CNN_NAMES = {"resnet18": "resnet18", "resnet50": "resnet50", "resnet-18": "resnet18", "resnet-50": "resnet50"}


def _first(cfg: dict, *keys: str, default=None):
    for k in keys:
        if cfg.get(k) is not None:
            return cfg[k]
    return default


def _read(path: str) -> dict:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_CONFIG_BYTES:
            raise ModelError(f"{path}: {p.stat().st_size:,} bytes is not a config.json (limit {MAX_CONFIG_BYTES:,})")
        cfg = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ModelError(f"{path} is not a text file") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ModelError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(cfg, dict):
        raise ModelError(f"{path}: expected a JSON object")
    return cfg


def _name(cfg: dict, p: Path, mtype: str) -> str:
    """The model's own name: the config's `_name_or_path`, else the Hugging Face
    cache folder (hub/models--org--name/snapshots/<hash>/config.json gives
    org/name), else its `model_type`. Never the parent folder: it is a snapshot
    hash or a name like "inputs" that says nothing."""
    own = str(cfg.get("_name_or_path") or "").strip()
    if own and not own.startswith(("/", ".", "~")):
        return own
    cached = hf_cache_name(p)
    return cached or (Path(own).name if own else "") or mtype or "config.json"


def hf_cache_name(p: Path) -> str | None:
    """org/name from a path inside the Hugging Face hub cache, or None."""
    for part in reversed(p.resolve().parts if p.exists() else p.parts):
        if part.startswith("models--") and len(part) > len("models--"):
            return part[len("models--"):].replace("--", "/")
    return None


def _cnn(cfg: dict, mtype: str, path: str) -> ModelSpec | None:
    """A config for a convolutional network: the measured preset of the same architecture."""
    arch = str(cfg.get("architecture") or "").lower()  # timm
    if not arch and mtype == "resnet":  # HF transformers ResNetConfig
        depths = tuple(cfg.get("depths") or ())
        arch = {(2, 2, 2, 2): "resnet18", (3, 4, 6, 3): "resnet50"}.get(depths, "")
        if cfg.get("layer_type") == "basic" and depths != (2, 2, 2, 2) or not arch:
            raise ModelError(f"{path}: ResNet with depths {list(depths)}: gpudoctor has measured presets for "
                             "resnet18 and resnet50 only (or use --torch MODULE:FACTORY)")
    if not arch:
        return None
    base = arch.split(".")[0]
    if base in CNN_NAMES:
        spec = find_preset(CNN_NAMES[base])
        return replace(spec, source=f"{path} (as the {spec.name} preset)")
    if base.startswith("vit_base_patch16"):
        return replace(find_preset("vit-b16"), source=f"{path} (as the vit-b16 preset)")
    if base.startswith("vit_large_patch16"):
        return replace(find_preset("vit-l16"), source=f"{path} (as the vit-l16 preset)")
    raise ModelError(f"{path}: timm architecture {arch!r} has no gpudoctor preset (use --torch MODULE:FACTORY)")


def _moe(cfg: dict, ffn: int) -> dict:
    experts = int(_first(cfg, "num_local_experts", "num_experts", "n_routed_experts", default=0) or 0)
    if experts <= 1:
        return {}
    width = int(_first(cfg, "moe_intermediate_size", default=ffn) or ffn)
    shared = int(_first(cfg, "shared_expert_intermediate_size", default=0) or 0)
    if not shared and cfg.get("n_shared_experts"):
        shared = int(cfg["n_shared_experts"]) * width
    return {"experts": experts, "experts_active": int(_first(cfg, "num_experts_per_tok", "top_k", default=2)),
            "expert_ffn": width, "shared_ffn": shared}


def _positive(path: str, **values) -> None:
    for key, v in values.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ModelError(f"{path}: {key} must be a positive integer, not {v!r}")


def from_hf_config(path: str) -> ModelSpec:
    p = Path(path)
    cfg = _read(path)
    mtype = str(cfg.get("model_type", "")).lower()
    if mtype in ("clip", "siglip") and isinstance(cfg.get("vision_config"), dict):
        cfg = {"model_type": f"{mtype}_vision_model", **cfg["vision_config"]}
        mtype = str(cfg["model_type"])
    elif isinstance(cfg.get("text_config"), dict):  # multimodal wrappers: plan the language model
        cfg = {**cfg["text_config"], "model_type": cfg["text_config"].get("model_type", cfg.get("model_type"))}
        mtype = str(cfg.get("model_type", "")).lower()
    cnn = _cnn(cfg, mtype, path)
    if cnn is not None:
        return cnn
    hidden = _first(cfg, "hidden_size", "n_embd", "d_model", "dim")
    layers = _first(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers", "encoder_layers")
    heads = _first(cfg, "num_attention_heads", "n_head", "num_heads", "n_heads", "encoder_attention_heads")
    if hidden is None or layers is None or heads is None:
        raise ModelError(f"{path}: no hidden size / layer count / head count found "
                         "(expected hidden_size, num_hidden_layers, num_attention_heads or n_embd, n_layer, n_head)")
    _positive(path, hidden_size=hidden, layers=layers, heads=heads)
    seq2seq = mtype in T5_TYPES or mtype in BART_TYPES
    family = "seq2seq" if seq2seq else \
        ("encoder" if mtype in ENCODER_TYPES else ("vit" if mtype in VIT_TYPES else "decoder"))
    act = str(_first(cfg, "hidden_act", "activation_function", "feed_forward_proj", default=""))
    gated = mtype in GATED_TYPES or act.startswith("gated") or (act in ("silu", "swiglu") and mtype != "gpt2")
    ffn = _first(cfg, "intermediate_size", "n_inner", "ffn_dim", "d_ff", "encoder_ffn_dim") or 4 * hidden
    dropout_keys = ("hidden_dropout_prob", "resid_pdrop", "dropout", "hidden_dropout", "dropout_rate",
                    "attention_dropout")
    dropout = any(isinstance(cfg.get(k), (int, float)) and cfg[k] > 0 for k in dropout_keys)
    kv = int(_first(cfg, "num_key_value_heads", "num_kv_heads", default=0) or 0)
    if mtype == "gpt_bigcode" and cfg.get("multi_query", True):
        kv = 1  # multi-query attention: one key/value head (GPTBigCodeConfig's default)
    head_dim = int(_first(cfg, "head_dim", "d_kv", default=0) or 0)
    if head_dim and head_dim * heads == hidden and mtype not in T5_TYPES:
        head_dim = 0  # the default, keep the spec plain
    moe = _moe(cfg, int(ffn))
    notes = []
    if moe:
        notes.append(f"mixture-of-experts: {moe['experts']} experts per layer, {moe['experts_active']} per token; "
                     "memory counts every expert, speed the routed ones")
    if mtype.startswith("deepseek") and cfg.get("kv_lora_rank"):
        notes.append("multi-head latent attention planned as ordinary attention of the same width")
    t5 = mtype in T5_TYPES
    spec = ModelSpec(
        name=_name(cfg, p, mtype),
        family=family,
        params=0,
        source=str(p),
        layers=int(layers), hidden=int(hidden), heads=int(heads), kv_heads=kv, head_dim=head_dim,
        dec_layers=int(_first(cfg, "num_decoder_layers", "decoder_layers", default=layers)) if seq2seq else 0,
        ffn=int(ffn),
        vocab=int(_first(cfg, "vocab_size", default=0) or 0) if family != "vit" else 0,
        max_seq=int(_first(cfg, "max_position_embeddings", "n_positions", "n_ctx", "seq_length",
                           default=512 if seq2seq else 2048)),
        tied_embeddings=bool(cfg.get("tie_word_embeddings", mtype in TIED_BY_DEFAULT)),
        gated_mlp=gated,
        norm="rmsnorm" if (gated or t5 or "rms_norm_eps" in cfg) else "layernorm",
        activation="silu" if gated else ("gelu_new" if act == "gelu_new" else "gelu"),
        dropout=dropout,
        head="cls" if family in ("encoder", "vit") else "lm",
        bias=not (gated or t5) and mtype not in ("gemma",),
        learned_positions=mtype in ("gpt2", "gpt_neo", "opt", "gpt_bigcode") or family == "encoder"
        or mtype in BART_TYPES,
        image_size=int(cfg.get("image_size", 224)) if family == "vit" else 0,
        patch=int(cfg.get("patch_size", 16)) if family == "vit" else 0,
        classes=1000 if family == "vit" else 0,
        note="; ".join(notes),
        **moe,
    )
    return replace(spec, params=shape_params(spec))
