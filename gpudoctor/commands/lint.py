"""`gpudoctor lint FILE...`: dependency files and Dockerfiles judged against
this machine or a described one, with the same rules as check."""

from __future__ import annotations

import re
import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import exit_code_for
from gpudoctor.render.emit import OutputFormat, ci_views, emit, format_option

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
@format_option("lint")
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
    emit("lint", fmt, _views(reports, findings, described, code, strict, verbose))
    sys.exit(code)


def _views(reports, findings, described: str, code: int, strict: bool, verbose: bool) -> dict:
    from gpudoctor.render.json import dumps
    from gpudoctor.render.lint import lint_data, notice_annotations, render_text
    from gpudoctor.render.outcomes import from_findings
    from gpudoctor.render.sarif import sarif_log

    views = {OutputFormat.JSON: lambda: dumps(lint_data(reports, described, code)) + "\n",
             OutputFormat.SARIF: lambda: dumps(sarif_log(findings)) + "\n",
             OutputFormat.TEXT: lambda: render_text(reports, described, verbose),
             **ci_views(lambda: from_findings(findings, "lint", strict))}
    github = views[OutputFormat.GITHUB]
    views[OutputFormat.GITHUB] = lambda: github() + notice_annotations(reports)
    return views
