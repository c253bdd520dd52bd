"""`gpudoctor requires [--python ENV | FILE...]`: what a host needs to run
this environment, lockfile or image."""

from __future__ import annotations

import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import ExitCode

FORMATS = ("text", "json", "kubernetes", "slurm", "docker")
REQUIRES_SCHEMA_VERSION = 1


@click.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--python", "python", metavar="PATH", help="An interpreter whose environment to read (default: this one).")
@click.option("--os", "os_name", metavar="linux|windows", help="Platform the files are installed on (default linux).")
@click.option("--arch", metavar="x86_64|aarch64", help="CPU architecture the files are installed on.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
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
    _emit(inputs, fmt)
    sys.exit(ExitCode.OK)


def _emit(inputs, fmt: str) -> None:
    from gpudoctor.render import scheduler as sch

    if fmt == "json":
        from gpudoctor import __version__
        from gpudoctor.render.json import dumps

        click.echo(dumps({"schema_version": REQUIRES_SCHEMA_VERSION, "gpudoctor_version": __version__,
                          "command": "requires",
                          "inputs": [{"input": name, "needs": n.to_dict(), "scheduler": sch.scheduler_forms(n)}
                                     for name, n in inputs]}))
        return
    for name, n in inputs:
        if len(inputs) > 1:
            click.echo(f"# {name}")
        if fmt == "kubernetes":
            click.echo(sch.kubernetes_yaml(n), nl=False)
        elif fmt == "slurm":
            c = sch.slurm_constraint(n)
            click.echo(f'#SBATCH --constraint="{c}"' if c else "# no GPU architecture constraint")
        elif fmt == "docker":
            r = sch.nvidia_require_cuda(n)
            click.echo(f'ENV NVIDIA_REQUIRE_CUDA="{r}"' if r else "# no CUDA requirement")
        else:
            _text(name, n, sch)


def _text(name, n, sch) -> None:
    click.echo(f"{name} needs:")
    for os_name, need in n.driver.items():
        full = n.driver_full.get(os_name)
        extra = f" ({full.value}+ where kernels run through PTX JIT)" if full and full.value != need.value else ""
        click.echo(f"  driver ({os_name}): {need.value}+{extra}  <- {need.why}")
    if n.driver_cuda:
        click.echo(f"  driver CUDA: {n.driver_cuda.value}+  (NVIDIA_REQUIRE_CUDA={sch.nvidia_require_cuda(n)})")
    for label, archs in n.archs.items():
        click.echo(f"  {label} carries: {', '.join(archs)}")
    if n.compute:
        shown = ", ".join(f"{cc}{' (PTX JIT)' if k == 'ptx-jit' else ''}" for cc, k in n.compute)
        click.echo(f"  GPUs with compute capability: {shown}")
    for label, need in (("cuDNN SM floor", n.cudnn_min_sm), ("library SM floor", n.min_sm), ("glibc", n.glibc)):
        if need:
            click.echo(f"  {label}: {need.value}+  <- {need.why}")
    if n.glibc is None:
        click.echo("  glibc: unknown (no wheel platform tag in the input)")
    for u in n.unknown:
        click.echo(f"  unknown: {u}")
    c = sch.slurm_constraint(n)
    if c:
        click.echo(f'  slurm: --constraint="{c}"  (features named sm_XY; site-defined)')
