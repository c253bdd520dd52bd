"""`gpudoctor lint FILE...`: dependency files and Dockerfiles judged against
this machine or a described one, with the same rules as check."""

from __future__ import annotations

import re
import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import Severity, exit_code_for

FORMATS = ("text", "json", "sarif", "github")
LINT_SCHEMA_VERSION = 1
_PY_VERSION = re.compile(r"^\s*3\.\d+(\.\d+)?\s*$")


def target_options(f):
    """The options `install` takes to describe a machine."""
    for opt in reversed((
        click.option("--driver", metavar="VERSION", help="NVIDIA driver release of the target, e.g. 535.104.05."),
        click.option("--gpu", "gpus", multiple=True, metavar="NAME", help="A GPU model of the target. Repeatable."),
        click.option("--sm", "sms", multiple=True, metavar="X.Y", help="A GPU compute capability. Repeatable."),
        click.option("--python", "python", metavar="3.X|PATH",
                     help="Python version of the target (3.11), or an interpreter whose machine to probe."),
        click.option("--os", "os_name", metavar="linux|windows", help="Operating system of the target."),
        click.option("--arch", metavar="x86_64|aarch64", help="CPU architecture of the target."),
        click.option("--cpu", is_flag=True, help="The target has no NVIDIA GPU."),
        click.option("--from", "from_file", metavar="SNAPSHOT.json", help="The target is a saved snapshot."),
    )):
        f = opt(f)
    return f


def host_and_platform(matrices, driver, gpus, sms, python, os_name, arch, cpu, from_file):
    """(host Snapshot, wheel platform, one-line description) of the target."""
    from gpudoctor.install.target import TargetError, target_from_options, target_from_snapshot
    from gpudoctor.lint.engine import host_from_target

    py_version = python if python and _PY_VERSION.match(python) else None
    py_path = python if python and not py_version else None
    try:
        if driver or gpus or sms or cpu:
            if from_file or py_path:
                raise TargetError("describe a machine (--driver/--gpu/--sm/--cpu) or probe one "
                                  "(--from, --python PATH), not both")
            target = target_from_options(matrices, driver=driver, gpus=gpus, sms=sms, python=py_version,
                                         os_name=os_name, arch=arch, cpu=cpu)
            return host_from_target(target), target.platform, target.describe()
        from gpudoctor.commands.install import _this_machine

        snap = _this_machine(py_path, from_file)
        target = target_from_snapshot(snap, matrices, python=py_version, os_name=os_name, arch=arch)
        if py_version or os_name or arch:
            from dataclasses import replace

            from gpudoctor.snapshot import Fact
            sysinfo = replace(snap.system, python=Fact(target.python_text, "--python") if py_version
                              else snap.system.python,
                              os=Fact(target.os, "--os") if os_name else snap.system.os,
                              machine=Fact(target.arch, "--arch") if arch else snap.system.machine)
            snap = replace(snap, system=sysinfo)
        return snap, target.platform, target.describe()
    except TargetError as exc:
        raise InputError(str(exc)) from None


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@target_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence and info findings.")
@click.option("--debug", is_flag=True, hidden=True)
def lint(files, driver, gpus, sms, python, os_name, arch, cpu, from_file, fmt, strict, verbose, debug):
    """Judge requirements files, pyproject.toml, uv.lock, poetry.lock, pixi.toml/pixi.lock,
    environment.yml and Dockerfiles: which framework builds they resolve to, and whether those
    run on this machine (or one described with --driver/--gpu/--sm/--python/--os/--arch).

    Exit codes: 0 no error findings, 1 error findings (--strict: warnings too),
    2 usage or input error, 3 internal error.
    """
    from gpudoctor.lint.engine import lint_file
    from gpudoctor.lint.model import LintInputError
    from gpudoctor.matrices import load_matrices

    matrices = load_matrices()
    host, platform, described = host_and_platform(matrices, driver, gpus, sms, python, os_name, arch, cpu, from_file)
    try:
        reports = [lint_file(path, host, platform, matrices, debug=debug) for path in files]
    except LintInputError as exc:
        raise InputError(str(exc)) from None
    findings = [f for r in reports for f in r.findings]
    code = int(exit_code_for(findings, strict))
    if fmt == "json":
        from gpudoctor.render.json import dumps

        click.echo(dumps(lint_data(reports, described, code)))
    elif fmt == "sarif":
        from gpudoctor.render.json import dumps
        from gpudoctor.render.sarif import sarif_log

        click.echo(dumps(sarif_log(findings)))
    elif fmt == "github":
        import os

        from gpudoctor.render.github import render
        from gpudoctor.render.outcomes import from_findings

        from gpudoctor.render.github import escape_data, escape_property

        click.echo(render(from_findings(findings, "lint", strict), os.environ), nl=False)
        for r in reports:  # an include that cannot be read: a warning on the line that names it
            for file, line, text in r.notices:
                click.echo(f"::warning file={escape_property(file)},line={line},title=gpudoctor lint::"
                           f"{escape_data(text)}")
    else:
        _text(reports, described, verbose)
    sys.exit(code)


def lint_data(reports, described: str, code: int) -> dict:
    from gpudoctor import __version__
    from gpudoctor.render.json import finding_data
    from gpudoctor.serde import to_data

    count = {s.value: sum(1 for r in reports for f in r.findings if f.severity is s) for s in Severity}
    return {
        "schema_version": LINT_SCHEMA_VERSION, "gpudoctor_version": __version__, "command": "lint",
        "target": described,
        "files": [{"path": r.path, "kind": r.kind, "builds": [to_data(b) for b in r.builds],
                   "findings": [finding_data(f) for f in r.findings], "notes": list(r.notes),
                   "unknown": [{"code": x.code, "detail": x.detail} for x in r.results if x.outcome.value == "unknown"]}
                  for r in reports],
        "summary": {**count, "exit_code": code},
    }


def _text(reports, described: str, verbose: bool) -> None:
    click.echo(f"target: {described}")
    for r in reports:
        click.echo(f"\n{r.path} ({r.kind})")
        for b in r.builds:
            at = (f"{b.file}:{b.line}" if b.file else f"line {b.line}") if b.line else "?"
            click.echo(f"  resolves {b.name} {b.version or '?'} [{b.build}] ({at}): {b.how}")
        if not r.builds:
            click.echo("  resolves no framework build gpudoctor judges")
        for f in r.findings:
            if f.severity is Severity.INFO and not verbose:
                continue
            file, line = (f.location.file, f.location.line) if f.location else (r.path, None)
            click.echo(f"  {file}:{line or 1}: {f.code} {f.severity.value}: {f.title}")
            if verbose:
                for e in f.evidence:
                    click.echo(f"      {e.fact} = {e.value}  ({e.source})")
            if f.fix is not None:
                click.echo(f"      fix: {f.fix.text}")
                for c in f.fix.commands:
                    click.echo(f"        {c}")
        for note in r.notes:
            click.echo(f"  note: {note}")
    errors = sum(1 for r in reports for f in r.findings if f.severity is Severity.ERROR)
    warnings = sum(1 for r in reports for f in r.findings if f.severity is Severity.WARNING)
    click.echo(f"\n{errors} error(s), {warnings} warning(s) in {len(reports)} file(s)")
