"""CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, as the CUDA driver reads them."""

from __future__ import annotations

import pytest
from probe_builders import Machine
from test_probe_driver_gpus import H100, driver_535_h100

from gpudoctor.probes import collect
from gpudoctor.probes.visibility import resolve
from gpudoctor.snapshot import Gpu

A100 = [Gpu(index=i, name="NVIDIA A100-SXM4-80GB", uuid=f"GPU-{c}{c}{c}{c}-1111") for i, c in enumerate("abcd")]
MIXED = [Gpu(index=0, name="NVIDIA GeForce RTX 3090", uuid="GPU-aaaa"),
         Gpu(index=1, name="NVIDIA GeForce RTX 4090", uuid="GPU-bbbb")]


@pytest.mark.parametrize("cvd, visible", [
    (None, (0, 1, 2, 3)),
    ("2,1", (2, 1)),
    ("0,2,-1,1", (0, 2)),           # a negative entry ends the list
    ("0,7,1", (0,)),                # so does an index past the last GPU
    ("1,1", ()),                    # a repeated entry hides everything
    ("", ()),
    ("-1", ()),
    (" 3 , 0", (3, 0)),
    ("GPU-cccc", (2,)),             # UUID prefixes
    ("GPU-dddd-1111,GPU-aaaa", (3, 0)),
    ("GPU-aaaa,GPU-zzzz,GPU-bbbb", (0,)),
    ("GPU-", ()),                   # ambiguous prefix: matches every GPU
])
def test_identical_gpus(cvd, visible):
    assert resolve(cvd, None, tuple(A100)).visible == visible


def test_mixed_models_fastest_first_cannot_be_mapped_and_says_why():
    vis = resolve("0", None, tuple(MIXED))
    assert vis.visible is None
    assert "fastest first" in vis.note and "CUDA_DEVICE_ORDER=PCI_BUS_ID" in vis.note
    assert resolve(None, None, tuple(MIXED)).visible is None


def test_mixed_models_in_pci_order_map_exactly():
    assert resolve("1", "PCI_BUS_ID", tuple(MIXED)).visible == (1,)
    assert resolve(None, "PCI_BUS_ID", tuple(MIXED)).note == ""
    # UUIDs name GPUs whatever the order.
    assert resolve("GPU-bbbb", None, tuple(MIXED)).visible == (1,)


def test_invalid_entry_is_explained():
    vis = resolve("0,x,1", None, tuple(A100))
    assert vis.visible == (0,) and "'x'" in vis.note


def test_mig_instances():
    old = resolve("MIG-GPU-bbbb-1111/1/0", None, tuple(A100))
    assert old.visible == (1,)
    new = resolve("MIG-5c5f3f4e-2d23-5bc8-b2c4-8c3b5f5e6a1b", None, tuple(A100))
    assert new.visible is None and "MIG" in new.note


def test_unknown_gpus_and_no_gpus():
    assert resolve("0,1", None, None).visible is None
    assert resolve("", None, None).visible == ()
    assert resolve("0", None, ()).visible == ()


def test_cuda_visible_devices_uuid_scenario():
    second = dict(H100, UUID="GPU-5ab0c4f1-0000-0000-0000-000000000001", PciInfo=None)
    m = driver_535_h100([H100, second])
    m.host.environ["CUDA_VISIBLE_DEVICES"] = "GPU-5ab0"
    snap = collect(m.finish())
    assert snap.visibility.cuda_visible_devices == "GPU-5ab0"
    assert snap.visibility.visible == (1,)
    assert [g.index for g in snap.visible_gpus()] == [1]


def test_device_order_recorded():
    m = Machine()
    m.host.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    assert collect(m.finish()).visibility.cuda_device_order == "PCI_BUS_ID"
