"""What a person sees, pinned: the views of check (from rule fixtures), plan,
matrix and diagnose at 80 and 120 columns as piped text (COLUMNS sets the
width), and for every rule's bad fixture `check --from` in each format a
person or a CI system reads (text, markdown, github with its job summary and
outputs, junit).

The expected output lives in tests/golden/<case>-<width>.txt and
tests/golden/rules/<code>.txt. After a deliberate change to a view, rewrite
them with

    GPUDOCTOR_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

and read the diff before committing it (as ruff's snapshot tests do). What
changes from machine to machine or release to release (the temporary
directory, gpudoctor's version, JUnit's timestamp and host name) is replaced
by a placeholder in one place, normalise()."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from cli_helpers import invoke, rule_fixture
from rich.cells import cell_len

from gpudoctor import __version__
from gpudoctor.rules.registry import all_rules

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("GPUDOCTOR_UPDATE_GOLDEN") == "1"
WIDTHS = (80, 120)


CASES = {
    "check-GD201": lambda tmp: ["check", "--from", rule_fixture(tmp, "GD201")],
    "check-GD303-v": lambda tmp: ["check", "--from", rule_fixture(tmp, "GD303"), "-v"],
    "check-GD607": lambda tmp: ["check", "--from", rule_fixture(tmp, "GD607")],
    "plan-lora": lambda tmp: ["plan", "llama3-8b", "--lora", "8", "--precision", "amp-bf16", "--batch", "4",
                              "--seq", "2048", "--tokens", "50M", "--top", "4"],
    "plan-inference": lambda tmp: ["plan", "llama3-8b", "--inference", "--context", "8192", "--batch", "8",
                                   "--top", "3"],
    "matrix-torch": lambda tmp: ["matrix", "--no-overlay", "torch", "2.7"],
    "matrix-gpu": lambda tmp: ["matrix", "--no-overlay", "gpu", "RTX 4090"],
    "matrix-cupy": lambda tmp: ["matrix", "--no-overlay", "cupy", "12"],
    "diagnose-ds-report": lambda tmp: ["diagnose", "tests/diagnose_samples/ds-report.txt"],
    "diagnose-jax": lambda tmp: ["diagnose", "tests/diagnose_samples/jax-env.txt"],
}
# Every rule judged from a snapshot has a bad fixture `check --from` reads (GD7xx
# and GD8xx fixtures are smoke runs and pastes, pinned by their own tests).
RULE_CODES = sorted(r.code for r in all_rules() if r.check is not None)
# Not json: the report repeats the fixture as its snapshot and lists every rule's
# outcome, which junit pins already; its shape is the schema tests'.
RULE_FORMATS = ("text", "markdown", "github", "junit")


def normalise(text: str, tmp_path: Path) -> str:
    """The one place where what differs between machines, runs and releases
    becomes a placeholder, so that a golden file changes only with the view."""
    text = text.replace(str(tmp_path) + os.sep, "")
    text = text.replace(f"gpudoctor {__version__}", "gpudoctor VERSION")
    text = text.replace(f'"gpudoctor_version": "{__version__}"', '"gpudoctor_version": "VERSION"')
    text = re.sub(r' timestamp="[^"]*"', ' timestamp="TIMESTAMP"', text)  # JUnit: when the run finished
    return re.sub(r' hostname="[^"]*"', ' hostname="HOST"', text)  # JUnit: this machine's name


@pytest.fixture
def shipped_data_only(tmp_path, monkeypatch):
    # No user overlay, price file or cache: the shipped data only. Not in a
    # GitHub job either (the github format would append to its summary).
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(HERE.parent)  # relative paths in the output, the same on every machine


def _run(args: list, width: int, monkeypatch) -> tuple[int, str]:
    monkeypatch.setenv("COLUMNS", str(width))
    res = invoke(*args)
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, res.stdout


def _matches_golden(text: str, golden: Path) -> None:
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no {golden.name}: run with GPUDOCTOR_UPDATE_GOLDEN=1 to write it"
    assert text == golden.read_text(encoding="utf-8"), f"{golden.name} differs (GPUDOCTOR_UPDATE_GOLDEN=1 rewrites)"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_view_matches_golden(case, width, tmp_path, monkeypatch, shipped_data_only):
    _, text = _run(CASES[case](tmp_path), width, monkeypatch)
    over = [line for line in text.splitlines() if cell_len(line.rstrip()) > width and "$ " not in line]
    assert not over, f"lines wider than {width} columns (only commands may be): {over[:3]}"
    _matches_golden(normalise(text, tmp_path), GOLDEN / f"{case}-{width}.txt")


def _rule_output(code: str, fixture: Path, fmt: str, tmp_path: Path, monkeypatch) -> str:
    """One section of a rule's golden file: the command, its exit code, its output."""
    if fmt == "github":  # the job summary and the step outputs are part of what GitHub shows
        summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    code_, out = _run(["check", "--from", fixture, "--format", fmt], 80, monkeypatch)
    if fmt == "github":
        out += f"--- $GITHUB_STEP_SUMMARY\n{summary.read_text()}--- $GITHUB_OUTPUT\n{outputs.read_text()}"
        for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
            monkeypatch.delenv(name)
    return f"=== gpudoctor check --from tests/rules/{code}/bad.json --format {fmt}: exit {code_}\n{out}"


@pytest.mark.parametrize("code", RULE_CODES)
def test_rule_fixture_outputs_match_golden(code, tmp_path, monkeypatch, shipped_data_only):
    fixture = rule_fixture(tmp_path, code)
    text = "".join(_rule_output(code, fixture, fmt, tmp_path, monkeypatch) for fmt in RULE_FORMATS)
    assert f"{code} " in text, f"the bad fixture of {code} does not show {code}"
    _matches_golden(normalise(text, tmp_path), GOLDEN / "rules" / f"{code}.txt")


def test_piped_width_defaults_to_80(tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    res = invoke("matrix", "--no-overlay", "torch", "2.7")
    assert max(cell_len(line.rstrip()) for line in res.stdout.splitlines()) <= 80
