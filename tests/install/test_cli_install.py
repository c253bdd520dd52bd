"""`gpudoctor install`: exit codes, JSON contract, one-line input errors, --from, --verify."""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke

import gpudoctor.matrices
from gpudoctor.matrices import records as r

SCHEMA = json.loads((resources.files("gpudoctor") / "schema" / "install.v1.json").read_text())
RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(autouse=True)
def data(monkeypatch, torch_mini):
    torch_mini._t["gpus"]["gpu"] = (
        r.GpuModel(name="GeForce GTX 1080 Ti", compute_capability="6.1", arch="Pascal", memory_gb=11, source="t",
                   nvml_names=("NVIDIA GeForce GTX 1080 Ti",)),
        r.GpuModel(name="GeForce GTX 1080", compute_capability="6.1", arch="Pascal", memory_gb=8, source="t"))
    monkeypatch.setattr(gpudoctor.matrices, "load_matrices", lambda *a, **k: torch_mini)
    return torch_mini


def test_json_plan_validates_and_exits_0():
    res = invoke("install", "torch", "--driver", "575.57.08", "--gpu", "GTX 1080 Ti", "--python", "3.11", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert (data["framework"], data["version"], data["variant"], data["cuda"]) == ("torch", "2.11.0", "cu126", "12.6")
    assert data["index_url"] == "https://download.pytorch.org/whl/cu126"
    assert data["commands"]["pip"] == ("python -m pip install torch==2.11.0+cu126 "
                                       "--index-url https://download.pytorch.org/whl/cu126")
    assert data["commands"]["uv"] == "uv pip install torch==2.11.0+cu126 --torch-backend=cu126"
    assert data["commands"]["conda"] is None
    assert data["reasons"] and data["alternatives"]


def test_no_working_build_exits_1_with_reasons():
    res = invoke("install", "torch", "--driver", "470.82.01", "--sm", "3.5", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["version"] is None and data["commands"]["pip"] is None and data["needs"]


def test_text_output_shows_commands_and_why():
    res = invoke("install", "torch", "torchvision", "--driver", "575.57.08", "--sm", "6.1", "--python", "3.11")
    assert res.exit_code == 0
    out = res.stdout
    assert "torch==2.11.0+cu126 torchvision==0.26.0+cu126 --index-url https://download.pytorch.org/whl/cu126" in out
    assert "Why this one" in out and "Other builds" in out and "cu128" in out


@pytest.mark.parametrize("args, message", [
    (["torch", "--gpu", "GTX 10"], "similar names (not the same GPU): GeForce GTX 1080, GeForce GTX 1080 Ti"),
    (["torch", "--gpu", "Voodoo 5"], "unknown GPU 'Voodoo 5'"),
    (["torch", "--sm", "x"], "bad compute capability"),
    (["torch", "--driver", "abc"], "bad driver version"),
    (["torch", "--cpu", "--sm", "8.0"], "--cpu"),
    (["torch", "--sm", "8.0", "--version", ">=>2"], "bad version request"),
    (["keras", "--sm", "8.0"], "unknown framework"),
    (["torch", "numpy", "--sm", "8.0"], "cannot pair"),
    (["torch", "--sm", "8.0", "--from", "x.json"], "not both"),
])
def test_bad_input_exits_2_with_one_line(args, message):
    res = invoke("install", *args)
    assert res.exit_code == 2
    assert message in res.stderr and "Traceback" not in res.stderr and res.stdout == ""


def test_from_snapshot_file(tmp_path):
    data = json.loads((RULES / "GD303" / "bad.json").read_text())
    data.pop("_note")
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    res = invoke("install", "torch", "--from", str(path), "--json")
    assert res.exit_code == 0
    out = json.loads(res.stdout)
    assert out["variant"] == "cu126" and out["target"]["origin"] == "snapshot"
    assert out["target"]["gpus"] == [{"name": "NVIDIA GeForce GTX 1080 Ti", "compute_capability": "6.1"}]


def test_python_version_overrides_the_snapshot(tmp_path):
    data = json.loads((RULES / "GD303" / "bad.json").read_text())
    data.pop("_note")
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    res = invoke("install", "torch", "--from", str(path), "--python", "3.15", "--json")
    assert res.exit_code == 1 and "Python 3.10–3.14 for torch 2.11.0" in json.loads(res.stdout)["needs"]


def test_verify_missing_file_exits_1(monkeypatch):
    import gpudoctor.install.verify as verify
    monkeypatch.setattr(verify, "http_fetch", lambda url: "<html></html>")
    res = invoke("install", "torch", "--driver", "575.57.08", "--sm", "6.1", "--python", "3.11", "--verify", "--json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["verify"][0]["status"] == "missing"


def test_verify_offline_keeps_exit_0(monkeypatch):
    import gpudoctor.install.verify as verify

    def offline(url):
        raise verify.VerifyUnavailable("offline")
    monkeypatch.setattr(verify, "http_fetch", offline)
    res = invoke("install", "torch", "--driver", "575.57.08", "--sm", "6.1", "--verify")
    assert res.exit_code == 0 and "unknown" in res.stdout


def test_verify_is_lazy_about_requests():
    import subprocess
    import sys
    code = ("import sys; from gpudoctor.cli import main\n"
            "try:\n main(['install','torch','--sm','8.0','--json'])\n"
            "except SystemExit: pass\n"
            "print('requests' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().endswith("False")


def test_names_are_shown_literally_never_as_markup(tmp_path):
    data = json.loads((RULES / "GD303" / "bad.json").read_text())
    data.pop("_note")
    data["gpus"][0]["name"] = "[bold red]Evil[/] GPU"
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    res = invoke("install", "torch", "--from", str(path))
    assert res.exit_code == 0 and "[bold red]Evil[/] GPU" in res.stdout
