"""LD_LIBRARY_PATH as a paste shows it: `echo $LD_LIBRARY_PATH` and the line it
printed, an `export LD_LIBRARY_PATH=...`, or the "LD_LIBRARY_PATH: ..." that
TensorFlow's loader appends to a failed dlopen. A directory there whose name
carries a cuDNN version ("/apps/cudnn/v8.0.3.33-cuda.11.0/lib64") is a cuDNN the
loader finds before the one a framework's wheel brings (LD_LIBRARY_PATH is
searched before a library's RUNPATH), which is how a system cuDNN shadows it.
"""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, Facts, Read
from gpudoctor.diagnose.paste import Paste

_ASSIGNED = re.compile(r"LD_LIBRARY_PATH\s{0,2}[:=]\s{0,2}[\"']?([^\s\"';]{1,4000})", re.I)
_ECHO = re.compile(r"echo\s{1,4}[\"']?\$\{?LD_LIBRARY_PATH\}?[\"']?\s*$", re.I)
# "cudnn/v8.0.3.33-cuda.11.0", "cudnn-8.9.2", "cudnn_8.1": the version right after "cudnn".
_CUDNN_DIR = re.compile(r"cudnn[-_/]{0,2}v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2})", re.I)
MAX_DIRS = 64


def parse(p: Paste, f: Facts) -> None:
    for value, pos in _values(p):
        src = p.where("LD_LIBRARY_PATH", pos, claim=False)
        # PyTorch's own test when its cuDNN check fails: a CUDA or cuDNN directory on the
        # path is where the foreign cuDNN comes from (torch/backends/cudnn/__init__.py).
        cuda_dirs = [d for d in value.split(":")[:MAX_DIRS] if re.search(r"cuda|cudnn", d, re.I)]
        if cuda_dirs:
            f.extra_reads.append(Read("ld_library_path.cuda_dirs", ":".join(cuda_dirs), src))
        for directory in value.split(":")[:MAX_DIRS]:
            m = _CUDNN_DIR.search(directory)
            if m:
                f.library("cudnn", STATED, version=m.group(1), path=directory, kind="ld-library-path",
                          source=src)


def _values(p: Paste):
    """(value, offset) of each LD_LIBRARY_PATH the paste shows."""
    for start, end in p.lines_with("ld_library_path"):
        line = p.text[start:end]
        if _ECHO.search(line):
            n = p.line_no(start) + 1
            nxt = p.line(n).strip().strip("`")
            if nxt.startswith("/"):
                yield nxt.split()[0], start + len(line) + 1
            continue
        m = _ASSIGNED.search(line)
        if m and "/" in m.group(1):
            yield m.group(1), start + m.start(1)
