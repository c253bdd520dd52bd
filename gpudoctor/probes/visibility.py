"""Which GPUs a CUDA program would see, and in which order.

CUDA_VISIBLE_DEVICES is parsed as the CUDA driver does (and as torch emulates
it in torch.cuda._parse_visible_devices): integer indices, GPU-UUID prefixes or
MIG UUIDs; a negative or invalid entry ends the list there; a repeated entry
hides every device. Indices count in CUDA's order, which is FASTEST_FIRST
unless CUDA_DEVICE_ORDER=PCI_BUS_ID; NVML (and nvidia-smi) count in PCI bus
order, so with mixed GPU models an index cannot be mapped without CUDA itself.
"""

from __future__ import annotations

import re

from gpudoctor.probes.context import Context
from gpudoctor.snapshot import Gpu, Visibility

CVD = "CUDA_VISIBLE_DEVICES"
ORDER = "CUDA_DEVICE_ORDER"


def probe(ctx: Context, gpus: tuple[Gpu, ...] | None) -> Visibility:
    env = ctx.env
    return resolve(env.get(CVD), env.get(ORDER), gpus)


def resolve(cvd: str | None, order: str | None, gpus: tuple[Gpu, ...] | None) -> Visibility:
    gpus = tuple(g for g in gpus or () if g.index >= 0) if gpus is not None else None
    notes: list[str] = []
    cuda_order = _cuda_order(order, gpus, notes)
    visible = cuda_order if cvd is None else _parse(cvd, gpus, cuda_order, notes)
    return Visibility(cuda_visible_devices=cvd, cuda_device_order=order, visible=visible, note=" ".join(notes))


def _cuda_order(order: str | None, gpus: tuple[Gpu, ...] | None, notes: list[str]) -> tuple[int, ...] | None:
    """NVML indices in CUDA's enumeration order, when it can be told."""
    if gpus is None:
        return None
    pci_order = tuple(g.index for g in sorted(gpus, key=lambda g: g.index))
    if (order or "").strip().upper() == "PCI_BUS_ID":
        return pci_order
    models = sorted({g.name for g in gpus})
    if len(models) <= 1:
        return pci_order  # identical GPUs: fastest-first ties fall back to PCI order
    notes.append(
        f"{ORDER} is {'unset' if order is None else repr(order)}, so CUDA numbers GPUs fastest first while "
        f"NVML and nvidia-smi number them by PCI bus; with mixed models ({', '.join(models)}) a CUDA index "
        f"need not be nvidia-smi's; {ORDER}=PCI_BUS_ID makes them agree.")
    return None


def _parse(cvd: str, gpus: tuple[Gpu, ...] | None, cuda_order: tuple[int, ...] | None,
           notes: list[str]) -> tuple[int, ...] | None:
    entries = [e.strip() for e in cvd.split(",")]
    if not cvd.strip():
        notes.append(f"{CVD} is set but empty: CUDA sees no GPU.")
        return ()
    if gpus is not None and not gpus:
        return ()  # no GPU at all: nothing to select
    if entries[0].upper().startswith("MIG-"):
        return _parse_mig(entries, gpus, notes)
    if entries[0].upper().startswith("GPU-"):
        return _parse_uuids(entries, gpus, notes)
    return _parse_indices(entries, gpus, cuda_order, notes)


def _strtoul(text: str) -> int:
    """The leading integer of an entry as CUDA reads it ("1abc" -> 1); -1 if none."""
    m = re.match(r"\d+", text)
    return int(m.group(0)) if m else -1


def _parse_indices(entries: list[str], gpus: tuple[Gpu, ...] | None, cuda_order: tuple[int, ...] | None,
                   notes: list[str]) -> tuple[int, ...] | None:
    chosen: list[int] = []
    for entry in entries:
        n = _strtoul(entry)
        if n in chosen:
            notes.append(f"{CVD} repeats {n}: CUDA then sees no GPU at all.")
            return ()
        if n < 0 or (gpus is not None and n >= len(gpus)):
            notes.append(f"{CVD} entry {entry!r} is not a valid device: CUDA ignores it and every entry after it.")
            break
        chosen.append(n)
    if not chosen:
        return ()
    if cuda_order is None:
        return None
    return tuple(cuda_order[n] for n in chosen)


def _parse_uuids(entries: list[str], gpus: tuple[Gpu, ...] | None, notes: list[str]) -> tuple[int, ...] | None:
    if gpus is None:
        return None
    chosen: list[int] = []
    for entry in entries:
        matches = [g.index for g in gpus if g.uuid and entry and g.uuid.lower().startswith(entry.lower())]
        if len(matches) != 1 or not entry.upper().startswith("GPU-"):
            why = "matches several GPUs" if len(matches) > 1 else "matches no GPU"
            notes.append(f"{CVD} entry {entry!r} {why}: CUDA ignores it and every entry after it.")
            break
        if matches[0] in chosen:
            notes.append(f"{CVD} names GPU {entry!r} twice: CUDA then sees no GPU at all.")
            return ()
        chosen.append(matches[0])
    return tuple(chosen)


def _parse_mig(entries: list[str], gpus: tuple[Gpu, ...] | None, notes: list[str]) -> tuple[int, ...] | None:
    """MIG-GPU-<uuid>/<gi>/<ci> (before R470) names its parent GPU; the newer
    MIG-<uuid> does not, so the parent cannot be told from NVML GPU data."""
    parents: list[int] = []
    for entry in entries:
        m = re.match(r"MIG-(GPU-[0-9a-fA-F-]+)/\d+/\d+$", entry)
        if not m or gpus is None:
            notes.append(f"{CVD} selects MIG instance(s) ({entry!r}); their parent GPU is not known from NVML data.")
            return None
        matches = [g.index for g in gpus if g.uuid and g.uuid.lower() == m.group(1).lower()]
        if len(matches) != 1:
            notes.append(f"{CVD} entry {entry!r} names no GPU on this machine: CUDA ignores it and the rest.")
            break
        if matches[0] not in parents:
            parents.append(matches[0])
    return tuple(parents)
