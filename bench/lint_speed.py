"""Time `gpudoctor lint` and `gpudoctor requires` on the real fixture files.

    python bench/lint_speed.py [--runs N]

For each file under tests/fixtures/lint/: the median time of lint_file() in a
warm process (read, resolve, judge) against a described machine, and of
host_needs(); then the median wall time of a fresh `gpudoctor lint FILE --sm 9.0
--driver 580.65.06` process over all files (what a pre-commit hook run costs).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gpudoctor.install.target import target_from_options
from gpudoctor.lint.engine import host_from_target, lint_file, read_source
from gpudoctor.lint.resolve import resolve
from gpudoctor.matrices import load_matrices
from gpudoctor.requires import host_needs

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "lint"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    m = load_matrices(overlay=None)
    target = target_from_options(m, driver="580.65.06", sms=("9.0",), python="3.12")
    host = host_from_target(target)
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix != ".md"  # not the READMEs
                   and not any(part.startswith(".") for part in p.relative_to(FIXTURES).parts))
    lint_file(str(files[0]), host, target.platform, m)  # load matrices and rules once
    print(f"{'file':48} {'bytes':>7} {'lint ms':>8} {'requires ms':>12} findings")
    for path in files:
        lint_t, req_t = [], []
        for _ in range(args.runs):
            t = time.perf_counter()
            report = lint_file(str(path), host, target.platform, m)
            lint_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            host_needs(resolve(read_source(str(path)), host, m, target.platform).snapshot, m)
            req_t.append(time.perf_counter() - t)
        print(f"{str(path.relative_to(FIXTURES)):48} {path.stat().st_size:7d} {statistics.median(lint_t) * 1e3:8.1f} "
              f"{statistics.median(req_t) * 1e3:12.1f} {len(report.findings)}")
    walls = []
    for _ in range(max(3, args.runs // 4)):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gpudoctor", "lint", *map(str, files), "--sm", "9.0",
                        "--driver", "580.65.06", "--python", "3.12"], capture_output=True, timeout=120)
        walls.append(time.perf_counter() - t)
    print(f"fresh process, all {len(files)} files: median {statistics.median(walls):.2f} s")


if __name__ == "__main__":
    main()
