"""Time collect(RealHost()) on this machine, per target interpreter.

    python bench/probe_time.py [--runs N] [--python PATH ...]

For each target (gpudoctor's own interpreter, then each --python), prints the
median wall time of collect() in a warm process, the slowest probes, and, in
a fresh process, the median time to import gpudoctor.probes and to collect
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
    "t1 = time.perf_counter()\n"
    "collect(RealHost(), sys.argv[1] or None)\n"
    "print(t1 - t, time.perf_counter() - t1)\n"
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


def fresh_runs(python: str | None, runs: int) -> tuple[float, float]:
    """Median (import time, collect time) in a fresh process."""
    imports, collects = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", FRESH, python or ""], capture_output=True, text=True,
                             check=True, timeout=120)
        first, second = out.stdout.strip().splitlines()[-1].split()
        imports.append(float(first))
        collects.append(float(second))
    return statistics.median(imports), statistics.median(collects)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--python", action="append", default=[], help="a target interpreter (repeatable)")
    args = parser.parse_args()
    print(f"{'target':<34} {'warm collect':>12} {'fresh: import + collect':>24}  slowest probes (warm)")
    for python in [None, *args.python]:
        collect(RealHost(), python)  # warm the page cache once
        warm, probes = warm_runs(python, args.runs)
        imp, fresh = fresh_runs(python, max(3, args.runs // 2))
        slow = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in sorted(probes.items(), key=lambda kv: -kv[1])[:3])
        print(f"{python or '(own interpreter)':<34} {warm * 1000:>9.0f} ms {imp * 1000:>10.0f} ms + {fresh * 1000:>4.0f} ms"
              f"  {slow}")


if __name__ == "__main__":
    main()
