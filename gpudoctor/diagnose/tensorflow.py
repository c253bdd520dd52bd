"""TensorFlow: `tf.sysconfig.get_build_info()` (dict, OrderedDict, or the
build['key'] = value lines people print) and the issue template's "System
information" block (old bullet form, bold form, and today's ### headings).

What the template says was typed by a person, so it ranks as stated, below
anything a tool printed."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, Facts
from gpudoctor.diagnose.freetext import gpu_names
from gpudoctor.diagnose.paste import Paste
from gpudoctor.diagnose.system import note_os

_Q = r"""['"]"""
_BUILD_STR = re.compile(rf"{_Q}(cuda_version|cudnn_version){_Q}\]?\s{{0,4}}[,:=]\s{{0,4}}{_Q}?([\w.]{{1,20}}){_Q}?")
_BUILD_BOOL = re.compile(rf"{_Q}(is_cuda_build|is_rocm_build){_Q}\]?\s{{0,4}}[,:=]\s{{0,4}}(True|False)")
_BUILD_ARCH = re.compile(rf"{_Q}cuda_compute_capabilities{_Q}\]?\s{{0,4}}[,:=]\s{{0,40}}\[([^\]]{{0,800}})\]")
_TEMPLATE = re.compile(
    r"^[ \t]{0,4}[-*][ \t]{0,4}\**(OS Platform and Distribution|TensorFlow installed from|TensorFlow version|"
    r"Python version|CUDA/cuDNN version|GPU model and memory|Installed using virtualenv)"
    r"[^:\n]{0,80}:\**[ \t]{0,8}([^\n]{0,200})$", re.M | re.I)
_HEADINGS = re.compile(r"^#{2,4}[ \t]{0,4}(OS Platform and Distribution|TensorFlow Version|Python version|"
                       r"CUDA/cuDNN version|GPU model and memory)[ \t]*\n+[ \t]*([^\n#][^\n]{0,200})", re.M | re.I)


# Source files only a CUDA build of TensorFlow compiles (its GPU device and stream executor), as
# its log lines name them; jaxlib's older logs name the same files under external/org_tensorflow/.
_CUDA_BUILD_LOG = re.compile(r"(?<!\w)(?<!org_tensorflow/)(?<!org_tensorflow\\)tensorflow[\\/]{1,2}"
                             r"(?:stream_executor[\\/]{1,2}cuda|core[\\/]{1,2}common_runtime[\\/]{1,2}gpu)"
                             r"[\\/]{1,2}\w+\.cc", re.I)


_PLACEHOLDER = re.compile(r"(?:n/?a|none|no(?: gpu)?|-+|cpu(?: only)?|unknown|not applicable)\.?", re.I)


def _win_version(value: str) -> str:
    """Windows builds report DLL suffixes: '64_112' -> '11.2', '64_8' -> '8'."""
    m = re.fullmatch(r"64_(\d+)", value)
    if not m:
        return value
    digits = m.group(1)
    return digits if len(digits) == 1 else f"{digits[:-1]}.{digits[-1]}"


def parse(p: Paste, f: Facts) -> None:
    _build_info(p, f)
    low = p.lower
    for m in p.scan(_CUDA_BUILD_LOG, "stream_executor", "common_runtime"):
        f.fw("tensorflow", "build", "cuda", p.where("TensorFlow log: a CUDA build's source file", m.start()))
        break
    named = low.find("tensorflow-gpu") if "tensorflow-gpu" in low else low.find("tensorflow_gpu")
    if named >= 0:  # the GPU wheel's name, whatever else the paste says of the version
        f.put("tensorflow.gpu_package_named", "yes", p.where("package name", named, claim=False), STATED)
    headings = _HEADINGS.finditer(p.text) if "#" in low and ("cuda/cudnn" in low or "tensorflow version" in low) else ()
    template = p.scan(_TEMPLATE, "os platform", "tensorflow", "python version", "cuda/cudnn", "gpu model",
                      "installed using")
    for matches in (template, headings):
        for m in matches:
            f.saw("TensorFlow issue template")
            _template_field(f, m.group(1).lower(), m.group(2).strip(" *"), p.where("TensorFlow issue template", m.start()))


def _build_info(p: Paste, f: Facts) -> None:
    for m in p.scan(_BUILD_STR, "cuda_version", "cudnn_version"):
        f.saw("tf.sysconfig.get_build_info")
        src = p.where("tf.sysconfig.get_build_info", m.start())
        value = _win_version(m.group(2))
        if not re.fullmatch(r"\d+(?:\.\d+)*", value):
            continue
        f.fw("tensorflow", "cuda" if m.group(1) == "cuda_version" else "cudnn", value, src)
        f.fw("tensorflow", "build", "cuda", src)
    for m in p.scan(_BUILD_BOOL, "_build"):
        f.saw("tf.sysconfig.get_build_info")
        src = p.where("tf.sysconfig.get_build_info", m.start())
        if m.group(2) == "True":
            f.fw("tensorflow", "build", "cuda" if m.group(1) == "is_cuda_build" else "rocm", src)
        elif m.group(1) == "is_cuda_build" and "is_rocm_build" not in p.text:
            f.fw("tensorflow", "build", "cpu", src)
    arch = _BUILD_ARCH.finditer(p.text) if "cuda_compute_capabilities" in p.lower else ()
    for m in arch:
        arch = tuple(re.findall(r"(?:sm|compute)_\d{2,3}[af]?", m.group(1)))
        if arch:
            f.fw("tensorflow", "arch_list", arch, p.where("tf.sysconfig.get_build_info", m.start()))


def _template_field(f: Facts, key: str, value: str, src: str) -> None:
    if not value or value.lower() in ("n/a", "na", "none", "-", "no"):
        return
    if key.startswith("os platform"):
        note_os(f, value, src, STATED)
    elif key == "tensorflow version":
        # "tf2.9.1", "v2.10.0", "2.4.0-rc1": a version may be glued to a name
        m = re.findall(r"(?<![\d.])(\d+\.\d+(?:\.\d+)?(?:-?rc\d+)?)(?!\d|\.\d)", value)
        if m:
            f.fw("tensorflow", "version", m[-1], src, STATED)
    elif key.startswith("tensorflow installed from"):
        if re.search(r"\bsource\b", value, re.I):
            # A build of one's own: its CUDA, cuDNN and arch list are what ./configure was given,
            # not tensorflow.org's tested configuration for the version. (Only the typed field of
            # the older template: today's "### Source" dropdown defaults to "source", and most
            # who leave it so installed the pip wheel.)
            f.put("tensorflow.installed_from", "source", src, STATED)
    elif key.startswith("installed using virtualenv"):
        # "pip", "conda": a package manager installed a released binary, whatever the
        # "installed from" field says (a field people often answer with "source" for PyPI).
        if re.search(r"\b(?:pip3?|conda|mamba|uv)\b", value, re.I) and not re.search(r"\bbazel\b", value, re.I):
            f.put("tensorflow.installed_with", "package manager", src, STATED)
    elif key == "python version":
        py = re.search(r"(?<![\d.])(3\.\d{1,2}(?:\.\d{1,2})?)(?!\d|\.\d)", value)
        if py:
            f.put("system.python", py.group(1), src, STATED)
    elif key == "cuda/cudnn version":
        nums = re.findall(r"(?<![\d.])(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2}|\d{1,2})(?!\d|\.\d)", value)
        if nums:
            f.runtime(STATED, version=nums[0], path="(stated in the issue template)", kind="stated", source=src)
        if len(nums) > 1:
            f.library("cudnn", STATED, version=nums[1], path="(stated in the issue template)", kind="stated",
                      source=src)
    elif key == "gpu model and memory":
        # A name the GPU table does not know is kept as typed, but not a memory size
        # ("24", "8GB") or a placeholder: those name no GPU.
        typed = [value] if re.search(r"[a-z]{2}", re.sub(r"\d+\s*[gm]i?b\b", "", value, flags=re.I), re.I) \
            and not _PLACEHOLDER.fullmatch(value) else []
        for name in gpu_names(value) or typed:
            f.gpu(src, name=name, rank=STATED)
