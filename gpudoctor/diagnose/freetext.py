"""Sentences people type: "torch 2.6.0+cu126", "RTX 5090", "driver 550.54.14",
"CUDA 11.8", "Windows 11", "WSL2", "Python 3.12".

Everything read here ranks as stated: any tool output in the same paste
outranks it. "CUDA 11.8" says too little to know whether it is a toolkit, the
driver's CUDA or a framework's, so it is kept as a stated CUDA, shown but not
judged.
"""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, Facts
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_os

_TORCH = re.compile(r"\b(?:torch|pytorch)(?:[ \t]{0,2}(?:version|nightly|build))?[ \t]{0,2}(?:[:=_-]{1,2}|[ \t(])[ \t(]{0,2}v?"
                    r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.dev\d{1,10}|a0\+\w{1,12}|rc\d)?"
                    r"(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)(?![\w.])", re.I)
_TORCH_CUDA = re.compile(r"CUDA[ \t]{0,2}\(via torch\)[ \t]{0,2}:?[ \t]{0,2}(\d{1,2}\.\d)", re.I)
_TF = re.compile(r"\b(?:tensorflow|tf)(?:-gpu)?(?:[ \t]{0,2}version)?[ \t]{0,2}(?:[:=]{1,2}|[ \t])[ \t]{0,2}v?"
                 r"(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])", re.I)
_DRIVER = re.compile(r"\b(?:nvidia[ \t]{1,2})?driver(?:[ \t]{1,2}version)?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?"
                     r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b", re.I)
_CUDA = re.compile(r"\bCUDA(?:[ \t]{1,2}(?:toolkit|version|runtime))?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?"
                   r"(\d{1,2}\.\d)(?:\.\d{1,3})?\b(?![.\d])", re.I)
_CUDNN = re.compile(r"\bcuDNN(?:[ \t]{1,2}version)?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?(\d\.\d{1,2}(?:\.\d{1,3}){0,2})\b",
                    re.I)
_PYTHON = re.compile(r"\bPython[ \t]{0,2}(?:version)?[ \t]{0,2}(?:[:=-]|is)?[ \t]{0,2}v?(3\.\d{1,2}(?:\.\d{1,2})?)\b",
                     re.I)
_PY_PATH = re.compile(r"python(3\.\d{1,2})[/\\](?:site|dist)-packages", re.I)
_OS = re.compile(r"\b(Windows[ \t](?:10|11|Server[ \t]\d{4})|Ubuntu[ \t]\d{2}\.\d{2}(?:\.\d{1,2})?(?:[ \t]LTS)?|"
                 r"Debian[ \t]\d{1,2}|CentOS(?:[ \t]Linux)?[ \t]\d(?:\.\d{1,2})?|Rocky[ \t]Linux[ \t]\d(?:\.\d{1,2})?|"
                 r"Fedora[ \t]\d{2}|macOS[ \t]\d{2}(?:\.\d{1,2})?|Arch[ \t]Linux)\b", re.I)
# Paths say which OS a traceback came from.
_LINUX_PATH = re.compile(r"(?:^|[\s\"'(])/(?:home|usr/local/lib|usr/lib|opt/conda)/[^\s]{0,200}?python3\.\d{1,2}/")
_WINDOWS_PATH = re.compile(r"\b[A-Z]:\\(?:Users|Program Files|ProgramData)\\")
_WSL = re.compile(r"\bWSL[ \t]?2?\b|Windows Subsystem for Linux|Ubuntu Subsystem", re.I)
_CC = re.compile(r"compute capability[ \t:=]{0,3}(?:of[ \t])?(\d{1,2}\.\d)\b", re.I)

# GPU names: the consumer families need no context; short data-center names
# ("T4", "A100", "L4") only count on a line that is about a GPU.
_GPU_FAMILY = re.compile(
    r"\b((?:NVIDIA[ \t]{1,2})?(?:GeForce[ \t]{1,2})?(?:RTX|GTX|GT|MX)[ \t]?(?:A|PRO[ \t])?\d{3,4}[A-Z]?"
    r"(?:[ \t]{1,2}(?:Ti|SUPER|Super|D|Laptop(?:[ \t]GPU)?|Mobile|Max-Q|Ada(?:[ \t]Generation)?))*"
    r"|(?:NVIDIA[ \t]{1,2})?(?:TITAN|Titan)[ \t](?:RTX|V|Xp|X|Black)(?:[ \t]\(Pascal\))?"
    r"|(?:NVIDIA[ \t]{1,2})?(?:Tesla[ \t]{1,2})?(?:A100|H100|H200|H20|B200|B100|GB200|V100|P100|K80|K40m?|K20m?)"
    r"(?:[- ](?:SXM\d?|PCIE|PCIe|NVL|HBM3|\d{2,3}GB))*"
    r"|(?:NVIDIA[ \t]{1,2})?Quadro[ \t](?:RTX[ \t])?[A-Z]?\d{3,4})\b")
_GPU_SHORT = re.compile(r"\b((?:NVIDIA[ \t]{1,2}|Tesla[ \t]{1,2})?(?:T4|L4|L40S?|A10G?|A30|A40|A16|A2|P40|P4|GH200))\b")
_GPU_CONTEXT = re.compile(r"gpu|graphics|card|nvidia|device|tesla|instance", re.I)
_NUMBER_TI = re.compile(r"\b(\d{4})[ \t]?(ti|super)?[ \t]{1,2}(RTX|GTX)\b|\b(?:dual[ \t]|\d[ \t]?x[ \t]?)?(\d{4})[ \t](ti)\b",
                        re.I)


def gpu_names(text: str) -> list[str]:
    """GPU names in a line of free text, as written ('RTX 5090', 'Tesla T4')."""
    names = [m.group(1) for m in _GPU_FAMILY.finditer(text)]
    if _GPU_CONTEXT.search(text):
        names += [m.group(1) for m in _GPU_SHORT.finditer(text)]
    for m in _NUMBER_TI.finditer(text):
        if m.group(3):  # "3080 RTX" -> "RTX 3080"
            names.append(f"{m.group(3).upper()} {m.group(1)}" + (f" {m.group(2)}" if m.group(2) else ""))
        elif m.group(4):  # "1080 ti"
            names.append(f"GTX {m.group(4)} Ti")
    return list(dict.fromkeys(n.strip() for n in names))


def parse(p: Paste, f: Facts) -> None:
    for m in _TORCH.finditer(p.text):
        f.fw("torch", "version", m.group(1), p.where("free text", m.start()), STATED)
    for m in _TORCH_CUDA.finditer(p.text):
        src = p.where("free text", m.start())
        f.fw("torch", "cuda", m.group(1), src, STATED)
        f.fw("torch", "build", "cuda", src, STATED)
    for m in _TF.finditer(p.text):
        f.fw("tensorflow", "version", m.group(1), p.where("free text", m.start()), STATED)
    for m in _DRIVER.finditer(p.text):
        f.put("driver.version", m.group(1), p.where("free text", m.start()), STATED)
    for m in _CUDA.finditer(p.text):
        line = p.line(p.line_no(m.start()))
        if line.lstrip().startswith("|") or "driver" in line.lower():
            continue  # the nvidia-smi banner's "CUDA Version" is the driver's, read elsewhere
        f.runtime(STATED, version=m.group(1), path="(stated in the paste)", kind="stated",
                  source=p.where("free text", m.start()))
    for m in _CUDNN.finditer(p.text):
        f.library("cudnn", STATED, version=m.group(1), path="(stated in the paste)", kind="stated",
                  source=p.where("free text", m.start()))
    for rx in (_PYTHON, _PY_PATH):
        for m in rx.finditer(p.text):
            f.put("system.python", m.group(1), p.where("free text", m.start()), STATED)
    for m in _OS.finditer(p.text):
        note_os(f, m.group(1), p.where("free text", m.start()), STATED)
    for rx, name in ((_LINUX_PATH, "linux"), (_WINDOWS_PATH, "windows")):
        m = rx.search(p.text)
        if m:
            f.put("system.os", name, p.where("file path in the paste", m.start()), STATED)
    for m in _WSL.finditer(p.text):
        src = p.where("free text", m.start())
        f.put("system.wsl", True, src, STATED)
        f.put("system.os", "linux", src, STATED)
    _gpus(p, f)


def _gpus(p: Paste, f: Facts) -> None:
    if not (_GPU_FAMILY.search(p.text) or _NUMBER_TI.search(p.text) or _GPU_SHORT.search(p.text)):
        return
    # Once a tool has listed the GPUs, names in prose only add to those GPUs:
    # "it works on my friend's RTX 3090" must not become a second GPU.
    create = not any(g.name is not None and g.name.rank > STATED for g in f.gpus)
    pos = 0
    for line in p.text.split("\n"):
        here, pos = pos, pos + len(line) + 1
        if len(line) > 2000 or line.lstrip().startswith("|"):
            continue  # nvidia-smi's table rows are read by its parser
        names = gpu_names(line)
        if not names:
            continue
        cc = _CC.search(line)
        for name in names:
            f.gpu(p.where("free text", here), name=name, rank=STATED, create=create,
                  **({"compute_capability": cc.group(1)} if cc and len(names) == 1 else {}))
