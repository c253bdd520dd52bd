"""Model presets, explicit shapes and Hugging Face config.json parsing."""

from __future__ import annotations

import json
import re

import pytest

from gpudoctor.plan import models

PRESETS = models.presets()
SHAPED = [s for s in PRESETS.values() if s.has_shape]
MEASURED_FAMILIES = ("cnn", "unet", "mlp", "rnn")

REQUIRED = ["mlp", "lstm-2layer", "resnet18", "resnet50", "vit-b16", "vit-l16", "yolov5s", "bert-base", "bert-large",
            "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "llama-3.2-1b", "llama-3.2-3b", "llama2-7b", "llama3-8b",
            "llama2-13b", "llama3-70b", "sd-unet", "ddpm-unet"]


@pytest.mark.parametrize("name", REQUIRED)
def test_required_presets_exist(name):
    assert models.find_preset(name).name == name


@pytest.mark.parametrize("spec", SHAPED, ids=lambda s: s.name)
def test_shape_reproduces_published_parameter_count(spec):
    assert models.shape_params(spec) == spec.params


@pytest.mark.parametrize("spec", list(PRESETS.values()), ids=lambda s: s.name)
def test_preset_rows_are_well_formed(spec):
    assert re.fullmatch(r"[a-z0-9][a-z0-9.\-]*", spec.name)
    assert spec.source.strip()
    assert spec.family in models.FAMILIES
    if spec.family in MEASURED_FAMILIES:
        assert spec.measured is not None, "non-transformer presets need measured per-sample numbers"
        m = spec.measured
        assert m.fwd_flops > 0 and m.act_fp32 > 0 and m.act_amp > 0 and m.act_bf16 > 0
        assert m.act_amp <= m.act_fp32
    if spec.family != "mlp":
        assert "http" in spec.source or "/" in spec.source


def test_aliases_are_unique_and_do_not_shadow_names():
    seen = set(PRESETS)
    for spec in PRESETS.values():
        for alias in spec.aliases:
            assert alias not in seen, alias
            seen.add(alias)


def test_alias_and_spelling_resolve():
    assert models.find_preset("llama3-1b").name == "llama-3.2-1b"
    assert models.find_preset("LLAMA2_7B").name == "llama2-7b"


def test_unknown_preset_names_close_matches():
    with pytest.raises(models.ModelError) as exc:
        models.find_preset("bert-larg")
    assert "bert-large" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_explicit_params_only_is_generic():
    spec = models.explicit(7e9, None, None, None, None, None, None)
    assert spec.family == "generic" and spec.params == 7_000_000_000
    assert not spec.has_shape


def test_explicit_shape_computes_params():
    spec = models.explicit(None, 12, 768, 12, 50257, None, 1024)
    # GPT-2 small without biases, LayerNorm biases or position embeddings, untied head
    assert spec.params == 12 * (4 * 768 * 768 + 2 * 768 * 3072 + 4 * 768) + 2 * 50257 * 768 + 2 * 768
    assert spec.ffn == 4 * 768


def test_explicit_over_preset_changes_shape():
    base = models.find_preset("llama2-7b")
    spec = models.explicit(None, 16, None, None, None, None, None, base=base)
    assert spec.layers == 16 and spec.params < base.params


def test_explicit_needs_something():
    with pytest.raises(models.ModelError):
        models.explicit(None, None, None, None, None, None, None)


def _write(tmp_path, cfg):
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    return str(p)


@pytest.mark.parametrize("cfg, params", [
    ({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096,
      "rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": False}, 6_738_415_616),
    ({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
      "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "max_position_embeddings": 32768,
      "rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": False}, 7_241_732_096),
    ({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024,
      "activation_function": "gelu_new", "resid_pdrop": 0.1}, 124_439_808),
    ({"model_type": "bert", "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
      "intermediate_size": 4096, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2,
      "hidden_dropout_prob": 0.1}, 335_143_938),
    ({"model_type": "vit", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
      "intermediate_size": 3072, "image_size": 224, "patch_size": 16, "num_channels": 3}, 86_567_656),
], ids=["llama2-7b", "mistral-7b", "gpt2", "bert-large", "vit-b16"])
def test_hf_config(tmp_path, cfg, params):
    spec = models.from_hf_config(_write(tmp_path, cfg))
    assert spec.params == params


def test_hf_config_family_and_flags(tmp_path):
    spec = models.from_hf_config(_write(tmp_path, {
        "model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000}))
    assert spec.family == "decoder" and spec.gated_mlp and spec.norm == "rmsnorm" and spec.kv == 8


def test_hf_config_nested_text_config(tmp_path):
    spec = models.from_hf_config(_write(tmp_path, {"model_type": "llava", "text_config": {
        "model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 4, "num_attention_heads": 16,
        "intermediate_size": 5632, "vocab_size": 32000}}))
    assert spec.hidden == 2048 and spec.gated_mlp


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"model_type": "llama"}', "no hidden size"),
])
def test_hf_config_errors(tmp_path, content, message):
    p = tmp_path / "config.json"
    p.write_text(content)
    with pytest.raises(models.ModelError, match=message):
        models.from_hf_config(str(p))


def test_hf_config_missing_file(tmp_path):
    with pytest.raises(models.ModelError, match="cannot read"):
        models.from_hf_config(str(tmp_path / "nope.json"))


MISTRAL_SHAPE = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                 "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000}


@pytest.mark.parametrize("folders, extra, name", [
    (("inputs",), {}, "mistral"),  # a folder that says nothing: the config's model_type
    (("hub", "models--mistralai--Mistral-7B-v0.1", "snapshots", "0d4b76e1efeb"), {}, "mistralai/Mistral-7B-v0.1"),
    (("bad",), {"_name_or_path": "mistralai/Mistral-7B-v0.1"}, "mistralai/Mistral-7B-v0.1"),
    (("hub", "models--org--tuned", "snapshots", "abc123"), {"_name_or_path": "/home/me/ckpt"}, "org/tuned"),
    (("x",), {"_name_or_path": "/home/me/ckpt"}, "ckpt"),
], ids=["model-type", "hf-cache", "own-name", "cache-over-local-path", "local-path"])
def test_hf_config_model_name(tmp_path, folders, extra, name):
    where = tmp_path.joinpath(*folders)
    where.mkdir(parents=True)
    (where / "config.json").write_text(json.dumps({**MISTRAL_SHAPE, **extra}))
    assert models.from_hf_config(str(where / "config.json")).name == name
