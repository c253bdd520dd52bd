"""DeepSpeed's `ds_report`: the "general environment info" block
("torch version .................... 2.7.0+cu128"). The op table says what
DeepSpeed could build, not whether the GPU works, so it is not read."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts, Read
from gpudoctor.diagnose.paste import Paste

WHAT = "ds_report"
_LINE = re.compile(r"^[ \t]{0,8}(torch install path|torch version|torch cuda version|torch hip version|nvcc version|"
                   r"deepspeed info|deepspeed wheel compiled w\.|shared memory \(/dev/shm\) size) \.{2,60} "
                   r"([^\n]{1,300})$", re.M)


def parse(p: Paste, f: Facts) -> None:
    for m in _LINE.finditer(p.text):
        f.saw(WHAT)
        key, value, src = m.group(1), m.group(2).strip(), p.where(WHAT, m.start())
        if key == "torch version":
            f.fw("torch", "version", value, src)
        elif key == "torch cuda version" and re.fullmatch(r"\d+\.\d+", value):
            f.fw("torch", "build", "cuda", src)
            f.fw("torch", "cuda", value, src)
        elif key == "torch hip version" and value not in ("None", ""):
            f.fw("torch", "build", "rocm", src)
        elif key == "nvcc version" and re.fullmatch(r"\d+\.\d+(?:\.\d+)?", value):
            f.runtime(version=value, path="(CUDA_HOME/bin/nvcc, as ds_report runs it)", kind="toolkit", source=src,
                      nvcc=value)
        elif key == "torch install path":
            py = re.search(r"python(\d\.\d{1,2})[/\\]", value)
            if py:
                f.put("system.python", py.group(1), src)
        elif key == "deepspeed info":
            f.extra_reads.append(Read("deepspeed.version", value.split(",")[0].strip(), src))
        elif key == "deepspeed wheel compiled w.":
            f.extra_reads.append(Read("deepspeed.compiled_with", value, src))
        elif key.startswith("shared memory"):
            f.extra_reads.append(Read("system.dev_shm", value, src))
