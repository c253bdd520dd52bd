"""GPU architectures compiled into a CUDA library, read from the binary itself.

No import, no GPU, no driver: the ELF section table is read, then the fatbin
containers in `.nv_fatbin` (and `__nv_relfatbin`, relocatable device code)
are walked header by header, skipping each payload by its size, so a 1 GB
libtorch_cuda.so costs a few thousand small reads and never a full read.

Container header (16 bytes): magic 0xBA55ED50, u16 version, u16 header size,
u64 size of the entries that follow. Entry header: u16 kind (1 = PTX,
2 = ELF/SASS), u16, u32 header size, u64 payload size, ..., u32 arch at
offset 28 (75 for sm_75), u64 flags at offset 40. Flag bits 0x100000 and
0x200000 mark arch-specific ("sm_90a") and family ("sm_100f") targets; the
layout was checked against binaries nvcc 13.0 builds for known -gencode sets.
The result reads as torch.cuda.get_arch_list() does: ("sm_80", ..., "compute_120").

A library holds one container per compiled source file. The build's arch list
(torch's TORCH_CUDA_ARCH_LIST) is what (nearly) every container carries; a few
kernels are also built for extra, often arch-specific targets (sm_90a, sm_100a
for CUTLASS / FlashAttention kernels). Those are reported apart, as `extra`,
because they do not make the library as a whole run on that architecture.
"""

from __future__ import annotations

import io
import os
import struct
from collections import Counter
from collections.abc import Iterator
from typing import BinaryIO

from gpudoctor.filecache import cached
from gpudoctor.frozen import frozen
from gpudoctor.host import Host
from gpudoctor.serde import from_data, to_data

FATBIN_MAGIC = 0xBA55ED50
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")
KIND_PTX, KIND_ELF = 1, 2
FLAG_ARCH_SPECIFIC = 0x100000  # sm_90a
FLAG_FAMILY = 0x200000  # sm_100f
_ELF_MAGIC = b"\x7fELF"
_CONTAINER = struct.Struct("<IHHQ")  # magic, version, header size, body size
_ENTRY = struct.Struct("<H2xIQ12xI8xQ")  # kind, header size, payload size, arch (@28), flags (@40)
# A sane bound on headers; anything larger means we are not reading a fatbin.
_MAX_HEADER = 4096
# Reads go through a one-block buffer: headers of consecutive small entries
# often sit in the same block. Small, because most headers sit alone between
# large payloads: each read copies the whole block (16 KB blocks made the
# walk of libtorch_cuda.so three times slower than 512-byte ones).
_BLOCK = 512


class FatbinError(ValueError):
    """The file is not a readable ELF with fatbin sections; the message says why."""


# An arch in at least this share of the containers belongs to the build's list.
CORE_SHARE = 0.5


@frozen
class ArchScan:
    """The GPU architectures a CUDA library's fatbin sections carry."""

    archs: tuple[str, ...]  # the build's list: sm_* by number, then compute_* (embedded PTX)
    extra: tuple[str, ...]  # targets only a few kernels were built for
    sections: tuple[str, ...]  # fatbin sections found
    containers: int  # fatbin containers with at least one entry
    entries: int  # fatbin entries walked


def scan_cached(host: Host, path: str) -> ArchScan:
    """scan(), from gpudoctor.filecache while the library is unchanged (walking
    a CUDA build's few thousand fatbin entries costs ~5 ms of every check)."""
    stamp = host.file_stamp(path)
    if stamp is None:
        return scan(host, path)
    return cached("f-", path, *stamp, lambda: scan(host, path), to_data, lambda data: from_data(ArchScan, data))


def scan(host: Host, path: str) -> ArchScan:
    """The architectures in `path`; raises FatbinError with the reason."""
    fh = host.open_binary(path)
    if fh is None:
        raise FatbinError(f"{path}: cannot be opened")
    with fh:
        reader = _reader(fh)
        try:
            sections = _fatbin_sections(reader)
            counts: Counter[tuple[int, int, str]] = Counter()
            containers = entries = 0
            for _name, offset, size in sections:
                for found, walked in _walk_section(reader, offset, size):
                    entries += walked
                    if found:
                        containers += 1
                        counts.update(found)
        finally:
            reader.close()
    core = {t for t, n in counts.items() if n >= CORE_SHARE * containers}
    return ArchScan(_ordered(core), _ordered(set(counts) - core),
                    tuple(name for name, _, _ in sections), containers, entries)


def _reader(fh: BinaryIO) -> _Reader:
    return _Reader(fh)


class _Reader:
    """Positioned reads through a small cache, with truncation reported:
    pread(2) on a real file (no memory map: mapping a 1 GB library, faulting
    in the pages of a few thousand headers and unmapping it cost more than the
    reads), seek and read on anything else (tests)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.base, self.block = -1, b""
        try:
            self.fd: int | None = fh.fileno()
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            self.fd = None

    def close(self) -> None:
        pass

    def read(self, offset: int, size: int) -> bytes:
        if not (self.base <= offset and offset + size <= self.base + len(self.block)):
            if self.fd is not None:
                self.base, self.block = offset, os.pread(self.fd, max(size, _BLOCK), offset)
            else:
                self.fh.seek(offset)
                self.base, self.block = offset, self.fh.read(max(size, _BLOCK))
        start = offset - self.base
        data = self.block[start:start + size]
        if len(data) < size:
            raise FatbinError(f"truncated: wanted {size} bytes at offset {offset}")
        return data


def _fatbin_sections(r: _Reader) -> list[tuple[str, int, int]]:
    return [(name, offset, size) for name, sh_type, offset, size in elf_sections(r)
            if name in FATBIN_SECTIONS and sh_type != 8]  # SHT_NOBITS has no file bytes


def elf_sections(r: _Reader) -> list[tuple[str, int, int, int]]:
    """(name, type, file offset, size) of every section of a 64-bit little-endian ELF."""
    ident = r.read(0, 64)
    if ident[:4] != _ELF_MAGIC:
        raise FatbinError("not an ELF file")
    if ident[4] != 2 or ident[5] != 1:
        raise FatbinError("not a 64-bit little-endian ELF")
    shoff = struct.unpack_from("<Q", ident, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
    if shoff == 0 or shnum == 0 or shentsize < 64 or shstrndx >= shnum:
        raise FatbinError("no ELF section table")
    table = r.read(shoff, shentsize * shnum)
    headers = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
    _, _, _, _, str_off, str_size = headers[shstrndx]
    names = r.read(str_off, str_size)

    def name_at(offset: int) -> str:
        end = names.find(b"\0", offset)
        return names[offset:end if end >= 0 else None].decode("ascii", "replace")

    return [(name_at(name_off), sh_type, offset, size) for name_off, sh_type, _f, _a, offset, size in headers]


def _walk_section(r: _Reader, offset: int, size: int) -> Iterator[tuple[set[tuple[int, int, str]], int]]:
    """Per container: the (kind, arch, suffix) targets it holds and its entry count."""
    end, pos = offset + size, offset
    while pos + 16 <= end:
        magic, _version, header_size, body_size = _CONTAINER.unpack(r.read(pos, 16))
        if magic != FATBIN_MAGIC:
            if magic == 0:  # alignment padding between containers
                pos += 8
                continue
            raise FatbinError(f"bad fatbin magic {magic:#x} at offset {pos}")
        if not 16 <= header_size <= _MAX_HEADER or pos + header_size + body_size > end:
            raise FatbinError(f"fatbin container at offset {pos} overruns its section")
        entry, body_end = pos + header_size, pos + header_size + body_size
        found: set[tuple[int, int, str]] = set()
        entries = 0
        while entry + _ENTRY.size <= body_end:
            kind, entry_header, payload, arch, flags = _ENTRY.unpack(r.read(entry, _ENTRY.size))
            if not _ENTRY.size <= entry_header <= _MAX_HEADER or entry + entry_header + payload > body_end:
                raise FatbinError(f"fatbin entry at offset {entry} overruns its container")
            if kind in (KIND_PTX, KIND_ELF) and arch:
                suffix = "a" if flags & FLAG_ARCH_SPECIFIC else "f" if flags & FLAG_FAMILY else ""
                found.add((kind, arch, suffix))
            entries += 1
            entry += entry_header + payload
        yield found, entries
        pos = body_end


def _ordered(found: set[tuple[int, int, str]]) -> tuple[str, ...]:
    sass = sorted((arch, suffix) for kind, arch, suffix in found if kind == KIND_ELF)
    ptx = sorted((arch, suffix) for kind, arch, suffix in found if kind == KIND_PTX)
    return tuple(f"sm_{a}{s}" for a, s in sass) + tuple(f"compute_{a}{s}" for a, s in ptx)
