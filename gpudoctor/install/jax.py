"""JAX: `jax[cuda13]` or `jax[cuda12]` (plugin wheels with the NVIDIA pip
packages), each with its documented driver and SM floors."""

from __future__ import annotations

from gpudoctor.install import commands as cmd
from gpudoctor.install.candidates import Assessment, Blocker, Candidate
from gpudoctor.install.channels import Channels
from gpudoctor.install.plan import Install
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target

CONDA_NOTE = ("none: JAX's GPU builds are pip wheels; conda-forge's jaxlib CUDA builds are not tracked by gpudoctor")
EXTRAS = ("cuda13", "cuda12")
# Before the plugin wheels (jax <= 0.4.25) the CUDA jaxlib came from Google's find-links page.
PIP_EXTRAS = ("cuda12_pip", "cuda11_pip")
JAX_CUDA_RELEASES = "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"


def _pick_version(row, request: Request) -> str:
    """The release to pin: the newest the row knows, else an exact request."""
    exact = [s.version for s in request.spec if s.operator in ("==", "===") and "*" not in s.version]
    for v in (row.version_to, *exact, row.version_from):
        if v and request.allows(v) and request.allows_range(row.version_from, row.version_to):
            if v in exact and not Request(request.framework, request.spec).allows_range(v, v):
                continue
            return v
    return row.version_to or row.version_from


def candidates(target: Target, matrices, channels: Channels, request: Request | None = None) -> list[Candidate]:
    request = request or Request("jax")
    pypi, gpu_platforms = channels.gpu_platforms("jax")
    out = []
    for row in matrices.table("jax", "release"):
        common = dict(framework="jax", version=_pick_version(row, request), platform=target.platform,
                      source=row.source, python_min=row.python_min,
                      version_range=(row.version_from, row.version_to))
        if target.cpu_only:
            out.append(Candidate(variant="cpu", **common))
            continue
        if target.platform not in gpu_platforms:
            out.append(Candidate(variant="-", **common, preset=(Blocker(
                "platform", f"JAX publishes NVIDIA GPU wheels for {', '.join(gpu_platforms) or 'no platform'} only",
                "WSL2 (experimental in JAX's docs) or a Linux machine" if target.os == "windows" else None),)))
            continue
        for extra in EXTRAS:
            if extra not in row.extras:
                continue
            major = extra.removeprefix("cuda")
            out.append(Candidate(
                variant=extra,
                cuda=getattr(row, f"cuda{major}_min") or f"{major}.0",
                min_sm=getattr(row, f"min_sm_cuda{major}"),
                min_driver=getattr(row, f"min_driver_cuda{major}"),
                cudnn_floor=(getattr(row, "cudnn13_min", None) or row.cudnn_min) if major == "13" else row.cudnn_min,
                cudnn_package=f"nvidia-cudnn-cu{major}", **common))
        for extra in PIP_EXTRAS:
            major = extra[4:6]
            if extra not in row.extras or f"cuda{major}" in row.extras:
                continue  # the plugin extra of that major supersedes it
            out.append(Candidate(
                variant=extra,
                cuda=getattr(row, f"cuda{major}_min") or f"{major}.0",
                min_sm=row.min_sm_cuda12,
                min_driver=getattr(row, f"min_driver_cuda{major}"),
                cudnn_floor=row.cudnn11_min if major == "11" else row.cudnn_min,
                cudnn_package=f"nvidia-cudnn-cu{major}", extras=(("find_links", JAX_CUDA_RELEASES),), **common))
    return out


def fallbacks(target: Target, request: Request, channels: Channels) -> list[str]:
    return ["a CPU-only JAX: gpudoctor install jax --cpu"] if not target.cpu_only else []


def _requirement(c: Candidate, request: Request) -> str:
    name = "jax" if c.variant == "cpu" else f"jax[{c.variant}]"
    if request.allows(c.version):
        return f"{name}=={c.version}"
    lo, hi = c.version_range or (None, None)
    bounds = [str(s) for s in request.spec] + ([f">={lo}"] if lo else []) + ([f"<={hi}"] if hi else [])
    return name + ",".join(bounds)


def install_for(choice: Assessment, target: Target, request: Request, matrices, channels: Channels) -> Install:
    c = choice.candidate
    pins = [_requirement(c, request), *choice.constraints]
    exe = target.python_executable
    reasons = []
    if c.variant != "cpu":
        if c.variant.endswith("_pip"):
            reasons.append(f"jax[{c.variant}] installs a CUDA {c.variant[4:6]} jaxlib and the NVIDIA libraries "
                           "from PyPI (the form before the plugin wheels)")
        else:
            reasons.append(f"jax[{c.variant}] installs jaxlib with the CUDA {c.variant.removeprefix('cuda')} plugin "
                           "and the NVIDIA libraries from PyPI")
        if c.min_sm:
            reasons.append(f"JAX documents sm_{c.min_sm.replace('.', '')}+ for {c.variant}")
    links = c.extra("find_links")
    if links:
        reasons.append(f"jax <= 0.4.25 CUDA wheels come from Google's page {links} (installation docs of the time)")
    commands = cmd.Commands(
        pip=cmd.pip_install(pins, target.os, python_executable=exe, index_url=links,
                            index_kind="find-links-page" if links else "index"),
        uv=cmd.uv_pip_install(pins, target.os, python_executable=exe, index_url=links,
                              index_kind="find-links-page" if links else "index"),
        uv_project=cmd.uv_project_snippet(pins, target.os, python=target.python_text or c.python_min,
                                          index_name="jax-cuda-releases" if links else None, index_url=links,
                                          from_index=("jaxlib",) if links else (), index_kind="find-links-page"),
        conda_note=CONDA_NOTE)
    return Install(tuple(pins), commands, None, tuple(reasons), ())
