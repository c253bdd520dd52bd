"""The text and markdown views show what --deep found and, with -v, which checks
could not tell: the same facts and outcomes the JSON carries."""

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from gpudoctor.doctor import judge
from gpudoctor.findings import Outcome
from gpudoctor.matrices import load_matrices
from gpudoctor.render import markdown, text
from gpudoctor.snapshot import Snapshot

FIXTURES = Path(__file__).parent / "rules"
M = load_matrices(overlay=None)


def report_of(code: str):
    data = json.loads((FIXTURES / code / "bad.json").read_text())
    data.pop("_note", None)
    return judge(Snapshot.from_dict(data), M)


def as_text(report, verbose=False) -> str:
    out = io.StringIO()
    text.render(report, Console(file=out, width=120, color_system=None), verbose=verbose)
    return out.getvalue()


@pytest.mark.parametrize("code,says", [
    ("GD505", "import failed: ImportError: libcudnn.so.9"),
    ("GD506", "CUDA available: no"),
    ("GD507", "tiny GPU op on device 0: RuntimeError: CUDA error: no kernel image"),
])
def test_deep_results_appear_in_text_and_markdown(code, says):
    report = report_of(code)
    assert says in as_text(report)
    assert says in markdown.render(report)


def test_deep_shows_the_frameworks_own_message_and_what_it_loaded():
    out = as_text(report_of("GD506"))
    assert "its message: CUDA driver initialization failed" in out
    out = as_text(report_of("GD507"))
    assert "cuDNN loaded: 9.13.0.50" in out and "devices: NVIDIA H200" in out


def test_checks_that_could_not_tell_are_listed_with_v():
    report = report_of("GD101")
    unknown = [r for r in report.results if r.outcome is Outcome.UNKNOWN]
    assert unknown
    quiet, loud = as_text(report), as_text(report, verbose=True)
    assert "-v lists them" in quiet and unknown[0].detail not in quiet
    assert f"{unknown[0].code} {unknown[0].detail}" in " ".join(loud.split())
