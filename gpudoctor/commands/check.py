"""`gpudoctor check` and `gpudoctor snapshot`."""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, emit, format_option
from gpudoctor.serde import DataError
from gpudoctor.snapshot import Snapshot

PRECISIONS = ("tf32", "bf16", "fp8")
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


def start_probe(python: str | None):
    """Start the target interpreter now (it takes as long as an interpreter
    start), so that it runs while gpudoctor imports its judge; pass the
    result to probe()."""
    from gpudoctor.host import RealHost
    from gpudoctor.probes.target import Interrogation

    return Interrogation(RealHost(), python)


def probe(python: str | None, deep: bool, quiet: bool = False, started=None) -> Snapshot:
    from gpudoctor.host import RealHost
    from gpudoctor.probes import TargetPythonError, collect
    from gpudoctor.render.console import status

    first = "importing each framework (--deep, at most 60 s each)" if deep else "probing"
    try:
        with status(f"gpudoctor: {first}…", enabled=not quiet) as say:
            snap = collect(RealHost(), python=python, deep=deep,
                           progress=lambda stage: say(f"gpudoctor: {stage}…"), started=started)
    except TargetPythonError as exc:
        raise InputError(str(exc)) from None
    say_which_environment(snap)
    return snap


def say_which_environment(snap: Snapshot) -> None:
    """When the active environment was judged instead of gpudoctor's own (a
    pipx or uv-tool install), the first line says so (stderr: JSON stays JSON)."""
    from gpudoctor.probes.target import ACTIVE_MARK

    exe = snap.system.python_executable
    if ACTIVE_MARK in (exe.source or ""):
        why = exe.source.split("(", 1)[-1].rstrip(")")
        click.echo(f"gpudoctor: judging {exe.value}: {why}; --python PATH judges another", err=True)


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
    if as_json:
        fmt = "json"
    if from_file and (python or deep or smoke):
        raise click.UsageError("--from judges a saved snapshot; --python, --deep and --smoke probe a live machine")
    policy = _load_policy(policy_file) if policy_file else None
    started = None if from_file else start_probe(python)

    from gpudoctor.doctor import judge  # imported while the target interpreter runs
    from gpudoctor.matrices import load_matrices

    snapshot = load_snapshot_file(from_file) if from_file else probe(python, deep, quiet=fmt != "text", started=started)
    require = tuple(require) + (policy.precisions if policy else ())
    report = judge(snapshot, load_matrices(), require_precision=require, debug=debug)
    if smoke:
        report = _with_smoke(report, python)
    extra = {}
    if policy:
        from gpudoctor.rules.policy import apply_policy, policy_data

        report, ignored = apply_policy(report, policy)
        extra["policy"] = policy_data(policy, ignored)
    _emit_report(report, fmt, strict, verbose, extra, report_out)
    sys.exit(report.exit_code(strict))


def _load_policy(path: str):
    from gpudoctor.policy import PolicyError, load_policy

    try:
        return load_policy(path)
    except PolicyError as exc:
        raise InputError(str(exc)) from None


# Findings of check that already say smoke cannot run: no driver, no GPU passed in.
NO_GPU_CATEGORIES = {"no-driver", "container-no-gpu", "wsl"}
# Smoke codes that only repeat a check finding (GD713 precision skipped = GD612).
REPEATS_CHECK = {"GD713"}


def _with_smoke(report, python):
    from dataclasses import replace

    from gpudoctor.findings import Severity, sort_findings
    from gpudoctor.host import RealHost
    from gpudoctor.smoke import run_smoke  # noqa: PLC0415 - only when asked

    if any(f.severity is Severity.ERROR and f.category in NO_GPU_CATEGORIES for f in report.findings):
        click.echo("smoke skipped: the check found no usable driver or GPU", err=True)
        return report
    smoke_report = run_smoke(RealHost(), python=python, snapshot=report.snapshot)
    extra = [f for f in smoke_report.findings if f.code not in REPEATS_CHECK]
    return replace(report, findings=tuple(sort_findings(list(report.findings) + extra)))


def _emit_report(report, fmt: str, strict: bool, verbose: bool, extra: dict, report_out: str | None) -> None:
    """The report in `fmt`, and its JSON also in --report-out when asked."""
    from gpudoctor.render.json import dumps, report_data
    from gpudoctor.render.report_views import report_views

    data = {**report_data(report, "check", strict), **extra}
    if report_out:
        from gpudoctor.render.ci import write_report

        try:
            write_report(report_out, dumps(data))
        except OSError as exc:
            raise InputError(f"--report-out: cannot write {report_out}: {exc.strerror or exc}") from None
    emit("check", fmt, report_views(report, "check", strict, verbose, data, report_out))


@click.command()
@python_option
@click.option("--deep", is_flag=True, help=DEEP_HELP)
def snapshot(python, deep):
    """Print the probed facts as JSON. Replay anywhere with `gpudoctor check --from FILE`."""
    from gpudoctor.render.json import dumps

    snap = probe(python, deep)  # the status is on stderr, on a terminal only: the JSON stays clean
    emit("snapshot", "json", {OutputFormat.JSON: lambda: dumps(snap.to_dict()) + "\n"})
    sys.exit(ExitCode.OK)
