"""Time the fleet and CI paths.

    python bench/fleet_speed.py [--nodes N] [--runs R]

1. `gpudoctor fleet report DIR --format json|html` over N node reports (a recorded
   snapshot, tests/rules/GD612/bad.json, judged once, then written N times with a
   driver release that differs on every tenth node, so drift and groups have work);
2. `gpudoctor check --format oneline|prometheus|json` on this machine, in a fresh
   process each time (what a Slurm health check or a textfile timer pays).
Prints the median wall time of R runs of each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def median_s(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=False)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def write_fleet(out: Path, nodes: int) -> None:
    from gpudoctor.doctor import judge
    from gpudoctor.fleet.node import envelope
    from gpudoctor.matrices import load_matrices
    from gpudoctor.render.json import report_data
    from gpudoctor.snapshot import Snapshot

    data = json.loads((ROOT / "tests/rules/GD612/bad.json").read_text())
    data.pop("_note", None)
    for i in range(nodes):
        if i % 10 == 9:
            data["driver"]["version"]["value"] = "580.82.07"
        else:
            data["driver"]["version"]["value"] = "580.95.05"
        report = report_data(judge(Snapshot.from_dict(data), load_matrices()))
        name = f"gpu{i:04d}"
        (out / f"{name}.json").write_text(json.dumps(envelope(name, "ok", report["summary"]["exit_code"], "", report)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    gd = [sys.executable, "-m", "gpudoctor"]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_fleet(d, args.nodes)
        size = sum(p.stat().st_size for p in d.glob("*.json")) / 1e6
        out = subprocess.run([*gd, "fleet", "report", str(d), "--format", "json"], capture_output=True, text=True,
                             timeout=600).stdout
        got = json.loads(out)
        assert len(got["nodes"]) == args.nodes and [x["fact"] for x in got["drift"]] == ["driver.version"], got["drift"]
        for fmt in ("json", "html"):
            s = median_s([*gd, "fleet", "report", str(d), "--format", fmt], args.runs)
            print(f"fleet report --format {fmt}: {args.nodes} nodes ({size:.1f} MB): median {s:.2f} s")
    for fmt in ("oneline", "prometheus", "json"):
        s = median_s([*gd, "check", "--format", fmt], args.runs)
        print(f"check --format {fmt} (fresh process, this machine): median {s:.2f} s")


if __name__ == "__main__":
    main()
