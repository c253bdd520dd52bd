"""`gpudoctor diagnose`: the check JSON contract plus 'read', exit codes, inputs."""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke, run_module

CORPUS = Path(__file__).parent / "diagnose_corpus"
RULES = Path(__file__).parent / "rules"
SCHEMA = json.loads((resources.files("gpudoctor") / "schema" / "report.v1.json").read_text())


def diagnose_json(*args, **kw):
    res = invoke("diagnose", *args, "--json", **kw)
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["summary"]["exit_code"] == res.exit_code
    return data, res.exit_code


def test_json_contract_with_read_section():
    data, rc = diagnose_json(str(CORPUS / "pytorch-150733-rtx5090d-collect-env.txt"))
    assert rc == 1 and data["command"] == "diagnose" and data["snapshot"]["origin"] == "diagnose"
    assert data["findings"][0]["code"] == "GD302" and data["findings"][0]["category"] == "arch-too-new-for-cuda"
    read = data["read"]
    assert "collect_env" in read["formats"]
    assert {"fact": "driver.version", "value": "570.124.04", "source": "collect_env line 25"} in read["facts"]
    assert read["errors"][0]["code"] == "GD801"


def test_text_output_lists_what_was_read_from_where():
    out = invoke("diagnose", str(CORPUS / "torchsig-329-docker-no-toolkit.txt")).stdout
    assert "driver 550.120 ← nvidia-smi banner line 3" in out
    assert "GD809" in out


def test_a_paste_read_from_prose_alone_says_free_text(tmp_path):
    paste = tmp_path / "prose.txt"
    paste.write_text("I use tensorflow 2.0.0 on my RTX 2080\n")
    out = " ".join(invoke("diagnose", str(paste)).stdout.split())  # the terminal may wrap a long path
    assert "prose.txt: free text" in out and "nothing gpudoctor recognises" not in out
    assert "tensorflow wheel CPU-only in 2.0" in out  # an internal fact shown under a readable label
    md = invoke("diagnose", "--format", "markdown", str(paste)).stdout
    assert "Formats: free text" in md


def test_markdown_output():
    out = invoke("diagnose", "--format", "markdown", str(CORPUS / "tf-60913-cudnn-910-930.txt")).stdout
    assert "### Read from" in out and "GD806" in out and "| Fact | Value | Read from |" in out


def test_healthy_paste_exits_0_and_strict_counts_warnings(tmp_path):
    assert invoke("diagnose", str(CORPUS / "neg-sunone-36-ultralytics-gtx1650s.txt")).exit_code == 0
    oom = CORPUS / "neg-comfyui-5278-rtx2060-oom.txt"  # a GD850 warning, not an environment error
    assert invoke("diagnose", str(oom)).exit_code == 0
    assert invoke("diagnose", "--strict", str(oom)).exit_code == 1


def test_error_option_alone_and_with_a_paste(tmp_path):
    data, rc = diagnose_json("--error", "RuntimeError: Found no NVIDIA driver on your system.")
    assert rc == 1 and [f["code"] for f in data["findings"]] == ["GD803"]
    assert data["read"]["errors"][0]["source"] == "--error: error line 1"
    err = tmp_path / "err.txt"
    err.write_text("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                   "Your Tesla T4 GPU has compute capability 7.5.")
    data, rc = diagnose_json(str(CORPUS / "neg-comfyui-7063-system-info.txt"), "--error-file", str(err))
    assert "GD812" in {f["code"] for f in data["findings"]}
    assert {g["name"] for g in data["snapshot"]["gpus"]} == {"NVIDIA GeForce RTX 4090", "Tesla T4"}


def test_stdin():
    text = (CORPUS / "nvidia-docker-781-titanxp-387.txt").read_bytes()
    data, rc = diagnose_json("-", input=text)
    assert data["findings"][0]["category"] == "driver-too-old-for-runtime"


def test_gpudoctor_snapshot_json_is_judged_as_is(tmp_path):
    snap = json.loads((RULES / "GD201" / "bad.json").read_text())
    snap.pop("_note")
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snap))
    data, rc = diagnose_json(str(path))
    assert rc == 1 and "GD201" in {f["code"] for f in data["findings"]}
    assert data["snapshot"]["origin"] == "diagnose"
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"schema_version": 1, "snapshot": snap, "findings": []}))
    assert "GD201" in {f["code"] for f in diagnose_json(str(report))[0]["findings"]}


@pytest.mark.parametrize("content, message", [
    ('{"schema_version": 1, "gpus": [', "is not valid JSON"),
    ('{"schema_version": 1, "drvier": {}}', "unknown key 'drvier'"),
    ('{"schema_version": 9, "gpudoctor_version": "0.1.0"}', "schema_version 9 is not supported"),
])
def test_malformed_gpudoctor_json_is_one_line_exit_2(tmp_path, content, message):
    path = tmp_path / "s.json"
    path.write_text(content)
    proc = run_module("diagnose", path, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_missing_file_and_no_input_are_usage_errors(tmp_path):
    assert invoke("diagnose", str(tmp_path / "nope.txt")).exit_code == 2
    assert invoke("diagnose").exit_code == 2


def test_nothing_recognised_is_said_not_an_error(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("hello world\n")
    res = invoke("diagnose", str(path))
    assert res.exit_code == 0 and "nothing in" in res.stderr


def test_windows_line_endings_and_mixed_encodings_read_the_same(tmp_path):
    original = (CORPUS / "pytorch-110153-h100-collect-env.txt").read_bytes()
    crlf = original.replace(b"\n", b"\r\n")
    mixed = crlf.replace(b"Ubuntu 22.04.3 LTS", "Ubuntu 22.04.3 LTS – caf\xe9".encode("cp1252"))
    a, _ = diagnose_json("-", input=original)
    b, _ = diagnose_json("-", input=mixed)
    assert a["findings"] == b["findings"]
    facts_a = {f["fact"]: f["value"] for f in a["read"]["facts"]}
    facts_b = {f["fact"]: f["value"] for f in b["read"]["facts"]}
    assert facts_a["driver.version"] == facts_b["driver.version"] == "535.104.12"
    assert facts_b["system.os_release"].startswith("Ubuntu 22.04.3 LTS")
