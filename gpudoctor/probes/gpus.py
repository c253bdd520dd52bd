"""Every GPU NVML can see, attribute by attribute.

An attribute this GPU or driver does not offer (NVML NotSupported) is None;
any other failure is None plus a line in Gpu.errors, and a device whose handle
cannot even be had (GpuIsLost) is still listed. When NVML is unusable but
nvidia-smi works, its CSV answer fills what it can.
"""

from __future__ import annotations

import posixpath
from typing import Any

from gpudoctor.host import NvmlError, NvmlPort
from gpudoctor.probes import smi
from gpudoctor.probes.context import Context
from gpudoctor.snapshot import Gpu, GpuProcess

MIB = 1024 * 1024
PCI_DEVICES = "/sys/bus/pci/devices"
NVIDIA_PCI_VENDOR = "0x10de"
# NVML enum values (nvml.h): nvmlMemoryErrorType_t, nvmlEccCounterType_t.
NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
NVML_VOLATILE_ECC = 0
# Errors that only mean "this GPU/driver does not offer it".
_ABSENT = {"NotSupported", "FunctionNotFound", "NotFound", "NoData"}

# nvmlClocksEventReason* bits (nvml.h; "ThrottleReason" before NVML 12.535).
THROTTLE_REASONS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
    (0x200, "board_limit"),
    (0x400, "reliability"),
)


def decode_throttle_reasons(mask: int) -> tuple[str, ...]:
    names = [name for bit, name in THROTTLE_REASONS if mask & bit]
    rest = mask & ~sum(bit for bit, _ in THROTTLE_REASONS)
    if rest:
        names.append(f"unknown_{rest:#x}")
    return tuple(names)


def probe(ctx: Context, nvml_status: str | None = None) -> tuple[Gpu, ...]:
    """`nvml_status` is the driver probe's Driver.nvml value: NVML is only
    initialised here when the driver probe did not rule it out."""
    if nvml_status in (None, "ok"):
        port, _ = ctx.nvml_init()
        if port is not None:
            return _from_nvml(ctx, port)
    answer = smi.query(ctx)
    if answer.rows:
        return tuple(_from_smi(row, i) for i, row in enumerate(answer.rows))
    return _from_pci(ctx)


def _from_pci(ctx: Context) -> tuple[Gpu, ...]:
    """NVIDIA display controllers on the PCI bus, from sysfs: GPUs that are
    present even though no driver answers for them."""
    gpus = []
    for dev in ctx.host.glob(PCI_DEVICES + "/*"):
        vendor = (ctx.host.read_text(dev + "/vendor", limit=64) or "").strip().lower()
        pci_class = (ctx.host.read_text(dev + "/class", limit=64) or "").strip().lower()
        if vendor != NVIDIA_PCI_VENDOR or not pci_class.startswith("0x03"):
            continue  # NVIDIA audio / USB functions of a GPU board are not GPUs
        device = (ctx.host.read_text(dev + "/device", limit=64) or "").strip().lower().removeprefix("0x")
        gpus.append(Gpu(index=len(gpus), name=f"NVIDIA PCI device 10de:{device or '?'}",
                        source=PCI_DEVICES, pci_bus_id=posixpath.basename(dev)))
    return tuple(gpus)


class _Device:
    """Calls for one device; collects the failures that are not 'not offered'."""

    def __init__(self, port: NvmlPort, handle: Any) -> None:
        self.port, self.handle = port, handle
        self.errors: list[str] = []

    def get(self, name: str, *args: Any) -> Any:
        try:
            value = self.port.call(name, self.handle, *args)
        except NvmlError as exc:
            if exc.name not in _ABSENT:
                self.errors.append(f"{name}: {exc.name}")
            return None
        return value.decode(errors="replace") if isinstance(value, bytes) else value

    def first(self, *names: str) -> Any:
        """The first of several spellings NVML offers (old and new names)."""
        for name in names:
            try:
                return self.port.call(name, self.handle)
            except NvmlError as exc:
                if exc.name == "FunctionNotFound":
                    continue
                if exc.name not in _ABSENT:
                    self.errors.append(f"{name}: {exc.name}")
                return None
        return None


def _from_nvml(ctx: Context, port: NvmlPort) -> tuple[Gpu, ...]:
    try:
        count = port.call("nvmlDeviceGetCount")
    except NvmlError as exc:
        return (Gpu(index=-1, name="unknown", errors=(f"nvmlDeviceGetCount: {exc.name}",)),)
    gpus = []
    if not isinstance(count, int) or count < 0:
        return (Gpu(index=-1, name="unknown", errors=(f"nvmlDeviceGetCount: answered {str(count)[:40]!r}",)),)
    for index in range(min(count, smi.MAX_GPUS)):  # no machine has more; a broken NVML must not loop for ever
        try:
            handle = port.call("nvmlDeviceGetHandleByIndex", index)
        except NvmlError as exc:
            gpus.append(Gpu(index=index, name="unknown", errors=(f"nvmlDeviceGetHandleByIndex: {exc.name}",)))
            continue
        gpus.append(_one(ctx, _Device(port, handle), index))
    return tuple(gpus)


def _one(ctx: Context, dev: _Device, index: int) -> Gpu:
    pci = dev.get("nvmlDeviceGetPciInfo")
    cc = dev.get("nvmlDeviceGetCudaComputeCapability")
    mem = dev.get("nvmlDeviceGetMemoryInfo")
    mig = dev.get("nvmlDeviceGetMigMode")
    ecc = dev.get("nvmlDeviceGetEccMode")
    ecc_on = bool(ecc[0]) if _pair(ecc) else None
    remapped = dev.get("nvmlDeviceGetRemappedRows")
    remapped_ok = isinstance(remapped, (tuple, list)) and len(remapped) >= 4
    throttle = dev.first("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    pending = dev.get("nvmlDeviceGetRetiredPagesPendingStatus")
    persistence = dev.get("nvmlDeviceGetPersistenceMode")
    return Gpu(
        index=index,
        name=str(dev.get("nvmlDeviceGetName") or "unknown"),
        source="nvml",
        uuid=dev.get("nvmlDeviceGetUUID"),
        pci_bus_id=_text(getattr(pci, "busId", None)),
        compute_capability=f"{cc[0]}.{cc[1]}" if _pair(cc) else None,
        memory_total_mib=_mib(getattr(mem, "total", None)),
        memory_used_mib=_mib(getattr(mem, "used", None)),
        mig_mode=bool(mig[0]) if _pair(mig) else None,
        persistence_mode=bool(persistence) if isinstance(persistence, int) else None,
        ecc_enabled=ecc_on,
        ecc_uncorrected_volatile=(_int(dev.get("nvmlDeviceGetTotalEccErrors", NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                               NVML_VOLATILE_ECC)) if ecc_on else None),
        retired_pages_pending=bool(pending) if isinstance(pending, int) else None,
        remapped_rows_pending=bool(remapped[2]) if remapped_ok else None,
        remapped_rows_failure=bool(remapped[3]) if remapped_ok else None,
        pcie_gen_current=_int(dev.get("nvmlDeviceGetCurrPcieLinkGeneration")),
        pcie_gen_max=_int(dev.get("nvmlDeviceGetMaxPcieLinkGeneration")),
        pcie_width_current=_int(dev.get("nvmlDeviceGetCurrPcieLinkWidth")),
        pcie_width_max=_int(dev.get("nvmlDeviceGetMaxPcieLinkWidth")),
        throttle_reasons=decode_throttle_reasons(throttle) if isinstance(throttle, int) else None,
        processes=_processes(ctx, dev),
        errors=tuple(dev.errors),
    )


def _processes(ctx: Context, dev: _Device) -> tuple[GpuProcess, ...] | None:
    found: dict[int, GpuProcess] = {}
    answered = False
    for name in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
        procs = dev.get(name)
        if procs is None:
            continue
        answered = True
        for p in procs:
            pid = _int(getattr(p, "pid", None))
            if pid is None or pid in found:
                continue
            comm = ctx.host.read_text(posixpath.join("/proc", str(pid), "comm"), limit=256)
            found[pid] = GpuProcess(pid=pid, used_memory_mib=_mib(getattr(p, "usedGpuMemory", None)),
                                    name=comm.strip() if comm else None)
    return tuple(found.values()) if answered else None


def _from_smi(row: dict[str, str | None], position: int) -> Gpu:
    def num(key: str) -> int | None:
        value = row.get(key)
        try:
            number = float(value) if value is not None else None
        except ValueError:
            return None
        # nan, inf and negative counts are garbage, not facts
        return int(number) if number is not None and 0 <= number < 1e15 else None

    def flag(key: str) -> bool | None:
        value = (row.get(key) or "").lower()
        return True if value in ("enabled", "on") else False if value in ("disabled", "off") else None

    ecc = flag("ecc.mode.current")
    return Gpu(
        index=num("index") if num("index") is not None else position,
        name=row.get("name") or "unknown",
        source="nvidia-smi",
        uuid=row.get("uuid"),
        pci_bus_id=row.get("pci.bus_id"),
        compute_capability=row.get("compute_cap"),
        memory_total_mib=num("memory.total"),
        memory_used_mib=num("memory.used"),
        mig_mode=flag("mig.mode.current"),
        persistence_mode=flag("persistence_mode"),
        ecc_enabled=ecc,
        ecc_uncorrected_volatile=num("ecc.errors.uncorrected.volatile.total") if ecc else None,
        pcie_gen_current=num("pcie.link.gen.current"),
        pcie_gen_max=num("pcie.link.gen.max"),
        pcie_width_current=num("pcie.link.width.current"),
        pcie_width_max=num("pcie.link.width.max"),
    )


def _pair(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and len(value) >= 2 and all(isinstance(v, int) for v in value[:2])


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mib(value: Any) -> int | None:
    return value // MIB if isinstance(value, int) and value >= 0 else None


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value if isinstance(value, str) else None
