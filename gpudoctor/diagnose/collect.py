"""What the parsers read, before it becomes a Snapshot.

Each parser writes facts here with a source ("nvidia-smi banner line 3") and a
rank: output of a tool outranks a sentence someone typed, which outranks what
gpudoctor derives from its own data. When two sources disagree the higher rank
wins (the first on a tie) and the disagreement is kept, to be shown.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

# Ranks: how much a reading is trusted.
TOOL = 3  # output a tool printed: nvidia-smi, collect_env, nvcc, a framework's own message
STATED = 1  # free text a person wrote: "driver 550", "RTX 5090"
DERIVED = 0  # filled in from gpudoctor's matrices (GPU name -> compute capability)


@dataclass(frozen=True)
class Read:
    """One fact and where it was read: shown as 'driver 550.54.14 ← nvidia-smi banner line 3'."""

    fact: str
    value: str
    source: str


@dataclass(frozen=True)
class Signal:
    """An error or warning line recognised by the error catalogue."""

    entry: str  # catalogue id, "no-kernel-image"
    title: str
    code: str | None  # the GD8xx finding it raises, if any
    text: str  # the matched line, trimmed
    source: str  # "torch warning line 4"
    category: str | None = None  # overrides the code's category when the paste says more
    # The reporter's own sentence ("the GPU is not detected"), not a program's output.
    reporters_words: bool = False


@dataclass
class Value:
    """One reading of a fact: the value, where it was read and how much that source is trusted."""

    value: Any
    source: str
    rank: int


@dataclass(eq=False)  # compared by identity: two drafts with equal fields are still two GPUs
class GpuDraft:
    """One GPU as the parsers read it so far, its facts still ranked readings."""

    index: int | None = None
    name: Value | None = None
    truncated: bool = False  # nvidia-smi's banner cuts long names with "..."
    fields: dict[str, Value] = field(default_factory=dict)


@functools.lru_cache(maxsize=4096)
def gpu_key(name: str) -> str:
    s = name.lower().replace("...", " ")
    s = re.sub(r"\b(nvidia|geforce|tesla|quadro)\b", " ", s)
    s = re.sub(r"[^a-z0-9]+", " ", s)
    return " ".join(s.split())


class Facts:
    def __init__(self) -> None:
        self.scalars: dict[str, Value] = {}
        self.frameworks: dict[str, dict[str, Value]] = {}
        self.gpus: list[GpuDraft] = []
        self._named: dict[str, list[GpuDraft]] = {}  # gpu_key(name) -> drafts, to find GPUs by name quickly
        self.no_gpus: str | None = None  # source of "No devices were found"
        self.runtimes: list[tuple[dict[str, Any], int]] = []
        self.libraries: dict[str, list[tuple[dict[str, Any], int]]] = {"cudnn": [], "nccl": []}
        self.packages: dict[str, Value] = {}
        self.signals: list[Signal] = []
        self._signal_keys: set[tuple[str, str]] = set()
        self.formats: list[str] = []  # formats recognised, in order of first sight
        self.conflicts: list[str] = []
        # Equal-rank values that lost to an earlier one: (store, key, value). When a paste
        # holds several reports, the one printed just before the failure wins (see
        # prefer_the_failing_report).
        self.contested: list[tuple[dict[str, Value], str, Value]] = []
        self.extra_reads: list[Read] = []  # facts shown but not part of the snapshot

    # --- bookkeeping ---------------------------------------------------------------
    def saw(self, fmt: str) -> None:
        if fmt not in self.formats:
            self.formats.append(fmt)

    def _keep(self, store: dict[str, Value], key: str, value: Any, source: str, rank: int, label: str) -> None:
        if value is None or value == "":
            return
        have = store.get(key)
        if have is None:
            store[key] = Value(value, source, rank)
            return
        if have.value == value:
            return
        if _refines(value, have.value) and rank >= have.rank - 1:
            store[key] = Value(value, source, max(rank, have.rank))  # "8" then "8.1.0": the same, said precisely
            return
        if _refines(have.value, value):
            return
        if rank > have.rank:
            store[key] = Value(value, source, rank)
            self.conflicts.append(f"{label}: {value} ({source}) over {have.value} ({have.source})")
        else:
            if rank == have.rank:
                self.contested.append((store, key, Value(value, source, rank)))
            self.conflicts.append(f"{label}: kept {have.value} ({have.source}), not {value} ({source})")

    # --- facts ---------------------------------------------------------------------
    def put(self, key: str, value: Any, source: str, rank: int = TOOL) -> None:
        """A system.* or driver.* fact: key is 'driver.version', 'system.os', ..."""
        self._keep(self.scalars, key, value, source, rank, key)

    def get(self, key: str) -> Any:
        v = self.scalars.get(key)
        return v.value if v else None

    def fw(self, name: str, key: str, value: Any, source: str, rank: int = TOOL) -> None:
        """A framework fact: key is version | build | cuda | cudnn | nccl | arch_list | is_available."""
        store = self.frameworks.setdefault(name, {})
        if key == "version" and isinstance(value, str) and value.endswith("+cpu"):
            self.fw(name, "build", "cpu", source, rank)  # the local version says what the build is
        have = store.get(key)
        if key == "version" and have and isinstance(value, str) and isinstance(have.value, str) \
                and have.value.partition("+")[0] == value.partition("+")[0]:
            # "2.6.0" and "2.6.0+cu126" are one version: keep the one that says
            # more, with the better source.
            if ("+" in value and "+" not in have.value) or ("+" in value) == ("+" in have.value) and rank > have.rank:
                store[key] = Value(value, source, rank)
            return
        self._keep(store, key, value, source, rank, f"{name}.{key}")

    def fw_get(self, name: str, key: str) -> Any:
        v = self.frameworks.get(name, {}).get(key)
        return v.value if v else None

    def package(self, name: str, version: str, source: str) -> None:
        key = re.sub(r"[-_.]+", "-", name.lower())
        if key not in self.packages:
            self.packages[key] = Value(version, source, TOOL)

    def gpu(self, source: str, *, index: int | None = None, name: str | None = None,
            rank: int = TOOL, create: bool = True, **values: Any) -> None:
        """A GPU fact. GPUs are matched by index when one is given, else by name;
        with create=False a fact that matches no known GPU is dropped."""
        name = " ".join(name.split()) if name else None
        truncated = bool(name and name.endswith("..."))
        targets = self._find_gpus(index, name, truncated)
        if not targets:
            if not create:
                return
            targets = [GpuDraft(index=index)]
            self.gpus.append(targets[0])
        for draft in targets:
            if name and draft.name is not None and not _same_name(draft, name, truncated):
                self.conflicts.append(f"gpus[{draft.index}].name: kept {draft.name.value} ({draft.name.source}), "
                                      f"not {name} ({source})")
            elif name and (draft.name is None or rank > draft.name.rank
                           or (draft.truncated and not truncated and rank >= draft.name.rank)
                           or (rank == draft.name.rank and len(gpu_key(name)) > len(gpu_key(draft.name.value)))):
                draft.name, draft.truncated = Value(name.rstrip(". ") if truncated else name, source, rank), truncated
                self._named.setdefault(gpu_key(draft.name.value), []).append(draft)
            for key, value in values.items():
                where = draft.index if draft.index is not None else "?"
                self._keep(draft.fields, key, value, source, rank, f"gpus[{where}].{key}")

    def _find_gpus(self, index: int | None, name: str | None, truncated: bool) -> list[GpuDraft]:
        if index is not None:
            same = [g for g in self.gpus if g.index == index]
            if same:
                return same
            unindexed = [g for g in self.gpus if g.index is None and name and _same_name(g, name, truncated)]
            if unindexed:
                unindexed[0].index = index
                return unindexed[:1]
            return []
        if not name:
            return []
        if truncated or any(g.truncated for g in self.gpus):  # prefix matches: look at every GPU (rare)
            return [g for g in self.gpus if _same_name(g, name, truncated)]
        named = [g for g in dict.fromkeys(self._named.get(gpu_key(name), ())) if _same_name(g, name, truncated)]
        if not named:  # "P100" and "Tesla P100-PCIE-16GB" in one paste are one board
            named = [g for g in self.gpus if g.name is not None and _same_board(gpu_key(g.name.value), gpu_key(name))]
        if not named and len(self.gpus) == 1 and self.gpus[0].name is None:
            return self.gpus[:]  # the one GPU a message reported without its name: the name is its
        return named

    def runtime(self, rank: int = TOOL, **values: Any) -> None:
        """A CUDA runtime or toolkit: version, path, kind, source, nvcc."""
        for have, _ in self.runtimes:
            if have["kind"] == values["kind"] and have.get("version") == values.get("version"):
                return
        self.runtimes.append((values, rank))

    def library(self, name: str, rank: int = TOOL, **values: Any) -> None:
        """A cuDNN or NCCL installation: version, path, kind, source, cuda_major."""
        libs = self.libraries[name]
        for have, _ in libs:
            if have["kind"] == values["kind"] and have.get("version") == values.get("version"):
                return
        libs.append((values, rank))

    def signal(self, sig: Signal) -> None:
        if (sig.entry, sig.text) not in self._signal_keys:
            self._signal_keys.add((sig.entry, sig.text))
            self.signals.append(sig)

    @property
    def empty(self) -> bool:
        return not (self.scalars or self.frameworks or self.gpus or self.runtimes or self.packages
                    or self.signals or any(self.libraries.values()) or self.no_gpus)


_LINE = re.compile(r"^(?!--error)[^:]*?line (\d+)$")


def source_line(source: str) -> int | None:
    """The pasted line number a source names ("free text line 4" -> 4); None for --error text."""
    m = _LINE.match(source)
    return int(m.group(1)) if m else None


def prefer_the_failing_report(f: Facts) -> None:
    """A paste with two reports (before and after a reinstall, host and container)
    describes the failure with the one printed last before the first error line:
    among values of equal rank, that one wins. Without an error line the first
    value stays."""
    # (A sentence of the reporter's is no program's failure: it anchors no report.)
    errors = [n for n in (source_line(sig.source) for sig in f.signals if not sig.reporters_words) if n is not None]
    if not errors:
        # No error line: a report that itself shows the failure (a CPU build, CUDA
        # unavailable) is the one the paste is about, the other one worked.
        errors = [n for n in (source_line(v.source) for _, key, v in f.contested if _shows_failure(key, v.value))
                  if n is not None]
    if not errors or not f.contested:
        return
    failure = min(errors)
    for store, key, challenger in f.contested:
        have = store.get(key)
        line, have_line = source_line(challenger.source), source_line(have.source) if have else None
        if have is None or line is None or have_line is None or challenger.rank != have.rank:
            continue
        if have_line < line <= failure:
            store[key] = challenger
            f.conflicts.append(f"{key}: {challenger.value} ({challenger.source}), the report nearest the failure, "
                               f"over {have.value} ({have.source})")


def _shows_failure(key: str, value: Any) -> bool:
    if key == "is_available":
        return value is False
    if key == "build":
        return value == "cpu"
    return key == "version" and isinstance(value, str) and value.endswith("+cpu")


def _refines(precise: Any, rough: Any) -> bool:
    """'8.1.0' refines '8'; '12.1' refines '12'."""
    return isinstance(precise, str) and isinstance(rough, str) and precise.startswith(rough + ".") \
        and bool(re.fullmatch(r"\d+(?:\.\d+)*", precise))


def _same_name(draft: GpuDraft, name: str, truncated: bool) -> bool:
    if draft.name is None:
        return False
    a, b = gpu_key(draft.name.value), gpu_key(name)
    if a == b:
        return True
    # A name cut short by nvidia-smi's banner matches the full name it begins.
    if truncated and a.startswith(b):
        return True
    return draft.truncated and b.startswith(a) or _same_board(a, b)


# What a full board name adds to the model people type: its form factor and memory
# ("P100" -> "P100-PCIE-16GB", "A100" -> "A100-SXM4-80GB"), never another model ("3090 Ti").
_BOARD_VARIANT = re.compile(r"pcie|sxm\d?|nvl|hbm\d?e?|\d{1,3}gb?")


def _same_board(a: str, b: str) -> bool:
    short, long = sorted((a.split(), b.split()), key=len)
    return bool(short) and short != long and long[:len(short)] == short and all(
        _BOARD_VARIANT.fullmatch(t) for t in long[len(short):])
