"""From what a file says to the builds a fresh install gets: torch by pin,
local version, index URL or the platform's PyPI default (the install
engine's data: torch.toml), conda builds by their CUDA package, images by
their tag, companions by their pairing rows; all put into a Snapshot of the
target machine for the check rules."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from gpudoctor.lint.model import Req, Source, wheel_platform_tags
from gpudoctor.matrices import companion_queries as q
from gpudoctor.probes.companions import KNOWN as COMPANIONS
from gpudoctor.snapshot import Companion, Fact, Framework, Snapshot
from gpudoctor.versions import python_version

_INDEX_VARIANT = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(cu\d+|cpu|rocm[\d.]+|xpu)(?:/|$)")
_CUDA_TAG = re.compile(r"cuda[_-]?(\d{2})\.?(\d)?")  # conda-forge "cuda126_...", pytorch channel "cuda12.4_cudnn9.1.0_0"
_CUDNN_TAG = re.compile(r"cudnn(\d+\.\d+\.\d+)")


@dataclass(frozen=True)
class Resolved:
    """One framework or companion build a file resolves to."""

    name: str
    version: str | None
    build: str  # "cu126" | "cpu" | "cuda 12.4 (conda)" | "unknown"
    how: str  # how it was decided
    line: int | None
    source: str = ""  # the matrix row behind it
    file: str | None = None  # the file that line is in, when not the one linted (an include)


@dataclass
class Resolution:
    """What a fresh install from a file gets: the Snapshot to judge, its builds, and the line
    (and include file) each subject came from."""

    snapshot: Snapshot
    builds: list[Resolved] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)  # subject name -> line
    files: dict[str, str] = field(default_factory=dict)  # subject name -> file, when an include
    notes: list[str] = field(default_factory=list)


def _exact(spec: str) -> str | None:
    m = re.fullmatch(r"===?\s*([\w.+!-]+)", spec.strip())
    return m.group(1) if m and "*" not in m.group(1) else None


def _pick_release(m, spec: str, python: tuple[int, int] | None, variant: str | None = None,
                  platform: str = "linux-x86_64") -> str | None:
    """The newest torch release in the data that `spec` admits (and the Python supports).
    With an index's variant, the newest that index has a build of (cu121 stops at 2.5):
    the resolver only sees what the index serves. Without build rows for it, any release."""
    try:
        wanted = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    admitted = [rel.version for rel in m.torch_releases
                if wanted.contains(Version(rel.version), prereleases=True)
                and not (python and not (python_version(rel.python_min) <= python <= python_version(rel.python_max)))]
    served = [v for v in admitted if variant and m.torch_build(v, variant, platform, pypi=False)]
    pool = served or admitted
    return max(pool, key=Version) if pool else None


def variant_of_index(url: str | None) -> str | None:
    m = _INDEX_VARIANT.search(url or "")
    return m.group(1) if m else None


def _where(src: Source, req: Req) -> str:
    return f"{req.file or src.path}:{req.line}"


def _torch_pip(src: Source, req: Req, m, platform: str, python) -> tuple[Framework | None, Resolved]:
    exact = _exact(req.spec)
    index = req.index or next((u for u, _ in src.indexes if variant_of_index(u)), None)
    version = exact.split("+", 1)[0] if exact else _pick_release(m, req.spec, python, variant_of_index(index),
                                                                  platform)
    where = _where(src, req)
    if version is None:
        return None, Resolved("torch", None, "unknown", f"no torch release in gpudoctor's data matches "
                                                        f"'{req.spec or '*'}'", req.line, file=req.file)
    local = exact.split("+", 1)[1] if exact and "+" in exact else None
    if local:
        variant, how = local, f"local version +{local}"
    elif variant_of_index(index):
        variant, how = variant_of_index(index), f"index {index}"
    else:
        row = m.torch_pypi_build(version, platform)
        variant, how = (row.variant if row else None), f"the PyPI default for {platform}"
    how = f"{'pinned ' + version if exact else 'newest release matching ' + repr(req.spec or '*')}, {how}"
    if variant is None:
        return None, Resolved("torch", version, "unknown", how + ": no PyPI wheel data", req.line, file=req.file)
    row = m.torch_build(version, variant, platform, pypi=None if local or variant_of_index(index) is None else False)
    label = version if (row and row.pypi_default and not local) else f"{version}+{variant}"
    kind = "cpu" if variant == "cpu" else "rocm" if variant.startswith("rocm") else "xpu" if variant == "xpu" else "cuda"
    src_text = f"{where} ({how})"
    if row is None:
        cuda = f"{variant[2:-1]}.{variant[-1]}" if kind == "cuda" and variant[2:].isdigit() else None
        fw = Framework("torch", version=Fact(label, src_text), build=Fact(kind, src_text),
                       cuda=Fact(cuda, src_text if cuda else ""),
                       arch_list=Fact(None, "", (f"no torch {version} {variant} build for {platform} in the data",)))
        return fw, Resolved("torch", version, variant, how + " (build not in gpudoctor's data)", req.line,
                            file=req.file)
    wheel = target_wheel(req, platform)
    tags = wheel_platform_tags(wheel) if wheel else ()
    fw = Framework("torch", version=Fact(label, src_text), build=Fact(kind, src_text),
                   wheel_platform=Fact(tags[-1], f"{where} wheel {wheel.rsplit('/', 1)[-1]}") if tags else Fact(),
                   cuda=Fact(row.cuda, row.source if row.cuda else ""), cudnn=Fact(row.cudnn, row.source),
                   nccl=Fact(row.nccl, row.source), arch_list=Fact(tuple(row.arch_list) or None, row.source))
    return fw, Resolved("torch", version, variant, how, req.line, row.source, file=req.file)


def _torch_conda(src: Source, req: Req) -> tuple[Framework, Resolved]:
    where = _where(src, req)
    version = (_exact(req.spec) or "").rstrip(".*") or None
    cuda = None
    cuda_req = src.find("pytorch-cuda", "cuda-version", "cudatoolkit", "cuda-toolkit")
    tag = _CUDA_TAG.search(req.build or "")
    if tag:
        cuda, how = f"{tag.group(1)}.{tag.group(2) or 'x'}", f"build string {req.build}"
    elif cuda_req is not None and cuda_req.spec:
        cuda = re.sub(r"[^\d.]", "", cuda_req.spec).rstrip(".") or None
        how = f"{cuda_req.name} {cuda_req.spec} (line {cuda_req.line})"
    else:
        how = "no CUDA package or build string"
    cpu = req.name == "pytorch-cpu" or "cpu" in (req.build or "")
    cudnn_req = src.find("cudnn")
    cudnn_tag = _CUDNN_TAG.search(req.build or "")
    cudnn = (Fact(cudnn_tag.group(1), f"{where} build string") if cudnn_tag else
             Fact(_exact(cudnn_req.spec), f"{src.path}:{cudnn_req.line}") if cudnn_req and _exact(cudnn_req.spec)
             else Fact())
    kind = "cpu" if cpu else "cuda" if cuda or req.name == "pytorch-gpu" else None
    fw = Framework("torch", version=Fact(version, where) if version else Fact(None, "", (f"{where}: no exact version",)),
                   build=Fact(kind, f"{where} ({how})") if kind else Fact(None, "", (f"{where}: {how}",)),
                   cuda=Fact(cuda, f"{where} ({how})") if cuda and not cpu else Fact(None, "", (how,)),
                   cudnn=cudnn if not cpu else Fact(),
                   arch_list=Fact(None, "", ("conda builds: arch list not in gpudoctor's data",)))
    return fw, Resolved("torch", version, "cpu" if cpu else f"cuda {cuda} (conda)" if cuda else "unknown",
                        f"conda {req.name}: {how}", req.line)


_NVIDIA_CUDA = re.compile(r"^(?:docker\.io/)?nvidia/cuda:(\d+\.\d+)(?:\.\d+)?-")
_PYTORCH_IMAGE = re.compile(r"^(?:docker\.io/)?pytorch/pytorch:(\d+\.\d+\.\d+)-cuda(\d+)\.(\d+)-cudnn\d+-(?:runtime|devel)")
_NGC = re.compile(r"^(nvcr\.io/nvidia/pytorch):(\d+\.\d+)-py3")


def _image(src: Source, m, platform: str, python, res: Resolution) -> Framework | None:
    """The final stage's base image: its CUDA floor, and the torch it carries."""
    if not src.images:
        return None
    ref = src.images[-1]
    where = f"{src.path}:{ref.line} FROM {ref.ref}"
    res.lines["image"] = ref.line
    res.snapshot = dataclasses.replace(res.snapshot, system=dataclasses.replace(
        res.snapshot.system, image=Fact(ref.ref, where)))
    if (hit := _NVIDIA_CUDA.match(ref.ref)):
        res.snapshot = dataclasses.replace(res.snapshot, system=dataclasses.replace(
            res.snapshot.system, image_require_cuda=Fact(hit.group(1), f"{where} (NVIDIA_REQUIRE_CUDA cuda>={hit.group(1)})")))
        res.builds.append(Resolved("image", hit.group(1), f"CUDA {hit.group(1)}", "nvidia/cuda tag", ref.line))
        return None
    if (hit := _PYTORCH_IMAGE.match(ref.ref)):
        req = Req("torch", f"=={hit.group(1)}+cu{hit.group(2)}{hit.group(3)}", ref.line)
        fw, resolved = _torch_pip(src, req, m, platform, python)
        res.builds.append(dataclasses.replace(resolved, how=f"image tag {ref.ref}"))
        return fw
    if (hit := _NGC.match(ref.ref)):
        row = q.image(m, hit.group(1), hit.group(2))
        if row is None:
            res.notes.append(f"line {ref.line}: {ref.ref}: this NGC tag is not in gpudoctor's data")
            return None
        return _ngc(row, ref, where, res)
    res.notes.append(f"line {ref.line}: base image {ref.ref} carries no framework gpudoctor knows")
    return None


def _ngc(row, ref, where: str, res: Resolution) -> Framework:
    """An NGC framework image: the torch inside it, and what its release notes require of
    the host (driver floor with its data-center branches, SM floor) as image facts."""
    why = f"{where} ({row.source})"
    system = res.snapshot.system
    system = dataclasses.replace(
        system,
        image_driver_floor=Fact(row.min_driver_linux, why) if row.min_driver_linux else system.image_driver_floor,
        image_datacenter_drivers=(Fact(tuple(row.datacenter_drivers), why) if row.datacenter_drivers
                                  else system.image_datacenter_drivers),
        image_min_sm=Fact(row.min_sm, why) if row.min_sm else system.image_min_sm,
        python=(Fact(row.python, why) if row.python and not system.python.known else system.python))
    res.snapshot = dataclasses.replace(res.snapshot, system=system)
    fw = Framework("torch", version=Fact(row.framework_version, row.source) if row.framework_version else
                   Fact(None, "", ("NGC release notes row has no framework version",)),
                   location=ref.ref,  # inside the image: its release notes, not the CUDA alone, set its floor
                   build=Fact("cuda", row.source), cuda=Fact(row.cuda, row.source),
                   cudnn=Fact(row.cudnn, row.source) if row.cudnn else Fact(),
                   arch_list=Fact(None, "", ("NGC images: the arch list is not in the release notes",)))
    res.builds.append(Resolved("torch", row.framework_version, f"CUDA {row.cuda} (NGC {row.tag})",
                               f"image {ref.ref}", ref.line, row.source))
    return fw


def _companion(src: Source, req: Req, torch: Framework | None, m) -> Companion:
    where = _where(src, req)
    exact = _exact(req.spec)
    version = Fact(exact, where) if exact else Fact(None, "", (f"{where}: not pinned; the resolver pairs it",))
    fields: dict = {}
    if exact:
        public = exact.split("+", 1)[0]
        paired = [rel for rel in m.torch_releases if getattr(rel, req.name, None) == public] \
            if req.name in ("torchvision", "torchaudio") else []
        if paired:
            # torchaudio 2.11.0 paired with torch 2.11-2.13 (no newer torchaudio): a range, not a pin.
            versions = sorted((Version(rel.version) for rel in paired))
            spec = f"=={versions[0]}" if len(versions) == 1 else f">={versions[0]},<={versions[-1]}"
            fields["requires_framework"] = Fact(spec, paired[0].source)
        elif (row := q.pin(m, req.name, public)) is not None:
            fields["requires_framework"] = Fact(row.requires, row.source)
        local = exact.split("+", 1)[1] if "+" in exact else variant_of_index(
            req.index or next((u for u, _ in src.indexes if variant_of_index(u)), None))
        if local:
            fields["build_tag"] = Fact(local, where)
    if req.name in ("triton", "pytorch-triton") and torch is not None and torch.version.known:
        row = q.framework_pin(m, "torch", torch.version.value, "triton")
        if row is not None:
            fields["pinned_by_framework"] = Fact(row.requires, row.source)
    return Companion(req.name, COMPANIONS[req.name], version=version, **fields)


def _gpu_libraries(src: Source) -> list[tuple[Framework, Req]]:
    """RAPIDS (cudf-cu12...) and CuPy (cupy-cuda12x) requirements, with their lines."""
    out = []
    for req in src.reqs:
        hit = q.RAPIDS_DIST.fullmatch(req.name)
        name, major = (hit.group(1), hit.group(2)) if hit else (None, None)
        if req.name.startswith("cupy-cuda"):
            name, major = "cupy", re.match(r"cupy-cuda(\d\d)", req.name).group(1)
        if name is None:
            continue
        spec = req.spec.replace(".*", ".0")
        version = _exact(spec)
        where = _where(src, req)
        out.append((Framework(name, version=Fact(version, where) if version else Fact(None, "", (f"{where}: unpinned",)),
                             build=Fact("cuda", where),
                             cuda=Fact(f"{major}.x", f"{where} ({req.name})") if major else Fact(None, "", ())),
                    req))
    return out


def _marker_env(platform: str, py: tuple[int, int] | None) -> dict[str, str]:
    os_name, _, arch = platform.partition("-")
    env = {"sys_platform": "win32" if os_name == "windows" else os_name, "platform_machine": arch,
           "platform_system": {"linux": "Linux", "windows": "Windows", "macos": "Darwin"}.get(os_name, os_name),
           "os_name": "nt" if os_name == "windows" else "posix", "extra": ""}
    if py:
        env.update(python_version=f"{py[0]}.{py[1]}", python_full_version=f"{py[0]}.{py[1]}.0")
    return env


def applies(req: Req, env: dict[str, str]) -> bool:
    """Whether a requirement's marker holds on the target (unknown Python: assume it does)."""
    if not req.marker:
        return True
    from packaging.markers import InvalidMarker, Marker, UndefinedEnvironmentName

    try:
        return Marker(req.marker).evaluate(env)
    except (InvalidMarker, UndefinedEnvironmentName):
        return True


def _wheel_fits(url: str, platform: str) -> bool:
    tags = wheel_platform_tags(url)
    if not tags or tags == ("any",):
        return True
    os_name, _, arch = platform.partition("-")
    word = {"linux": "linux", "windows": "win", "macos": "macosx"}.get(os_name, os_name)
    arch_words = {"x86_64": ("x86_64", "amd64"), "aarch64": ("aarch64", "arm64")}.get(arch, (arch,))
    return any(word in t and any(a in t.lower() for a in arch_words) for t in tags)


def _platform_wheel(req: Req, platform: str) -> bool:
    """False for a wheel (or a locked package whose wheels are all) for another OS or CPU."""
    if req.url and req.url.endswith(".whl"):
        return _wheel_fits(req.url, platform)
    return not req.wheels or any(_wheel_fits(w, platform) for w in req.wheels)


def target_wheel(req: Req, platform: str) -> str | None:
    for url in ((req.url,) if req.url else ()) + req.wheels:
        if url and url.endswith(".whl") and _wheel_fits(url, platform):
            return url
    return None


def _place(res: Resolution, subject: str, req: Req) -> None:
    res.lines[subject] = req.line
    if req.file:
        res.files[subject] = req.file


def _constrained(req: Req, con: Req, src: Source, res: Resolution) -> Req:
    """A requirement narrowed by a constraints-file line (pip: both must hold). A pin
    there decides the version, so findings about it point at the constraint."""
    if _exact(req.spec) or not con.spec and not con.url:
        return req
    res.notes.append(f"{req.name}: version from the constraint at {_where(src, con)} ({con.spec or con.url})")
    if _exact(con.spec) or con.url:
        return dataclasses.replace(req, spec=con.spec, url=con.url or req.url, line=con.line, file=con.file,
                                   index=req.index or con.index)
    return dataclasses.replace(req, spec=",".join(p for p in (req.spec, con.spec) if p))


def resolve(src: Source, host: Snapshot, m, platform: str) -> Resolution:
    py = python_version(host.system.python.value) if host.system.python.known else None
    env = _marker_env(platform, py)
    # One requirement per name: the first that applies to the target (markers, wheel platform).
    chosen: dict[str, Req] = {}
    no_wheel: dict[str, Req] = {}
    for req in src.reqs:
        if req.name not in chosen and applies(req, env):
            if _platform_wheel(req, platform):
                chosen[req.name] = req
            else:
                no_wheel.setdefault(req.name, req)
    res = Resolution(host)
    for name in ("torch", "pytorch"):
        if name in no_wheel and name not in chosen:
            res.notes.append(f"{_where(src, no_wheel[name])}: {name} {no_wheel[name].spec.lstrip('=')} has no wheel "
                             f"for {platform} in this file: installing it there fails")
    for con in src.constraints:
        if con.name in chosen and applies(con, env):
            chosen[con.name] = _constrained(chosen[con.name], con, src, res)
    src = dataclasses.replace(src, reqs=list(chosen.values()))
    torch = _image(src, m, platform, py, res)
    pip_req = src.find("torch")
    conda_req = next((r for r in src.reqs if r.conda and r.name in ("pytorch", "pytorch-gpu", "pytorch-cpu")), None)
    if pip_req is not None and not pip_req.conda:
        torch, resolved = _torch_pip(src, pip_req, m, platform, py)
        res.builds.append(resolved)
        _place(res, "torch", pip_req)
    elif conda_req is not None:
        torch, resolved = _torch_conda(src, conda_req)
        res.builds.append(resolved)
        _place(res, "torch", conda_req)
    elif torch is not None:
        res.lines["torch"] = res.lines.get("image", 1)
    frameworks = [torch] if torch else []
    for fw, req in _gpu_libraries(src):
        frameworks.append(fw)
        if fw.name not in res.lines:
            _place(res, fw.name, req)
        res.builds.append(Resolved(fw.name, fw.version.value, f"CUDA {fw.cuda.value}",
                                   "pinned" if fw.version.known else "unpinned (not judged)", req.line,
                                   file=req.file))
    companions = []
    for req in src.reqs:
        if req.name in COMPANIONS and not req.conda:
            companions.append(_companion(src, req, torch, m))
            _place(res, req.name, req)
    res.snapshot = dataclasses.replace(res.snapshot, frameworks=tuple(frameworks), companions=tuple(companions),
                                       cuda_runtimes=None, cudnn=None, nccl=None)
    if src.python and not host.system.python.known and re.fullmatch(r"3\.\d+(\.\d+)?", src.python.strip()):
        res.snapshot = dataclasses.replace(res.snapshot, system=dataclasses.replace(
            res.snapshot.system, python=Fact(src.python.strip(), f"{src.path} (python pin)")))
    return res

