"""Time collect(RealHost()) on this machine, per target interpreter.

    python bench/probe_time.py [--runs N] [--python PATH ...]

For each target (gpudoctor's own interpreter, then each --python), prints the
median wall time of collect() in a warm process, the slowest probe, and the
median time of a fresh process that imports gpudoctor.probes and collects
once (what a `gpudoctor check` run pays for probing, minus rules and output).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from gpudoctor.host import RealHost
from gpudoctor.probes import collect

FRESH = (
    "import sys, time\n"
    "t = time.perf_counter()\n"
    "from gpudoctor.host import RealHost\n"
    "from gpudoctor.probes import collect\n"
    "collect(RealHost(), sys.argv[1] or None)\n"
    "print(time.perf_counter() - t)\n"
)


def warm_runs(python: str | None, runs: int) -> tuple[float, dict[str, float]]:
    totals, per_probe = [], {}
    for _ in range(runs):
        marks: list[tuple[str, float]] = []

        def mark(name: str, marks: list[tuple[str, float]] = marks) -> None:
            marks.append((name, time.perf_counter()))

        start = time.perf_counter()
        collect(RealHost(), python, progress=mark)
        end = time.perf_counter()
        totals.append(end - start)
        for (name, t0), (_, t1) in zip(marks, [*marks[1:], ("end", end)], strict=True):
            per_probe.setdefault(name, []).append(t1 - t0)
    return statistics.median(totals), {k: statistics.median(v) for k, v in per_probe.items()}


def fresh_runs(python: str | None, runs: int) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", FRESH, python or ""], capture_output=True, text=True,
                             check=True, timeout=120)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--python", action="append", default=[], help="a target interpreter (repeatable)")
    args = parser.parse_args()
    print(f"{'target':<40} {'warm median':>12} {'fresh process':>14}  slowest probes")
    for python in [None, *args.python]:
        collect(RealHost(), python)  # warm the page cache once
        warm, probes = warm_runs(python, args.runs)
        fresh = fresh_runs(python, max(3, args.runs // 2))
        slow = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in sorted(probes.items(), key=lambda kv: -kv[1])[:3])
        print(f"{python or '(own interpreter)':<40} {warm * 1000:>9.0f} ms {fresh * 1000:>11.0f} ms  {slow}")


if __name__ == "__main__":
    main()
