"""GD7xx: each smoke code fires on its bad fixture and not on its good one.

A fixture is the judge's whole input as JSON: the driver check's document,
the runner's document, how the runner process ended, and (optionally) a
snapshot with NVML facts. Every report must also match the JSON schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpudoctor.matrices import load_matrices
from gpudoctor.rules.registry import RULES
from gpudoctor.smoke.judge import SmokeInput, judge

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent
DOCS = ROOT / "gpudoctor" / "docs" / "rules"
SCHEMA = json.loads((ROOT / "gpudoctor" / "schema" / "smoke.v1.json").read_text())
SMOKE_CODES = sorted(code for code, rule in RULES.items() if rule.family == "smoke")
HEADINGS = ("## What it checks", "## Why it matters", "## How to fix")


def run_fixture(code: str, kind: str):
    data = json.loads((FIXTURES / code / f"{kind}.json").read_text())
    report = judge(SmokeInput.from_dict(data), load_matrices(), mode=(data.get("runner") or {}).get("mode", "quick"))
    jsonschema.validate(report.to_json(), SCHEMA, cls=jsonschema.Draft202012Validator)
    return report


def test_smoke_codes_are_registered():
    assert SMOKE_CODES == [f"GD7{n:02d}" for n in range(1, 20)]
    assert all(RULES[c].check is None for c in SMOKE_CODES)


@pytest.mark.parametrize("code", SMOKE_CODES)
def test_bad_fixture_emits_the_code(code):
    report = run_fixture(code, "bad")
    found = [f for f in report.findings if f.code == code]
    assert found, f"{code} not in {[f.code for f in report.findings]}"
    for f in found:
        assert f.category == RULES[code].category and f.fix is not None and f.fix.text and f.evidence


@pytest.mark.parametrize("code", SMOKE_CODES)
def test_good_fixture_does_not_emit_the_code(code):
    report = run_fixture(code, "good")
    assert code not in [f.code for f in report.findings]


@pytest.mark.parametrize("code", SMOKE_CODES)
def test_each_code_has_a_doc_with_the_required_sections(code):
    doc = DOCS / f"{code}.md"
    assert doc.is_file(), f"missing {doc.relative_to(ROOT)}"
    text = doc.read_text()
    assert text.startswith(f"# {code}")
    positions = [text.find(h) for h in HEADINGS]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), f"{code}: sections {HEADINGS}"


def test_healthy_fixture_passes_with_exit_code_zero():
    report = run_fixture("GD701", "good")
    assert int(report.exit_code) == 0 and not report.failed_tests
    assert {t.perf for g in report.gpus for t in g.tests if t.unit} == {"ok"}
