"""The NVIDIA driver: kernel module, NVML, libcuda, and the CUDA API version.

Facts only. Sources, in order of trust: NVML (through the host's port), the
kernel module's /proc and /sys files, libcuda itself (cuDriverGetVersion and
cuInit in a time-limited subprocess, so a hanging driver cannot hang us), and
nvidia-smi only as a fallback when NVML is unusable.
"""

from __future__ import annotations

import json
import posixpath
import re

from gpudoctor.host import NvmlError
from gpudoctor.probes import smi
from gpudoctor.probes.context import Context
from gpudoctor.probes.locate import find_library, soname_version
from gpudoctor.scripts import script_path
from gpudoctor.snapshot import Driver, Fact, fact

PROC_VERSION = "/proc/driver/nvidia/version"
SYS_VERSION = "/sys/module/nvidia/version"
PROC_MODULES = "/proc/modules"
SYS_MODULES = "/sys/module"
CUDA_SCRIPT = script_path("cuda_driver.py")
# cuInit on a many-GPU machine without persistence mode can take seconds.
CUDA_PROBE_TIMEOUT_S = 15.0
NVML_LIB = "libnvidia-ml.so.1"
LIBCUDA = "libcuda.so.1"

_VERSION_TOKEN = re.compile(r"\b(\d+\.\d+(?:\.\d+)?)\b")

# NVML error names mapped to the words nvidia-smi uses for them.
NVML_MESSAGES = {
    "LibraryNotFound": "NVML shared library not found",
    "DriverNotLoaded": "NVIDIA driver is not loaded",
    "LibRmVersionMismatch": "Driver/library version mismatch",
    "NoPermission": "insufficient permissions",
    "Unknown": "unknown error",
}


def probe(ctx: Context) -> Driver:
    module_version, kernel_module = _kernel_module(ctx)
    nvml, nvml_version, nvml_cuda = _nvml(ctx)
    libcuda, cuda_api, cuinit, cuinit_error = _libcuda(ctx)
    smi_version = _smi_version(ctx) if nvml.value != "ok" else Fact()

    version = _first_known(nvml_version, module_version, smi_version)
    if not cuda_api.known and nvml_cuda.known:
        cuda_api = Fact(nvml_cuda.value, nvml_cuda.source, cuda_api.tried)
    return Driver(
        version=version,
        cuda_api=cuda_api,
        cuinit=cuinit,
        cuinit_error=cuinit_error,
        kernel_module=kernel_module,
        nouveau_loaded=_nouveau(ctx),
        nvml=nvml,
        libcuda=libcuda,
        library_version=_library_version(ctx, libcuda),
    )


def _first_known(*facts: Fact[str]) -> Fact[str]:
    tried: list[str] = []
    for f in facts:
        if f.known:
            return Fact(f.value, f.source, tuple(tried))
        tried.extend(f.tried)
    return Fact(None, "", tuple(tried))


def _kernel_module(ctx: Context) -> tuple[Fact[str], Fact[str]]:
    """(module version, flavor) from /proc/driver/nvidia/version, /sys/module."""
    text = ctx.host.read_text(PROC_VERSION, limit=4096)
    if text:
        first = text.splitlines()[0] if text.strip() else ""
        m = _VERSION_TOKEN.search(first)
        flavor = "open" if "open kernel module" in first.lower() else "proprietary"
        tried = [] if m else [f"{PROC_VERSION}: no version in {first!r}"]
        version = fact(m.group(1) if m else None, PROC_VERSION, tried)
        return version, Fact(flavor, PROC_VERSION)
    tried = [f"{PROC_VERSION}: absent"]
    sys_text = ctx.host.read_text(SYS_VERSION, limit=256)
    if sys_text and _VERSION_TOKEN.search(sys_text):
        version = _VERSION_TOKEN.search(sys_text).group(1)  # type: ignore[union-attr]
        # Loaded, but without the /proc file the flavor cannot be told.
        return Fact(version, SYS_VERSION, tuple(tried)), Fact("loaded", SYS_VERSION)
    tried.append(f"{SYS_VERSION}: absent")
    loaded = _module_loaded(ctx, "nvidia")
    if loaded.value is None:
        return Fact(None, "", tuple(tried)), Fact(None, "", (*tried, *loaded.tried))
    return Fact(None, "", tuple(tried)), Fact("loaded" if loaded.value else "not-loaded", loaded.source)


def _module_loaded(ctx: Context, name: str) -> Fact[bool]:
    """Whether kernel module `name` is loaded: /proc/modules, or /sys/module
    where the kernel has no /proc/modules (built without module unloading)."""
    modules = ctx.host.read_text(PROC_MODULES)
    if modules is not None:
        return Fact(any(line.split(" ", 1)[0] == name for line in modules.splitlines()), PROC_MODULES)
    if ctx.host.is_dir(SYS_MODULES):
        return Fact(ctx.host.exists(posixpath.join(SYS_MODULES, name)), SYS_MODULES)
    return Fact(None, "", (f"{PROC_MODULES}, {SYS_MODULES}: unreadable",))


def _nouveau(ctx: Context) -> Fact[bool]:
    return _module_loaded(ctx, "nouveau")


def _nvml(ctx: Context) -> tuple[Fact[str], Fact[str], Fact[str]]:
    """(status, driver version, CUDA API version) as NVML reports them."""
    candidates = find_library(ctx, NVML_LIB)
    if not candidates:
        # pynvml would only dlopen the same name and fail; not importing it
        # keeps the no-driver case fast.
        status = Fact("LibraryNotFound", f"search for {NVML_LIB}",
                      (f"{NVML_LIB}: not in LD_LIBRARY_PATH, /etc/ld.so.cache or the driver library dirs",))
        return status, Fact(None, "", ("nvml: LibraryNotFound",)), Fact()
    port, error = ctx.nvml_init()
    if port is None:
        assert error is not None
        message = str(error) if str(error) != error.name else NVML_MESSAGES.get(error.name, error.name)
        status = Fact(error.name, "nvml", (f"nvmlInit: {message}",))
        return status, Fact(None, "", (f"nvml: {error.name}",)), Fact()
    version = _nvml_call(port, "nvmlSystemGetDriverVersion")
    cuda = _nvml_call(port, "nvmlSystemGetCudaDriverVersion_v2")
    cuda_text = f"{cuda // 1000}.{cuda % 1000 // 10}" if isinstance(cuda, int) and cuda > 0 else None
    return (Fact("ok", "nvml"),
            fact(version if isinstance(version, str) else None, "nvml", ["nvmlSystemGetDriverVersion failed"]),
            fact(cuda_text, "nvml nvmlSystemGetCudaDriverVersion_v2"))


def _nvml_call(port, name: str):  # noqa: ANN001, ANN202 - NVML values are untyped
    try:
        return port.call(name)
    except NvmlError:
        return None


def _libcuda(ctx: Context) -> tuple[Fact[str], Fact[str], Fact[int], Fact[str]]:
    """(libcuda path, CUDA API version, cuInit result, its error name)."""
    candidates = find_library(ctx, LIBCUDA)
    if not candidates:
        why = (f"{LIBCUDA}: not in LD_LIBRARY_PATH, /etc/ld.so.cache or the driver library dirs",)
        return Fact(None, "", why), Fact(None, "", why), Fact(None, "", why), Fact(None, "", why)
    first_path, how = candidates[0]
    res = ctx.host.run([ctx.host.python, "-I", "-S", CUDA_SCRIPT, LIBCUDA], timeout=CUDA_PROBE_TIMEOUT_S)
    data = _json_line(res.stdout) if res.ok else None
    if data is None:
        why = (f"{LIBCUDA} probe: {res.describe()}",)
        return Fact(first_path, how), Fact(None, "", why), Fact(None, "", why), Fact(None, "", why)
    if "load_error" in data:
        why = (f"dlopen {LIBCUDA}: {data['load_error']}",)
        return Fact(first_path, how, why), Fact(None, "", why), Fact(None, "", why), Fact(None, "", why)
    path = data.get("path") if isinstance(data.get("path"), str) else None
    libcuda = Fact(path, "/proc/self/maps after dlopen") if path else Fact(first_path, how)
    version, rc = data.get("version"), data.get("get_version_rc")
    if isinstance(version, int) and version > 0 and rc == 0:
        cuda_api = Fact(f"{version // 1000}.{version % 1000 // 10}", f"{LIBCUDA} cuDriverGetVersion")
    else:
        cuda_api = Fact(None, "", (f"cuDriverGetVersion returned {rc}, version {version}",))
    cuinit = data.get("cuinit")
    name = data.get("cuinit_name")
    return (libcuda, cuda_api,
            fact(cuinit if isinstance(cuinit, int) else None, f"{LIBCUDA} cuInit(0)"),
            fact(name if isinstance(name, str) else None, f"{LIBCUDA} cuGetErrorName"))


def _json_line(text: str) -> dict | None:
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def _smi_version(ctx: Context) -> Fact[str]:
    answer = smi.query(ctx)
    versions = [r.get("driver_version") for r in answer.rows if r.get("driver_version")]
    if versions:
        return Fact(versions[0], "nvidia-smi")
    return Fact(None, "", answer.tried())


def _library_version(ctx: Context, libcuda: Fact[str]) -> Fact[str]:
    """The user-space driver release, from the file names the driver installs
    (libcuda.so.1 -> libcuda.so.580.65.06; libnvidia-ml.so.1 likewise)."""
    tried = []
    paths = [libcuda.value] if libcuda.known else []
    paths += [p for p, _ in find_library(ctx, NVML_LIB)]
    for path in paths:
        assert path is not None
        real = ctx.host.realpath(path)
        stem = "libcuda.so" if "libcuda" in posixpath.basename(path) else "libnvidia-ml.so"
        version = soname_version(real, stem)
        if version and re.fullmatch(r"\d{3,}\.\d+(?:\.\d+)?", version):  # not WSL's "1.1"
            return Fact(version, f"{path} -> {posixpath.basename(real)}")
        tried.append(f"{path} -> {posixpath.basename(real)}: no driver release in the name")
    if not paths:
        tried.append(f"{LIBCUDA}, {NVML_LIB}: not found")
    return Fact(None, "", tuple(tried))
