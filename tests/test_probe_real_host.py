"""The real probes on the machine the tests run on, checked against independent reads.

The development and CI machines have a CUDA toolkit and no NVIDIA driver or
GPU; the assertions adapt where a machine differs (no nvcc, a driver present).
GPUDOCTOR_TEST_TORCH_PYTHON=/path/to/python checks the torch facts against what
that interpreter's own torch says.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from gpudoctor.host import RealHost
from gpudoctor.probes import collect

HAS_DRIVER = os.path.exists("/proc/driver/nvidia/version") or shutil.which("nvidia-smi") is not None


@pytest.fixture(scope="module")
def snap():
    return collect(RealHost())


def test_collect_runs_clean(snap):
    assert snap.probe_errors == ()
    assert snap.origin == "live" and snap.created
    assert snap.system.python.known and snap.system.os.value == "linux"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_toolkit_matches_nvcc_version(snap):
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=60, check=True).stdout
    m = re.search(r"release (\d+\.\d+), V(\S+)", out)
    assert m, out
    release, full = m.groups()
    toolkits = [r for r in snap.cuda_runtimes if r.kind == "toolkit" and r.nvcc == full]
    assert toolkits, snap.cuda_runtimes
    tk = toolkits[0]
    assert tk.version and tk.version.startswith(release)
    assert os.path.exists(os.path.join(tk.path, "bin", "nvcc"))
    if os.path.isdir("/usr/local/cuda"):
        assert any(r.path == os.path.realpath("/usr/local/cuda") for r in snap.cuda_runtimes)


@pytest.mark.skipif(HAS_DRIVER, reason="this machine has an NVIDIA driver")
def test_no_driver_is_described_exactly(snap):
    d = snap.driver
    assert d.nvml.value in ("LibraryNotFound", "DriverNotLoaded")
    assert d.kernel_module.value == "not-loaded"
    assert not d.version.known and d.version.tried
    pci = [p for p in os.listdir("/sys/bus/pci/devices")] if os.path.isdir("/sys/bus/pci/devices") else []
    nvidia = [p for p in pci if Path(f"/sys/bus/pci/devices/{p}/vendor").read_text().strip() == "0x10de"]
    if not nvidia:
        assert snap.gpus == ()


@pytest.mark.gpu
def test_gpu_machine(snap):
    if not HAS_DRIVER:
        if os.environ.get("GPUDOCTOR_REQUIRE_GPU") == "1":
            pytest.fail("GPUDOCTOR_REQUIRE_GPU=1 but no NVIDIA driver here")
        pytest.skip("no NVIDIA driver / GPU")
    smi = subprocess.run(["nvidia-smi", "--query-gpu=uuid,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    rows = [r.split(", ") for r in smi.strip().splitlines()]
    assert [g.uuid for g in snap.gpus] == [r[0] for r in rows]
    assert snap.driver.version.value == rows[0][1]
    assert snap.driver.nvml.value == "ok" and snap.driver.cuinit.value == 0


TORCH_PYTHON = os.environ.get("GPUDOCTOR_TEST_TORCH_PYTHON")
TORCH_SAYS = (
    "import json, torch\n"
    "flags = getattr(torch._C, '_cuda_getArchFlags', lambda: '')() if torch.version.cuda else ''\n"
    "print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda,"
    " 'hip': getattr(torch.version, 'hip', None), 'arch_flags': flags}))\n"
)


@pytest.mark.skipif(not TORCH_PYTHON, reason="GPUDOCTOR_TEST_TORCH_PYTHON not set")
def test_torch_facts_match_the_target_torch():
    out = subprocess.run([TORCH_PYTHON, "-c", TORCH_SAYS], capture_output=True, text=True, timeout=300, check=True)
    says = json.loads(out.stdout.strip().splitlines()[-1])
    snap = collect(RealHost(), python=TORCH_PYTHON)
    assert snap.probe_errors == ()
    fw = snap.framework("torch")
    assert fw is not None
    assert fw.version.value == says["version"]
    assert fw.cuda.value == says["cuda"]
    if says["cuda"] is None and not says["hip"]:
        assert fw.build.value == "cpu" and not fw.arch_list.known
    if says["cuda"]:
        assert fw.build.value == "cuda"
        assert " ".join(fw.arch_list.value or ()) == says["arch_flags"]
        cudnn = [c for c in snap.cudnn if c.kind == "pip"]
        if fw.cudnn.known and cudnn:
            assert cudnn[0].version == fw.cudnn.value  # the pinned wheel is the one installed


@pytest.mark.skipif(not TORCH_PYTHON, reason="GPUDOCTOR_TEST_TORCH_PYTHON not set")
def test_deep_imports_the_target_torch():
    out = subprocess.run([TORCH_PYTHON, "-c", TORCH_SAYS], capture_output=True, text=True, timeout=300, check=True)
    says = json.loads(out.stdout.strip().splitlines()[-1])
    fw = collect(RealHost(), python=TORCH_PYTHON, deep=True).framework("torch")
    assert fw is not None and fw.deep is not None
    d = fw.deep
    assert d.imported and not d.timed_out
    if says["cuda"] is None:
        assert d.is_available is False and "not compiled with CUDA" in (d.error or "")
    elif not HAS_DRIVER:
        assert d.is_available is False and d.error  # e.g. "Found no NVIDIA driver on your system"
        assert any("libcudart" in p for p in d.loaded_libraries)
    else:
        assert d.is_available and d.op_results and all(r == "ok" for r in d.op_results)


def test_which_finds_what_shutil_which_finds(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    for d in (first, second):
        d.mkdir()
    (first / "tool").write_text("")  # not executable: skipped
    (first / "dir").mkdir()  # a directory is never the answer
    for f in (second / "tool", second / "dir", tmp_path / "here"):
        f.write_text("#!/bin/sh\n")
        f.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    for path in (f"{first}{os.pathsep}{second}", f"{second}{os.pathsep}{first}", "", str(first)):
        host = RealHost(environ={"PATH": path})
        for name in ("tool", "dir", "missing", "./here", str(second / "tool"), str(first / "tool")):
            assert host.which(name) == shutil.which(name, path=path), (path, name)


def test_a_started_command_runs_once_and_run_takes_its_result(tmp_path):
    log = tmp_path / "log"
    argv = ["sh", "-c", f"echo ran >> {log}; echo answer"]
    host = RealHost()
    host.start(argv, timeout=5)
    host.start(argv, timeout=5)  # asked twice before its answer was taken: one run
    first = host.run(argv, timeout=5)
    second = host.run(argv, timeout=5)  # taken once; a later run runs again
    assert (first.returncode, first.stdout, second.stdout) == (0, "answer\n", "answer\n")
    assert log.read_text() == "ran\nran\n"
    host.start(argv, timeout=5)
    assert host.run(argv, timeout=9).stdout == "answer\n"  # another timeout is another command
    time.sleep(0.2)  # the started one still ends and is never taken
    assert log.read_text().count("ran") == 4


def test_check_starts_each_toolkits_nvcc_with_the_argv_the_probe_runs():
    from gpudoctor.probes.cuda_runtime import host_toolkit_roots, start_nvcc

    host = RealHost()
    start_nvcc(host)
    expected = {(os.path.join(root, "bin", "nvcc"), "--version") for root, _ in host_toolkit_roots(host)
                if os.path.exists(os.path.join(root, "bin", "nvcc"))}
    assert expected or shutil.which("nvcc") is None  # a machine with a toolkit must start its nvcc
    assert {argv for argv, _ in host._started} == expected
    snap = collect(host)
    assert not host._started  # each answer was taken by the probe
    assert all(rt.nvcc for rt in snap.cuda_runtimes if rt.kind == "toolkit" and
               os.path.exists(os.path.join(rt.path, "bin", "nvcc")))
