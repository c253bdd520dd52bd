"""`gpudoctor report`: a markdown report worth pasting into a GitHub issue.

Environment facts, a verdict per GPU × framework, findings with their fixes,
and the raw snapshot in a collapsed block (maintainers replay it with
`gpudoctor check --from`). --redact removes hostnames, user names in paths,
GPU UUIDs and serial numbers, IP and MAC addresses.

Exit codes: 0 report written (whatever it found), 2 usage or input error.
"""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.commands.check import python_option
from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, emit


@click.command()
@python_option
@click.option("--deep", is_flag=True, help="Also import each framework in a time-limited subprocess.")
@click.option("--redact", is_flag=True, help="Remove hostnames, user names, GPU UUIDs/serials, IP and MAC addresses.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--from", "from_file", metavar="SNAPSHOT.json", help="Report on a saved snapshot instead of this machine.")
def report(python, deep, redact, output, from_file):
    """A markdown report for GitHub issues: facts, findings with fixes, raw snapshot."""
    from gpudoctor.commands.check import load_snapshot_file, probe
    from gpudoctor.doctor import judge
    from gpudoctor.matrices import load_matrices
    from gpudoctor.redact import Redactor, live_hostnames
    from gpudoctor.render.json import dumps
    from gpudoctor.render.markdown import issue_report

    if from_file and (python or deep):
        raise click.UsageError("--from reports on a saved snapshot; --python and --deep probe a live machine")
    snapshot = load_snapshot_file(from_file) if from_file else probe(python, deep, quiet=True)
    text = issue_report(judge(snapshot, load_matrices()), dumps(snapshot.to_dict()))
    redactor = Redactor.for_snapshot(snapshot, [] if from_file else live_hostnames()).text if redact else None
    try:
        emit("report", "markdown", {OutputFormat.MARKDOWN: lambda: text}, redact=redactor, output=output)
    except OSError as exc:
        if not output:
            raise  # stdout itself (a closed pipe): not the file's fault
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    if output:
        click.echo(f"wrote {output}" + (" (redacted)" if redact else ""), err=True)
    sys.exit(ExitCode.OK)
