"""One output vocabulary and one way out: every --format offers exactly the
formats render.emit.FORMATS says the command takes, and emit() writes only
those, to stdout or a file, redacted when asked."""

from __future__ import annotations

import click
import pytest
from cli_helpers import invoke

from gpudoctor.cli import cli
from gpudoctor.render.emit import FORMATS, OutputFormat, Printed, emit


def _commands(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, ctx, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), cmd


COMMANDS = dict(_commands(cli, click.Context(cli)))


@pytest.mark.parametrize("path", sorted(p for p, c in COMMANDS.items() if any(o.name == "fmt" for o in c.params)))
def test_every_format_option_offers_the_formats_of_its_command(path):
    (option,) = [o for o in COMMANDS[path].params if o.name == "fmt"]
    assert list(option.type.choices) == [f.value for f in FORMATS[path]]
    assert option.default == FORMATS[path][0].value == "text"


def test_every_command_that_writes_a_result_is_in_the_table():
    # matrix's subcommands write as `matrix`; fleet collect and node write no result of their own
    expected = {p.split()[0] if p.startswith("matrix") else p for p in COMMANDS} - {"fleet collect", "fleet node"}
    assert set(FORMATS) == expected


def test_a_format_the_command_does_not_take_is_refused():
    with pytest.raises(ValueError, match="gpudoctor lint has no nfd output"):
        emit("lint", "nfd", {OutputFormat.NFD: lambda: "x"})
    with pytest.raises(ValueError, match="no json output"):  # taken, but no view given
        emit("plan", "json", {OutputFormat.TEXT: lambda: "x"})


def test_a_printed_view_goes_to_a_file_as_plain_text_and_redacted(tmp_path):
    out = tmp_path / "out.txt"
    view = Printed(lambda console: console.print("[bold]secret[/] host gpu-box-03"))
    emit("report", "markdown", {OutputFormat.MARKDOWN: view}, redact=lambda t: t.replace("gpu-box-03", "<host>"),
         output=str(out))
    assert out.read_text() == "secret host <host>\n"


def test_an_unknown_format_is_one_line_and_exit_2():
    res = invoke("lint", "requirements.txt", "--format", "nfd")
    assert res.exit_code == 2 and "'nfd' is not one of 'text', 'json', 'sarif', 'github'" in res.stderr
