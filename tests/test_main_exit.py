"""`python -m gpudoctor` leaves through os._exit after flushing: the exit code
and every byte printed must survive that, piped output included (run_module
runs it buffered, as a user's shell has it)."""

import json
from pathlib import Path

from cli_helpers import run_module

BAD = Path(__file__).resolve().parent / "rules" / "GD401" / "bad.json"


def test_findings_exit_code_and_whole_json_survive_the_fast_exit(tmp_path):
    snap = json.loads(BAD.read_text())
    snap.pop("_note", None)  # the fixture's provenance, not a snapshot field
    (tmp_path / "snap.json").write_text(json.dumps(snap))
    proc = run_module("check", "--from", str(tmp_path / "snap.json"), "--json")
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout) > 8192  # more than one buffer's worth, every byte of it
    report = json.loads(proc.stdout)  # a truncated buffer would not parse
    assert "GD401" in {f["code"] for f in report["findings"]}


def test_usage_error_keeps_exit_2_and_its_message():
    proc = run_module("check", "--no-such-option")
    assert proc.returncode == 2
    assert "--no-such-option" in proc.stderr


def test_only_check_runs_without_the_garbage_collector(monkeypatch):
    import gc

    import gpudoctor.__main__ as entry
    import gpudoctor.cli
    import gpudoctor.commands.check_run as check_run

    seen = {}

    class Exited(Exception):
        pass

    def leave(status):
        raise Exited(status)

    monkeypatch.setattr(entry.os, "_exit", leave)
    monkeypatch.setattr(gpudoctor.cli, "main", lambda: seen.setdefault("other", gc.isenabled()))
    monkeypatch.setattr(check_run, "run_fast", lambda options: seen.setdefault("check", gc.isenabled()) and 0)
    try:
        for argv in (["gpudoctor", "check", "--json"], ["gpudoctor", "plan", "llama2-7b"]):
            monkeypatch.setattr(entry.sys, "argv", argv)
            try:
                entry.run()
            except Exited:
                pass
    finally:
        gc.enable()
    assert seen == {"check": False, "other": True}
