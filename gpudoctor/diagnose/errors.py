"""Error and warning lines as evidence.

Two things come out of them. Facts: PyTorch's sm_XX warning names the GPU, its
compute capability and the build's arch list; "found version 11040" is the
driver's CUDA; TensorFlow's device lines carry compute capabilities; cuDNN
mismatch messages carry both versions. And signals: each line the error
catalogue recognises, which `diagnose` turns into a GD8xx finding.
"""

from __future__ import annotations

import re

from gpudoctor.diagnose.catalog import match_text, numbered_matches
from gpudoctor.diagnose.collect import TOOL, Facts, Read, Signal
from gpudoctor.diagnose.freetext import gpu_names
from gpudoctor.diagnose.paste import Paste
from gpudoctor.versions import compute_capability, cuda_version

_SM_WARN = re.compile(r"^([^\n]{1,300}?) with CUDA capabilit(?:y|ies) (sm_\d{2,3}) is not compatible", re.I | re.M)
_SUPPORTS = re.compile(r"supports CUDA capabilities((?:[ \t]{1,3}(?:sm|compute)_\d{2,3}[af]?){1,40})", re.I)
_FOUND_GPU = re.compile(r"Found GPU(\d{1,2}) ([^\n]{1,100}?) "
                        r"which is of (?:cuda capability|compute capability \(CC\)) (\d{1,2}\.\d)", re.I)
_CC_MIN = re.compile(r"minimum cuda capability (?:supported by this library is|that we support is) (\d{1,2}\.\d)", re.I)
_CC_RANGE = re.compile(r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s{0,20}"
                       r"\((\d{1,2}\.\d)\) - \((\d{1,2}\.\d)\)", re.I)
_DRIVER_OLD = re.compile(r"(?:The )?NVIDIA driver on your system is too old \(found version (\d{4,6})\)", re.I)
_CUDNN_TF = re.compile(r"Loaded runtime CuDNN library: (\d{1,2}\.\d{1,2}\.\d{1,3}) but (?:the )?source was compiled with: "
                       r"(\d{1,2}\.\d{1,2}\.\d{1,3})", re.I)
_CUDNN_TF_OLD = re.compile(r"Loaded runtime CuDNN library: (\d{4,6}) \(compatibility version \d{4,6}\) "
                           r"but (?:the )?source was compiled with (\d{4,6})", re.I)
_CUDNN_JAX = re.compile(r"Found cuDNN version (\d{4,6}), but JAX was built against version (\d{4,6})", re.I)
_CUDNN_JAX_OUTDATED = re.compile(r"Outdated cuDNN installation found\.\s{0,20}Version JAX was built against: (\d{4,6})"
                                 r"\s{0,20}Minimum supported: \d{4,6}\s{0,20}Installed version: (\d{4,6})", re.I)
_TORCH_EXT = re.compile(r"The detected CUDA version \((\d{1,2}\.\d{1,2})\) mismatches the version that was used to "
                        r"compile\s{0,20}PyTorch \((\d{1,2}\.\d{1,2})\)", re.I)
_DEEPSPEED = re.compile(r"Installed CUDA version (\d{1,2}\.\d{1,2}) does not match the version torch was compiled "
                        r"with (\d{1,2}\.\d{1,2})", re.I)
_CMAKE_CUDA = re.compile(r'Could NOT find CUDA(?:Toolkit)?: Found unsuitable version "([\d.]{1,12})", but required is at '
                         r'least "([\d.]{1,12})"(?: \(found ([^)\n]{1,300})\))?')
_PADDLE_ARCH = re.compile(r"PaddlePaddle package was compiled\s{1,3}for ([\d ]{2,60}?)\s?,?\s{0,3}"
                          r"but your current GPU is (\d{2,3})")
_MINER_ARCH = re.compile(r"NVIDIA GPU (\d{1,2}): miner not compiled for the gpu architecture (\d{2,3})\b", re.I)
_YOUR_GPU = re.compile(r"Your ([^\n]{1,80}?) GPU has compute capability (\d{1,2}\.\d)", re.I)
_TF_IGNORE = re.compile(r"Ignoring visible gpu device \(device: (\d{1,2}), name: ([^,\n]{1,100}), pci bus id: "
                        r"([^,\n]{1,40}), compute capability: (\d{1,2}\.\d)\)", re.I)
_TF_CREATED = re.compile(r"device:GPU:(\d{1,2}) with (\d{1,7}) MB memory\)?:?\s{0,4}->\s{0,4}device: \d{1,2}, name: "
                         r"([^,\n]{1,100}), pci bus id: ([^,\n]{1,40}), compute capability: (\d{1,2}\.\d)", re.I)
_TF_FOUND = re.compile(r"Found device (\d{1,2}) with properties:", re.I)
_TF_FOUND_BODY = re.compile(r"name: ([^\n]{1,100}?)\s{1,10}(?:computeCapability: (\d{1,2}\.\d)|major: (\d{1,2}) minor: (\d))")
_XLA_DEVICE = re.compile(r"StreamExecutor device \((\d{1,2})\): ([^,\n]{1,100}), Compute Capability (\d{1,2}\.\d)", re.I)
_TF_NO_BINARIES = re.compile(r"TensorFlow was not built with CUDA kernel binaries compatible with compute capability "
                             r"(\d{1,2}\.\d)", re.I)
_TORCH_CPU = re.compile(r"Torch not compiled with CUDA enabled", re.I)
_JAX_CPU = re.compile(r"CUDA-enabled jaxlib is not installed", re.I)
_JAX_PLUGIN_FAILED = {"jax-plugin-version-mismatch", "jax-plugin-init-error", "jax-backend-cuda-failed",
                      "cudnn-version-mismatch-jax", "jax-cuda-lib-missing"}
_TF_DSO = re.compile(r"tensorflow[^\n]{0,80}Successfully opened dynamic library (?:lib)?cudart", re.I)
_TF_CUDNN_LOADED = re.compile(r"Loaded cuDNN version (\d{4,6})", re.I)
# torch/backends/cudnn/__init__.py: "cuDNN version incompatibility: PyTorch was compiled against (8, 7, 0)
# but found runtime version (8, 5, 0)".
_CUDNN_TORCH = re.compile(r"PyTorch was compiled\s{1,4}against \((\d{1,2}), (\d{1,2}), (\d{1,3})\) but "
                          r"(?:found runtime version|linked against) \((\d{1,2}), (\d{1,2}), (\d{1,3})\)", re.I)
# xformers/_cpp_lib.py: "xFormers was built for:\n PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)"
_XFORMERS_BUILT = re.compile(r"PyTorch ([\w.+]{3,40}) with CUDA (\d{3,5}) \(you have ([\w.+]{3,40})\)", re.I)
# XLA: "The NVIDIA driver's CUDA version is 11.4 which is older than the ptxas CUDA version (11.8.89)"
_XLA_DRIVER = re.compile(r"driver's CUDA version is (\d{1,2}\.\d) which is older than the (?:ptxas|PTX compiler) CUDA "
                         r"version \((\d{1,2}\.\d)", re.I)


# A cuDNN library file named inside a framework's own lib folder (a listing, or a sentence
# about one): "site-packages/torch/lib/libcudnn_ops.so.9", "torch\lib ... cudnn_ops64_9.dll".
# The framework's wheel bundles that cuDNN, so its major is the framework's.
_CUDNN_IN_FRAMEWORK = re.compile(r"(?:site|dist)-packages[\\/]{1,2}(torch|tensorflow|jaxlib|paddle)[\\/]{1,2}lib\b"
                                 r"[^\n]{0,120}?\b(?:lib)?cudnn\w{0,30}?(?:64_(\d{1,2})\.dll|\.so\.(\d{1,2}))", re.I)


def cudnn_from_int(n: int) -> str:
    """cuDNN's integer versions: 8902 -> 8.9.2, 90100 -> 9.1.0, 5103 -> 5.1.3."""
    if n >= 10000:
        return f"{n // 10000}.{n % 10000 // 100}.{n % 100}"
    return f"{n // 1000}.{n % 1000 // 100}.{n % 100}"


def parse(p: Paste, f: Facts) -> None:
    # A message a terminal or an issue form wrapped over two lines is read with the
    # continuation joined (Paste.unwrapped keeps the pasted line numbers). Signals
    # first: what a message means can depend on the others (deferred_by).
    q = p.unwrapped()
    _signals(p, q, f)
    _arch_messages(q, f)
    _driver_and_toolkit(q, f)
    _cudnn_messages(q, f)
    _device_lines(q, f)
    _implied_facts(q, f)


def _signals(p: Paste, q: Paste, f: Facts) -> None:
    matched: set[str] = set()
    matches = match_text(p.text, paste=p)
    for match in matches:
        _signal(p, f, match.entry, match.line_no, match.text)
        matched.add(match.entry.id)
    _numbered(p, f, {m.line_no for m in matches})
    if q is not p:  # entries only the joined lines show: only those are matched again
        numbers = sorted(q.joined)
        for match in match_text("\n".join(q.line(n) for n in numbers)):
            if match.entry.id not in matched:
                _signal(p, f, match.entry, q.pasted_line(numbers[match.line_no - 1]), match.text)


def _numbered(p: Paste, f: Facts, matched_lines: set[int]) -> None:
    """A CUDA error given only by its number ("CUDA error 209 at kernel.cu:12") is
    matched as the runtime's message for that number, on a line nothing else matched."""
    spans = {span for needle in ("cuda", "curesult", "cuinit") for span in p.lines_with(needle)}
    for start, end in sorted(spans):
        line_no = p.line_no(start)
        for match in numbered_matches(p.text[start:end], line_no) if line_no not in matched_lines else ():
            _signal(p, f, match.entry, line_no, match.text)


# A reporter's sentence that names a message to set it aside: "I am aware that the
# `CUDA_ERROR_NOT_INITIALIZED` error should not affect GPU usage", "the NUMA warning is harmless".
_DISMISSED = re.compile(r"\b(?:I am|I'm|we are|we're) aware\b|\bshould(?: not|n't) affect\b|\bcan be (?:safely )?ignored\b|"
                        r"\b(?:is|are|seems?|looks?) harmless\b|\bdoes(?: not|n't) (?:matter|affect)\b", re.I)


# A sentence that quotes a rule someone stated, not output the reporter got: "It is said that
# bfloat16 is only supported on GPUs with compute capability of at least 8.0, which means ...".
_HEARSAY = re.compile(r"^\W{0,3}(?:it is said|it's said|they say|I (?:have |'ve )?(?:read|heard)|the docs? says?|"
                      r"according to)\b", re.I)


def _signal(p: Paste, f: Facts, e, line_no: int, text: str) -> None:
    if _DISMISSED.search(text) or _HEARSAY.search(text):
        return
    src = f"{p.label + ': ' if p.label else ''}error line {line_no}"
    f.signal(Signal(e.id, e.title, e.code, text, src, reporters_words=not e.printed_by))
    f.saw("error messages")


# The entrypoint of NVIDIA's NGC images (50-gpu-driver-check.sh), which reads the host's module version
# from /proc/driver/nvidia/version: "version  was detected" (empty) when the container has no driver.
# (A compose log prefixes the second line with its service: "triton-1  |        version ...".)
_NGC_BANNER = re.compile(r"This container was built for NVIDIA Driver Release ([\d.]+) or later,?[ \t]*(?:but)?"
                         r"\s{0,80}(?:[\w.-]{1,60}[ \t]*\|[ \t]*)?version[ \t]*([\d.]*)[ \t]*was detected", re.I)


def _implied_facts(p: Paste, f: Facts) -> None:
    """Facts a framework's message states in passing: the versions it compares."""
    if "was detected" in p.lower:
        for m in _NGC_BANNER.finditer(p.text):
            src = p.where("NGC container banner", m.start())
            f.put("system.container", "docker", src)  # only an NGC image's entrypoint prints it
            f.extra_reads.append(Read("image.driver_floor", m.group(1), src))
            f.extra_reads.append(Read("image.driver_detected", m.group(2) or "none", src))
            if m.group(2):
                f.put("driver.version", m.group(2), src)
    for m in p.scan(_CUDNN_TORCH, "pytorch was compiled"):
        src = p.where("PyTorch error", m.start())
        f.fw("torch", "build", "cuda", src)
        f.fw("torch", "cudnn", ".".join(m.group(1, 2, 3)), src)
        f.fw("torch", "cudnn_runtime", ".".join(m.group(4, 5, 6)), src)
    if "you have" in p.lower:
        for m in _XFORMERS_BUILT.finditer(p.text):
            src = p.where("xFormers warning", m.start())
            f.fw("torch", "version", m.group(3), src)
            f.package("xformers-built-for-torch", m.group(1), src)
    for m in p.scan(_CUDNN_IN_FRAMEWORK, "packages"):
        src = p.where("file in the framework's folder", m.start())
        f.fw(m.group(1).lower(), "build", "cuda", src)  # only a CUDA build's wheel carries cuDNN
        f.fw(m.group(1).lower(), "cudnn", m.group(2) or m.group(3), src)
    for m in p.scan(_CMAKE_CUDA, "found unsuitable version"):
        src = p.where("CMake message", m.start())
        f.runtime(version=m.group(1), path=m.group(3) or "(found by CMake)", kind="toolkit", source=src)
        f.extra_reads.append(Read("cuda.required", m.group(2), src))
    for m in p.scan(_XLA_DRIVER, "older than the"):
        f.put("driver.cuda_api", m.group(1), p.where("XLA error", m.start()))


def _sm_warnings(p: Paste):
    """_SM_WARN matches, looked for only on lines that mention a CUDA capability."""
    for start, end in p.lines_with("with cuda capabilit"):
        yield from _SM_WARN.finditer(p.text, start, end)


def _arch_messages(p: Paste, f: Facts) -> None:
    for m in _sm_warnings(p):
        src = p.where("PyTorch warning", m.start())
        # The line may start with the warning's file and category, or a title ("Bug Report:"):
        # the name is what the free-text reader finds there, else what follows "Warning:".
        head = re.split(r"Warning:\s*", m.group(1))[-1].strip(" :`'\"")
        found = gpu_names(head)
        name = found[-1] if found else head
        cc = compute_capability(m.group(2))
        f.gpu(src, name=name or None, compute_capability=str(cc) if cc else None)
        f.fw("torch", "build", "cuda", src)
        tail = _SUPPORTS.search(p.text, m.end(), m.end() + 600)
        if tail:
            arch = tuple(tail.group(1).split())
            f.fw("torch", "arch_list", arch, p.where("PyTorch warning", tail.start()))
    for m in p.scan(_FOUND_GPU, "found gpu"):
        src = p.where("PyTorch warning", m.start())
        f.gpu(src, index=int(m.group(1)), name=m.group(2).strip(), compute_capability=m.group(3))
        f.fw("torch", "build", "cuda", src)
    for m in _CC_RANGE.finditer(p.text):
        f.put("torch.cc_min", m.group(1), p.where("PyTorch warning", m.start()))
        f.put("torch.cc_max", m.group(2), p.where("PyTorch warning", m.start()))
    for m in p.scan(_CC_MIN, "minimum cuda capability"):
        f.put("torch.cc_min", m.group(1), p.where("PyTorch warning", m.start()))
    for m in p.scan(_PADDLE_ARCH, "package was compiled"):
        # Paddle names the wheel's architectures and the GPU's: "compiled for 60 61 70 75 80 86, but your current GPU is 120".
        src = p.where("PaddlePaddle error", m.start())
        f.fw("paddle", "build", "cuda", src)
        f.fw("paddle", "arch_list", tuple(f"sm_{a}" for a in m.group(1).split()), src)
        cc = m.group(2)
        f.gpu(src, index=0, compute_capability=f"{cc[:-1]}.{cc[-1]}")
    for m in p.scan(_MINER_ARCH, "miner not compiled"):
        # xmr-stak prints the GPU's own architecture: "architecture 21" is compute capability 2.1.
        f.gpu(p.where("miner warning", m.start()), index=int(m.group(1)),
              compute_capability=f"{m.group(2)[:-1]}.{m.group(2)[-1]}")
    for m in p.scan(_YOUR_GPU, "gpu has compute capability"):
        f.gpu(p.where("error message", m.start()), name=m.group(1).strip(), compute_capability=m.group(2))
    for m in p.scan(_TORCH_CPU, "not compiled with cuda"):
        f.fw("torch", "build", "cpu", p.where("PyTorch error", m.start()))
    for m in p.scan(_JAX_CPU, "cuda-enabled jaxlib"):
        # JAX prints this whenever no CUDA backend came up, also after its CUDA plugin
        # failed to start: it means a CPU-only jaxlib only when no earlier line says why.
        if not any(sig.entry in _JAX_PLUGIN_FAILED for sig in f.signals):
            f.fw("jax", "build", "cpu", p.where("JAX warning", m.start()))


def _driver_and_toolkit(p: Paste, f: Facts) -> None:
    for m in p.scan(_DRIVER_OLD, "too old (found version"):
        cv = cuda_version(int(m.group(1)))
        f.put("driver.cuda_api", str(cv) if cv else None, p.where("PyTorch error", m.start()))
    ext = _TORCH_EXT.finditer(p.text) if "mismatches the version" in p.lower else ()
    for matches, what in ((ext, "PyTorch error"), (p.scan(_DEEPSPEED, "installed cuda version"), "DeepSpeed error")):
        for m in matches:
            src = p.where(what, m.start())
            f.runtime(version=m.group(1), path="(CUDA_HOME, as the error reports it)", kind="toolkit", source=src,
                      nvcc=m.group(1))
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "cuda", m.group(2), src)


def _cudnn_messages(p: Paste, f: Facts) -> None:
    seen: dict = {}
    for m in p.scan(_CUDNN_TF, "loaded runtime cudnn"):
        _cudnn_pair(p, f, m, m.group(2), m.group(1), seen)
    for m in p.scan(_CUDNN_TF_OLD, "loaded runtime cudnn"):
        _cudnn_pair(p, f, m, cudnn_from_int(int(m.group(2))), cudnn_from_int(int(m.group(1))), seen)
    pairs = [(m, m.group(2), m.group(1)) for m in p.scan(_CUDNN_JAX, "but jax was built against")]
    if "outdated cudnn" in p.lower:  # this message spans lines: read the whole text
        pairs += [(m, m.group(1), m.group(2)) for m in _CUDNN_JAX_OUTDATED.finditer(p.text)]
    for m, built, loaded in pairs:
        src = p.where("JAX error", m.start())
        f.fw("jax", "build", "cuda", src)
        f.fw("jax", "cudnn", cudnn_from_int(int(built)), src)
        f.fw("jax", "cudnn_runtime", cudnn_from_int(int(loaded)), src)
    for m in p.scan(_TF_CUDNN_LOADED, "loaded cudnn version"):
        f.extra_reads.append(Read("cudnn.loaded", cudnn_from_int(int(m.group(1))), p.where("TensorFlow log", m.start())))


def _cudnn_pair(p: Paste, f: Facts, m: re.Match, built: str, loaded: str, seen: dict) -> None:
    # Which framework printed it: asked once per paste and once per line (in `seen`), so a
    # line repeating the message thousands of times is read once, not once per repetition.
    if "jax only" not in seen:
        seen["jax only"] = "jax" in p.lower and "tensorflow" not in p.lower
    number = p.line_no(m.start())
    if number not in seen:
        # JAX logs from external/xla/... (older jaxlib: external/org_tensorflow/tensorflow/compiler/xla/...);
        # TensorFlow 2.12-2.14 from tensorflow/compiler/xla/..., 2.15 on from external/local_xla/xla/...
        line = p.line(number).lower()
        tf_xla = "local_xla/" in line or ("tensorflow/compiler/xla" in line and "org_tensorflow" not in line)
        seen[number] = "xla/" in line and not tf_xla
    fw = "jax" if seen[number] or seen["jax only"] else "tensorflow"
    src = p.where("cuDNN error", m.start())
    f.fw(fw, "build", "cuda", src)
    f.fw(fw, "cudnn", built, src)
    f.fw(fw, "cudnn_runtime", loaded, src)


def _device_lines(p: Paste, f: Facts) -> None:
    for m in p.scan(_TF_IGNORE, "ignoring visible gpu device"):
        f.gpu(p.where("TensorFlow log", m.start()), index=int(m.group(1)), name=m.group(2).strip(),
              pci_bus_id=m.group(3).strip(), compute_capability=m.group(4))
    for m in p.scan(_TF_CREATED, "device:gpu:"):
        src = p.where("TensorFlow log", m.start())
        f.gpu(src, index=int(m.group(1)), name=m.group(3).strip(), pci_bus_id=m.group(4).strip(),
              compute_capability=m.group(5))
        f.fw("tensorflow", "build", "cuda", src)
        f.fw("tensorflow", "is_available", True, src)
    for m in _TF_FOUND.finditer(p.text):
        body = _TF_FOUND_BODY.search(p.text, m.end(), m.end() + 300)
        if not body:
            continue
        cc = body.group(2) or f"{body.group(3)}.{body.group(4)}"
        f.gpu(p.where("TensorFlow log", m.start()), index=int(m.group(1)), name=body.group(1).strip(),
              compute_capability=cc)
    for m in p.scan(_TF_NO_BINARIES, "not built with cuda kernel binaries"):
        src = p.where("TensorFlow log", m.start())
        f.gpu(src, compute_capability=m.group(1), create=not f.gpus)
        f.fw("tensorflow", "build", "cuda", src)
    for m in p.scan(_XLA_DEVICE, "streamexecutor device"):
        f.gpu(p.where("XLA log", m.start()), index=int(m.group(1)), name=m.group(2).strip(),
              compute_capability=m.group(3))
    for m in p.scan(_TF_DSO, "successfully opened dynamic library"):
        f.fw("tensorflow", "build", "cuda", p.where("TensorFlow log", m.start()), TOOL)
