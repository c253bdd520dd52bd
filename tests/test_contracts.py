"""The core contracts: serde round trips, closed-world input, compat rules."""

import pytest

from gpudoctor.compat import KernelKind, kernel_for, parse_arch_list
from gpudoctor.serde import DataError
from gpudoctor.snapshot import Fact, Framework, Gpu, Snapshot
from gpudoctor.versions import ComputeCapability as CC


def test_snapshot_round_trip_keeps_facts_and_sources():
    snap = Snapshot(
        gpus=(Gpu(index=0, name="NVIDIA H200", compute_capability="9.0"),),
        frameworks=(Framework(name="torch", version=Fact("2.14.1+cu130", "torch/version.py"),
                              arch_list=Fact(("sm_90", "compute_120"), "libtorch_cuda.so .nv_fatbin")),),
    )
    again = Snapshot.from_dict(snap.to_dict())
    assert again == snap
    assert again.frameworks[0].arch_list.value == ("sm_90", "compute_120")


def test_snapshot_rejects_unknown_keys_with_a_path():
    with pytest.raises(DataError, match=r"snapshot\.gpus\[0\]: unknown key 'nmae'"):
        Snapshot.from_dict({"gpus": [{"index": 0, "nmae": "x"}]})


def test_snapshot_rejects_wrong_types_with_a_path():
    with pytest.raises(DataError, match=r"snapshot\.driver\.version\.value"):
        Snapshot.from_dict({"driver": {"version": {"value": 535, "source": "x"}}})


def test_missing_facts_stay_unknown():
    snap = Snapshot.from_dict({})
    assert snap.gpus is None and not snap.driver.version.known


@pytest.mark.parametrize("cc, arch, kind", [
    (CC(8, 9), ["sm_80", "sm_86"], KernelKind.SASS_COMPATIBLE),   # same-major cubin: 8.6 runs on 8.9
    (CC(9, 0), ["sm_80", "sm_86"], KernelKind.NONE),              # never across majors
    (CC(9, 0), ["sm_80", "compute_80"], KernelKind.PTX_JIT),      # PTX JITs forward
    (CC(12, 0), ["sm_90", "compute_90"], KernelKind.PTX_JIT),
    (CC(12, 0), ["sm_75", "sm_90", "sm_100", "sm_120"], KernelKind.SASS),
    (CC(12, 1), ["sm_120"], KernelKind.SASS_COMPATIBLE),
    (CC(6, 1), ["sm_75", "sm_80", "compute_120"], KernelKind.NONE),  # PTX never runs backwards
    (CC(9, 0), ["sm_90a"], KernelKind.SASS),
    (CC(10, 3), ["sm_100a"], KernelKind.NONE),                    # arch-specific: exact chip only
    (CC(8, 6), ["8.0", "9.0+PTX"], KernelKind.SASS_COMPATIBLE),   # TORCH_CUDA_ARCH_LIST form
    (CC(10, 0), ["8.0", "9.0+PTX"], KernelKind.PTX_JIT),
])
def test_kernel_matching(cc, arch, kind):
    assert kernel_for(cc, arch).kind is kind


def test_parse_arch_list_ignores_junk():
    assert [str(e) for e in parse_arch_list(["sm_86", "bogus", "compute_90", ""])] == ["sm_86", "compute_90"]
