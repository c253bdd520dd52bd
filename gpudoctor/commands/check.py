"""`gpudoctor check` and `gpudoctor snapshot`."""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.commands.check_run import PRECISIONS, probe, run_check
from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, emit, format_option
from gpudoctor.serde import DataError
from gpudoctor.snapshot import Snapshot

DEEP_HELP = "Also import each framework in a subprocess (at most 60 s each; seconds usually)."


def load_snapshot_file(path: str) -> Snapshot:
    """Read a snapshot (or a whole `check --json` report) back; InputError on bad input."""
    from dataclasses import replace

    from gpudoctor.inputs import SNAPSHOT_LIMIT, read_text

    text = read_text(path, limit=SNAPSHOT_LIMIT)
    return replace(snapshot_from_json(text, "stdin" if path == "-" else path), origin="file")


def snapshot_from_json(text: str, name: str) -> Snapshot:
    """A snapshot from JSON text: a bare snapshot or a whole report. One-line
    InputError (exit 2) when it is not valid JSON or not a gpudoctor snapshot."""
    from gpudoctor.inputs import parse_json

    data = parse_json(text, name)
    if isinstance(data, dict) and "snapshot" in data and "findings" in data:
        data = data["snapshot"]  # a whole report: take its snapshot
    if isinstance(data, dict) and data.get("schema_version", 1) != 1:
        raise InputError(f"{name}: snapshot schema_version {repr(data.get('schema_version'))[:40]} is not supported")
    try:
        return Snapshot.from_dict(data)
    except DataError as exc:
        raise InputError(f"{name} is not a gpudoctor snapshot: {exc}") from None


def python_option(f):
    return click.option("--python", "python", metavar="PATH",
                        help="Probe this interpreter's environment (default: the one running gpudoctor; "
                             "describing it may take at most 10 s).")(f)


@click.command()
@python_option
@click.option("--deep", is_flag=True, help=DEEP_HELP)
@format_option("check")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1): for CI.")
@click.option("--from", "from_file", metavar="SNAPSHOT.json",
              help="Judge a saved snapshot (from `gpudoctor snapshot`) instead of this machine.")
@click.option("--require-precision", "require", multiple=True, type=click.Choice(PRECISIONS),
              help="The job needs this precision: its absence on a GPU becomes an error. Repeatable.")
@click.option("--smoke", is_flag=True, help="Also run `gpudoctor smoke --quick` and include its findings.")
@click.option("--policy", "policy_file", metavar="FILE",
              help="A policy file (gpudoctor.toml, or pyproject.toml's [tool.gpudoctor]): docs/ci.md.")
@click.option("--report-out", metavar="FILE", help="Also write the JSON report to FILE (with any --format).")
@click.option("-v", "--verbose", is_flag=True, help="Show sources, evidence and fixes for info findings.")
@click.option("--debug", is_flag=True, hidden=True)
def check(python, deep, fmt, as_json, strict, from_file, require, smoke, policy_file, report_out, verbose, debug):
    """Judge this environment: will PyTorch / TensorFlow / JAX / CuPy really use every GPU?

    Exit codes: 0 no error findings, 1 error findings (--strict: warnings too),
    2 usage or input error, 3 internal error.
    """
    if from_file and (python or deep or smoke):
        raise click.UsageError("--from judges a saved snapshot; --python, --deep and --smoke probe a live machine")
    sys.exit(run_check(python, deep, fmt, as_json, strict, from_file, require, smoke, policy_file, report_out,
                       verbose, debug))


@click.command()
@python_option
@click.option("--deep", is_flag=True, help=DEEP_HELP)
def snapshot(python, deep):
    """Print the probed facts as JSON. Replay anywhere with `gpudoctor check --from FILE`."""
    from gpudoctor.render.json import dumps

    snap = probe(python, deep)  # the status is on stderr, on a terminal only: the JSON stays clean
    emit("snapshot", "json", {OutputFormat.JSON: lambda: dumps(snap.to_dict()) + "\n"})
    sys.exit(ExitCode.OK)
