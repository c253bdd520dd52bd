"""GD1xx: the NVIDIA driver, its kernel module, NVML and cuInit."""

from __future__ import annotations

from gpudoctor.compat import arch_driver_verdict
from gpudoctor.findings import Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.common import driver_install_commands, ev, ev_value, gpu_cc, gpu_evidence, gpu_label
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Snapshot

FAMILY = "driver"
# The branch to recommend: the long-term branch that runs CUDA 12.x and 13.x
# and is the last for Maxwell, Pascal and Volta (see matrices/cuda.toml).
RECOMMENDED_BRANCH = 580

# The category a failing cuInit belongs to; what each CUresult means and how to
# fix it lives in gpudoctor/cuerrors.py, shared with `gpudoctor smoke`.
CUINIT_CATEGORY = {
    34: "library-conflict",  # the toolkit's stub libcuda was loaded
    100: "container-no-gpu",  # no device visible
    803: "driver-library-mismatch",  # user-space libcuda vs kernel driver
    804: "driver-library-mismatch",  # forward-compatibility libcuda on an unsupported GPU
}


def _driver_present(s: Snapshot) -> bool | None:
    d = s.driver
    if d.nvml.value == "ok" or d.version.known or d.kernel_module.value in ("open", "proprietary", "loaded"):
        return True
    if s.system.wsl.value and s.system.wsl_libcuda.known:
        return True
    if d.kernel_module.value == "not-loaded" or d.nvml.value in ("LibraryNotFound", "DriverNotLoaded"):
        return False
    return None


def _userspace_installed(s: Snapshot) -> bool:
    return s.driver.libcuda.known or s.driver.nvml.value == "DriverNotLoaded"


def _in_container(s: Snapshot) -> bool:
    return s.system.container.value not in (None, "none")


@rule("GD101", "no-driver", "no-driver", Severity.ERROR,
      "No NVIDIA driver is installed or loaded.", FAMILY, since="0.1.0")
def no_driver(s: Snapshot, m: Matrices) -> Findings:
    present = _driver_present(s)
    if present is None:
        raise Unknown("no driver facts were read")
    if present or _userspace_installed(s) or _in_container(s) or s.system.wsl.value:
        return  # GD102, GD607 and GD609 explain those cases better
    yield no_driver.finding(
        "No NVIDIA driver: no kernel module, no NVML, no libcuda",
        evidence=[ev("driver.kernel_module", s.driver.kernel_module),
                  ev("driver.nvml", s.driver.nvml), ev("driver.libcuda", s.driver.libcuda)],
        fix=Fix(f"Install an NVIDIA driver. Branch {RECOMMENDED_BRANCH} runs CUDA 12.x and 13.x builds "
                f"(13.x needs >= 580.65.06) and still supports Maxwell, Pascal and Volta GPUs. "
                "On a machine without an NVIDIA GPU, frameworks run on the CPU only.",
                driver_install_commands(s, RECOMMENDED_BRANCH)),
    )


@rule("GD102", "kernel-module-not-loaded", "no-driver", Severity.ERROR,
      "The driver's libraries are installed but its kernel module is not loaded.", FAMILY, since="0.1.0")
def module_not_loaded(s: Snapshot, m: Matrices) -> Findings:
    if s.driver.kernel_module.value is None:
        raise Unknown("whether the kernel module is loaded is unknown")
    if s.driver.kernel_module.value != "not-loaded" or not _userspace_installed(s):
        return
    if s.system.wsl.value or _in_container(s):
        return
    yield module_not_loaded.finding(
        "NVIDIA driver installed but its kernel module is not loaded",
        evidence=[ev("driver.kernel_module", s.driver.kernel_module), ev("driver.nvml", s.driver.nvml),
                  ev("driver.libcuda", s.driver.libcuda)],
        fix=Fix("Load the module and read why it failed: a kernel update without a rebuilt module (DKMS), "
                "Secure Boot refusing an unsigned module, or nouveau holding the GPU.",
                ("sudo modprobe nvidia", "sudo dmesg | grep -i -E 'nvidia|nvrm' | tail -20",
                 "dkms status", "mokutil --sb-state")),
    )


@rule("GD103", "nouveau-loaded", "no-driver", Severity.ERROR,
      "The open-source nouveau driver is loaded and blocks the NVIDIA driver.", FAMILY, since="0.1.0")
def nouveau(s: Snapshot, m: Matrices) -> Findings:
    if s.driver.nouveau_loaded.value is None:
        raise Unknown("whether nouveau is loaded is unknown")
    if not s.driver.nouveau_loaded.value:
        return
    rebuild = "sudo dracut --force" if s.system.os_release.value and any(
        k in s.system.os_release.value.lower() for k in ("red hat", "rocky", "alma", "fedora", "centos")) \
        else "sudo update-initramfs -u"
    yield nouveau.finding(
        "nouveau is loaded: the NVIDIA driver cannot bind the GPU",
        evidence=[ev("driver.nouveau_loaded", s.driver.nouveau_loaded)],
        fix=Fix("Blacklist nouveau, rebuild the initramfs and reboot; then install or load the NVIDIA driver.",
                ("printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | "
                 "sudo tee /etc/modprobe.d/blacklist-nouveau.conf", rebuild, "sudo reboot")),
    )


@rule("GD104", "nvml-driver-library-mismatch", "driver-library-mismatch", Severity.ERROR,
      "NVML reports 'Driver/library version mismatch': the driver was upgraded without a reboot.", FAMILY, since="0.1.0")
def rm_mismatch(s: Snapshot, m: Matrices) -> Findings:
    if s.driver.nvml.value is None:
        raise Unknown("NVML was not queried")
    if s.driver.nvml.value != "LibRmVersionMismatch":
        return
    yield rm_mismatch.finding(
        "Driver/library version mismatch: the loaded kernel module is older than the installed libraries",
        evidence=[ev("driver.nvml", s.driver.nvml), ev("driver.version", s.driver.version)],
        fix=Fix("The user-space driver was upgraded but the old kernel module is still loaded. Reboot; or, "
                "with no process using the GPU, reload the modules.",
                ("sudo reboot", "# or, when nothing uses the GPU:",
                 "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia")),
    )


@rule("GD105", "cuinit-failed", "hardware-health", Severity.ERROR,
      "NVML or the kernel module work, but cuInit fails: CUDA programs cannot start.", FAMILY, since="0.1.0")
def cuinit_failed(s: Snapshot, m: Matrices) -> Findings:
    code = s.driver.cuinit.value
    if code is None:
        raise Unknown("cuInit was not tried")
    if code == 0:
        return
    from gpudoctor import cuerrors  # its table is built only when cuInit failed

    err = cuerrors.describe(code)
    category = CUINIT_CATEGORY.get(code, "hardware-health")
    yield cuinit_failed.finding(
        f"cuInit(0) fails with {cuerrors.label(code)}" + (" although NVML works" if s.driver.nvml.value == "ok" else ""),
        category=category,
        evidence=[ev("driver.cuinit", s.driver.cuinit), ev("driver.nvml", s.driver.nvml),
                  ev("driver.libcuda", s.driver.libcuda)],
        fix=Fix(f"{err.meaning[:1].upper()}{err.meaning[1:]}. {err.fix}", err.commands or (cuerrors.XID,)),
    )


@rule("GD106", "driver-sees-no-gpu", "no-driver", Severity.ERROR,
      "The driver is loaded but reports no GPU.", FAMILY, since="0.1.0")
def no_gpu(s: Snapshot, m: Matrices) -> Findings:
    if s.gpus is None or s.driver.nvml.value != "ok":
        raise Unknown("NVML's device list is unknown")
    if s.gpus:
        return
    yield no_gpu.finding(
        "NVML works but lists no GPU",
        evidence=[ev("driver.nvml", s.driver.nvml), ev_value("gpus", 0, "nvml")],
        fix=Fix("The GPU may have fallen off the bus (Xid 79) or be held by vfio-pci; check the kernel log "
                "and the PCI device's driver.", ("sudo dmesg | grep -i -E 'xid|nvrm' | tail -20",
                                                 "lspci -nnk -d 10de:")),
    )


@rule("GD107", "driver-branch-end-of-life", "info", Severity.INFO,
      "The driver branch has reached its end of life.", FAMILY, since="0.1.0")
def branch_eol(s: Snapshot, m: Matrices) -> Findings:
    version = s.driver.version.value
    if not version or not s.created:
        raise Unknown("the driver version or the snapshot date is unknown")
    branch = version.split(".", 1)[0]
    for row in m.driver_branches:
        if str(row.branch) == branch and row.end_of_life and row.end_of_life < s.created[:7]:
            yield branch_eol.finding(
                f"Driver branch R{branch} reached end of life in {row.end_of_life}",
                evidence=[ev("driver.version", s.driver.version),
                          ev_value("driver_branch.end_of_life", row.end_of_life, row.source)],
                fix=Fix("Move to a maintained long-term branch when convenient; it gets security fixes.",
                        driver_install_commands(s, RECOMMENDED_BRANCH)),
            )


@rule("GD108", "driver-cannot-run-gpu-architecture", "driver-too-old-for-runtime", Severity.ERROR,
      "The driver branch does not support this GPU's architecture: too old for it, or past its last branch.",
      FAMILY, since="0.1.0")
def arch_driver(s: Snapshot, m: Matrices) -> Findings:
    version = s.driver.version.value
    if not version:
        raise Unknown("the driver version is unknown")
    if s.gpus is None:
        raise Unknown("the GPUs are unknown")
    os_name = "windows" if (s.system.os.value or "linux") == "windows" else "linux"
    judged = 0
    for g in s.gpus:
        cc = gpu_cc(g)
        verdict = arch_driver_verdict(cc, version, os_name, m) if cc else None
        if verdict is None:
            continue
        judged += 1
        if verdict.ok:
            continue
        floor = (verdict.need or "").removeprefix("driver >= ")
        too_old = verdict.need is not None and verdict.need.startswith("driver >=")
        branch = max(RECOMMENDED_BRANCH, int(floor.split(".")[0])) if too_old and floor else RECOMMENDED_BRANCH
        if not too_old:
            branch = int("".join(ch for ch in (verdict.need or "") if ch.isdigit()) or RECOMMENDED_BRANCH)
        text = (f"Upgrade the driver to >= {floor}: no CUDA build, however old, runs on {gpu_label(g)} "
                "with this driver (minor-version compatibility covers the CUDA runtime, not the GPU)."
                if too_old else
                f"Install a driver of branch R{branch} (the last one for this GPU), or move the workload "
                "to a newer GPU.")
        yield arch_driver.finding(
            f"Driver {version} cannot run {gpu_label(g)}: {verdict.text}",
            evidence=[gpu_evidence(g), ev("driver.version", s.driver.version),
                      ev_value("arch_driver", verdict.need, verdict.source)],
            fix=Fix(text, driver_install_commands(s, branch)),
        )
    if not judged:
        raise Unknown("no GPU with a known compute capability and architecture row")


RULES: tuple[Rule, ...] = (
    no_driver,
    module_not_loaded,
    nouveau,
    rm_mismatch,
    cuinit_failed,
    no_gpu,
    branch_eol,
    arch_driver,
)
