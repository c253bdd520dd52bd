"""The machine an install plan is for: this one (from a Snapshot) or a
described one (from command-line options).

Only the facts the choice depends on are kept: OS, CPU architecture, Python,
the driver (release and, when known, its CUDA API version) and every GPU's
compute capability. A fact that is not known stays None and the plan says
what it assumed.
"""

from __future__ import annotations

import re
from dataclasses import field

from gpudoctor.frozen import frozen
from gpudoctor.matrices import gpu_names
from gpudoctor.versions import ComputeCapability, compute_capability, parse_numeric, python_version

OSES = ("linux", "windows")
ARCHES = ("x86_64", "aarch64")

_OS_ALIASES = {"linux": "linux", "windows": "windows", "win32": "windows", "darwin": "macos", "macos": "macos"}
_ARCH_ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64",
                 "aarch64": "aarch64", "arm64": "aarch64"}
_DRIVER = re.compile(r"^\d{3,4}(\.\d{1,3}){0,2}$")


class TargetError(ValueError):
    """A described machine does not make sense (unknown GPU, bad version...).
    `choices` lists close matches when there are any."""

    def __init__(self, message: str, choices: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.choices = choices


@frozen
class TargetGpu:
    """A GPU of the target machine: its compute capability and name."""

    cc: ComputeCapability
    name: str | None = None

    def label(self) -> str:
        return f"{self.name} ({self.cc.sm})" if self.name else self.cc.sm


@frozen
class Target:
    """The machine a build must work on: OS, architecture, Python, driver, GPUs."""

    os: str = "linux"  # "linux" | "windows" | "macos"
    arch: str = "x86_64"  # "x86_64" | "aarch64"
    python: tuple[int, int] | None = None  # None: any Python the release supports
    driver: str | None = None  # driver release, "575.57.08"
    driver_cuda: str | None = None  # cuDriverGetVersion as "12.9", when known
    gpus: tuple[TargetGpu, ...] = ()
    cpu_only: bool = False
    os_version: str | None = None  # macOS release, "14.5" (wheels carry a macOS floor)
    l4t: str | None = None  # Jetson's L4T release, "36.4.3": the JetPack decides the wheels
    origin: str = "described"  # "this machine" | "described" | "snapshot"
    # The interpreter to install into (this machine only); commands use `python` otherwise.
    python_executable: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def platform(self) -> str:
        """The wheel-platform key of the matrices: "linux-x86_64"."""
        arch = "arm64" if self.os == "macos" and self.arch == "aarch64" else self.arch
        return f"{self.os}-{arch}"

    @property
    def python_text(self) -> str | None:
        return f"{self.python[0]}.{self.python[1]}" if self.python else None

    def describe(self) -> str:
        parts = [f"{self.os.capitalize() if self.os != 'macos' else 'macOS'} {self.arch}"]
        parts.append(f"Python {self.python_text}" if self.python else "any Python")
        if self.l4t:
            parts.append(f"Jetson L4T R{self.l4t}")
        if self.cpu_only:
            parts.append("no NVIDIA GPU")
        else:
            parts.append(f"driver {self.driver}" if self.driver else "driver unknown")
            parts.append(", ".join(g.label() for g in self.gpus) if self.gpus else "GPUs unknown")
        return " · ".join(parts)


def normalize_os(value: str) -> str:
    os_name = _OS_ALIASES.get(value.strip().lower())
    if os_name is None:
        raise TargetError(f"unknown OS {value!r}: use linux or windows")
    return os_name


def normalize_arch(value: str) -> str:
    arch = _ARCH_ALIASES.get(value.strip().lower())
    if arch is None:
        raise TargetError(f"unknown CPU architecture {value!r}: use x86_64 or aarch64")
    return arch


def parse_python(value: str) -> tuple[int, int]:
    py = python_version(value)
    if py is None or py[0] != 3 or not re.fullmatch(r"\s*3\.\d+(\.\d+)?\s*", value):
        raise TargetError(f"bad Python version {value!r}: give it as 3.11")
    return py


def parse_driver(value: str) -> str:
    text = value.strip()
    if not _DRIVER.match(text):
        raise TargetError(f"bad driver version {value!r}: give the release as nvidia-smi prints it, e.g. 535.104.05")
    return text


def parse_sm(value: str) -> ComputeCapability:
    cc = compute_capability(value)
    if cc is None or not 1 <= cc.major <= 20:
        raise TargetError(f"bad compute capability {value!r}: give it as 6.1 or sm_61")
    return cc


def resolve_gpu(name: str, matrices) -> TargetGpu:
    """A GPU named by the user, through the program's one name matcher
    (gpu_names.identify): a model, a short name whose models share one compute
    capability ("H100", "Tesla P100"), or a family. TargetError with suggestions
    otherwise; a close spelling is never taken for the GPU."""
    found = gpu_names.identify(matrices, name)
    cc = compute_capability(found.compute_capability) if found else None
    if found is None or cc is None:
        matches = matrices.gpu_matches(name)
        if matches:
            spread = ", ".join(f"{g.name} ({g.compute_capability})" for g in matches[:6])
            raise TargetError(f"GPU {name!r} is ambiguous: {spread}; name the model or give --sm",
                              tuple(g.name for g in matches[:6]))
        names = tuple(g.name for g in matrices.gpu_candidates(name, limit=6))
        hint = f"; similar names (not the same GPU): {', '.join(names)}" if names else ""
        raise TargetError(f"unknown GPU {name!r}{hint} (or give its compute capability with --sm)", names)
    return TargetGpu(cc, found.label)


def target_from_options(matrices, *, driver: str | None = None, gpus: tuple[str, ...] = (),
                        sms: tuple[str, ...] = (), python: str | None = None, os_name: str | None = None,
                        arch: str | None = None, cpu: bool = False, l4t: str | None = None) -> Target:
    """A described machine. Raises TargetError on bad input."""
    if l4t is not None and not re.fullmatch(r"R?\d{2}(\.\d+){1,2}", l4t.strip()):
        raise TargetError(f"bad L4T release {l4t!r}: give it as /etc/nv_tegra_release says it, e.g. 36.4.3")
    if cpu and (gpus or sms):
        raise TargetError("--cpu describes a machine without an NVIDIA GPU; drop --gpu/--sm or --cpu")
    listed = [resolve_gpu(g, matrices) for g in gpus] + [TargetGpu(parse_sm(s)) for s in sms]
    notes = []
    if not cpu and not listed:
        notes.append("no GPU given (--gpu/--sm): kernel coverage is not checked")
    if not cpu and driver is None:
        notes.append("no driver given (--driver): the plan states the driver it needs")
    return Target(
        os=normalize_os(os_name) if os_name else "linux",
        arch=normalize_arch(arch) if arch else "x86_64",
        python=parse_python(python) if python else None,
        driver=parse_driver(driver) if driver else None,
        gpus=tuple(listed),
        cpu_only=cpu,
        l4t=l4t.strip().lstrip("R") if l4t else None,
        origin="described",
        notes=tuple(notes),
    )


def target_from_snapshot(snapshot, matrices, *, python: str | None = None, os_name: str | None = None,
                         arch: str | None = None) -> Target:
    """The machine a Snapshot describes; options override single facts."""
    sysinfo = snapshot.system
    raw_os = sysinfo.os.value or "linux"
    os_key = _OS_ALIASES.get(str(raw_os).lower(), str(raw_os).lower())
    if sysinfo.wsl.value:
        os_key = "linux"  # WSL runs Linux wheels on the Windows driver
    machine = _ARCH_ALIASES.get(str(sysinfo.machine.value or "x86_64").lower(), str(sysinfo.machine.value))
    notes: list[str] = []
    visible = snapshot.visible_gpus()
    gpus: list[TargetGpu] = []
    for g in visible or ():
        cc = compute_capability(g.compute_capability)
        if cc is None:
            found = gpu_names.identify(matrices, g.name)
            cc = compute_capability(found.compute_capability) if found else None
        if cc is None:
            notes.append(f"GPU {g.index} ({g.name}): compute capability unknown, not checked")
            continue
        gpus.append(TargetGpu(cc, g.name))
    driver = snapshot.driver.version.value
    no_gpu = visible is not None and not visible and not gpus
    if visible is None:
        notes.append("the GPUs are unknown: kernel coverage is not checked")
    py = python_version(sysinfo.python.value) if sysinfo.python.value else None
    mac = re.search(r"\b(1\d|2\d)\.\d+", sysinfo.os_release.value or "") if os_key == "macos" else None
    if py is None and not python:
        notes.append("the Python version is unknown: any supported Python is assumed")
    return Target(
        os=normalize_os(os_name) if os_name else os_key,
        arch=normalize_arch(arch) if arch else machine,
        python=parse_python(python) if python else py,
        driver=driver if driver and parse_numeric(driver) else None,
        driver_cuda=snapshot.driver.cuda_api.value,
        gpus=tuple(gpus),
        cpu_only=no_gpu,
        os_version=mac.group(0) if mac else None,
        l4t=sysinfo.l4t_release.value if machine == "aarch64" else None,
        origin="snapshot" if snapshot.origin != "live" else "this machine",
        python_executable=None if python else sysinfo.python_executable.value,
        notes=tuple(notes),
    )
