"""GD8xx (findings read from error messages): bad.txt raises the code, good.txt does not."""

from pathlib import Path

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.catalog import load_catalog
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices
from gpudoctor.rules.registry import RULES, all_rules

FIXTURES = Path(__file__).parent / "rules"
CODES = [r.code for r in all_rules() if r.family == "diagnose"]


def codes_of(path: Path) -> set[str]:
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(path.read_bytes(), matrices=m, debug=True), m, debug=True)
    return {f.code for f in report.findings}


def _categories(paste: str, code: str) -> list[str]:
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    return [f.category for f in report.findings if f.code == code]


@pytest.mark.parametrize("code", CODES)
def test_bad_paste_raises_the_code(code):
    assert code in codes_of(FIXTURES / code / "bad.txt")


@pytest.mark.parametrize("code", CODES)
def test_good_paste_does_not(code):
    assert code not in codes_of(FIXTURES / code / "good.txt")


def test_every_diagnose_code_has_no_snapshot_check_and_is_raised_by_the_catalogue():
    raised = {e.code for e in load_catalog() if e.code}
    assert set(CODES) == raised | {"GD820"}  # GD820 judges what the other findings leave unexplained
    assert all(RULES[c].check is None for c in CODES)


def test_catalogue_codes_and_related_codes_exist():
    for e in load_catalog():
        assert e.code is None or e.code in RULES, e.id
        assert all(c in RULES for c in e.related), e.id


@pytest.mark.parametrize("installed,category", [
    ("CUDA Version: 10.2 (the toolkit)\nnvcc: Cuda compilation tools, release 10.2, V10.2.89\n", "cudnn-missing"),
    ("nvcc: Cuda compilation tools, release 9.0, V9.0.176\n", "framework-cuda-mismatch"),
    ("I installed it on a CUDA 10 system\n", "cudnn-missing"),  # the same major: 10.0 or 10.2 cannot be told
    ("I installed it on a CUDA 9 system\n", "framework-cuda-mismatch"),  # another major, whatever its minor
    ("", "cudnn-missing"),  # nothing else shown: what the message says, a library not found
])
def test_a_missing_cuda_library_of_the_installed_cuda_is_a_missing_library(installed, category):
    paste = installed + "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n"
    assert _categories(paste, "GD807") == [category]


@pytest.mark.parametrize("installed,category", [
    ("nvcc: Cuda compilation tools, release 11.2, V11.2.152\n", "cudnn-missing"),  # TF 2.7's own CUDA
    ("nvcc: Cuda compilation tools, release 11.4, V11.4.48\n", "framework-cuda-mismatch"),  # 11.x, not 11.2
    ("", "framework-cuda-mismatch"),
])
def test_tensorflows_missing_library_is_judged_against_the_cuda_its_build_wants(installed, category):
    # "libcudart.so.11.0" names every CUDA 11; TensorFlow 2.7's tested build wants 11.2.
    paste = (installed + "TensorFlow version: 2.7.0\n"
             "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
             "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or "
             "directory\n")
    assert [f.category for f in _findings(paste) if f.code == "GD818"] == [category]


@pytest.mark.parametrize("installed,category", [
    ("nvcc: Cuda compilation tools, release 11.1, V11.1.105\n", "cudnn-missing"),
    ("nvcc: Cuda compilation tools, release 11.5, V11.5.119\n", "framework-cuda-mismatch"),  # a cupy-cuda111 wheel
    ("nvcc: Cuda compilation tools, release 12.4, V12.4.131\n", "framework-cuda-mismatch"),
])
def test_a_library_name_with_a_cuda_minor_is_compared_with_that_minor(installed, category):
    paste = installed + "ImportError: libnvrtc.so.11.1: cannot open shared object file: No such file or directory\n"
    assert [f.category for f in _findings(paste) if f.code == "GD807"] == [category]


def test_cudnn_loading_a_library_of_another_cuda_is_a_conflict_not_a_missing_cudnn():
    found_wrong = ("Could not load library libcudnn_cnn_infer.so.8. Error: /opt/cuda/8.0/lib64/libnvrtc.so: "
                   "undefined symbol: nvrtcGetCUBIN\n")
    assert {(f.code, f.category) for f in _findings(found_wrong) if f.severity.value == "error"} == \
        {("GD810", "library-conflict")}
    absent = ("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared "
              "object file: No such file or directory\n")
    assert {(f.code, f.category) for f in _findings(absent) if f.severity.value == "error"} == \
        {("GD805", "cudnn-missing")}


@pytest.mark.parametrize("shown,category", [
    # torch's own folder holds cuDNN 9: another package wants 8 on the same search path
    ("Directory of C:\\venv\\Lib\\site-packages\\torch\\lib: cudnn_ops64_9.dll cudnn64_9.dll\n", "library-conflict"),
    ("ls venv/lib/python3.10/site-packages/torch/lib/libcudnn_ops_infer.so.8\n", "cudnn-missing"),  # the same major
    ("torch 2.6.0\n", "cudnn-missing"),  # its cuDNN comes from gpudoctor's matrices, not from the paste
])
def test_a_cudnn_major_missing_beside_a_framework_bringing_another_is_a_conflict(shown, category):
    paste = shown + "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n"
    assert [f.category for f in _findings(paste) if f.code == "GD805"] == [category]


@pytest.mark.parametrize("gpu,category", [("I have a 3060 and an i9\n", "cpu-only-build"), ("", None)])
def test_a_runs_on_the_cpu_message_beside_a_gpu_warns(gpu, category):
    m = load_matrices(overlay=None)
    paste = gpu + 'UserWarning: FP16 is not supported on CPU; using FP32 instead\n'
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f.category for f in report.findings if f.severity.value in ("error", "warning")] == \
        ([category] if category else [])


def _findings(paste: str):
    m = load_matrices(overlay=None)
    return diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True).findings


@pytest.mark.parametrize("stated,category", [("The cuda is 12.6 and the cudnn is 9.3.\n", "cudnn-version-mismatch"),
                                             ("", "cudnn-missing")])
def test_onnxruntime_names_the_cudnn_major_it_wants(stated, category):
    line = ("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 CreateExecutionProviderInstance] Failed to "
            "create CUDAExecutionProvider. Require cuDNN 8.* and CUDA 12.*. Please install all dependencies\n")
    assert [f.category for f in _findings(stated + line) if f.code == "GD805"] == [category]


def test_paddle_device_notice_gives_the_gpu_and_the_wheels_cuda():
    log = ("W0214 14:20:51.479054 24961 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, "
           "Driver API Version: 11.4, Runtime API Version: 10.2\n"
           "W0214 14:20:51.479620 24961 device_context.cc:465] device: 0, cuDNN Version: 8.3.\n"
           "RuntimeError: parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for "
           "execution on the device\n")
    m = load_matrices(overlay=None)
    d = read_paste(log, matrices=m, debug=True)
    paddle = d.snapshot.framework("paddle")
    assert (paddle.cuda.value, paddle.cudnn.value, d.snapshot.driver.cuda_api.value) == ("10.2", "8.3", "11.4")
    assert [g.compute_capability for g in d.snapshot.gpus] == ["8.6"]
    # CUDA 10.2 cannot compile for sm_86: the build predates the GPU
    assert [f.category for f in _findings(log) if f.code == "GD801"] == ["arch-too-new-for-cuda"]


_TORCH_CUDNN_DIFFERS = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 3, 2) but "
                        "linked against (8, 0, 3)\n")


@pytest.mark.parametrize("shown,category", [
    ("$ echo $LD_LIBRARY_PATH\n/apps/cudnn/v8.0.3.33-cuda.11.0/lib64:/apps/cuda/11.0/lib64\n", "library-conflict"),
    ("export LD_LIBRARY_PATH=/opt/cudnn-8.0.3/lib64:$LD_LIBRARY_PATH\n", "library-conflict"),
    ("$ echo $LD_LIBRARY_PATH\n/apps/cudnn/v8.9.2/lib64\n", "cudnn-version-mismatch"),  # not the cuDNN it loaded
    ("", "cudnn-version-mismatch"),
])
def test_the_cudnn_torch_loaded_sitting_on_ld_library_path_is_a_shadowing_system_library(shown, category):
    found = [f for f in _findings(shown + _TORCH_CUDNN_DIFFERS) if f.code == "GD806"]
    assert [f.category for f in found] == [category]
    if category == "library-conflict":
        assert any(e.fact == "cudnn.ld_library_path" for e in found[0].evidence)


def test_tensorflows_cudnn_on_ld_library_path_is_its_only_cudnn_not_a_shadow():
    # TensorFlow before [and-cuda] loads the system cuDNN: a wrong one there is the wrong cuDNN installed.
    paste = ("$ echo $LD_LIBRARY_PATH\n/apps/cudnn/v8.0.4/lib64\n"
             "E tensorflow/stream_executor/cuda/cuda_dnn.cc:389] Loaded runtime CuDNN library: 8.0.4 but source was "
             "compiled with: 8.1.0.\n")
    assert "library-conflict" not in {f.category for f in _findings(paste)}


@pytest.mark.parametrize("stated,category", [("CUDA 11.6, cuDNN 8.4\n", "cudnn-missing"),
                                             ("CUDA 12.0, cuDNN 8.9\n", "framework-cuda-mismatch")])
def test_paddles_loader_message_names_the_library_and_so_its_cuda(stated, category):
    line = ("RuntimeError: (PreconditionNotMet) The third-party dynamic library (cublas64_11.dll) that Paddle depends "
            "on is not configured correctly. (error code is 126)\n")
    assert [f.category for f in _findings(stated + line) if f.code == "GD807"] == [category]
    cudnn = line.replace("cublas64_11.dll", "cudnn64_8.dll")
    assert [f.category for f in _findings(cudnn) if f.severity.value == "error"] == ["cudnn-missing"]


@pytest.mark.parametrize("stated,library,category", [
    ("CUDA 11.6\n", "cudnn64_7.dll", "framework-cuda-mismatch"),  # cuDNN 7 was released for CUDA 9 and 10 only
    ("CUDA 10.2\n", "cudnn64_7.dll", "cudnn-missing"),
    ("CUDA 11.6\n", "libcudnn.so.8", "cudnn-missing"),
    ("", "cudnn64_7.dll", "cudnn-missing"),  # the machine's CUDA not shown: the message alone
])
def test_a_cudnn_major_no_release_of_which_serves_the_installed_cuda_is_a_build_for_another_cuda(
        stated, library, category):
    line = (f"RuntimeError: (PreconditionNotMet) The third-party dynamic library ({library}) that Paddle depends "
            "on is not configured correctly. (error code is 126)\n")
    assert [f.category for f in _findings(stated + line) if f.code == "GD805"] == [category]


TCC_ROW = "|   0  NVIDIA L40S                  TCC   |   00000000:61:00.0 Off |                    0 |\n"
BUSY = "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"


@pytest.mark.parametrize("paste,categories", [
    ("Windows Server 2022\n" + TCC_ROW, []),  # native Windows: TCC is a compute driver model, nothing wrong
    ("WSL 2, Ubuntu 22.04\n" + TCC_ROW, ["wsl"]),  # WSL2 gets only WDDM GPUs
    ("Ubuntu 22.04\n" + BUSY, ["info"]),  # exclusive compute mode or a GPU in use
    ("Ubuntu 22.04 on WSL2\n" + BUSY, ["wsl"]),
])
def test_a_message_seen_from_wsl_takes_its_wsl_category(paste, categories):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f.category for f in report.findings if f.code == "GD850"] == categories


@pytest.mark.parametrize("before,categories", [
    ("", ["hardware-health"]),  # alone: the platform, power or the board
    ("NVRM: API mismatch: the client has the version 570.153.02, but\n", []),  # the driver's versions: GD804 says it
])
def test_rminitadapter_failed_defers_to_the_cause_before_it(before, categories):
    m = load_matrices(overlay=None)
    paste = before + "[   23.991672] NVRM: GPU 0000:07:00.0: RmInitAdapter failed! (0x61:0x56:1770)\n"
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f.category for f in report.findings if f.code == "GD850"] == categories


@pytest.mark.parametrize(("context", "severity", "category"), [
    # nothing says a container hid it: the bare machine's driver sees no GPU, or CUDA_VISIBLE_DEVICES hides it
    ("", "warning", "no-driver"),
    ("$ docker run -it pytorch/pytorch python train.py\n", "error", "container-no-gpu"),
    ("Linux host 5.15.153.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n", "error", "wsl"),
])
def test_no_visible_device_is_an_error_only_behind_a_container_or_wsl(context, severity, category):
    m = load_matrices(overlay=None)
    d = read_paste(context + "RuntimeError: No CUDA GPUs are available\n", matrices=m, debug=True)
    (found,) = [f for f in diagnose_report(d, m, debug=True).findings if f.code == "GD809"]
    assert (found.severity.value, found.category) == (severity, category)


@pytest.mark.parametrize("path, category", [
    ("export LD_LIBRARY_PATH=/usr/local/cuda-12.2/lib64:$LD_LIBRARY_PATH\n", "library-conflict"),
    ("export LD_LIBRARY_PATH=/opt/intel/lib:$LD_LIBRARY_PATH\n", None),  # nothing of CUDA's on it
    ("", None),
])
def test_torchs_cudnn_check_with_a_cuda_directory_on_the_library_path_is_a_shadowing_cudnn(path, category):
    m = load_matrices(overlay=None)
    paste = path + ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found "
                    "runtime version (8, 6, 0). PyTorch already comes bundled with cuDNN.\n")
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    gd806 = [f.category for f in report.findings if f.code == "GD806"]
    assert gd806 == [category or "cudnn-version-mismatch"]


@pytest.mark.parametrize("where, category", [
    ("Ubuntu 22.04 under WSL2\n", "wsl"),
    ("Ubuntu 22.04 VM with an A100 and the GRID driver\n", "info"),  # vGPU, MIG, an old driver: not WSL's
])
def test_operation_not_supported_is_wsls_only_where_the_paste_shows_wsl(where, category):
    paste = where + "RuntimeError: CUDA error: operation not supported\n"
    assert _categories(paste, "GD850") == [category]


def test_a_dll_the_build_wants_beside_another_cuda_installed_is_a_cuda_mismatch():
    paste = ("pip install tensorflow-gpu==2.0.0-beta1\n"
             "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be installed in a "
             "directory that is named in your %PATH% environment variable. Download and install CUDA 10.0 from this URL\n"
             "indeed i have installed cuda 10.1\n")  # the message asks for 10.0; 10.1 is what is there
    assert _categories(paste, "GD807") == ["framework-cuda-mismatch"]


def test_a_cuda_named_package_in_a_sentence_says_the_builds_cuda():
    paste = ("安装的 paddlepaddle-gpu 2.1.0.post101，显卡GTX3090\n"
             "parallel_for failed: no kernel image is available for execution on the device\n")
    assert _categories(paste, "GD801") == ["arch-too-new-for-cuda"]  # CUDA 10.1 compiles nothing for sm_86


@pytest.mark.parametrize("where, category", [
    ("inside the docker container: python setup.py build install\n", ["container-no-gpu"]),
    ("on my workstation: python setup.py build install\n", []),
])
def test_an_extension_build_that_sees_no_cuda_is_judged_where_it_runs(where, category):
    paste = where + "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n"
    assert _categories(paste, "GD820") == category


def test_a_message_the_reporter_sets_aside_raises_nothing():
    paste = ("Yes, I am aware that Tensorflow warnings and `CUDA_ERROR_NOT_INITIALIZED` error should not affect GPU "
             "usage.\nnvidia-smi shows the GPU\n")
    assert _categories(paste, "GD816") == []


def test_a_rule_the_reporter_quotes_is_not_their_error_but_the_error_itself_is():
    quoted = ("It is said that bfloat16 is only supported on GPUs with compute capability of at least 8.0, which means "
              "a V100 should not support it.\n")
    assert _categories(quoted, "GD812") == []
    printed = "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0.\n"
    assert _categories(printed, "GD812") == ["precision-unsupported"]


@pytest.mark.parametrize("dockerfile, category", [
    ("FROM jrottenberg/ffmpeg:4.2-nvidia\n", ["container-no-gpu"]),  # a GPU image a Dockerfile starts from
    ("From NVIDIA's docs I read that it should work\n", ["no-driver"]),  # prose, not a Dockerfile
])
def test_a_dockerfiles_gpu_base_image_puts_the_paste_in_a_container(dockerfile, category):
    assert _categories(dockerfile + "Cannot load libcuda.so.1\n", "GD813") == category


@pytest.mark.parametrize("where, category", [
    ("docker run --gpus all alphafold3 python -c 'import jax'\n", ["driver-too-old-for-runtime"]),  # the image's libcuda
    ("", ["driver-library-mismatch"]),  # on a host: an upgrade not finished by a reboot
])
def test_a_libcuda_newer_than_the_kernel_module_is_judged_where_it_runs(where, category):
    line = ("E external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 535.183.6 does not match "
            "DSO version 560.35.3 -- cannot find working devices in this configuration\n")
    assert _categories(where + line, "GD804") == category


@pytest.mark.parametrize("line,code", [
    ("Error: CUDA error 209 at D:/xmrig/cuda/kernel.cu:52", "GD801"),  # today's numbering
    ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 cuda runtime error (48)", "GD801"),  # before 10.1
    ("F0312 common.cpp:152] Check failed: error == cudaSuccess (35 vs. 0)", "GD802"),  # Caffe's glog check
    ("cudaGetDeviceCount returned 100", "GD809"),
    ("Cuda driver error 999 in call at file 'lib/gpu/nvd_device.h'", "GD816"),
    ("CUresult 802 from cuInit", "GD816"),
    ('msg="Unable to load cudart library /usr/lib/libcuda.so.1: cuda driver library init failure: 804"', "GD802"),
    ("Unable to load cudart library /usr/lib/stubs/libcuda.so: cuda driver library init failure: 34", "GD810"),
])
def test_a_cuda_error_given_only_by_its_number_is_read_as_its_message(line, code):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(line, matrices=m), m)
    assert code in {f.code for f in report.findings}


@pytest.mark.parametrize("line", [
    "LoadLibrary failed with Error code 126",  # a Windows error number, not CUDA's
    "CUDA error 2.0 of the spec",  # a version, not a code
    "CUDA driver error 48",  # 48 was a runtime number only, never a CUresult
    "Cuda Error 77 Illegal Memory access",  # a fault of the program
])
def test_numbers_that_are_no_environment_fault_raise_nothing(line):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(line, matrices=m), m)
    assert not [f for f in report.findings if f.code.startswith("GD8") and f.code != "GD850"]


def test_the_hosts_module_loader_is_the_hosts_fault_beside_a_container():
    paste = ("[root@localhost ~]# nvidia-docker run --rm nvidia/cuda nvidia-smi\n"
             "nvidia-docker | 2017/01/16 16:55:02 Error: Could not load UVM kernel module\n"
             "[root@localhost ~]# nvidia-smi\n"
             "modprobe: FATAL: Module nvidia not found.\n")
    assert set(_categories(paste, "GD803")) >= {"no-driver"}
    # inside WSL 2 there are no /dev/nvidia* files: a WSL fault (GPUs reach containers through --gpus)
    wsl = ("Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n"
           'docker: Error response from daemon: error gathering device information while adding custom device '
           '"/dev/nvidia0": no such file or directory.\n')
    assert _categories(wsl, "GD803") == ["wsl"]


@pytest.mark.parametrize("driver, category", [
    ("550.78", "container-no-gpu"),  # runs CUDA 12.4: the runtime inside found no driver at all
    ("470.82.01", "driver-too-old-for-runtime"),  # CUDA 11.4 cannot run the image's 12.2
])
def test_an_insufficient_driver_in_a_container_whose_host_driver_suffices_is_a_container_without_the_gpu(
        driver, category):
    paste = (f"$ docker run --rm my-image:cuda12.2\nHost driver {driver}, the image uses CUDA 12.2\n"
             "CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version\n")
    assert _categories(paste, "GD802") == [category]


@pytest.mark.parametrize("where", ["I run it in a singularity container on our cluster.\n",
                                   "$ docker run --rm my-image:cuda12.2 python train.py\n",
                                   "kubectl logs my-pod\n"])
def test_an_insufficient_driver_in_a_container_with_no_driver_shown_is_also_a_container_without_the_gpu(where):
    # cudart says "insufficient driver" when it finds no libcuda at all: both causes, the confirm step tells them apart
    paste = where + "CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
    assert _categories(paste, "GD802") == ["driver-too-old-for-runtime", "container-no-gpu"]
    # on a bare machine only the driver is in question
    assert _categories(paste.replace(where, ""), "GD802") == ["driver-too-old-for-runtime"]


def test_a_cuda_library_jax_cannot_load_at_all_is_a_missing_library():
    paste = ("  File \"/env/lib/python3.11/site-packages/jax_plugins/xla_cuda12/__init__.py\", line 139, in _version_check\n"
             "RuntimeError: Unable to load cuSPARSE. Is it installed?\n")
    assert _categories(paste, "GD807") == ["cudnn-missing"]


@pytest.mark.parametrize("script, category", [
    ("import torch\nimport jax.numpy as jnp\n", "library-conflict"),  # torch's cuDNN is loaded first
    ("import jax.numpy as jnp\n", "cudnn-version-mismatch"),
])
def test_jaxs_cudnn_mismatch_beside_torch_in_one_script_is_two_libraries_loading_cudnn(script, category):
    paste = script + ("E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Loaded runtime CuDNN library: 8.5.0 "
                      "but source was compiled with: 8.6.0.\n")
    assert _categories(paste, "GD806") == [category]


def test_cudas_operating_system_error_is_wsls_inside_wsl():
    line = "ggml_cuda_init: failed to initialize CUDA: OS call failed or operation not supported on this OS\n"
    assert _categories(line, "GD804") == ["driver-library-mismatch"]
    wsl = "Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n" + line
    assert "wsl" in [f.category for f in _findings(wsl)]
