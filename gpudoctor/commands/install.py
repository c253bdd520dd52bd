"""`gpudoctor install FRAMEWORK [PACKAGES...]`: the exact install commands
that work on this machine, or on a described one."""

from __future__ import annotations

import re
import sys

import click

from gpudoctor.cli import InputError
from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, Printed, emit

_PY_VERSION = re.compile(r"^\s*3\.\d+(\.\d+)?\s*$")


def _this_machine(python_path: str | None, from_file: str | None):
    """The snapshot to plan for: a saved one, or this machine's probes."""
    from gpudoctor.commands.check import load_snapshot_file, probe

    return load_snapshot_file(from_file) if from_file else probe(python_path, deep=False, quiet=True)


@click.command()
@click.argument("framework")
@click.argument("packages", nargs=-1)
@click.option("--driver", metavar="VERSION", help="NVIDIA driver release of the machine, e.g. 535.104.05.")
@click.option("--gpu", "gpus", multiple=True, metavar="NAME", help="A GPU model, e.g. 'GeForce GTX 1080 Ti'. Repeatable.")
@click.option("--sm", "sms", multiple=True, metavar="X.Y", help="A GPU compute capability, e.g. 6.1. Repeatable.")
@click.option("--python", "python", metavar="3.X|PATH",
              help="Python version of the target (3.11), or an interpreter whose environment to probe.")
@click.option("--os", "os_name", metavar="linux|windows", help="Operating system of the described machine.")
@click.option("--arch", metavar="x86_64|aarch64", help="CPU architecture of the described machine.")
@click.option("--cpu", is_flag=True, help="The machine has no NVIDIA GPU: a CPU-only build.")
@click.option("--l4t", metavar="R36.4.3", help="A Jetson's L4T release (/etc/nv_tegra_release): the JetPack decides the wheels.")
@click.option("--version", "version", metavar="SPEC", help="Version request: '>=2.4', '2.5' or 'torch==2.5.1'.")
@click.option("--from", "from_file", metavar="SNAPSHOT.json", help="Plan for a saved snapshot instead of this machine.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("--verify", is_flag=True, help="Online: confirm on PyPI / the PyTorch index that the pinned files exist.")
@click.option("--debug", is_flag=True, hidden=True)
def install(framework, packages, driver, gpus, sms, python, os_name, arch, cpu, l4t, version, from_file, as_json,
            verify, debug):
    """Exact pip / uv / conda commands for FRAMEWORK (torch, tensorflow, jax, cupy) that work on this
    machine, or on one described with --driver/--gpu/--sm/--cpu. PACKAGES pairs companions
    (torchvision, torchaudio) with torch.

    Exit codes: 0 a working build exists, 1 none does, 2 bad input.
    """
    from gpudoctor.install import (
        TargetError,
        parse_request,
        plan_install,
        target_from_options,
        target_from_snapshot,
    )
    from gpudoctor.matrices import load_matrices

    matrices = load_matrices()
    python_version = python if python and _PY_VERSION.match(python) else None
    python_path = python if python and not python_version else None
    described = bool(driver or gpus or sms or cpu or l4t)
    try:
        request = parse_request(framework, tuple(packages), version)
        if described:
            if from_file or python_path:
                raise TargetError("describe a machine (--driver/--gpu/--sm/--cpu) or probe one "
                                  "(--from, --python PATH), not both")
            target = target_from_options(matrices, driver=driver, gpus=gpus, sms=sms, python=python_version,
                                         os_name=os_name, arch=arch or ("aarch64" if l4t else None), cpu=cpu,
                                         l4t=l4t)
        else:
            snapshot = _this_machine(python_path, from_file)
            target = target_from_snapshot(snapshot, matrices, python=python_version, os_name=os_name, arch=arch)
    except TargetError as exc:
        raise InputError(str(exc)) from None
    plan = plan_install(request, target, matrices)
    checks = None
    if verify and plan.ok:
        from gpudoctor.install.verify import verify_plan

        checks = verify_plan(plan)
    emit("install", "json" if as_json else "text", _views(plan, checks))
    failed = checks is not None and any(c.status == "missing" for c in checks)
    sys.exit(ExitCode.OK if plan.ok and not failed else ExitCode.FINDINGS)


def _views(plan, checks) -> dict:
    def as_json() -> str:
        from gpudoctor.render.json import dumps

        data = plan.to_dict()
        if checks is not None:
            data["verify"] = [c.as_dict() for c in checks]
        return dumps(data) + "\n"

    def text(console) -> None:
        from gpudoctor.install.render import render_plan

        render_plan(plan, console, checks)

    return {OutputFormat.JSON: as_json, OutputFormat.TEXT: Printed(text, soft_wrap=True)}
