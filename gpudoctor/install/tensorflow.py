"""TensorFlow: `tensorflow[and-cuda]==X` on Linux x86_64 (from 2.14), the
native-Windows GPU builds (up to 2.10, CUDA from conda-forge), and older
Linux releases that need a system CUDA."""

from __future__ import annotations

from gpudoctor.install import commands as cmd
from gpudoctor.install.candidates import Assessment, Blocker, Candidate, version_key
from gpudoctor.install.channels import Channels
from gpudoctor.install.plan import Install
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target
from gpudoctor.versions import cuda_version

CONDA_NOTE = ("none: TensorFlow publishes no conda package of its own; conda-forge's tensorflow builds are not "
              "tracked by gpudoctor")


def _version_of(rel, request: Request) -> str:
    """The newest patch release of the series the request allows."""
    releases = sorted(getattr(rel, "releases", ()) or (), key=version_key, reverse=True)
    for v in releases:
        if request.allows(v):
            return v
    return releases[0] if releases else rel.version


def candidates(target: Target, matrices, channels: Channels, request: Request | None = None) -> list[Candidate]:
    request = request or Request("tensorflow")
    pypi, gpu_platforms = channels.gpu_platforms("tensorflow")
    out = []
    for rel in matrices.table("tensorflow", "release"):
        version = _version_of(rel, request)
        common = dict(framework="tensorflow", version=version, platform=target.platform, source=rel.source,
                      python_min=rel.python_min, python_max=rel.python_max)
        if target.cpu_only:
            out.append(Candidate(variant="cpu", **common))
            continue
        major = cuda_version(rel.cuda).major if cuda_version(rel.cuda) else None
        gpu = dict(cuda=rel.cuda, arch_list=tuple(rel.arch_list) or None,
                   extras=(("package", rel.gpu_package),) if rel.gpu_package else (), **common)
        if target.platform == "windows-x86_64" and rel.windows_native_gpu:
            out.append(Candidate(variant="windows-native", cudnn=rel.cudnn, **gpu))
        elif target.platform == "windows-x86_64":
            out.append(Candidate(variant="-", **common, preset=(Blocker(
                "platform", f"TensorFlow {version} has no GPU build for native Windows (it ended after 2.10)",
                "WSL2 (Linux wheels), or TensorFlow <= 2.10 with Python <= 3.10"),)))
        elif target.platform not in gpu_platforms:
            where = ", ".join(gpu_platforms) or "no platform"
            out.append(Candidate(variant="-", **common, preset=(Blocker(
                "platform", f"TensorFlow publishes GPU builds for {where} only"
                            + (f" (source: {pypi.source.split(' ')[0]})" if pypi else "")),)))
        elif rel.and_cuda_extra:
            out.append(Candidate(variant="and-cuda", cudnn_floor=getattr(rel, "and_cuda_cudnn", None) or rel.cudnn,
                                 cudnn_package=f"nvidia-cudnn-cu{major}" if major else None, **gpu))
        else:
            out.append(Candidate(variant="system-cuda", cudnn=rel.cudnn, **gpu))
    return out


def fallbacks(target: Target, request: Request, channels: Channels) -> list[str]:
    if target.os == "windows":
        return ["WSL2: TensorFlow's Linux wheels (`tensorflow[and-cuda]`) with the Windows driver"]
    return []


def install_for(choice: Assessment, target: Target, request: Request, matrices, channels: Channels) -> Install:
    c = choice.candidate
    exe = target.python_executable
    reasons = [f"tensorflow {c.version} is tested with CUDA {c.cuda} and cuDNN "
               f"{c.cudnn or c.cudnn_floor} (tensorflow.org build configurations)"] if c.cuda else []
    warnings: list[str] = []
    setup: tuple[str, ...] = ()
    pin = f"=={c.version}.*" if c.version.count(".") == 1 else f"=={c.version}"  # a series when no patch is known
    if c.variant == "and-cuda":
        pins = [f"tensorflow[and-cuda]{pin}", *choice.constraints]
        reasons.append("the [and-cuda] extra installs CUDA and cuDNN from PyPI (nvidia-* wheels)")
    elif c.variant == "windows-native":
        pins = [f"{c.extra('package') or 'tensorflow'}{pin}"]
        setup = (cmd.conda_install("conda", [f"cudatoolkit={c.cuda}", f"cudnn={c.cudnn}"], ["conda-forge"],
                                   target.os),)
        reasons.append("native-Windows GPU support ended after 2.10; CUDA and cuDNN come from conda-forge "
                       "(tensorflow.org pip instructions for Windows)")
    else:
        package = c.extra("package") or "tensorflow"  # tensorflow-gpu up to 2.0
        pins = [f"{package}{pin}"]
        if package != "tensorflow":
            reasons.append(f"up to 2.0 the GPU build is the `{package}` package; `tensorflow` {c.version} is CPU-only")
        if c.variant == "system-cuda":
            warnings.append(f"tensorflow {c.version} predates the [and-cuda] extra: it needs CUDA {c.cuda} and "
                            f"cuDNN {c.cudnn} installed on the system")
    commands = cmd.Commands(
        pip=cmd.pip_install(pins, target.os, python_executable=exe),
        uv=cmd.uv_pip_install(pins, target.os, python_executable=exe),
        uv_project=cmd.uv_project_snippet(pins, target.os, python=target.python_text or c.python_min),
        conda_note=CONDA_NOTE, setup=setup)
    if c.python_min and c.python_max:
        reasons.append(f"tensorflow {c.version} supports Python {c.python_min}–{c.python_max}")
    return Install(tuple(pins), commands, None, tuple(reasons), tuple(warnings))
