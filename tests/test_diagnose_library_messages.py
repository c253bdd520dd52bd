"""Messages read from libraries' own source, judged in a paste: what the code that
prints them checks, not what their words say."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices


def _outcomes(paste: str) -> set[tuple[str, str, Severity]]:
    m = load_matrices(overlay=None)
    return {(f.code, f.category, f.severity) for f in diagnose_report(read_paste(paste, matrices=m), m).findings}


XGB_CPU_ONLY = ("[10:22:33] WARNING: /workspace/src/context.cc:218: Device is changed from GPU to CPU as we couldn't "
                "find any available GPU on the system.\n")
XGB_NO_GPU = "[10:22:33] WARNING: /workspace/src/context.cc:55: No visible GPU is found, setting device to CPU.\n"


def test_xgboosts_device_change_alone_is_its_cpu_only_build():
    # A build without CUDA prints only this line for device="cuda" (src/context.cc).
    assert ("GD808", "cpu-only-build", Severity.ERROR) in _outcomes(XGB_CPU_ONLY)


def test_xgboosts_device_change_after_no_visible_gpu_is_a_cuda_build_that_counted_none():
    outcomes = _outcomes(XGB_NO_GPU + XGB_CPU_ONLY)
    assert not any(code == "GD808" for code, _, _ in outcomes)


@pytest.mark.parametrize("message", [
    "NotImplementedError: Unsloth cannot find any torch accelerator? You need a GPU.",
    "OSError: Unknown compute capability. Ensure PyTorch with CUDA support is installed.",  # tiny-cuda-nn
    "SystemError: Accelerator is not detected, cannot perform low precision training (e.g., fp16, bf16).",  # DeepSpeed
    XGB_NO_GPU.strip(),
    "lightning.fabric.utilities.exceptions.MisconfigurationException: `CUDAAccelerator` can not run on your system "
    "since the accelerator is not available.",
])
def test_a_library_that_sees_no_cuda_inside_a_container_is_the_containers_missing_gpu(message):
    # The words name no cause; where the program runs does (GD820).
    paste = "inside the docker container: python train.py\n" + message + "\n"
    assert ("GD820", "container-no-gpu", Severity.WARNING) in _outcomes(paste)
    assert not any(code == "GD820" for code, _, _ in _outcomes("on my workstation: python train.py\n" + message + "\n"))


@pytest.mark.parametrize("message, code, category, severity", [
    # faiss: "not compiled" in its words, the GPU's capability in its check (supportsBFloat16CurrentDevice)
    ("Error in void faiss::gpu::bfKnn(faiss::gpu::GpuResourcesProvider*, const faiss::gpu::GpuDistanceParams&) at "
     "/project/faiss/faiss/gpu/GpuDistance.cu:412: not compiled with bfloat16 support",
     "GD812", "precision-unsupported", Severity.ERROR),
    # tiny-cuda-nn's build falls back to an older architecture: the toolkit is too old for the GPU (a warning: the
    # same major runs)
    ("WARNING: Compute capabilities [120] are not all supported by the installed CUDA version 12.4. Targeting [90] "
     "instead.", "GD850", "arch-too-new-for-cuda", Severity.WARNING),
    # a warning where the library goes on without the feature, an error where it stops
    ("Device does not support bfloat16. Will change to float16.", "GD850", "precision-unsupported", Severity.WARNING),
    ("NotImplementedError: Using quantized Marlin models requires a GPU with CUDA capability 8.0 or later.",
     "GD812", "precision-unsupported", Severity.ERROR),
])
def test_a_library_message_is_judged_by_what_its_code_checks(message, code, category, severity):
    assert (code, category, severity) in _outcomes(message + "\n")


@pytest.mark.parametrize("gpu, category", [
    ("RTX 4050", "cpu-only-build"),  # 8.9 has float16: CTranslate2 refuses it only on the CPU
    ("GTX 1080", "precision-unsupported"),  # 6.1: below the 7.0 CTranslate2 allows float16 from
])
def test_ctranslate2s_refused_float16_is_judged_by_the_gpu(gpu, category):
    paste = (f"My {gpu} laptop.\nValueError: Requested float16 compute type, but the target device or backend do "
             "not support efficient float16 computation.\n")
    assert ("GD812", category, Severity.ERROR) in _outcomes(paste)


def test_bitsandbytes_without_libcuda_under_wsl_is_the_wsl_library_path():
    paste = ("WSL CUDA install on Windows 10: GPU not detected\n"
             "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, "
             "8-bit multiplication, and GPU quantization are unavailable.\n"
             "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed?\n")
    outcomes = _outcomes(paste)
    assert ("GD813", "wsl", Severity.ERROR) in outcomes
    assert not any(code == "GD808" for code, _, _ in outcomes)  # its CPU library is the consequence


NVCC_117 = "Cuda compilation tools, release 11.7, V11.7.99\n"


@pytest.mark.parametrize("command, warned", [
    ("python setup.py build_ext\n", True),
    ("python train.py\n", False),  # no build: torch's own sm_86 code runs on the 8.9 GPU
])
def test_an_extension_build_with_an_nvcc_older_than_the_gpu_is_a_warning(command, warned):
    paste = "failed building from source with nvidia rtx 4080\n" + command + NVCC_117
    assert (("GD817", "arch-too-new-for-cuda", Severity.WARNING) in _outcomes(paste)) is warned


@pytest.mark.parametrize("row", [
    "_pytorch_select           0.1                       cpu_0",  # Anaconda's variant selector
    "pytorch-mutex             1.0                         cpu    pytorch",
    "cpuonly                   2.0                           0    pytorch",
])
def test_condas_variant_packages_say_torch_is_the_cpu_build(row):
    paste = "# Name                    Version                   Build  Channel\n" + row + "\n"
    m = load_matrices(overlay=None)
    torch = read_paste(paste, matrices=m).snapshot.framework("torch")
    assert torch is not None and torch.build.value == "cpu"


NVENC_MINIMUM = "[h264_nvenc @ 0x55d0c] The minimum required Nvidia driver for nvenc is 470.57.02 or newer\n"


def test_ffmpegs_minimum_nvenc_driver_alone_is_a_warning_about_the_driver():
    assert ("GD850", "driver-too-old-for-runtime", Severity.WARNING) in _outcomes(NVENC_MINIMUM)
    # after a libnvidia-encode that does not load, the missing library is the cause (FFmpeg prints both)
    outcomes = _outcomes("[h264_nvenc @ 0x55d0c] Cannot load libnvidia-encode.so.1\n" + NVENC_MINIMUM)
    assert not any(cat == "driver-too-old-for-runtime" for _, cat, _ in outcomes)


@pytest.mark.parametrize("where, category", [
    ("NCCL error with multi gpu on windows\n", "python-version-unsupported"),  # no NCCL in PyTorch's Windows builds
    ("on our Ubuntu 22.04 cluster\n", "cpu-only-build"),
])
def test_pytorchs_missing_nccl_is_the_platform_on_windows_and_the_build_elsewhere(where, category):
    paste = where + "RuntimeError: Distributed package doesn't have NCCL built in\n"
    assert ("GD808", category, Severity.ERROR) in _outcomes(paste)


@pytest.mark.parametrize("where, category", [
    ("(venv) E:\\AI\\venv\\lib\\site-packages\\bitsandbytes\\cuda_setup\\main.py:149: UserWarning\n",
     "python-version-unsupported"),  # no Windows CUDA build before 0.43
    ("/home/me/venv/lib/python3.10/site-packages/bitsandbytes/cuda_setup/main.py:149: UserWarning\n", "no-driver"),
])
def test_old_bitsandbytes_without_libcuda_is_the_platform_on_windows(where, category):
    paste = where + "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed?\n"
    assert ("GD813", category, Severity.ERROR) in _outcomes(paste)


def test_two_builds_of_one_module_named_in_a_sentence_are_a_conflict():
    paste = "I had installed both onnxruntime and onnxruntime-gpu.\n"
    assert ("GD510", "library-conflict", Severity.WARNING) in _outcomes(paste)
    assert not any(code == "GD510" for code, _, _ in _outcomes("I had installed both onnxruntime and numpy.\n"))


@pytest.mark.parametrize("image, category", [
    ("dustynv/ros:noetic-pytorch-l4t-r32.5.0", "container-no-gpu"),  # JetPack 4: the runtime mounts CUDA in
    ("nvcr.io/nvidia/l4t-base:r32.7.1", "container-no-gpu"),
    ("dustynv/l4t-pytorch:r35.2.1", "cudnn-missing"),  # JetPack 5 images carry their own CUDA: the message alone
])
def test_a_cuda_library_missing_in_an_l4t_r32_container_is_a_start_without_the_nvidia_runtime(image, category):
    paste = (f"docker run -it {image}\n>>> import torch\n"
             "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n")
    outcomes = _outcomes(paste)
    assert ("GD807", category, Severity.ERROR) in outcomes, outcomes
