"""`python -m gpudoctor` leaves through os._exit after flushing: the exit code
and every byte printed must survive that, piped output included."""

import json
import os
import subprocess
import sys
from pathlib import Path

BAD = Path(__file__).resolve().parent / "rules" / "GD401" / "bad.json"


def _run(*args: str) -> subprocess.CompletedProcess:
    # Buffered, as a user's shell has it: PYTHONUNBUFFERED would hide a missing flush.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "gpudoctor", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def test_findings_exit_code_and_whole_json_survive_the_fast_exit(tmp_path):
    snap = json.loads(BAD.read_text())
    snap.pop("_note", None)  # the fixture's provenance, not a snapshot field
    (tmp_path / "snap.json").write_text(json.dumps(snap))
    proc = _run("check", "--from", str(tmp_path / "snap.json"), "--json")
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout) > 8192  # more than one buffer's worth, every byte of it
    report = json.loads(proc.stdout)  # a truncated buffer would not parse
    assert "GD401" in {f["code"] for f in report["findings"]}


def test_usage_error_keeps_exit_2_and_its_message():
    proc = _run("check", "--no-such-option")
    assert proc.returncode == 2
    assert "--no-such-option" in proc.stderr
