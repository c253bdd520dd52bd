"""Every rule: a bad fixture that makes it fire, a good one where it passes,
and documentation with the required sections. Fixtures are partial snapshots
named after real situations (their "_note" says which)."""

import dataclasses
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.findings import CATEGORIES, Outcome, Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.ruledocs import REQUIRED_SECTIONS, doc_text, sections
from gpudoctor.rules import registry
from gpudoctor.rules.registry import all_rules, index_rules, run_rules
from gpudoctor.rules.rule import STATUSES, Rule
from gpudoctor.snapshot import Snapshot

FIXTURES = Path(__file__).parent / "rules"
RULES = all_rules()
CHECKED = [r for r in RULES if r.check is not None]
FAMILY_MODULES = ("driver", "cuda", "arch", "libraries", "frameworks", "companions", "hardware",
                  "runtimes", "smoke_codes", "diagnose_codes", "policy")


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
    # The index refuses a second rule for a code or a name (below), so these
    # hold for what it built; they are checked here against the list itself.
    assert all(re.fullmatch(r"GD\d{3}", r.code) for r in RULES)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name) for r in RULES)
    for key in ("code", "name"):
        values = [getattr(r, key) for r in RULES]
        assert sorted(v for v in set(values) if values.count(v) > 1) == []


def _rule(code="GD990", name="a-test-rule", category="info", **kw) -> Rule:
    return Rule(code, name, category, Severity.INFO, "a rule made by the test", "test", since="0.1.0", **kw)


def test_a_code_cannot_be_given_twice():
    taken = RULES[0]
    again = dataclasses.replace(taken, name="another-name", summary="a second meaning")
    with pytest.raises(ValueError, match=f"duplicate rule code {taken.code}"):
        index_rules([registry.FAMILIES[0], (again,)])
    assert registry.RULES[taken.code] is taken  # the registry's own index is built once, read-only
    with pytest.raises(TypeError):
        registry.RULES[taken.code] = again


def test_a_name_cannot_be_given_twice():
    taken = RULES[0]
    with pytest.raises(ValueError, match=f"name {taken.name!r} is already {taken.code}'s"):
        index_rules([(taken,), (_rule(name=taken.name),)])


@pytest.mark.parametrize("change, message", [
    ({"code": "GD12"}, "bad rule code 'GD12'"),
    ({"code": "gd101"}, "bad rule code 'gd101'"),
    ({"name": "Not_Kebab"}, "name must be kebab-case"),
    ({"category": "no-such-category"}, "unknown category 'no-such-category'"),
    ({"since": "soon"}, "since must be a release such as 0.1.0, got 'soon'"),
    ({"status": "retired"}, "status must be one of"),
])
def test_a_malformed_rule_is_refused(change, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        dataclasses.replace(_rule(), **change)


def test_every_rule_has_a_status_and_the_release_it_appeared_in():
    assert {r.status for r in RULES} <= STATUSES
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", r.since) for r in RULES)


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_each_family_lists_every_rule_it_defines(family):
    # The registry reads only a family's RULES tuple: a Rule made in the module
    # but left out of it would never run, so none may be.
    module = importlib.import_module(f"gpudoctor.rules.{family}")
    defined = {id(v) for v in vars(module).values() if isinstance(v, Rule)}
    listed = {id(r) for r in module.RULES}
    assert defined <= listed
    assert module.RULES in registry.FAMILIES
    assert len({r.family for r in module.RULES}) == 1


def test_importing_a_family_registers_nothing():
    # A family module is data: importing one loads neither the registry nor any
    # other family, so nothing global changes behind the caller's back.
    probe = ("import sys, gpudoctor.rules.driver as d; "
             "print(len(d.RULES), sorted(m for m in sys.modules if m.startswith('gpudoctor.rules.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    count, loaded = out.stdout.split(" ", 1)
    assert int(count) == len([r for r in RULES if r.family == "driver"])
    assert "gpudoctor.rules.registry" not in loaded and "gpudoctor.rules.cuda" not in loaded, loaded


def test_each_code_is_declared_in_one_place_in_the_source():
    # A code is forever (never reused): a second Rule("GDnnn", ...) or
    # @rule("GDnnn", ...) anywhere in rules/ would be a second meaning.
    calls = re.compile(r"(?:Rule|rule)\(\s*\"(GD\d{3})\"")
    found = [m.group(1) for p in (Path(__file__).parents[1] / "gpudoctor" / "rules").glob("*.py")
             for m in calls.finditer(p.read_text(encoding="utf-8"))]
    assert sorted({c for c in found if found.count(c) > 1}) == []
    assert set(found) == {r.code for r in RULES}
