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

_TORCH = re.compile(r"\b(?:torch|pytorch)(?:[ \t]{0,2}(?:version|nightly|build))?[*_]{0,2}[ \t]{0,2}"
                    r"(?:[:=_-]{1,2}|[ \t(])[ \t(*]{0,3}v?"
                    r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.dev\d{1,10}|a0\+\w{1,12}|rc\d)?"
                    r"(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)(?![\w+])(?!\.\d)", re.I)
_TORCH_CUDA = re.compile(r"CUDA[ \t]{0,2}\(via torch\)[ \t]{0,2}:?[ \t]{0,2}(\d{1,2}\.\d)", re.I)
_TF = re.compile(r"\b(?:tensorflow|tf)(?:-gpu)?(?:[ \t]{0,2}version)?[ \t]{0,2}(?:[:=]{1,2}|[ \t])[ \t]{0,2}v?"
                 r"(\d\.\d{1,2}(?:\.\d{1,2})?)(?!\w)(?!\.\d)", re.I)
_DRIVER = re.compile(r"\b(?:nvidia[ \t]{1,2})?driver(?:[ \t]{1,2}version)?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?"
                     r"(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b", re.I)
_CUDA = re.compile(r"\bCUDA(?:[ \t]{1,2}(?:toolkit|version|runtime))?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?"
                   r"(\d{1,2}\.\d)(?:\.\d{1,3})?\b(?![.\d])", re.I)
_CUDNN = re.compile(r"\bcuDNN(?:[ \t]{1,2}version)?[ \t]{0,2}(?:[:=]|is)?[ \t]{0,2}v?(\d\.\d{1,2}(?:\.\d{1,3}){0,2})\b",
                    re.I)
_PYTHON = re.compile(r"\bPython[ \t]{0,2}(?:version)?[*_]{0,2}[ \t]{0,2}(?:[:=-]|is)?[ \t]{0,2}v?(3\.\d{1,2}(?:\.\d{1,2})?)\b",
                     re.I)
_PY_PATH = re.compile(r"python(3\.\d{1,2})[/\\](?:site|dist)-packages", re.I)
_OS = re.compile(r"\b(Windows[ \t](?:10|11|Server[ \t]\d{4})|Ubuntu[ \t]\d{2}\.\d{2}(?:\.\d{1,2})?(?:[ \t]LTS)?|"
                 r"Debian[ \t]\d{1,2}|CentOS(?:[ \t]Linux)?[ \t]\d(?:\.\d{1,2})?|Rocky[ \t]Linux[ \t]\d(?:\.\d{1,2})?|"
                 r"Fedora[ \t]\d{2}|macOS[ \t]\d{2}(?:\.\d{1,2})?|Arch[ \t]Linux)\b", re.I)
# Paths say which OS a traceback came from.
_LINUX_PATH = re.compile(r"(?:^|[\s\"'(])/(?:home|usr/local/lib|usr/lib|opt/conda)/[^\s]{0,200}?python3\.\d{1,2}/")
_WINDOWS_PATH = re.compile(r"\b[A-Z]:\\(?:Users|Program Files|ProgramData)\\")
_OS_WORDS = ("windows", "ubuntu", "debian", "centos", "rocky", "fedora", "macos", "arch linux")
_WSL = re.compile(r"\bWSL[ \t]?2?\b|Windows Subsystem for Linux|Ubuntu Subsystem", re.I)
_CC = re.compile(r"compute capability[ \t:=]{0,3}(?:of[ \t])?(\d{1,2}\.\d)\b", re.I)

# GPU names: the consumer families need no context; short data-center names
# ("T4", "A100", "L4") only count on a line that is about a GPU. The patterns
# start at the model (fast to scan for); a "NVIDIA GeForce " or "Tesla " just
# before it is added back for display.
_GPU_FAMILY = re.compile(
    r"\b((?:RTX|GTX|GT|MX)[ \t]?(?:A|PRO[ \t])?\d{3,4}[A-Z]?"
    r"(?:[ \t]{1,2}(?:Ti|SUPER|Super|D|Laptop(?:[ \t]GPU)?|Mobile|Max-Q|Ada(?:[ \t]Generation)?))*"
    r"|(?:TITAN|Titan)[ \t](?:RTX|V|Xp|X|Black)(?:[ \t]\(Pascal\))?"
    r"|(?:A100|H100|H200|H20|B200|B100|GB200|V100|P100|K80|K40m?|K20m?)(?:[- ](?:SXM\d?|PCIE|PCIe|NVL|HBM3|\d{2,3}GB))*"
    r"|Quadro[ \t](?:RTX[ \t])?[A-Z]?\d{3,4})\b")
_GPU_SHORT = re.compile(r"\b(T4|L4|L40S?|A10G?|A30|A40|A16|A2|P40|P4|GH200)\b")
_GPU_PREFIX = re.compile(r"(?:(?:NVIDIA|Tesla|GeForce)[ \t]{1,2}){1,3}$")
_GPU_CONTEXT = re.compile(r"gpu|graphics|card|nvidia|device|tesla|instance", re.I)
# Every family name contains one of these words, every line that may name a
# short data-center GPU one of the context words: cheap filters for the lines.
_GPU_WORDS = ("rtx", "gtx", "gt ", "mx", "titan", "tesla", "quadro", "a100", "h100", "h200", "h20", "b200", "b100",
              "v100", "p100", "k80", "k40", "k20")
_CONTEXT_WORDS = ("gpu", "graphics", "card", "nvidia", "device", "tesla", "instance")
_NUMBER_TI = re.compile(r"\b(\d{4})[ \t]?(ti|super)?[ \t]{1,2}(RTX|GTX)\b|\b(?:dual[ \t]|\d[ \t]?x[ \t]?)?(\d{4})[ \t](ti)\b",
                        re.I)


def _with_prefix(text: str, m: re.Match) -> str:
    prefix = _GPU_PREFIX.search(text, max(0, m.start() - 30), m.start())
    return (prefix.group(0) if prefix else "") + m.group(1)


def gpu_names(text: str) -> list[str]:
    """GPU names in a line of free text, as written ('RTX 5090', 'Tesla T4')."""
    names = [_with_prefix(text, m) for m in _GPU_FAMILY.finditer(text)]
    if _GPU_CONTEXT.search(text):
        names += [_with_prefix(text, m) for m in _GPU_SHORT.finditer(text)]
    for m in _NUMBER_TI.finditer(text):
        if m.group(3):  # "3080 RTX" -> "RTX 3080"
            names.append(f"{m.group(3).upper()} {m.group(1)}" + (f" {m.group(2)}" if m.group(2) else ""))
        elif m.group(4):  # "1080 ti"
            names.append(f"GTX {m.group(4)} Ti")
    return list(dict.fromkeys(n.strip() for n in names))


def parse(p: Paste, f: Facts) -> None:
    def found(rx: re.Pattern, *needles: str):
        """Matches on lines no tool parser has read, with their source label."""
        for m in p.scan(rx, *needles):
            if p.line_no(m.start()) not in p.claimed:
                yield m, p.where("free text", m.start(), claim=False)

    for m, src in found(_TORCH, "torch"):
        f.fw("torch", "version", m.group(1), src, STATED)
    for m, src in found(_TORCH_CUDA, "via torch"):
        f.fw("torch", "cuda", m.group(1), src, STATED)
        f.fw("torch", "build", "cuda", src, STATED)
    for m, src in found(_TF, "tensorflow", "tf ", "tf=", "tf:", "tf-gpu"):
        f.fw("tensorflow", "version", m.group(1), src, STATED)
    for m, src in found(_DRIVER, "driver"):
        f.put("driver.version", m.group(1), src, STATED)
    for m, src in found(_CUDA, "cuda"):
        line = p.line(p.line_no(m.start()))
        if line.lstrip().startswith("|") or "Driver Version" in line:
            continue  # the nvidia-smi banner's "CUDA Version" is the driver's, read elsewhere
        f.runtime(STATED, version=m.group(1), path="(stated in the paste)", kind="stated", source=src)
    for m, src in found(_CUDNN, "cudnn"):
        f.library("cudnn", STATED, version=m.group(1), path="(stated in the paste)", kind="stated", source=src)
    for rx in (_PYTHON, _PY_PATH):
        for m, src in found(rx, "python"):
            f.put("system.python", m.group(1), src, STATED)
    wsl = list(found(_WSL, "wsl", "subsystem"))
    for m, src in wsl:
        f.put("system.wsl", True, src, STATED)
        f.put("system.os", "linux", src, STATED)
    for m, src in found(_OS, *_OS_WORDS):
        if wsl and m.group(1).lower().startswith("windows"):
            continue  # under WSL2 the Windows version describes the host, not the Linux that runs the code
        note_os(f, m.group(1), src, STATED)
    for rx, name in ((_LINUX_PATH, "linux"), (_WINDOWS_PATH, "windows")):
        m = rx.search(p.text)
        if m and not wsl:
            f.put("system.os", name, p.where("file path in the paste", m.start(), claim=False), STATED)
    _gpus(p, f)


def _gpus(p: Paste, f: Facts) -> None:
    hits = [*p.scan(_GPU_FAMILY, *_GPU_WORDS), *p.scan(_GPU_SHORT, *_CONTEXT_WORDS),
            *p.scan(_NUMBER_TI, "rtx", "gtx", " ti")]
    hit_lines = sorted({p.line_no(m.start()) for m in hits})
    hit_lines = [n for n in hit_lines if n not in p.claimed]
    # Once a tool has listed the GPUs, names in prose only add to those GPUs:
    # "it works on my friend's RTX 3090" must not become a second GPU.
    create = not any(g.name is not None and g.name.rank > STATED for g in f.gpus)
    for number in hit_lines:
        line = p.line(number)
        if len(line) > 2000:
            continue
        names = gpu_names(line)
        cc = _CC.search(line) if names else None
        src = f"{p.label + ': ' if p.label else ''}free text line {number}"
        for name in names:
            f.gpu(src, name=name, rank=STATED, create=create,
                  **({"compute_capability": cc.group(1)} if cc and len(names) == 1 else {}))
