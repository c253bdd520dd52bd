"""Exact mode (--torch / --exact): the script the target interpreter runs, checked
against real CPU allocations and against formula mode.

The torch-dependent tests need an interpreter with torch (a CPU build is enough):
    GPUDOCTOR_TEST_TORCH_PYTHON=/path/to/venv/bin/python pytest tests/test_plan_exact.py
Without it they are skipped, and say so.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.plan import accuracy, exact, memory, models
from gpudoctor.plan.job import Job

TORCH_PY = os.environ.get("GPUDOCTOR_TEST_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PY, reason="set GPUDOCTOR_TEST_TORCH_PYTHON to an interpreter with "
                                                      "torch to run exact-mode tests")
FACTORIES = Path(__file__).resolve().parent / "fixtures" / "plan" / "factories.py"
TARGET_SCRIPTS = [exact.SCRIPT.parent / name for name in ("exact_script.py", "live_tracker.py", "torch_presets.py",
                                                          "torch_vision_presets.py")]
STDLIB = set(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


@pytest.mark.parametrize("path", TARGET_SCRIPTS, ids=lambda p: p.name)
def test_target_scripts_parse_as_python_38(path):
    ast.parse(path.read_text(), feature_version=(3, 8))


@pytest.mark.parametrize("path", TARGET_SCRIPTS, ids=lambda p: p.name)
def test_target_scripts_use_only_stdlib_and_torch(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    assert names - STDLIB - {"torch", "live_tracker", "torch_presets", "torch_vision_presets"} == set()


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="this interpreter has torch")
def test_interpreter_without_torch_is_a_clear_error():
    with pytest.raises(exact.ExactError, match="cannot import torch"):
        exact.run_exact(sys.executable, exact.request_for(Job(), builtin="mlp"), timeout=60)


def test_missing_interpreter_is_a_clear_error(tmp_path):
    with pytest.raises(exact.ExactError, match="cannot run"):
        exact.run_exact(str(tmp_path / "no-python"), exact.request_for(Job(), builtin="mlp"), timeout=10)


def test_cli_exact_error_is_one_line(tmp_path):

    result = invoke("plan", "mlp", "--exact", "--python", str(tmp_path / "nope"), "--json")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


# --- with torch ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_vs_tracked():
    """Small models run for real on the CPU (profiler allocation events) and on fake tensors."""
    cases = {
        "mlp fp32 adamw": exact.request_for(Job(batch=64, precision="fp32"), builtin="mlp", measure_real=True),
        "mlp factory sgd": exact.request_for(Job(batch=16, precision="fp32", optimizer="sgd"),
                                             factory=f"{FACTORIES}:tiny_mlp", measure_real=True),
        "tiny LM factory adamw": exact.request_for(Job(batch=4, seq=64, precision="fp32"),
                                                   factory=f"{FACTORIES}:tiny_lm", measure_real=True),
        "tiny LM bf16 checkpointed": exact.request_for(
            Job(batch=4, seq=64, precision="bf16", grad_checkpointing=True), factory=f"{FACTORIES}:tiny_lm",
            measure_real=True),
        "gpt2 fp32 batch 1 x 64": exact.request_for(Job(batch=1, seq=64, precision="fp32"), builtin="gpt2",
                                                    measure_real=True),
    }
    results = exact.run_exact_many(TORCH_PY, list(cases.values()), timeout=900)
    return dict(zip(cases, results))


@needs_torch
@pytest.mark.slow
@pytest.mark.parametrize("case", ["mlp fp32 adamw", "mlp factory sgd", "tiny LM factory adamw",
                                  "tiny LM bf16 checkpointed", "gpt2 fp32 batch 1 x 64"])
def test_tracked_peak_matches_real_cpu_allocations(real_vs_tracked, case):
    res = real_vs_tracked[case]
    assert not isinstance(res, Exception), res
    assert res.real_peak_bytes, "the real run reported no allocations"
    assert res.peak_bytes == pytest.approx(res.real_peak_bytes, rel=0.10)


FORMULA_CASES = accuracy.EXACT_CASES


@pytest.fixture(scope="module")
def exact_on_presets():
    requests = [exact.request_for(job, builtin=name) for name, job in FORMULA_CASES.values()]
    return dict(zip(FORMULA_CASES, exact.run_exact_many(TORCH_PY, requests, timeout=1200)))


@needs_torch
@pytest.mark.slow
@pytest.mark.parametrize("case", list(FORMULA_CASES))
def test_formula_agrees_with_exact_mode(exact_on_presets, case):
    name, job = FORMULA_CASES[case]
    res = exact_on_presets[case]
    assert not isinstance(res, Exception), res
    formula = memory.estimate(models.find_preset(name), job).allocated
    assert formula == pytest.approx(res.peak_bytes, rel=0.10)


@needs_torch
@pytest.mark.slow
def test_reference_implementations_have_the_published_parameter_counts():
    code = ("import json, sys, warnings; warnings.filterwarnings('ignore'); sys.path.insert(0, sys.argv[1]);"
            "import torch_presets as tp; from torch._subclasses.fake_tensor import FakeTensorMode\n"
            "out = {}\nfor n in tp.names():\n    with FakeTensorMode():\n"
            "        m = tp.build(n, 1)[0]\n        out[n] = sum(p.numel() for p in m.parameters())\n"
            "print(json.dumps(out))")
    from gpudoctor.host import run_command

    res = run_command([TORCH_PY, "-c", code, str(exact.SCRIPT.parent)], timeout=600)
    counts = json.loads(res.stdout.strip().splitlines()[-1])
    assert set(counts) == set(models.presets())
    for name, spec in models.presets().items():
        assert counts[name] == spec.params, name


@needs_torch
@pytest.mark.slow
def test_cli_torch_factory_end_to_end():

    args = ["--torch", f"{FACTORIES}:tiny_lm", "--python", TORCH_PY, "--batch", "2", "--seq", "32",
            "--precision", "fp32", "--json"]
    result = invoke("plan", *args)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["mode"] == "exact" and data["model"]["params"] > 0
    assert data["memory"]["weights_gib"] > 0 and data["memory"]["optimizer_gib"] > 0

    broken = invoke("plan", "--torch", f"{FACTORIES}:broken", "--python", TORCH_PY)
    assert broken.exit_code == 2 and "broken on purpose" in broken.stderr

    bare = invoke("plan", "--torch", f"{FACTORIES}:only_model", "--python", TORCH_PY)
    assert bare.exit_code == 2 and "return (model, inputs" in bare.stderr
