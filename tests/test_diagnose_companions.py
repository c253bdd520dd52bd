"""torchvision and torchaudio a paste shows beside torch, judged against the torch series each was
released with (torch.toml's pairing) and the CUDA index torch came from (GD520, GD521)."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)


def codes(text: str) -> dict[str, object]:
    report = diagnose_report(read_paste(text, matrices=M, debug=True), M, debug=True)
    return {f.code: f for f in report.findings if f.code in ("GD520", "GD521")}


def test_a_torchvision_of_another_torch_series_is_a_conflict_whose_fix_keeps_the_cuda_build():
    found = codes("torch==1.10.1+cu111\ntorchvision==0.10.0+cu111\n")
    f = found["GD520"]
    assert f.category == "library-conflict" and "torch==1.9.*" in f.title
    assert any("torchvision==0.11.2+cu111" in c and "whl/cu111" in c for c in f.fix.commands)


@pytest.mark.parametrize("listing", [
    "torch==2.1.0+cu121\ntorchvision==0.16.0+cu121\ntorchaudio==2.1.0+cu121\n",  # one release train
    "torch==2.1.2+cu121\ntorchvision==0.16.1+cu121\n",  # patch releases of the same series
    "torch==1.7.1\ntorchvision==0.2.2\n",  # pure Python before 0.3: nothing compiled to mismatch
    "torch==7.0+cu118\ntorchaudio==2.7.0+cu118\n",  # no torch release (a cut-off line): nothing to pair
])
def test_companions_of_the_same_series_or_without_a_build_are_no_conflict(listing):
    assert "GD520" not in codes(listing)


def test_a_companion_from_another_cuda_index_than_torch_is_a_variant_mismatch():
    assert "GD521" in codes("torch==2.1.0+cu121\ntorchvision==0.16.0+cu118\n")


@pytest.mark.parametrize("text, conflict", [
    ("Torch version 1.10.1+cu111 is not compatible with torchvision 0.10.0+cu111, torchvision may need to "
     "change to 0.11.2+cu111?\n", True),
    ("I have torch 1.10.1 installed\npip install torchvision==0.10.0\n", False),  # a command: not installed
    # several releases named in prose: which goes with which is not said
    ("torch 1.0.0 and torchvision 0.2.1 work; with torch 1.1.0 and torchvision 0.3.0 it crashes\n", False),
])
def test_companions_named_in_prose(text, conflict):
    assert ("GD520" in codes(text)) is conflict


def test_the_fix_for_pypis_own_build_pairs_from_pypi():
    f = codes("torch==2.7.0\ntorchvision==0.21.0\n")["GD520"]
    assert any(c.endswith("torch==2.7.0 torchvision==0.22.0") for c in f.fix.commands), f.fix.commands
