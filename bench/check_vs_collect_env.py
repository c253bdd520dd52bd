"""Time `gpudoctor check --json` (and --deep) against `python -m torch.utils.collect_env`.

Both judge the same environment: the interpreter given with --python must have
torch installed. Each command runs --runs times; the script prints the medians
and the ratio collect_env / check (target: check >= 20x faster; --deep no
slower than collect_env).

    python bench/check_vs_collect_env.py --python /path/to/venv-with-torch/bin/python

Measure an installed gpudoctor (`pip install .` in its own venv, run from outside
the checkout), as users run it: its `gpudoctor` console script, found next to the
interpreter that runs this script. An editable install adds its import hook, and
PYTHONDONTWRITEBYTECODE=1 makes every run compile the sources again.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

TIMEOUT_S = 600


def timed(argv: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A blocking wait, with the timeout as a timer: Popen.wait(timeout=...)
        # polls with sleeps of up to 50 ms, which would round every sample up.
        killer = threading.Timer(TIMEOUT_S, proc.kill)
        killer.start()
        try:
            proc.wait()
        finally:
            killer.cancel()
        out.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):  # 1 = findings, a valid outcome
            sys.exit(f"{' '.join(argv)} exited {proc.returncode}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", required=True, help="interpreter with torch installed (the environment judged)")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()

    # The console script, as users run it (`python -m` adds runpy's imports); -m without one.
    script = os.path.join(os.path.dirname(sys.executable), "gpudoctor")
    gd = [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "gpudoctor"]
    cases = {
        "collect_env": [args.python, "-m", "torch.utils.collect_env"],
        "check --json": gd + ["check", "--json", "--python", args.python],
        "check --deep --json": gd + ["check", "--deep", "--json", "--python", args.python],
    }
    timed(cases["check --json"], 1)  # warm the file cache for everyone
    timed(cases["collect_env"], 1)
    medians = {}
    for name, argv in cases.items():
        samples = timed(argv, args.runs)
        medians[name] = statistics.median(samples)
        print(f"{name:<22} median {medians[name]:.3f} s  (min {min(samples):.3f}, max {max(samples):.3f}, "
              f"{args.runs} runs)")
    print(f"collect_env / check        = {medians['collect_env'] / medians['check --json']:.1f}x")
    print(f"collect_env / check --deep = {medians['collect_env'] / medians['check --deep --json']:.2f}x")


if __name__ == "__main__":
    main()
