"""One way for the tests to run gpudoctor's command line.

invoke() runs it in this process through click's CliRunner and the top-level
group, as `gpudoctor ARGS...`: every test gets the group's one-line usage
errors and exit codes, and an exception is raised (never turned into a quiet
exit 1). run_module() runs `python -m gpudoctor ARGS...` in a child process,
for what only a real process shows: the exit after flushing, signals, pipes
(module_argv() is its command line).
rule_fixture() writes a rule's fixture as a snapshot file `check --from` reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result

from gpudoctor.cli import cli

RULE_FIXTURES = Path(__file__).parent / "rules"


def invoke(*args: object, input: str | bytes | None = None, env: Mapping[str, str | None] | None = None,
           obj: object = None) -> Result:
    """`gpudoctor ARGS...` in this process; paths and numbers become strings."""
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, env=env, obj=obj, catch_exceptions=False,
                              prog_name="gpudoctor")


def run_module(*args: object, timeout: float = 120, env: Mapping[str, str] | None = None,
               stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m gpudoctor ARGS...` in a child process (text, both streams
    captured). By default in this environment without PYTHONUNBUFFERED, as a
    user's shell has it: buffered output shows a missing flush."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(module_argv(*args), capture_output=True, text=True, timeout=timeout, env=dict(env),
                          stdin=stdin, check=False)


def module_argv(*args: object) -> list[str]:
    """The command line of `python -m gpudoctor ARGS...` (for a test that must
    hold the process itself, to signal it)."""
    return [sys.executable, "-m", "gpudoctor", *(str(a) for a in args)]


def rule_fixture(directory: Path, code: str, kind: str = "bad") -> Path:
    """tests/rules/CODE/KIND.json without its "_note" (the fixture's provenance,
    not a snapshot field), written to DIRECTORY/CODE-KIND.json."""
    data = json.loads((RULE_FIXTURES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    path = directory / f"{code}-{kind}.json"
    path.write_text(json.dumps(data))
    return path
