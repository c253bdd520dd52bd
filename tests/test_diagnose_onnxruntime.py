"""ONNX Runtime and CTranslate2 in pastes: the packages and issue-form fields that say
which ONNX Runtime is installed, and the findings that judge it against the CUDA shown;
and the other frameworks whose builds are packages that install one module (Paddle, CuPy)."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)

FORM = """### Describe the issue

Failed to create CUDAExecutionProvider.

### ONNX Runtime Installation

Released Package

### ONNX Runtime Version or Commit ID

{version}

### ONNX Runtime API

Python

### Execution Provider

{provider}

### Execution Provider Library Version

{library}
"""


def findings(text: str):
    return diagnose_report(read_paste(text, matrices=M, debug=True), M, debug=True).findings


def by_code(text: str, code: str):
    return [f for f in findings(text) if f.code == code]


@pytest.mark.parametrize("version, library, fires", [
    ("1.16.2", "CUDA 12.1", True),      # PyPI's 1.16 is a CUDA 11.8 build
    ("onnxruntime-gpu 1.14.1", "cuda12.0", True),
    ("1.19.2", "CUDA 12.4", False),     # 1.19 is a CUDA 12 build on PyPI
    ("1.17.1", "CUDA 12.2", False),     # 1.17 has a CUDA 12 build (ONNX Runtime's feed)
    ("1.16.3", "CUDA 11.7", False),     # a CUDA 11.8 build serves any 11.x
    ("1.5.2", "CUDA 10.1", True),       # before CUDA 11 the minor must match: 1.5 is a 10.2 build
    ("1.40.0", "CUDA 12.1", False),     # newer than the data: unknown, not judged
    ("3f2a9c1", "CUDA 12.1", False),    # a commit id says no release
])
def test_issue_form_release_against_the_cuda_shown(version, library, fires):
    found = by_code(FORM.format(version=version, provider="CUDA", library=library), "GD509")
    assert bool(found) == fires
    if fires:
        assert found[0].category == "framework-cuda-mismatch"
        assert found[0].severity is Severity.WARNING  # the CUDA is only stated in prose


def test_a_cpu_execution_provider_is_not_judged_against_cuda():
    assert not by_code(FORM.format(version="1.16.2", provider="Default CPU", library="CUDA 12.1"), "GD509")


def test_a_listed_gpu_package_against_a_found_toolkit_is_an_error():
    text = ("onnxruntime-gpu==1.15.1\nnumpy==1.26.4\n"
            "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.2, V12.2.140\n")
    (f,) = by_code(text, "GD509")
    assert f.severity is Severity.ERROR and "CUDA 11.8" in f.title


@pytest.mark.parametrize("text", [
    "onnx - 1.6.0\nonnxruntime 1.2.0\nonnxruntime-gpu  1.2.0\nCUDA 10.1\n",
    "onnxruntime==1.16.0\nonnxruntime-gpu==1.16.0\n",
    "Package          Version\n---------------- -------\nonnxruntime      1.17.1\nonnxruntime-gpu  1.17.1\n",
    "- onnxruntime-directml: 1.17.0\n- onnxruntime: 1.17.0\n",
])
def test_two_onnxruntime_packages_are_a_conflict(text):
    (f,) = by_code(text, "GD510")
    assert f.category == "library-conflict" and len(f.evidence) == 2


@pytest.mark.parametrize("text", [
    # the plain name in a sentence is ONNX Runtime at large, not the CPU package
    "I install the onnxruntime-gpu 1.19.0 from the Jetson zoo.\nUsing onnxruntime 1.19.0 on jetson agx orin.\n",
    "onnxruntime-gpu==1.16.0\nonnx==1.15.0\n",
])
def test_one_package_is_no_conflict(text):
    assert not by_code(text, "GD510")


@pytest.mark.parametrize("installed, category", [
    ("CUDA 11.8", "framework-cuda-mismatch"),  # a CUDA 12 build of CTranslate2 on a CUDA 11 system
    ("CUDA 12.4", "cudnn-missing"),            # the right CUDA, its cuBLAS not where the loader looks
    ("my system is installed with cuda12", "cudnn-missing"),  # a bare major settles a library named by its major
    ("I have CUDA 11 installed", "framework-cuda-mismatch"),
])
def test_ctranslate2_cublas_message_quoted_without_its_tail(installed, category):
    (f,) = by_code(f"{installed}\nRuntimeError: Library libcublas.so.12 is not found\n", "GD807")
    assert f.category == category


@pytest.mark.parametrize("text, module", [
    ("$ pip3 list\nPackage                 Version\npaddlepaddle            2.2.1\npaddlepaddle-gpu        2.2.1\n", "paddle"),
    ("cupy==13.3.0\ncupy-cuda12x==13.3.0\n", "cupy"),
    ("cupy-cuda11x    12.2.0\ncupy-cuda12x    13.0.0\n", "cupy"),
])
def test_two_builds_of_a_framework_that_share_one_module_are_a_conflict(text, module):
    (f,) = by_code(text, "GD511")
    assert f.category == "library-conflict" and f.subject == module and f.severity is Severity.WARNING


def test_one_build_of_each_framework_is_no_conflict():
    assert not by_code("paddlepaddle-gpu==2.6.1\ncupy-cuda12x==13.3.0\n", "GD511")


def test_a_version_list_typed_as_name_colon_version_lines_is_read():
    (f,) = by_code("paddlepaddle: 2.3.2\npaddlepaddle-gpu:2.3.2\nos: CentOS7.9\n", "GD511")
    assert [e.value for e in f.evidence] == ["2.3.2", "2.3.2"]
    # one such line alone is prose, not a list
    assert not by_code("I tried paddlepaddle-gpu: 2.3.2 and the CPU one.\ncupy: 13.0\n", "GD511")
