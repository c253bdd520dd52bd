"""--redact removes user names and hostnames without breaking what the report
is for: its raw snapshot still replays, to the same findings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.redact import Redactor, hostnames_in_text
from gpudoctor.snapshot import Snapshot

RULES = Path(__file__).parent / "rules"


@pytest.mark.parametrize("text, expected", [
    ("/nfs/home/alice/lib", "/nfs/home/<user>/lib"),
    ("/data/home/erin/envs/x", "/data/home/<user>/envs/x"),
    ("/scratch/carol/run.sh", "/scratch/<user>/run.sh"),
    ("LD_LIBRARY_PATH=/home/alice/cuda/lib64:/srv/work/bob/lib", "LD_LIBRARY_PATH=/home/<user>/cuda/lib64:/srv/work/<user>/lib"),
    ("/lustre/users/dan/venv", "/lustre/users/<user>/venv"),
    ("/usr/local/cuda/lib64", "/usr/local/cuda/lib64"),  # no user in a system path
    ("/workspace/code", "/workspace/code"),  # only a whole 'work' component
])
def test_user_names_after_home_like_components(text, expected):
    assert Redactor().text(text) == expected


def test_hostnames_come_from_the_texts_own_host_positions():
    text = "uname node='gpu-box-03' from frank@gpu-box-03:~$ ; host gpu-box-03 said hi"
    r = Redactor.for_snapshot(None, hostnames_in_text(text))
    out = r.text(text)
    assert "gpu-box-03" not in out and "frank" not in out
    assert out.endswith("host <host> said hi")


@pytest.mark.parametrize("host", ["cuda", "python", "gpu"])
def test_a_host_named_like_the_vocabulary_is_only_redacted_where_it_is_a_host(host):
    text = (f'{{"cuda": {{"value": "12.4"}}}} /usr/local/cuda/bin/python nvidia.com/gpu=all '
            f"node='{host}' root@{host}:~#")
    out = Redactor.for_snapshot(None, [host]).text(text)
    assert out.startswith('{"cuda": {"value": "12.4"}} /usr/local/cuda/bin/python nvidia.com/gpu=all ')
    assert out.endswith("node='<host>' <user>@<host>:~#")


def test_a_hostname_is_never_replaced_inside_a_key_or_a_path():
    r = Redactor.for_snapshot(None, ["trainbox"])
    assert r.text('{"trainbox": 1} /srv/trainbox/x trainbox.') == '{"trainbox": 1} /srv/trainbox/x <host>.'


def _personal_snapshot(tmp_path, host: str) -> Path:
    data = json.loads((RULES / "GD201" / "bad.json").read_text())
    data.pop("_note", None)
    data["system"]["python_executable"] = {"value": "/nfs/home/alice/venv/bin/python", "source": "sys.executable"}
    data["probe_errors"] = [{"probe": "net", "error": f"uname node='{host}' on {host}; /scratch/carol/x"}]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    return path


def _codes(report_json: str) -> list[tuple[str, str | None]]:
    data = json.loads(report_json)
    return sorted((f["code"], f.get("subject")) for f in data["findings"])


@pytest.mark.parametrize("host", ["gpu-box-03", "cuda", "python"])
def test_a_redacted_report_replays_to_the_same_findings(tmp_path, host):
    snap = _personal_snapshot(tmp_path, host)
    res = invoke("report", "--redact", "--from", str(snap))
    assert res.exit_code == 0
    assert "alice" not in res.stdout and "carol" not in res.stdout
    assert "gpu-box-03" not in res.stdout
    raw = re.search(r"```json\n(.*?)\n```", res.stdout, re.DOTALL).group(1)
    Snapshot.from_dict(json.loads(raw))  # still a valid snapshot
    replay = tmp_path / "replay.json"
    replay.write_text(raw)
    before = invoke("check", "--json", "--from", str(snap))
    after = invoke("check", "--json", "--from", str(replay))
    assert after.exit_code == before.exit_code
    assert _codes(after.stdout) == _codes(before.stdout) and _codes(before.stdout)


def test_diagnose_redact_removes_uuids_users_and_hosts(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("bob@dgx-07:~$ nvidia-smi -L\n"
                     "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-3b2b5c1e-8f0a-4d59-9c1e-0a1b2c3d4e5f)\n"
                     "dgx-07 ran /home/bob/train.py\n")
    for fmt in ("text", "markdown", "json"):
        plain = invoke("diagnose", str(paste), "--format", fmt).stdout
        assert "3b2b5c1e" in plain  # the output shows the UUID unless told not to
        res = invoke("diagnose", str(paste), "--redact", "--format", fmt)
        assert res.exit_code in (0, 1), res.output
        out = res.stdout
        assert "3b2b5c1e" not in out and "bob" not in out and "dgx-07" not in out, (fmt, out)
        if fmt == "json":
            json.loads(out)
