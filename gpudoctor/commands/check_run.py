"""What `gpudoctor check` does once its options are known, without click.

commands/check.py declares the options (click) and calls `run_check`. The
common invocations (`check --json --python PATH` and the like) never import
click at all: `fast_options` recognises them in gpudoctor/__main__.py, exactly
as click would parse them, and anything else (help, a typo, an odd spelling)
goes to click. A usage or input error raised here imports click on its way out.
"""

from __future__ import annotations

import errno

from gpudoctor.exits import echo
from gpudoctor.matrices.records.gpus import PRECISIONS
from gpudoctor.render.emit import FORMATS as COMMAND_FORMATS


# check's options, spelled as commands/check.py declares them (a test holds the
# two together): flags, options that take one value, and the values a choice allows.
FLAGS = {"--deep": "deep", "--json": "as_json", "--strict": "strict", "--smoke": "smoke",
         "-v": "verbose", "--verbose": "verbose", "--debug": "debug"}
VALUES = {"--python": "python", "--format": "fmt", "--from": "from_file", "--require-precision": "require",
          "--policy": "policy_file", "--report-out": "report_out"}
CHOICES = {"fmt": tuple(f.value for f in COMMAND_FORMATS["check"]), "require": PRECISIONS}
DEFAULTS = {"python": None, "deep": False, "fmt": "text", "as_json": False, "strict": False, "from_file": None,
            "require": (), "smoke": False, "policy_file": None, "report_out": None, "verbose": False,
            "debug": False}


def fast_options(argv: list[str]) -> dict | None:
    """run_check's keyword arguments for `check ...` as click would parse
    them, or None when click must see the command line (help, an unknown or
    misspelt option, a value that looks like an option, a usage error)."""
    if not argv or argv[0] != "check":
        return None
    options = dict(DEFAULTS)
    require: list[str] = []
    args = iter(argv[1:])
    for arg in args:
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in FLAGS and not eq:
            options[FLAGS[name]] = True
            continue
        param = VALUES.get(name)
        if param is None:
            return None
        if not eq:
            value = next(args, None)
            if value is None:
                return None
        if value.startswith("-") or value not in CHOICES.get(param, (value,)):
            return None
        if param == "require":
            require.append(value)
        else:
            options[param] = value  # given twice, the last one counts, as in click
    options["require"] = tuple(require)
    if options["from_file"] and (options["python"] or options["deep"] or options["smoke"]):
        return None  # click's usage error says why
    return options


def run_fast(options: dict) -> int:
    """run_check(**options) with what click's Command.main wraps around a
    command: Ctrl-C (or EOF) first closes the terminal's ^C echo with a blank
    line and then aborts, and a closed output pipe ends with exit 1."""
    try:
        return run_check(**options)
    except (EOFError, KeyboardInterrupt) as exc:
        echo("", err=True)
        raise KeyboardInterrupt from exc
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        return 1


def run_check(python, deep, fmt, as_json, strict, from_file, require, smoke, policy_file, report_out,
              verbose, debug) -> int:
    """Judge this environment (or a saved snapshot) and print the report; the exit code."""
    if as_json:
        fmt = "json"
    policy = _load_policy(policy_file) if policy_file else None
    started = None if from_file else start_probe(python)

    from gpudoctor.doctor import judge  # imported while the target interpreter runs
    from gpudoctor.matrices import load_matrices

    if from_file:
        from gpudoctor.commands.check import load_snapshot_file

        snapshot = load_snapshot_file(from_file)
    else:
        snapshot = probe(python, deep, quiet=fmt != "text", started=started)
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
    return report.exit_code(strict)


def start_probe(python: str | None):
    """Start the target interpreter (it takes as long as an interpreter start)
    and the toolkits' nvcc now, so that they run while gpudoctor imports its
    judge; pass the result to probe()."""
    from gpudoctor.host import RealHost
    from gpudoctor.probes.target import Interrogation

    host = RealHost()
    started = Interrogation(host, python)
    from gpudoctor.probes.cuda_runtime import start_nvcc  # after the start: it imports the snapshot types

    start_nvcc(host)
    return host, started


def probe(python: str | None, deep: bool, quiet: bool = False, started=None):
    """The live snapshot; `started`: what start_probe(python) began."""
    from gpudoctor.host import RealHost
    from gpudoctor.probes import TargetPythonError, collect
    from gpudoctor.render.console import status

    first = "importing each framework (--deep, at most 60 s each)" if deep else "probing"
    try:
        with status(f"gpudoctor: {first}…", enabled=not quiet) as say:
            host, interrogation = started or (RealHost(), None)
            snap = collect(host, python=python, deep=deep,
                           progress=lambda stage: say(f"gpudoctor: {stage}…"), started=interrogation)
    except TargetPythonError as exc:
        from gpudoctor.cli import InputError

        raise InputError(str(exc)) from None
    say_which_environment(snap)
    return snap


def say_which_environment(snap) -> None:
    """When the active environment was judged instead of gpudoctor's own (a
    pipx or uv-tool install), the first line says so (stderr: JSON stays JSON)."""
    from gpudoctor.probes.target import ACTIVE_MARK

    exe = snap.system.python_executable
    if ACTIVE_MARK in (exe.source or ""):
        why = exe.source.split("(", 1)[-1].rstrip(")")
        echo(f"gpudoctor: judging {exe.value}: {why}; --python PATH judges another", err=True)


def _load_policy(path: str):
    from gpudoctor.policy import PolicyError, load_policy

    try:
        return load_policy(path)
    except PolicyError as exc:
        from gpudoctor.cli import InputError

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
        echo("smoke skipped: the check found no usable driver or GPU", err=True)
        return report
    smoke_report = run_smoke(RealHost(), python=python, snapshot=report.snapshot)
    extra = [f for f in smoke_report.findings if f.code not in REPEATS_CHECK]
    return replace(report, findings=tuple(sort_findings(list(report.findings) + extra)))


def _emit_report(report, fmt: str, strict: bool, verbose: bool, extra: dict, report_out: str | None) -> None:
    """The report in `fmt`, and its JSON also in --report-out when asked."""
    from gpudoctor.render.emit import emit
    from gpudoctor.render.json import dumps, report_data
    from gpudoctor.render.report_views import report_views

    data = {**report_data(report, "check", strict), **extra}
    if report_out:
        from gpudoctor.render.ci import write_report

        try:
            write_report(report_out, dumps(data))
        except OSError as exc:
            from gpudoctor.cli import InputError

            raise InputError(f"--report-out: cannot write {report_out}: {exc.strerror or exc}") from None
    emit("check", fmt, report_views(report, "check", strict, verbose, data, report_out))
