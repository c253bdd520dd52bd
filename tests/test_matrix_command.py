"""`gpudoctor matrix <subject>`: JSON keys per the issue, rich text with the
data date, one-line errors with close matches and exit 2."""

from __future__ import annotations

import json

import pytest
from cli_helpers import invoke

from gpudoctor.matrices import load_matrices
from gpudoctor.matrices.loader import SHIPPED_DIR

SHIPPED = load_matrices(str(SHIPPED_DIR), overlay=None)


@pytest.fixture(autouse=True)
def _no_user_overlay(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def as_json(*args: str) -> dict:
    result = invoke("matrix", *args, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1 and doc["data_as_of"]
    return doc


def test_torch_release_builds_have_the_issue_keys():
    doc = as_json("torch", "2.14.1")
    assert doc["matrix"] == "torch" and doc["query"] == "2.14.1"
    need = {"version", "variant", "cuda", "cudnn", "arch_list", "python", "pypi_default", "index_url"}
    assert all(need <= set(row) for row in doc["rows"])
    pypi = [row for row in doc["rows"] if row["pypi_default"] and row["platform"] == "linux-x86_64"]
    assert [row["variant"] for row in pypi] == [SHIPPED.torch_pypi_build("2.14.1").variant]
    assert {row["version"] for row in doc["rows"]} == {"2.14.1"}
    assert pypi[0]["python"] == {"min": SHIPPED.torch_release("2.14.1").python_min,
                                 "max": SHIPPED.torch_release("2.14.1").python_max}


def test_torch_series_and_platform_filter():
    doc = as_json("torch", "2.9", "--platform", "windows-x86_64")
    assert doc["rows"] and {row["platform"] for row in doc["rows"]} == {"windows-x86_64"}
    assert {row["version"] for row in doc["rows"]} == {"2.9"}


def test_group_level_json_flag_works_too():
    result = invoke("matrix", "--json", "cudnn", "9.11.0")
    assert json.loads(result.stdout)["rows"][0]["min_sm"] == "7.5"


def test_cuda_rows_have_the_issue_keys():
    doc = as_json("cuda", "12.8")
    assert [row["version"] for row in doc["rows"]] == ["12.8.0", "12.8.1"]
    for row in doc["rows"]:
        assert {"version", "min_driver_linux", "min_driver_windows", "minor_compat_min_driver_linux", "sm"} <= set(row)
        assert row["minor_compat_min_driver_linux"] == SHIPPED.minor_compat_floor(12)
        assert "sm_120" in row["sm"]


def test_gpu_fuzzy_match_has_the_issue_keys():
    some = SHIPPED.gpus[0]
    doc = as_json("gpu", some.name.lower())
    assert doc["rows"][0]["name"] == some.name
    assert {"name", "compute_capability", "arch", "memory_gb", "memory_bandwidth_gbs", "fp32_tflops", "tf32_tflops",
            "fp16_tflops", "bf16_tflops", "fp8_tflops", "fp4_tflops"} <= set(doc["rows"][0])


@pytest.mark.parametrize("args, key, value", [
    (("tensorflow", "2.18.1"), "version", "2.18"),
    (("jax", "0.8.0"), "version_from", SHIPPED.jax_requirements("0.8.0").version_from),
    (("cudnn", "91002"), "version_from", SHIPPED.cudnn_release("9.10.2").version_from),
    (("cupy", "13"), "package", "cupy-cuda13x"),
    (("onnxruntime", "1.16.3"), "cuda", "11.8"),
])
def test_framework_subjects_answer_a_version(args, key, value):
    doc = as_json(*args)
    assert len(doc["rows"]) == 1 and doc["rows"][0][key] == value


@pytest.mark.parametrize("args, hint", [
    (("torch", "2.14.9"), "2.14.1"), (("torch", "3.0"), "2.15"), (("cuda", "12.7"), "12.6"),
    (("tensorflow", "0.12"), ""), (("jax", "0.99.0"), ""), (("cudnn", "6.0.21"), ""), (("cupy", "cuda99x"), "cupy-cuda12x"),
    (("onnxruntime", "1.40"), "1.19"), (("gpu", "definitely-not-a-gpu-name"), ""),
])
def test_unknown_query_is_one_line_and_exit_2(args, hint):
    result = invoke("matrix", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown" in lines[0] and hint in lines[0]


@pytest.mark.parametrize("args", [("torch", "2.14.1"), ("cuda", "13.0"), ("tensorflow",), ("jax",), ("cudnn",), ("cupy",)])
def test_text_output_is_a_table_with_the_data_date(args):
    result = invoke("matrix", *args)
    assert result.exit_code == 0, result.output
    assert "data as of 2026-11-29" in result.stdout and "┃" in result.stdout


def test_onnxruntime_release_with_two_builds_lists_both():
    doc = as_json("onnxruntime", "1.19.2")
    assert [(r["cuda_major"], r["on_pypi"]) for r in doc["rows"]] == [(11, False), (12, True)]


def test_no_overlay_flag_and_help():
    assert invoke("matrix", "--no-overlay", "cupy", "12").exit_code == 0
    help_text = invoke("matrix", "--help").stdout
    for sub in ("torch", "cuda", "gpu", "tensorflow", "jax", "cudnn", "cupy", "onnxruntime", "refresh"):
        assert sub in help_text
