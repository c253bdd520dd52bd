"""`gpudoctor diagnose FILE|-`: judge a pasted environment report or error.

The paste is read into the same Snapshot a live probe produces (what it does
not show stays unknown, so no rule can call it an error), the same rules judge
it, and recognised error lines add GD8xx findings. The output is check's,
plus what was read from where.
"""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.render.emit import OutputFormat, Printed, emit, format_option

# The input is streamed: its first HEAD_BYTES and last TAIL_BYTES are parsed
# (an environment report is usually at the start of a log, the error at its
# end), and what lies between is counted and reported, never silently dropped.
HEAD_BYTES = 48 * 1024 * 1024
TAIL_BYTES = 16 * 1024 * 1024


_OWN_KEYS = (b'"schema_version"', b'"gpudoctor_version"', b'"snapshot"')
_SNAPSHOT_KEYS = (b'"driver"', b'"gpus"', b'"frameworks"', b'"system"', b'"cuda_runtimes"')


LARGE_PASTE = 2 * 2**20  # bytes: from about here reading a paste takes over a second (a status shows)


def looks_like_gpudoctor_json(data: bytes) -> bool:
    """A JSON object with gpudoctor's own keys, or a snapshot's. Such input is
    read as a snapshot, and when it is not a valid one the error says so (exit 2)."""
    head = data[:65536].lstrip()
    if not head.startswith(b"{"):
        return False
    return any(k in head for k in _OWN_KEYS) or sum(k in head for k in _SNAPSHOT_KEYS) >= 2


@click.command()
@click.argument("file", required=False, metavar="FILE|-")
@click.option("--error", "error_text", metavar="TEXT", help="An error message to judge with the paste (or alone).")
@click.option("--error-file", type=click.Path(dir_okay=False), help="Read the error message from a file.")
@format_option("diagnose")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence and fixes for info findings.")
@click.option("--redact", is_flag=True, help="Remove hostnames, user names, GPU UUIDs/serials, IP and MAC addresses.")
@click.option("--debug", is_flag=True, hidden=True)
def diagnose(file, error_text, error_file, fmt, as_json, strict, verbose, redact, debug):
    """Judge a pasted report: collect_env, nvidia-smi, nvcc, pip/conda lists,
    ds_report, jax/TensorFlow info, app banners, free text, error messages.

    FILE is a file or - for stdin. Exit codes: 0 no error findings, 1 error
    findings (--strict: warnings too), 2 unreadable or malformed input.
    """
    from gpudoctor.diagnose import read_paste
    from gpudoctor.diagnose.findings import diagnose_report, read_data
    from gpudoctor.matrices import load_matrices

    if as_json:
        fmt = "json"
    if file is None and not (error_text or error_file):
        raise click.UsageError("give a FILE (or - for stdin), --error TEXT or --error-file F")
    if error_text and error_file:
        raise click.UsageError("--error and --error-file are exclusive")
    from gpudoctor.inputs import (
        ERROR_TEXT_LIMIT,
        SNAPSHOT_LIMIT,
        read_bytes,
        read_window,
    )

    name = "stdin" if file == "-" else file or "--error"
    window = read_window(file, head=HEAD_BYTES, tail=TAIL_BYTES) if file is not None else None
    data = window.head if window is not None else None
    error = read_bytes(error_file, limit=ERROR_TEXT_LIMIT) if error_file else \
        (error_text.encode() if error_text else None)
    base = None
    if data is not None and looks_like_gpudoctor_json(data):
        from gpudoctor.commands.check import snapshot_from_json

        if window is not None and not window.complete:
            raise InputError(f"{name}: too large for a gpudoctor snapshot: {window.total_bytes / 2**20:,.1f} MB, "
                             f"limit {SNAPSHOT_LIMIT / 2**20:,.1f} MB")
        base = snapshot_from_json(data.decode("utf-8", errors="replace"), file)
        data = None
    more = ((window.tail, f"tail from line {window.tail_first_line:,}"),) if window and window.tail else ()
    from gpudoctor.render.console import status

    size = window.total_bytes if window is not None else 0
    with status(f"gpudoctor: reading {name} ({size / 2**20:,.1f} MB)…", enabled=size > LARGE_PASTE):
        matrices = load_matrices()
        d = read_paste(data, error, matrices, base=base, debug=debug, more=more)
        report = diagnose_report(d, matrices, debug=debug)
        read = read_data(d)
    if window is not None and not window.complete:
        read["not_read"] = window.not_read()
        click.echo(f"gpudoctor: {window.describe(name)}", err=True)
    if d.empty:
        click.echo(f"gpudoctor: nothing in {name} that gpudoctor can read (formats: docs/diagnose.md)", err=True)
    redact_text = None
    if redact:
        from gpudoctor.redact import Redactor, hostnames_in_text

        pasted = b"\n".join(part for part in (data, window.tail if window else b"", error) if part)
        redact_text = Redactor.for_snapshot(d.snapshot, hostnames_in_text(pasted.decode("utf-8", errors="replace"))).text
    emit("diagnose", fmt, _views(report, read, name, strict, verbose), redact=redact_text)
    sys.exit(report.exit_code(strict))


def _views(report, read: dict, name: str, strict: bool, verbose: bool) -> dict:
    """check's views of the report, with what was read from where: in the JSON,
    above the text and below the markdown."""
    from gpudoctor.render.json import report_data
    from gpudoctor.render.report_views import report_views

    data = {**report_data(report, "diagnose", strict), "read": read}

    def text(console) -> None:
        from gpudoctor.render.diagnose import render_text
        from gpudoctor.render.text import render

        render_text(read, console, name)
        render(report, console, verbose)

    def markdown() -> str:
        from gpudoctor.render.diagnose import render_markdown
        from gpudoctor.render.markdown import render

        return render(report) + "\n" + render_markdown(read, name)

    return {**report_views(report, "diagnose", strict, verbose, data), OutputFormat.TEXT: Printed(text),
            OutputFormat.MARKDOWN: markdown}
