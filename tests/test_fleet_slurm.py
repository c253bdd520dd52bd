"""`fleet collect --slurm` on a real two-node Slurm cluster that this module
starts on localhost (tests/slurm_cluster.py) and stops at the end; then
`fleet report` on what it wrote. Skips, saying why, where Slurm or munge
cannot run (not root, packages missing); .ci/run installs them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import jsonschema
import pytest
import slurm_cluster
from cli_helpers import invoke

HERE = Path(__file__).parent
FLEET_SCHEMA = json.loads((HERE.parent / "gpudoctor" / "schema" / "fleet.v1.json").read_text())

why_not = slurm_cluster.missing()
pytestmark = pytest.mark.skipif(why_not is not None, reason=why_not or "")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = slurm_cluster.SlurmCluster(tmp_path_factory.mktemp("slurm"))
    old = os.environ.get("SLURM_CONF")
    try:
        c.start()
        os.environ["SLURM_CONF"] = str(c.conf)
        yield c
    finally:
        c.stop()
        if old is None:
            os.environ.pop("SLURM_CONF", None)
        else:
            os.environ["SLURM_CONF"] = old


def test_collect_writes_one_report_per_node_then_report_merges_them(cluster, tmp_path):
    out = tmp_path / "reports"
    r = invoke("fleet", "collect", "--slurm", "--out", str(out), "--timeout", "120", "-N2")
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in out.glob("*.json")) == ["_collect.json", "n1.json", "n2.json"]
    for node in ("n1", "n2"):
        env = json.loads((out / f"{node}.json").read_text())
        assert env["node"] == node and env["status"] == "ok"  # named by SLURMD_NODENAME
        assert env["report"]["command"] == "check" and env["exit_code"] == env["report"]["summary"]["exit_code"]
    summary = json.loads((out / "_collect.json").read_text())
    assert summary["argv"][:2] == ["srun", "--ntasks-per-node=1"] and "-N2" in summary["argv"]

    r = invoke("fleet", "report", str(out), "--format", "json")
    data = json.loads(r.stdout)
    jsonschema.validate(data, FLEET_SCHEMA)
    assert [n["name"] for n in data["nodes"]] == ["n1", "n2"]
    # Both "nodes" are this machine: one group, no drift.
    assert len(data["groups"]) == 1 and data["groups"][0]["nodes"] == ["n1", "n2"]
    assert data["drift"] == []
    verdicts = {n["verdict"] for n in data["nodes"]}
    assert r.exit_code == (0 if verdicts == {"pass"} else 1)


def test_a_node_that_hangs_is_recorded_as_a_timeout(cluster, tmp_path):
    out = tmp_path / "hang"
    hang = f"{sys.executable} {HERE / 'fleet' / 'hang_node.py'}"
    r = invoke("fleet", "collect", "--slurm", "--out", str(out), "--srun-timeout", "6",
               "--node-command", hang, "-N2")
    assert r.exit_code == 1
    n1 = json.loads((out / "n1.json").read_text())
    n2 = json.loads((out / "n2.json").read_text())
    assert n1["status"] == "timeout" and n1["report"] is None
    assert n2["status"] in ("timeout", "failed") and n2["report"] is None  # ended without a report
    assert json.loads((out / "_collect.json").read_text())["timed_out"] is True
    r = invoke("fleet", "report", str(out))
    assert r.exit_code == 1 and "n1" in r.stdout and "ERROR" in r.stdout


def test_a_node_that_cannot_run_gpudoctor_is_recorded_as_failed(cluster, tmp_path):
    out = tmp_path / "fail"
    r = invoke("fleet", "collect", "--slurm", "--out", str(out), "--node-command", "/nonexistent/gpudoctor", "-N2")
    assert r.exit_code == 1
    for node in ("n1", "n2"):
        env = json.loads((out / f"{node}.json").read_text())
        assert env["status"] == "failed" and "/nonexistent/gpudoctor" in env["detail"], env
        assert f"-{node}:" in env["detail"]  # the node's own error line, not its neighbour's


def _reason(cluster, node: str) -> str:
    p = cluster._run(["sinfo", "-h", "-R", "-n", node, "-o", "%E"], timeout=20)
    return p.stdout.strip()


def _resume(cluster, node: str) -> None:
    cluster._run(["scontrol", "update", f"NodeName={node}", "State=RESUME"], timeout=20)


@pytest.mark.parametrize("script, env_name", [("healthcheck.sh", "SLURM_NODE"), ("prolog.sh", "SLURMD_NODENAME")])
def test_a_failing_node_is_drained_with_the_one_line_reason(cluster, tmp_path, script, env_name):
    import shutil
    import subprocess

    gpudoctor = Path(sys.executable).with_name("gpudoctor")
    if not gpudoctor.exists() or shutil.which("logger") is None:
        pytest.skip("needs the gpudoctor console script and logger(1)")
    snap = json.loads((HERE / "rules" / "GD303" / "bad.json").read_text())
    snap.pop("_note")
    (tmp_path / "s.json").write_text(json.dumps(snap))
    env = {**cluster.env, "GPUDOCTOR_BIN": str(gpudoctor), env_name: "n2"}
    try:
        p = subprocess.run([str(HERE.parent / "deploy" / "slurm" / script), "--from", str(tmp_path / "s.json")],
                           env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 1, p.stderr
        reason = _reason(cluster, "n2")
        assert reason.startswith("gpudoctor check: FAIL") and "GD303" in reason, reason
    finally:
        _resume(cluster, "n2")
    assert _reason(cluster, "n2") == ""
