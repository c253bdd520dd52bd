"""Time `diagnose` on large pastes built from the corpus and samples: every
line of them, shuffled, so every parser has work on every part of the paste
(a worst case; a real log is mostly lines no parser wants). The target is
under a second for 1 MB. CPU time is printed too: on a loaded machine it is
the steadier figure.

    python bench/diagnose_speed.py [MEGABYTES ...]     # default: 1 10
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpudoctor.diagnose import read_paste  # noqa: E402
from gpudoctor.diagnose.findings import diagnose_report  # noqa: E402
from gpudoctor.matrices import load_matrices  # noqa: E402


REPEATS = 3


def paste_of(megabytes: float, seed: int = 6) -> str:
    files = sorted((ROOT / "tests" / "diagnose_corpus").glob("*.txt")) + sorted(
        (ROOT / "tests" / "diagnose_samples").glob("*.txt"))
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    out, size = [], 0
    while size < megabytes * 1024 * 1024:
        line = rng.choice(lines) + "\n"
        out.append(line)
        size += len(line)
    return "".join(out)


def log_of(megabytes: float, seed: int = 6) -> str:
    """A realistic big paste: a training log with an environment report and an
    error in it."""
    rng = random.Random(seed)
    report = (ROOT / "tests" / "diagnose_corpus" / "pytorch-110153-h100-collect-env.txt").read_text()
    out, size, step = [], 0, 0
    while size < megabytes * 1024 * 1024:
        step += 1
        line = (f"Epoch {step // 500}: {step % 500 / 5:.0f}%|#####     | {step % 500}/500 [01:01<01:15, "
                f"{rng.uniform(2, 5):.2f}it/s, loss={rng.uniform(0, 2):.4f}]\n" if step % 7 else
                f"INFO:trainer:step {step} loss {rng.uniform(0, 2):.4f} lr {rng.uniform(1e-5, 1e-3):.2e} "
                f"grad_norm {rng.uniform(0, 9):.3f}\n")
        out.append(line)
        size += len(line)
    out.insert(len(out) // 2, report)
    out.append("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    return "".join(out)


def main(sizes: list[float]) -> None:
    matrices = load_matrices(overlay=None)
    diagnose_report(read_paste("warm up", matrices=matrices), matrices)
    for mb, kind, text in [(mb, kind, make(mb)) for mb in sizes
                           for kind, make in (("shuffled formats", paste_of), ("training log", log_of))]:
        runs = []
        for _ in range(REPEATS):
            start, cpu = time.perf_counter(), time.process_time()
            d = read_paste(text, matrices=matrices)
            report = diagnose_report(d, matrices)
            runs.append((time.perf_counter() - start, time.process_time() - cpu))
        wall, cpu = min(runs)
        print(f"{mb:g} MB {kind} ({len(text.splitlines())} lines): best of {REPEATS}: {wall:.2f} s wall, "
              f"{cpu:.2f} s CPU; {len(d.reads)} facts read, {len(d.signals)} error lines, "
              f"{len(report.findings)} findings")


if __name__ == "__main__":
    main([float(a) for a in sys.argv[1:]] or [1, 10])
