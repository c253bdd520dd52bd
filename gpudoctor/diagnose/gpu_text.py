"""GPU names as people type them in free text: "RTX 5090", "Tesla T4", "my 3090",
"1080 ti", "显卡是RTX3060". Read by the free-text reader (freetext.py) on lines no tool
parser claimed; the names are resolved against the GPU table later (build.py)."""

from __future__ import annotations

import re

from gpudoctor.snapshot import Snapshot

# GPU names as typed. The consumer and workstation families need no context;
# short data-center names ("T4", "A100", "L4") and bare numbers ("my 3090") only
# count on a line that is about a GPU.
GPU_FAMILY = re.compile(  # (?<![A-Za-z0-9_]) rather than \b: "显卡是RTX3060" has no word boundary
    r"(?<![A-Za-z0-9_])((?:RTX|GTX|GT|MX)[ \t-]?(?:A|PRO[ \t])?\d{3,4}(?:[ \t]?(?:Ti|SUPER|Super|S|D|M)\b)?"
    r"(?:[ \t]{1,2}(?:Ti|SUPER|Super|D|Laptop(?:[ \t]GPU)?|Mobile|Max-Q|Ada(?:[ \t]Generation)?|Blackwell))*"
    r"|(?:TITAN|Titan)[ \t](?:RTX|V|Xp|X|Black|Z)(?:[ \t]\(?Pascal\)?)?"
    # also typed with a hyphen ("Tesla K-80", "V-100"): normalise() joins them
    r"|(?:A-?100|A-?800|H-?100|H-?200|H-?800|H20|GH200|B200|B100|B300|GB200|GB300|V-?100S?|P-?100|K-?80|K-?40m?|K20X?m?|M40|M60)"
    r"(?:[- ](?:SXM\d?|PCIE|PCIe|NVL|HBM3e?|\d{2,3}GB?|\d{2,3}G))*"
    r"|Quadro[ \t](?:RTX[ \t]|FX[ \t])?[A-Z]{0,2}\d{3,4}[A-Z]?|Jetson[ \t](?:AGX[ \t])?(?:Orin|Xavier|Nano|TX2|TX1|Thor)"
    r"(?:[ \t](?:NX|Nano))?|GeForce[ \t]\d{3}M[X]?"
    r"|(?:GeForce|NVIDIA)[ \t][89]\d00[ \t]?M?[ \t]?(?:GTX|GTS|GSO|GT|GS|GE|SE|G)\b\+?"  # "9500 GT", "8400 GS"
    r")(?![A-Za-z0-9_-])", re.I)  # ASCII: "k40m的显卡" ends the name
# (?<![#\w.]) rather than \b: a line anchor ("Dockerfile#L4") names no GPU
GPU_SHORT = re.compile(r"(?<![#\w.])(T4|L4|L40S?|L20|A10G?|A30|A40|A16|A2|P40|P4|A[2-6]000|RTX[ \t]A[2-6]000|"
                        r"K(?:420|600|620|1200|2000|2200|4000|4200|5000|5200|6000))\b")
_QUADRO_K = re.compile(r"K\d{3,4}")  # a Kepler/Maxwell Quadro typed without its line: "an old K2000"
# A trailing capital S is the SUPER ("2080S"), a small one a plural ("dual 3090s").
# GTX 7xx/9xx are three digits, a shape too common in prose to take without their Ti ("a 750 ti", "980ti").
GPU_NUMBER = re.compile(r"(?<![A-Za-z0-9_.$#:/-])((?:[2-5]0[5-9]0|1[06][3-8]0)(?:[ \t]?(?i:ti|super|d)|S)?|"
                         r"[79][5-8]0[ \t]?(?i:ti))s?(?![A-Za-z0-9_.%-])")
# After a colon a bare number may be a port ("localhost:3080"); with Ti or SUPER it is a GPU ("platform:5070ti").
GPU_NUMBER_AFTER_COLON = re.compile(r"(?<=:)((?:[2-5]0[5-9]0|1[06][3-8]0)[ \t]?(?i:ti|super))(?![A-Za-z0-9_.%-])|"
                                    # a form's answer: "GPU:3090", "显卡：4090"
                                    r"(?i:gpu|card|显卡|顯卡)s?[ \t]*[:：][ \t]*((?:[2-5]0[5-9]0|1[06][3-8]0)"
                                    r"(?:[ \t]?(?i:ti|super))?)(?![A-Za-z0-9_.%-])")
_SUFFIXED = re.compile(r"(?i:ti|super)$")
_NETWORK = re.compile(r"\bports?\b|localhost|://|\b\d{1,3}(?:\.\d{1,3}){3}\b", re.I)  # numbers that are ports
_YEAR_BEFORE = re.compile(r"\b(?:in|since|by|until|till|year)[ \t]$", re.I)
_GPU_PREFIX = re.compile(r"(?:(?:NVIDIA|Tesla|GeForce)[ \t]{1,2}){1,3}$", re.I)
_GPU_CONTEXT = re.compile(r"gpu|graphics|card|nvidia|geforce|device|tesla|instance|vram|\bon (?:a|an|my|the)\b|"
                          r"\bcomput(?:e|ing) (?:capability|power)\b|算力|\bsupport(?:s|ed)?\b|支持|换成|換成|"
                          r"\b(?:have|got|bought|using|use|uses|with) (?:a|an|two|dual)\b|"
                          r"\bmy\b|\bdual\b|\b\d[ \t]?x\b|显卡|顯卡|グラボ|グラフィック|그래픽|видеокарт|tarjeta", re.I)
# Every family name contains one of these words, every line that may name a
# short data-center GPU one of the context words: cheap filters for the lines.
GPU_WORDS = ("rtx", "gtx", "gt ", "gt-", "mx", "titan", "quadro", "jetson", "geforce", "nvidia", "a100", "a800",
              "h100", "h200", "h800", "h20", "gh200", "b200", "b100", "b300", "gb200", "gb300", "v100", "p100",
              "k80", "k40", "k20", "m40", "m60", "a-100", "a-800", "h-100", "h-200", "h-800", "v-100", "p-100",
              "k-80", "k-40")
CONTEXT_WORDS = ("gpu", "graphics", "card", "nvidia", "geforce", "device", "tesla", "instance", "vram", " on ", "my ",
                  "compute capability", "computing power", "算力", "support", "支持", "换成", "換成",
                  "have a", "got a", "bought a", "using a", "use a", "uses a", "with a", "with two", "with dual",
                  "dual", "x ", "显卡", "顯卡", "グラボ", "グラフィック", "그래픽", "видеокарт", "tarjeta")
NUMBER_FIRST = re.compile(r"\b(\d{4})[ \t]?(ti|super)?[ \t]{1,2}(RTX|GTX)\b", re.I)


# A whole consumer series ("RTX 50xx", "50XX cards", "RTX 30-series"): each has one compute capability,
# laptop and desktop boards alike.
SERIES = re.compile(r"(?<![\w.-])(?:(RTX|GTX)[ \t-]?)?(50|40|30|20|16|10)(?:[xX]{2}\b|[ \t-]?series\b)", re.I)
_SERIES_CC = {"50": "12.0", "40": "8.9", "30": "8.6", "20": "7.5", "16": "7.5", "10": "6.1"}


def series_cc(name: str) -> str | None:
    """The compute capability of a series name gpu_names gives ("RTX 50 series" -> 12.0)."""
    m = re.fullmatch(r"(?:RTX|GTX) (\d\d) series", name)
    return _SERIES_CC.get(m.group(1)) if m else None


def _with_prefix(text: str, start: int, name: str) -> str:
    prefix = _GPU_PREFIX.search(text, max(0, start - 30), start)
    return (prefix.group(0) if prefix else "") + name


def gpu_names(text: str) -> list[str]:
    """GPU names in a line of free text, as written ('RTX 5090', 'Tesla T4'); bare
    model numbers gain their family ('my 3090' -> 'RTX 3090', '1080 ti' -> 'GTX 1080 Ti')."""
    names = [_with_prefix(text, m.start(), m.group(1)) for m in GPU_FAMILY.finditer(text)]
    taken = [m.span() for m in GPU_FAMILY.finditer(text)]
    context = bool(_GPU_CONTEXT.search(text))
    if context:
        names += [_with_prefix(text, m.start(), "Quadro " + m.group(1) if _QUADRO_K.fullmatch(m.group(1)) else m.group(1))
                  for m in GPU_SHORT.finditer(text) if not any(a <= m.start() < b for a, b in taken)]
    # A model number with its Ti or SUPER is a GPU anywhere ("would a 750 ti do?"); a bare one
    # only where the line speaks of hardware.
    bare = {m.group(1).lower() for m in GPU_NUMBER.finditer(text)}
    # Two model numbers compared on one line are GPUs ("works fine for 4090 but for 5090").
    context = context or (len(bare) >= 2 and not _NETWORK.search(text))
    for m in (*GPU_NUMBER.finditer(text), *GPU_NUMBER_AFTER_COLON.finditer(text)):
        typed = m.group(1) or m.group(2)
        if any(a <= m.start(m.lastindex or 1) < b for a, b in taken) or not (context or _SUFFIXED.search(typed)):
            continue
        if not _SUFFIXED.search(typed) and _YEAR_BEFORE.search(text, max(0, m.start() - 8), m.start()):
            continue  # "since 2060", "in 2080": a year
        number = re.sub(r"(\d)S$", r"\1 SUPER", typed)
        family = "GTX" if number[:2] in ("10", "16") or len(number.split()[0].rstrip("TtIi")) == 3 else "RTX"
        names.append(f"{family} {number}")
    for m in NUMBER_FIRST.finditer(text):  # "3080 RTX" -> "RTX 3080", not inside "GeForce 8800 GTX"
        if any(a <= m.start() < b for a, b in taken):
            continue
        names.append(f"{m.group(3).upper()} {m.group(1)}" + (f" {m.group(2)}" if m.group(2) else ""))
    for m in SERIES.finditer(text):
        if not any(a <= m.start() < b for a, b in taken) and (m.group(1) or context):
            names.append(f"{'GTX' if m.group(2) in ('10', '16') else 'RTX'} {m.group(2)} series")
    return list(dict.fromkeys(n.strip() for n in names))


# Jetson modules as people and tools name them: "jetson nano", "NVIDIA Tegra X1", "AGX Orin", "Xavier NX".
JETSON = re.compile(r"\b(?:jetson|tegra|orin|xavier)\b", re.I)


def on_jetson(s: Snapshot) -> bool:
    return any(JETSON.search(g.name or "") for g in s.gpus or ())
