"""One style for usage errors: every command, given a bad option, says one line
"gpudoctor: error: ..." on stderr and exits 2 (never click's usage block)."""

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

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
    line = _one_line_usage_error(CliRunner().invoke(cli, [*path, "--no-such-option-x"], prog_name="gpudoctor"))
    # fleet collect passes unknown options on to srun, so it names its missing --out instead
    assert ("--no-such-option-x" if path != ("fleet", "collect") else "--out") in line


@pytest.mark.parametrize("args", [
    ["no-such-command"], ["check", "--format", "nope"], ["plan", "--batch", "x", "llama3-8b"],
    ["explain"], ["diagnose"], ["matrix", "no-such-table"], ["check", "--from", "x.json", "--deep"],
], ids=" ".join)
def test_other_usage_errors_are_one_line(args):
    _one_line_usage_error(CliRunner().invoke(cli, args))


def test_console_script_path_is_one_line_too():
    res = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--no-such-option-x"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [res.stderr.strip()] and res.stderr.startswith("gpudoctor: error: ")
