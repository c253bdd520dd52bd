"""torchvision and torchaudio as a report names them in prose ("torch 1.10.1+cu111 is not
compatible with torchvision 0.10.0+cu111"): the companion releases the environment has, judged
against its torch (GD520, GD521). A listing (pip list, conda list, collect_env) read earlier
wins; install commands and versions someone would move to are not what is installed."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import Facts
from gpudoctor.diagnose.paste import Paste

_COMPANION = re.compile(r"\b(torchvision|torchaudio)(?:[ \t]{1,3}(?:version[ \t]{1,2}(?:is[ \t]{1,2})?)?|==|:[ \t]?)v?"
                        r"(\d{1,2}\.\d{1,2}\.\d{1,2}(?:\+(?:cu\d{2,3}|cpu|rocm[\d.]{1,8}))?)(?![\w.+])", re.I)
# An install command, or a version named as where to go: not the one installed.
_NOT_INSTALLED = re.compile(r"\b(?:pip3?|conda|mamba|uv)\b[^\n]{0,40}\binstall\b|"
                            r"\b(?:change|switch|downgrade|upgrade|move|update)[sd]?\b[^\n]{0,20}\bto[ \t]{1,3}$|"
                            r"(?:need|needs|should|must|may)[ \t][^\n]{0,30}$", re.I)


def parse(p: Paste, f: Facts) -> None:
    if any(c.startswith("torch.version:") for c in f.conflicts):
        return  # several torch releases named: which companion goes with which is not said
    named: dict[str, list[tuple[str, str]]] = {}
    for m in p.scan(_COMPANION, "torchvision", "torchaudio"):
        if not _NOT_INSTALLED.search(p.text, p.start_of(p.line_no(m.start())), m.start()):
            named.setdefault(m.group(1).lower(), []).append((m.group(2), p.where("free text", m.start(), claim=False)))
    for name, versions in named.items():
        if len({v for v, _ in versions}) == 1:  # one release named: the one the environment has
            f.package(name, *versions[0])
