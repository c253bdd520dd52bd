"""GD306 on GPUs older than every CUDA a current program is built with: the fix
says which CUDA toolkit last compiled for the GPU (matrices/cuda.toml
arch_support), never a source build no toolkit can do."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)


@pytest.mark.parametrize("gpu,says", [
    ("NVIDIA Quadro FX 1800M", "no CUDA toolkit in gpudoctor's data compiles for sm_12 (CUDA 7.0 starts at sm_20"),
    ("Quadro 600", "CUDA 8.0 is the newest toolkit that compiles for sm_21"),  # Fermi: CUDA 9.0 dropped sm_2x
    ("NVIDIA GTX650Ti", "CUDA 10.2 is the newest toolkit that compiles for sm_30"),  # CUDA 11.0 starts at sm_35
])
def test_a_legacy_gpu_is_told_the_last_cuda_that_targets_it(gpu, says):
    report = diagnose_report(read_paste(f"My GPU is an {gpu} and nothing runs on it\n", matrices=M), M)
    hits = [f for f in report.findings if f.code == "GD306"]
    assert [f.category for f in hits] == ["arch-dropped"], [f.code for f in report.findings]
    assert says in hits[0].fix.text
    assert "TORCH_CUDA_ARCH_LIST" not in hits[0].fix.text


def test_a_gpu_current_builds_still_carry_is_not_judged():
    report = diagnose_report(read_paste("My GPU is an NVIDIA GeForce GTX 1080 Ti\n", matrices=M), M)
    assert not [f for f in report.findings if f.code == "GD306"]
