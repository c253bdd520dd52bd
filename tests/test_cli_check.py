"""CLI contract of check/snapshot/rules/explain: exit codes, JSON schema, one-line errors."""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke, rule_fixture, run_module

FIXTURES = Path(__file__).parent / "rules"
SCHEMA = json.loads((resources.files("gpudoctor") / "schema" / "report.v1.json").read_text())


# Snapshot fixtures only: GD7xx fixtures are smoke-judge inputs and GD8xx ones are pastes.
@pytest.mark.parametrize("code", sorted(p.name for p in FIXTURES.iterdir()
                                        if (p / "bad.json").exists() and not p.name.startswith("GD7")))
def test_json_report_validates_against_schema(tmp_path, code):
    res = invoke("check", "--from", rule_fixture(tmp_path, code, "bad"), "--json")
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["summary"]["exit_code"] == res.exit_code
    assert code in {f["code"] for f in data["findings"]}


def test_exit_1_on_errors_0_without(tmp_path):
    assert invoke("check", "--from", rule_fixture(tmp_path, "GD303", "bad")).exit_code == 1
    assert invoke("check", "--from", rule_fixture(tmp_path, "GD303", "good")).exit_code == 0


def test_strict_turns_warnings_into_failure(tmp_path):
    path = rule_fixture(tmp_path, "GD603", "bad")  # only a warning
    assert invoke("check", "--from", path).exit_code == 0
    assert invoke("check", "--from", path, "--strict").exit_code == 1


def test_require_precision_escalates(tmp_path):
    path = rule_fixture(tmp_path, "GD612", "bad")  # T4: no BF16
    assert invoke("check", "--from", path).exit_code == 0
    res = invoke("check", "--from", path, "--require-precision", "bf16", "--json")
    assert res.exit_code == 1
    errors = [f for f in json.loads(res.stdout)["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["GD612"] and "BF16" in errors[0]["title"]


def test_require_fp16_is_met_by_a_t4_and_not_by_a_gtx_1080_ti(tmp_path):
    t4 = invoke("check", "--from", rule_fixture(tmp_path, "GD612", "bad"), "--require-precision", "fp16")
    assert t4.exit_code == 0  # FP16 tensor cores
    pascal = invoke("check", "--from", rule_fixture(tmp_path, "GD303", "bad"), "--require-precision", "fp16", "--json")
    gd612 = {f["title"].rsplit(" ", 1)[-1]: f["severity"] for f in json.loads(pascal.stdout)["findings"]
             if f["code"] == "GD612"}
    assert gd612 == {"FP16": "error", "TF32": "info", "BF16": "info", "FP8": "info"}


def test_a_whole_report_can_be_replayed(tmp_path):
    first = invoke("check", "--from", rule_fixture(tmp_path, "GD201", "bad"), "--json")
    (tmp_path / "report.json").write_text(first.stdout)
    again = invoke("check", "--from", str(tmp_path / "report.json"), "--json")
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


@pytest.mark.parametrize("content, message", [
    ("{not json", "is not valid JSON"),
    ('{"gpus": 3}', "snapshot.gpus: expected a list"),
    ('{"drvier": {}}', "unknown key 'drvier'"),
    ('{"schema_version": 7}', "schema_version 7 is not supported"),
])
def test_bad_from_file_is_one_line_exit_2(tmp_path, content, message):
    path = tmp_path / "s.json"
    path.write_text(content)
    proc = run_module("check", "--from", path, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_markdown_and_text_show_the_same_findings(tmp_path):
    path = rule_fixture(tmp_path, "GD302", "bad")
    md = invoke("check", "--from", path, "--format", "markdown").stdout
    text = invoke("check", "--from", path).stdout
    for out in (md, text):
        # The fix carries the install engine's command (gpudoctor.install.from_snapshot).
        assert "GD302" in out and "pip install torch==" in out


def test_rules_lists_every_code_and_explain_shows_docs():
    listed = json.loads(invoke("rules", "--json").stdout)
    assert {r["code"] for r in listed} >= {"GD101", "GD201", "GD301", "GD401", "GD501", "GD601"}
    out = invoke("explain", "GD201").stdout
    assert "minor-version compatibility" in out.lower() and "How to fix" in out


def test_rules_and_explain_show_each_codes_status_and_release():
    listed = json.loads(invoke("rules", "--json").stdout)
    assert all(r["status"] in ("stable", "preview", "deprecated") and r["since"] for r in listed)
    assert {r["code"]: r["since"] for r in listed}["GD201"] == "0.1.0"
    assert "Since" in invoke("rules").stdout
    shown = json.loads(invoke("explain", "GD201", "--json").stdout)
    assert (shown["status"], shown["since"]) == ("stable", "0.1.0")
    shown = " ".join(invoke("explain", "GD201").stdout.split())  # the header line may wrap
    assert "category driver-too-old-for-runtime · stable since 0.1.0 GD201: Driver too old" in shown


def test_explain_unknown_code_exit_2():
    res = invoke("explain", "GD999")
    assert res.exit_code == 2


def test_check_smoke_is_skipped_when_check_found_no_usable_gpu():
    from gpudoctor.commands.check_run import _with_smoke
    from gpudoctor.doctor import judge
    from gpudoctor.matrices import load_matrices
    from gpudoctor.snapshot import Snapshot

    data = json.loads((FIXTURES / "GD101" / "bad.json").read_text())
    data.pop("_note")
    report = judge(Snapshot.from_dict(data), load_matrices(overlay=None))
    assert "GD101" in {f.code for f in report.findings}
    assert _with_smoke(report, python=None) is report  # nothing run, nothing added
