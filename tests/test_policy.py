"""The policy file: every GD9xx code fires on its bad fixture and not on its
good one (tests/rules/GD9xx/{bad,good}.toml, judged on one recorded T4 host),
ignores and escalations, and a malformed policy is one line and exit 2."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke

from gpudoctor.cli import main
from gpudoctor.doctor import judge
from gpudoctor.findings import Outcome, Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.policy import PolicyError, load_policy
from gpudoctor.rules.policy import apply_policy
from gpudoctor.rules.registry import all_rules
from gpudoctor.snapshot import Snapshot

HERE = Path(__file__).parent
HOST = HERE / "fixtures" / "policy" / "t4-torch-2.14.1-cu130.json"
POLICY_CODES = [r.code for r in all_rules() if r.family == "policy"]
TODAY = datetime.date(2026, 12, 1)
SCHEMA = json.loads((HERE.parent / "gpudoctor" / "schema" / "report.v1.json").read_text())


def host() -> Snapshot:
    data = json.loads(HOST.read_text())
    data.pop("_note")
    return Snapshot.from_dict(data)


@pytest.fixture(scope="module")
def report():
    return judge(host(), load_matrices(overlay=None))


def judged(report, policy_path: Path):
    return apply_policy(report, load_policy(str(policy_path)), TODAY)


def test_the_family_is_there():
    assert POLICY_CODES == ["GD901", "GD902", "GD903", "GD904", "GD905", "GD906"]


@pytest.mark.parametrize("code", POLICY_CODES)
def test_bad_fixture_fires(report, code):
    out, _ = judged(report, HERE / "rules" / code / "bad.toml")
    found = [f for f in out.findings if f.code == code]
    assert found, [f.code for f in out.findings]
    for f in found:
        assert f.category == "policy" and f.evidence and all(e.source for e in f.evidence)
        assert f.fix and f.fix.text and f.fix.commands
    assert any(r.code == code and r.outcome is Outcome.FINDING for r in out.results)


@pytest.mark.parametrize("code", POLICY_CODES)
def test_good_fixture_passes(report, code):
    out, _ = judged(report, HERE / "rules" / code / "good.toml")
    assert not [f for f in out.findings if f.code == code]
    assert any(r.code == code and r.outcome is Outcome.OK for r in out.results)


def test_ignore_sets_findings_aside_until_it_expires(report):
    gd612 = [f for f in report.findings if f.code == "GD612"]
    assert gd612, "the T4 host lacks BF16/TF32/FP8, so GD612 must fire"
    out, ignored = judged(report, HERE / "rules" / "GD906" / "good.toml")
    assert not [f for f in out.findings if f.code == "GD612"]
    assert [i.finding for i in ignored] == gd612
    out, ignored = judged(report, HERE / "rules" / "GD906" / "bad.toml")
    assert len([f for f in out.findings if f.code == "GD612"]) == len(gd612) and not ignored


def test_precisions_make_a_missing_precision_an_error(tmp_path):
    p = tmp_path / "gpudoctor.toml"
    p.write_text('precisions = ["bf16"]\n')
    out = judge(host(), load_matrices(overlay=None), require_precision=load_policy(str(p)).precisions)
    assert any(f.code == "GD612" and f.severity is Severity.ERROR for f in out.findings)
    assert out.exit_code() == 1


def test_fail_on_warnings_escalates_only_the_named_codes(report):
    from dataclasses import replace

    from gpudoctor.findings import Finding
    from gpudoctor.policy import parse_policy

    w = Finding("GD605", Severity.WARNING, "hardware-health", "PCIe link x8")
    other = Finding("GD107", Severity.WARNING, "info", "driver branch end of life")
    base = replace(report, findings=(w, other))
    out, _ = apply_policy(base, parse_policy({"fail_on_warnings": ["GD605"]}, "p.toml"), TODAY)
    sev = {f.code: f.severity for f in out.findings}
    assert sev == {"GD605": Severity.ERROR, "GD107": Severity.WARNING}
    out, _ = apply_policy(base, parse_policy({"fail_on_warnings": True}, "p.toml"), TODAY)
    assert {f.severity for f in out.findings} == {Severity.ERROR}


def test_pyproject_table_and_cli_json_validates(tmp_path):
    snap = tmp_path / "s.json"
    snap.write_text(json.dumps(host().to_dict()))
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n\n[tool.gpudoctor]\ndriver_min = "590.44.01"\n'
                         '[[tool.gpudoctor.ignore]]\ncode = "GD612"\nreason = "FP16 only"\n')
    result = invoke("check", "--from", str(snap), "--policy", str(pyproject), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert "GD905" in [f["code"] for f in data["findings"]]
    assert data["policy"]["file"] == str(pyproject)
    assert {i["code"] for i in data["policy"]["ignored"]} == {"GD612"}


@pytest.mark.parametrize("text, key, reason", [
    ('driver_min = 550\n', "driver_min", "driver release"),
    ('[gpus]\ncount = "eight"\n', "gpus.count", "whole number"),
    ('[gpus]\ncolour = "green"\n', "gpus.colour", "unknown key"),
    ('[frameworks]\ntorch = ">=2.x"\n', "frameworks.torch", "not a version specifier"),
    ('[frameworks]\npaddle = "*"\n', "frameworks.paddle", "unknown framework"),
    ('precisions = ["fp4"]\n', "precisions", "unknown precision"),
    ('[[ignore]]\ncode = "GD612"\n', "ignore[0].reason", "needs a reason"),
    ('[[ignore]]\ncode = "612"\nreason = "r"\n', "ignore[0].code", "not a finding code"),
    ('[[ignore]]\ncode = "GD612"\nreason = "r"\nexpires = "soon"\n', "ignore[0].expires", "TOML date"),
    ('fail_on_warnings = "yes"\n', "fail_on_warnings", "list of strings"),
    ('driver_min = \n', "", "not valid TOML"),
])
def test_malformed_policy_names_file_key_and_reason(tmp_path, text, key, reason):
    p = tmp_path / "gpudoctor.toml"
    p.write_text(text)
    with pytest.raises(PolicyError) as exc:
        load_policy(str(p))
    msg = str(exc.value)
    assert msg.startswith(f"policy {p}: ") and key in msg and reason in msg


def test_malformed_policy_is_exit_2_with_one_line(tmp_path, capsys):
    p = tmp_path / "gpudoctor.toml"
    p.write_text('[gpus]\ncount = -1\n')
    with pytest.raises(SystemExit) as exc:
        main(["check", "--policy", str(p), "--from", str(HOST)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gpus.count" in err[0] and str(p) in err[0]


def test_pyproject_without_the_table_is_an_error(tmp_path):
    p = tmp_path / "pyproject.toml"
    p.write_text('[project]\nname = "x"\n')
    with pytest.raises(PolicyError, match=r"tool\.gpudoctor"):
        load_policy(str(p))
