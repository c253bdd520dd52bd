"""PyTorch: one candidate per (release, wheel variant) published for the
target platform, and the pip / uv / conda commands for the chosen one."""

from __future__ import annotations

from gpudoctor.install import commands as cmd
from gpudoctor.install.candidates import Assessment, Blocker, Candidate, preference
from gpudoctor.install.channels import Channels
from gpudoctor.install.checks import assess, newest_cudnn_row
from gpudoctor.install.plan import Install
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target
from gpudoctor.matrices import torch_series
from gpudoctor.versions import compute_capability, cuda_version, parse_numeric

INDEX = "https://download.pytorch.org/whl/{variant}"
PYPI = "https://pypi.org/"


def _vt(text: str | None) -> tuple[int, ...]:
    return parse_numeric(text) or ()


def is_pypi(url: str | None) -> bool:
    return bool(url) and url.startswith(PYPI)


def _from_build(b, common, target: Target | None = None) -> Candidate:
    extras = common.pop("extras", ())
    preset: tuple[Blocker, ...] = ()
    if b.index_kind != "index":
        extras = (*extras, ("index_kind", b.index_kind))
    if b.os_min:
        extras = (*extras, ("os_min", b.os_min))
        have = _vt(target.os_version) if target else ()
        if target is not None and have and have < _vt(b.os_min):
            preset = (Blocker("platform", f"its macOS wheels need macOS >= {b.os_min} (this one: {target.os_version})",
                              f"macOS >= {b.os_min}"),)
    return Candidate(variant=b.variant, source=b.source, cuda=b.cuda, arch_list=tuple(b.arch_list) or None,
                     cudnn=b.cudnn, pypi_default=b.pypi_default or is_pypi(b.index_url),
                     index_url=b.index_url or INDEX.format(variant=b.variant), extras=extras, preset=preset,
                     **common)


def jetson_blocker(target: Target, channels: Channels) -> Blocker | None:
    """On a Jetson (an L4T release gpudoctor knows), PyPI's and download.pytorch.org's
    aarch64 CUDA wheels are SBSA (server) builds that do not run on its integrated GPU."""
    row = channels.jetson_release(target.l4t) if target.arch == "aarch64" else None
    if row is None:
        return None
    return Blocker("platform", f"a server (SBSA) aarch64 build: it does not run on Jetson (L4T R{target.l4t}, "
                               f"JetPack {row.jetpack})", f"NVIDIA's Jetson wheels for JetPack {row.jetpack}")


def _release_candidates(rel, target: Target, matrices, channels: Channels) -> list[Candidate]:
    builds = matrices.torch_builds_of(rel.version, target.platform)
    companions = tuple((k, v) for k, v in (("torchvision", rel.torchvision), ("torchaudio", rel.torchaudio)) if v)
    common = dict(framework="torch", version=rel.version, platform=target.platform,
                  python_min=rel.python_min, python_max=rel.python_max, extras=companions)
    if target.cpu_only:
        cpu = [_from_build(b, dict(common), target) for b in builds if b.variant == "cpu"]
        if cpu:
            return cpu
        index = channels.cpu_index_for("torch", target.platform)
        if index is not None:
            return [Candidate(variant="cpu", source=index.source, index_url=index.index_url, **common)]
        return [Candidate(variant="-", source=rel.source, **common,
                          preset=(Blocker("platform", f"no CPU wheels of torch {rel.version} for {target.platform}"),))]
    cuda_builds = [b for b in builds if b.cuda and b.variant.startswith("cu")]
    if not cuda_builds:
        return [Candidate(variant="-", source=rel.source, **common,
                          preset=(Blocker("platform", f"no CUDA wheels of torch {torch_series(rel.version)} "
                                                      f"for {target.platform}"),))]
    jetson = jetson_blocker(target, channels)
    out = [_from_build(b, dict(common), target) for b in cuda_builds]
    if jetson is not None:
        from dataclasses import replace
        out = [replace(c, preset=(*c.preset, jetson)) for c in out]
    return out


def candidates(target: Target, matrices, channels: Channels, request: Request | None = None) -> list[Candidate]:
    out: list[Candidate] = []
    for rel in matrices.torch_releases:
        out += _release_candidates(rel, target, matrices, channels)
    return out


def fallbacks(target: Target, request: Request, channels: Channels) -> list[str]:
    row = channels.jetson_release(target.l4t) if target.arch == "aarch64" else None
    if row is not None:
        where = (f"pip install torch --index-url {row.torch_index}" if row.torch_index and "jetson-ai-lab" in row.torch_index
                 else f"a wheel from {row.torch_index}" if row.torch_index else "NVIDIA's Jetson wheels")
        tips = [f"Jetson, JetPack {row.jetpack} (L4T R{target.l4t}, CUDA {row.cuda}, Python {row.python}): "
                f"{where} (torch {', '.join(row.torch_versions)}; source: {row.source.split(' ')[0]})"]
        if row.container:
            tips.append(f"or NVIDIA's container for this JetPack: docker run --runtime nvidia -it {row.container}")
        tips.append("conda-forge's CUDA builds of pytorch have no sm_87 kernels for Orin "
                    "(conda-forge/pytorch-cpu-feedstock#303)")
        return tips
    if not target.cpu_only and channels.cpu_index_for("torch", target.platform):
        return ["a CPU-only build works anywhere: gpudoctor install torch --cpu"]
    return []


def _local_tag(c: Candidate, channels: Channels) -> str | None:
    """`+cu126` pins make pip replace an installed build of the same version
    from another index (a bare ==2.9.1 is satisfied by 2.9.1+cu130). PyPI's
    own wheels carry no local label."""
    if not c.index_url or is_pypi(c.index_url):
        return None
    if c.variant.startswith("cu"):
        return c.variant
    index = channels.cpu_index_for("torch", c.platform)
    if c.variant == "cpu" and index and c.platform in index.local_tag_platforms:
        return "cpu"
    return None


def _pins(c: Candidate, request: Request, channels: Channels) -> tuple[list[str], list[str], list[str], list[str]]:
    """(pip requirements, public pins for a uv project, reasons, warnings)."""
    local = _local_tag(c, channels)
    tag = f"+{local}" if local else ""
    pins, public, reasons, warnings = [f"torch=={c.version}{tag}"], [f"torch=={c.version}"], [], []
    for name in request.companions:
        ver = c.extra(name)
        if not ver:
            pins.append(name)
            public.append(name)
            warnings.append(f"{name}: gpudoctor's data has no pairing for torch {c.version}; left unpinned "
                            f"(its wheels pin torch exactly, so the resolver pairs it)")
            continue
        stale = name == "torchaudio" and torch_series(ver) != torch_series(c.version)
        pins.append(f"{name}=={ver}" + ("" if stale else tag))
        public.append(f"{name}=={ver}")
        reasons.append(f"{name} {ver} is the release paired with torch {c.version}")
        if stale:
            warnings.append(f"torchaudio was not re-released for torch {torch_series(c.version)}; "
                            f"{ver} is the pairing the data gives")
    return pins, public, reasons, warnings


def _pytorch_channel(c: Candidate, request: Request, channels: Channels, target: Target):
    series = _vt(torch_series(c.version))
    for ch in channels.conda:
        if ch.framework != "torch" or c.platform not in ch.platforms:
            continue
        if not (_vt(ch.series_from) <= series <= _vt(ch.series_to)):
            continue
        specs = [f"{ch.package}=={c.version}"] + [f"{n}=={c.extra(n)}" if c.extra(n) else n
                                                   for n in request.companions]
        deps = {ch.package: f"=={c.version}", **{n: f"=={c.extra(n)}" if c.extra(n) else "*"
                                                  for n in request.companions}}
        if c.cuda and ch.cuda_package:
            specs.append(f"{ch.cuda_package}={c.cuda}")
            deps[ch.cuda_package] = f"{c.cuda}.*"
        elif c.variant == "cpu" and ch.cpu_package:
            specs.append(ch.cpu_package)
            deps[ch.cpu_package] = "*"
        chans = [ch.channel, *ch.extra_channels]
        cu = cuda_version(c.cuda)
        return (cmd.conda_install("conda", specs, chans, target.os), cmd.conda_install("mamba", specs, chans, target.os),
                cmd.pixi_snippet(chans, deps, cu.major if cu else None, c.platform),
                f"the official '{ch.channel}' channel (it carries torch {ch.series_from} to {ch.series_to}; "
                f"source: {ch.source.split(' ')[0]})")
    return None


def _conda_forge(choice: Assessment, request: Request, target: Target, matrices, channels: Channels):
    rows = [r for r in channels.conda_forge if r.framework == "torch" and r.platform == target.platform
            and ((r.cuda is None) == target.cpu_only)]
    if not rows:
        return None, "no conda-forge build gpudoctor knows for this platform"
    judged = []
    for r in rows:
        preset = ()
        cu = cuda_version(r.cuda)
        newest = newest_cudnn_row(None, matrices, cu.major) if cu else None
        floor = compute_capability(newest.min_sm) if newest else None
        if floor and any(g.cc < floor for g in target.gpus):
            preset = (Blocker("cudnn", f"conda-forge links whichever cuDNN 9 the solver picks; cuDNN "
                                       f"{newest.version_from} and newer need {floor.sm}+"),)
        cand = Candidate(framework="torch", version=r.version, variant=f"cu{cu.major}{cu.minor}" if cu else "cpu",
                         platform=r.platform, source=r.source, cuda=r.cuda, python_min=r.python_min,
                         python_max=r.python_max, arch_list=tuple(r.arch_list) or None, preset=preset,
                         extras=(("package", r.package),))
        judged.append(assess(cand, target, request, matrices))
    working = [a for a in judged if a.works]
    if not working:
        best = max(judged, key=preference)
        return None, (f"conda-forge {best.candidate.extra('package')} {best.candidate.version} "
                      f"({best.candidate.variant}) does not fit: {best.blocker_text()}")
    a = max(working, key=preference)
    c = a.candidate
    package = c.extra("package")
    specs = [f"{package}=={c.version}", *request.companions]
    cu = cuda_version(c.cuda)
    if cu:
        specs.append(f"cuda-version={cu}")
    deps = {package: f"=={c.version}", **{n: "*" for n in request.companions}}
    if cu:
        deps["cuda-version"] = f"{cu}.*"
    differs = "" if c.version == choice.candidate.version else " (a different release than the pip command)"
    note = (f"conda-forge {package} {c.version}{' with CUDA ' + str(cu) if cu else ''}{differs}; the official "
            f"pytorch channel ended with 2.5. Source: {c.source.split(' ')[0]}")
    return (cmd.conda_install("conda", specs, ["conda-forge"], target.os),
            cmd.conda_install("mamba", specs, ["conda-forge"], target.os),
            cmd.pixi_snippet(["conda-forge"], deps, cu.major if cu else None, c.platform), note), None


def install_for(choice: Assessment, target: Target, request: Request, matrices, channels: Channels) -> Install:
    c = choice.candidate
    pins, public, reasons, warnings = _pins(c, request, channels)
    exe = target.python_executable
    pypi = is_pypi(c.index_url)
    index_url = None if pypi else c.index_url
    uv_backend = c.variant if index_url and c.variant in channels.uv_backends() else None
    local = _local_tag(c, channels)
    pip_args, uv_args = list(pins), list(pins)
    same = request.replaces and request.replaces.split("+", 1)[0] == c.version
    if same and not local:
        # Nothing in a bare ==X pin tells pip that an installed X+cu130 is the wrong build.
        pip_args.insert(0, "--force-reinstall")
        for name in ("torch", *request.companions):
            uv_args[:0] = ["--reinstall-package", name]
    kind = c.extra("index_kind") or "index"
    pip = cmd.pip_install(pip_args, target.os, index_url=index_url, python_executable=exe, index_kind=kind)
    uv = cmd.uv_pip_install(uv_args, target.os, torch_backend=uv_backend if kind == "index" else None,
                            index_url=index_url, python_executable=exe, index_kind=kind)
    project = cmd.uv_project_snippet(public, target.os, python=target.python_text or c.python_min,
                                     index_name=f"pytorch-{c.variant}" if index_url else None,
                                     index_url=index_url, from_index=("torch", *request.companions),
                                     index_kind=kind)
    conda = _pytorch_channel(c, request, channels, target)
    if conda is None:
        conda, why_none = _conda_forge(choice, request, target, matrices, channels)
        if conda is None:
            conda = (None, None, None, f"none: the official pytorch channel ended with 2.5 "
                                       f"(pytorch/pytorch#138506); {why_none}")
    commands = cmd.Commands(pip=pip, uv=uv, uv_project=project, conda=conda[0], mamba=conda[1], pixi=conda[2],
                            conda_note=conda[3])
    if pypi:
        reasons.insert(0, f"the PyPI default build for {c.platform} ({c.variant}): a plain "
                          f"`pip install torch=={c.version}` gets exactly this wheel")
    if c.python_min and c.python_max:
        reasons.append(f"torch {c.version} is published for Python {c.python_min}–{c.python_max}")
    if c.extra("os_min") and c.platform.startswith("macos"):
        line = f"torch {c.version}'s macOS wheels need macOS {c.extra('os_min')} or newer"
        (reasons if target.os_version else warnings).append(
            line + (f" (this one: {target.os_version})" if target.os_version else "; older macOS: torch 2.11"
                    if _vt(c.extra("os_min")) >= (14,) else ""))
    if local:
        reasons.append(f"the +{local} pin makes pip replace an installed torch {c.version} of another build "
                       "(another CUDA, or CPU)")
    elif pypi and target.origin != "described" and not same and request.replaces is None:
        # Only a real environment can hold another build; a described machine has none.
        warnings.append(f"if another build of torch {c.version} (from download.pytorch.org) is installed, it "
                        "already satisfies this pin: add --force-reinstall to replace it")
    if uv_backend is None and index_url:
        warnings.append(f"uv {channels.uv_version()} has no --torch-backend={c.variant}: the uv command uses the index")
    return Install(tuple(pins), commands, c.index_url, tuple(reasons), tuple(warnings))
