"""What gpudoctor knows about one environment: frozen facts with provenance.

Probes build a Snapshot from a live machine; `diagnose` builds one from a pasted
report; `check --from FILE` reads one back. Rules only ever see a Snapshot.

Versions are kept apart on purpose, because confusing them is the field's
most common bug:
  driver.version      the driver release, "580.65.06"
  driver.cuda_api     the newest CUDA the driver supports (cuDriverGetVersion,
                      nvidia-smi's "CUDA Version"), "13.0"
  cuda_runtimes[i]    each CUDA runtime / toolkit found on disk, "13.0.96"
  framework.cuda      the CUDA a framework was built with, "13.0"

Unknown is not absent: a list field is None when nobody looked (a paste that
did not mention GPUs), and () when we looked and found nothing.
"""

from __future__ import annotations

from dataclasses import field
from typing import Generic, TypeVar

from gpudoctor import __version__
from gpudoctor.frozen import frozen
from gpudoctor.serde import from_data, to_data

SCHEMA_VERSION = 1
T = TypeVar("T")


@frozen
class Fact(Generic[T]):
    """One value and where it came from. `tried` records what was attempted
    when the value could not be read, so "unknown" is explained."""

    value: T | None = None
    source: str = ""
    tried: tuple[str, ...] = field(default=(), metadata={"omit_empty": True})

    @property
    def known(self) -> bool:
        return self.value is not None


# The default of every fact field: frozen and shared, so no factory runs per field.
UNKNOWN: Fact = Fact()


def fact(value: T | None, source: str, tried: tuple[str, ...] | list[str] = ()) -> Fact[T]:
    return Fact(value, source if value is not None else "", tuple(tried))


@frozen
class System:
    """The operating system, the target interpreter and the container or WSL around them."""

    os: Fact[str] = UNKNOWN  # "linux" | "windows" | "darwin"
    os_release: Fact[str] = UNKNOWN  # "Ubuntu 22.04.4 LTS"
    kernel: Fact[str] = UNKNOWN
    machine: Fact[str] = UNKNOWN  # "x86_64" | "aarch64"
    glibc: Fact[str] = UNKNOWN
    python: Fact[str] = UNKNOWN  # target interpreter's version, "3.11.7"
    python_executable: Fact[str] = UNKNOWN
    environment: Fact[str] = UNKNOWN  # "venv" | "conda" | "system"
    # "docker" | "podman" | "kubernetes" | "lxc" | "none"; read from a paste also "singularity" | "slurm" (a batch job)
    container: Fact[str] = UNKNOWN
    gpu_device_nodes: Fact[tuple[str, ...]] = UNKNOWN  # /dev/nvidia*, /dev/dxg
    wsl: Fact[bool] = UNKNOWN
    wsl_libcuda: Fact[str] = UNKNOWN  # /usr/lib/wsl/lib/libcuda.so.1
    # A Linux (non-WSL) NVIDIA driver found inside WSL, which shadows the Windows
    # driver's libcuda: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" or "/proc/driver/nvidia".
    wsl_linux_driver: Fact[str] = UNKNOWN
    # Jetson: the board (/proc/device-tree/model) and its L4T release (/etc/nv_tegra_release, "36.4.3").
    jetson_model: Fact[str] = UNKNOWN
    l4t_release: Fact[str] = UNKNOWN
    # A container image's NVIDIA_REQUIRE_CUDA floor ("12.4" for cuda>=12.4), which the
    # NVIDIA container toolkit enforces against the driver's CUDA at container start.
    image_require_cuda: Fact[str] = UNKNOWN
    # What a framework image's release notes require of the host (NGC: "requires driver
    # release 450 or later; data center GPUs may use R418 or 440.30+"; "compute
    # capability 6.0 and later"): the driver floor, the data-center branch floors, the SM floor.
    image: Fact[str] = UNKNOWN  # the final stage's base image, "nvcr.io/nvidia/pytorch:20.06-py3"
    image_driver_floor: Fact[str] = UNKNOWN
    image_datacenter_drivers: Fact[tuple[str, ...]] = UNKNOWN
    image_min_sm: Fact[str] = UNKNOWN


@frozen
class Driver:
    """The NVIDIA driver: its version, the CUDA API it offers, cuInit, NVML and the kernel module."""

    version: Fact[str] = UNKNOWN
    cuda_api: Fact[str] = UNKNOWN
    # CUresult of cuInit(0): 0 is success; 100 no device, 999 unknown...
    cuinit: Fact[int] = UNKNOWN
    cuinit_error: Fact[str] = UNKNOWN  # cuGetErrorName: "CUDA_ERROR_NO_DEVICE"
    # "proprietary" | "open" | "not-loaded"
    kernel_module: Fact[str] = UNKNOWN
    nouveau_loaded: Fact[bool] = UNKNOWN
    # "ok", or NVML's error name: "LibraryNotFound", "DriverNotLoaded", "LibRmVersionMismatch", ...
    nvml: Fact[str] = UNKNOWN
    libcuda: Fact[str] = UNKNOWN  # path of the libcuda.so.1 that loads
    # Release of the user-space driver libraries (libcuda.so.580.65.06 /
    # libnvidia-ml.so.*); differs from `version` (the kernel module) after an
    # upgrade without reboot.
    library_version: Fact[str] = UNKNOWN


@frozen
class GpuProcess:
    """A process using a GPU, as NVML lists it."""

    pid: int
    used_memory_mib: int | None = None
    name: str | None = None


@frozen
class Gpu:
    """One GPU as NVML (or nvidia-smi) reports it: identity, memory, health and PCIe link."""

    index: int  # NVML index (PCI bus order), not necessarily CUDA's
    name: str
    source: str = "nvml"
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None  # "8.6"
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    mig_mode: bool | None = None
    persistence_mode: bool | None = None
    ecc_enabled: bool | None = None
    ecc_uncorrected_volatile: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    throttle_reasons: tuple[str, ...] | None = None
    processes: tuple[GpuProcess, ...] | None = None
    # NVML calls that failed for this device with something other than
    # NotSupported ("nvmlDeviceGetHandleByIndex: GpuIsLost"); the device stays listed.
    errors: tuple[str, ...] = ()


@frozen
class Visibility:
    """Which GPUs a CUDA program would see, and in what order."""

    cuda_visible_devices: str | None = None
    cuda_device_order: str | None = None  # unset means CUDA's FASTEST_FIRST
    # NVML indices visible to CUDA, in CUDA's order; None when it cannot be told.
    visible: tuple[int, ...] | None = None
    note: str = ""


@frozen
class CudaRuntime:
    """A CUDA runtime (libcudart) or toolkit the target environment could load."""

    version: str | None  # "13.0.96"; "13.0" when only major.minor is known
    path: str  # directory of the library, or the toolkit root
    kind: str  # "toolkit" | "pip" | "conda" | "ld-library-path" | "system"
    source: str
    nvcc: str | None = None  # nvcc's release for a toolkit, "13.0.88"
    # Its library directory is listed in LD_LIBRARY_PATH, so the loader prefers it.
    ld_library_path: bool = False


@frozen
class Library:
    """A cuDNN or NCCL installation."""

    name: str  # "cudnn" | "nccl"
    version: str | None  # "9.13.0.50", or "9.13.0" from a header
    path: str
    kind: str  # "pip" | "toolkit" | "conda" | "ld-library-path" | "system"
    source: str
    cuda_major: int | None = None  # from the wheel name (-cu12) when known
    ld_library_path: bool = False  # its directory is listed in LD_LIBRARY_PATH


@frozen
class DeepResult:
    """What importing the framework in the target interpreter showed (--deep)."""

    imported: bool
    # imported=False: the import error; imported=True: why CUDA is not usable
    # (the CUDA init error text), None when it is.
    error: str | None = None
    is_available: bool | None = None
    device_count: int | None = None
    devices: tuple[str, ...] = ()
    arch_list: tuple[str, ...] | None = None
    cudnn_runtime: str | None = None  # version of the cuDNN actually loaded
    loaded_libraries: tuple[str, ...] = ()  # CUDA libraries mapped into the process
    op_results: tuple[str, ...] = ()  # per visible device: "ok" or the error text
    warnings: tuple[str, ...] = ()  # warnings the import / CUDA init printed
    timed_out: bool = False
    duration_s: float | None = None


@frozen
class Framework:
    """One installed framework (torch, tensorflow, jax, cupy...), read from its files."""

    name: str  # "torch" | "tensorflow" | "jax" | "cupy"
    version: Fact[str] = UNKNOWN  # "2.14.1+cu130"
    location: str | None = None
    # "cuda" | "cpu" | "rocm" | "xpu" | "mps"
    build: Fact[str] = UNKNOWN
    cuda: Fact[str] = UNKNOWN  # CUDA it was built with, "13.0"
    cudnn: Fact[str] = UNKNOWN  # cuDNN it was built with / pins
    nccl: Fact[str] = UNKNOWN
    # ("sm_75", "sm_80", ..., "compute_120"): SASS targets and embedded PTX
    arch_list: Fact[tuple[str, ...]] = UNKNOWN
    requires_python: str | None = None
    deep: DeepResult | None = None
    # The C++ ABI its libraries use (_GLIBCXX_USE_CXX11_ABI), read from the
    # mangled names libc10.so exports; extensions built with the other ABI fail
    # with "undefined symbol".
    cxx11_abi: Fact[bool] = UNKNOWN
    # The wheel's platform tag ("manylinux_2_28_x86_64"): the glibc floor it declares.
    wheel_platform: Fact[str] = UNKNOWN


@frozen
class Companion:
    """A library built for (or pinned to) a framework: torchvision, xformers,
    vLLM, flash-attn, triton, bitsandbytes, DeepSpeed..."""

    name: str  # normalized dist name: "torchvision", "flash-attn"
    framework: str = "torch"  # the framework it pairs with
    version: Fact[str] = UNKNOWN  # "0.21.0+cu124"
    location: str | None = None
    # What its METADATA requires of the framework: "==2.6.0", ">=2.0,<3".
    requires_framework: Fact[str] = UNKNOWN
    # What the framework's METADATA requires of it (torch pins triton): "==3.2.0".
    pinned_by_framework: Fact[str] = UNKNOWN
    # The wheel's local version label, "cu12torch2.6cxx11abiFALSE" or "cu124".
    build_tag: Fact[str] = UNKNOWN
    # For compiled extensions: what the binary was built against.
    built_framework: Fact[str] = UNKNOWN  # "2.6" (series) or "2.6.0"
    # "12.4", or "12.x" when only the major is recorded; bitsandbytes, which ships one
    # library per CUDA runtime, lists them: "11.8,12.4".
    built_cuda: Fact[str] = UNKNOWN
    cxx11_abi: Fact[bool] = UNKNOWN
    arch_list: Fact[tuple[str, ...]] = UNKNOWN
    # DeepSpeed: C++/CUDA ops compiled into the wheel; () means every op is JIT-built.
    prebuilt_ops: Fact[tuple[str, ...]] = UNKNOWN
    requires_python: str | None = None
    # --deep: "ok", or the error importing it after torch gave ("ImportError: ...undefined symbol...").
    deep_import: Fact[str] = UNKNOWN


@frozen
class ProbeError:
    """A probe that crashed: a bug in gpudoctor, reported, never fatal."""

    probe: str
    error: str


@frozen
class Snapshot:
    """Every fact one probe run found: the input of the rules (`check --from` replays it)."""

    schema_version: int = SCHEMA_VERSION
    gpudoctor_version: str = __version__
    origin: str = "live"  # "live" | "diagnose" | "file"
    created: str = ""
    system: System = field(default_factory=System)
    driver: Driver = field(default_factory=Driver)
    gpus: tuple[Gpu, ...] | None = None
    visibility: Visibility = field(default_factory=Visibility)
    cuda_runtimes: tuple[CudaRuntime, ...] | None = None
    cudnn: tuple[Library, ...] | None = None
    nccl: tuple[Library, ...] | None = None
    frameworks: tuple[Framework, ...] | None = None
    companions: tuple[Companion, ...] | None = None
    probe_errors: tuple[ProbeError, ...] = ()

    def framework(self, name: str) -> Framework | None:
        for fw in self.frameworks or ():
            if fw.name == name:
                return fw
        return None

    def companion(self, name: str) -> Companion | None:
        for c in self.companions or ():
            if c.name == name:
                return c
        return None

    def visible_gpus(self) -> tuple[Gpu, ...] | None:
        """GPUs a CUDA program would see, in CUDA order (all when unknown)."""
        if self.gpus is None:
            return None
        if self.visibility.visible is None:
            return self.gpus
        by_index = {g.index: g for g in self.gpus}
        return tuple(by_index[i] for i in self.visibility.visible if i in by_index)

    def to_dict(self) -> dict:
        return to_data(self)

    @classmethod
    def from_dict(cls, data: object) -> Snapshot:
        """Rebuild from JSON data; raises serde.DataError naming the bad key."""
        return from_data(cls, data, "snapshot")
