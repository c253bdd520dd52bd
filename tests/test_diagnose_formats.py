"""Each supported format: what it yields, and where each fact says it was read.

Samples live in tests/diagnose_samples/ (written from the tools' documented
output) and tests/diagnose_corpus/ (from public issue threads)."""

from pathlib import Path

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.matrices import load_matrices

SAMPLES = Path(__file__).parent / "diagnose_samples"
CORPUS = Path(__file__).parent / "diagnose_corpus"


def read(text, **kw):
    return read_paste(text, matrices=load_matrices(overlay=None), debug=True, **kw)


def facts(d):
    return {r.fact: r.value for r in d.reads}


def sources(d):
    return {r.fact: r.source for r in d.reads}


def test_collect_env_modern_with_sm_warning():
    d = read((CORPUS / "pytorch-150733-rtx5090d-collect-env.txt").read_text())
    got, src = facts(d), sources(d)
    assert got["torch.version"] == "2.6.0+cu126" and got["torch.cuda"] == "12.6" and got["torch.build"] == "cuda"
    assert got["driver.version"] == "570.124.04" and src["driver.version"] == "collect_env line 25"
    assert got["gpus[0].name"] == "NVIDIA GeForce RTX 5090 D"
    assert got["gpus[0].compute_capability"] == "12.0" and src["gpus[0].compute_capability"] == "PyTorch warning line 3"
    assert got["torch.arch_list"] == "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
    assert got["system.os_release"] == "Ubuntu 24.10" and got["system.python"] == "3.12.9"
    assert got["system.kernel"] == "6.11.0-21-generic" and got["system.glibc"] == "2.40"
    assert got["cudnn"] == "system 9.8.0"
    assert d.snapshot.origin == "diagnose"


def test_collect_env_2020_era_fullwidth_colons_and_no_colon_values():
    d = read((CORPUS / "pytorch-37320-collect-env-driver-410.txt").read_text())
    got = facts(d)
    assert [g.name for g in d.snapshot.gpus] == ["Tesla P100-PCIE-16GB"] * 4
    assert got["driver.version"] == "410.104" and got["torch.cuda"] == "10.2"
    assert got["torch.is_available"] == "no"
    assert got["cudnn"] == "system 7.6.5"
    toolkit = d.snapshot.cuda_runtimes[0]
    assert (toolkit.kind, toolkit.nvcc) == ("toolkit", "10.0.130")  # collect_env's "CUDA runtime version" is nvcc


def test_collect_env_windows_and_truncated():
    d = read((CORPUS / "pytorch-49325-windows-cpu-build.txt").read_text())
    got = facts(d)
    assert got["system.os"] == "windows" and got["torch.build"] == "cpu"
    assert "driver.version" not in got and d.snapshot.gpus is None  # not shown: unknown, not absent


def test_nvidia_smi_banner_new_and_old_formats():
    new = read((CORPUS / "torchsig-329-docker-no-toolkit.txt").read_text())
    assert facts(new)["driver.version"] == "550.120" and facts(new)["driver.cuda_api"] == "12.4"
    assert sources(new)["driver.version"] == "nvidia-smi banner line 3"
    g = new.snapshot.gpus[0]
    assert (g.name, g.memory_used_mib, g.memory_total_mib, g.persistence_mode) == \
        ("NVIDIA GeForce GTX 1080 Ti", 512, 11264, False)
    old = read((CORPUS / "nvidia-docker-399-gtx1080-367.txt").read_text())  # 2017: no "CUDA Version" column
    assert facts(old)["driver.version"] == "367.35" and "driver.cuda_api" not in facts(old)
    assert [g.pci_bus_id for g in old.snapshot.gpus] == ["0000:01:00.0", "0000:02:00.0"]
    a100 = read((CORPUS / "pytorch-45028-a100-old-banner.txt").read_text())
    assert a100.snapshot.gpus[0].ecc_uncorrected_volatile == 0 and a100.snapshot.gpus[0].mig_mode is False


def test_nvidia_smi_banner_windows_truncated_name():
    d = read((SAMPLES / "nvidia-smi-banner-windows.txt").read_text())
    g = d.snapshot.gpus[0]
    assert g.name == "NVIDIA GeForce RTX 3060" and g.persistence_mode is None  # WDDM, not On/Off


def test_nvidia_smi_q():
    d = read((SAMPLES / "nvidia-smi-q.txt").read_text())
    g = d.snapshot.gpus[0]
    assert facts(d)["driver.version"] == "535.129.03" and facts(d)["driver.cuda_api"] == "12.2"
    assert g.name == "NVIDIA A100-SXM4-80GB" and g.mig_mode is True and g.persistence_mode is False
    assert (g.pcie_width_current, g.pcie_width_max, g.pcie_gen_current) == (8, 16, 4)
    assert g.memory_total_mib == 81920 and g.ecc_uncorrected_volatile == 2 and g.remapped_rows_pending is True
    assert set(g.throttle_reasons) == {"hw_slowdown", "hw_thermal_slowdown"}
    assert g.uuid.startswith("GPU-3b2b5c1e")


def test_nvidia_smi_list_query_csv_xml_and_proc_version():
    listing = read((CORPUS / "nvidia-container-toolkit-1227-nvml-unknown.txt").read_text())
    assert [g.name for g in listing.snapshot.gpus] == ["NVIDIA A10", "NVIDIA A10", "Tesla T4", "Tesla T4"]
    assert sources(listing)["gpus[2].name"] == "nvidia-smi -L line 7"
    csv = read((SAMPLES / "query-noheader.txt").read_text())
    assert [(g.index, g.compute_capability) for g in csv.snapshot.gpus] == [(0, "8.9"), (1, "8.9")]
    assert facts(csv)["driver.version"] == "550.54.14"
    header = read((CORPUS / "nvidia-docker-747-k80-query-csv.txt").read_text())
    assert header.snapshot.gpus[0].name == "Tesla K80" and header.snapshot.gpus[0].pci_bus_id == "00000000:00:1E.0"
    xml = read((SAMPLES / "smi-xml.txt").read_text())
    assert facts(xml)["driver.version"] == "430.64" and xml.snapshot.gpus[0].name == "GeForce GTX 1660 Ti"
    proc = read((CORPUS / "pytorch-131312-nvjitlink.txt").read_text())
    assert facts(proc)["driver.version"] == "550.90.07" and facts(proc)["driver.kernel_module"] == "proprietary"


def test_nvidia_smi_failure_messages_are_facts():
    mismatch = read("$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n")
    assert mismatch.snapshot.driver.nvml.value == "LibRmVersionMismatch"
    nodrv = read((CORPUS / "qixuema-envs-4-no-driver.txt").read_text())
    assert nodrv.snapshot.driver.kernel_module.value == "not-loaded"
    assert nodrv.snapshot.cuda_runtimes[0].nvcc == "10.0.130"
    none = read("$ nvidia-smi\nNo devices were found\n")
    assert none.snapshot.gpus == ()


def test_nvcc_and_device_query():
    d = read((CORPUS / "seamless-167-wsl-devicequery.txt").read_text())
    g = d.snapshot.gpus[0]
    assert (g.name, g.compute_capability, g.memory_total_mib) == ("NVIDIA GeForce RTX 3060 Ti", "8.6", 8192)
    assert facts(d)["driver.cuda_api"] == "12.2" and d.snapshot.system.wsl.value is True
    nvcc = read((CORPUS / "deepspeed-5312-nvcc118-torch-cu12.txt").read_text())
    assert nvcc.snapshot.cuda_runtimes[0].nvcc == "11.8.89"
    assert facts(nvcc)["torch.version"] == "2.2.1" and facts(nvcc)["torch.build"] == "cuda"  # pip show Requires cu12


def test_package_lists():
    d = read((SAMPLES / "packages.txt").read_text())
    got = facts(d)
    assert got["torch.version"] == "2.5.1" and got["cudnn"] == "pip 9.1.0.70" and got["nccl"] == "pip 2.21.5"
    assert got["torch.cudnn"] == "8.9.2" and got["torch.cuda"] == "12.1"  # conda build string
    kinds = {(r.kind, r.version) for r in d.snapshot.cuda_runtimes}
    assert kinds == {("conda", "11.3.1"), ("pip", "12.4.127")}
    listed = read((CORPUS / "pytorch-131312-nvjitlink.txt").read_text())
    assert facts(listed)["torch.version"] == "2.5.0.dev20240720+cu124" and facts(listed)["torch.cuda"] == "12.4"
    tagged = read((CORPUS / "neg-pytorch-51858-windows-gtx1050ti.txt").read_text())
    assert sources(tagged)["torch.version"] == "collect_env line 2"


def test_companion_library_builds_from_their_package_names():
    # DGL: the CPU and CUDA builds share one name; the CUDA wheels from its index carry +cuXXX.
    cpu_dgl = facts(read((CORPUS / "dgl-5427-cpu-dgl-with-cuda-torch.txt").read_text()))
    assert cpu_dgl["dgl.build"] == "cpu" and cpu_dgl["dgl.version"] == "1.0.1"
    cuda_dgl = facts(read("torch==2.1.0+cu118\ndgl==1.1.2+cu118\n"))
    assert cuda_dgl["dgl.build"] == "cuda" and cuda_dgl["dgl.cuda"] == "11.8"
    # Beside a CPU torch a plain dgl may be a source build for the GPU: left unknown.
    assert "dgl.build" not in facts(read("torch==2.1.0\ndgl==1.1.2\n"))
    named = facts(read("mxnet-cu112==1.9.1\npaddlepaddle-gpu==2.5.1.post117\n"))
    assert (named["mxnet.build"], named["mxnet.cuda"]) == ("cuda", "11.2")
    assert (named["paddle.build"], named["paddle.cuda"]) == ("cuda", "11.7")
    listed = facts(read("Package        Version\n-------------- -------\nmxnet          1.9.1\npaddlepaddle   2.6.1\n"))
    assert listed["mxnet.build"] == "cpu" and listed["paddle.build"] == "cpu"
    asked = facts(read((CORPUS / "mxnet-20279-cu112-wheel-missing-cuda-libs.txt").read_text()))
    assert (asked["mxnet.build"], asked["mxnet.cuda"]) == ("cuda", "11.2")  # from `pip install mxnet-cu112`


def test_ds_report():
    d = read((SAMPLES / "ds-report.txt").read_text())
    got = facts(d)
    assert got["torch.version"] == "1.9.0" and got["torch.cuda"] == "11.1"
    assert d.snapshot.cuda_runtimes[0].nvcc == "10.1"
    assert got["system.dev_shm"] == "64.00 MB" and got["system.python"] == "3.7"
    assert sources(d)["torch.cuda"] == "ds_report line 13"


def test_jax_print_environment_info():
    d = read((SAMPLES / "jax-env.txt").read_text())
    got = facts(d)
    assert got["jax.version"] == "0.5.2" and got["jax.build"] == "cuda" and got["jax.is_available"] == "yes"
    assert got["gpus[0].name"] == "NVIDIA GeForce RTX 4060 Laptop GPU"
    assert got["system.kernel"] == "6.14.6-arch1-1" and got["driver.version"] == "570.144"
    cpu = read((CORPUS / "jax-20519-unable-load-cudnn.txt").read_text())
    assert facts(cpu)["jax.is_available"] == "no"


def test_tensorflow_build_info_and_logs():
    d = read((SAMPLES / "tf-build-info.txt").read_text())
    got = facts(d)
    assert got["tensorflow.cuda"] == "11.2" and got["tensorflow.cudnn"] == "8"
    assert got["tensorflow.arch_list"] == "sm_35 sm_50 sm_60 sm_86 compute_86"
    assert got["gpus[0].compute_capability"] == "8.6"
    win = read((CORPUS / "tf-50217-windows-cudnn-805.txt").read_text())  # build['cuda_version'] = 64_112
    assert facts(win)["tensorflow.cuda"] == "11.2" and facts(win)["tensorflow.cudnn"] == "8.1.0"


@pytest.mark.parametrize("name, version, cudnn, gpu", [
    ("tf-42199-libcudnn7.txt", "2.3.0", "8.0.2.39", "GTX 1050 Mobile"),  # old bullets
    ("tf-60854-libcudnn8.txt", "2.8.0", "8", "RTX 3080"),  # ### headings
    ("tf-45200-centos-1080ti.txt", "2.5.0", None, "GeForce GTX 1080 Ti"),
])
def test_tensorflow_issue_template(name, version, cudnn, gpu):
    d = read((CORPUS / name).read_text())
    got = facts(d)
    assert got["tensorflow.version"] == version
    assert cudnn is None or any(lib.version == cudnn for lib in d.snapshot.cudnn)
    assert any(gpu in g.name for g in d.snapshot.gpus)
    assert "TensorFlow issue template" in d.formats


@pytest.mark.parametrize("installed_from, installed_using, tested_cuda", [
    ("From source", "", None), ("binary", "", "11.0"), ("source", "conda", "11.0"), ("source", "pip3", "11.0"),
    ("source", "bazel 3.1", None)])
def test_a_source_build_of_tensorflow_is_not_the_tested_configuration(installed_from, installed_using, tested_cuda):
    # A build of one's own has the CUDA ./configure was given: tensorflow.org's tested
    # configuration for 2.4 (CUDA 11.0) describes only the published wheels. "Installed
    # using conda/pip" is a released binary, whatever the "installed from" answer says.
    d = read(f"**System information**\n- TensorFlow installed from (source or binary): {installed_from}\n"
             f"- TensorFlow version: 2.4.1\n- Installed using virtualenv? pip? conda?: {installed_using}\n"
             "- CUDA/cuDNN version:  10.1/8\n")
    assert facts(d).get("tensorflow.cuda") == tested_cuda


@pytest.mark.parametrize("gpu, missing", [("GeForce GTX 960M", True), ("GeForce GTX 1080", False)])
def test_tensorflow_23_pip_build_has_sass_for_52_not_50(gpu, missing):
    # TF 2.3's release build: sm_35,sm_37,sm_52,sm_60,sm_61,compute_70 (its pip build script).
    from gpudoctor.diagnose.findings import diagnose_report
    m = load_matrices(overlay=None)
    d = read_paste(f"I installed TensorFlow 2.3.0 on Ubuntu 18.04\nGPU model and memory: NVIDIA {gpu}\n",
                   matrices=m, debug=True)
    codes = {f.code for f in diagnose_report(d, m).findings}
    assert ("GD301" in codes) is missing


@pytest.mark.parametrize("listing, build", [
    ("tensorflow 1.14.0\n", "cpu"),  # up to 1.14 (and in 2.0) `tensorflow` is the CPU-only wheel
    ("tensorflow 1.14.0\ntensorflow-gpu 1.14.0\n", "cuda"),
    ("tensorflow 1.15.0\n", "cuda"),  # from 1.15 the `tensorflow` wheel includes GPU support
    ("tensorflow 1.14.0\ntensorflow-base 1.14.0\n", None),  # conda: tensorflow-base carries the build
])
def test_which_tensorflow_wheel_is_the_gpu_build(listing, build):
    d = read("Package    Version\n---------- -------\n" + listing.replace(" ", "    ") + "OS: Ubuntu 18.04\n")
    assert facts(d).get("tensorflow.build") == build


@pytest.mark.parametrize("line, build", [
    ("2018-03-23 11:55:55.959752: E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn handle",
     "cuda"),
    (r"I c:\tf_jenkins\home\workspace\release-win\device\gpu\os\windows\tensorflow\core\common_runtime\gpu"
     r"\gpu_device.cc:948] Ignoring visible gpu device", "cuda"),
    # jaxlib's log names the same file under external/org_tensorflow: no TensorFlow there
    ("I external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_driver.cc:1163] failed call", None),
])
def test_a_tensorflow_log_from_a_cuda_only_source_file_says_the_build_is_cuda(line, build):
    assert facts(read(line + "\n")).get("tensorflow.build") == build


def test_tensorflow_1x_tested_configuration_and_the_driver_it_needs():
    # TF 1.5 was built against CUDA 9.0 (its release notes), which needs driver >= 384.81 on Linux.
    from gpudoctor.diagnose.findings import diagnose_report
    m = load_matrices(overlay=None)
    d = read_paste("E tensorflow/stream_executor/cuda/cuda_dnn.cc:393] possibly insufficient driver version: "
                   "384.69.0\ntensorflow version: 1.5.0\nDriver Version: 384.69\n", matrices=m, debug=True)
    assert facts(d)["tensorflow.cuda"] == "9.0"
    assert "GD201" in {f.code for f in diagnose_report(d, m).findings}


def test_app_banners():
    comfy = read((CORPUS / "neg-comfyui-8010-rtx4090-cu128.txt").read_text())
    assert facts(comfy)["torch.version"] == "2.7.0+cu128" and facts(comfy)["system.os"] == "windows"
    assert comfy.snapshot.gpus[0].name == "NVIDIA GeForce RTX 4090"
    block = read((CORPUS / "neg-comfyui-7063-system-info.txt").read_text())
    assert block.snapshot.gpus[0].memory_total_mib == 24092 and facts(block)["torch.version"] == "2.6.0+cu126"
    ultra = read((CORPUS / "neg-sunone-36-ultralytics-gtx1650s.txt").read_text())
    g = ultra.snapshot.gpus[0]
    assert (g.name, g.memory_total_mib) == ("NVIDIA GeForce GTX 1650 SUPER", 4096)
    assert facts(ultra)["torch.version"] == "2.1.1+cu121" and facts(ultra)["system.os"] == "windows"
    yolo5 = read((CORPUS / "yolov5-2389-driver-435.txt").read_text())
    assert facts(yolo5)["torch.version"] == "1.7.1"


# llama.cpp's llama_print_system_info() line, in the shape it prints it (llama.cpp's llama.cpp, 2024).
LLAMA_SYSTEM_INFO = ("system_info: n_threads = 8 / 16 | AVX = 1 | AVX_VNNI = 0 | AVX2 = 1 | AVX512 = 0 | FMA = 1 | "
                     "NEON = 0 | ARM_FMA = 0 | F16C = 1 | FP16_VA = 0 | WASM_SIMD = 0 | BLAS = {} | SSE3 = 1 | "
                     "SSSE3 = 1 | VSX = 0 | MATMUL_INT8 = 0 | ")


def test_llama_cpp_blas_0_is_a_build_without_cuda():
    quoted = read((CORPUS / "llamacpppy-787-blas0-after-update.txt").read_text())
    assert facts(quoted)["llama-cpp-python.build"] == "cpu"
    assert facts(read(LLAMA_SYSTEM_INFO.format(0)))["llama.cpp.build"] == "cpu"
    assert "llama.cpp.build" not in facts(read(LLAMA_SYSTEM_INFO.format(1)))
    # A Metal build (Apple) has no BLAS either, and does use the GPU.
    metal = read("ggml_metal_init: found device: Apple M2 Pro\n" + LLAMA_SYSTEM_INFO.format(0))
    assert "llama.cpp.build" not in facts(metal)
    # Without llama.cpp's context, "BLAS = 0" is some other tool's.
    assert not any(k.endswith(".build") for k in facts(read("numpy config: BLAS = 0 | LAPACK = 1")))


def test_free_text_lines():
    d = read((SAMPLES / "freetext.txt").read_text())
    got = facts(d)
    assert got["torch.version"] == "2.6.0+cu126" and got["driver.version"] == "572.16"
    assert got["gpus[0].name"] == "RTX 5090" and got["system.python"] == "3.12"
    assert got["system.wsl"] == "yes" and got["system.os"] == "linux"  # under WSL2, Windows is the host
    assert got["cuda_runtimes"] == "stated 12.8"
    # Everything read from the paste is from its free text; "gpudoctor ..." reads are derived from the matrices.
    assert all(r.source.startswith(("free text line", "gpudoctor ")) for r in d.reads)
    assert any(r.source.startswith("free text line") for r in d.reads)


def test_tool_output_outranks_free_text():
    d = read("my driver is 550.54.14\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n")
    assert facts(d)["driver.version"] == "535.104.05"
    assert any("550.54.14" in c for c in d.conflicts)


def test_prose_gpu_names_do_not_add_gpus_once_a_tool_listed_them():
    d = read("GPU 0: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-0b2c1f4e-6a7d-4e1b-8c2d-3e4f5a6b7c8d)\n"
             "it works on my friend's RTX 3090 though\n")
    assert [g.name for g in d.snapshot.gpus] == ["NVIDIA GeForce GTX 1080 Ti"]


def test_error_lines_give_facts():
    d = read("", error=(CORPUS / "comfyui-docker-61-gtx1080ti.txt").read_text())
    got = facts(d)
    assert got["gpus[0].compute_capability"] == "6.1" and got["torch.cc_min"] == "7.0"
    assert sources(d)["torch.cc_min"].startswith("--error: PyTorch warning line")
    drv = read("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).")
    assert facts(drv)["driver.cuda_api"] == "11.4"
    tf = read((CORPUS / "tf-3922-cudnn-5103.txt").read_text())
    assert facts(tf)["tensorflow.cudnn"] == "4.0.7" and facts(tf)["tensorflow.cudnn_runtime"] == "5.1.3"
    bf16 = read((CORPUS / "vllm-1153-t4-bf16.txt").read_text())
    assert bf16.snapshot.gpus[0].name == "Tesla T4" and bf16.snapshot.gpus[0].compute_capability == "7.5"


def test_gpu_names_get_compute_capability_from_the_gpu_table():
    d = read("| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |\n"
             "|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |\n")
    g = d.snapshot.gpus[0]
    assert g.compute_capability == "7.5"
    assert sources(d)["gpus[0].compute_capability"].startswith("gpudoctor GPU table")


def test_what_a_paste_does_not_show_stays_unknown():
    d = read("Cuda compilation tools, release 12.4, V12.4.131\n")
    s = d.snapshot
    assert s.gpus is None and s.frameworks is None and s.cudnn is None
    assert not s.driver.version.known and not s.system.os.known


@pytest.mark.parametrize("path, framework", [
    ("tensorflow/stream_executor/cuda/cuda_dnn.cc:389", "tensorflow"),
    ("tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417", "tensorflow"),  # TF 2.12-2.14
    ("external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261", "tensorflow"),  # TF 2.15 on
    ("external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439", "jax"),
    ("external/org_tensorflow/tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:389", "jax"),  # old jaxlib
])
def test_the_cudnn_version_message_belongs_to_the_framework_its_source_path_names(path, framework):
    line = (f"2023-06-15 13:22:41.902381: E {path}] Loaded runtime CuDNN library: 8.5.0 but source was compiled "
            "with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version.\n")
    s = read_paste("tensorflow and jax are both installed\n" + line, matrices=load_matrices(overlay=None)).snapshot
    assert [(fw.name, fw.deep.cudnn_runtime) for fw in s.frameworks or () if fw.deep] == [(framework, "8.5.0")]


def test_a_framework_that_answered_without_its_cudnn_beside_a_cudnn_mismatch_is_judged():
    from gpudoctor.diagnose.findings import diagnose_report
    m = load_matrices(overlay=None)
    paste = ("torch.cuda.is_available() returns True\n"
             "E tensorflow/stream_executor/cuda/cuda_dnn.cc:389] Loaded runtime CuDNN library: 8.5.0 but source was "
             "compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor "
             "version.\n")
    report = diagnose_report(read_paste(paste, matrices=m), m)  # torch answered, its cuDNN runtime unknown
    assert "cudnn-version-mismatch" in {f.category for f in report.findings}


@pytest.mark.parametrize("name, cc", [
    ("Quadro 4000 Mac Edition", "2.0"),  # a Fermi Quadro, never the RTX PRO 4000 Blackwell of the same number
    ("GeForce GT 625M", "2.1"),
])
def test_a_gpu_name_never_borrows_another_lines_compute_capability(name, cc):
    from gpudoctor.diagnose.build import gpu_model
    m = load_matrices(overlay=None)
    assert gpu_model(m, name) is None
    snap = read_paste(f"GPU 0: {name}\n", matrices=m).snapshot
    assert [g.compute_capability for g in snap.gpus] == [cc]


@pytest.mark.parametrize("value, names", [
    ("24", []), ("N/A", []), ("8GB", []), ("none", []),  # a memory size or a placeholder names no GPU
    ("RTX 2070 8GB", ["RTX 2070"]), ("Quadro something", ["Quadro something"]),
])
def test_the_tf_templates_gpu_field_names_a_gpu_only_when_it_holds_one(value, names):
    snap = read_paste(f"- GPU model and memory: {value}\n", matrices=load_matrices(overlay=None)).snapshot
    assert [g.name for g in snap.gpus or ()] == names
