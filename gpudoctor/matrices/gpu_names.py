"""The one GPU-name matcher: a name as NVML, a framework, a log or a person writes
it -> the model rows of gpus.toml, or the family that gives its compute capability.

Names arrive as 'NVIDIA GeForce RTX 4090', 'Tesla V100-SXM2-32GB', 'rtx3080ti',
'a100-80g' or 'my 1080 ti'. They are normalised to words ('rtx 3080 ti',
'a100 80gb') and compared word for word; a close spelling is only ever a
suggestion, never an answer, so 'MI300X' does not become 'B300' and 'Quadro P1000'
does not become 'Quadro RTX 8000'.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TypeVar

from gpudoctor.matrices import records as r
from gpudoctor.frozen import frozen

CLOSE_SPELLING = 3  # rank of a difflib-only match: a suggestion, never an answer
MOBILE = {"laptop", "mobile", "m"}  # "m": the suffix of "GTX 980M" / "780M", split off by normalise()
# Words that make another model of the same number ("RTX 3070" is not the 3070 Ti, "4090" not
# the 4090 D, the Ada "RTX 3050 A" not the Ampere 3050), unlike memory or form-factor words
# ("a100" stands for every A100).
VARIANT = {"ti", "super", "d", "a"}
# "Max-Q" (split off as "max q") is a configuration of its own, clocked below the part of the same
# number: a Max-Q name takes only a Max-Q row, and a Max-Q row answers only a Max-Q name.
MAX_Q = "q"
# NVIDIA's driver names the Turing laptop part "Quadro T1000" and the desktop card "NVIDIA T1000":
# a name that says Quadro never takes a row that does not. And Quadro numbers came back a
# generation later: "Quadro 4000" (Fermi, 2.0) is not "Quadro RTX 4000" (Turing, 7.5), so a
# Quadro name takes a Quadro RTX row only if it says RTX.
QUADRO = "quadro"
RTX = "rtx"


@functools.lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' -> 'rtx 4090'; 'NVIDIA A100-SXM4-80GB' -> 'a100 sxm4 80gb';
    'rtx3080ti' -> 'rtx 3080 ti'. Vendor and brand words go (older drivers omit them);
    'Quadro' stays, it tells Quadro RTX 6000 from RTX 6000 Ada."""
    s = name.lower()
    s = re.sub(r"\bmig\b.*", " ", s)  # "... MIG 3g.40gb": the profile is not the model
    s = re.sub(r"\b(nvidia|geforce|tesla)\b|®|™|\(r\)|\(tm\)", " ", s)
    s = re.sub(r"\b([a-z])-(\d{2,3})\b", r"\1\2", s)  # "K-80", "V-100": the model's own name
    s = re.sub(r"\b(rtx|gtx|gt|mx)(?=\d)", r"\1 ", s)  # "rtx4090" -> "rtx 4090"
    s = re.sub(r"(?<![a-z\d])(\d+)\s*(gb|g)\b", r"\1gb", s)  # "80 GB", "144G" -> "80gb"; "A10G" stays
    s = re.sub(r"(\d{3,4})(ti|super|d|m|s)\b", r"\1 \2", s)  # "3080ti" -> "3080 ti", "980m" -> "980 m"
    s = re.sub(r"\b(\d{4}) s\b", r"\1 super", s)  # "2080S": the SUPER
    # GTX and RTX never shared a model number: "GTX 3090" can only be the RTX 3090, "RTX 1080" the GTX 1080.
    s = re.sub(r"\bgtx (20[5-9]0|[345]0[5-9]0)\b", r"rtx \1", s)
    s = re.sub(r"\brtx (10[5-8]0|16[5-6]0)\b", r"gtx \1", s)
    s = re.sub(r"[^a-z0-9]+", " ", s)
    return " ".join(s.split())


def all_words_in(needles: Sequence[str], hay: Sequence[str]) -> bool:
    """Every needle word is a word of `hay`, or a letter-ended stem of one that only
    adds digits ("sxm" matches "sxm4"; "h20" does not match "h200")."""
    def found(w: str) -> bool:
        return any(h == w or (len(w) >= 3 and w[-1].isalpha() and h.startswith(w) and h[len(w):].isdigit())
                   for h in hay)
    return all(found(w) for w in needles)


def rank(gpus: Sequence[r.GpuModel], words_of_rows: Sequence[tuple[int, list[str]]], name: str,
         memory_gb: float | None) -> list[tuple[int, r.GpuModel]]:
    """(score, row) for every row a name may mean, best first. Scores: 0 exact,
    1 every word of the name in the row ("a100" -> all A100s), 2 every word of
    the row in the name (a MIG device string), CLOSE_SPELLING a suggestion.
    A laptop part never matches its desktop namesake, nor a Ti, SUPER or D card its plain
    namesake (or the other way round), nor a Max-Q part the full-power one, except as a suggestion."""
    query = normalise(name).split()
    if not query:
        return []
    scores: dict[int, tuple[int, int]] = {}
    for i, words in words_of_rows:
        if MOBILE.intersection(query) - MOBILE.intersection(words) or VARIANT.intersection(query) != VARIANT.intersection(words):
            continue
        if (MAX_Q in query) != (MAX_Q in words) or (QUADRO in query and QUADRO not in words):
            continue
        if QUADRO in query and (RTX in words) != (RTX in query):
            continue
        if words == query:
            score = (0, 0)
        elif all_words_in(query, words):
            score = (1, len(words) - len(query))
        elif all_words_in(words, query):
            score = (2, len(query) - len(words))
        else:
            continue
        scores[i] = min(score, scores.get(i, score))
    if not scores:
        import difflib  # only for a name no row matches

        keys = {" ".join(words): i for i, words in words_of_rows}
        plain = " ".join(w for w in query if w not in MOBILE and w != "gpu")  # suggest the desktop namesake
        for n, k in enumerate(difflib.get_close_matches(plain, list(keys), n=10, cutoff=0.6)):
            scores.setdefault(keys[k], (CLOSE_SPELLING, n))

    def order(i: int) -> tuple[float, ...]:
        gap = abs(gpus[i].memory_gb - memory_gb) if memory_gb is not None else 0.0
        return (*scores[i], gap, i)

    return [(scores[i][0], gpus[i]) for i in sorted(scores, key=order)]


_Patterned = TypeVar("_Patterned", "r.GpuFamily", "r.GpuSharedName")


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def families_of(families: Sequence[_Patterned], name: str) -> list[_Patterned]:
    """Every family (or shared name) whose pattern matches the name (the data keeps them exclusive)."""
    key = normalise(name)
    return [f for f in families if _compiled(f.pattern).search(key)]


@frozen
class Identity:
    """What a GPU name tells when only its compute capability matters (install
    targets, pasted logs): the model when one row matches, else the compute
    capability that every matching row, or the one matching family, agrees on."""

    compute_capability: str
    label: str  # the model row's name, or the name as given
    how: str  # "model" | "models" (a short name of several, one CC) | "family"
    model: r.GpuModel | None = None
    matches: tuple[str, ...] = ()  # the rows a short name stands for


def identify(matrices, name: str, memory_gb: float | None = None) -> Identity | None:
    """The one answer to 'which GPU is this name?' for every caller. None when
    the name is unknown or its matches disagree on the compute capability: a
    close spelling never counts ('MI300X' is not a B300)."""
    model = matrices.gpu(name, memory_gb)
    rows = matrices.gpu_matches(name)
    exact = model is not None and normalise(name) in {normalise(k) for k in (model.name, *model.nvml_names)}
    if model is not None and (exact or len(rows) <= 1 or memory_gb is not None):
        return Identity(model.compute_capability, model.name, "model", model)
    ccs = {g.compute_capability for g in rows}
    if len(ccs) == 1:
        return Identity(ccs.pop(), name.strip(), "models", matches=tuple(g.name for g in rows))
    if rows:
        return None  # "RTX 6000": Quadro RTX 6000 (7.5) or RTX 6000 Ada (8.9)
    family = matrices.gpu_family(name)
    if family is not None:
        return Identity(family.compute_capability, name.strip(), "family")
    return None
