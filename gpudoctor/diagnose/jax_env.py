"""`jax.print_environment_info()`: versions, the device list (which says
whether the CUDA backend initialised), the platform line, and nvidia-smi's
output (read by the nvidia-smi parser)."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_kernel

WHAT = "jax.print_environment_info"
_JAX = re.compile(r"^jax:[ \t]{1,10}(\d[\w.+]{0,40})[ \t]*$", re.M)
_JAXLIB = re.compile(r"^jaxlib:[ \t]{1,10}(\d[\w.+]{0,40})[ \t]*$", re.M)
_PYTHON = re.compile(r"^python:[ \t]{1,10}(\d\.\d{1,2}\.\d{1,3})", re.M)
_DEVICES = re.compile(r"^jax\.devices \((\d{1,4}) total, (\d{1,4}) local\): \[([^\n]{0,2000})\]", re.M)
_DEVICE_INFO = re.compile(r"^device info: ([^\n]{1,120}?)-(\d{1,3}), (\d{1,4}) local devices", re.M)
_PLATFORM = re.compile(r"^platform: uname_result\(([^\n]{0,600})\)", re.M)
_GPU_DEVICE = re.compile(r"\b(cuda|gpu|CudaDevice|GpuDevice|StreamExecutorGpuDevice)\((?:id=)?\d", re.I)


# A JAX device list printed anywhere ("[GpuDevice(id=0, process_index=0)]", early jax's "[GPUDevice(0)"):
# the CUDA backend came up, whatever version the reporter typed without its "+cuda" tag.
_GPU_DEVICE_LIST = re.compile(r"\[(?:CudaDevice|GpuDevice|StreamExecutorGpuDevice)\((?:id=)?\d", re.I)


def parse(p: Paste, f: Facts) -> None:
    for m in p.scan(_GPU_DEVICE_LIST, "device("):
        src = p.where("JAX device list", m.start(), claim=False)
        f.fw("jax", "build", "cuda", src)
        f.fw("jax", "is_available", True, src)
        break
    jax = _JAX.search(p.text)
    if not jax:
        return
    f.saw(WHAT)
    f.fw("jax", "version", jax.group(1), p.where(WHAT, jax.start()))
    lib = _JAXLIB.search(p.text)
    if lib:
        f.package("jaxlib", lib.group(1), p.where(WHAT, lib.start()))
    py = _PYTHON.search(p.text)
    if py:
        f.put("system.python", py.group(1), p.where(WHAT, py.start()))
    for m in _DEVICES.finditer(p.text):
        src = p.where(WHAT, m.start())
        if _GPU_DEVICE.search(m.group(3)):
            f.fw("jax", "build", "cuda", src)
            f.fw("jax", "is_available", True, src)
        elif "CpuDevice" in m.group(3) or "TFRT_CPU" in m.group(3):
            f.fw("jax", "is_available", False, src)
    for m in _DEVICE_INFO.finditer(p.text):
        src = p.where(WHAT, m.start())
        f.gpu(src, name=m.group(1).strip())
        f.fw("jax", "build", "cuda", src)
        f.fw("jax", "is_available", True, src)
    plat = _PLATFORM.search(p.text)
    if plat:
        fields = dict(re.findall(r"(\w+)='([^']{0,200})'", plat.group(1)))
        src = p.where(WHAT, plat.start())
        if fields.get("system"):
            note_kernel(f, fields["system"], src)
        if fields.get("system", "").lower() == "linux":
            f.put("system.kernel", fields.get("release"), src)
            if "microsoft" in fields.get("release", "").lower():
                f.put("system.wsl", True, src)
        if fields.get("machine"):
            f.put("system.machine", fields["machine"].lower(), src)
