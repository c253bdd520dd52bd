"""`gpudoctor requires [--python ENV | FILE...]`: what a host needs to run
this environment, lockfile or image."""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, emit, format_option


@click.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--python", "python", metavar="PATH", help="An interpreter whose environment to read (default: this one).")
@click.option("--os", "os_name", metavar="linux|windows", help="Platform the files are installed on (default linux).")
@click.option("--arch", metavar="x86_64|aarch64", help="CPU architecture the files are installed on.")
@format_option("requires")
@click.option("--debug", is_flag=True, hidden=True)
def requires(files, python, os_name, arch, fmt, debug):
    """What a host needs to run an environment (--python, default this one), a lockfile, a
    requirements file or an image (FILE...): the driver floor per OS, the GPU architectures with
    kernels, the cuDNN SM floor, glibc; also as Kubernetes nodeAffinity, a Slurm constraint or
    NVIDIA_REQUIRE_CUDA.

    Exit codes: 0 the needs are known, 2 bad input, 3 internal error.
    """
    from gpudoctor.matrices import load_matrices
    from gpudoctor.requires import host_needs

    matrices = load_matrices()
    if files and python:
        raise click.UsageError("give files or --python, not both")
    inputs = []
    if files:
        from gpudoctor.install.target import Target, TargetError, normalize_arch, normalize_os
        from gpudoctor.lint.engine import host_from_target, read_source
        from gpudoctor.lint.model import LintInputError
        from gpudoctor.lint.resolve import resolve

        try:
            target = Target(os=normalize_os(os_name) if os_name else "linux",
                            arch=normalize_arch(arch) if arch else "x86_64")
        except TargetError as exc:
            raise InputError(str(exc)) from None
        for path in files:
            try:
                res = resolve(read_source(path, target.platform), host_from_target(target), matrices, target.platform)
            except LintInputError as exc:
                raise InputError(str(exc)) from None
            inputs.append((path, host_needs(res.snapshot, matrices)))
    else:
        from gpudoctor.commands.check import probe

        snap = probe(python, deep=False, quiet=True)
        inputs.append((snap.system.python_executable.value or "this environment", host_needs(snap, matrices)))
    emit("requires", fmt, _views(inputs))
    sys.exit(ExitCode.OK)


def _views(inputs) -> dict:
    from gpudoctor.render.json import dumps
    from gpudoctor.render.requires import render, requires_data

    views = {OutputFormat.JSON: lambda: dumps(requires_data(inputs)) + "\n"}
    for fmt in (OutputFormat.TEXT, OutputFormat.KUBERNETES, OutputFormat.SLURM, OutputFormat.DOCKER):
        views[fmt] = lambda fmt=fmt: render(inputs, fmt)
    return views
