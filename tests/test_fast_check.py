"""The click-free path of `check` (commands/check_run.fast_options): a command
line it accepts must mean exactly what click makes of it, and its option table
must be check's own declaration."""

from __future__ import annotations

import errno
import io
import os
import sys

import click
import pytest
from cli_helpers import run_module
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudoctor.cli import InputError, main
from gpudoctor.commands.check import check
from gpudoctor.commands.check_run import CHOICES, DEFAULTS, FLAGS, PRECISIONS, VALUES, fast_options
from gpudoctor.exits import Terminated, echo, guarded


def test_the_table_is_checks_declaration():
    options = [p for p in check.params if isinstance(p, click.Option)]
    assert {p.name for p in options} == set(DEFAULTS)
    for p in options:
        spellings = set(p.opts) | set(p.secondary_opts)
        table = FLAGS if p.is_flag else VALUES
        assert spellings == {s for s, name in table.items() if name == p.name}, p.name
        assert not (spellings & set(VALUES if p.is_flag else FLAGS)), p.name
        assert p.multiple == (p.name == "require"), p.name
        if isinstance(p.type, click.Choice):
            assert tuple(p.type.choices) == CHOICES[p.name], p.name
        else:
            assert p.name not in CHOICES, p.name
    assert _click_params([]) == DEFAULTS


def _click_params(args: list[str]) -> dict | None:
    try:
        ctx = check.make_context("check", list(args))
    except (click.exceptions.UsageError, click.exceptions.Exit):
        return None
    return dict(ctx.params)


VALUE_WORDS = list(CHOICES["fmt"]) + list(PRECISIONS) + ["/usr/bin/python3", "", "JSON", "-x", "--json", "a=b", "check"]
OPTION_WORDS = list(FLAGS) + list(VALUES) + ["--help", "-h", "--jsn", "--", "-vv", "--json=1", "--python=", "extra"]
TOKENS = st.one_of(
    st.sampled_from(OPTION_WORDS + VALUE_WORDS),
    st.builds(lambda o, v: f"{o}={v}", st.sampled_from(list(VALUES) + list(FLAGS)), st.sampled_from(VALUE_WORDS)),
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(TOKENS, max_size=7))
def test_an_accepted_command_line_means_what_it_means_to_click(args):
    fast = fast_options(["check", *args])
    if fast is None:
        return  # click parses it, with its own errors and help
    assert _click_params(args) == fast
    assert not (fast["from_file"] and (fast["python"] or fast["deep"] or fast["smoke"]))  # click's usage error


def test_the_common_command_lines_take_the_fast_path():  # the property above must not hold vacuously
    for args in (["--json"], ["--json", "--python", "/x/bin/python"], ["--format=markdown", "--strict"],
                 ["--python=/x/bin/python", "-v", "--require-precision", "bf16", "--require-precision=fp8"],
                 ["--from", "snap.json", "--format", "github"], []):
        fast = fast_options(["check", *args])
        assert fast is not None and fast == _click_params(args), args
    assert fast_options(["check", "--json", "--python", "/p", "--python", "/q"])["python"] == "/q"  # the last one


def test_click_gets_everything_else():
    for argv in (["check", "--help"], ["check", "-h"], ["check", "--jsn"], ["check", "--format", "yaml"],
                 ["check", "--python"], ["check", "--from", "s.json", "--python", "/p"], ["check", "extra"],
                 ["snapshot"], ["--version"], [], ["check", "--json=1"], ["check", "--python", "--json"]):
        assert fast_options(argv) is None, argv


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "latin-1", "ascii"])
@pytest.mark.parametrize("message", ["{\"a\": \"é\"}", "plain", "", "red \x1b[31mX\x1b[0m", "é\x1b"])
@pytest.mark.parametrize("nl", [True, False])
@pytest.mark.parametrize("err", [False, True])
def test_echo_writes_what_click_echo_writes(monkeypatch, encoding, message, nl, err):
    def written(fn) -> bytes:
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding=encoding, errors="replace")
        monkeypatch.setattr(sys, "stderr" if err else "stdout", stream)
        fn(message, err=err, nl=nl)
        stream.flush()
        return raw.getvalue()

    assert written(echo) == written(click.echo)


@pytest.mark.parametrize("error", [KeyboardInterrupt, EOFError, lambda: BrokenPipeError(errno.EPIPE, "Broken pipe"),
                                   BrokenPipeError, lambda: OSError(errno.EIO, "I/O"), lambda: RuntimeError("boom"),
                                   lambda: InputError("no such file"), Terminated],
                         ids=["ctrl-c", "eof", "broken-pipe", "bare-broken-pipe", "os-error", "bug", "input-error",
                              "sigterm"])
def test_an_error_ends_as_it_ends_under_click(monkeypatch, capsys, error):
    import gpudoctor.commands.check as check_command
    import gpudoctor.commands.check_run as check_run

    def fail(*args, **kwargs):
        raise error()

    monkeypatch.setattr(check_run, "run_check", fail)
    monkeypatch.setattr(check_command, "run_check", fail)
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # click wraps the streams after a broken pipe
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    argv = ["check", "--json"]
    with pytest.raises(SystemExit) as under_click:
        main(argv)
    by_click = (under_click.value.code, capsys.readouterr().err)
    fast = (guarded(lambda: check_run.run_fast(fast_options(argv)), False), capsys.readouterr().err)
    assert fast == by_click
    assert by_click[0] in (0, 1, 2, 3, 130, 143)


@pytest.mark.parametrize("interrupt, code", [(Terminated, 143), (KeyboardInterrupt, 130)], ids=["sigterm", "ctrl-c"])
def test_a_signal_that_lands_while_a_class_is_defined_ends_as_the_signal(capsys, interrupt, code):
    def importing():  # Python re-raises what __set_name__ raised as a RuntimeError
        try:
            raise interrupt()
        except BaseException as exc:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'check' in 'Rule'") from exc

    assert guarded(importing, False) == code
    assert "internal error" not in capsys.readouterr().err


def test_a_shell_asking_for_completions_gets_clicks_answer():
    proc = run_module("check", "--json", env=dict(os.environ, _GPUDOCTOR_COMPLETE="bash_source"))
    assert proc.returncode == 0 and "_gpudoctor_completion" in proc.stdout
