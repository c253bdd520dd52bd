"""`fleet report`: nodes and verdicts, groups of identical nodes, drift from
snapshot facts, findings by code; JSON against gpudoctor/schema/fleet.v1.json;
the HTML page rendered by headless Chromium (Debian's chromium) to a screenshot.

The nodes are recorded snapshots (tests/rules/*) judged by the real rules:
n01 and n03 a T4 with torch 2.14.1+cu130 (GD612/bad), n02 a GTX 1080 Ti whose
build has no sm_61 code (GD303/bad), n04 a node whose check timed out."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import invoke

from gpudoctor.doctor import judge
from gpudoctor.fleet.node import envelope
from gpudoctor.matrices import load_matrices
from gpudoctor.render.json import report_data
from gpudoctor.snapshot import Snapshot

HERE = Path(__file__).parent
SCHEMA = json.loads((HERE.parent / "gpudoctor" / "schema" / "fleet.v1.json").read_text())


def report_of(fixture: str, driver: str | None = None) -> dict:
    data = json.loads((HERE / "rules" / fixture).read_text())
    data.pop("_note", None)
    if driver:
        data = copy.deepcopy(data)
        data["driver"]["version"]["value"] = driver
    return report_data(judge(Snapshot.from_dict(data), load_matrices(overlay=None)))


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fleet")
    t4 = report_of("GD612/bad.json")
    (d / "n01.json").write_text(json.dumps(envelope("n01", "ok", t4["summary"]["exit_code"], "", t4)))
    (d / "n03.json").write_text(json.dumps(t4))  # a bare `check --json` report, named by its file
    pascal = report_of("GD303/bad.json")
    (d / "n02.json").write_text(json.dumps(envelope("n02", "ok", pascal["summary"]["exit_code"], "", pascal)))
    (d / "n04.json").write_text(json.dumps(envelope("n04", "timeout", None, "killed at its 120 s deadline", None)))
    (d / "_collect.json").write_text("{}")  # the collector's own record is not a node
    return d


@pytest.fixture(scope="module")
def data(fleet_dir):
    r = invoke("fleet", "report", str(fleet_dir), "--format", "json")
    assert r.exit_code == 1  # a node failed and one has no report
    out = json.loads(r.stdout)
    jsonschema.validate(out, SCHEMA)
    return out


def test_every_node_with_its_verdict(data):
    verdicts = {n["name"]: n["verdict"] for n in data["nodes"]}
    assert verdicts["n02"] == "fail" and verdicts["n04"] == "error"
    assert verdicts["n01"] == verdicts["n03"]
    assert data["summary"]["nodes"] == 4 and data["summary"]["error"] == 1


def test_identical_nodes_form_one_group(data):
    first = data["groups"][0]
    assert first["nodes"] == ["n01", "n03"]
    assert ["n02"] in [g["nodes"] for g in data["groups"]]
    assert not any("n04" in g["nodes"] for g in data["groups"])  # no facts: in no group


def test_drift_comes_from_the_snapshot_facts(data):
    drift = {d["fact"]: {v["value"]: v["nodes"] for v in d["values"]} for d in data["drift"]}
    snaps = {n: json.loads((HERE / "rules" / f).read_text()) for n, f in
             (("t4", "GD612/bad.json"), ("pascal", "GD303/bad.json"))}
    t4_gpu, pascal_gpu = (snaps[k]["gpus"][0]["name"] for k in ("t4", "pascal"))
    assert drift["gpus.models"] == {f"1× {t4_gpu}": ["n01", "n03"], f"1× {pascal_gpu}": ["n02"]}
    for key, path in (("driver.version", ("driver", "version")),):
        a, b = (snaps[k][path[0]][path[1]]["value"] for k in ("t4", "pascal"))
        assert (key in drift) is (a != b)
    assert all("n04" not in nodes for d in drift.values() for nodes in d.values())


def test_a_changed_driver_is_drift(tmp_path):
    a, b = report_of("GD612/bad.json"), report_of("GD612/bad.json", driver="580.82.07")
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    out = json.loads(invoke("fleet", "report", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", "json").stdout)
    assert [d["fact"] for d in out["drift"]] == ["driver.version"]
    assert len(out["groups"]) == 2


def test_findings_by_code_across_nodes(data, fleet_dir):
    by = {f["code"]: f["nodes"] for f in data["findings_by_code"]}
    pascal = json.loads((fleet_dir / "n02.json").read_text())["report"]
    errors = {f["code"] for f in pascal["findings"] if f["severity"] == "error"}
    assert errors and all("n02" in by[c] for c in errors)
    t4_codes = {f["code"] for f in json.loads((fleet_dir / "n03.json").read_text())["findings"]}
    assert all(by[c][:2] == ["n01", "n03"] or "n01" in by[c] for c in t4_codes)


def test_text_and_markdown_show_the_same_view(fleet_dir, data):
    text = invoke("fleet", "report", str(fleet_dir)).stdout
    md = invoke("fleet", "report", str(fleet_dir), "--format", "markdown").stdout
    for n in data["nodes"]:
        assert n["name"] in text and n["name"] in md
    assert "gpus.models" in text and "| gpus.models |" in md


def test_bad_inputs_are_exit_2(tmp_path):
    r = invoke("fleet", "report", str(tmp_path / "nope"))
    assert r.exit_code == 2
    (tmp_path / "junk.json").write_text("[1, 2")
    r = invoke("fleet", "report", str(tmp_path / "junk.json"), "--format", "json")
    node = json.loads(r.stdout)["nodes"][0]
    assert r.exit_code == 1 and node["status"] == "unreadable" and node["verdict"] == "error"


def test_html_is_self_contained_and_renders_in_chromium(fleet_dir, tmp_path):
    page = tmp_path / "fleet.html"
    assert invoke("fleet", "report", str(fleet_dir), "--format", "html", "-o", str(page)).exit_code == 1
    html = page.read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html  # no network
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium (Debian package chromium) is not installed: HTML not rendered")
    shot = tmp_path / "fleet.png"
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--no-first-run", "--user-data-dir=" + str(tmp_path / "profile")]
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for n in ("n01", "n02", "n03", "n04", "gpus.models"):
        assert n in dom.stdout
    proc = subprocess.run([*common, "--window-size=1200,900", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000  # a rendered page, not a blank one
    keep = HERE.parent / ".pytest_cache" / "fleet-report.png"  # to look at after a run
    keep.parent.mkdir(exist_ok=True)
    shutil.copy(shot, keep)
