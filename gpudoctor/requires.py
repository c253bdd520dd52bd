"""The inverse question: what a host needs to run an environment, a
lockfile or an image. Computed from the same Snapshot that check and lint
judge (its frameworks and companions), with the same compatibility rules:
minor-version compatibility for the driver floor, same-major cubin and PTX
JIT for the GPUs, the cuDNN SM floor, the wheels' glibc tags."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpudoctor.compat import KernelKind, kernel_for
from gpudoctor.matrices import companion_queries as q
from gpudoctor.rules.common import floor_from_image
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import compute_capability, cuda_version, driver_tuple

_MANYLINUX = {"manylinux1": "2.5", "manylinux2010": "2.12", "manylinux2014": "2.17"}
_GPU_LIBRARY = {"cudf": "rapids", "cuml": "rapids", "cugraph": "rapids", "numba-cuda": "numba-cuda"}


@dataclass(frozen=True)
class Need:
    """One thing a host must have, and which build asks for it."""

    value: str
    why: str  # which build asks for it, and the source


@dataclass
class HostNeeds:
    """The floors a host must meet to run an environment, each with the build that asks for it."""

    driver: dict[str, Need] = field(default_factory=dict)  # os -> floor with minor-version compatibility
    driver_full: dict[str, Need] = field(default_factory=dict)  # os -> floor for PTX JIT / native support
    driver_cuda: Need | None = None  # the CUDA version the driver must report (NVIDIA_REQUIRE_CUDA)
    compute: list[tuple[str, str]] = field(default_factory=list)  # (cc, "sass" | "sass-compatible" | "ptx-jit")
    archs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # build -> arch list it carries
    cudnn_min_sm: Need | None = None
    min_sm: Need | None = None  # a library's own floor (RAPIDS, numba-cuda)
    glibc: Need | None = None
    unknown: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        def need(n: Need | None):
            return {"value": n.value, "why": n.why} if n else None
        return {
            "driver": {k: need(v) for k, v in self.driver.items()},
            "driver_full": {k: need(v) for k, v in self.driver_full.items()},
            "driver_cuda": need(self.driver_cuda),
            "compute_capabilities": [{"cc": cc, "kernel": kind} for cc, kind in self.compute],
            "archs": {k: list(v) for k, v in self.archs.items()},
            "cudnn_min_sm": need(self.cudnn_min_sm), "min_sm": need(self.min_sm), "glibc": need(self.glibc),
            "unknown": list(self.unknown),
        }


def _max_need(a: Need | None, b: Need | None, key) -> Need | None:
    if a is None or b is None:
        return a or b
    return b if key(b.value) > key(a.value) else a


def _dkey(text: str):
    return driver_tuple(text) or ()


def _cckey(text: str):
    cc = compute_capability(text)
    return (cc.major, cc.minor) if cc else ()


def host_needs(s: Snapshot, m) -> HostNeeds:
    out = HostNeeds()
    cuda_fws = [fw for fw in s.frameworks or () if fw.build.value == "cuda"]
    for fw in cuda_fws:
        label = f"{fw.name} {fw.version.value or ''}".strip()
        cv = cuda_version((fw.cuda.value or "").replace(".x", ".0"))
        if cv is None:
            out.unknown.append(f"{label}: the CUDA it was built with is unknown")
            continue
        for os_name in () if floor_from_image(s, fw) else ("linux", "windows"):
            floor = m.minor_compat_floor(cv.major, os_name)
            if floor:
                why = f"{label} (CUDA {fw.cuda.value}; CUDA {cv.major}.x minor-version compatibility, cuda.toml)"
                out.driver[os_name] = _max_need(out.driver.get(os_name), Need(floor, why), _dkey)
            full = m.toolkit_min_driver(fw.cuda.value, os_name) if ".x" not in fw.cuda.value else None
            if full:
                why = f"{label} (CUDA {fw.cuda.value} toolkit driver: PTX JIT and full support, cuda.toml)"
                out.driver_full[os_name] = _max_need(out.driver_full.get(os_name), Need(full, why), _dkey)
        if fw.arch_list.known:
            out.archs[label] = tuple(fw.arch_list.value)
        else:
            out.unknown.append(f"{label}: its GPU architectures are unknown ({'; '.join(fw.arch_list.tried) or 'not read'})")
        if fw.cudnn.known and (sm := m.cudnn_min_sm(fw.cudnn.value)):
            out.cudnn_min_sm = _max_need(out.cudnn_min_sm, Need(sm, f"{label} uses cuDNN {fw.cudnn.value} "
                                                                  "(cudnn.toml)"), _cckey)
        if fw.name in _GPU_LIBRARY and fw.version.known:
            need = q.gpu_library_need(m, _GPU_LIBRARY[fw.name], fw.version.value, cv.major, "min_sm")
            if need:
                out.min_sm = _max_need(out.min_sm, Need(need[0], f"{label} ({need[1]})"), _cckey)
            drv = q.gpu_library_need(m, _GPU_LIBRARY[fw.name], fw.version.value, cv.major, "min_driver_linux")
            if drv:
                out.driver["linux"] = _max_need(out.driver.get("linux"), Need(drv[0], f"{label} ({drv[1]})"), _dkey)
        if fw.wheel_platform.known and (glibc := _glibc(fw.wheel_platform.value)):
            out.glibc = _max_need(out.glibc, Need(glibc, f"{label} wheel tag {fw.wheel_platform.value} "
                                                         f"({fw.wheel_platform.source})"), _dkey)
    image_floor = _image_notes(s, out)
    image = s.system.image_require_cuda
    if image.known:
        floor = m.toolkit_min_driver(image.value, "linux")
        if floor:
            out.driver["linux"] = _max_need(out.driver.get("linux"), Need(floor, f"image cuda>={image.value} "
                                                                                 f"({image.source})"), _dkey)
        out.driver_cuda = Need(image.value, image.source)
    # A floor from an image's notes ("450 or later") names a branch, not a CUDA version.
    if out.driver.get("linux") and out.driver_cuda is None and out.driver["linux"] is not image_floor:
        derived = m.driver_max_cuda(out.driver["linux"].value, "linux")
        if derived:
            out.driver_cuda = Need(f"{derived.major}.{derived.minor}", f"the CUDA driver {out.driver['linux'].value} "
                                                                       "reports (cuda.toml)")
    if not cuda_fws and not image.known:
        out.unknown.append("no CUDA build found: the environment needs no GPU")
        return out
    out.compute = _compute(out, m)
    return out


def _image_notes(s: Snapshot, out: HostNeeds) -> Need | None:
    """What a framework image's release notes require: the driver floor (data-center GPUs
    also run it on the branches listed) and the compute-capability floor. Returns the
    driver Need it added."""
    floor, alternatives, min_sm = (s.system.image_driver_floor, s.system.image_datacenter_drivers,
                                   s.system.image_min_sm)
    need = None
    if floor.value is not None:
        also = (f"; on data-center GPUs also {', '.join(alternatives.value)} or later on their branch"
                if alternatives.value else "")
        need = Need(floor.value, f"{floor.source}{also}")
        out.driver["linux"] = _max_need(out.driver.get("linux"), need, _dkey) or need
    if min_sm.value is not None:
        out.min_sm = _max_need(out.min_sm, Need(min_sm.value, min_sm.source), _cckey)
    return need


def _glibc(platform_tag: str) -> str | None:
    m = re.match(r"manylinux_(\d+)_(\d+)_", platform_tag)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    return _MANYLINUX.get(platform_tag.split("_", 1)[0])


def _compute(out: HostNeeds, m) -> list[tuple[str, str]]:
    """Every known compute capability on which all builds have kernels, and how."""
    known = sorted({row.compute_capability for row in m.table("gpus", "precision")}, key=_cckey)
    floors = [n.value for n in (out.cudnn_min_sm, out.min_sm) if n]
    result = []
    for text in known:
        cc = compute_capability(text)
        if cc is None or any(_cckey(text) < _cckey(f) for f in floors):
            continue
        kinds = [kernel_for(cc, archs).kind for archs in out.archs.values()]
        if any(k is KernelKind.NONE for k in kinds):
            continue
        kind = ("ptx-jit" if KernelKind.PTX_JIT in kinds else
                "sass-compatible" if KernelKind.SASS_COMPATIBLE in kinds else "sass")
        result.append((text, kind))
    return result
