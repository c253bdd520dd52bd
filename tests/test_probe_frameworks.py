"""Framework builds read from files: torch, TensorFlow, JAX, CuPy; and --deep imports."""

from __future__ import annotations

import dataclasses
import json
import time

from probe_builders import ELF, FLAG_A, PTX, Machine, elf_with_fatbin, sass
from test_probe_libraries import SITE, venv_machine

from gpudoctor.probes import collect

TORCH_VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda}
git_version = '5c4886908584029761b579af026dcfb627c84070'
hip: Optional[str] = None
xpu: Optional[str] = None
"""
CU126_ARCHS = [50, 60, 70, 75, 80, 86, 90]


def with_torch(m: Machine, version: str, dist_version: str, cuda: str | None, requires: str = "",
               libtorch_cuda: bytes | None = None) -> Machine:
    m.file(f"{SITE}/torch/version.py", TORCH_VERSION_PY.format(version=version, cuda=repr(cuda)))
    m.dist("torch", dist_version, "Requires-Python: >=3.9.0\n" + requires)
    if libtorch_cuda is not None:
        m.file(f"{SITE}/torch/lib/libtorch_cuda.so", libtorch_cuda)
    return m


def test_torch_cpu_build():
    m = with_torch(venv_machine(), "2.13.0+cpu", "2.13.0+cpu", None)
    (fw,) = collect(m.finish()).frameworks
    assert (fw.name, fw.version.value, fw.build.value) == ("torch", "2.13.0+cpu", "cpu")
    assert not fw.cuda.known and "cuda is None (cpu build)" in fw.cuda.tried[0]
    assert not fw.arch_list.known and fw.requires_python == ">=3.9.0"
    assert fw.location == f"{SITE}/torch"


def test_torch_cu126():
    requires = ('Requires-Dist: nvidia-cuda-runtime-cu12==12.6.77; platform_system == "Linux"\n'
                'Requires-Dist: nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux"\n'
                'Requires-Dist: nvidia-nccl-cu12==2.21.5; platform_system == "Linux"\n')
    lib = elf_with_fatbin([sass(*CU126_ARCHS) + [(PTX, 90, 0)]] * 3 + [sass(*CU126_ARCHS, 89) + [(ELF, 90, FLAG_A)]])
    m = with_torch(venv_machine(), "2.7.1+cu126", "2.7.1", "12.6", requires, lib)
    snap = collect(m.finish())
    assert snap.probe_errors == ()
    (fw,) = snap.frameworks
    assert (fw.version.value, fw.version.source) == ("2.7.1+cu126", "torch/version.py")  # dist-info says 2.7.1
    assert (fw.build.value, fw.cuda.value) == ("cuda", "12.6")
    assert (fw.cudnn.value, fw.cudnn.source) == ("9.5.1.17", "torch METADATA Requires-Dist nvidia-cudnn-cu12")
    assert fw.nccl.value == "2.21.5"
    assert fw.arch_list.value == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "compute_90")
    assert fw.arch_list.source == "torch/lib/libtorch_cuda.so .nv_fatbin (some kernels also for sm_89, sm_90a)"


def test_torch_with_a_corrupt_cuda_library_has_an_unknown_arch_list():
    m = with_torch(venv_machine(), "2.4.0+cu121", "2.4.0", "12.1", libtorch_cuda=b"\x7fELF\x02\x01" + bytes(20))
    (fw,) = collect(m.finish()).frameworks
    assert not fw.arch_list.known
    assert fw.arch_list.tried == ("torch/lib/libtorch_cuda.so: truncated: wanted 64 bytes at offset 0",)


def test_torch_rocm_build():
    m = venv_machine()
    m.file(f"{SITE}/torch/version.py", "__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133-dd7f95766'\n")
    m.dist("torch", "2.5.1+rocm6.2")
    (fw,) = collect(m.finish()).frameworks
    assert fw.build.value == "rocm" and not fw.arch_list.known


TF_218 = """import collections

build_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-18/bin/clang'), \
('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.5.1'), \
('cudnn_version', '9'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', False)])
"""
TF_221_CPU = ("import collections\n\nbuild_info = collections.OrderedDict([('is_cuda_build', False), "
              "('is_rocm_build', False), ('is_tensorrt_build', False)])\n")


def test_tf_2_18_build_info():
    m = venv_machine().file(f"{SITE}/tensorflow/python/platform/build_info.py", TF_218)
    m.dist("tensorflow", "2.18.0", "Requires-Python: >=3.9\n")
    (fw,) = collect(m.finish()).frameworks
    assert (fw.name, fw.version.value, fw.build.value) == ("tensorflow", "2.18.0", "cuda")
    assert (fw.cuda.value, fw.cudnn.value) == ("12.5.1", "9")
    assert fw.arch_list.value == ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90")
    assert fw.arch_list.source == "tensorflow/python/platform/build_info.py cuda_compute_capabilities"


def test_tf_cpu_wheel():
    m = venv_machine().file(f"{SITE}/tensorflow/python/platform/build_info.py", TF_221_CPU)
    m.dist("tensorflow-cpu", "2.21.0")
    (fw,) = collect(m.finish()).frameworks
    assert fw.build.value == "cpu" and not fw.cuda.known and not fw.arch_list.known


def test_old_tf_build_info_with_plain_assignments():
    m = venv_machine().file(f"{SITE}/tensorflow/python/platform/build_info.py",
                            "is_cuda_build = True\ncuda_version_number = '10.1'\ncudnn_version_number = '7'\n")
    m.dist("tensorflow-gpu", "2.2.0")
    (fw,) = collect(m.finish()).frameworks
    assert (fw.build.value, fw.cuda.value, fw.cudnn.value) == ("cuda", "10.1", "7")


def test_jax_cuda13_plugin():
    m = venv_machine().dist("jax", "0.8.0", "Requires-Python: >=3.11\n").dist("jaxlib", "0.8.0")
    m.dist("jax-cuda13-plugin", "0.8.0",
           'Requires-Dist: jax-cuda13-pjrt==0.8.0\n'
           'Requires-Dist: nvidia-cudnn-cu13<10.0,>=9.8; extra == "with-cuda"\n')
    m.dist("jax-cuda13-pjrt", "0.8.0")
    m.file(f"{SITE}/jax_plugins/xla_cuda13/xla_cuda_plugin.so", elf_with_fatbin([sass(75, 80, 90, 100, 120)]))
    (fw,) = collect(m.finish()).frameworks
    assert (fw.name, fw.version.value, fw.build.value, fw.cuda.value) == ("jax", "0.8.0", "cuda", "13.x")
    assert fw.cudnn.value == "<10.0,>=9.8"
    assert fw.arch_list.value == ("sm_75", "sm_80", "sm_90", "sm_100", "sm_120")
    assert fw.arch_list.source.startswith("jax_plugins/xla_cuda13/xla_cuda_plugin.so")
    assert fw.requires_python == ">=3.11"


def test_jax_cpu_only_and_old_monolithic_jaxlib():
    (cpu,) = collect(venv_machine().dist("jax", "0.10.2").dist("jaxlib", "0.10.2").finish()).frameworks
    assert cpu.build.value == "cpu" and not cpu.cuda.known
    old = venv_machine().dist("jax", "0.4.23").dist("jaxlib", "0.4.23+cuda12.cudnn89")
    (fw,) = collect(old.finish()).frameworks
    assert (fw.build.value, fw.cuda.value, fw.cudnn.value) == ("cuda", "12.x", "8.9")


def test_cupy_cuda12x():
    m = venv_machine().dist("cupy-cuda12x", "13.3.0")
    wheel = {"packaging": "pip", "cuda": "12.x",
             "cudnn": {"version": "8.8.1", "filename": "libcudnn.so.8.8.1"}}
    m.file(f"{SITE}/cupy/.data/_wheel.json", json.dumps(wheel))
    (fw,) = collect(m.finish()).frameworks
    assert (fw.name, fw.version.value, fw.build.value) == ("cupy", "13.3.0", "cuda")
    assert (fw.cuda.value, fw.cuda.source) == ("12.x", "cupy/.data/_wheel.json")
    assert fw.cudnn.value == "8.8.1"
    old = venv_machine().dist("cupy-cuda117", "10.6.0")
    (fw,) = collect(old.finish()).frameworks
    assert (fw.cuda.value, fw.cuda.source) == ("11.7", "cupy-cuda117 dist name")


def test_the_first_sys_path_entry_wins():
    m = venv_machine().dist("torch", "2.1.0")
    m.file(f"{SITE}/torch/version.py", "__version__ = '2.1.0+cu118'\ncuda = '11.8'\n")
    m.dist("torch", "1.13.1", site="/usr/lib/python3.11")  # an older torch earlier on sys.path
    m.file("/usr/lib/python3.11/torch/version.py", "__version__ = '1.13.1+cu117'\ncuda = '11.7'\n")
    (fw,) = collect(m.finish()).frameworks
    assert fw.version.value == "1.13.1+cu117"


def test_no_frameworks():
    assert collect(venv_machine().finish()).frameworks == ()


# --- --deep ----------------------------------------------------------------

def test_deep_torch_on_a_working_gpu():
    m = with_torch(venv_machine(), "2.14.1+cu130", "2.14.1", "13.0")
    report = {"imported": True, "is_available": True, "device_count": 1, "devices": ["NVIDIA H100 80GB HBM3"],
              "arch_list": ["sm_75", "sm_90"], "cudnn_runtime": "9.13.0", "op_results": ["ok"],
              "loaded_libraries": [f"{SITE}/nvidia/cu13/lib/libcudart.so.13"], "warnings": [],
              "duration_s": 2.5, "stage": "done"}
    m.deep_answer("torch", [dict(report, stage="imported"), report])
    (fw,) = collect(m.finish(), deep=True).frameworks
    d = fw.deep
    assert d is not None and d.imported and d.is_available and d.error is None
    assert (d.device_count, d.devices, d.op_results) == (1, ("NVIDIA H100 80GB HBM3",), ("ok",))
    assert d.cudnn_runtime == "9.13.0"
    assert d.arch_list == ("sm_75", "sm_90") and d.duration_s == 2.5


def test_deep_torch_unsupported_gpu_warning_and_stderr_notes():
    m = with_torch(venv_machine(), "2.5.1+cu121", "2.5.1", "12.1")
    report = {"imported": True, "is_available": True, "device_count": 1, "devices": ["NVIDIA GeForce RTX 5090"],
              "op_results": ["RuntimeError: CUDA error: no kernel image is available for execution on the device"],
              "warnings": ["UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible "
                           "with the current PyTorch installation."], "stage": "done"}
    m.deep_answer("torch", report, stderr="W0000 something failed to load\nplain line\n")
    (fw,) = collect(m.finish(), deep=True).frameworks
    assert "sm_120 is not compatible" in fw.deep.warnings[0]
    assert fw.deep.warnings[1] == "W0000 something failed to load"
    assert fw.deep.op_results[0].startswith("RuntimeError: CUDA error: no kernel image")


def test_deep_hang_is_killed_at_the_timeout(monkeypatch):
    import gpudoctor.probes.deep as deep_mod

    monkeypatch.setattr(deep_mod, "DEEP_TIMEOUT_S", 0.2)
    m = with_torch(venv_machine(), "2.14.1+cu130", "2.14.1", "13.0")
    m.deep_answer("torch", {"imported": True, "stage": "imported"}, hang_s=5)
    (fw,) = collect(m.finish(), deep=True).frameworks
    assert fw.deep.timed_out and fw.deep.error == "timed out after 0 s (last stage: start)"


def test_deep_hang_in_a_real_process_keeps_how_far_it_got(tmp_path, monkeypatch):
    """A real child that reports 'imported' and then hangs: killed at the
    deadline, and the partial report survives."""
    import gpudoctor.probes.deep as deep_mod
    from gpudoctor.host import RealHost
    from gpudoctor.probes.context import Context
    from gpudoctor.probes.target import interrogate

    monkeypatch.setattr(deep_mod, "DEEP_TIMEOUT_S", 0.5)
    fake_python = tmp_path / "python"
    fake_python.write_text('#!/bin/sh\necho \'GPUDOCTOR_DEEP {"imported": true, "stage": "imported"}\'\n'
                           "sleep 30\n")
    fake_python.chmod(0o755)
    host = RealHost()
    ctx = Context(host, dataclasses.replace(interrogate(host), python=str(fake_python)))
    start = time.monotonic()
    result = deep_mod.run_one(ctx, "torch")
    assert time.monotonic() - start < 0.5 + 2.5
    assert result.timed_out and result.imported
    assert result.error.startswith("timed out after") and "last stage: imported" in result.error


def test_deep_crash_after_import():
    m = with_torch(venv_machine(), "2.14.1+cu130", "2.14.1", "13.0")
    m.deep_answer("torch", {"imported": True, "stage": "imported"}, returncode=-11,
                  stderr="Segmentation fault (core dumped)\n")
    (fw,) = collect(m.finish(), deep=True).frameworks
    assert fw.deep.imported and not fw.deep.timed_out
    assert fw.deep.error == "crashed (exit -11) after stage imported: Segmentation fault (core dumped)"


def test_deep_import_error():
    m = with_torch(venv_machine(), "2.14.1+cu130", "2.14.1", "13.0")
    m.deep_answer("torch", {"imported": False, "error": "ImportError: libcudnn.so.9: cannot open shared object file",
                            "stage": "done"})
    (fw,) = collect(m.finish(), deep=True).frameworks
    assert not fw.deep.imported and fw.deep.error.startswith("ImportError: libcudnn.so.9")


def test_metadata_headers_stop_at_the_description():
    from gpudoctor.probes.locate import parse_metadata

    meta = parse_metadata("Name: torch\nRequires-Dist: nvidia-cudnn-cu12==9.1.0.70;\n  platform_system == 'Linux'\n"
                          "Requires-Python: >=3.9\n\nRequires-Dist: fake-in-description==1\n")
    assert meta.get_all("Requires-Dist") == ["nvidia-cudnn-cu12==9.1.0.70; platform_system == 'Linux'"]
    assert meta.get("requires-python") == ">=3.9" and meta.get("Summary") is None
