"""What an extension's binary says about the build it was made for, read
from its ELF dynamic string table without loading it.

- The C++ ABI: with _GLIBCXX_USE_CXX11_ABI=1, std::string in a mangled name
  is `std::__cxx11::basic_string` ("NSt7__cxx1112basic_string"); with the old
  ABI it is "Ss" / "NSs". Any c10/torch symbol that takes a string (c10::Error
  and TORCH_CHECK do, so every extension has them) carries one or the other:
  "__cxx11" present means the new ABI, absent among c10 symbols the old one.
- The CUDA runtime major it links: a DT_NEEDED "libcudart.so.12".
"""

from __future__ import annotations

import re
import struct

from gpudoctor.frozen import frozen
from gpudoctor.host import Host
from gpudoctor.probes.fatbin import FatbinError, _reader, elf_sections

# A .dynstr beyond this is not an extension module we should be scanning.
MAX_DYNSTR = 64 << 20
_CUDART = re.compile(rb"libcudart\.so\.(\d+)")
_SHT_DYNAMIC = 6


@frozen
class ElfLinkInfo:
    """What a library's ELF symbols tell: its C++ ABI, the libcudart it links, its DT_NEEDED."""

    cxx11_abi: bool | None  # None: no c10 symbol to tell by
    cudart_major: int | None
    needed: tuple[str, ...]


def link_info(host: Host, path: str) -> ElfLinkInfo:
    """Raises FatbinError (the ELF reader's error) with the reason."""
    fh = host.open_binary(path)
    if fh is None:
        raise FatbinError(f"{path}: cannot be opened")
    with fh:
        r = _reader(fh)
        try:
            sections = {name: (sh_type, off, size) for name, sh_type, off, size in elf_sections(r)}
            if ".dynstr" not in sections:
                raise FatbinError("no .dynstr section")
            _t, off, size = sections[".dynstr"]
            if size > MAX_DYNSTR:
                raise FatbinError(f".dynstr is {size} bytes, over the {MAX_DYNSTR} cap")
            dynstr = r.read(off, size)
            needed = _needed(r, sections.get(".dynamic"), dynstr)
        finally:
            r.close()
    abi: bool | None = None
    if b"__cxx11" in dynstr:
        abi = True
    elif b"_ZN3c10" in dynstr:
        abi = False
    majors = [int(m.group(1)) for n in needed if (m := _CUDART.match(n.encode()))]
    if not majors:
        majors = [int(m.group(1)) for m in _CUDART.finditer(dynstr)]
    return ElfLinkInfo(abi, majors[0] if majors else None, needed)


def _needed(r, dynamic, dynstr: bytes) -> tuple[str, ...]:
    if dynamic is None or dynamic[0] != _SHT_DYNAMIC or dynamic[2] > (1 << 20):
        return ()
    data = r.read(dynamic[1], dynamic[2])
    out = []
    for i in range(0, len(data) - 15, 16):
        tag, val = struct.unpack_from("<qQ", data, i)
        if tag == 0:
            break
        if tag == 1 and val < len(dynstr):  # DT_NEEDED
            end = dynstr.find(b"\0", val)
            out.append(dynstr[val:end].decode("ascii", "replace"))
    return tuple(out)
