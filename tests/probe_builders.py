"""Builders for probe scenarios: FakeHost machines and synthetic CUDA binaries.

`Machine` wraps FakeHost with the few shapes real machines are made of
(a toolkit, a venv with wheels, a driver, the target interpreter's answer);
`elf_with_fatbin` writes a minimal ELF64 file whose .nv_fatbin section holds
fatbin containers with the given (kind, arch, flags) entries.
"""

from __future__ import annotations

import json
import posixpath
import struct
from dataclasses import dataclass, field

from fakes import FakeCommand, FakeHost, FakeNvml

from gpudoctor.probes import deep, driver
from gpudoctor.probes.target import TARGET_SCRIPT

PTX, ELF = 1, 2
FLAG_A, FLAG_F = 0x100000, 0x200000


# --- synthetic binaries ---------------------------------------------------

def fatbin_container(entries: list[tuple[int, int, int]], payload: int = 64) -> bytes:
    """One fatbin container; entries are (kind, arch, flags)."""
    body = b""
    for kind, arch, flags in entries:
        head = struct.pack("<HHIQ", kind, 0x101, 64, payload) + bytes(12) + struct.pack("<I", arch)
        head += bytes(8) + struct.pack("<Q", flags | 0x11) + bytes(16)
        assert len(head) == 64
        body += head + b"\xab" * payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


def elf_with_sections(sections: dict[str, bytes]) -> bytes:
    """A minimal little-endian ELF64 file with the given sections."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in sections) + b".shstrtab\0"
    data = bytearray(64)
    placed = []
    for name, content in sections.items():
        placed.append((name, len(data), len(content)))
        data += content
    shstr_off = len(data)
    data += names
    while len(data) % 8:
        data += b"\0"
    shoff = len(data)
    table = bytes(64)  # section 0 is null
    name_at = 1
    for name, off, size in placed:
        table += struct.pack("<IIQQQQIIQQ", name_at, 1, 0, 0, off, size, 0, 0, 8, 0)
        name_at += len(name) + 1
    table += struct.pack("<IIQQQQIIQQ", name_at, 3, 0, 0, shstr_off, len(names), 0, 0, 1, 0)
    data += table
    shnum = len(placed) + 2
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, shnum, shnum - 1)
    data[:64] = header
    return bytes(data)


def elf_with_fatbin(containers: list[list[tuple[int, int, int]]]) -> bytes:
    fat = b"".join(fatbin_container(c) for c in containers)
    return elf_with_sections({".text": b"\x90" * 32, ".nv_fatbin": fat})


def sass(*archs: int) -> list[tuple[int, int, int]]:
    return [(ELF, a, 0) for a in archs]


# --- machines -------------------------------------------------------------

NVCC_13_0 = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
             "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")


def nvcc_output(release: str, full: str) -> str:
    return f"nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release {release}, V{full}\n"


@dataclass
class Machine:
    python: str = "/usr/bin/python3"
    prefix: str = "/usr"
    base_prefix: str = "/usr"
    site: str = "/usr/lib/python3/dist-packages"
    version: str = "3.11.7"
    conda_prefix: str | None = None
    host: FakeHost = field(default_factory=FakeHost)
    ld_cache: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.host.python_path = self.python
        self.host.files.setdefault("/proc/modules", "ext4 1 0 - Live 0x0\n")
        self.host.files.setdefault("/etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
        self.host.files.setdefault("/proc/sys/kernel/osrelease", "5.15.0-105-generic\n")
        self.host.dirs.add(self.site)

    # the target interpreter's self-description
    def finish(self) -> FakeHost:
        info = {"version": self.version, "implementation": "CPython", "executable": self.python,
                "prefix": self.prefix, "base_prefix": self.base_prefix,
                "path": [f"/usr/lib/python{self.version[:4]}", self.site], "user_site": None,
                "system": "Linux", "machine": "x86_64", "release": "5.15.0-105-generic",
                "libc": "glibc 2.35", "conda_prefix": self.conda_prefix}
        self.host.commands.append(FakeCommand([self.python, TARGET_SCRIPT], stdout=json.dumps(info) + "\n"))
        if self.ld_cache:
            self.host.files["/etc/ld.so.cache"] = (b"glibc-ld.so.cache1.1\0" +
                                                  b"".join(posixpath.basename(p).encode() + b"\0" + p.encode() + b"\0"
                                                           for p in self.ld_cache))
        return self.host

    def file(self, path: str, content: str | bytes = "") -> Machine:
        self.host.files[path] = content
        return self

    def link(self, path: str, target: str) -> Machine:
        self.host.links[path] = target
        return self

    def command(self, argv: list[str], stdout: str = "", **kw: object) -> Machine:
        self.host.commands.append(FakeCommand(argv, stdout=stdout, **kw))  # type: ignore[arg-type]
        return self

    def toolkit(self, root: str, nvcc_release: str | None = None, nvcc_full: str | None = None,
                version_json: dict | None = None, dist_runtime: str | None = None,
                cudart: str = "libcudart.so.12") -> Machine:
        if nvcc_release:
            self.file(f"{root}/bin/nvcc", b"\x7fELF")
            self.command([f"{root}/bin/nvcc", "--version"], nvcc_output(nvcc_release, nvcc_full or nvcc_release))
        if version_json is not None:
            self.file(f"{root}/version.json", json.dumps(version_json))
        if dist_runtime:
            self.host.dirs.add(f"{root}/dist-info/nvidia_cuda_runtime-{dist_runtime}.dist-info")
        self.file(f"{root}/lib64/{cudart}", b"\x7fELF")
        return self

    def dist(self, name: str, version: str, metadata: str = "", site: str | None = None) -> Machine:
        site = site or self.site
        dirname = f"{name.replace('-', '_')}-{version}.dist-info"
        head = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata}"
        return self.file(f"{site}/{dirname}/METADATA", head + "\n\nLong description.\n")

    def driver_libs(self, release: str, where: str = "/usr/lib/x86_64-linux-gnu") -> Machine:
        for stem in ("libcuda.so", "libnvidia-ml.so"):
            self.file(f"{where}/{stem}.{release}", b"\x7fELF")
            self.link(f"{where}/{stem}.1", f"{where}/{stem}.{release}")
            self.ld_cache.append(f"{where}/{stem}.1")
        return self

    def libcuda_answers(self, version: int | None, cuinit: int, name: str, path: str | None = None) -> Machine:
        out = {"path": path or "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "get_version_rc": 0 if version else 3,
               "version": version or 0, "cuinit": cuinit, "cuinit_name": name}
        return self.command([self.python, "-I", "-S", driver.CUDA_SCRIPT, "libcuda.so.1"], json.dumps(out))

    def deep_answer(self, framework: str, report: dict, **kw: object) -> Machine:
        text = "".join(deep.MARKER + json.dumps(r) + "\n" for r in ([report] if isinstance(report, dict) else report))
        return self.command([self.python, deep.DEEP_SCRIPT, framework], text, **kw)


def nvml_for(gpus: list[dict], driver_version: str = "535.104.05", cuda: int = 12020) -> FakeNvml:
    """A FakeNvml describing `gpus` (each a dict of name, uuid, cc, ... ; see defaults)."""

    def per(key: str, default: object = None):  # noqa: ANN202
        def answer(handle: int, *args: object) -> object:
            value = gpus[handle].get(key, default)
            return value(*args) if callable(value) else value
        return answer

    answers: dict = {
        "nvmlSystemGetDriverVersion": driver_version,
        "nvmlSystemGetCudaDriverVersion_v2": cuda,
        "nvmlDeviceGetCount": len(gpus),
        "nvmlDeviceGetHandleByIndex": lambda i: gpus[i].get("handle_error", i),
    }
    for key in ("Name", "UUID", "PciInfo", "CudaComputeCapability", "MemoryInfo", "MigMode", "PersistenceMode",
                "EccMode", "TotalEccErrors", "RetiredPagesPendingStatus", "RemappedRows",
                "CurrPcieLinkGeneration", "MaxPcieLinkGeneration", "CurrPcieLinkWidth", "MaxPcieLinkWidth",
                "CurrentClocksEventReasons", "ComputeRunningProcesses", "GraphicsRunningProcesses"):
        answers[f"nvmlDeviceGet{key}"] = per(key)
    return FakeNvml(answers)
