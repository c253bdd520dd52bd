"""Facts read from a paste -> the Snapshot the rules judge, plus the list of
what was read from where.

Two things are filled in from gpudoctor's matrices, marked as derived: a GPU's
compute capability from its name, and a PyTorch build's arch list (and, for a
version without a local tag, its build) from the version. Everything else
stays exactly as read, and what was not read stays unknown.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from gpudoctor.diagnose.collect import DERIVED, Facts, GpuDraft, Read, Value
from gpudoctor.matrices import Matrices
from gpudoctor.rules.runtimes import SHARED_MODULE
from gpudoctor.snapshot import (
    Companion,
    CudaRuntime,
    DeepResult,
    Driver,
    Fact,
    Framework,
    Gpu,
    Library,
    UNKNOWN,
    Snapshot,
    System,
)

_SYSTEM = [f.name for f in dataclasses.fields(System)]
_DRIVER = [f.name for f in dataclasses.fields(Driver)]
_GPU_FIELDS = {f.name for f in dataclasses.fields(Gpu)} - {"index", "name", "source"}
_FW_ORDER = ("torch", "tensorflow", "jax", "cupy")
_FW_FACTS = ("version", "build", "cuda", "cudnn", "nccl", "arch_list")
_GPU_FLAGS = ("ti", "super", "ada")


def torch_tag(version: str) -> tuple[str | None, str | None]:
    """'2.6.0+cu126' -> ('cuda', '12.6'); '2.1.0+cpu' -> ('cpu', None); no tag -> (None, None)."""
    local = version.partition("+")[2].lower()
    if re.fullmatch(r"cu\d{2,3}", local):
        return "cuda", f"{local[2:-1]}.{local[-1]}"
    if local == "cpu":
        return "cpu", None
    if local.startswith("rocm"):
        return "rocm", None
    return None, None


def _model_token(name: str) -> tuple[str | None, frozenset[str]]:
    """The model number of a GPU name ('4090', 'a100', 't4') and its suffix flags."""
    words = re.sub(r"[^a-z0-9]+", " ", name.lower()).split()
    model = next((w for w in words if re.search(r"\d", w) and not re.fullmatch(r"\d+(gb|mib|mb)", w)), None)
    return model, frozenset(w for w in words if w in _GPU_FLAGS)


def gpu_model(m: Matrices, name: str):
    """The GPU table row for a name read from a paste, or None. A fuzzy match
    is accepted only when the model number and the Ti/SUPER/Ada flags agree:
    'RTX 5070 Ti' must never borrow the compute capability of an 'RTX 4070 Ti'."""
    model, flags = _model_token(name)
    if model is None:
        return None
    if m.gpu(name) is None and m.gpu_candidates(name, limit=1) and m.gpu_family(name) is None:
        return None  # a name several models share, with different compute capabilities
    series = _series(name)
    for row in m.gpu_candidates(name, limit=8):
        for known in (row.name, *row.nvml_names):
            if _model_token(known) == (model, flags) and series <= _series(known):
                return row
    return None


# Product lines that reuse another line's model numbers: a "Quadro 4000" (Fermi) is no
# "RTX PRO 4000". A name that says its line must find that line in the row's name; a name
# that says none (a bare "P4000") may match any. (Not "GRID": "GRID M60-1Q" is a vGPU
# profile of the Tesla M60 itself.)
_SERIES = frozenset({"quadro", "pro"})


def _series(name: str) -> frozenset[str]:
    return frozenset(re.sub(r"[^a-z0-9]+", " ", name.lower()).split()) & _SERIES


# The x86-64 wheel platform of an OS a snapshot names, where builds are looked up by it.
OS_WHEEL_PLATFORM = {"windows": "windows-x86_64", "linux": "linux-x86_64"}


def platform_of(f: Facts) -> tuple[str, bool]:
    """The wheel platform the paste describes, and whether it was known."""
    os_name, machine = f.get("system.os"), f.get("system.machine") or "x86_64"
    if os_name == "windows":
        return "windows-x86_64", True
    if os_name == "darwin":
        return "macos-arm64", True
    if os_name == "linux":
        return f"linux-{'aarch64' if machine == 'aarch64' else 'x86_64'}", True
    return "linux-x86_64", False


def complete(f: Facts, m: Matrices | None) -> None:
    """Fill in what follows from the facts read: a version's local tag, and
    (derived) matrix facts."""
    for name, store in f.frameworks.items():
        version = store.get("version")
        if version and isinstance(version.value, str) and name == "torch":
            build, cuda = torch_tag(version.value)
            f.fw(name, "build", build, version.source, version.rank)
            f.fw(name, "cuda", cuda, version.source, version.rank)
        if "cuda" in store and "build" not in store:
            f.fw(name, "build", "cuda", store["cuda"].source, store["cuda"].rank)
    if m is not None:
        _torch_from_matrices(f, m)
        _tensorflow_from_matrices(f, m)
        for draft in f.gpus:
            if "compute_capability" not in draft.fields and draft.name is not None:
                row = gpu_model(m, draft.name.value)
                family = m.gpu_family(draft.name.value) if row is None else None
                if row is not None:
                    draft.fields["compute_capability"] = Value(
                        row.compute_capability, f"gpudoctor GPU table: {row.name}", DERIVED)
                elif family is not None:
                    draft.fields["compute_capability"] = Value(
                        family.compute_capability, f"gpudoctor GPU families: {family.arch} ({family.source})", DERIVED)
                elif (shared := m.gpu_shared_name(draft.name.value)) is not None:
                    # No compute capability, only the newest the name is sold with: a bound
                    f.extra_reads.append(Read(f"gpu.cc_newest.{draft.name.value}", max(shared.compute_capabilities),
                                              f"gpudoctor GPU table: {draft.name.value} is sold with compute capability "
                                              f"{', '.join(shared.compute_capabilities)} ({shared.source})"))


def _torch_from_matrices(f: Facts, m: Matrices) -> None:
    version = f.fw_get("torch", "version")
    if not isinstance(version, str):
        return
    platform, known = platform_of(f)
    series = ".".join(version.split("+")[0].split(".")[:2])
    build = f.fw_get("torch", "build")
    # A version without a local tag is PyPI's default wheel; a paste that only shows
    # it is a CUDA build (nvidia-* requirements) still lacks which CUDA. A source build
    # ("2.5.0a0+872d972e41", NVIDIA's JetPack and NGC builds) is no PyPI wheel at all.
    from_pypi = "+" not in version and not re.search(r"(?:a|b|rc|\.dev)\d*$", version.split("+")[0])
    if known and from_pypi and (build is None or (build == "cuda" and f.fw_get("torch", "cuda") is None)):
        default = [b for b in m.torch_builds_of(version, platform) if b.pypi_default]
        if default and (build is None or default[0].cuda):
            b = default[0]
            src = f"gpudoctor matrices: `pip install torch=={version}` on {platform} gets the {b.variant} wheel"
            if build is None:
                f.fw("torch", "build", "cuda" if b.cuda else "cpu", src, DERIVED)
            f.fw("torch", "cuda", b.cuda, src, DERIVED)
    cuda = f.fw_get("torch", "cuda")
    if f.fw_get("torch", "build") == "cuda" and cuda and f.fw_get("torch", "arch_list") is None:
        variant = "cu" + cuda.replace(".", "")
        row = m.torch_build(version, variant, platform)
        where = platform if known else f"{platform}, assumed"
        arch_list = row.arch_list_of(version) if row is not None else ()
        if row is not None and arch_list:
            named = version.split("+")[0] if arch_list is not row.arch_list else series
            f.fw("torch", "arch_list", tuple(arch_list),
                 f"gpudoctor matrices: torch {named} {variant} ({where}) arch list", DERIVED)
        if row is not None and row.cudnn and f.fw_get("torch", "cudnn") is None:
            f.fw("torch", "cudnn", row.cudnn, f"gpudoctor matrices: torch {series} {variant} ({where}) cuDNN pin",
                 DERIVED)


def _tensorflow_from_matrices(f: Facts, m: Matrices) -> None:
    """A TensorFlow version says the CUDA and cuDNN its build was tested with
    (tensorflow.org's tested build configurations); on Linux and on Windows up to
    2.10 the `tensorflow` wheel is a CUDA build, from 1.15 on (but 2.0)."""
    version = f.fw_get("tensorflow", "version")
    if not isinstance(version, str) or f.fw_get("tensorflow", "build") == "cpu" \
            or (f.get("tensorflow.installed_from") == "source" and f.get("tensorflow.installed_with") is None):
        return
    rel = m.tensorflow_release(version)
    if rel is None or rel.cuda is None:
        return
    src = f"gpudoctor matrices: TensorFlow {rel.version} tested build configuration"
    os_name = f.get("system.os")
    if os_name == "windows" and not rel.windows_native_gpu:
        return  # GD508 says what that means
    if rel.gpu_package and "tensorflow" in f.packages and rel.gpu_package not in f.packages \
            and "tensorflow-base" not in f.packages:  # conda's tensorflow-base carries the GPU build
        # Up to 1.14 and in 2.0 the `tensorflow` wheel is CPU-only: the GPU build is `tensorflow-gpu`.
        f.fw("tensorflow", "build", "cpu", f"{src}: `tensorflow` {rel.version} is CPU-only, the GPU wheel is "
             f"`{rel.gpu_package}`", DERIVED)
    elif os_name in ("linux", "windows") and "tensorflow-cpu" not in f.packages \
            and (rel.gpu_package is None or rel.gpu_package in f.packages):
        f.fw("tensorflow", "build", "cuda", src, DERIVED)
    elif rel.gpu_package and f.get("tensorflow.gpu_package_named") is None and f.fw_get("tensorflow", "build") is None:
        # Only a version is known, and the paste never names the GPU wheel: the plain `tensorflow`
        # of this release is CPU-only (read when the paste says CUDA is unavailable: fallback.py).
        f.extra_reads.append(Read("tensorflow.plain_wheel_cpu_only", f"{rel.version} (the GPU wheel is "
                                  f"`{rel.gpu_package}`)", src))
    f.fw("tensorflow", "cuda", rel.cuda, src, DERIVED)
    if rel.arch_list and f.fw_get("tensorflow", "arch_list") is None:
        f.fw("tensorflow", "arch_list", tuple(rel.arch_list), src, DERIVED)
    if rel.cudnn:
        f.fw("tensorflow", "cudnn", rel.cudnn, src, DERIVED)


def build(f: Facts, m: Matrices | None) -> tuple[Snapshot, list[Read]]:
    complete(f, m)
    reads: list[Read] = []
    system = System(**{k: _fact(f, f"system.{k}", reads) for k in _SYSTEM if f"system.{k}" in f.scalars})
    driver = Driver(**{k: _fact(f, f"driver.{k}", reads) for k in _DRIVER if f"driver.{k}" in f.scalars})
    gpus = _gpus(f, reads)
    runtimes = _runtimes(f, reads)
    cudnn = _libraries(f, "cudnn", reads)
    nccl = _libraries(f, "nccl", reads)
    frameworks = _frameworks(f, reads)
    known = {f"system.{k}" for k in _SYSTEM} | {f"driver.{k}" for k in _DRIVER}
    reads += [Read(k, _show(v.value), v.source) for k, v in f.scalars.items() if k not in known]
    reads += f.extra_reads
    companions = (_module_packages(f) or ()) + _torch_companions(f, m)
    snap = Snapshot(origin="diagnose", system=system, driver=driver, gpus=gpus, cuda_runtimes=runtimes,
                    cudnn=cudnn, nccl=nccl, frameworks=frameworks, companions=companions or None)
    return snap, reads


def _torch_companions(f: Facts, m: Matrices | None) -> tuple[Companion, ...]:
    """torchvision and torchaudio a paste lists beside torch, each with the torch series it was
    released with (torch.toml's pairing, as PyTorch's previous-versions page gives it) and the
    index it came from (its local label): what GD520 and GD521 judge. A series, not a release:
    within one, mixed patch releases import and run."""
    torch = str(f.fw_get("torch", "version") or "").partition("+")[0]
    if m is None or not any(rel.version == torch for rel in m.torch_releases):
        return ()  # no torch, or one that is no release (a cut-off "7.0", a nightly): nothing to pair
    out = []
    for name in ("torchvision", "torchaudio"):
        v = f.packages.get(name)
        if v is None:
            continue
        public, _, local = str(v.value).partition("+")
        if name == "torchvision" and re.match(r"0\.[0-2]\.", public):
            continue  # pure Python before 0.3, which brought its compiled ops: no torch build to match
        series = sorted({".".join(rel.version.split(".")[:2]) for rel in m.torch_releases
                         if getattr(rel, name, None) == public})
        paired = next((rel for rel in m.torch_releases if getattr(rel, name, None) == public), None)
        requires = Fact(f"=={series[0]}.*", paired.source) if paired is not None and len(series) == 1 else UNKNOWN
        out.append(Companion(name=name, framework="torch", version=Fact(v.value, v.source),
                             requires_framework=requires, build_tag=Fact(local, v.source) if local else UNKNOWN))
    return tuple(out)


def _module_packages(f: Facts) -> tuple[Companion, ...] | None:
    """The packages the paste lists that install one module under different names (the
    ONNX Runtime builds, paddlepaddle and paddlepaddle-gpu, the cupy-cuda packages): two
    of one module are a conflict (GD510, GD511). None when it lists none."""
    found = tuple(Companion(name=name, framework=module, version=Fact(v.value, v.source))
                  for name, v in f.packages.items() for module, (names, *_) in SHARED_MODULE.items()
                  if names.fullmatch(name))
    return found or None


def _show(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return " ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _fact(f: Facts, key: str, reads: list[Read]) -> Fact:
    v = f.scalars[key]
    reads.append(Read(key, _show(v.value), v.source))
    return Fact(v.value, v.source)


def _gpus(f: Facts, reads: list[Read]) -> tuple[Gpu, ...] | None:
    if not f.gpus:
        if f.no_gpus:
            reads.append(Read("gpus", "none", f.no_gpus))
            return ()
        return None
    used = {g.index for g in f.gpus if g.index is not None}
    free = (i for i in range(len(f.gpus) * 2 + 1) if i not in used)
    out = []
    for draft in sorted(f.gpus, key=lambda d: (d.index is None, d.index or 0)):
        index = draft.index if draft.index is not None else next(free)
        out.append(_gpu(draft, index, reads))
    return tuple(out)


def _gpu(draft: GpuDraft, index: int, reads: list[Read]) -> Gpu:
    name = draft.name.value if draft.name else "unknown GPU"
    source = draft.name.source if draft.name else next(iter(draft.fields.values())).source
    reads.append(Read(f"gpus[{index}].name", name, source))
    values = {}
    for key, v in draft.fields.items():
        if key in _GPU_FIELDS:
            values[key] = v.value
            reads.append(Read(f"gpus[{index}].{key}", _show(v.value), v.source))
    return Gpu(index=index, name=name, source=source, **values)


def _runtimes(f: Facts, reads: list[Read]) -> tuple[CudaRuntime, ...] | None:
    if not f.runtimes:
        return None
    out = []
    for values, _ in f.runtimes:
        rt = CudaRuntime(version=values.get("version"), path=values["path"], kind=values["kind"],
                         source=values["source"], nvcc=values.get("nvcc"))
        reads.append(Read("cuda_runtimes", f"{rt.kind} {rt.version}", rt.source))
        out.append(rt)
    return tuple(out)


def _libraries(f: Facts, name: str, reads: list[Read]) -> tuple[Library, ...] | None:
    libs = f.libraries[name]
    if not libs:
        return None
    tool_versions = {v.get("version") for v, rank in libs if v["kind"] != "stated"}
    out = []
    for values, _ in libs:
        if values["kind"] == "stated" and values.get("version") in tool_versions:
            continue
        lib = Library(name=name, version=values.get("version"), path=values["path"], kind=values["kind"],
                      source=values["source"], cuda_major=values.get("cuda_major"))
        reads.append(Read(name, f"{lib.kind} {lib.version}", lib.source))
        out.append(lib)
    return tuple(out)


def _frameworks(f: Facts, reads: list[Read]) -> tuple[Framework, ...] | None:
    out = []
    names = [n for n in _FW_ORDER if n in f.frameworks] + [n for n in f.frameworks if n not in _FW_ORDER]
    for name in names:
        store = f.frameworks[name]
        if "version" not in store and "build" not in store and "is_available" not in store:
            if "named" in store:  # a GPU library named, its release unknown: its floor is every release's
                reads.append(Read(f"{name}.named", "yes", store["named"].source))
                out.append(Framework(name=name))
            continue  # a framework the paste only names in passing
        facts: dict[str, Any] = {}
        for key in _FW_FACTS:
            if key in store:
                v = store[key]
                value = tuple(v.value) if key == "arch_list" else v.value
                facts[key] = Fact(value, v.source)
                reads.append(Read(f"{name}.{key}", _show(v.value), v.source))
        deep = None
        if "is_available" in store or "cudnn_runtime" in store:
            # What the framework itself said at run time, as --deep would have seen it.
            available, loaded = store.get("is_available"), store.get("cudnn_runtime")
            deep = DeepResult(imported=True, is_available=bool(available.value) if available else None,
                              cudnn_runtime=loaded.value if loaded else None)
            for key, said in (("is_available", available), ("cudnn_runtime", loaded)):
                if said is not None:
                    reads.append(Read(f"{name}.{key}", _show(said.value), said.source))
        out.append(Framework(name=name, deep=deep, **facts))
    return tuple(out) if out else None
