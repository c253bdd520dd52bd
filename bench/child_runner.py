"""What gpudoctor.child costs its three callers, on this machine.

    python bench/child_runner.py [--runs N]

Prints the median wall time of host.run_command(["true"]) (a probe's floor),
of capturing 3 MB of stdout through host.run_command, and of handing 50,000
fleet part lines (46 MB) to a callback through fleet.proc.run_streaming.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from gpudoctor.fleet.proc import run_streaming
from gpudoctor.host import run_command

BIG_OUTPUT = "import sys; sys.stdout.write('x' * 3000000)"
PART_LINES = ("import sys\nline = '0: @@gpudoctor-part ' + 'x' * 900 + '\\n'\n"
              "for _ in range(50000): sys.stdout.write(line)\n")


def median_s(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    runs = ap.parse_args().runs

    def true() -> None:
        assert run_command(["true"], timeout=10).ok

    def big() -> None:
        assert len(run_command([sys.executable, "-c", BIG_OUTPUT], timeout=30).stdout) == 3_000_000

    def lines() -> None:
        count = [0]
        done = run_streaming([sys.executable, "-c", PART_LINES], 60, lambda line: count.__setitem__(0, count[0] + 1))
        assert done.returncode == 0 and count[0] == 50_000

    print(f"run_command(['true']):          {median_s(true, runs * 10) * 1e3:7.2f} ms median")
    print(f"run_command, 3 MB of stdout:    {median_s(big, runs) * 1e3:7.1f} ms median")
    print(f"fleet, 50,000 lines (46 MB):    {median_s(lines, max(3, runs // 4)) * 1e3:7.1f} ms median")


if __name__ == "__main__":
    main()
