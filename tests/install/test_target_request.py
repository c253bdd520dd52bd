"""Describing a machine, reading one from a snapshot, and parsing requests."""

import json
from pathlib import Path

import pytest

from gpudoctor.install.request import parse_request
from gpudoctor.install.target import (
    TargetError,
    resolve_gpu,
    target_from_options,
    target_from_snapshot,
)
from gpudoctor.matrices import records as r
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import ComputeCapability

from conftest import make

RULES = Path(__file__).resolve().parents[1] / "rules"


def gpu(name, cc, *nvml):
    return r.GpuModel(name=name, compute_capability=cc, arch="x", memory_gb=8, source="test", nvml_names=nvml)


@pytest.fixture
def gpus_m():
    m = make()
    m._t["gpus"]["gpu"] = (gpu("GeForce GTX 1080 Ti", "6.1", "NVIDIA GeForce GTX 1080 Ti"),
                           gpu("GeForce GTX 1080", "6.1", "NVIDIA GeForce GTX 1080"),
                           gpu("GeForce RTX 4090", "8.9", "NVIDIA GeForce RTX 4090"),
                           gpu("GeForce RTX 4090 D", "8.9", "NVIDIA GeForce RTX 4090 D"),
                           gpu("Tesla V100-SXM2-16GB", "7.0", "Tesla V100-SXM2-16GB"))
    return m


def test_gpu_by_exact_and_partial_name(gpus_m):
    assert resolve_gpu("NVIDIA GeForce GTX 1080 Ti", gpus_m).cc == ComputeCapability(6, 1)
    assert resolve_gpu("gtx 1080 ti", gpus_m).name == "GeForce GTX 1080 Ti"
    assert resolve_gpu("1080 Ti", gpus_m).name == "GeForce GTX 1080 Ti"
    assert resolve_gpu("V100", gpus_m).cc == ComputeCapability(7, 0)


def test_gpu_ambiguous_or_unknown_lists_close_matches(gpus_m):
    with pytest.raises(TargetError) as exc:
        resolve_gpu("4090 x", gpus_m)
    assert "unknown GPU" in str(exc.value)
    with pytest.raises(TargetError) as exc:
        resolve_gpu("RTX 409", gpus_m)
    assert set(exc.value.choices) >= {"GeForce RTX 4090", "GeForce RTX 4090 D"}
    assert "similar names (not the same GPU)" in str(exc.value)


def test_a_short_name_of_models_sharing_one_cc_is_accepted(gpus_m):
    # 'RTX 4090' names the 4090 row exactly; 'GTX 1080' likewise; 'GTX 10' matches no word.
    assert resolve_gpu("RTX 4090", gpus_m).name == "GeForce RTX 4090"
    with pytest.raises(TargetError):
        resolve_gpu("GTX 10", gpus_m)


@pytest.mark.parametrize("name, cc", [("H100", "9.0"), ("A100", "8.0"), ("Tesla P100", "6.0"), ("B200", "10.0"),
                                      ("Quadro P1000", "6.1"), ("GeForce RTX 3080 Laptop GPU", "8.6")])
def test_shipped_short_and_family_names_resolve_to_their_cc(name, cc):
    from gpudoctor.matrices import load_matrices
    assert str(resolve_gpu(name, load_matrices(overlay=None)).cc) == cc


@pytest.mark.parametrize("name", ["MI300X", "Radeon RX 7900 XTX", "Arc A770", "RTX 6000"])
def test_unknown_or_ambiguous_names_are_refused(name):
    from gpudoctor.matrices import load_matrices
    with pytest.raises(TargetError):
        resolve_gpu(name, load_matrices(overlay=None))


def test_options_build_a_described_machine(gpus_m):
    t = target_from_options(gpus_m, driver="535.104.05", gpus=("GTX 1080 Ti",), sms=("8.9",), python="3.11",
                            os_name="Windows", arch="amd64")
    assert (t.os, t.arch, t.platform, t.python) == ("windows", "x86_64", "windows-x86_64", (3, 11))
    assert [str(g.cc) for g in t.gpus] == ["6.1", "8.9"]
    assert t.driver == "535.104.05" and not t.cpu_only


@pytest.mark.parametrize("kwargs, message", [
    (dict(driver="latest"), "bad driver version"),
    (dict(driver="535.104.05; rm -rf /"), "bad driver version"),
    (dict(sms=("banana",)), "bad compute capability"),
    (dict(python="2.7"), "bad Python version"),
    (dict(python="3.11; echo"), "bad Python version"),
    (dict(os_name="plan9"), "unknown OS"),
    (dict(arch="riscv64"), "unknown CPU architecture"),
    (dict(cpu=True, sms=("8.0",)), "--cpu"),
])
def test_bad_options_are_input_errors(gpus_m, kwargs, message):
    with pytest.raises(TargetError, match=message):
        target_from_options(gpus_m, **kwargs)


def test_missing_facts_are_stated(gpus_m):
    t = target_from_options(gpus_m)
    assert any("no GPU given" in n for n in t.notes) and any("no driver given" in n for n in t.notes)


def _snap(code, kind="bad"):
    data = json.loads((RULES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    return Snapshot.from_dict(data)


def test_snapshot_target_reads_driver_gpus_python():
    t = target_from_snapshot(_snap("GD303"), make())
    assert t.driver == "580.95.05" and t.driver_cuda == "13.0"
    assert [str(g.cc) for g in t.gpus] == ["6.1"] and t.python == (3, 11)
    assert t.platform == "linux-x86_64" and t.origin == "this machine"
    from dataclasses import replace
    assert target_from_snapshot(replace(_snap("GD303"), origin="file"), make()).origin == "snapshot"


def test_snapshot_overrides():
    t = target_from_snapshot(_snap("GD303"), make(), python="3.12", arch="aarch64")
    assert t.python == (3, 12) and t.arch == "aarch64"


def test_snapshot_without_gpus_is_cpu_only():
    snap = Snapshot.from_dict({"gpus": [], "system": {"os": {"value": "linux", "source": "x"}}})
    assert target_from_snapshot(snap, make()).cpu_only


def test_snapshot_gpu_cc_from_name_when_missing(gpus_m):
    snap = Snapshot.from_dict({"gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}]})
    assert [str(g.cc) for g in target_from_snapshot(snap, gpus_m).gpus] == ["8.9"]


@pytest.mark.parametrize("fw, version, allowed, refused", [
    ("torch", None, ["2.15.0"], []),
    ("torch==2.5.1", None, ["2.5.1"], ["2.5.0", "2.6.0"]),
    ("torch", ">=2.4,<2.6", ["2.4.0", "2.5.1"], ["2.3.1", "2.6.0"]),
    ("torch", "2.5", ["2.5.0", "2.5.1"], ["2.6.0"]),
    ("torch", "2.5.1", ["2.5.1"], ["2.5.0"]),
    ("pytorch", "torch==2.9.1", ["2.9.1"], ["2.9.0"]),
    ("tf", "~=2.18.0", ["2.18.1"], ["2.19.0"]),
])
def test_version_requests(fw, version, allowed, refused):
    req = parse_request(fw, (), version)
    assert all(req.allows(v) for v in allowed) and not any(req.allows(v) for v in refused)


def test_range_requests():
    req = parse_request("jax", (), ">=0.4.30,<0.5")
    assert req.allows_range("0.4.31", "0.5.3") and not req.allows_range("0.6.0", None)
    assert parse_request("jax", (), "==0.4.35").allows_range("0.4.31", "0.5.3")
    assert parse_request("cupy", (), ">=14").allows_range("12.0.0", None)


@pytest.mark.parametrize("fw, pkgs, version, message", [
    ("keras", (), None, "unknown framework"),
    ("torch", ("numpy",), None, "cannot pair 'numpy'"),
    ("jax", ("torchvision",), None, "no companion"),
    ("torch", (), "tensorflow==2.1", "names 'tensorflow'"),
    ("torch", (), "==banana", "bad version request"),
    ("torch", (), "torch[cuda]==2.5.1", "extras"),
])
def test_bad_requests(fw, pkgs, version, message):
    with pytest.raises(TargetError, match=message):
        parse_request(fw, pkgs, version)


def test_companions_keep_order_and_dedupe():
    assert parse_request("torch", ("TorchVision", "torchaudio", "torchvision")).companions == (
        "torchvision", "torchaudio")
