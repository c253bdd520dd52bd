"""deploy/: the scripts run for real with this checkout's gpudoctor on recorded
snapshots. The Prometheus textfile script writes a file promtool accepts; the
NHC check calls NHC's `die` with the one-line verdict; the NFD feature file has
valid labels. (The Slurm health check and Prolog run against the real test
cluster in test_fleet_slurm.py.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.doctor import judge
from gpudoctor.matrices import load_matrices
from gpudoctor.render import nfd
from gpudoctor.snapshot import Snapshot

ROOT = Path(__file__).parents[1]
RULES = ROOT / "tests" / "rules"
GPUDOCTOR = Path(sys.executable).with_name("gpudoctor")


def snapshot_file(fixture: str, tmp_path: Path) -> str:
    data = json.loads((RULES / fixture).read_text())
    data.pop("_note", None)
    out = tmp_path / (fixture.replace("/", "-"))
    out.write_text(json.dumps(data))
    return str(out)


def needs_gpudoctor_script():
    if not GPUDOCTOR.exists():
        pytest.skip(f"no gpudoctor console script next to {sys.executable} (install with pip install -e .)")


def sh(argv, env, timeout=120):
    return subprocess.run(argv, env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", **env},
                          capture_output=True, text=True, timeout=timeout)


def test_textfile_script_writes_metrics_promtool_accepts(tmp_path):
    needs_gpudoctor_script()
    env = {"GPUDOCTOR_BIN": str(GPUDOCTOR), "TEXTFILE_DIR": str(tmp_path)}
    p = sh([str(ROOT / "deploy/prometheus/gpudoctor-textfile.sh"), "--from",
            snapshot_file("GD303/bad.json", tmp_path)], env)
    assert p.returncode == 0, p.stderr  # exit 1 of the check (findings) still writes the file
    prom = tmp_path / "gpudoctor.prom"
    text = prom.read_text()
    assert 'gpudoctor_exit_code{command="check"} 1' in text
    assert not list(tmp_path.glob(".gpudoctor.prom.*"))  # the temp file was renamed, not left
    if shutil.which("promtool") is None:
        pytest.skip("promtool (Debian's prometheus package) is not installed")
    check = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def test_textfile_script_keeps_the_old_file_when_gpudoctor_cannot_judge(tmp_path):
    needs_gpudoctor_script()
    prom = tmp_path / "gpudoctor.prom"
    prom.write_text("# old\n")
    env = {"GPUDOCTOR_BIN": str(GPUDOCTOR), "TEXTFILE_DIR": str(tmp_path)}
    p = sh([str(ROOT / "deploy/prometheus/gpudoctor-textfile.sh"), "--from", str(tmp_path / "missing.json")], env)
    assert p.returncode == 1 and prom.read_text() == "# old\n"


NHC = """die() { echo "DIE:$1:$2"; return 1; }
log() { echo "LOG:$*"; }
. "$0"
check_gpudoctor "$@"
echo "RC:$?"
"""


def nhc(args, env):
    return sh(["bash", "-c", NHC, str(ROOT / "deploy/slurm/gpudoctor.nhc"), *args],
              {"GPUDOCTOR_BIN": str(GPUDOCTOR), **env})


def test_nhc_check_dies_with_the_one_line_verdict(tmp_path):
    needs_gpudoctor_script()
    out = nhc(["--from", snapshot_file("GD303/bad.json", tmp_path)], {}).stdout.splitlines()
    assert out[0].startswith("DIE:1:gpudoctor check: FAIL ") and "GD303" in out[0]
    assert out[-1] == "RC:1"


def test_nhc_check_passes_a_good_node_and_logs_its_own_trouble(tmp_path):
    needs_gpudoctor_script()
    # GD303/good: a GPU whose build has native kernels, no error finding (check exits 0)
    out = nhc(["--from", snapshot_file("GD303/good.json", tmp_path)], {}).stdout.splitlines()
    assert out == ["RC:0"]
    bad_policy = tmp_path / "gpudoctor.toml"
    bad_policy.write_text("[gpus]\ncount = -1\n")
    out = nhc(["--policy", str(bad_policy)], {}).stdout.splitlines()
    assert out[0].startswith("LOG:gpudoctor could not judge this node (exit 2)") and out[-1] == "RC:0"
    out = nhc(["--policy", str(bad_policy)], {"GPUDOCTOR_DRAIN_ON_ERROR": "1"}).stdout.splitlines()
    assert out[0].startswith("DIE:1:gpudoctor could not judge") and out[-1] == "RC:1"


KEY = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def report_of(fixture: str):
    data = json.loads((RULES / fixture).read_text())
    data.pop("_note", None)
    return judge(Snapshot.from_dict(data), load_matrices(overlay=None))


def test_nfd_feature_file_has_valid_labels_and_an_expiry():
    text = nfd.render(report_of("GD303/bad.json"))
    lines = text.splitlines()
    assert re.fullmatch(r"# \+expiry-time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lines[0])
    labels = dict(line.split("=", 1) for line in lines[1:])
    for k, v in labels.items():
        assert KEY.match(k) and not k.split("/")[0].endswith("kubernetes.io"), k
        assert VALUE.match(v), (k, v)
    assert labels["gpudoctor.io/check"] == "fail"
    fw = report_of("GD303/bad.json").snapshot.framework("torch")
    assert labels[f"gpudoctor.io/torch-cu{fw.cuda.value.replace('.', '')}"] == "broken"  # no sm_61 kernels
    assert len(text.encode()) < 64 * 1024


def test_label_values_are_made_valid():
    assert nfd.label_value("580.95.05") == "580.95.05"
    assert VALUE.match(nfd.label_value("2.6.0+cu124 (x)" * 10))
    assert nfd.label_value("+++") == "unknown"


def test_the_action_step_writes_outputs_and_fails_on_findings(tmp_path):
    needs_gpudoctor_script()
    output, summary = tmp_path / "out", tmp_path / "summary.md"
    policy = tmp_path / "gpudoctor.toml"
    policy.write_text('driver_min = "999.0"\n')
    env = {"GPUDOCTOR_BIN": str(GPUDOCTOR), "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(output),
           "GITHUB_STEP_SUMMARY": str(summary), "GD_PYTHON": "", "GD_POLICY": str(policy), "GD_STRICT": "true",
           "GD_ARGS": f"--from {snapshot_file('GD303/good.json', tmp_path)}"}
    p = sh([str(ROOT / "deploy/github/gpudoctor-action.sh")], env)
    assert p.returncode == 1, p.stderr
    assert "::error title=GD905 " in p.stdout  # the policy's driver floor, as an annotation
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    assert outputs["verdict"] == "fail" and Path(outputs["report"]).is_file()
    assert json.loads(Path(outputs["report"]).read_text())["policy"]["file"] == str(policy)
    assert "GD905" in summary.read_text()


def test_alert_rules_pass_promtool():
    if shutil.which("promtool") is None:
        pytest.skip("promtool (Debian's prometheus package) is not installed")
    p = subprocess.run(["promtool", "check", "rules", str(ROOT / "deploy/prometheus/alerts.yml")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "2 rules found" in p.stdout, p.stdout + p.stderr
