"""CuPy: one wheel per CUDA major (cupy-cuda12x, cupy-cuda13x). CuPy
compiles its kernels at run time with NVRTC, so a GPU must be a compile
target of that CUDA major, and the driver must run that major."""

from __future__ import annotations

import shlex

from gpudoctor.install import commands as cmd
from gpudoctor.install.candidates import Assessment, Blocker, Candidate
from gpudoctor.install.channels import Channels
from gpudoctor.install.plan import Install
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target
from gpudoctor.versions import compute_capability, cuda_version


def _lowest_target(matrices, cuda: str | None) -> str | None:
    """The oldest GPU that CUDA's compiler still targets ("7.5" for 13.x)."""
    ccs = [compute_capability(s) for s in matrices.arch_support(cuda)] if cuda else []
    ccs = [c for c in ccs if c]
    return str(min(ccs)) if ccs else None


def candidates(target: Target, matrices, channels: Channels, request: Request | None = None) -> list[Candidate]:
    pypi, gpu_platforms = channels.gpu_platforms("cupy")
    out = []
    for row in matrices.table("cupy", "package"):
        cuda = row.cuda_min or f"{row.cuda_major}.0"
        extras = [("package", row.package), ("cuda_major", str(row.cuda_major))]
        if row.ctk_extra_from:
            extras.append(("ctk_extra_from", row.ctk_extra_from))
        common = dict(framework="cupy", version=row.version_to or "latest", platform=target.platform,
                      source=row.source, version_range=(row.version_from, row.version_to), extras=tuple(extras))
        if target.cpu_only:
            out.append(Candidate(variant=row.package, **common, preset=(Blocker(
                "platform", "CuPy runs on NVIDIA (or AMD) GPUs only; there is no CPU build"),)))
            continue
        preset = ()
        if target.platform not in gpu_platforms:
            preset = (Blocker("platform", f"CuPy publishes wheels for {', '.join(gpu_platforms)} only"),)
        out.append(Candidate(variant=row.package, cuda=cuda, min_sm=_lowest_target(matrices, cuda), preset=preset,
                             **common))
    return out


def fallbacks(target: Target, request: Request, channels: Channels) -> list[str]:
    return []


def install_for(choice: Assessment, target: Target, request: Request, matrices, channels: Channels) -> Install:
    c = choice.candidate
    package = c.extra("package")
    major = c.extra("cuda_major")
    lo, hi = c.version_range or (None, None)
    bounds = [str(s) for s in request.spec]
    if request.spec:
        bounds += ([f">={lo}"] if lo else []) + ([f"<={hi}"] if hi else [])
    # [ctk] only where the wheel has it: pip ignores an unknown extra with a warning
    # and installs CuPy without the CUDA libraries it then fails to load.
    ctk_from = c.extra("ctk_extra_from")
    ctk = bool(ctk_from) and request.allows_range(ctk_from, hi)
    if ctk and request.spec:
        bounds.append(f">={ctk_from}")
    pin = f"{package}{'[ctk]' if ctk else ''}" + ",".join(dict.fromkeys(bounds))
    exe = target.python_executable
    conda = mamba = None
    note = "none: no conda channel for CuPy is recorded in gpudoctor's data"
    for row in channels.conda_commands:
        if row.framework == "cupy" and target.platform in row.platforms and not request.spec:
            argv = shlex.split(row.command.format(cuda_major=major))
            conda = cmd.join(argv, target.os)
            mamba = cmd.join(["mamba", *argv[1:]], target.os)
            note = f"{row.channel} (source: {row.source.split(' ')[0]})"
    commands = cmd.Commands(
        pip=cmd.pip_install([pin], target.os, python_executable=exe),
        uv=cmd.uv_pip_install([pin], target.os, python_executable=exe),
        uv_project=cmd.uv_project_snippet([pin], target.os, python=target.python_text),
        conda=conda, mamba=mamba, conda_note=note)
    if ctk:
        reasons = [f"{package} is CuPy's wheel for CUDA {major}.x; the [ctk] extra (CuPy {ctk_from}+) installs "
                   "the CUDA components from PyPI (without it CuPy needs a local CUDA Toolkit)"]
    else:
        reasons = [f"{package} is CuPy's wheel for CUDA {major}.x"]
    warnings = () if ctk else (
        f"{package} has no [ctk] extra{' in the requested releases' if ctk_from else ''}: it needs a local CUDA "
        f"Toolkit {c.cuda or major}+ (or conda-forge's cupy, which brings its own)",)
    if c.min_sm:
        reasons.append(f"CUDA {major}'s compiler (NVRTC) targets sm_{c.min_sm.replace('.', '')} and newer")
    cv = cuda_version(c.cuda)
    if cv and cv.major == 13:
        reasons.append("preferred over the CUDA 12 wheel: newest CUDA that this driver and these GPUs allow")
    return Install((pin,), commands, None, tuple(reasons), warnings)
