"""The CI and scheduler formats: github, junit, prometheus, oneline. Each is fed
the same findings, judged from recorded snapshots (tests/rules/*), and checked
with the real consumer where one runs here: xmllint against the Jenkins JUnit
schema, promtool (Debian's prometheus package) on the metrics."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.doctor import judge
from gpudoctor.findings import Evidence, Finding, Fix, Location, Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.render import github, junit, oneline, prometheus
from gpudoctor.render.outcomes import from_findings, from_report, from_smoke
from gpudoctor.smoke.judge import SmokeInput
from gpudoctor.smoke.judge import judge as judge_smoke
from gpudoctor.snapshot import Snapshot

RULES = Path(__file__).parent / "rules"
XSD = Path(__file__).parent / "junit.xsd"
# GD303/bad: a GTX 1080 Ti with a torch build that has no sm_61 code (an error);
# GD612/bad: a T4, which lacks BF16/TF32/FP8 (info); GD701/good: a healthy smoke run.
BROKEN, HEALTHY_SMOKE = RULES / "GD303" / "bad.json", RULES / "GD701" / "good.json"


def snapshot_of(path: Path) -> Snapshot:
    data = json.loads(path.read_text())
    data.pop("_note", None)
    return Snapshot.from_dict(data)


@pytest.fixture(scope="module")
def broken_report():
    return judge(snapshot_of(BROKEN), load_matrices(overlay=None))


def snapshot_file(src: Path, tmp_path: Path) -> str:
    """The fixture as `gpudoctor snapshot` writes it (without the fixture's note)."""
    data = json.loads(src.read_text())
    data.pop("_note", None)
    out = tmp_path / f"{src.parent.name}-{src.stem}.json"
    out.write_text(json.dumps(data))
    return str(out)


def run_cli(*args, env=None):
    result = invoke(*args, env=env)
    return result.exit_code, result.stdout


# --- github ----------------------------------------------------------------

def test_escaping_follows_the_workflow_command_rules():
    assert github.escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert github.escape_property("GD201: a, b") == "GD201%3A a%2C b"


def test_annotation_carries_code_title_and_fix(broken_report):
    lines = github.workflow_commands(broken_report.findings)
    errors = [x for x in lines if x.startswith("::error ")]
    assert errors, lines
    first = next(f for f in broken_report.findings if f.severity is Severity.ERROR)
    assert errors[0].startswith(f"::error title={first.code} ")
    props, message = errors[0][len("::error "):].split("::", 1)
    assert "\n" not in message and "%0A" in message  # evidence and fix on their own lines
    assert first.fix.commands[0].replace("%", "%25") in message


def test_a_finding_with_a_location_lands_on_its_file_and_line():
    f = Finding("GD303", Severity.ERROR, "arch-not-in-build", "no sm_61 code in torch==2.14.1",
                (Evidence("requirement", "torch==2.14.1", "requirements.txt"),), Fix("pin cu126"),
                location=Location("requirements.txt", 3, 4))
    assert github.workflow_command(f).startswith("::error file=requirements.txt,line=3,endLine=4,title=GD303 ")


def test_annotations_are_capped_per_kind_and_strict_shows_warnings_as_errors():
    fs = [Finding("GD708", Severity.WARNING, "performance", f"slow {i}") for i in range(13)]
    lines = github.workflow_commands(fs, per_kind=10)
    assert sum(x.startswith("::warning") for x in lines) == 10
    assert lines[-1].startswith("::notice") and "3 more" in lines[-1]
    assert all(x.startswith("::error") for x in github.workflow_commands(fs[:2], strict=True))


def test_cli_appends_summary_and_outputs(tmp_path):
    summary, output, report = tmp_path / "summary.md", tmp_path / "output", tmp_path / "r.json"
    summary.write_text("earlier step\n")
    rc, out = run_cli("check", "--from", snapshot_file(BROKEN, tmp_path), "--format", "github", "--report-out", str(report),
                      env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)})
    assert rc == 1 and out.startswith("::error ")
    text = summary.read_text()
    assert text.startswith("earlier step\n## gpudoctor check: ❌ fail")  # appended, never overwritten
    assert "GD303" in text and "<details>" in text
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs["verdict"] == "fail" and outputs["exit-code"] == "1" and outputs["report"] == str(report)
    assert int(outputs["errors"]) == json.loads(report.read_text())["summary"]["error"] > 0


# --- junit -----------------------------------------------------------------

def validate_junit(xml_text: str, tmp_path: Path) -> None:
    if shutil.which("xmllint") is None:
        pytest.skip("xmllint (Debian libxml2-utils) is not installed: cannot validate against the JUnit XSD")
    path = tmp_path / "junit.xml"
    path.write_text(xml_text)
    proc = subprocess.run(["xmllint", "--noout", "--schema", str(XSD), str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_junit_has_a_failure_per_error_and_validates(broken_report, tmp_path):
    view = from_report(broken_report)
    text = junit.render(view)
    validate_junit(text, tmp_path)
    suite = ET.fromstring(text).find("testsuite")
    errors = [f for f in broken_report.findings if f.severity is Severity.ERROR]
    failures = suite.findall("testcase/failure")
    assert len(failures) == len(errors) == int(suite.get("failures")) > 0
    assert int(suite.get("tests")) == len(suite.findall("testcase"))
    unknown = [r for r in broken_report.results if r.outcome.value == "unknown"]
    assert len(suite.findall("testcase/skipped")) == len(unknown)
    assert {c.get("classname") for c in suite.findall("testcase")} >= {f"gpudoctor.{f.code}" for f in errors}


def test_junit_strict_turns_warnings_into_failures(tmp_path):
    fs = [Finding("GD708", Severity.WARNING, "performance", "slow <gemm> & \x01 copies")]
    text = junit.render(from_findings(fs, "lint", strict=True))
    validate_junit(text, tmp_path)
    assert ET.fromstring(text).find("testsuite").get("failures") == "1"


def test_junit_from_smoke_has_a_case_per_test(tmp_path):
    smoke = judge_smoke(SmokeInput.from_dict(json.loads(HEALTHY_SMOKE.read_text())), load_matrices(overlay=None))
    text = junit.render(from_smoke(smoke))
    validate_junit(text, tmp_path)
    names = [c.get("name") for c in ET.fromstring(text).iter("testcase")]
    assert len(names) >= sum(len(g.tests) for g in smoke.gpus) > 0


# --- prometheus ------------------------------------------------------------

def promtool(text: str) -> None:
    if shutil.which("promtool") is None:
        pytest.skip("promtool (Debian's prometheus package) is not installed")
    proc = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def samples(text: str) -> dict[str, float]:
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line and not line.startswith("#")}


def test_metrics_pass_promtool_and_count_the_findings(broken_report):
    text = prometheus.render(from_report(broken_report))
    promtool(text)
    s = samples(text)
    assert s['gpudoctor_exit_code{command="check"}'] == 1
    errors = sum(f.severity is Severity.ERROR for f in broken_report.findings)
    assert s['gpudoctor_findings{command="check",severity="error"}'] == errors
    assert sum(k.startswith("gpudoctor_finding{") for k in s) == len({(f.code, f.subject)
                                                                      for f in broken_report.findings})


def test_smoke_metrics_carry_the_fraction_of_peak():
    smoke = judge_smoke(SmokeInput.from_dict(json.loads(HEALTHY_SMOKE.read_text())), load_matrices(overlay=None))
    text = prometheus.render(from_smoke(smoke))
    promtool(text)
    rates = {k: v for k, v in samples(text).items() if k.startswith("gpudoctor_smoke_fraction_of_peak")}
    expected = [t.fraction_of_peak for g in smoke.gpus for t in g.tests if t.fraction_of_peak is not None]
    assert rates and sorted(rates.values()) == sorted(expected)


def test_label_values_are_escaped():
    f = Finding("GD601", Severity.ERROR, "hardware-health", "t", subject='GPU "0"\\\nx')
    text = prometheus.render(from_findings([f], "check"))
    promtool(text)
    assert 'subject="GPU \\"0\\"\\\\\\nx"' in text


# --- oneline ---------------------------------------------------------------

def test_oneline_is_exactly_one_line(broken_report):
    text = oneline.render(from_report(broken_report))
    assert text.count("\n") == 1 and text.endswith("\n")
    first = next(f for f in broken_report.findings if f.severity is Severity.ERROR)
    assert text.startswith("gpudoctor check: FAIL ") and first.code in text
    long = Finding("GD601", Severity.ERROR, "hardware-health", "x\n" * 400)
    many = oneline.render(from_findings([long], "check"))
    assert many.count("\n") == 1 and len(many) <= oneline.MAX_CHARS + 1


def test_oneline_ok_and_cli_exit_codes(tmp_path):
    rc, out = run_cli("check", "--from", snapshot_file(RULES / "GD303" / "good.json", tmp_path), "--format", "oneline")
    assert out.count("\n") == 1
    assert (rc == 0) == out.startswith("gpudoctor check: OK")
    rc, out = run_cli("check", "--from", snapshot_file(BROKEN, tmp_path), "--format", "oneline")
    assert rc == 1 and out.startswith("gpudoctor check: FAIL")
