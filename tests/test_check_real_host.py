"""`gpudoctor check` on the machine the tests run on, end to end, in a subprocess.

On a machine with a CUDA toolkit and no driver (the development and CI
machines) it must report the toolkit exactly, the missing driver as an error
with a fix, and exit 1. Where a machine differs the assertions adapt.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from importlib import resources

import jsonschema
import pytest
from cli_helpers import run_module

HAS_DRIVER = os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/usr/lib/wsl/lib/libcuda.so.1")
TORCH_PYTHON = os.environ.get("GPUDOCTOR_TEST_TORCH_PYTHON")


def check(*args: str) -> tuple[int, dict]:
    proc = run_module("check", "--json", *args, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture(scope="module")
def report():
    return check()


def test_runs_and_reports_no_crash(report):
    _, data = report
    jsonschema.validate(data, json.loads((resources.files("gpudoctor") / "schema" / "report.v1.json").read_text()))
    assert data["summary"]["crashed"] == 0, [r for r in data["results"] if r["outcome"] == "crashed"]
    assert data["summary"]["probe_errors"] == 0, data["snapshot"]["probe_errors"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_reports_the_toolkit_as_nvcc_does(report):
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=60, check=True).stdout
    release, full = re.search(r"release (\d+\.\d+), V(\S+)", out).groups()
    toolkits = [r for r in report[1]["snapshot"]["cuda_runtimes"] if r["kind"] == "toolkit" and r["nvcc"] == full]
    assert toolkits and toolkits[0]["version"].startswith(release)
    nvcc_dir = os.path.dirname(os.path.realpath(shutil.which("nvcc")))
    assert os.path.exists(os.path.join(toolkits[0]["path"], "bin", "nvcc")) or nvcc_dir.startswith(toolkits[0]["path"])


@pytest.mark.skipif(HAS_DRIVER, reason="this machine has an NVIDIA driver")
def test_missing_driver_is_an_error_with_a_fix_and_exit_1(report):
    rc, data = report
    assert rc == 1
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    driver = [f for f in errors if f["category"] in ("no-driver", "container-no-gpu")]
    assert driver, errors
    assert driver[0]["fix"]["commands"] and any(e["fact"] == "driver.nvml" for e in driver[0]["evidence"])


@pytest.mark.skipif(not TORCH_PYTHON, reason="GPUDOCTOR_TEST_TORCH_PYTHON not set")
def test_judges_the_target_torch():
    says = json.loads(subprocess.run(
        [TORCH_PYTHON, "-c", "import json, torch; print(json.dumps([torch.__version__, torch.version.cuda]))"],
        capture_output=True, text=True, timeout=300, check=True).stdout.strip().splitlines()[-1])
    _, data = check("--python", TORCH_PYTHON)
    (torch,) = [f for f in data["snapshot"]["frameworks"] if f["name"] == "torch"]
    assert torch["version"]["value"] == says[0]
    codes = {f["code"] for f in data["findings"]}
    if says[1] is None:
        assert torch["build"]["value"] == "cpu" and "GD501" in codes
    else:
        assert torch["cuda"]["value"] == says[1] and torch["arch_list"]["value"]
        assert "GD501" not in codes


def test_snapshot_replays_to_the_same_findings(tmp_path, report):
    proc = run_module("snapshot", timeout=300)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "s.json").write_text(proc.stdout)
    _, replayed = check("--from", str(tmp_path / "s.json"))
    assert replayed["snapshot"]["origin"] == "file"
    assert [f["code"] for f in replayed["findings"]] == [f["code"] for f in report[1]["findings"]]
