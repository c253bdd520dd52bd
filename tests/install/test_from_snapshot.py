"""check and install never disagree: a finding whose fix reinstalls the
framework carries exactly the install engine's commands for that snapshot."""

import json
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.doctor import judge
from gpudoctor.findings import Fix
from gpudoctor.install.from_snapshot import fix_for_snapshot
from gpudoctor.matrices import load_matrices
from gpudoctor.snapshot import Snapshot

RULES = Path(__file__).resolve().parents[1] / "rules"


def snap(code, kind="bad") -> Snapshot:
    data = json.loads((RULES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    return Snapshot.from_dict(data)


def test_gd303_pascal_with_cu130_gets_a_cu126_torch():
    fix = fix_for_snapshot(snap("GD303"), load_matrices(overlay=None), "torch", "Older CUDA builds keep Pascal.")
    assert isinstance(fix, Fix) and fix.text.startswith("Older CUDA builds keep Pascal.")
    pip, uv = fix.commands
    assert "+cu126" in pip and pip.endswith("--index-url https://download.pytorch.org/whl/cu126")
    assert uv.startswith("uv pip install ") and uv.endswith("--torch-backend=cu126")


@pytest.mark.parametrize("code", ["GD301", "GD302", "GD303", "GD401", "GD501"])
def test_findings_carry_the_engines_commands(code, tmp_path):
    s = snap(code)
    m = load_matrices(overlay=None)
    findings = [f for f in judge(s, m).findings if f.code == code]
    assert findings
    fw = "torch"
    engine = fix_for_snapshot(s, m, fw, "x")
    assert all(f.fix.commands == engine.commands for f in findings)
    # ... and `gpudoctor install --from` prints the same pip command.
    data = json.loads((RULES / code / "bad.json").read_text())
    data.pop("_note", None)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    res = invoke("install", fw, "--from", str(path), "--json")
    assert json.loads(res.stdout)["commands"]["pip"] == engine.commands[0]


def test_unknown_framework_falls_back():
    assert fix_for_snapshot(snap("GD303"), load_matrices(overlay=None), "mxnet", "x") is None


def test_no_working_build_says_what_would_work():
    s = snap("GD303")
    from dataclasses import replace
    # Python 3.5 has torch 1.0-1.5 wheels (old releases still run); no torch release has cp34 wheels.
    old_py = replace(s, system=replace(s.system, python=replace(s.system.python, value="3.4.10")))
    fix = fix_for_snapshot(old_py, load_matrices(overlay=None), "torch", "Why.")
    assert fix.text.startswith("Why. No torch build works on this machine as it is: ")
    assert "Python" in fix.text and fix.commands == ("gpudoctor install torch",)
