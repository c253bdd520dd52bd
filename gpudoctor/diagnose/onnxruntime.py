"""ONNX Runtime's GitHub issue form: its "ONNX Runtime Version or Commit ID" and
"Execution Provider" fields (the heading, a blank line, the answer).

The form names no package, so the version is ONNX Runtime's; an execution
provider of CUDA or TensorRT says the CUDA build is the one in use. The
form's "Execution Provider Library Version" ("CUDA 12.1") is a stated CUDA,
which the free-text reader takes like any other.
"""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, Facts
from gpudoctor.diagnose.paste import Paste

_FIELD = r"^#{{2,4}}[ \t]*{name}[ \t]*\n(?:[ \t]*\n){{0,3}}[ \t]*([^\n#]{{1,200}})"
_VERSION_FIELD = re.compile(_FIELD.format(name=r"ONNX Runtime Version or Commit ID"), re.M | re.I)
_PROVIDER_FIELD = re.compile(_FIELD.format(name=r"Execution Provider"), re.M | re.I)
# "1.16.2", "onnxrumtime 1.16.2", "v1.13": the first release-shaped number in the answer (a commit id has none).
_VERSION = re.compile(r"(?<![\w.])v?(1\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])")


def parse(p: Paste, f: Facts) -> None:
    if "ONNX Runtime Version" not in p.text:
        return
    version = _VERSION_FIELD.search(p.text)
    hit = _VERSION.search(version.group(1)) if version else None
    if version is None or hit is None:
        return
    src = p.where("ONNX Runtime issue form", version.start(1))
    f.saw("ONNX Runtime issue form")
    f.fw("onnxruntime", "version", hit.group(1), src, STATED)
    provider = _PROVIDER_FIELD.search(p.text)
    if provider and re.search(r"\b(?:CUDA|TensorRT)\b", provider.group(1), re.I):
        f.fw("onnxruntime", "build", "cuda", p.where("ONNX Runtime issue form", provider.start(1)), STATED)
