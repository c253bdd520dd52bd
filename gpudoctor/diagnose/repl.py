"""What a framework answered in an interpreter session pasted into a report:

    >>> torch.__version__            In [2]: torch.cuda.is_available()
    '2.0.1+cpu'                      Out[2]: False

and `python -c "import torch; print(torch.__version__, torch.cuda.is_available())"`
followed by its output line. Each known expression maps to one fact; the
answer is the framework's own output, so it ranks as a tool's.
"""

from __future__ import annotations

import ast
import re

from gpudoctor.diagnose.collect import STATED, TOOL, Facts, Read
from gpudoctor.diagnose.paste import Paste
from gpudoctor.matrices.framework_queries import cudnn_text

# A prompt and the expressions on it: ">>> x", "In [3]: x", "print(a, b)", python -c "...; print(a, b)".
_PROMPT = re.compile(r"^[ \t]*(?:>>>|In \[\d{1,4}\]:|(?:[^\n]{0,80}?[$#>%][ \t]*)?python3?(?:\.\d+)?(?:\.exe)? -c)"
                     r"[ \t]?(.{1,400})$", re.M)
# A notebook cell or a session pasted without its prompts: the expression alone on its
# line, its answer on the next ("torch.cuda.is_available()" then "False").
_BARE = re.compile(r"^[ \t]*((?:torch|tf|tensorflow|jax|cupy|cp|paddle|dlib)\.[\w.]{1,60}(?:\(\))?)[ \t]*$", re.M)
# Only answers of a fixed type are read after a bare expression: a version, a bool, an
# integer or None. The next line of a pasted script is code, and it has none of these shapes.
_TYPED = {"version", "cuda", "is_available", "cudnn", "built_with_cuda"}
_PRINT = re.compile(r"print\((.{1,300})\)")
_OUT = re.compile(r"^\s*(?:Out\[\d{1,4}\]:\s*)?(.{1,400}?)\s*$")

# Expression (spaces removed) -> what its answer is.
_FACTS = {
    "torch.__version__": ("torch", "version"),
    "torch.version.cuda": ("torch", "cuda"),
    "torch.cuda.is_available()": ("torch", "is_available"),
    "torch.backends.cudnn.version()": ("torch", "cudnn"),
    "torch.cuda.get_device_name()": ("gpu", "name"),
    "torch.cuda.get_device_name(0)": ("gpu", "name"),
    "torch.cuda.device_count()": ("torch", "device_count"),
    "tf.__version__": ("tensorflow", "version"),
    "tensorflow.__version__": ("tensorflow", "version"),
    "tf.test.is_built_with_cuda()": ("tensorflow", "built_with_cuda"),
    "tf.config.list_physical_devices('gpu')": ("tensorflow", "gpus"),
    "tf.config.list_physical_devices(\"gpu\")": ("tensorflow", "gpus"),
    "tf.config.experimental.list_physical_devices('gpu')": ("tensorflow", "gpus"),
    "jax.__version__": ("jax", "version"),
    "jax.devices()": ("jax", "devices"),
    "jax.default_backend()": ("jax", "backend"),
    "paddle.__version__": ("paddle", "version"),
    "paddle.device.is_compiled_with_cuda()": ("paddle", "built_with_cuda"),
    "paddle.is_compiled_with_cuda()": ("paddle", "built_with_cuda"),
    "cupy.__version__": ("cupy", "version"),
    "dlib.DLIB_USE_CUDA": ("dlib", "built_with_cuda"),
    "cp.__version__": ("cupy", "version"),
}


# A sentence that quotes an answer: "torch.cuda.is_available() returns False",
# "cuda.is_available() 返回False", "tf.test.is_gpu_available() -> false".
_SAID = re.compile(r"\b((?:torch\.)?cuda\.is_available|tf\.test\.is_gpu_available|tf\.test\.is_built_with_cuda)\(\)"
                   r"[^\n()=]{0,40}?(?<![A-Za-z0-9_.])(true|false)\b", re.I)
_SAID_FACTS = {"cuda.is_available": ("torch", "is_available"), "tf.test.is_gpu_available": ("tensorflow", "is_available"),
               "tf.test.is_built_with_cuda": ("tensorflow", "built_with_cuda")}


# "my torch.version.cuda is 9.0.176", "torch.__version__ returns 1.0.0", "torch.version.cuda = None".
_SAID_VERSION = re.compile(r"\b(torch\.version\.cuda|torch\.__version__)(?:\(\))?[ \t`'\"]{0,2}"
                           r"(?:is|was|returns|returned|gives|shows|prints|=|:|->)[ \t]{0,2}[`'\"]?"
                           r"(None|\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\+\w{1,12})?)(?![\w.])", re.I)


def _said(p: Paste, f: Facts) -> None:
    for m in p.scan(_SAID_VERSION, "torch.version.cuda", "torch.__version__"):
        between = p.text[max(0, m.start() - 30):m.start()].lower()
        if re.search(r"\b(?:not|should|expected|want|instead)\b", between):
            continue
        src = p.where("free text", m.start(), claim=False)
        if m.group(1).lower() == "torch.version.cuda":
            value = m.group(2) if m.group(2) == "None" else ".".join(m.group(2).split("+")[0].split(".")[:2])
            _fact(f, ("torch", "cuda"), None if value == "None" else value, src, STATED)
        else:
            _fact(f, ("torch", "version"), m.group(2), src, STATED)
    for m in p.scan(_SAID, "is_available", "is_gpu_available", "is_built_with_cuda"):
        between = p.text[m.end(1):m.start(2)].lower()
        if re.search(r"\b(?:not|n't|instead|expected|should|want)\b|=", between):
            continue  # "should return True", "instead of False": not what it answered
        key = _SAID_FACTS[m.group(1).lower().removeprefix("torch.")]
        _fact(f, key, m.group(2).lower() == "true", p.where("free text", m.start(), claim=False), STATED)


# A script or session that imports torch: in one process with JAX or TensorFlow, torch loads
# the cuDNN of its own wheels, and whichever library loads cuDNN first decides which one runs.
_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:>>>[ \t]*|In \[\d+\]:[ \t]*)?(?:import torch\b|from torch(?:\.\w+)* import\b)", re.M)


def parse(p: Paste, f: Facts) -> None:
    _said(p, f)
    for m in p.scan(_IMPORTS_TORCH, "torch"):
        f.extra_reads.append(Read("torch.imported", m.group(0).strip(), p.where("script", m.start())))
        break
    bare = "()\n" in p.text or "__\n" in p.text or ".cuda\n" in p.text
    if ">>>" not in p.text and "In [" not in p.text and "print(" not in p.text and not bare:
        return
    lines = p.text.split("\n")
    prompts = [(m, _expressions(m.group(1))) for m in _PROMPT.finditer(p.text)]
    if bare:
        prompts += [(m, [m.group(1)]) for m in _BARE.finditer(p.text)
                    if m.group(1) in _FACTS and _FACTS[m.group(1)][1] in _TYPED]
    for m, exprs in prompts:
        if not exprs:
            continue
        prompt_no = p.line_no(m.start(1))
        answer_no = _answer_line(lines, prompt_no)
        quoted = _quoted_answer(lines, prompt_no) if answer_no is None and " -c" in m.group(0) else None
        if quoted is not None:
            answer_no = prompt_no + 1
        if answer_no is None:
            continue
        out = _OUT.match(quoted if quoted is not None else lines[answer_no - 1])
        if out is None:
            continue
        values = [out.group(1)] if len(exprs) == 1 else out.group(1).split()
        if len(values) != len(exprs):
            continue
        src = p.where("interpreter output", p.start_of(answer_no))
        for expr, raw in zip(exprs, values):
            _fact(f, _FACTS[expr], _literal(raw), src)
        f.saw("interpreter output")


def _expressions(code: str) -> list[str]:
    """The known expressions a prompt line evaluates, in output order."""
    printed = _PRINT.search(code)
    body = printed.group(1) if printed else code.strip().strip("\"'")
    if not printed and ";" in body:
        return []  # statements without a print show nothing
    parts = [x.replace(" ", "") for x in _split_args(body)]
    keys = [x.lower() if x.lower().startswith("tf.config") else x for x in parts]
    return keys if keys and all(k in _FACTS for k in keys) else []


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return [*out, cur] if cur.strip() else out


def _answer_line(lines: list[str], prompt_no: int) -> int | None:
    """The first non-empty line after the prompt that is not itself a prompt."""
    for n in range(prompt_no + 1, min(prompt_no + 3, len(lines)) + 1):
        line = lines[n - 1].strip()
        if not line:
            continue
        if line.startswith((">>>", "In [", "$", "...")) or "Traceback" in line:
            return None
        return n
    return None


# `python -c "..."` whose output the reporter marked with ">>>" on the next line: ">>> 10.2".
_MARKED_ANSWER = re.compile(r"^[ \t]*>>>[ \t]*((?:True|False|None|\d+(?:\.\d+){0,3}(?:\+\w+)?|'[\w.+]+')[ \t]*)$")


def _quoted_answer(lines: list[str], prompt_no: int) -> str | None:
    """After a shell's `python -c`, a '>>>' line holding only a literal is its output as the
    reporter marked it, not a new prompt."""
    if prompt_no < len(lines):
        m = _MARKED_ANSWER.match(lines[prompt_no])
        return m.group(1) if m else None
    return None


def _literal(raw: str):
    if re.fullmatch(r"\d+\.\d+(?:\.\d+)*(?:\+\w+)?", raw.strip()):
        return raw.strip()  # print(torch.version.cuda) writes 10.2 unquoted: a version, not a float
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw.strip("'\"")


def _fact(f: Facts, key: tuple[str, str], value, src: str, rank: int = TOOL) -> None:
    what, field = key
    if what == "gpu":
        if isinstance(value, str) and value:
            f.gpu(src, name=value, rank=rank)
        return
    if field == "version" and isinstance(value, str) and re.match(r"\d+\.\d+", value):
        f.fw(what, "version", value, src, rank)
    elif field == "cuda":
        if value is None or value == "None":
            f.fw(what, "build", "cpu", src, rank)  # torch.version.cuda is None in a CPU build
        elif isinstance(value, str) and re.fullmatch(r"\d+\.\d+", value):
            f.fw(what, "cuda", value, src, rank)
            f.fw(what, "build", "cuda", src, rank)
    elif field == "is_available" and isinstance(value, bool):
        f.fw(what, "is_available", value, src, rank)
    elif field == "cudnn" and isinstance(value, int) and value > 0:
        f.fw(what, "cudnn", cudnn_text(value), src, rank)
    elif field == "built_with_cuda" and isinstance(value, bool):
        f.fw(what, "build", "cuda" if value else "cpu", src, rank)
    elif field in ("gpus", "devices", "backend"):
        text = str(value).lower()
        if field == "backend" and text in ("cpu", "gpu", "cuda"):
            f.fw(what, "is_available", text != "cpu", src, rank)
        elif field == "gpus" and text == "[]":
            f.fw(what, "is_available", False, src, rank)
        elif field == "devices" and "cpudevice" in text and "cuda" not in text and "gpu" not in text:
            f.fw(what, "is_available", False, src, rank)
        elif field == "devices" and re.search(r"\b(?:cuda|gpu)(?:device)?\((?:id=)?\d", text):
            # [CudaDevice(id=0)], [cuda(id=0)], [GpuDevice(id=0, ...)], early jax's [GpuDevice(0)]
            f.fw(what, "is_available", True, src, rank)
