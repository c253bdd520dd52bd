"""Every rule: a bad fixture that makes it fire, a good one where it passes,
and documentation with the required sections. Fixtures are partial snapshots
named after real situations (their "_note" says which)."""

import json
import re
from pathlib import Path

import pytest

from gpudoctor.findings import CATEGORIES, Outcome
from gpudoctor.matrices import load_matrices
from gpudoctor.ruledocs import REQUIRED_SECTIONS, doc_text, sections
from gpudoctor.rules import registry
from gpudoctor.rules.registry import all_rules, register, run_rules
from gpudoctor.snapshot import Snapshot

FIXTURES = Path(__file__).parent / "rules"
RULES = all_rules()
CHECKED = [r for r in RULES if r.check is not None]


def load(code: str, kind: str) -> Snapshot:
    data = json.loads((FIXTURES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    return Snapshot.from_dict(data)


def result_of(rule, snap):
    (res,) = run_rules(snap, load_matrices(overlay=None), [rule], debug=True)
    return res


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_bad_fixture_fires(rule):
    res = result_of(rule, load(rule.code, "bad"))
    assert res.outcome is Outcome.FINDING, res
    assert all(f.code == rule.code for f in res.findings)
    for f in res.findings:
        assert f.category in CATEGORIES
        assert f.evidence, f"{rule.code} finding without evidence"
        assert all(e.source for e in f.evidence), f"{rule.code} evidence without a source"
        assert f.fix is not None and f.fix.text


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_good_fixture_passes(rule):
    res = result_of(rule, load(rule.code, "good"))
    assert res.outcome is Outcome.OK, res


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_code_is_documented(rule):
    text = doc_text(rule.code)
    assert text, f"gpudoctor/docs/rules/{rule.code}.md is missing"
    assert text.startswith(f"# {rule.code}")
    found = sections(text)
    for heading in REQUIRED_SECTIONS:
        assert found.get(heading), f"{rule.code}: section '{heading}' missing or empty"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_every_code_has_both_fixtures(rule):
    names = {p.stem for p in (FIXTURES / rule.code).glob("*")} if (FIXTURES / rule.code).is_dir() else set()
    assert {"good", "bad"} <= names, f"tests/rules/{rule.code}/ needs good.* and bad.*"


def test_no_orphan_docs_or_fixtures():
    codes = {r.code for r in RULES}
    docs = {p.stem for p in (Path(__file__).parents[1] / "gpudoctor" / "docs" / "rules").glob("GD*.md")}
    fixtures = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert docs <= codes, f"docs for unknown codes: {sorted(docs - codes)}"
    assert fixtures <= codes, f"fixtures for unknown codes: {sorted(fixtures - codes)}"


def test_codes_are_unique_and_well_formed():
    # RULES is keyed by code, so uniqueness of codes is the registry's refusal
    # of a second registration (below); names are not keys and are checked here.
    assert all(re.fullmatch(r"GD\d{3}", r.code) for r in RULES)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name) for r in RULES)
    names = [r.name for r in RULES]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_a_code_cannot_be_registered_twice():
    taken = RULES[0]
    with pytest.raises(ValueError, match=f"duplicate rule code {taken.code}"):
        register(taken.code, "another-name", taken.category, taken.severity, "a second meaning", "test")
    assert registry.RULES[taken.code] is taken  # the first registration stands


def test_each_code_is_registered_in_one_place_in_the_source():
    # A code is forever (never reused): a second register()/@rule() call for it
    # anywhere in the package is a second meaning, whichever module loads first.
    # register("GDnnn", ...), @rule("GDnnn", ...), or a ("GDnnn", ...) row of a
    # table registered in a loop (diagnose_codes.py); all of them live in rules/.
    calls = re.compile(r"(?:register|rule)\(\s*\"(GD\d{3})\"|^\s*\(\"(GD\d{3})\",", re.MULTILINE)
    found = [m.group(1) or m.group(2) for p in (Path(__file__).parents[1] / "gpudoctor" / "rules").glob("*.py")
             for m in calls.finditer(p.read_text(encoding="utf-8"))]
    assert sorted({c for c in found if found.count(c) > 1}) == []
    assert set(found) == {r.code for r in RULES}
