"""Sentences people type: "torch 1.13 with cuda 11.7 and driver 515 on a 3080ti",
"cuDNN-8.9", "tf2.4", "Windows 11", "WSL2", "inside docker", "Python 3.12".

Everything read here ranks as stated: any tool output in the same paste
outranks it. "CUDA 11.8" says too little to know whether it is a toolkit, the
driver's CUDA or a framework's, so it is kept as a stated CUDA, shown but not
judged, unless the sentence ties it to PyTorch ("torch 2.0 with CUDA 11.8",
"torch 2.0+cu118").

The patterns are one shape per fact, written for the ways people write: any
separator or none between name and version ("torch1.13", "cuDNN-8.9", "driver:
535"), a driver given as its branch alone ("driver 515"), GPU names as typed
("3080ti", "a100-80g", "dual 3090s"). A name is only a candidate here; whether
it is a known GPU is decided by gpudoctor's one GPU-name matcher when the
snapshot is built.
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.diagnose.collect import STATED, Facts, Read
from gpudoctor.diagnose.gpu_text import CONTEXT_WORDS, GPU_FAMILY, GPU_NUMBER, GPU_NUMBER_AFTER_COLON, GPU_SHORT, GPU_WORDS, \
    NUMBER_FIRST, SERIES, gpu_names, series_cc
from gpudoctor.diagnose.packages import cuda_named_build
from gpudoctor.diagnose.container_text import container_clues
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_os

# Between a name and its version: "torch==2.0", "cuDNN-8.9", "driver: 535", "torch version reveals 2.0.0+cpu",
# "pytorch version is: 1.10.1", and the same in Chinese, Japanese and Korean ("CUDA版本：11.8", "torch版本是2.0.1",
# "Pythonバージョン：3.10").
_SEP = (r"[ \t]{0,2}(?:version|ver\.?|v|的?(?:版本号?|バージョン|버전))?[*_`]{0,2}[ \t]{0,2}"
        r"(?:[:=_\-：]{1,3}|is|of|was|是|为|為|は|는|은)?"
        r"(?:[ \t]{1,2}(?:is|was|shows?|says|reveals|reports|returns|prints|gives|installed|used)){0,2}[ \t(*`:：]{0,3}v?")
_VERSION = r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
_TORCH = re.compile(r"\b(?:torch|pytorch)(?:[ \t]{0,2}(?:nightly|build))?" + _SEP +
                    r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.dev\d{1,10}|a0\+\w{1,12}|rc\d)?"
                    r"(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)(?![\w+])(?!\.\d)", re.I)
# "torch 2.0 with CUDA 11.8", "pytorch 1.13 built for cuda 11.7", "torch 2.1 (cu121)", "torch 2.1 / cu121",
# "torch 2.8.0 cu128"
_TORCH_WITH_CUDA = re.compile(r"\b(?:torch|pytorch)(?![A-Za-z_-])[^\n]{0,24}?\d\.\d{1,2}(?:\.\d{1,3})?"
                              r"(?:[ \t]{0,2}(?:\(|/|,|\+|with|built with|compiled with|for)|[ \t])[ \t]{0,2}"
                              r"(?:cuda[ \t_-]{0,2}(\d{1,2}\.\d)|cu(\d{2})(\d))\b", re.I)
# A PyTorch local version on a line of its own ("- 2.8.0+cu128", "Version: 2.1.0+cpu"), as people
# list what they run: the "+cuNNN"/"+cpu" suffix is PyTorch's own wheel tag. torchaudio's wheels carry
# the same version and tag (a bare line may be either, with the same CUDA); torchvision's are 0.x.
_BARE_TORCH = re.compile(r"^[ \t]{0,4}(?:[-*•][ \t]{1,2})?(?:(?:torch[ \t]{1,2})?version[ \t]{0,2}[:=]?[ \t]{0,2})?"
                         r"([12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu))[ \t]*$", re.I | re.M)
# The same tag quoted inside a sentence, as a person copies an app's "System Info" or a print of
# torch.__version__: 'it says "2.0.0+cpu Autocast half"', 'shows `2.1.0+cu121`'. Intel's extension
# (intel_extension_for_pytorch 2.1.0+cpu) carries the tag too: a line naming it is not torch's.
_QUOTED_TORCH = re.compile(r"[\"'`\u201c]([12]\.\d{1,2}\.\d{1,2}\+(?:cu\d{2,3}|cpu))(?![\w.+])", re.I)
_NOT_TORCH_TAG = re.compile(r"intel|ipex|xpu", re.I)
_TORCH_CUDA = re.compile(r"CUDA[ \t]{0,2}\(via torch\)[ \t]{0,2}:?[ \t]{0,2}(\d{1,2}\.\d)", re.I)
_TF = re.compile(r"\b(?:tensorflow|tf)(?:-gpu|\[and-cuda\])?" + _SEP + r"(\d\.\d{1,2}(?:\.\d{1,2})?)(?!\w)(?!\.\d)", re.I)
# (not a wheel's name, "jaxlib-0.1.42-cp36-...whl": Google's old CUDA wheels had their CUDA in the index path)
_JAX = re.compile(r"\b(jax|jaxlib)(?:\[[\w,-]{1,20}\])?" + _SEP +
                  r"(0\.\d{1,2}\.\d{1,3}(?:\+cuda[\w.]{1,20}(?![\w.])|(?![\w.+-])))", re.I)
_CUPY = re.compile(r"\bcupy(?:-cuda\d{2,3}x?)?" + _SEP + _VERSION + r"\b", re.I)
# GPU libraries whose every release has an architecture floor (gpudoctor/matrices/companions.toml
# [[gpu_library]]): named at all ("vLLM on my P40", "cuML 24.04"), they are what the paste runs.
# "flash_attention_2" / "FlashAttention-2" name the major ("2"), not a release.
_GPU_LIBRARY = re.compile(r"\b(vllm|cuml|cudf|cugraph|rapids|flash[-_ ]?attn|flash[-_ ]?attention|flash(?=2\b))"
                          r"([-_ ]?2(?![.\d]))?(?:[ \t]{0,2}(?:v|==|=|:)?[ \t]{0,2}(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?))?"
                          r"(?![\w-])", re.I)
# Libraries that compile at install time and keep the CUDA they found then, or none (dlib's
# CMake turns CUDA on only where it finds CUDA and cuDNN): named, they may be what runs on the CPU.
_BUILT_AT_INSTALL = re.compile(r"\b(dlib|face[_ ]recognition)\b", re.I)
# A package whose name (or version suffix) says its CUDA, named with its version in a sentence:
# "安装的 paddlepaddle-gpu 2.1.0.post101", "mxnet-cu112 1.9.1".
_CUDA_NAMED_SAID = re.compile(r"\b((?:paddlepaddle-gpu|mxnet-cu\d{2,3}(?:mkl)?|dgl-cu\d{2,3}))[ \t]{0,2}(?:==|=|:)?[ \t]{0,2}"
                              r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.post\d{2,3})?)", re.I)
# "onnxruntime-gpu 1.16.3", "onnxruntime 1.2.0", "ONNX Runtime 1.17": the package name says which build.
_ORT = re.compile(r"\b(onnx[ _]?runtime(?:-(?:gpu|directml|openvino|silicon|training))?)" + _SEP +
                  r"(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])", re.I)
# "onnxruntime 1.2.0" (or "- onnxruntime: 1.2.0") as a line of a list of installed versions.
_ORT_LISTED = re.compile(r"^[ \t]{0,4}(?:[-*•][ \t]{1,2})?onnxruntime[ \t]{0,4}[:=-]{0,2}[ \t]{0,4}v?"
                         r"(\d\.\d{1,2}(?:\.\d{1,2})?)[ \t]*$", re.I | re.M)
# "driver 550.54.14", "driver: 535", "nvidia-driver-535", "driver version is 470.82"
# The word for "driver" in the languages reports come in (Chinese, Japanese, Korean, Russian, Spanish, Portuguese).
_DRIVER_WORDS = ("driver", "驱动", "驅動", "ドライバ", "드라이버", "драйвер", "controlador", "nvidia-smi")
_DRIVER = re.compile(r"(?:\bnvidia[ \t_-]{1,2})?(?:\bdrivers?|驱动(?:版本|程序)?|驅動(?:版本|程式)?|ドライバー?(?:バージョン)?|"
                     r"\bnvidia-smi`?(?=[ \t]{1,2}(?:shows|says|reports|gives)[ \t:]{1,3}\d{3}\.\d)|"  # "nvidia-smi shows 396.26"
                     r"드라이버(?:[ \t]?버전)?|\bдрайвер[а-я]{0,3}|\bcontrolador(?:es)?)" + _SEP +
                     r"(\d{3}(?:\.\d{1,3}){0,2})\b(?!\.?\d)", re.I)
# A version given as a floor, not as what is there: "driver 546.33 and later", "driver 550+ is required",
# "requires driver 535", "at least driver 470", "need at least compute capability 7.0+", "7.0 or higher".
_FLOOR_AFTER = re.compile(r"(?:\+|[ \t]{1,2}(?:and|or)[ \t](?:later|newer|higher|above|up)\b|"
                          r"[ \t]{1,2}(?:is|are)[ \t](?:required|needed)\b)", re.I)
_FLOOR_BEFORE = re.compile(r"(?:\bat least|\bminimum|\brequires?|\bneeds?|\b>=)[ \t]{1,2}(?:an?[ \t]|the[ \t])?"
                           r"(?:nvidia[ \t])?$", re.I)


def _a_floor(text: str, m: re.Match) -> bool:
    """Whether the version `m` matched is stated as a floor something needs."""
    return bool(_FLOOR_AFTER.match(text, m.end()) or _FLOOR_BEFORE.search(text, max(0, m.start() - 30), m.start()))


STATED_CUDA = re.compile(r"\b(?!(?<=[a-z]-)cuda-\d)(?:CUDA|cudatoolkit)(?:[ \t_-]{0,2}(toolkit|runtime))?" + _SEP +
                   r"(\d{1,2}\.\d)(?:\.\d{1,3})?\b(?!\.?\d)", re.I)
# A bare major, "installed with cuda11", "CUDA 12 is installed": only the major is known (not 11.0).
_CUDA_MAJOR = re.compile(r"\bCUDA[ \t_-]?v?(1[0-3]|[7-9])\b(?![.,]\d)", re.I)
# "nvcc --version is 12.3", "nvcc 11.8": what a person read off nvcc is the toolkit.
_NVCC_THEN_VERSION = re.compile(r"^[^\n]{0,20}\bnvcc[ \t]+(?:-V|--version)[ \t`]*\n[ \t]*(?:>>>|>)?[ \t]*"
                                r"(\d{1,2}\.\d)(?:\.\d{1,3})?[ \t]*$", re.M)
_NVCC = re.compile(r"\bnvcc(?:[ \t]{1,2}(?:-V|--version))?" + _SEP + r"(\d{1,2}\.\d)(?:\.\d{1,3})?\b(?!\.?\d)", re.I)
_CUDNN = re.compile(r"\bcuDNN" + _SEP + r"(\d(?:\.\d{1,2}(?:\.\d{1,3}){0,2})?)\b(?!\.?\d)(?!-(?:windows|linux))", re.I)
# NVIDIA's archive names: "cudnn-11.4-windows-x64-v8.2.2.26" (the CUDA, then the cuDNN after "v"),
# "cudnn-linux-x86_64-8.9.7.29_cuda12-archive", "cudnn-windows-x86_64-9.1.0.70_cuda12-archive".
_CUDNN_ARCHIVE = re.compile(r"\bcudnn[ -]\d{1,2}\.\d-(?:windows|linux)[\w-]*?-v(\d\.\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)|"
                            r"\bcudnn-(?:windows|linux)-[\w]+?-(\d\.\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)_cuda\d", re.I)
_PYTHON = re.compile(r"\b(?:Python|py)" + _SEP + r"(3\.\d{1,2}(?:\.\d{1,2})?)\b", re.I)
# \b and \w in the patterns above are ASCII's: a name glued to Chinese or Japanese text ("安装了cuda11.8",
# "和cudnn-7.6.5", "tf2.4版本") has no Unicode word boundary, the characters on both sides being letters.
(_TORCH, _TORCH_WITH_CUDA, _TF, _JAX, _CUPY, _GPU_LIBRARY, _BUILT_AT_INSTALL, _CUDA_NAMED_SAID, _ORT, STATED_CUDA,
 _CUDA_MAJOR, _NVCC, _CUDNN, _CUDNN_ARCHIVE, _PYTHON) = (
    re.compile(rx.pattern, (rx.flags & ~re.UNICODE) | re.ASCII)
    for rx in (_TORCH, _TORCH_WITH_CUDA, _TF, _JAX, _CUPY, _GPU_LIBRARY, _BUILT_AT_INSTALL, _CUDA_NAMED_SAID, _ORT,
               STATED_CUDA, _CUDA_MAJOR, _NVCC, _CUDNN, _CUDNN_ARCHIVE, _PYTHON))
_PY_PATH = re.compile(r"python(3\.\d{1,2})[/\\](?:site|dist)-packages", re.I)
_OS = re.compile(r"\b(Windows[ \t]?(?:10|11|Server[ \t]\d{4})|Ubuntu[ \t]?\d{2}\.\d{2}(?:\.\d{1,2})?(?:[ \t]LTS)?|"
                 r"Debian[ \t]\d{1,2}|CentOS(?:[ \t]Linux)?[ \t]?\d(?:\.\d{1,2})?|Rocky[ \t]Linux[ \t]\d(?:\.\d{1,2})?|"
                 r"RHEL[ \t]?\d(?:\.\d{1,2})?|Fedora[ \t]\d{2}|macOS[ \t]\d{2}(?:\.\d{1,2})?|Arch[ \t]Linux|"
                 # "multi gpu on windows": the platform without a version
                 r"(?<=\bon[ \t])Windows(?![ \t]?(?:Subsystem|Terminal|Server|1[01]|\d)))\b", re.I)
# Paths say which OS a traceback came from.
_LINUX_PATH = re.compile(r"(?<![^\s\"'(])/(?:home|usr/local/lib|usr/lib|opt/conda|root|mnt|data|scratch|opt)/"
                         r"[^\s]{0,200}?python3\.\d{1,2}/")
_WINDOWS_PATH = re.compile(r"\b[A-Z]:\\(?:Users|Program Files|ProgramData|ComfyUI|AI|stable-diffusion|Python\d*|"
                           r"[\w .-]{1,40}\\(?:venv|python_embeded|Lib|Scripts|site-packages))\\|\\Lib\\site-packages\\|"
                           r"\bpython\.exe\b|\bwin_amd64\b|\bPS [A-Z]:\\|"
                           # a cmd.exe prompt, after a venv's or conda env's name: "(myenv) H:\RVC-beta>python x.py"
                           r"(?<![^\n])(?:\([\w.-]{1,40}\)[ \t])?[A-Z]:\\[^\n<>|\"]{0,200}>[ \t]?\w", re.I)
# The interactive interpreter's banner names the platform it was built for:
# "[GCC 7.3.0] :: Anaconda, Inc. on linux", "[MSC v.1916 64 bit (AMD64)] on win32".
_PY_BANNER = re.compile(r"\[(?:GCC|Clang|MSC)[ \t][^\]\n]{0,80}\][^\n]{0,60}?\bon (linux|win32|darwin)[ \t]*$", re.M)
_BANNER_OS = {"linux": "linux", "win32": "windows", "darwin": "darwin"}
_MAC_PATH = re.compile(r"(?<![^\s\"'(])/(?:Users/[^/\s]{1,40}|Library/Frameworks)/[^\s]{0,200}?python3\.\d{1,2}/|"
                       r"\bmacosx_\d{2}_\d_arm64\b")
_OS_WORDS = ("windows", "ubuntu", "debian", "centos", "rocky", "rhel", "fedora", "macos", "arch linux")
# Not in a search list's glob ("/usr/lib/wsl/lib/libcuda.so*"): that is where a tool looks, not where it runs.
_GLOB_AHEAD = r"(?![^\s\"',\]]{0,80}\*)"
_WSL = re.compile(r"\bWSL[ \t]?2?\b" + _GLOB_AHEAD + r"|Windows Subsystem for Linux|Ubuntu Subsystem|"
                  r"microsoft-standard-WSL2|/usr/lib/wsl/" + _GLOB_AHEAD, re.I)
# The Windows build a report shows: "Microsoft Windows [Version 10.0.19043.1200]", "Windows build 22631".
_WINDOWS_BUILD = re.compile(r"\b(?:windows|win(?:dows)?[ \t]?1[01]|version|build)\b[^\n]{0,30}?\b(?:10\.0\.)?"
                            r"(1[5-9]\d{3}|2[0-9]\d{3})(?:\.\d{1,5})?\b", re.I)
# Words before a CUDA that asks for it rather than reports it (diagnose/findings.py reads the
# failing line with it too).
ASKED = re.compile(r"(?:download and|please|you (?:must|should|need to)|requires? (?:you to )?|need to|"
                    r"should (?:i|we)|(?:do|must) (?:i|we) (?:need to |have to )?|have to) install\s{1,3}$|"
                    r"\brequires?\s{1,3}$|"
                    # a version one would move to, not the one installed: "without downgrading to CUDA 10.2"
                    r"\b(?:downgrad|upgrad)(?:e|ing)\s{1,3}(?:\w+\s{1,3})?to\s{1,3}$|\bswitch(?:ing)?\s{1,3}to\s{1,3}$", re.I)
# Words before a CUDA that make it the driver's: "自带的cuda是11.6" (the one that came with it), "驱动的CUDA",
# "the driver's CUDA 12.2", "nvidia-smi shows CUDA 12.4".
_DRIVERS_CUDA = re.compile(r"(?:自带的?|驱动的?|driver'?s|nvidia-smi(?: shows| says)?)[ \t]*$", re.I)
# nvidia-smi's pair as people copy it: "Driver: 591.86 / CUDA 13.1", "driver 535 (CUDA 12.2)", and its
# "CUDA Version: 10.2" on the line after "Driver Version: 440.31".
_DRIVER_SLASH_CUDA = re.compile(r"driver\b[^\n]{0,20}?\d{3}(?:\.\d{1,3}){0,2}[ \t]*[/(][ \t]*$", re.I)
_BANNER_CUDA_AFTER_DRIVER = re.compile(r"Driver Version[^\n]*\n[ \t*-]*$")
# A template's field left empty: "WSL version (if applicable):" says nothing about WSL.
_EMPTY_FIELD = re.compile(r"(?:[ \t]*(?:version[ \t]*)?\(if applicable\)|[ \t]*version)[ \t]*:[ \t]*"
                          r"(?:n/?a|no|none|not applicable|-+)?[ \t]*(?:\n|$)|"
                          r"[ \t]*:[ \t]*(?:n/?a|no|none|not applicable|-+)[ \t]*(?:\n|$)", re.I)
# A mention that says the opposite: "Windows 11 (not using WSL)", "without WSL", "non-WSL".
_NEGATED = re.compile(r"\b(?:not|without|no|non)[ \t-](?:(?:using|use|on|in|via|running(?:[ \t](?:on|in))?)[ \t])?"
                      r"(?:the[ \t]|a[ \t])?$", re.I)
_CC = re.compile(r"compute capability[ \t:=]{0,3}(?:of[ \t])?(\d{1,2}\.\d)\b", re.I)
def parse(p: Paste, f: Facts) -> None:
    def found(rx: re.Pattern, *needles: str):
        """Matches on lines no tool parser has read, with their source label."""
        for m in p.scan(rx, *needles):
            if p.line_no(m.start()) not in p.claimed:
                yield m, p.where("free text", m.start(), claim=False)

    _frameworks(found, f)
    for m, src in found(_DRIVER, *_DRIVER_WORDS):
        if _a_floor(p.text, m):
            continue  # a driver something needs ("546.33 and later is supported"), not the one installed
        f.put("driver.version", m.group(1), src, STATED)
    for m, src in found(_BARE_DRIVER, "."):
        f.put("driver.version", m.group(1), src, STATED)
    for m, src in found(STATED_CUDA, "cuda"):
        line = p.line(p.line_no(m.start()))
        if line.lstrip().startswith("|") or "Driver Version" in line:
            continue  # the nvidia-smi banner's "CUDA Version" is the driver's, read elsewhere
        before = p.text[max(0, m.start() - 12):m.start()].lower()
        if ASKED.search(p.text, max(0, m.start() - 40), m.start()):
            continue  # what a message asks for ("Download and install CUDA 10.0"), not what is there
        if (_DRIVERS_CUDA.search(p.text, max(0, m.start() - 20), m.start())
                or _DRIVER_SLASH_CUDA.search(p.text, max(0, m.start() - 40), m.start())
                or (m.group(0).startswith("CUDA Version")
                    and _BANNER_CUDA_AFTER_DRIVER.search(p.text, max(0, m.start() - 120), m.start()))):
            f.put("driver.cuda_api", m.group(2), src, STATED)  # "自带的cuda是11.6", "driver's CUDA 12.2"
            continue
        toolkit = ((m.group(1) or "").lower() == "toolkit" or m.group(0).lower().startswith("cudatoolkit")
                   or bool(re.search(r"install(?:ed|ing)?\s{1,3}$", before)))
        f.runtime(STATED, version=m.group(2), path="(stated in the paste)", kind="toolkit" if toolkit else "stated",
                  source=src)
    for m, src in found(_CUDA_MAJOR, "cuda"):
        if not ASKED.search(p.text, max(0, m.start() - 40), m.start()):
            f.extra_reads.append(Read("cuda.stated_major", m.group(1), src))
    for m, src in found(_NVCC, "nvcc"):
        f.runtime(STATED, version=m.group(1), path="(nvcc, as stated in the paste)", kind="toolkit", source=src,
                  nvcc=m.group(1))
    if "nvcc" in p.lower:  # "$ nvcc --version" with the version alone on the next line (">>> 11.0")
        for m in _NVCC_THEN_VERSION.finditer(p.text):
            f.runtime(STATED, version=m.group(1), path="(nvcc, as stated in the paste)", kind="toolkit",
                      source=p.where("free text", m.start(1), claim=False), nvcc=m.group(1))
    for m, src in found(_CUDNN_ARCHIVE, "cudnn"):
        f.library("cudnn", STATED, version=m.group(1) or m.group(2), path="(stated in the paste)", kind="stated",
                  source=src)
    for m, src in found(_CUDNN, "cudnn"):
        f.library("cudnn", STATED, version=m.group(1), path="(stated in the paste)", kind="stated", source=src)
    for rx in (_PYTHON, _PY_PATH):
        for m, src in found(rx, "py"):
            f.put("system.python", m.group(1), src, STATED)
    _system(p, f, found)
    _gpus(p, f)
    for m, src in found(_NO_TOOLKIT, "cuda"):
        f.extra_reads.append(Read("cuda.absent_said", m.group(0), src))
        break
    for m in p.scan(_DEVICE_CPU, "cpu"):  # any line: the code may sit inside a traceback
        f.extra_reads.append(Read("code.device_cpu", m.group(0), p.where("code", m.start(), claim=False)))
        break
    for m in p.scan(_OLDER_WORKS, "version", "release", "w/"):
        f.extra_reads.append(Read("release.older_works", m.group(0), p.where("free text", m.start(), claim=False)))
        break
    for m, src in found(_NO_GPU_HERE, "gpu", "graphics", "card", "卡"):
        if not _ABOUT_A_CONTAINER.search(p.line(p.line_no(m.start()))):
            f.extra_reads.append(Read("machine.no_gpu_said", m.group(0), src))
            break
    seen: set[str] = set()
    for m in p.scan(_PRECISION_USED, "fp8", "float8", "e4m3", "e5m2", "bf16", "bfloat16", "fp16", "float16", "half",
                    "mixed", "scalar type"):
        word = m.group(0).lower().lstrip("-")
        name = "bf16" if word.startswith("b") else "fp8" if "8" in word or word.startswith("e") else "fp16"
        if name not in seen:
            seen.add(name)
            f.extra_reads.append(Read("precision.used", name, p.where("precision named", m.start(), claim=False)))


def _frameworks(found, f: Facts) -> None:
    for m, src in found(_TORCH, "torch"):
        f.fw("torch", "version", m.group(1), src, STATED)
    for m, src in found(_BARE_TORCH, "+cu", "+cpu"):
        f.fw("torch", "version", m.group(1), src, STATED)
    for m, src in found(_QUOTED_TORCH, "+cu", "+cpu"):
        if not _NOT_TORCH_TAG.search(m.string, m.string.rfind("\n", 0, m.start()) + 1, m.end()):
            f.fw("torch", "version", m.group(1), src, STATED)
    for m, src in found(_TORCH_WITH_CUDA, "torch"):
        cuda = m.group(1) or f"{m.group(2)}.{m.group(3)}"
        f.fw("torch", "cuda", cuda, src, STATED)
        f.fw("torch", "build", "cuda", src, STATED)
    for m, src in found(_TORCH_CUDA, "via torch"):
        f.fw("torch", "cuda", m.group(1), src, STATED)
        f.fw("torch", "build", "cuda", src, STATED)
    for m, src in found(_TF, "tensorflow", "tf"):
        f.fw("tensorflow", "version", m.group(1), src, STATED)
        if "-gpu" in m.group(0).lower():  # the name of TensorFlow 1.x's (and 2.0-2.11's) CUDA package
            f.fw("tensorflow", "build", "cuda", src, STATED)
    for m, src in found(_JAX, "jax"):
        if m.group(1).lower() == "jaxlib":
            f.package("jaxlib", m.group(2), src)  # jax's version is jax's own ("jax 0.3.16, jaxlib 0.3.15")
        else:
            f.fw("jax", "version", m.group(2), src, STATED)
    for m, src in found(_CUPY, "cupy"):
        f.fw("cupy", "version", m.group(1), src, STATED)
    for m, src in found(_ORT, "onnx"):
        name = re.sub(r"onnx[ _]?runtime", "onnxruntime", m.group(1).lower())
        if name == "onnxruntime":
            # In a sentence the plain name means ONNX Runtime at large ("using onnxruntime 1.19 on a
            # Jetson"), not the CPU package: only a line of its own in a list of versions names that.
            f.fw("onnxruntime", "version", m.group(2), src, STATED)
        else:
            f.package(name, m.group(2), src)
    for m, src in found(_ORT_LISTED, "onnx"):
        f.package("onnxruntime", m.group(1), src)
    for m, src in found(_CUDA_NAMED_SAID, "paddlepaddle-gpu", "mxnet-cu", "dgl-cu"):
        named = cuda_named_build(m.group(1), m.group(2))
        if named is not None:
            f.fw(named[0], "version", m.group(2), src, STATED)
            f.fw(named[0], "build", "cuda", src, STATED)
            if named[1]:
                f.fw(named[0], "cuda", named[1], src, STATED)
    for m, src in found(_BUILT_AT_INSTALL, "dlib", "face"):
        f.fw("dlib", "named", True, src, STATED)
    for m, src in found(_GPU_LIBRARY, "vllm", "cuml", "cudf", "cugraph", "rapids", "flash"):
        name = "flash-attn" if m.group(1).lower().startswith("flash") else m.group(1).lower()
        f.fw(name, "named", True, src, STATED)
        if m.group(3) or m.group(2):
            f.fw(name, "version", m.group(3) or "2", src, STATED)


def _system(p: Paste, f: Facts, found) -> None:
    wsl = [(m, src) for m, src in found(_WSL, "wsl", "subsystem") if not _EMPTY_FIELD.match(p.text, m.end())
           and not _NEGATED.search(p.text, max(0, m.start() - 24), m.start())]
    for m, src in wsl:
        f.put("system.wsl", True, src, STATED)
        f.put("system.os", "linux", src, STATED)
    if wsl:
        for m, src in found(_WINDOWS_BUILD, "windows", "win1", "version", "build"):
            f.extra_reads.append(Read("windows.build", m.group(1), src))
            break
    for m, src in found(_OS, *_OS_WORDS):
        if wsl and m.group(1).lower().startswith("windows"):
            continue  # under WSL2 the Windows version describes the host, not the Linux that runs the code
        note_os(f, m.group(1), src, STATED)
    def search(rx: re.Pattern, needles: tuple[str, ...]):
        # Each pattern's matches lie on one line and contain one of its needles: only the
        # lines that hold a needle are searched, not a long log around them.
        return next(p.scan(rx, *needles), None)

    paths: tuple[tuple[re.Pattern, str, tuple[str, ...]], ...] = (
        (_LINUX_PATH, "linux", ("python3.",)),
        (_WINDOWS_PATH, "windows", (":\\", "\\lib\\site-packages\\", "python.exe", "win_amd64")),
        (_MAC_PATH, "darwin", ("/users/", "/library/frameworks/", "macosx_")))
    for rx, name, needles in paths:
        m = search(rx, needles)
        if m and not wsl:
            f.put("system.os", name, p.where("file path in the paste", m.start(), claim=False), STATED)
    banner = search(_PY_BANNER, ("] on ", "] :: "))
    if banner and not wsl:
        f.put("system.os", _BANNER_OS[banner.group(1)], p.where("Python banner", banner.start(), claim=False), STATED)
    container_clues(p, f, search)

# The reporter says the machine has no GPU at all ("we don't have GPU", "a CPU-only cluster"): the
# messages a GPU build prints there are expected, not a fault. Not about a container ("inside docker").
_NO_GPU_HERE = re.compile(
    r"\b(?:we|i) (?:do not|don't|dont|did not|didn't) have (?:a |any )?(?:nvidia |cuda |dedicated )?gpus?\b"
    r"(?![ \t]*(?:driver|support|access|acceleration))|\bi have no (?:nvidia )?gpus?\b"
    r"|\b(?:cpu[- ]only|gpu[- ]less|without (?:a |any )?gpus?) (?:machine|server|cluster|node|host|laptop|computer|vm)s?\b"
    r"|\bno gpus? (?:on|in) (?:this|the|my|our) (?:machine|server|cluster|node|laptop|host|computer|vm)\b"
    # only a GPU of another maker: "I'm using a integrated Intel GPU(iris xe graphics)", "A卡" (an AMD card)
    r"|\b(?:i(?:'m| am) using|i have|i use|i only have|my (?:pc|laptop|computer|machine) has)(?: only)?(?: an?| the)? "
    r"(?:integrated |onboard )?(?:intel|amd|radeon)(?: \w+){0,3}[ (]{0,2}(?:gpu|graphics|card)\b|A卡|\bAMD卡"
    r"|(?<![^\n])[ \t>*-]*(?:graphics|gpu|video card)s?[ \t]*[:=][ \t]*(?:intel|amd|radeon|apple)\b", re.I)  # a specs field
_ABOUT_A_CONTAINER = re.compile(r"docker|container|\bpod\b|wsl|inside", re.I)


# A line that is only a driver-shaped version ("410.48", `cat /sys/module/nvidia/version`'s
# "470.103.01", a form's "Driver version" answer on its own line): the driver.
_BARE_DRIVER = re.compile(r"^[ \t]*([2-6]\d{2}\.\d{2,3}(?:\.\d{2})?)[ \t,.;!?]*$", re.M)


# The program itself asks for the CPU: `WhisperModel(path, device="cpu", compute_type="float16")`.
_DEVICE_CPU = re.compile(r"""\bdevice[ \t]*=[ \t]*["']cpu["']""")
# The reporter saying no CUDA toolkit is installed ("Cuda Kit - Is NOT installed"): a CUDA library
# the program wants is then missing, whatever CUDA it was built for.
_NO_TOOLKIT = re.compile(r"\bCUDA[ \t]+(?:toolkit|tool[ \t]?kit|kit)?[ \t-]*(?:is|was)?[ \t]*not[ \t]+installed\b|"
                         r"\b(?:no|without)[ \t]+(?:the[ \t]+|a[ \t]+)?CUDA[ \t]+(?:toolkit|kit)\b|"
                         r"\bdid(?:n't|[ \t]+not)[ \t]+install[ \t]+(?:the[ \t]+)?CUDA\b", re.I)


# The reporter saying an older release of the program works ("the older version v0.10.1 still works",
# "w/ v0.10.1 not"), also on a line an error message claimed: a newer release stopped serving the machine.
_OLDER_WORKS = re.compile(
    r"\b(?:older|previous|earlier|last) (?:version|release)s?(?: (?:of \w+ )?v?\d+(?:\.\d+){1,2})? (?:still |does |did )?"
    r"`?(?:works?|worked|runs?|ran)\b|\b(?:works?|worked|runs?|ran) (?:fine |well )?(?:with|on|in) (?:the )?"
    r"(?:older|previous|earlier) (?:version|release)|\bw/ ?v?\d+(?:\.\d+){1,2} not\b", re.I)


# A precision the paste's program uses or asks for ("FP8 quantization", torch_dtype=torch.bfloat16, --bf16):
# where the GPU lacks it in hardware, that lack is no longer mere information.
# A precision named as a word or a flag (--bf16), not inside a name (model-fp8-e4m3).
_PRECISION_USED = re.compile(r"(?<![\w-])(?:--)?(?:fp8|float8(?:_e4m3fn|_e5m2)?|e4m3|e5m2|bf16|bfloat16|fp16|float16"
                             r"|half[- ]precision|mixed[- ]precision"
                             # torch's dtype errors name the Half tensors a program runs on
                             r"|scalar type Half|Half but found)(?![\w-])", re.I)


def _gpus(p: Paste, f: Facts) -> None:
    hits = [*p.scan(GPU_FAMILY, *GPU_WORDS), *p.scan(GPU_SHORT, *CONTEXT_WORDS),
            *p.scan(GPU_NUMBER, *CONTEXT_WORDS, "ti", "super", " but ", " vs", " than ", " and ", " or "),
            *p.scan(GPU_NUMBER_AFTER_COLON, *CONTEXT_WORDS),
            *p.scan(NUMBER_FIRST, "rtx", "gtx"), *p.scan(SERIES, "xx", "series")]
    hit_lines = sorted({p.line_no(m.start()) for m in hits})
    hit_lines = [n for n in hit_lines if n not in p.claimed]
    # Once a tool has listed the GPUs, names in prose only add to those GPUs:
    # "it works on my friend's RTX 3090" must not become a second GPU.
    create = not any(g.name is not None and g.name.rank > STATED for g in f.gpus)
    series: list[tuple[str, str]] = []
    for number in hit_lines:
        line = p.line(number)
        if len(line) > 2000:
            continue
        names = gpu_names(line)
        cc = next((c for c in _CC.finditer(line) if not _a_floor(line, c)), None) if names else None
        src = f"{p.label + ': ' if p.label else ''}free text line {number}"
        for name in names:
            if series_cc(name):
                series.append((name, src))  # only where no model is named anywhere
                continue
            stated: dict[str, Any] = {"compute_capability": cc.group(1)} if cc and len(names) == 1 else {}
            f.gpu(src, name=name, rank=STATED, create=create, **stated)
    if series and not f.gpus:
        f.gpu(series[0][1], name=series[0][0], rank=STATED, create=create, compute_capability=series_cc(series[0][0]))
