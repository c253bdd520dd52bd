"""Small helpers shared by the rule families: evidence from facts, GPU labels,
and the distribution-specific commands fixes need."""

from __future__ import annotations

from gpudoctor.findings import Evidence
from gpudoctor.rules.rule import Unknown
from gpudoctor.snapshot import Fact, Framework, Gpu, Snapshot
from gpudoctor.versions import ComputeCapability, compute_capability


def ev(name: str, f: Fact) -> Evidence:
    value = f.value
    if isinstance(value, (tuple, list)):
        value = ", ".join(str(v) for v in value) or "(empty)"
    return Evidence(name, str(value), f.source or "unknown")


def ev_value(name: str, value: object, source: str) -> Evidence:
    return Evidence(name, str(value), source)


def gpu_label(g: Gpu) -> str:
    cc = f", sm_{g.compute_capability.replace('.', '')}" if g.compute_capability else ""
    return f"GPU {g.index} ({g.name}{cc})"


def gpu_cc(g: Gpu) -> ComputeCapability | None:
    return compute_capability(g.compute_capability)


def gpu_evidence(g: Gpu) -> Evidence:
    return Evidence(f"gpus[{g.index}].compute_capability", str(g.compute_capability), g.source)


def need_gpus(snap: Snapshot) -> tuple[Gpu, ...]:
    """The GPUs a CUDA program would see; Unknown when nobody could tell."""
    gpus = snap.visible_gpus()
    if gpus is None:
        raise Unknown("the GPUs are unknown")
    return gpus


def cuda_frameworks(snap: Snapshot) -> list[Framework]:
    """Installed frameworks built for CUDA."""
    return [fw for fw in snap.frameworks or () if fw.build.value == "cuda"]


def floor_from_image(snap: Snapshot, fw: Framework) -> bool:
    """A framework inside a base image whose release notes state the driver floor: that
    floor (GD209), with the data-center branches the image's CUDA forward compatibility
    allows, decides instead of the CUDA version's minor-version compatibility."""
    return (snap.system.image_driver_floor.known and snap.system.image.known
            and fw.location == snap.system.image.value)


def need_frameworks(snap: Snapshot) -> tuple[Framework, ...]:
    if snap.frameworks is None:
        raise Unknown("the installed frameworks are unknown")
    return snap.frameworks


def fw_label(fw: Framework) -> str:
    return f"{fw.name} {fw.version.value}" if fw.version.known else fw.name


def distro(snap: Snapshot) -> str:
    """'ubuntu' | 'debian' | 'rhel' | 'other', from os-release, for fix commands."""
    rel = (snap.system.os_release.value or "").lower()
    for key, name in (("ubuntu", "ubuntu"), ("debian", "debian"), ("red hat", "rhel"), ("rocky", "rhel"),
                      ("alma", "rhel"), ("centos", "rhel"), ("fedora", "rhel"), ("amazon linux", "rhel")):
        if key in rel:
            return name
    return "other"


def driver_install_commands(snap: Snapshot, branch: int) -> tuple[str, ...]:
    """Commands that install an NVIDIA driver of at least `branch` on this OS.
    Inside a container they target the host: a container runs on the host's
    kernel module, and a driver installed in the image cannot replace it."""
    if snap.system.container.value not in (None, "none") and not snap.system.wsl.value:
        return (f"# on the host, not in this {snap.system.container.value} container: the driver belongs to the host",
                f"# install NVIDIA driver {branch} or newer there (https://www.nvidia.com/Download/index.aspx), "
                "then check it:",
                "nvidia-smi",
                "# then restart the container with GPU access:",
                "docker run --gpus all IMAGE ...   # podman: --device nvidia.com/gpu=all")
    if (snap.system.os.value or "linux") == "windows":
        return ("Download and install the latest Game Ready / Studio or data-center driver from "
                "https://www.nvidia.com/Download/index.aspx",)
    d = distro(snap)
    if d == "ubuntu":
        return ("sudo apt-get update",
                f"sudo apt-get install -y nvidia-driver-{branch}   # servers: nvidia-driver-{branch}-server",
                "sudo reboot")
    if d == "debian":
        return ("# add NVIDIA's CUDA repository first: https://developer.nvidia.com/cuda-downloads",
                f"sudo apt-get install -y cuda-drivers-{branch}",
                "sudo reboot")
    if d == "rhel":
        return (f"sudo dnf module install -y nvidia-driver:{branch}-open   # or :{branch}-dkms for pre-Turing GPUs",
                "sudo reboot")
    return (f"Install NVIDIA driver {branch} or newer: https://www.nvidia.com/Download/index.aspx", "sudo reboot")


# Where the dynamic loader finds a library without being told: LD_LIBRARY_PATH,
# the system linker cache, an activated conda environment.
GLOBAL_KINDS = ("ld-library-path", "system", "conda")


def on_search_path(item) -> bool:
    """A CudaRuntime or Library any program could load by soname alone."""
    return bool(getattr(item, "ld_library_path", False)) or item.kind in GLOBAL_KINDS
