"""The labelled corpus (tests/diagnose_corpus/MANIFEST.toml): every paste's
first finding has the category its thread established, and negative controls
(environments that are fine) get no error-severity finding.

Entries whose diagnosis needs matrix rows gpudoctor does not have yet are
listed in KNOWN_GAPS with the reason; bench/diagnose_corpus.py reports the
hit rate over all entries, gaps included."""

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
MANIFEST = tomllib.loads((CORPUS / "MANIFEST.toml").read_text())["report"]
KNOWN_GAPS = {
}


def report_for(name):
    m = load_matrices(overlay=None)
    return diagnose_report(read_paste((CORPUS / name).read_bytes(), matrices=m, debug=True), m, debug=True)


def test_manifest_is_complete_and_well_formed():
    files = {p.name for p in CORPUS.glob("*.txt")}
    listed = [row["file"] for row in MANIFEST]
    assert sorted(listed) == sorted(files) and len(listed) == len(set(listed))
    assert len(listed) >= 40
    assert sum(row["expected"] == "none" for row in MANIFEST) >= 8
    for row in MANIFEST:
        assert row["expected"] in CATEGORIES | {"none"}, row
        assert row["source"].startswith("https://github.com/"), row
        assert row.get("split", "development") in ("development", "held-out"), row


def _positive(row):
    gap = KNOWN_GAPS.get(row["file"])
    # strict: when the data arrives and the entry passes, the gap must be removed from the list.
    return pytest.param(row, id=row["file"], marks=[pytest.mark.xfail(reason=gap, strict=True)] if gap else [])


@pytest.mark.parametrize("row", [_positive(r) for r in MANIFEST if r["expected"] != "none"])
def test_first_category_is_the_established_diagnosis(row):
    report = report_for(row["file"])
    assert report.findings, "no finding at all"
    assert report.findings[0].category == row["expected"], [(f.code, f.category) for f in report.findings]


@pytest.mark.parametrize("row", [r for r in MANIFEST if r["expected"] == "none"], ids=lambda r: r["file"])
def test_negative_controls_get_no_error(row):
    report = report_for(row["file"])
    errors = [(f.code, f.title) for f in report.findings if f.severity is Severity.ERROR]
    assert not errors
