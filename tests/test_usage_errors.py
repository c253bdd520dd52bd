"""One style for usage errors: every command, given a bad option, says one line
"gpudoctor: error: ..." on stderr and exits 2 (never click's usage block)."""

from pathlib import Path

import click
import pytest
from cli_helpers import invoke, run_module

from gpudoctor.cli import cli


def _paths(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd.hidden:  # `fleet node`: the check's options pass through to it
            continue
        out.append((*prefix, name))
        if isinstance(cmd, click.Group):
            out += _paths(cmd, ctx, (*prefix, name))
    return out


HERE = Path(__file__).parent
COMMAND_PATHS = _paths(cli, click.Context(cli))


def _one_line_usage_error(res) -> str:
    lines = res.stderr.splitlines()
    assert res.exit_code == 2, res.output
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("gpudoctor: error: "), lines[0]
    assert "Usage:" not in res.stderr and "Try '" not in res.stderr
    return lines[0]


def test_every_command_is_covered():
    names = {p[0] for p in COMMAND_PATHS}
    assert {"check", "plan", "matrix", "diagnose", "fleet", "smoke", "lint"} <= names
    assert any(len(p) == 2 for p in COMMAND_PATHS)  # subcommands of matrix and fleet too


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_bad_option_is_one_line(path):
    line = _one_line_usage_error(invoke(*path, "--no-such-option-x"))
    # fleet collect passes unknown options on to srun, so it names its missing --out instead
    assert ("--no-such-option-x" if path != ("fleet", "collect") else "--out") in line


@pytest.mark.parametrize("args", [
    ["no-such-command"], ["check", "--format", "nope"], ["plan", "--batch", "x", "llama3-8b"],
    ["explain"], ["diagnose"], ["matrix", "no-such-table"], ["check", "--from", "x.json", "--deep"],
], ids=" ".join)
def test_other_usage_errors_are_one_line(args):
    _one_line_usage_error(invoke(*args))


def test_console_script_path_is_one_line_too():
    res = run_module("check", "--no-such-option-x", timeout=60)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [res.stderr.strip()] and res.stderr.startswith("gpudoctor: error: ")


def test_the_tests_run_the_command_line_one_way():
    # tests/cli_helpers.py is the one way a test runs gpudoctor, in this process
    # or as `python -m gpudoctor`, so no test gets click's catch-all exit 1 or
    # another program name by accident. (The patterns are split so that they do
    # not match this file.)
    patterns = ("CliRunner" + "(", '"-m", ' + '"gpudoctor"')
    copies = sorted(str(p.relative_to(HERE)) for p in HERE.rglob("*.py") if p.name != "cli_helpers.py"
                    and any(pattern in p.read_text(encoding="utf-8") for pattern in patterns))
    assert copies == []
