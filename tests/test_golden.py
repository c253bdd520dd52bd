"""What a person sees, pinned at 80 and 120 columns: check (from rule fixtures),
plan, matrix and diagnose, rendered as piped text (COLUMNS sets the width).

The expected text lives in tests/golden/<case>-<width>.txt. After a deliberate
change to a view, rewrite them with

    GPUDOCTOR_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

and read the diff before committing it (as ruff's snapshot tests do)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.cells import cell_len

from gpudoctor.cli import cli

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("GPUDOCTOR_UPDATE_GOLDEN") == "1"
WIDTHS = (80, 120)


def _fixture(tmp_path: Path, code: str) -> str:
    data = json.loads((HERE / "rules" / code / "bad.json").read_text())
    data.pop("_note", None)
    path = tmp_path / f"{code}.json"
    path.write_text(json.dumps(data))
    return str(path)


CASES = {
    "check-GD201": lambda tmp: ["check", "--from", _fixture(tmp, "GD201")],
    "check-GD303-v": lambda tmp: ["check", "--from", _fixture(tmp, "GD303"), "-v"],
    "check-GD607": lambda tmp: ["check", "--from", _fixture(tmp, "GD607")],
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


def _render(args: list[str], width: int, tmp_path: Path, monkeypatch) -> str:
    # No user overlay, price file or cache: the shipped data only.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.chdir(HERE.parent)  # relative paths in the output, the same on every machine
    res = CliRunner().invoke(cli, args, catch_exceptions=False, prog_name="gpudoctor")
    assert res.exit_code in (0, 1), res.output
    return res.stdout.replace(str(tmp_path) + os.sep, "")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_view_matches_golden(case, width, tmp_path, monkeypatch):
    text = _render(CASES[case](tmp_path), width, tmp_path, monkeypatch)
    over = [line for line in text.splitlines() if cell_len(line.rstrip()) > width and "$ " not in line]
    assert not over, f"lines wider than {width} columns (only commands may be): {over[:3]}"
    golden = GOLDEN / f"{case}-{width}.txt"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no {golden.name}: run with GPUDOCTOR_UPDATE_GOLDEN=1 to write it"
    assert text == golden.read_text(encoding="utf-8"), f"{golden.name} differs (GPUDOCTOR_UPDATE_GOLDEN=1 rewrites)"


def test_piped_width_defaults_to_80(tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    res = CliRunner().invoke(cli, ["matrix", "--no-overlay", "torch", "2.7"], catch_exceptions=False)
    assert max(cell_len(line.rstrip()) for line in res.stdout.splitlines()) <= 80
