"""The "Will each framework use each GPU?" table is read from the rules'
outcomes: it never says a pair is fine when a finding says it is not."""

import json
from pathlib import Path

import pytest

from gpudoctor.doctor import judge
from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices
from gpudoctor.snapshot import Snapshot

FIXTURES = Path(__file__).parent / "rules"
M = load_matrices(overlay=None)


def load(code: str, kind: str) -> Snapshot:
    data = json.loads((FIXTURES / code / f"{kind}.json").read_text())
    data.pop("_note", None)
    return Snapshot.from_dict(data)


def test_gd401_bad_fixture_table_agrees_with_the_finding():
    report = judge(load("GD401", "bad"), M)
    assert any(f.code == "GD401" for f in report.findings)
    broken = [v for v in report.verdicts if v.status == "broken"]
    assert broken and all(v.reason.startswith("GD") for v in broken)
    assert any(v.reason.startswith("GD401:") for v in broken), broken
    assert not [v for v in report.verdicts if v.status == "ok"]


@pytest.mark.parametrize("code", sorted(p.name for p in FIXTURES.iterdir()
                                         if (p / "bad.json").exists() and p.name[2] in "123456"))
def test_no_pair_is_ok_beside_an_error_about_it(code):
    report = judge(load(code, "bad"), M)
    for v in report.verdicts:
        if v.status != "ok":
            continue
        about = [f for f in report.findings if f.severity is Severity.ERROR
                 and f.subject in (None, v.framework, f"GPU {v.gpu}", f"GPU {v.gpu} × {v.framework}")]
        assert not about, (v, [(f.code, f.subject) for f in about])


def test_a_healthy_pair_is_ok_with_its_kernels():
    report = judge(load("GD301", "good"), M)
    assert any(v.status == "ok" and ("native" in v.reason or "SASS" in v.reason or "PTX" in v.reason)
               for v in report.verdicts), report.verdicts


def test_a_cpu_build_on_a_machine_without_gpus_is_not_told_to_install_another_cpu_build():
    data = json.loads((FIXTURES / "GD501" / "bad.json").read_text())
    data.pop("_note", None)
    data["gpus"] = []
    data["driver"] = {"kernel_module": {"value": "not-loaded", "source": "/proc/modules"},
                      "nvml": {"value": "LibraryNotFound", "source": "search for libnvidia-ml.so.1"}}
    (found,) = [f for f in judge(Snapshot.from_dict(data), M).findings if f.code == "GD501"]
    assert found.severity is Severity.INFO and found.fix is not None
    assert found.fix.commands == ("gpudoctor install torch",) and "no NVIDIA GPU" in found.fix.text
    # With the GPUs there, the fix is the install engine's CUDA build for them.
    (on_gpu,) = [f for f in judge(load("GD501", "bad"), M).findings if f.code == "GD501"]
    assert on_gpu.severity is Severity.ERROR and any("pip install" in c and "cpu" not in c
                                                     for c in on_gpu.fix.commands)
