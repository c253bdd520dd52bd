"""Exact mode's evidence, as figures: the tracker against real CPU allocations,
and formula mode against exact mode on the presets.

    python bench/plan_exact_check.py --python /path/to/venv-with-torch/bin/python
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpudoctor.plan import memory, models
from gpudoctor.plan.accuracy import EXACT_CASES
from gpudoctor.plan.exact import request_for, run_exact_many
from gpudoctor.plan.job import GIB, Job

FACTORIES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "plan" / "factories.py"
REAL = {
    "mlp preset, fp32 AdamW, batch 64": dict(builtin="mlp", job=Job(batch=64, precision="fp32")),
    "MLP factory, fp32 SGD, batch 16": dict(factory=f"{FACTORIES}:tiny_mlp", job=Job(batch=16, precision="fp32",
                                                                                     optimizer="sgd")),
    "tiny LM factory, fp32 AdamW, 4 x 64": dict(factory=f"{FACTORIES}:tiny_lm",
                                                job=Job(batch=4, seq=64, precision="fp32")),
    "tiny LM factory, bf16, checkpointed": dict(factory=f"{FACTORIES}:tiny_lm",
                                                job=Job(batch=4, seq=64, precision="bf16", grad_checkpointing=True)),
    "gpt2 preset, fp32 AdamW, 1 x 64": dict(builtin="gpt2", job=Job(batch=1, seq=64, precision="fp32")),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="interpreter with torch installed")
    args = ap.parse_args()
    reqs = [request_for(c["job"], builtin=c.get("builtin"), factory=c.get("factory"), measure_real=True)
            for c in REAL.values()]
    print("Tracker (fake tensors) vs real CPU allocations (profiler memory events), one training step:")
    print(f"  {'case':40s} {'tracked MiB':>12s} {'real MiB':>10s} {'diff':>7s}")
    for name, res in zip(REAL, run_exact_many(args.python, reqs, timeout=1800)):
        if isinstance(res, Exception):
            print(f"  {name:40s} error: {res}")
            continue
        diff = res.peak_bytes / res.real_peak_bytes - 1
        print(f"  {name:40s} {res.peak_bytes / 2**20:12.2f} {res.real_peak_bytes / 2**20:10.2f} {100 * diff:+6.1f}%")
    reqs = [request_for(job, builtin=name) for name, job in EXACT_CASES.values()]
    print("\nFormula mode vs exact mode (allocated bytes at the peak, no CUDA context):")
    print(f"  {'case':40s} {'exact GiB':>10s} {'formula GiB':>12s} {'diff':>7s}  exact peak at")
    for case, res in zip(EXACT_CASES, run_exact_many(args.python, reqs, timeout=2400)):
        name, job = EXACT_CASES[case]
        if isinstance(res, Exception):
            print(f"  {case:40s} error: {res}")
            continue
        formula = memory.estimate(models.find_preset(name), job).allocated
        diff = formula / res.peak_bytes - 1
        print(f"  {case:40s} {res.peak_bytes / GIB:10.3f} {formula / GIB:12.3f} {100 * diff:+6.1f}%  {res.phase}")
    print(f"\n(torch {res.torch_version}, simulated on {res.device_simulated})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
