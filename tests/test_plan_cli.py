"""`gpudoctor plan` end to end: output contract, errors, ranking, --here, --svg, --prices."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke
from plan_helpers import small_matrices

import gpudoctor.matrices
from gpudoctor.commands import plan as plan_cmd
from gpudoctor.matrices import load_matrices
from gpudoctor.snapshot import Gpu, Snapshot

SCHEMA = json.loads((Path(plan_cmd.__file__).resolve().parent.parent / "schema" / "plan.v1.json").read_text())


@pytest.fixture(autouse=True)
def no_user_prices(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(gpudoctor.matrices, "load_matrices", lambda *a, **k: small_matrices())


def run_json(*args):
    result = invoke("plan", *args, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_json_contract_with_the_shipped_gpu_table():
    data = run_json("gpt2", "--batch", "4", "--seq", "512", "--samples", "100000")
    assert data["schema_version"] == 1
    mem = data["memory"]
    parts = sum(mem[k] for k in ("weights_gib", "gradients_gib", "optimizer_gib", "activations_gib", "other_gib",
                                 "context_gib"))
    assert parts == pytest.approx(mem["peak_gib"], abs=0.01)
    # every known GPU except embedded boards and laptop GPUs, which come only with --edge
    shipped = load_matrices().gpus
    assert len(data["gpus"]) == len([g for g in shipped if g.segment not in ("embedded", "laptop")])
    assert len(run_json("gpt2", "--batch", "4", "--edge")["gpus"]) == len(shipped)
    assert [g["rank"] for g in data["gpus"]] == list(range(1, len(data["gpus"]) + 1))


def test_ranking_fitting_first_tightest_first(small):
    data = run_json("llama-3.2-1b", "--batch", "4", "--seq", "1024", "--precision", "bf16", "--sort", "fit")
    fits = [g["fits"] for g in data["gpus"]]
    assert fits == sorted(fits, reverse=True)
    fitting = [g["headroom_gib"] for g in data["gpus"] if g["fits"]]
    assert fitting == sorted(fitting)


def test_precision_unsupported_is_not_a_fit(small):
    data = run_json("gpt2", "--batch", "1", "--seq", "128", "--precision", "amp-bf16")
    t4 = next(g for g in data["gpus"] if g["name"] == "T4")
    assert t4["headroom_gib"] > 0 and not t4["fits"] and t4["precision_supported"] is False


def test_does_not_fit_gives_the_cheapest_change(small):
    # Llama-2-7B LoRA at 4 x 2048 without checkpointing: too big for 24 GB, fits once checkpointed.
    data = run_json("llama2-7b", "--lora", "8", "--precision", "bf16", "--batch", "4", "--seq", "2048")
    rtx = next(g for g in data["gpus"] if "4090" in g["name"])
    assert not rtx["fits"]
    assert rtx["to_fit"] is not None and rtx["to_fit"]["peak_gib"] <= rtx["memory_gib"]
    assert data["suggestions"], "a job that does not fit everywhere lists what would make it fit"
    single = [s for s in data["suggestions"] if "+" not in s["change"]]
    assert any(s["smallest_fit"] for s in single)


def test_time_and_cost_need_a_dataset(small):
    without = run_json("gpt2", "--batch", "8", "--seq", "1024")
    assert all(g["hours"] is None for g in without["gpus"])
    with_data = run_json("gpt2", "--batch", "8", "--seq", "1024", "--tokens", "1B")
    h100 = next(g for g in with_data["gpus"] if g["model"] == "H100 SXM5 80GB")
    rtx = next(g for g in with_data["gpus"] if "4090" in g["name"])
    assert h100["hours"] < rtx["hours"]
    assert rtx["cost"]["job_usd"]["community"][0] > 0
    assert with_data["steps"] == pytest.approx(1e9 / (8 * 1024), rel=1e-3)


def test_inference_plans_kv_cache(small):
    data = run_json("llama3-8b", "--inference", "--context", "8192", "--batch", "1", "--precision", "bf16")
    assert data["memory"]["activations_gib"] == pytest.approx(1.0, abs=0.01)  # 2*32*8*128*8192*2 bytes
    assert data["memory"]["optimizer_gib"] == 0
    assert all(g["decode_tokens_per_s"] for g in data["gpus"])


def test_list_shows_presets():
    result = invoke("plan", "--list")
    assert result.exit_code == 0
    for name in ("bert-large", "gpt2-xl", "sd-unet", "llama3-70b"):
        assert name in result.stdout
    data = json.loads(invoke("plan", "--list", "--json").stdout)
    assert {"name", "family", "params", "source"} <= set(data[0])


@pytest.mark.parametrize("args, needle", [
    (["bert-larg"], "bert-large"),
    (["gpt2", "--precision", "fp17"], "fp32"),
    (["gpt2", "--optimizer", "adamm"], "adam"),
    (["gpt2", "--gpu", "RTX 9999 Ultra"], "unknown GPU"),
    (["gpt2", "--zero", "2"], "--gpus"),
    (["gpt2", "--params", "lots"], "not a number"),
    (["gpt2", "--batch", "many"], "not a valid integer"),
    (["gpt2", "--fsd"], "--fsdp"),
    ([], "name a model"),
])
def test_usage_errors_are_one_line_exit_2(small, args, needle):
    result = invoke("plan", *args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
    assert result.stdout == ""


def test_config_json(tmp_path, small):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
                               "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
                               "vocab_size": 128256, "tie_word_embeddings": True, "rms_norm_eps": 1e-5}))
    data = run_json("--config", str(cfg), "--seq", "1024")
    assert data["model"]["params"] == 1_235_814_400


def test_explicit_shape(small):
    data = run_json("--params", "7B")
    assert data["model"]["family"] == "generic" and data["model"]["params"] == 7_000_000_000
    assert any("activations not estimated" in n for n in data["memory"]["notes"])


def test_svg_and_text_view(tmp_path, small):
    svg = tmp_path / "plan.svg"
    result = invoke("plan", "gpt2", "--batch", "2", "--seq", "256", "--svg", str(svg))
    assert result.exit_code == 0
    assert "Candidate GPUs" in result.stdout and "peak" in result.stdout
    text = svg.read_text()
    assert text.startswith("<svg") and "Candidate" in text


def test_svg_unwritable(tmp_path, small):
    result = invoke("plan", "gpt2", "--svg", str(tmp_path / "missing" / "dir" / "x.svg"))
    assert result.exit_code == 2 and "cannot write" in result.stderr


def test_prices_file_override(tmp_path, small):
    p = tmp_path / "mine.toml"
    p.write_text('as_of = "2030-05-05"\n[[rent]]\ngpu = "A10"\ntier = "community"\nprovider = "me"\n'
                 'usd_per_hour = 0.01\ndate = "2030-05-05"\nsource = "my invoice"\n')
    data = run_json("gpt2", "--prices", str(p), "--tokens", "1e8")
    assert data["prices"]["as_of"] == "2030-05-05" and data["prices"]["origin"] == str(p)
    a10 = next(g for g in data["gpus"] if g["name"] == "A10")
    assert a10["cost"]["per_hour_usd"]["community"] == [0.01, 0.01]


def _snapshot(*gpus):
    return Snapshot(gpus=tuple(gpus))


def test_here_plans_against_this_machine(small, monkeypatch):
    monkeypatch.setattr(plan_cmd, "_collect_snapshot", lambda: _snapshot(
        Gpu(index=0, name="NVIDIA GeForce RTX 4090", memory_total_mib=24564, compute_capability="8.9")))
    data = run_json("gpt2", "--batch", "2", "--seq", "512", "--here")
    assert [g["model"] for g in data["gpus"]] == ["GeForce RTX 4090"]
    assert data["gpus"][0]["memory_gib"] == pytest.approx(24564 / 1024, abs=0.01)
    assert data["here"]["gpus_found"] == 1


def test_here_unknown_gpu_still_plans_memory(small, monkeypatch):
    monkeypatch.setattr(plan_cmd, "_collect_snapshot", lambda: _snapshot(
        Gpu(index=0, name="NVIDIA Mystery 7", memory_total_mib=8192)))
    data = run_json("gpt2", "--batch", "1", "--seq", "128", "--here")
    assert data["gpus"][0]["memory_gib"] == pytest.approx(8.0) and data["gpus"][0]["step_time_s"] is None


def test_here_without_gpu_says_so(small, monkeypatch):
    monkeypatch.setattr(plan_cmd, "_collect_snapshot", lambda: _snapshot())
    result = invoke("plan", "gpt2", "--here")
    assert result.exit_code == 1
    assert "No NVIDIA GPU on this machine" in result.stdout
    data = json.loads(invoke("plan", "gpt2", "--here", "--json").stdout)
    assert data["gpus"] == [] and data["here"]["gpus_found"] == 0


def test_here_job_too_big_exits_1(small, monkeypatch):
    monkeypatch.setattr(plan_cmd, "_collect_snapshot", lambda: _snapshot(
        Gpu(index=0, name="Tesla T4", memory_total_mib=15360, compute_capability="7.5")))
    result = invoke("plan", "llama2-13b", "--precision", "amp-fp16", "--here")
    assert result.exit_code == 1


def test_through_the_real_cli_entry_point():

    result = invoke("plan", "--list")
    assert result.exit_code == 0 and "llama2-7b" in result.stdout


def test_default_ranking_is_job_cost_then_time_and_says_the_answer(small):
    data = run_json("llama-3.2-1b", "--batch", "4", "--seq", "1024", "--precision", "bf16", "--tokens", "1e9")
    assert data["sort"] == "cost"
    fitting = [g for g in data["gpus"] if g["fits"]]
    rented = [g["job_rent_usd"] for g in fitting if g["job_rent_usd"] is not None]
    assert rented and rented == sorted(rented)
    # rentable GPUs before those without a rent price
    priced = [g["job_rent_usd"] is not None for g in fitting]
    assert priced == sorted(priced, reverse=True)
    picks = {k["pick"]: k for k in data["summary"]}
    assert set(picks) == {"cheapest", "fastest", "best value"}
    assert picks["cheapest"]["gpu"] == fitting[0]["name"]
    fastest = min((g for g in fitting if g["job_rent_usd"] is not None), key=lambda g: g["hours"])
    assert picks["fastest"]["gpu"] == fastest["name"]
    text = invoke("plan", "llama-3.2-1b", "--batch", "4", "--seq", "1024", "--precision", "bf16", "--tokens", "1e9").stdout
    assert "cheapest: " in text and "fastest: " in text and "best value: " in text


def test_sort_by_time(small):
    data = run_json("llama-3.2-1b", "--batch", "4", "--seq", "1024", "--precision", "bf16", "--tokens", "1e9",
                    "--sort", "time")
    hours = [g["hours"] for g in data["gpus"] if g["fits"]]
    assert hours == sorted(hours)


def test_multi_gpu_hours_follow_the_throughput(small):
    data = run_json("resnet50", "--batch", "256", "--precision", "amp-fp16", "--optimizer", "sgd", "--gpus", "8",
                    "--samples", "1281167", "--epochs", "1", "--gpu", "A100 SXM4 80GB")
    g = data["gpus"][0]
    assert g["hours"] == pytest.approx(1281167 / g["samples_per_s"] / 3600, rel=0.01)


def test_inference_has_a_time_column_and_a_kv_cache_label(small):
    result = invoke("plan", "llama3-8b", "--inference", "--context", "4096", "--batch", "4")
    assert "KV cache" in result.stdout
    data = run_json("llama3-8b", "--inference", "--context", "4096", "--batch", "4")
    assert data["memory"]["kv_cache_gib"] == pytest.approx(data["memory"]["activations_gib"])


def test_qlora_states_the_bitsandbytes_assumption(small):
    data = run_json("llama2-7b", "--qlora", "--lora", "8", "--seq", "1024", "--batch", "2")
    assert any("bitsandbytes >= 0.43.2" in n for n in data["memory"]["notes"])
    old = run_json("llama2-7b", "--qlora", "--lora", "8", "--seq", "1024", "--batch", "2", "--bnb-version", "0.41.1")
    assert old["memory"]["peak_gib"] > data["memory"]["peak_gib"]
    assert any("PR #1270" in n for n in old["memory"]["notes"])


def test_bnb_version_read_from_the_target_interpreter(small, tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 0.42.0\n")
    fake.chmod(0o755)
    data = run_json("llama2-7b", "--qlora", "--lora", "8", "--seq", "1024", "--batch", "2", "--python", str(fake))
    assert data["job"]["bnb_version"] == "0.42.0"
    assert any("bitsandbytes 0.42.0 (read from" in n for n in data["memory"]["notes"])
