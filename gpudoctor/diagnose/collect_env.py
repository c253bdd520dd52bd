"""`python -m torch.utils.collect_env` output, from 2018's to today's.

The field is "Key: value" lines; values of "Could not collect", "N/A" and
"No CUDA" mean unknown. Its "CUDA runtime version" is really nvcc's version
(collect_env runs `nvcc --version`), so it becomes a toolkit, not a runtime.
The GPU list and the [pip3]/[conda] lines are read by the nvidia-smi and
package parsers, which know those formats.
"""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_kernel, note_os

WHAT = "collect_env"
_UNKNOWN = re.compile(r"^(could not collect|n/a|none|no cuda|)$", re.I)
# Keys need their colon, except "PyTorch version", which some old copies print without one.
_LINE = re.compile(
    r"^(PyTorch version(?=:| \d)|Is debug build|CUDA used to build PyTorch|ROCM used to build PyTorch|OS|Os|"
    r"Libc version|Python version|Python platform|Is CUDA available|CUDA runtime version|"
    r"GPU models and configuration|Nvidia driver version|cuDNN version|HIP runtime version)"
    r":?[ \t]{0,20}([^\n]{0,300})$", re.M)
_KEYS = ("pytorch version", "is debug build", "cuda used to build", "rocm used to build", "os:", "libc version",
         "python version", "python platform", "is cuda available", "cuda runtime version", "gpu models and",
         "nvidia driver version", "cudnn version", "hip runtime version")
_VERSION = re.compile(r"\d+(?:\.\d+)+")
# A cuDNN library's name and the version it carries: "libcudnn.so.8.9.2", "libcudnn_cnn.so.9",
# "cudnn_ops_infer64_8.dll" (group 1: a .so's version, group 2: a DLL's major).
CUDNN_FILE = re.compile(r"\b(?:lib)?cudnn\w{0,30}?(?:\.so\.(\d+(?:\.\d+){0,3})|64_(\d{1,2})\.dll)", re.I)


def parse(p: Paste, f: Facts) -> None:
    marker = "Collecting environment information" in p.text
    no_cuda, rocm = None, False
    for m in p.scan(_LINE, *_KEYS):
        key, value = m.group(1), m.group(2).strip()
        if key != "PyTorch version" and not p.text.startswith(":", m.end(1)):
            continue
        if key == "OS" and not marker and not re.search(r"\bPyTorch version\b", p.text):
            continue  # a bare "OS:" line belongs to the free-text reader
        f.saw(WHAT)
        src = p.where(WHAT, m.start())
        if key == "cuDNN version":
            _cudnn(p, f, m, value)
            continue
        if key == "CUDA used to build PyTorch" and _UNKNOWN.match(value):
            no_cuda = src
        rocm = rocm or (key == "ROCM used to build PyTorch" and not _UNKNOWN.match(value))
        if _UNKNOWN.match(value):
            continue
        _field(f, key, value, src)
    # collect_env prints torch.version.cuda, which is None ("None", or "Could not
    # collect" in some versions) exactly when the imported torch is a CPU build.
    if no_cuda and not rocm and f.fw_get("torch", "version"):
        f.fw("torch", "build", "cpu", no_cuda)


def _field(f: Facts, key: str, value: str, src: str) -> None:
    if key == "PyTorch version":
        f.fw("torch", "version", value.split()[0], src)
    elif key == "CUDA used to build PyTorch":
        v = _VERSION.match(value)
        if v:
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "cuda", ".".join(v.group(0).split(".")[:2]), src)
    elif key == "ROCM used to build PyTorch":
        f.fw("torch", "build", "rocm", src)
    elif key in ("OS", "Os"):
        note_os(f, value, src)
    elif key == "Libc version":
        m = re.match(r"glibc-(\d+\.\d+)", value)
        if m:
            f.put("system.glibc", m.group(1), src)
    elif key == "Python version":
        m = re.match(r"(\d+\.\d+(?:\.\d+)?)", value)
        if m:
            f.put("system.python", m.group(1), src)
    elif key == "Python platform":
        note_kernel(f, value, src)
    elif key == "Is CUDA available":
        f.fw("torch", "is_available", value.lower() in ("true", "yes"), src)
    elif key == "CUDA runtime version":
        v = _VERSION.match(value)
        if v:
            f.runtime(version=v.group(0), path="(nvcc on PATH, as collect_env reports it)", kind="toolkit",
                      source=f"{src} (nvcc --version)", nvcc=v.group(0))
    elif key == "GPU models and configuration":
        g = re.match(r"GPU (\d+): ([^(]+?)(?: \(UUID: [^)]*\))?$", value)
        if g:
            f.gpu(src, index=int(g.group(1)), name=g.group(2))
    elif key == "Nvidia driver version":
        v = _VERSION.match(value)
        if v:
            f.put("driver.version", v.group(0), src)


def _cudnn(p: Paste, f: Facts, m: re.Match, value: str) -> None:
    """'cuDNN version: /usr/lib/.../libcudnn.so.8.9.2', a bare version, or
    'Probably one of the following:' and one path per line."""
    paths = [(value, m.start())]
    if value.lower().startswith("probably one of the following"):
        pos = m.end() + 1
        paths = []
        while pos < len(p.text):
            end = p.text.find("\n", pos)
            end = len(p.text) if end < 0 else end
            line = p.text[pos:end].strip()
            if not line or not ("/" in line or "\\" in line):
                break
            paths.append((line, pos))
            pos = end + 1
    for text, at in paths:
        src = p.where(WHAT, at)
        hit = CUDNN_FILE.search(text)
        version = (hit.group(1) or hit.group(2)) if hit else (text if re.fullmatch(r"\d+\.\d+(?:\.\d+)*", text) else None)
        if not version:
            continue
        f.saw(WHAT)
        path = text.rsplit("/", 1)[0] if "/" in text else text.rsplit("\\", 1)[0] if "\\" in text else "(system)"
        f.library("cudnn", version=version, path=path, kind="system", source=src)
