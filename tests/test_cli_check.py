"""CLI contract of check/snapshot/rules/explain: exit codes, JSON schema, one-line errors."""

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from gpudoctor.cli import cli

FIXTURES = Path(__file__).parent / "rules"
SCHEMA = json.loads((resources.files("gpudoctor") / "schema" / "report.v1.json").read_text())


def snapshot_file(tmp_path, code, kind):
    data = json.loads((FIXTURES / code / f"{kind}.json").read_text())
    data.pop("_note")
    path = tmp_path / f"{code}-{kind}.json"
    path.write_text(json.dumps(data))
    return str(path)


def run(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


# Snapshot fixtures only: GD7xx fixtures are smoke-judge inputs and GD8xx ones are pastes.
@pytest.mark.parametrize("code", sorted(p.name for p in FIXTURES.iterdir()
                                        if (p / "bad.json").exists() and not p.name.startswith("GD7")))
def test_json_report_validates_against_schema(tmp_path, code):
    res = run(["check", "--from", snapshot_file(tmp_path, code, "bad"), "--json"])
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["summary"]["exit_code"] == res.exit_code
    assert code in {f["code"] for f in data["findings"]}


def test_exit_1_on_errors_0_without(tmp_path):
    assert run(["check", "--from", snapshot_file(tmp_path, "GD303", "bad")]).exit_code == 1
    assert run(["check", "--from", snapshot_file(tmp_path, "GD303", "good")]).exit_code == 0


def test_strict_turns_warnings_into_failure(tmp_path):
    path = snapshot_file(tmp_path, "GD603", "bad")  # only a warning
    assert run(["check", "--from", path]).exit_code == 0
    assert run(["check", "--from", path, "--strict"]).exit_code == 1


def test_require_precision_escalates(tmp_path):
    path = snapshot_file(tmp_path, "GD612", "bad")  # T4: no BF16
    assert run(["check", "--from", path]).exit_code == 0
    res = run(["check", "--from", path, "--require-precision", "bf16", "--json"])
    assert res.exit_code == 1
    errors = [f for f in json.loads(res.stdout)["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["GD612"] and "BF16" in errors[0]["title"]


def test_a_whole_report_can_be_replayed(tmp_path):
    first = run(["check", "--from", snapshot_file(tmp_path, "GD201", "bad"), "--json"])
    (tmp_path / "report.json").write_text(first.stdout)
    again = run(["check", "--from", str(tmp_path / "report.json"), "--json"])
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
    proc = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--from", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_markdown_and_text_show_the_same_findings(tmp_path):
    path = snapshot_file(tmp_path, "GD302", "bad")
    md = run(["check", "--from", path, "--format", "markdown"]).stdout
    text = run(["check", "--from", path]).stdout
    for out in (md, text):
        # The fix carries the install engine's command (gpudoctor.install.from_snapshot).
        assert "GD302" in out and "pip install torch==" in out


def test_rules_lists_every_code_and_explain_shows_docs():
    listed = json.loads(run(["rules", "--json"]).stdout)
    assert {r["code"] for r in listed} >= {"GD101", "GD201", "GD301", "GD401", "GD501", "GD601"}
    out = run(["explain", "GD201"]).stdout
    assert "minor-version compatibility" in out.lower() and "How to fix" in out


def test_explain_unknown_code_exit_2():
    res = CliRunner().invoke(cli, ["explain", "GD999"])
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
