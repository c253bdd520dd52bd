"""`gpudoctor report`: markdown for issues, a replayable raw snapshot, and --redact."""

import json
import re
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.redact import Redactor
from gpudoctor.snapshot import Snapshot

RULES = Path(__file__).parent / "rules"


def personal_snapshot(tmp_path) -> Path:
    """The GD201 fixture with everything --redact must remove."""
    data = json.loads((RULES / "GD201" / "bad.json").read_text())
    data.pop("_note")
    data["system"]["python_executable"] = {"value": "/home/alice/projects/venv/bin/python", "source": "sys.executable"}
    data["gpus"][0]["uuid"] = "GPU-3b2b5c1e-8f0a-4d59-9c1e-0a1b2c3d4e5f"
    data["gpus"][0]["processes"] = [{"pid": 42, "name": "python train.py --master 10.0.3.7:29500", "used_memory_mib": 1}]
    data["probe_errors"] = [{"probe": "net", "error": "eth0 ether 02:42:ac:11:00:02 on gpu-box-17 (fe80::42:acff:fe11:2)"}]
    data["cudnn"][0]["path"] = "C:\\Users\\alice\\venv\\Lib\\site-packages\\nvidia\\cudnn\\bin"
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    return path


def test_report_has_facts_findings_fixes_and_a_replayable_raw_snapshot(tmp_path):
    res = invoke("report", "--from", str(personal_snapshot(tmp_path)))
    assert res.exit_code == 0
    out = res.stdout
    assert "| **Driver** | 535.104.05 (CUDA 12.2) |" in out
    assert "**GD201**" in out and "```sh" in out and "pip install torch==" in out
    assert "<details>" in out and "</details>" in out
    raw = re.search(r"```json\n(.*?)\n```", out, re.S).group(1)
    assert Snapshot.from_dict(json.loads(raw)).driver.version.value == "535.104.05"


def test_redact_removes_personal_data_and_keeps_versions(tmp_path):
    plain = invoke("report", "--from", str(personal_snapshot(tmp_path))).stdout
    red = invoke("report", "--redact", "--from", str(personal_snapshot(tmp_path))).stdout
    for secret in ("alice", "3b2b5c1e", "10.0.3.7", "02:42:ac:11:00:02", "fe80::42:acff:fe11:2"):
        assert secret in plain and secret not in red, secret
    assert "/home/<user>/projects" in red and "GPU-<redacted>" in red and "<ip>" in red and "<mac>" in red
    for kept in ("535.104.05", "9.13.0.50", "2.14.1+cu130", "13.0.96", "sm_90"):
        assert kept in red, kept
    raw = re.search(r"```json\n(.*?)\n```", red, re.S).group(1)
    json.loads(raw)  # still valid JSON after redaction


def test_output_file(tmp_path):
    out = tmp_path / "report.md"
    res = invoke("report", "--redact", "--from", str(personal_snapshot(tmp_path)), "--output", str(out))
    assert res.exit_code == 0 and "wrote" in res.stderr
    assert "alice" not in out.read_text() and "<details>" in out.read_text()


@pytest.mark.parametrize("text, expected", [
    ("node='gpu-box-17', release='6.8.0'", "node='<host>', release='6.8.0'"),
    ("(venv) bob@gpu-box-17:~/work$ nvidia-smi", "(venv) <user>@<host>:~/work$ nvidia-smi"),
    ("Serial Number                         : 1324321012345", "Serial Number                         : <redacted>"),
    ('"serial": "1324321012345"', '"serial": "<redacted>"'),
    ("MIG-3b2b5c1e-8f0a-4d59-9c1e-0a1b2c3d4e5f", "MIG-<redacted>"),
    ("/Users/carol/miniforge3/bin/python", "/Users/<user>/miniforge3/bin/python"),
    ("/mnt/c/Users/dave/Downloads", "/mnt/c/Users/<user>/Downloads"),
    ("mail me at eve@example.org", "mail me at <email>"),
    ("MASTER_ADDR=192.168.1.20", "MASTER_ADDR=<ip>"),
    ("inet6 2001:0db8:85a3:0000:0000:8a2e:0370:7334", "inet6 <ip>"),
    ("12:34:56 started", "12:34:56 started"),  # a time is not an address
    ("bus 00000000:01:00.0", "bus 00000000:01:00.0"),  # nor a PCI bus id
])
def test_redactor_rules(text, expected):
    assert Redactor().text(text) == expected


def test_hostnames_of_this_machine_are_removed():
    r = Redactor.for_snapshot(None, ["gpu-box-17.lab.example.com"])
    assert r.text("ssh gpu-box-17 and gpu-box-17.lab.example.com") == "ssh <host> and <host>"
    assert Redactor.for_snapshot(None, ["localhost"]).text("localhost") == "localhost"
