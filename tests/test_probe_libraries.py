"""CUDA runtimes, cuDNN and NCCL: toolkits, pip wheels (cu12 and cu13 layouts), conda, the loader."""

from __future__ import annotations

from probe_builders import Machine

from gpudoctor.probes import collect
from gpudoctor.probes.libraries import decode_cudnn_version

VENV = "/home/u/venv"
SITE = f"{VENV}/lib/python3.11/site-packages"


def venv_machine() -> Machine:
    return Machine(python=f"{VENV}/bin/python", prefix=VENV, base_prefix="/usr", site=SITE)


def test_pip_cu12_wheels():
    m = venv_machine()
    m.file(f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12", b"\x7fELF")
    m.dist("nvidia-cuda-runtime-cu12", "12.4.127")
    m.file(f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", b"\x7fELF").file(f"{SITE}/nvidia/cudnn/lib/libcudnn_ops.so.9")
    m.dist("nvidia-cudnn-cu12", "9.1.0.70")
    m.file(f"{SITE}/nvidia/nccl/lib/libnccl.so.2", b"\x7fELF").dist("nvidia-nccl-cu12", "2.20.5")
    snap = collect(m.finish())
    assert snap.probe_errors == ()
    (rt,) = snap.cuda_runtimes
    assert (rt.version, rt.kind, rt.path) == ("12.4.127", "pip", f"{SITE}/nvidia/cuda_runtime/lib")
    assert rt.source == "site-packages/nvidia/cuda_runtime/lib (nvidia-cuda-runtime-cu12 12.4.127 dist-info)"
    (cudnn,) = snap.cudnn
    assert (cudnn.version, cudnn.cuda_major, cudnn.kind) == ("9.1.0.70", 12, "pip")
    assert cudnn.source == "site-packages/nvidia/cudnn (nvidia-cudnn-cu12 9.1.0.70 dist-info)"
    (nccl,) = snap.nccl
    assert (nccl.version, nccl.cuda_major) == ("2.20.5", 12)
    assert snap.system.environment.value == "venv"


def test_pip_cu13_wheels():
    m = venv_machine()
    m.file(f"{SITE}/nvidia/cu13/lib/libcudart.so.13", b"\x7fELF").dist("nvidia-cuda-runtime", "13.0.96")
    m.file(f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", b"\x7fELF").dist("nvidia-cudnn-cu13", "9.13.0.50")
    m.file(f"{SITE}/nvidia/nccl/lib/libnccl.so.2", b"\x7fELF").dist("nvidia-nccl-cu13", "2.27.7")
    snap = collect(m.finish())
    (rt,) = snap.cuda_runtimes
    assert (rt.version, rt.path) == ("13.0.96", f"{SITE}/nvidia/cu13/lib")
    assert "nvidia-cuda-runtime 13.0.96 dist-info" in rt.source
    assert (snap.cudnn[0].version, snap.cudnn[0].cuda_major) == ("9.13.0.50", 13)
    assert (snap.nccl[0].version, snap.nccl[0].cuda_major) == ("2.27.7", 13)


def test_wheel_without_dist_info_falls_back_to_the_file_name():
    m = venv_machine()
    m.file(f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9.1.0", b"\x7fELF").link(
        f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9.1.0")
    (cudnn,) = collect(m.finish()).cudnn
    assert cudnn.version == "9.1.0" and cudnn.cuda_major is None and "no dist-info" in cudnn.source


def test_conda_env():
    prefix = "/opt/conda/envs/ml"
    m = Machine(python=f"{prefix}/bin/python", prefix=prefix, base_prefix=prefix,
                site=f"{prefix}/lib/python3.11/site-packages", conda_prefix=prefix)
    m.file(f"{prefix}/conda-meta/cuda-cudart-12.4.127-h99ab3db_0.json", "{}")
    m.file(f"{prefix}/conda-meta/cuda-cudart-dev-12.4.127-h99ab3db_0.json", "{}")
    m.file(f"{prefix}/conda-meta/cudnn-9.1.1.17-cuda12_0.json", "{}")
    m.file(f"{prefix}/conda-meta/nccl-2.21.5.1-h3a97aeb_0.json", "{}")
    m.file(f"{prefix}/lib/libcudart.so.12.4.127", b"\x7fELF").link(f"{prefix}/lib/libcudart.so.12",
                                                                   f"{prefix}/lib/libcudart.so.12.4.127")
    m.file(f"{prefix}/lib/libcudnn.so.9", b"\x7fELF").file(f"{prefix}/lib/libnccl.so.2", b"\x7fELF")
    snap = collect(m.finish())
    assert snap.system.environment.value == "conda"
    (rt,) = snap.cuda_runtimes
    assert (rt.version, rt.kind, rt.path) == ("12.4.127", "conda", f"{prefix}/lib")
    assert "conda-meta/cuda-cudart-12.4.127-h99ab3db_0.json" in rt.source
    assert (snap.cudnn[0].version, snap.cudnn[0].kind) == ("9.1.1.17", "conda")
    assert snap.nccl[0].version == "2.21.5.1"


def test_two_toolkits_same_major():
    m = Machine()
    dated = {"cuda": {"name": "CUDA SDK", "version": "12.4.20240305"},
             "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "12.4.127"}}
    m.toolkit("/usr/local/cuda-12.4", "12.4", "12.4.131", version_json=dated)
    m.toolkit("/usr/local/cuda-12.8", "12.8", "12.8.93",
              version_json={"cuda": {"version": "12.8.1"}, "cuda_cudart": {"version": "12.8.90"}})
    m.host.environ.update(CUDA_HOME="/usr/local/cuda-12.8", LD_LIBRARY_PATH="/usr/local/cuda-12.4/lib64:/opt/x")
    snap = collect(m.finish())
    assert [(r.version, r.path, r.nvcc, r.ld_library_path) for r in snap.cuda_runtimes] == [
        ("12.8.90", "/usr/local/cuda-12.8", "12.8.93", False),
        ("12.4.127", "/usr/local/cuda-12.4", "12.4.131", True),
    ]
    assert snap.cuda_runtimes[0].source.startswith("/usr/local/cuda-12.8/version.json cuda_cudart (found via CUDA_HOME")


def test_toolkit_versions_from_older_records():
    m = Machine()
    m.file("/usr/local/cuda-10.0/version.txt", "CUDA Version 10.0.130\n").file("/usr/local/cuda-10.0/bin/nvcc")
    m.command(["/usr/local/cuda-10.0/bin/nvcc", "--version"], "garbage")
    m.file("/opt/cuda/include/cuda_runtime_api.h", "#define CUDART_VERSION  11080\n")
    snap = collect(m.finish())
    found = {r.path: (r.version, r.nvcc) for r in snap.cuda_runtimes}
    assert found == {"/usr/local/cuda-10.0": ("10.0.130", None), "/opt/cuda": ("11.8", None)}


def test_loader_cache_and_ld_library_path_libraries():
    m = Machine()
    m.file("/usr/lib/x86_64-linux-gnu/libcudart.so.12.0.146", b"\x7fELF").link(
        "/usr/lib/x86_64-linux-gnu/libcudart.so.12", "/usr/lib/x86_64-linux-gnu/libcudart.so.12.0.146")
    m.ld_cache.append("/usr/lib/x86_64-linux-gnu/libcudart.so.12")
    m.file("/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", b"\x7fELF").link(
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7")
    m.ld_cache.append("/usr/lib/x86_64-linux-gnu/libcudnn.so.8")
    m.file("/opt/cudnn/lib/libcudnn.so.9", b"\x7fELF")
    m.file("/opt/cudnn/include/cudnn_version.h",
           "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n"
           "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")
    m.host.environ["LD_LIBRARY_PATH"] = "/opt/cudnn/lib"
    snap = collect(m.finish())
    (rt,) = snap.cuda_runtimes
    assert (rt.version, rt.kind) == ("12.0.146", "system")
    assert [(c.version, c.kind, c.ld_library_path) for c in snap.cudnn] == [
        ("8.9.7", "system", False), ("9.3.0", "ld-library-path", True)]
    assert snap.cudnn[1].source == "/opt/cudnn/include/cudnn_version.h (LD_LIBRARY_PATH)"


def test_debian_cudnn_header_and_one_library_reached_twice():
    m = Machine()
    m.file("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", b"\x7fELF")
    m.ld_cache.append("/usr/lib/x86_64-linux-gnu/libcudnn.so.9")
    m.file("/usr/include/x86_64-linux-gnu/cudnn_version_v9.h",
           "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 2\n")
    m.host.environ["LD_LIBRARY_PATH"] = "/usr/lib/x86_64-linux-gnu"
    (cudnn,) = collect(m.finish()).cudnn
    assert (cudnn.version, cudnn.kind, cudnn.ld_library_path) == ("9.10.2", "system", True)
    assert cudnn.source.startswith("/usr/include/x86_64-linux-gnu/cudnn_version_v9.h")


def test_cudnn_version_encodings():
    assert decode_cudnn_version(8902) == "8.9.2"
    assert decode_cudnn_version(8500) == "8.5.0"
    assert decode_cudnn_version(90100) == "9.1.0"
    assert decode_cudnn_version(91501) == "9.15.1"


def test_cudnn_header_with_only_the_encoded_number():
    m = Machine()
    m.file("/usr/local/cuda-12.2/include/cuda_runtime_api.h", "#define CUDART_VERSION 12020\n")
    m.file("/usr/local/cuda-12.2/lib64/libcudnn.so.8", b"\x7fELF")
    m.file("/usr/local/cuda-12.2/include/cudnn_version.h", "#define CUDNN_VERSION 8902\n")
    (cudnn,) = collect(m.finish()).cudnn
    assert (cudnn.version, cudnn.kind) == ("8.9.2", "toolkit") and "toolkit /usr/local/cuda-12.2" in cudnn.source
