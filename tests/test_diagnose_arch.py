"""GD8xx findings about GPU architectures read from pastes: which side of a build, a
CUDA or a library's floor a GPU is on, with the build or the CUDA known or not."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices


def _categories(paste: str, code: str) -> list[str]:
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    return [f.category for f in report.findings if f.code == code]


def _findings(paste: str):
    m = load_matrices(overlay=None)
    return diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True).findings


@pytest.mark.parametrize("gpu,category", [
    ("Tesla K80", "arch-dropped"),  # below every current build
    ("NVIDIA GeForce RTX 5070", "arch-too-new-for-cuda"),  # above what a cu126 build carries
    ("NVIDIA A100-SXM4-40GB", "arch-not-in-build"),  # in every current build: a build of its own lacks it
])
def test_no_kernel_image_with_the_build_unknown_is_judged_against_current_builds(gpu, category):
    paste = (f"GPU 0: {gpu} (UUID: GPU-0)\n"
             "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("stated,category", [
    ("I have an RTX 3090 and CUDA 10.1 installed.", "arch-too-new-for-cuda"),  # CUDA 10.1 stops at sm_75
    ("I have a Tesla K40 and CUDA 12.4 installed.", "arch-dropped"),  # CUDA 12 starts at sm_50
    ("I have an RTX 3090 and CUDA 11.8 installed.", "arch-not-in-build"),  # CUDA 11.8 serves it: the build lacks it
])
def test_no_kernel_image_with_the_build_unknown_is_judged_against_the_cuda_the_paste_names(stated, category):
    paste = stated + "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("driver,category", [
    ("582.28", "arch-dropped"),  # R580 runs CUDA 12.9+: every build for it starts at sm_70 or sm_75
    ("470.223.02", "arch-not-in-build"),  # CUDA 11.4: its builds carry sm_61, so a build of its own lacked it
])
def test_no_kernel_image_with_the_build_unknown_is_judged_against_the_builds_for_the_drivers_cuda(driver, category):
    paste = (f"Windows 10, GeForce GTX 1060 6GB, driver {driver}\n"
             "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("gpu,nvcc,category", [
    ("Quadro 600", "11.4", "arch-dropped"),  # Fermi: CUDA 9.0 and later have no code for it
    ("GeForce 9500GT", "9.1", "arch-dropped"),  # compute capability 1.1
    ("GeForce GTX 1080", "11.4", "driver-too-old-for-runtime"),  # CUDA 11.4 runs on it: the driver is old
    ("Quadro 600", None, "driver-too-old-for-runtime"),  # the CUDA unknown: nothing says it dropped the GPU
])
def test_an_insufficient_driver_under_a_cuda_that_dropped_the_gpu_is_arch_dropped(gpu, nvcc, category):
    paste = (f"GPU 0: {gpu} (UUID: GPU-0)\n"
             + (f"nvcc: Cuda compilation tools, release {nvcc}, V{nvcc}.100\n" if nvcc else "")
             + "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n")
    assert _categories(paste, "GD802") == [category]


def test_a_capability_above_pytorchs_highest_of_the_same_major_is_a_note():
    warning = ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability "
               "supported by this version of PyTorch is (8.0) - (12.0)\n")
    assert [(f.code, f.severity.value, f.category) for f in _findings(warning) if f.code == "GD801"] == \
        [("GD801", "info", "info")]
    older = warning.replace("12.1", "7.5")
    assert [(f.severity.value, f.category) for f in _findings(older) if f.code == "GD801"] == \
        [("error", "arch-dropped")]


@pytest.mark.parametrize("paste,severity", [
    ("vllm 0.6.3 on a Tesla P40 fails to start\n", "error"),  # the release known: its floor, 7.0
    ("I want to serve with vLLM on my GTX 1080 Ti\n", "warning"),  # no release: every release needs 7.0+
    ("Can I run cuML and cuDF locally? Would a 750 ti be suitable?\n", "warning"),  # RAPIDS: 6.0+ in every release
    ("cuml-cu12                 24.4.0\ntorch                     2.3.0\nGPU: GTX 1080\n", "error"),  # 24.02+: 7.0
])
def test_a_gpu_library_named_beside_a_gpu_below_its_floor_is_arch_dropped(paste, severity):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    found = {(f.category, f.severity.value) for f in report.findings if f.code == "GD528"}
    assert found == {("arch-dropped", severity)}


@pytest.mark.parametrize("paste", ["vllm 0.6.3 on a Tesla V100\n", "cuML 23.12 on my GTX 1080\n", "vLLM on a T4\n"])
def test_a_gpu_library_on_a_gpu_it_supports_says_nothing(paste):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f for f in report.findings if f.code == "GD528"] == []


@pytest.mark.parametrize("paste, severity", [
    ("tensorflow-gpu 1.15.0 on a GeForce RTX 3090: Blas GEMM launch failed\n", "warning"),  # CUDA 10.0 < sm_86
    ("tensorflow 2.5.0 on a GeForce RTX 3090\n", None),  # built with CUDA 11.2, which compiles for sm_86
    ("jax 0.4.20, jaxlib 0.4.20+cuda11.cudnn86 on an RTX 5090\n", None),  # JAX loads the CUDA wheels installed
    # TF 2.3 carries compute_70 PTX the driver can JIT for Ada, but CUDA 10.1's cuBLAS and cuDNN cannot run there
    ("tensorflow-gpu 2.3.0 on a GeForce RTX 4090\n", "warning"),
])
def test_a_build_whose_cuda_predates_the_gpu_is_too_old_for_it(paste, severity):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    found = [(f.category, f.severity.value) for f in report.findings if f.code == "GD302"]
    assert found == ([("arch-too-new-for-cuda", severity)] if severity else [])


@pytest.mark.parametrize("paste, found", [
    ("Training on V100 GPUs fails, I think because of flash-attn\n", True),  # below every release (1.x: sm_75)
    ("flash_attn 2.5.8 on a Tesla T4\n", True),  # 2.x needs sm_80
    ('model = AutoModel.from_pretrained(name, attn_implementation="flash_attention_2") on my RTX 2080 Ti\n', True),
    ("flash-attn on a Tesla T4\n", False),  # the release unknown: 1.x runs on Turing
    ("flash-attn 2.6.3 on an A100\n", False),
])
def test_flash_attention_named_beside_a_gpu_without_it_is_a_missing_feature(paste, found):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    hits = {(f.category, f.severity.value) for f in report.findings if f.code == "GD528"}
    assert hits == ({("precision-unsupported", "warning")} if found else set())


def test_a_miner_naming_the_gpus_architecture_gives_its_compute_capability():
    m = load_matrices(overlay=None)
    paste = ("WARNING: NVIDIA GPU 0: miner not compiled for the gpu architecture 21.\n"
             "The attached card is a NVIDIA GeForce GT 705\n")  # a name the GPU table does not know
    d = read_paste(paste, matrices=m, debug=True)
    assert [(g.name, g.compute_capability) for g in d.snapshot.gpus] == [("NVIDIA GeForce GT 705", "2.1")]
    report = diagnose_report(d, m, debug=True)
    assert [f.category for f in report.findings if f.code == "GD801"] == ["arch-dropped"]  # Fermi: below every build


@pytest.mark.parametrize("gpu, category", [
    ("Quadro FX1800", "arch-dropped"),  # compute capability 1.1: CUDA 7.5 compiles for sm_20 and newer only
    ("GeForce GTX 1080", "framework-cuda-mismatch"),  # a GPU the required CUDA serves: the toolkit is too old
])
def test_cmake_finding_a_toolkit_older_than_required_judges_the_gpu_against_the_required_cuda(gpu, category):
    paste = (f"My GPU is a {gpu}.\n"
             '-- Could NOT find CUDA: Found unsuitable version "6.5", but required is at least "7.5" '
             "(found /usr/local/cuda-6.5)\n")
    assert _categories(paste, "GD811") == [category]


def test_paddles_arch_message_gives_the_wheels_arch_list_and_the_gpu():
    paste = ("Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61 70 75 80 86 ,"
             "but your current GPU is 120\n")
    assert _categories(paste, "GD801") == ["arch-too-new-for-cuda"]


@pytest.mark.parametrize("paste", [
    "libcudnn.cudnnStatusArchMismatch raised while running on my laptop\n",  # the Python wrapper's wording
    "CUDNN_STATUS_ARCH_MISMATCH\n",
])
def test_cudnns_arch_mismatch_with_the_gpu_unknown_is_a_gpu_too_old_for_cudnn(paste):
    assert _categories(paste, "GD801") == ["arch-dropped"]


@pytest.mark.parametrize("gpu, offered", [
    ("GTX 1080", True),  # Pascal: RAPIDS 23.12, the last release for it, still runs it
    ("GTX 750 Ti", False),  # Maxwell: no RAPIDS release does, so none is offered
])
def test_the_rapids_release_offered_is_one_that_runs_the_gpu(gpu, offered):
    m = load_matrices(overlay=None)
    paste = f"cuml-cu12                 24.4.0\nGPU: {gpu}\n"
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    fix = next(f.fix for f in report.findings if f.code == "GD528")
    assert any("cuml-cu12==23.12" in c for c in fix.commands) is offered


@pytest.mark.parametrize("paste, found", [
    ("I'm on an NVIDIA GeForce 3090 GPU. I have CUDA 10.0.0.\n", True),  # CUDA 10.0 stops at sm_75
    ("I'm on an NVIDIA GeForce 3090 GPU. I have CUDA 11.1.\n", None),  # 11.1 compiles for sm_86
    ("| NVIDIA-SMI 410.48  Driver Version: 410.48  CUDA Version: 10.0 |\nGeForce RTX 3090\n", None),  # a driver's
    ("RTX 3090, CUDA 10.0, torch 1.7.1+cu110\n", None),  # the build's CUDA decides, and 11.0 reaches sm_80
    ("GeForce GTX 1080 with CUDA 10.0\n", None),
    ("a GeForce GTX 1080 with CUDA 13.0 installed\n", "arch-dropped"),  # CUDA 13 starts at sm_75
    # two CUDAs named that agree: both start above the GTX 1080's sm_61
    ("a GTX 1080; support was dropped in CUDA 13.0, and I have CUDA 13.1 installed\n", "arch-dropped"),
    ("an RTX 3090 with CUDA 10.0 and CUDA 11.8 installed\n", None),  # they disagree: nothing is said
])
def test_the_one_cuda_a_paste_names_that_cannot_compile_for_the_gpu_is_warned_of(paste, found):
    m = load_matrices(overlay=None)
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    category = "arch-too-new-for-cuda" if found is True else found
    assert [(f.category, f.severity.value) for f in report.findings if f.code == "GD817"] == \
        ([(category, "warning")] if category else [])


@pytest.mark.parametrize("toolkit, category", [
    ("Cuda compilation tools, release 11.8, V11.8.89\n", "arch-not-in-build"),  # 11.8 targets sm_37: the flags left it out
    ("Cuda compilation tools, release 12.4, V12.4.131\n", "arch-dropped"),  # CUDA 12 cannot target a K80 at all
])
def test_no_kernel_image_from_a_program_the_reporter_compiled_is_judged_against_the_toolkit(toolkit, category):
    paste = ("$ nvcc --version\n" + toolkit + "$ nvcc vector_add.cu -o vector_add && ./vector_add\n"
             "GPU: Tesla K80\nCUDA error: no kernel image is available for execution on the device\n")
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("paste", [
    "GPU: NVIDIA GeForce GT 740M\n",  # build unknown: below every current build whichever board it is
    "GPU: NVIDIA GeForce GT 640, torch 2.5.1+cu124\n",  # the build starts at sm_50
])
def test_no_kernel_image_on_a_name_sold_as_several_boards_all_too_old_is_arch_dropped(paste):
    from gpudoctor.diagnose import read_paste as read
    m = load_matrices(overlay=None)
    d = read(paste, matrices=m)
    assert [g.compute_capability for g in d.snapshot.gpus] == [None]  # no board is taken for the name
    paste += "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert _categories(paste, "GD801") == ["arch-dropped"]


@pytest.mark.parametrize("gpu, last", [("Quadro K2000", "CUDA 10.2 for sm_30"), ("Tesla K80", "CUDA 11.8 for sm_37"),
                                       ("GeForce GTX 1080", "CUDA 12.9 for sm_61")])
def test_a_toolkit_too_new_for_the_gpu_names_the_last_toolkit_that_targets_it(gpu, last):
    found = [f for f in _findings(f"GPU: {gpu}\nCuda compilation tools, release 13.0, V13.0.48\n") if f.code == "GD305"]
    assert len(found) == 1 and last in found[0].fix.text


@pytest.mark.parametrize("paste, category", [
    ("[F] [TRT] Assertion failed: Unsupported SM: 0x809\n", "arch-too-new-for-cuda"),  # SM 8.9 on an older release
    ("target gpu sm 61 is not supported by this tensorrt release\n", "arch-dropped"),  # a Pascal the release dropped
    ("GPU 0: NVIDIA RTX A6000 (UUID: GPU-0)\nAssertion failed: Unsupported SM.\n", "arch-too-new-for-cuda"),
    ("GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-0)\nAssertion failed: Unsupported SM.\n", "arch-not-in-build"),
])
def test_tensorrts_unsupported_sm_is_judged_by_the_sm_it_names(paste, category):
    assert _categories(paste, "GD801") == [category]


HALF2 = "[W] [TRT] Half2 support requested on hardware without native FP16 support, performance will be affected.\n"


@pytest.mark.parametrize("paste, category", [
    ("GPU 0: NVIDIA GeForce GTX 1080 (UUID: GPU-0)\n" + HALF2, ["precision-unsupported"]),  # sm_61: slow FP16
    (HALF2, ["precision-unsupported"]),
    ("GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-0)\n" + HALF2, ["arch-too-new-for-cuda"]),  # fast FP16 it does not know
    (HALF2 + "[F] [TRT] Assertion failed: Unsupported SM: 0x809\n", []),  # deferred: the SM is the cause
])
def test_tensorrts_half2_warning_is_slow_fp16_only_on_a_gpu_without_fast_fp16(paste, category):
    assert _categories(paste, "GD850") == category


@pytest.mark.parametrize("gpu, category", [
    ("NVIDIA GeForce RTX 3090", ["arch-not-in-build"]),  # ran as 5.2 through PTX: the build lacks sm_86
    ("NVIDIA GeForce GTX 980", ["info"]),  # ran as its own 5.2: that kernel has no code for it, not a build fault
])
def test_ggmls_no_device_code_is_a_build_fault_only_below_the_gpus_own_architecture(gpu, category):
    paste = (f"GPU 0: {gpu} (UUID: GPU-0)\n"
             "ggml-cuda.cu:3211: ERROR: CUDA kernel vec_dot_q5_K_q8_1_impl_vmmq has no device code compatible with "
             "CUDA arch 520. ggml-cuda.cu was compiled for: 520\n")
    assert _categories(paste, "GD801") == category


@pytest.mark.parametrize("cc, category", [
    ("61", "arch-dropped"),  # below every architecture the runner carries
    ("120", "arch-too-new-for-cuda"),  # a runner older than the GPU
    ("87", "arch-not-in-build"),  # inside the range, skipped
])
def test_ollamas_skipped_device_is_judged_by_its_cc_against_the_runners_architectures(cc, category):
    paste = ('level=INFO msg="skipping CUDA device \u2014 compute capability not in compiled architectures" '
             f'cc={cc} archs="75,80,86,89,90"\n')
    assert _categories(paste, "GD801") == [category]


def test_ollamas_summary_line_defers_to_the_line_that_says_why():
    paste = ('level=INFO source=gpu.go:303 msg="[0] CUDA GPU is too old. Compute Capability detected: 3.5"\n'
             'level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"\n')
    assert [(f.code, f.category) for f in _findings(paste) if f.code in ("GD801", "GD809")] == [("GD801", "arch-dropped")]


def test_xlas_no_kernel_image_with_a_toolkit_newer_than_the_driver_is_the_drivers_age():
    # JAX compiles with the toolkit's ptxas; driver 470 runs CUDA 11.4, the toolkit is 11.6
    paste = ("jax and jaxlib do not work with cuda-11.6.2 and nvidia driver version 470\n"
             "jax 0.3.16, jaxlib 0.3.15\n>>> jax.devices()\n[GpuDevice(id=0, process_index=0)]\n"
             "RuntimeError: Unknown: no kernel image is available for execution on the device\n")
    assert _categories(paste, "GD801") == ["driver-too-old-for-runtime"]
    assert _categories(paste.replace("11.6.2", "11.2.2"), "GD801") != ["driver-too-old-for-runtime"]


@pytest.mark.parametrize("runtime, compiled, category", [
    ("75", "80", "arch-not-in-build"),  # the default image on an RTX 2080: the turing- tag serves it
    ("120", "80", "arch-not-in-build"),
    ("120", "120", "info"),  # the same capability: candle's own check, not the image
])
def test_text_embeddings_inference_names_the_image_built_for_another_capability(runtime, compiled, category):
    line = f"Could not start backend: Runtime compute cap {runtime} is not compatible with compile time compute cap {compiled}"
    assert _categories(line + "\n", "GD801") == [category]


@pytest.mark.parametrize("cc, category", [
    ("9.0", "arch-not-in-build"),  # TF 2.15's CUDA 12.2 compiles for sm_90; its build stops at compute_80
    ("12.0", "arch-too-new-for-cuda"),  # CUDA 12.2 predates sm_120
])
def test_tensorflow_without_kernels_for_the_gpu_is_judged_by_what_its_cuda_reaches(cc, category):
    paste = ("### TensorFlow version\n\nTF 2.15.0\n\n"
             f"TensorFlow was not built with CUDA kernel binaries compatible with compute capability {cc}. CUDA "
             "kernels will be jit-compiled from PTX, which could take 30 minutes or longer.\n")
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("text, warned", [
    ("After upgrading to an RTX 3090 I get bad outputs with Tensorflow 1.13.\n", True),  # CUDA 10.0 predates sm_86
    ("After upgrading to an RTX 3090 I get bad outputs with Tensorflow 2.5.\n", False),  # CUDA 11.2 targets it
    ("On a GTX 1080 I get bad outputs with Tensorflow 1.13.\n", False),
])
def test_a_release_built_with_one_cuda_older_than_the_gpu_warns_without_its_build_shown(text, warned):
    found = [f for f in _findings(text) if f.code == "GD302"]
    assert bool(found) is warned
    assert all(f.severity.value == "warning" and f.category == "arch-too-new-for-cuda" for f in found)


@pytest.mark.parametrize("gpu, stated, category", [
    ("GTX 1080", "", "arch-dropped"),  # below CUDA 13's sm_75: a new NVRTC refuses it
    ("RTX 5090", "", "arch-too-new-for-cuda"),  # above what an older NVRTC knows
    ("GTX 1080", "CUDA 12.4 is installed. ", "arch-too-new-for-cuda"),  # CUDA 12.4 targets sm_61: not a drop
])
def test_a_compiler_refusing_the_gpus_architecture_says_which_side_the_gpu_is_on(gpu, stated, category):
    paste = (f"My GPU is a {gpu}. {stated}\n"
             "cupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_INVALID_OPTION (5)\n"
             "nvrtc: error: invalid value for --gpu-architecture (-arch)\n")
    assert _categories(paste, "GD817") == [category]


@pytest.mark.parametrize("stated, category", [
    ("I have a GTX 1070 with CUDA 12.8.", "arch-dropped"),  # every PyTorch cu128 build starts at sm_70 or sm_75
    ("I have a GTX 1070 with CUDA 12.4.", "arch-not-in-build"),  # the cu124 builds carry sm_61
])
def test_no_kernel_image_beside_the_one_cuda_named_is_judged_against_the_builds_for_it(stated, category):
    paste = stated + "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert _categories(paste, "GD801") == [category]


@pytest.mark.parametrize("sm, category", [
    ("7.5", "precision-unsupported"),  # a Turing GPU below FlashAttention's sm_80
    ("12.0", "arch-too-new-for-cuda"),  # above the range this torch release was built with
])
def test_sdpas_kernel_range_warning_says_which_side_of_it_the_gpu_is(sm, category):
    paste = ("UserWarning: Flash attention only supports gpu architectures in the range [sm80, sm90]. Attempting to "
             f"run on a sm {sm} gpu. (Triggered internally at /pytorch/aten/src/ATen/native/transformers/cuda/"
             "sdp_utils.cpp:212.)\n")
    findings = [f for f in _findings(paste) if f.code == "GD850"]
    assert [(f.category, f.severity.value) for f in findings] == [(category, "warning")]


@pytest.mark.parametrize("gpu, category", [
    ("NVIDIA Jetson Orin Nano", ["framework-cuda-mismatch"]),  # a wheel for server ARM CUDA, not JetPack's
    ("NVIDIA GeForce RTX 3090", ["arch-not-in-build"]),
])
def test_a_kernel_missing_by_name_is_a_build_without_this_gpu_or_this_cuda_platform(gpu, category):
    paste = f"GPU 0: {gpu} (UUID: GPU-0)\nRuntimeError: Error named symbol not found at line 233 in file /src/csrc/ops.cu\n"
    assert _categories(paste, "GD801") == category


@pytest.mark.parametrize("gpu, sm, category", [
    ("NVIDIA GeForce RTX 3090", "sm_86", "arch-too-new-for-cuda"),  # every current build carries it: the torch is older
    # the cu126 builds carry sm_61, the cu128/cu130 ones do not: which is installed decides, not the age
    ("NVIDIA GeForce GTX 1080", "sm_61", "arch-not-in-build"),
])
def test_torchs_warning_with_its_build_unknown_is_judged_against_the_current_builds(gpu, sm, category):
    paste = f"{gpu} with CUDA capability {sm} is not compatible with the current PyTorch installation.\n"
    assert _categories(paste, "GD801") == [category]
