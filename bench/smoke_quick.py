"""Benchmark `gpudoctor smoke --quick` on one GPU against its budgets.

Budgets (docs/smoke.md):
  1. wall time of `gpudoctor smoke --quick` on one GPU, CUDA initialisation
     included: <= 10 s;
  2. its large-GEMM BF16 TFLOPS within 10 % of the best plain torch.matmul
     rate measured on the same GPU (so the smoke figure is a truthful reading).

    python bench/smoke_quick.py [--python PATH] [--gpu 0] [--repeat 3] [--out FILE]

PATH is an interpreter with a CUDA build of torch (default: this one).
Results are printed and written as JSON to FILE (default: $OUT/bench-smoke-quick.json
when OUT is set). Exit status: 0 within both budgets, 1 over a budget,
2 when there is no GPU (or the run could not be measured).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from gpudoctor.host import RealHost
from gpudoctor.smoke.driver import run_driver_check
from gpudoctor.smoke.judge_driver import driver_findings

WALL_BUDGET_S = 10.0
BF16_FRACTION_BUDGET = 0.90
BEST_MATMUL = r"""
import json, sys, torch
dev = torch.device("cuda", int(sys.argv[1]))
torch.cuda.set_device(dev)
best = {}
for n in (4096, 6144, 8192, 12288, 16384):
    try:
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    except RuntimeError:
        break
    for _ in range(5):
        torch.matmul(a, b)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    iters = 20
    start.record()
    for _ in range(iters):
        torch.matmul(a, b)
    end.record()
    end.synchronize()
    best[n] = 2.0 * n ** 3 * iters / (start.elapsed_time(end) / 1000.0) / 1e12
    del a, b
    torch.cuda.empty_cache()
print(json.dumps({"name": torch.cuda.get_device_name(dev), "tflops_by_size": best}))
"""


def no_gpu_reason() -> str | None:
    findings, usable = driver_findings(run_driver_check(RealHost()))
    return None if usable else (findings[0].title if findings else "no usable GPU")


def run_smoke_once(python: str, gpu: int) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "gpudoctor", "smoke", "--json", "--quick", "--gpus", str(gpu), "--python", python]
    start = time.monotonic()
    res = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - start
    try:
        return wall, json.loads(res.stdout)
    except ValueError:
        raise SystemExit(f"gpudoctor smoke printed no JSON (exit {res.returncode}): {res.stderr[-500:]}") from None


def bf16_tflops(report: dict) -> float | None:
    for gpu in report.get("gpus", []):
        for t in gpu.get("tests", []):
            if t["name"] == "gemm_bf16":
                return t.get("tflops")
    return None


def best_matmul(python: str, gpu: int) -> dict:
    res = subprocess.run([python, "-c", BEST_MATMUL, str(gpu)], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        raise SystemExit(f"plain torch.matmul benchmark failed: {res.stderr[-500:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--gpu", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    reason = no_gpu_reason()
    if reason:
        print(f"no GPU: {reason}. This benchmark needs an NVIDIA GPU and a CUDA build of torch.", file=sys.stderr)
        return 2
    runs = [run_smoke_once(args.python, args.gpu) for _ in range(max(args.repeat, 1))]
    walls = [w for w, _ in runs]
    smoke_bf16 = [bf16_tflops(r) for _, r in runs]
    plain = best_matmul(args.python, args.gpu)
    best = max(plain["tflops_by_size"].values()) if plain["tflops_by_size"] else None
    smoke_best = max((v for v in smoke_bf16 if v is not None), default=None)
    fraction = smoke_best / best if smoke_best and best else None
    wall_median = statistics.median(walls)
    result = {
        "gpu": plain["name"], "python": args.python,
        "smoke_wall_s": walls, "smoke_wall_median_s": wall_median, "wall_budget_s": WALL_BUDGET_S,
        "smoke_bf16_tflops": smoke_bf16, "plain_matmul_tflops_by_size": plain["tflops_by_size"],
        "plain_matmul_best_tflops": best, "smoke_vs_plain": fraction, "fraction_budget": BF16_FRACTION_BUDGET,
        "smoke_exit_codes": [r.get("exit_code") for _, r in runs],
    }
    ok = wall_median <= WALL_BUDGET_S and fraction is not None and fraction >= BF16_FRACTION_BUDGET
    result["within_budget"] = ok
    print(f"GPU: {plain['name']}")
    print(f"smoke --quick wall: {', '.join(f'{w:.2f}' for w in walls)} s (median {wall_median:.2f}, "
          f"budget {WALL_BUDGET_S:g})")
    print(f"BF16 GEMM: smoke {smoke_best} TFLOPS, best plain torch.matmul {best} TFLOPS "
          f"-> {100 * fraction:.1f} % (budget >= {100 * BF16_FRACTION_BUDGET:.0f} %)" if fraction else
          "BF16 GEMM: not measured (skipped or failed in the smoke run)")
    out = args.out or (os.path.join(os.environ["OUT"], "bench-smoke-quick.json") if os.environ.get("OUT") else None)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    if fraction is None:
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
