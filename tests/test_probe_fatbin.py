"""The fatbin reader: synthetic binaries, nvcc-built ones, a recorded torch build, and junk."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from fakes import FakeHost
from probe_builders import ELF, FLAG_A, FLAG_F, PTX, elf_with_fatbin, elf_with_sections, fatbin_container, sass

from gpudoctor.host import RealHost
from gpudoctor.probes import fatbin

FIXTURES = Path(__file__).parent / "fixtures"
LIB = "/lib/libx.so"


def scan_bytes(data: bytes) -> fatbin.ArchScan:
    return fatbin.scan(FakeHost(files={LIB: data}), LIB)


def test_sass_and_ptx_are_ordered_like_get_arch_list():
    data = elf_with_fatbin([sass(90, 75, 80) + [(PTX, 90, 0)]])
    assert scan_bytes(data).archs == ("sm_75", "sm_80", "sm_90", "compute_90")


def test_arch_specific_and_family_suffixes():
    data = elf_with_fatbin([[(ELF, 90, FLAG_A), (ELF, 100, FLAG_F), (PTX, 121, FLAG_F)]])
    assert scan_bytes(data).archs == ("sm_90a", "sm_100f", "compute_121f")


def test_archs_of_a_few_kernels_are_reported_apart():
    common = sass(75, 80, 86, 90, 100, 120)
    containers = [common] * 9 + [common + [(ELF, 90, FLAG_A), (ELF, 100, FLAG_A)]]
    result = scan_bytes(elf_with_fatbin(containers))
    assert result.archs == ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert result.extra == ("sm_90a", "sm_100a")
    assert result.containers == 10 and result.entries == 62


def test_a_library_without_fatbin_has_no_archs():
    result = scan_bytes(elf_with_sections({".text": b"\x90" * 16}))
    assert result.archs == () and result.sections == ()


@pytest.mark.parametrize("mangle, reason", [
    (lambda d: d[:40], "truncated"),
    (lambda d: b"MZ" + d[2:], "not an ELF"),
    (lambda d: d[:4] + b"\x01" + d[5:], "64-bit"),
    (lambda d: d[: len(d) - 100], "truncated"),  # the section table is cut off
])
def test_corrupt_elf_gives_a_reason_not_a_crash(mangle, reason):
    data = mangle(elf_with_fatbin([sass(80)]))
    with pytest.raises(fatbin.FatbinError, match=reason):
        scan_bytes(data)


def test_corrupt_fatbin_container_gives_a_reason():
    bad = bytearray(fatbin_container(sass(80)))
    struct.pack_into("<I", bad, 0, 0xDEADBEEF)
    with pytest.raises(fatbin.FatbinError, match="bad fatbin magic"):
        scan_bytes(elf_with_sections({".nv_fatbin": bytes(bad)}))
    overrun = bytearray(fatbin_container(sass(80)))
    struct.pack_into("<Q", overrun, 16 + 8, 10**9)  # entry payload far past the container
    with pytest.raises(fatbin.FatbinError, match="overruns"):
        scan_bytes(elf_with_sections({".nv_fatbin": bytes(overrun)}))


def test_missing_file_is_an_error_with_the_path():
    with pytest.raises(fatbin.FatbinError, match="cannot be opened"):
        fatbin.scan(FakeHost(), "/nope.so")


# --- binaries built by nvcc for known -gencode sets --------------------------

NVCC = shutil.which("nvcc")
KERNEL = '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\nextern "C" void go(float *x) { k<<<1, 32>>>(x); }\n'


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("gencodes, flags, expected", [
    (["arch=compute_75,code=sm_75", "arch=compute_80,code=sm_80", "arch=compute_90,code=[sm_90,compute_90]"],
     ["-Xfatbin=-compress-all"], ("sm_75", "sm_80", "sm_90", "compute_90")),
    (["arch=compute_80,code=compute_80"], [], ("compute_80",)),
    (["arch=compute_90a,code=sm_90a", "arch=compute_100f,code=sm_100f", "arch=compute_120,code=sm_120"],
     [], ("sm_90a", "sm_100f", "sm_120")),
], ids=["multi-sass-plus-ptx-compressed", "ptx-only", "arch-specific-and-family"])
def test_nvcc_built_library(tmp_path, gencodes, flags, expected):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    out = tmp_path / "libk.so"
    argv = [NVCC, "-shared", "-Xcompiler", "-fPIC", "-o", str(out), str(src), *flags]
    for g in gencodes:
        argv += ["-gencode", g]
    subprocess.run(argv, check=True, capture_output=True, timeout=300)
    assert fatbin.scan(RealHost(), str(out)).archs == expected


# --- a real torch build, recorded ----------------------------------------------

class SparseFile:
    """A file where only the recorded ranges hold data (zeros elsewhere)."""

    def __init__(self, size: int, chunks: list[tuple[int, bytes]]) -> None:
        self.size, self.chunks, self.pos = size, chunks, 0

    def seek(self, pos: int) -> None:
        self.pos = pos

    def read(self, n: int) -> bytes:
        n = max(0, min(n, self.size - self.pos))
        buf = bytearray(n)
        for off, data in self.chunks:
            lo, hi = max(off, self.pos), min(off + len(data), self.pos + n)
            if lo < hi:
                buf[lo - self.pos:hi - self.pos] = data[lo - off:hi - off]
        self.pos += n
        return bytes(buf)

    def __enter__(self) -> SparseFile:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def load_recording(name: str) -> tuple[dict, SparseFile]:
    meta = json.loads((FIXTURES / f"{name}.json").read_text())
    raw = gzip.decompress((FIXTURES / f"{name}.reads.gz").read_bytes())
    chunks, pos = [], 0
    while pos < len(raw):
        off, size = struct.unpack_from("<QI", raw, pos)
        chunks.append((off, raw[pos + 12:pos + 12 + size]))
        pos += 12 + size
    return meta, SparseFile(meta["file_size"], chunks)


def test_recorded_torch_2_14_1_cu130_matches_get_arch_list():
    meta, sparse = load_recording("torch-2.14.1-cu130-libtorch_cuda")

    class Host(FakeHost):
        def open_binary(self, path: str):  # noqa: ANN201
            return sparse

    result = fatbin.scan(Host(), "/site-packages/torch/lib/libtorch_cuda.so")
    assert list(result.archs) == meta["get_arch_list"]
    assert " ".join(result.archs) == meta["cuda_arch_flags"]
    assert result.containers == meta["containers"]


# --- the scan kept in the user cache -------------------------------------------------


def test_a_scan_is_kept_until_the_library_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = tmp_path / "libk.so"
    lib.write_bytes(elf_with_fatbin([sass(80, 90)]))
    first = fatbin.scan_cached(RealHost(), str(lib))
    assert first == fatbin.scan(RealHost(), str(lib)) and first.archs == ("sm_80", "sm_90")

    def no_scan(host, path):
        raise AssertionError("scanned again")

    monkeypatch.setattr(fatbin, "scan", no_scan)
    assert fatbin.scan_cached(RealHost(), str(lib)) == first  # answered from the cache
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib.write_bytes(elf_with_fatbin([sass(75)]))  # another build at the same path
    os.utime(lib, ns=(10**18, 10**18))
    assert fatbin.scan_cached(RealHost(), str(lib)).archs == ("sm_75",)


def test_a_failed_scan_is_not_kept_and_a_fake_host_is_never_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = tmp_path / "libbad.so"
    lib.write_bytes(b"not an ELF")
    for _ in range(2):
        with pytest.raises(fatbin.FatbinError):
            fatbin.scan_cached(RealHost(), str(lib))
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("f-*"))
    host = FakeHost(files={"/lib/libk.so": elf_with_fatbin([sass(86)])})
    assert fatbin.scan_cached(host, "/lib/libk.so").archs == ("sm_86",)
    assert not (tmp_path / "cache").exists()
