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


@pytest.mark.parametrize("gpu,category", [
    ("Tesla K80", "arch-dropped"),  # below every current build
    ("NVIDIA GeForce RTX 5070", "arch-too-new-for-cuda"),  # above what a cu126 build carries
    ("NVIDIA A100-SXM4-40GB", "arch-not-in-build"),  # in every current build: a build of its own lacks it
])
def test_no_kernel_image_with_the_build_unknown_is_judged_against_current_builds(gpu, category):
    m = load_matrices(overlay=None)
    paste = (f"GPU 0: {gpu} (UUID: GPU-0)\n"
             "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f.category for f in report.findings if f.code == "GD801"] == [category]


@pytest.mark.parametrize("installed,category", [
    ("CUDA Version: 10.2 (the toolkit)\nnvcc: Cuda compilation tools, release 10.2, V10.2.89\n", "cudnn-missing"),
    ("nvcc: Cuda compilation tools, release 9.0, V9.0.176\n", "framework-cuda-mismatch"),
    ("", "framework-cuda-mismatch"),
])
def test_a_missing_cuda_library_of_the_installed_cuda_is_a_missing_library(installed, category):
    m = load_matrices(overlay=None)
    paste = installed + "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n"
    report = diagnose_report(read_paste(paste, matrices=m, debug=True), m, debug=True)
    assert [f.category for f in report.findings if f.code == "GD807"] == [category]


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


def test_a_capability_above_pytorchs_highest_of_the_same_major_is_a_note():
    warning = ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability "
               "supported by this version of PyTorch is (8.0) - (12.0)\n")
    assert [(f.code, f.severity.value, f.category) for f in _findings(warning) if f.code == "GD801"] == \
        [("GD801", "info", "info")]
    older = warning.replace("12.1", "7.5")
    assert [(f.severity.value, f.category) for f in _findings(older) if f.code == "GD801"] == \
        [("error", "arch-dropped")]


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
