"""Print the [preset.measured] numbers of the non-transformer presets.

For each model and precision, exact mode (fake tensors, no GPU needed) runs
training steps at two batch sizes; the slope of the forward/backward peak
between them is the memory one more sample costs, and FlopCounterMode gives
the FLOPs. Paste the output into gpudoctor/data/plan_presets.toml.

    python bench/plan_calibrate.py --python /path/to/venv-with-torch/bin/python
"""

from __future__ import annotations

import argparse
import sys

from gpudoctor.plan.exact import request_for, run_exact_many
from gpudoctor.plan.job import Job

MODELS = {"mlp": (8, 64), "lstm-2layer": (4, 20), "resnet18": (2, 6), "resnet50": (2, 6), "yolov5s": (2, 6),
          "ddpm-unet": (4, 16), "sd-unet": (1, 3)}
PRECISIONS = {"fp32": "act_fp32", "amp-bf16": "act_amp", "bf16": "act_bf16"}


def activation_peak(res) -> float:
    return max(v["bytes"] for k, v in res.phase_peaks.items() if k in ("forward", "backward"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="interpreter with torch installed")
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_args()
    for name in args.models:
        small, large = MODELS[name]
        runs = [(p, b) for p in PRECISIONS for b in (small, large)]
        results = run_exact_many(args.python, [request_for(Job(batch=b, precision=p), builtin=name) for p, b in runs],
                                 timeout=3600)
        by = {}
        for (precision, batch), res in zip(runs, results):
            if isinstance(res, Exception):
                raise res
            by[precision, batch] = res
        flops = by["fp32", large].flops_per_step / 3 / large
        lines = []
        for precision, key in PRECISIONS.items():
            slope = (activation_peak(by[precision, large]) - activation_peak(by[precision, small])) / (large - small)
            lines.append(f"{key} = {slope:.6g}")
        res = by["fp32", large]
        print(f"# {name}: batches {small} and {large}")
        print("[preset.measured]")
        print(f"fwd_flops = {flops:.6g}")
        print("\n".join(lines))
        print(f'source = "gpudoctor exact mode ({res.torch_version}, fake tensors), bench/plan_calibrate.py"\n')
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
