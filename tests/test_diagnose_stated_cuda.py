"""A CUDA a report names against the driver it names: the driver's own CUDA as people copy
nvidia-smi's pair is not judged; another CUDA below the driver's compatibility floor is."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.versions import cuda_version

M = load_matrices(overlay=None)


def findings(text: str):
    return diagnose_report(read_paste(text.encode(), matrices=M, debug=True), M, debug=True).findings


def gd204(text: str):
    return [f for f in findings(text) if f.code == "GD204"]


def test_a_named_cuda_the_driver_cannot_run_is_a_warning():
    [f] = gd204("my driver is 396.26 and I use CUDA 10.0\n")
    assert f.severity is Severity.WARNING and f.category == "driver-too-old-for-runtime"
    assert "10.0" in f.title and "410.48" in f.title


@pytest.mark.parametrize("text", [
    "my driver is 470.82 and I use CUDA 11.8\n",  # minor-version compatibility serves it
    "my driver is 535.104 and I use CUDA 12.1\n",
    "- **Driver:** 440.31 / CUDA 10.2\n",  # nvidia-smi's pair: the driver's own CUDA
    "Driver Version: 440.31\nCUDA Version: 10.2\n",
    "driver 535 (CUDA 12.2)\n",
])
def test_no_warning_where_the_driver_runs_it_or_it_is_the_drivers(text):
    assert gd204(text) == []


def test_a_windows_driver_of_the_cuda_13_branch_runs_cuda_13():
    # NVIDIA gives no Windows driver per 13.x toolkit: the major's floor (580.88) is its first driver
    assert M.driver_max_cuda("591.86", "windows") == cuda_version("13.0")
    assert M.driver_max_cuda("576.57", "windows") == cuda_version("12.9")
    assert gd204("- **OS:** Windows 11\n- **Driver:** 591.86 / CUDA 13.1\n") == []



def test_a_cuda_major_named_alone_beyond_the_driver_is_a_warning():
    text = "nvidia Driver Version: 510.108.03\nBut if I install vllm==0.7.3 it will install cuda 12 and nothing works\n"
    [f] = gd204(text)
    assert f.severity is Severity.WARNING and f.category == "driver-too-old-for-runtime"
    assert "CUDA 12" in f.title and "525.60.13" in f.title
    assert [e.fact for e in f.evidence] == ["cuda.stated_major", "driver.version"]


@pytest.mark.parametrize("text", [
    "Driver Version: 510.108.03\nI use cuda 11 builds\n",  # the driver's own major
    "Driver Version: 535.104.05\nI use cuda 12\n",  # minor-version compatibility serves it
    "I use cuda 12\n",  # no driver shown
    "Driver Version: 510.108.03\nDownload and install CUDA 12 first\n",  # what a message asks for
])
def test_no_warning_for_a_major_the_driver_runs_or_cannot_be_told(text):
    assert gd204(text) == []


CT2 = ('ValueError: Requested float16 compute type, but the target device or backend do not support efficient '
       'float16 computation.\n')


def test_float16_refused_where_the_code_asks_for_the_cpu_is_a_warning():
    code = '    model = WhisperModel(model_path, device="cpu", compute_type="float16")\n'
    [f] = [f for f in findings(code + CT2) if f.code == "GD812"]
    assert f.severity is Severity.WARNING
    assert any(e.fact == "code.device_cpu" for e in f.evidence)
    [g] = [f for f in findings(CT2) if f.code == "GD812"]
    assert g.severity is Severity.ERROR
