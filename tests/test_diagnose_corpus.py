"""The labelled corpus (tests/diagnose_corpus/MANIFEST.toml): every paste's
established cause is named by an error- or warning-severity finding, and negative
controls (environments that are fine) get no error-severity finding.

The pastes gpudoctor does not yet get right are listed in KNOWN_MISSES.toml with
what it found instead; each is a strict xfail, so a fix that makes one pass must
remove it from the list. bench/diagnose_corpus.py prints the rates per split."""

import sys
from pathlib import Path

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.findings import CATEGORIES, Severity
from gpudoctor.matrices import load_matrices

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CORPUS = Path(__file__).parent / "diagnose_corpus"
MANIFEST = tomllib.loads((CORPUS / "MANIFEST.toml").read_text(encoding="utf-8"))["report"]
KNOWN_MISSES = tomllib.loads((CORPUS / "KNOWN_MISSES.toml").read_text(encoding="utf-8"))
SPLITS = ("development", "development-blind", "held-out", "held-out-a", "held-out-b", "held-out-c", "held-out-d",
          "held-out-e", "held-out-f", "held-out-g", "held-out-h", "held-out-i", "development-blind-2", "held-out-j",
          "held-out-k", "held-out-l", "held-out-m", "held-out-n", "held-out-o", "held-out-p", "held-out-q", "held-out-r",
          "held-out-s", "held-out-t", "held-out-u", "held-out-v",
          "held-out-w", "held-out-x", "held-out-y", "held-out-z", "held-out-aa", "held-out-ab", "held-out-ac", "held-out-ad",
          "held-out-ae", "held-out-af", "held-out-ag", "held-out-ah",
          "held-out-ai", "held-out-aj", "held-out-ak")


def report_for(name):
    m = load_matrices(overlay=None)
    return diagnose_report(read_paste((CORPUS / name).read_bytes(), matrices=m, debug=True), m, debug=True)


def test_manifest_is_complete_and_well_formed():
    files = {p.name for p in CORPUS.glob("*.txt")}
    listed = [row["file"] for row in MANIFEST]
    assert sorted(listed) == sorted(files) and len(listed) == len(set(listed))
    assert len(listed) >= 300
    assert sum(row["expected"] == "none" for row in MANIFEST) >= 50
    sources = [row["source"] for row in MANIFEST]
    assert len(sources) == len(set(sources)), "one report per thread"
    for row in MANIFEST:
        assert row["expected"] in CATEGORIES | {"none"}, row
        assert row["source"].startswith("https://"), row
        assert row.get("split", "development") in SPLITS, row


def test_known_misses_name_corpus_files():
    assert set(KNOWN_MISSES) <= {row["file"] for row in MANIFEST}


def _param(row):
    miss = KNOWN_MISSES.get(row["file"])
    # strict: when a change makes the paste pass, it must leave the list.
    return pytest.param(row, id=row["file"], marks=[pytest.mark.xfail(reason=miss, strict=True)] if miss else [])


@pytest.mark.parametrize("row", [_param(r) for r in MANIFEST if r["expected"] != "none"])
def test_the_established_cause_is_named(row):
    report = report_for(row["file"])
    named = {f.category for f in report.findings if f.severity in (Severity.ERROR, Severity.WARNING)}
    assert row["expected"] in named, [(f.code, f.severity.value, f.category) for f in report.findings]


@pytest.mark.parametrize("row", [_param(r) for r in MANIFEST if r["expected"] == "none"])
def test_negative_controls_get_no_error(row):
    report = report_for(row["file"])
    errors = [(f.code, f.title) for f in report.findings if f.severity is Severity.ERROR]
    assert not errors
