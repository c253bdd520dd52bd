"""Startup banners of popular applications: ComfyUI (its log lines and the
"System Information" block of its error reports), Ultralytics / YOLOv5
(the one-line device banner and the `yolo checks` table), PaddlePaddle's
device notice (`paddle.utils.run_check()` and every GPU start) and llama.cpp's
system_info line."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts, Read
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_kernel, note_os

# ComfyUI writes "pytorch version:" in lower case; collect_env's "PyTorch version:" is not ComfyUI.
_COMFY_TORCH = re.compile(r"^[^\n]{0,60}?pytorch version: (\d[\w.+]{0,40})[ \t]*$", re.M)
_COMFY_DEVICE = re.compile(r"^[^\n]{0,60}?Device: cuda:(\d{1,2}) ([^\n:]{1,100}?)[ \t]{0,4}: (?:native|cudaMallocAsync)",
                           re.M)
_COMFY_VRAM = re.compile(r"Total VRAM (\d{1,7}) MB, total RAM (\d{1,8}) MB")
_COMFY_PLATFORM = re.compile(r"^\*\* Platform: (\w{1,20})", re.M)
_COMFY_PYTHON = re.compile(r"^\*\* Python version: (\d\.\d{1,2}\.\d{1,2})", re.M)
_COMFY_INFO = re.compile(r"^[ \t]{0,4}- \*\*(OS|Python Version|PyTorch Version|Name|VRAM Total):\*\* ([^\n]{1,200})$",
                         re.M)
_ULTRA = re.compile(r"(?:Ultralytics|YOLOv\d)[^\n]{0,40}?Python-(\d\.\d{1,2}\.\d{1,2}) torch[- ](\d[\w.+]{0,40}) "
                    r"(CUDA|CPU|MPS)")
_ULTRA_GPU = re.compile(r"CUDA:(\d{1,2}) \(([^,\n]{1,100}), (\d{1,7}) ?MiB\)")
_OLD_YOLO = re.compile(r"YOLOv5 [^\n]{0,60}?torch (\d[\w.+]{0,40}) (CUDA|CPU)")
# Paddle's device_context.cc: "device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API
# Version: 10.2" (the runtime is the CUDA the wheel was built with) and "device: 0, cuDNN Version: 8.3."
_PADDLE_DEVICE = re.compile(r"device: (\d{1,2}), GPU Compute Capability: (\d{1,2}\.\d), Driver API Version: "
                            r"(\d{1,2}\.\d), Runtime API Version: (\d{1,2}\.\d)")
_PADDLE_CUDNN = re.compile(r"device: \d{1,2}, cuDNN Version: (\d{1,2}\.\d{1,2})")
_CHECKS = re.compile(r"^(OS|Python|CUDA)[ \t]{4,40}(\S[^\n]{0,100})$", re.M)
# llama.cpp's system_info ("AVX = 1 | ... | BLAS = 0 | ..."), as printed or as people quote it ("BLAS=0"):
# ggml_cpu_has_blas() is 1 when ggml was built with any matrix backend (Accelerate, OpenBLAS, CUDA,
# Vulkan, CLBlast, SYCL), so 0 means the build has no CUDA backend. Metal is not among them: a Mac's
# Metal build also prints 0.
_LLAMA_BLAS = re.compile(r"\bBLAS ?= ?0\b")
_LLAMA = re.compile(r"llama[._-]?cpp|system_info:|\bllama_model_load", re.I)
_APPLE = re.compile(r"\b(?:metal|macos|mac os|darwin|apple)\b", re.I)


def parse(p: Paste, f: Facts) -> None:
    _comfyui(p, f)
    _ultralytics(p, f)
    _paddle(p, f)
    _llamacpp(p, f)


def _llamacpp(p: Paste, f: Facts) -> None:
    # The BLAS line first (lines_with's cheap filter): the whole-text searches below
    # cost ~35 ms a MB, and most pastes have no "BLAS = 0" at all.
    m = next(p.scan(_LLAMA_BLAS, "blas"), None)
    if m is None or not _LLAMA.search(p.text) or _APPLE.search(p.text):
        return
    src = p.where("llama.cpp system_info", m.start())
    f.saw("llama.cpp system_info")
    # The Python binding compiles llama.cpp at pip install time: its rebuild is another command.
    binding = "llama-cpp-python" if re.search(r"llama[-_]cpp[-_]python|\bllama_cpp\b", p.text, re.I) else "llama.cpp"
    f.fw(binding, "build", "cpu", src)


def _paddle(p: Paste, f: Facts) -> None:
    for m in p.scan(_PADDLE_DEVICE, "runtime api version"):
        src = p.where("Paddle device notice", m.start())
        f.saw("Paddle device notice")
        f.gpu(src, index=int(m.group(1)), compute_capability=m.group(2))
        f.put("driver.cuda_api", m.group(3), src)
        f.fw("paddle", "build", "cuda", src)
        f.fw("paddle", "cuda", m.group(4), src)
    for m in p.scan(_PADDLE_CUDNN, "cudnn version:"):
        f.fw("paddle", "cudnn", m.group(1), p.where("Paddle device notice", m.start()))


def _comfyui(p: Paste, f: Facts) -> None:
    for m in p.scan(_COMFY_TORCH, "pytorch version:"):
        f.saw("ComfyUI log")
        f.fw("torch", "version", m.group(1), p.where("ComfyUI log", m.start()))
    for m in p.scan(_COMFY_DEVICE, "device: cuda:"):
        src = p.where("ComfyUI log", m.start())
        f.saw("ComfyUI log")
        f.gpu(src, index=int(m.group(1)), name=m.group(2).strip())
        f.fw("torch", "build", "cuda", src)
        f.fw("torch", "is_available", True, src)
    for m in p.scan(_COMFY_VRAM, "total vram"):
        f.extra_reads.append(Read("comfyui.total_vram_mb", m.group(1), p.where("ComfyUI log", m.start())))
    for m in p.scan(_COMFY_PLATFORM, "** platform"):
        note_os(f, m.group(1), p.where("ComfyUI log", m.start()))
    for m in p.scan(_COMFY_PYTHON, "** python version"):
        f.put("system.python", m.group(1), p.where("ComfyUI log", m.start()))
    device: int | None = None
    for m in p.scan(_COMFY_INFO, "- **"):
        f.saw("ComfyUI system information")
        key, value, src = m.group(1), m.group(2).strip(), p.where("ComfyUI system information", m.start())
        if key == "OS":
            note_os(f, {"nt": "Windows", "win32": "Windows"}.get(value, value), src)
        elif key == "Python Version":
            py = re.match(r"(\d\.\d{1,2}\.\d{1,2})", value)
            if py:
                f.put("system.python", py.group(1), src)
        elif key == "PyTorch Version":
            f.fw("torch", "version", value, src)
        elif key == "Name":
            dev = re.match(r"cuda:(\d{1,2}) ([^:]{1,100}?)\s{0,4}:", value)
            if dev:
                device = int(dev.group(1))
                f.gpu(src, index=device, name=dev.group(2).strip())
                f.fw("torch", "build", "cuda", src)
                f.fw("torch", "is_available", True, src)
        elif key == "VRAM Total" and device is not None and value.isdigit():
            f.gpu(src, index=device, memory_total_mib=round(int(value) / (1024 * 1024)))


def _ultralytics(p: Paste, f: Facts) -> None:
    for m in p.scan(_ULTRA, "python-"):
        src = p.where("Ultralytics banner", m.start())
        f.saw("Ultralytics banner")
        f.put("system.python", m.group(1), src)
        f.fw("torch", "version", m.group(2), src)
        if m.group(3) == "CUDA":
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "is_available", True, src)
            for g in _ULTRA_GPU.finditer(p.text, m.start(3), m.start(3) + 2000):
                f.gpu(src, index=int(g.group(1)), name=g.group(2).strip(), memory_total_mib=int(g.group(3)))
    for m in p.scan(_OLD_YOLO, "yolov5 "):
        src = p.where("YOLOv5 banner", m.start())
        f.saw("YOLOv5 banner")
        f.fw("torch", "version", m.group(1), src)
        if m.group(2) == "CUDA":
            f.fw("torch", "build", "cuda", src)
            for g in _ULTRA_GPU.finditer(p.text, m.start(2), m.start(2) + 2000):
                f.gpu(src, index=int(g.group(1)), name=g.group(2).strip(), memory_total_mib=int(g.group(3)))
    if "Setup complete" not in p.text and "yolo checks" not in p.text.lower():
        return
    for m in _CHECKS.finditer(p.text):
        src = p.where("yolo checks", m.start())
        key, value = m.group(1), m.group(2).strip()
        if key == "OS":
            note_kernel(f, value, src)
        elif key == "Python" and re.fullmatch(r"\d\.\d{1,2}\.\d{1,2}", value):
            f.put("system.python", value, src)
        elif key == "CUDA" and re.fullmatch(r"\d{1,2}\.\d", value):
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "cuda", value, src)
