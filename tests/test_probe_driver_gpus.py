"""Driver, GPU, system and visibility probes on FakeHost machines named after real situations."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from probe_builders import NVCC_13_0, Machine, nvml_for

from gpudoctor.host import NvmlError
from gpudoctor.probes import collect, smi
from gpudoctor.snapshot import GpuProcess

MIB = 1024 * 1024
PROC_535 = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
            "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n")
PROC_580_OPEN = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
                 "(dvs-builder@U22-I3-AE18-09-1)  Tue Oct  7 16:20:04 UTC 2025\n")
H100 = {
    "Name": "NVIDIA H100 80GB HBM3", "UUID": "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6",
    "PciInfo": SimpleNamespace(busId="00000000:17:00.0"), "CudaComputeCapability": (9, 0),
    "MemoryInfo": SimpleNamespace(total=80 * 1024 * MIB, used=1024 * MIB), "MigMode": [0, 0],
    "PersistenceMode": 1, "EccMode": [1, 1], "TotalEccErrors": 0,
    "RetiredPagesPendingStatus": NvmlError("NotSupported"),
    "RemappedRows": (0, 0, 0, 0), "CurrPcieLinkGeneration": 5, "MaxPcieLinkGeneration": 5,
    "CurrPcieLinkWidth": 16, "MaxPcieLinkWidth": 16, "CurrentClocksEventReasons": 0x1 | 0x4,
    "ComputeRunningProcesses": [SimpleNamespace(pid=4242, usedGpuMemory=1000 * MIB)],
    "GraphicsRunningProcesses": [],
}


def no_driver_toolkit_13() -> Machine:
    m = Machine()
    m.toolkit("/usr/local/cuda-13.0", dist_runtime="13.0.96", cudart="libcudart.so.13")
    m.file("/usr/local/cuda-13.0/bin/nvcc", b"\x7fELF").link("/usr/local/cuda", "/usr/local/cuda-13.0")
    m.command(["/usr/local/cuda-13.0/bin/nvcc", "--version"], NVCC_13_0)
    m.file("/usr/local/bin/nvcc", '#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n')
    m.host.executables["nvcc"] = "/usr/local/bin/nvcc"
    m.ld_cache.append("/usr/local/cuda-13.0/lib64/libcudart.so.13")
    m.file("/.dockerenv")
    return m


def driver_535_h100(gpus: list[dict] | None = None) -> Machine:
    m = Machine().driver_libs("535.104.05").file("/proc/driver/nvidia/version", PROC_535)
    m.file("/proc/modules", "nvidia_uvm 1 0 - Live 0x0\nnvidia 56463360 2 nvidia_uvm, Live 0x0\n")
    m.libcuda_answers(12020, 0, "CUDA_SUCCESS")
    m.host.fake_nvml = nvml_for(gpus if gpus is not None else [H100])
    for node in ("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"):
        m.file(node)
    m.file("/proc/4242/comm", "python3\n")
    return m


def test_no_driver_toolkit_13_0():
    host = no_driver_toolkit_13().finish()
    snap = collect(host)
    assert snap.probe_errors == ()
    d = snap.driver
    assert d.nvml.value == "LibraryNotFound" and d.kernel_module.value == "not-loaded"
    assert d.kernel_module.source == "/proc/modules" and d.nouveau_loaded.value is False
    assert not d.version.known and "/proc/driver/nvidia/version: absent" in d.version.tried
    assert not d.cuinit.known and not d.libcuda.known
    assert snap.gpus == () and snap.visibility.visible == ()
    (rt,) = snap.cuda_runtimes
    assert (rt.version, rt.path, rt.kind, rt.nvcc) == ("13.0.96", "/usr/local/cuda-13.0", "toolkit", "13.0.88")
    assert "nvidia_cuda_runtime-13.0.96.dist-info" in rt.source and "nvcc on PATH" in rt.source
    assert snap.system.container.value == "docker" and snap.system.gpu_device_nodes.value == ()
    assert snap.system.python.value == "3.11.7" and snap.system.environment.value == "system"
    # No libcuda, no nvidia-smi: nothing was run but the target and nvcc.
    assert [a[0] for a in host.ran] == ["/usr/bin/python3", "/usr/local/cuda-13.0/bin/nvcc"]


def test_driver_535_h100_nvml_ok():
    snap = collect(driver_535_h100().finish())
    assert snap.probe_errors == ()
    d = snap.driver
    assert (d.version.value, d.version.source) == ("535.104.05", "nvml")
    assert (d.cuda_api.value, d.cuda_api.source) == ("12.2", "libcuda.so.1 cuDriverGetVersion")
    assert (d.cuinit.value, d.cuinit_error.value) == (0, "CUDA_SUCCESS")
    assert d.kernel_module.value == "proprietary" and d.nvml.value == "ok"
    assert d.library_version.value == "535.104.05" and d.libcuda.value == "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    (g,) = snap.gpus
    assert (g.name, g.compute_capability, g.pci_bus_id) == ("NVIDIA H100 80GB HBM3", "9.0", "00000000:17:00.0")
    assert (g.memory_total_mib, g.memory_used_mib, g.mig_mode, g.persistence_mode) == (81920, 1024, False, True)
    assert (g.ecc_enabled, g.ecc_uncorrected_volatile, g.retired_pages_pending) == (True, 0, None)
    assert (g.remapped_rows_pending, g.remapped_rows_failure) == (False, False)
    assert (g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current, g.pcie_width_max) == (5, 5, 16, 16)
    assert g.throttle_reasons == ("gpu_idle", "sw_power_cap")
    assert g.processes == (GpuProcess(pid=4242, used_memory_mib=1000, name="python3"),)
    assert g.errors == ()
    assert snap.system.gpu_device_nodes.value == ("/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl")


def test_open_kernel_module_flavor():
    m = driver_535_h100().file("/proc/driver/nvidia/version", PROC_580_OPEN)
    snap = collect(m.finish())
    assert snap.driver.kernel_module.value == "open"


def test_one_lost_gpu_does_not_lose_the_others():
    lost = {"handle_error": NvmlError("GpuIsLost")}
    flaky = dict(H100, UUID="GPU-2", MemoryInfo=NvmlError("Unknown"))
    snap = collect(driver_535_h100([H100, lost, flaky]).finish())
    assert [g.index for g in snap.gpus] == [0, 1, 2]
    assert snap.gpus[1].errors == ("nvmlDeviceGetHandleByIndex: GpuIsLost",)
    assert snap.gpus[2].memory_total_mib is None and snap.gpus[2].errors == ("nvmlDeviceGetMemoryInfo: Unknown",)
    assert snap.gpus[2].name == "NVIDIA H100 80GB HBM3"


def test_nvml_rm_mismatch():
    m = Machine().file("/proc/driver/nvidia/version", PROC_535)
    m.file("/proc/modules", "nvidia 56463360 0 - Live 0x0\n")
    m.driver_libs("535.129.03")  # user-space libraries upgraded, kernel module not reloaded
    m.host.fake_nvml.init_error = "LibRmVersionMismatch"
    m.libcuda_answers(12020, 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")
    m.host.executables["nvidia-smi"] = "/usr/bin/nvidia-smi"
    m.command(["/usr/bin/nvidia-smi", *smi._argv("", smi.FIELDS)[1:]],
              "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.129\n",
              returncode=18)
    m.file("/sys/bus/pci/devices/0000:17:00.0/vendor", "0x10de\n")
    m.file("/sys/bus/pci/devices/0000:17:00.0/class", "0x030200\n")
    m.file("/sys/bus/pci/devices/0000:17:00.0/device", "0x2330\n")
    m.file("/sys/bus/pci/devices/0000:17:00.1/vendor", "0x10de\n")  # the board's audio function
    m.file("/sys/bus/pci/devices/0000:17:00.1/class", "0x040300\n")
    snap = collect(m.finish())
    d = snap.driver
    assert d.nvml.value == "LibRmVersionMismatch"
    assert any("Driver/library version mismatch" in t for t in d.nvml.tried)
    assert (d.version.value, d.version.source) == ("535.104.05", "/proc/driver/nvidia/version")
    assert d.library_version.value == "535.129.03"
    assert (d.cuinit.value, d.cuinit_error.value) == (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")
    (g,) = snap.gpus
    assert (g.name, g.source, g.pci_bus_id) == ("NVIDIA PCI device 10de:2330", "/sys/bus/pci/devices", "0000:17:00.0")


def test_nouveau_loaded():
    m = Machine().file("/proc/modules", "nouveau 2306048 3 - Live 0x0\ndrm 1 0 - Live 0x0\n")
    snap = collect(m.finish())
    assert snap.driver.nouveau_loaded.value is True
    assert snap.driver.kernel_module.value == "not-loaded"


def test_wsl2_libcuda():
    m = Machine().file("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n")
    m.file("/usr/lib/wsl/lib/libcuda.so.1", b"\x7fELF").file("/usr/lib/wsl/lib/libnvidia-ml.so.1", b"\x7fELF")
    m.file("/dev/dxg")
    m.ld_cache += ["/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"]
    m.libcuda_answers(12080, 0, "CUDA_SUCCESS", path="/usr/lib/wsl/lib/libcuda.so.1")
    m.host.fake_nvml = nvml_for([dict(H100, Name="NVIDIA GeForce RTX 4090", CudaComputeCapability=(8, 9))],
                                driver_version="572.16", cuda=12080)
    m.host.files.pop("/proc/modules")  # WSL kernels have no nvidia module
    snap = collect(m.finish())
    s = snap.system
    assert s.wsl.value is True and s.wsl_libcuda.value == "/usr/lib/wsl/lib/libcuda.so.1"
    assert not s.wsl_linux_driver.known and s.gpu_device_nodes.value == ("/dev/dxg",)
    assert snap.driver.version.value == "572.16" and snap.driver.cuda_api.value == "12.8"
    assert not snap.driver.library_version.known  # WSL's libcuda.so.1.1 carries no driver release
    assert snap.gpus[0].compute_capability == "8.9"


def test_wsl2_with_a_linux_driver_installed_inside():
    m = Machine().file("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n")
    m.file("/usr/lib/wsl/lib/libcuda.so.1", b"\x7fELF")
    m.driver_libs("550.54.14")  # someone ran the Linux .run installer inside WSL
    m.libcuda_answers(None, 100, "CUDA_ERROR_NO_DEVICE")
    m.host.fake_nvml.init_error = "DriverNotLoaded"
    snap = collect(m.finish())
    assert snap.system.wsl_linux_driver.value == "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    assert snap.driver.nvml.value == "DriverNotLoaded" and snap.driver.cuinit.value == 100
    assert not snap.driver.cuda_api.known


def test_container_without_dev_nvidia():
    m = Machine().file("/.dockerenv").file("/proc/1/cgroup", "0::/\n")
    snap = collect(m.finish())
    assert snap.system.container.value == "docker" and snap.system.gpu_device_nodes.value == ()
    k8s = Machine()
    k8s.host.environ["KUBERNETES_SERVICE_HOST"] = "10.0.0.1"
    assert collect(k8s.finish()).system.container.value == "kubernetes"
    podman = Machine().file("/run/.containerenv")
    assert collect(podman.finish()).system.container.value == "podman"
    bare = Machine().file("/proc/1/cgroup", "0::/init.scope\n")
    assert collect(bare.finish()).system.container.value == "none"


def test_nvidia_smi_fallback_fills_gpus():
    m = Machine().file("/proc/driver/nvidia/version", PROC_535)
    m.host.fake_nvml.init_error = "Unknown"
    m.driver_libs("535.104.05").libcuda_answers(12020, 0, "CUDA_SUCCESS")
    m.host.executables["nvidia-smi"] = "/usr/bin/nvidia-smi"
    row = ("0, Tesla T4, GPU-aaaa, 00000000:00:1E.0, 535.104.05, 7.5, 15360, 0, [N/A], Enabled, Enabled, 0, "
           "1, 3, 16, 16\n")
    m.command(["/usr/bin/nvidia-smi", *smi._argv("", smi.FIELDS)[1:]], row)
    snap = collect(m.finish())
    (g,) = snap.gpus
    assert (g.name, g.source, g.compute_capability, g.memory_total_mib) == ("Tesla T4", "nvidia-smi", "7.5", 15360)
    assert (g.mig_mode, g.persistence_mode, g.ecc_enabled, g.pcie_gen_current) == (None, True, True, 1)
    # NVML failed, so the kernel module's own file gives the version.
    assert (snap.driver.version.value, snap.driver.version.source) == ("535.104.05", "/proc/driver/nvidia/version")
    assert snap.driver.nvml.value == "Unknown"


def test_old_nvidia_smi_refusing_a_field_is_asked_again_with_fewer():
    m = Machine()
    m.host.executables["nvidia-smi"] = "/usr/bin/nvidia-smi"
    m.driver_libs("470.82.01")
    m.host.fake_nvml.init_error = "Unknown"
    m.libcuda_answers(11040, 0, "CUDA_SUCCESS")
    m.command(["/usr/bin/nvidia-smi", *smi._argv("", smi.FIELDS)[1:]],
              'Field "compute_cap" is not a valid field to query.\n', returncode=2)
    m.command(["/usr/bin/nvidia-smi", *smi._argv("", smi.BASIC_FIELDS)[1:]],
              "0, Tesla K80, GPU-k80, 00000000:04:00.0, 470.82.01, 11441, 0\n")
    snap = collect(m.finish())
    assert snap.gpus[0].name == "Tesla K80" and snap.gpus[0].compute_capability is None
    assert snap.driver.version.value == "470.82.01"


def test_hung_nvidia_smi_costs_no_more_than_its_timeout(monkeypatch):
    monkeypatch.setattr(smi, "SMI_TIMEOUT_S", 0.3)
    m = Machine()
    m.host.executables["nvidia-smi"] = "/usr/bin/nvidia-smi"
    m.command(["/usr/bin/nvidia-smi", *smi._argv("", smi.FIELDS)[1:]], hang_s=60)
    host = m.finish()
    start = time.monotonic()
    snap = collect(host)
    elapsed = time.monotonic() - start
    assert elapsed < 0.3 + 0.5
    assert snap.gpus == () and any("timed out" in t for t in snap.driver.version.tried)
    # It ran once, shared by the driver and GPU probes.
    assert sum(1 for argv in host.ran if argv[0] == "/usr/bin/nvidia-smi") == 1


def test_a_probe_that_raises_becomes_a_probe_error(monkeypatch):
    from gpudoctor.probes import cuda_runtime

    def boom(ctx):  # noqa: ANN001, ANN202
        raise RuntimeError("boom")

    monkeypatch.setattr(cuda_runtime, "probe", boom)
    snap = collect(no_driver_toolkit_13().finish())
    assert [(e.probe, e.error) for e in snap.probe_errors] == [("cuda_runtime", "RuntimeError: boom")]
    assert snap.cuda_runtimes is None  # unknown, not "none found"
    assert snap.driver.nvml.value == "LibraryNotFound" and snap.frameworks == ()


def test_progress_reports_each_probe():
    seen: list[str] = []
    collect(Machine().finish(), progress=seen.append)
    assert seen == ["system", "driver", "gpus", "visibility", "cuda_runtime", "cudnn", "nccl", "frameworks", "companions"]


def test_unscripted_commands_are_not_hidden():
    """A scenario missing a command must show up as a probe error, not pass silently."""
    m = driver_535_h100()
    m.host.commands = [c for c in m.host.commands if "cuda_driver.py" not in " ".join(c.argv)]
    snap = collect(m.finish())
    assert [e.probe for e in snap.probe_errors] == ["driver"]
    assert "unscripted command" in snap.probe_errors[0].error


@pytest.mark.parametrize("throttle, names", [
    (0, ()), (0x8 | 0x40, ("hw_slowdown", "hw_thermal_slowdown")), (0x1000, ("unknown_0x1000",)),
])
def test_throttle_reasons_decode(throttle, names):
    from gpudoctor.probes.gpus import decode_throttle_reasons

    assert decode_throttle_reasons(throttle) == names


def test_real_hung_nvidia_smi_is_killed_at_its_timeout(tmp_path, monkeypatch):
    """A real nvidia-smi that never answers (here a script that sleeps)."""
    from gpudoctor.host import RealHost

    monkeypatch.setattr(smi, "SMI_TIMEOUT_S", 0.5)
    hung = tmp_path / "nvidia-smi"
    hung.write_text("#!/bin/sh\nsleep 30\n")
    hung.chmod(0o755)
    host = RealHost(environ={"PATH": str(tmp_path)})
    from gpudoctor.probes.context import Context
    from gpudoctor.probes.target import interrogate

    start = time.monotonic()
    answer = smi.query(Context(host, interrogate(host)))
    elapsed = time.monotonic() - start
    assert elapsed < 0.5 + 2.5  # the timeout, plus reaping the killed process group
    assert not answer.ok and answer.rows == ()
    assert answer.tried() == (f"{hung} {' '.join(smi._argv('', smi.FIELDS)[1:])}: timed out after "
                              f"{answer.results[0].duration_s:.1f} s",)


def test_run_command_kills_a_sleeping_child_at_the_deadline():
    from gpudoctor.host import run_command

    start = time.monotonic()
    res = run_command(["sleep", "30"], timeout=0.3)
    assert res.timed_out and not res.ok and time.monotonic() - start < 2.5


def test_a_collected_snapshot_survives_json():
    from gpudoctor.snapshot import Snapshot

    snap = collect(driver_535_h100().finish())
    again = Snapshot.from_dict(snap.to_dict())
    assert again == snap and again.gpus[0].processes[0].name == "python3"
