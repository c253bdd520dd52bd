"""The install commands a report shows: `pip install torch==2.0.1 --index-url
https://download.pytorch.org/whl/cu118` says which build was asked for; a
plain `pip install torch` on Windows gets PyPI's CPU-only wheel. These are
what the person ran, not what is installed, so they rank as stated facts and
any tool output outranks them. Arguments are read as `gpudoctor lint` reads
them, and builds are named as it names them."""

from __future__ import annotations

import re
import shlex

from gpudoctor.diagnose.collect import STATED, Facts
from gpudoctor.diagnose.paste import Paste
from gpudoctor.lint.model import Source
from gpudoctor.lint.readers_pip import add_args
from gpudoctor.lint.resolve import variant_of_index

_INSTALL = re.compile(r"(?:^|[\s>$#])(?:uv[ \t]+)?pip3?(?:\.exe)?[ \t]+install[ \t]+([^\n]{1,600})", re.I | re.M)
# Where PyPI's default torch wheel is CPU-only.
_CPU_DEFAULT = {"windows": "windows-x86_64", "darwin": "macos-arm64"}


def parse(p: Paste, f: Facts) -> None:
    for m in p.scan(_INSTALL, "install"):
        try:
            tokens = shlex.split(m.group(1), comments=True)
        except ValueError:
            tokens = m.group(1).split()
        source = Source("paste", "requirements")
        add_args(source, [(t, 1) for t in tokens])
        torch = source.find("torch")
        if torch is None:
            continue
        src = p.where("install command", m.start(1), claim=False)
        exact = re.fullmatch(r"===?([\w.+!-]{1,60})", torch.spec or "")
        version = exact.group(1) if exact else None
        local = version.split("+", 1)[1] if version and "+" in version else None
        variant = local or next((v for v in (variant_of_index(u) for u, _ in source.indexes) if v), None)
        if variant is None and not source.indexes and not torch.url:
            # No index: PyPI's default wheel, CPU-only on Windows and macOS.
            if f.get("system.os") in _CPU_DEFAULT:
                variant = "cpu"
        if version:
            f.fw("torch", "version", version, src, STATED)
        if variant == "cpu":
            f.fw("torch", "build", "cpu", src, STATED)
        elif variant and re.fullmatch(r"cu\d{3,4}", variant):
            f.fw("torch", "build", "cuda", src, STATED)
            f.fw("torch", "cuda", f"{variant[2:-1]}.{variant[-1]}", src, STATED)
        f.saw("install command")
