"""The operating system, the target Python, containers and WSL.

Facts only: whether a container has /dev/nvidia* passed in, or a WSL machine
has a Linux driver installed inside it, is recorded here and judged by rules.
"""

from __future__ import annotations

import posixpath
import re

from gpudoctor.probes.context import Context
from gpudoctor.probes.locate import find_library
from gpudoctor.snapshot import Fact, System, fact

OS_RELEASE = ("/etc/os-release", "/usr/lib/os-release")
PROC_VERSION = "/proc/version"
WSL_LIBCUDA = "/usr/lib/wsl/lib/libcuda.so.1"
# Native Linux driver locations that shadow the WSL one when present.
LINUX_LIBCUDA_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib")


def probe(ctx: Context) -> System:
    t = ctx.target
    wsl = _wsl(ctx)
    return System(
        os=fact(t.system.lower() or None, t.source),
        os_release=_os_release(ctx),
        kernel=_kernel(ctx),
        machine=fact(t.machine or None, t.source),
        glibc=fact(t.libc.split()[-1] if t.libc and t.libc.startswith("glibc") else None,
                   f"{t.source} confstr CS_GNU_LIBC_VERSION", [] if t.libc else ["libc: unknown"]),
        python=Fact(t.version, t.source),
        python_executable=Fact(t.executable, t.source),
        environment=_environment(ctx),
        container=_container(ctx),
        gpu_device_nodes=_device_nodes(ctx),
        wsl=wsl,
        wsl_libcuda=(Fact(WSL_LIBCUDA, WSL_LIBCUDA) if ctx.host.exists(WSL_LIBCUDA)
                     else Fact(None, "", (f"{WSL_LIBCUDA}: absent",))),
        wsl_linux_driver=_wsl_linux_driver(ctx) if wsl.value else Fact(None, "", ("not WSL",)),
        jetson_model=_jetson_model(ctx),
        l4t_release=_l4t_release(ctx),
    )


DEVICE_TREE_MODEL = "/proc/device-tree/model"
NV_TEGRA_RELEASE = "/etc/nv_tegra_release"
_L4T = re.compile(r"#\s*R(\d+)\s*\(release\),\s*REVISION:\s*([\d.]+)")


def _jetson_model(ctx: Context) -> Fact[str]:
    """'NVIDIA Jetson AGX Orin Developer Kit': the device tree names the board (NUL-terminated)."""
    text = ctx.host.read_text(DEVICE_TREE_MODEL, limit=256)
    model = (text or "").replace("\x00", "").strip()
    if model and "jetson" in model.lower():
        return Fact(model, DEVICE_TREE_MODEL)
    why = f"{DEVICE_TREE_MODEL}: absent" if not model else f"{DEVICE_TREE_MODEL}: {model!r} is not a Jetson"
    return Fact(None, "", (why,))


def _l4t_release(ctx: Context) -> Fact[str]:
    """'# R36 (release), REVISION: 4.3, GCID: ...' -> '36.4.3'."""
    text = ctx.host.read_text(NV_TEGRA_RELEASE, limit=4096)
    m = _L4T.search(text or "")
    if m:
        return Fact(f"{m.group(1)}.{m.group(2)}", NV_TEGRA_RELEASE)
    return Fact(None, "", (f"{NV_TEGRA_RELEASE}: {'absent' if text is None else 'no R<major> (release) line'}",))


def _os_release(ctx: Context) -> Fact[str]:
    for path in OS_RELEASE:
        text = ctx.host.read_text(path, limit=16384)
        if text:
            m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.MULTILINE)
            if m:
                return Fact(m.group(1), path)
    return Fact(None, "", tuple(f"{p}: absent" for p in OS_RELEASE))


def _kernel(ctx: Context) -> Fact[str]:
    text = ctx.host.read_text("/proc/sys/kernel/osrelease", limit=256)
    if text and text.strip():
        return Fact(text.strip(), "/proc/sys/kernel/osrelease")
    return fact(ctx.target.release or None, f"{ctx.target.source} platform.release()")


def _environment(ctx: Context) -> Fact[str]:
    t = ctx.target
    if t.is_venv:
        return Fact("venv", f"{t.source} sys.prefix != sys.base_prefix")
    if ctx.host.is_dir(posixpath.join(t.prefix, "conda-meta")):
        return Fact("conda", f"{t.prefix}/conda-meta")
    return Fact("system", f"{t.source} sys.prefix == sys.base_prefix")


def _container(ctx: Context) -> Fact[str]:
    if ctx.env.get("KUBERNETES_SERVICE_HOST"):
        return Fact("kubernetes", "KUBERNETES_SERVICE_HOST")
    if ctx.host.exists("/run/.containerenv"):
        return Fact("podman", "/run/.containerenv")
    if ctx.host.exists("/.dockerenv"):
        return Fact("docker", "/.dockerenv")
    cgroup = ctx.host.read_text("/proc/1/cgroup", limit=65536) or ""
    for word, kind in (("kubepods", "kubernetes"), ("docker", "docker"), ("libpod", "podman"),
                       ("lxc", "lxc"), ("containerd", "containerd")):
        if word in cgroup:
            return Fact(kind, "/proc/1/cgroup")
    return Fact("none", "no /.dockerenv, /run/.containerenv, KUBERNETES_SERVICE_HOST or container cgroup")


def _device_nodes(ctx: Context) -> Fact[tuple[str, ...]]:
    nodes = ctx.host.glob("/dev/nvidia*")
    if ctx.host.exists("/dev/dxg"):
        nodes.append("/dev/dxg")  # WSL2's GPU paravirtualisation device
    return Fact(tuple(sorted(nodes)), "/dev")


def _wsl(ctx: Context) -> Fact[bool]:
    for path in ("/proc/sys/kernel/osrelease", PROC_VERSION):
        text = ctx.host.read_text(path, limit=4096)
        if text is not None:
            return Fact("microsoft" in text.lower() or "wsl" in text.lower(), path)
    return Fact(None, "", (f"{PROC_VERSION}: unreadable",))


def _wsl_linux_driver(ctx: Context) -> Fact[str]:
    """Inside WSL the driver is Windows': a Linux driver installed in the
    distribution (its kernel module or its own libcuda) breaks CUDA."""
    if ctx.host.exists("/proc/driver/nvidia/version"):
        return Fact("/proc/driver/nvidia", "/proc/driver/nvidia/version")
    for path, how in find_library(ctx, "libcuda.so.1"):
        if posixpath.dirname(path) in LINUX_LIBCUDA_DIRS and not ctx.host.realpath(path).startswith("/usr/lib/wsl/"):
            return Fact(path, how)
    return Fact(None, "", ("no /proc/driver/nvidia, no libcuda.so.1 outside /usr/lib/wsl/lib",))
