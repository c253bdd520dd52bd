"""Formula mode against published measured peaks: estimate, measurement, error per row,
and what `accelerate estimate-memory` would print for the same model.

    python bench/plan_accuracy.py [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from gpudoctor.plan.accuracy import TOLERANCE, compare, load_rows
from gpudoctor.plan.job import GIB

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "plan_ground_truth.toml"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="print a markdown table (for docs/plan.md)")
    ap.add_argument("--fixture", default=str(FIXTURE))
    args = ap.parse_args()
    rows = [compare(r) for r in load_rows(args.fixture)]
    head = ["id", "model", "run", "metric", "measured", "gpudoctor", "error", "accelerate", "acc. error", "claimed"]
    lines = []
    for c in rows:
        r = c.row
        if r.metric in ("fits", "oom"):
            measured = f"{r.metric} in {r.gpu_gib:.1f} GiB"
            err = f"{100 * c.of_capacity:.0f} % of it"
        else:
            measured = f"{c.measured_bytes / GIB:.2f} GiB"
            err = f"{100 * c.error:+.1f} %"
        acc = "N/A" if c.accelerate_bytes is None else f"{c.accelerate_bytes / GIB:.2f} GiB"
        acc_err = "" if c.accelerate_bytes is None or c.measured_bytes is None else \
            f"{100 * (c.accelerate_bytes / c.measured_bytes - 1):+.0f} %"
        claimed = ("yes" if c.ok else "FAIL") if r.asserted else "no"
        lines.append([r.id, r.model, r.what, r.metric, measured, f"{c.estimate_bytes / GIB:.2f} GiB", err, acc,
                      acc_err, claimed])
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for ln in lines:
            print("| " + " | ".join(ln) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
        for ln in [head] + lines:
            print("  ".join(str(x).ljust(w) for x, w in zip(ln, widths)))
    claimed = [c for c in rows if c.row.asserted]
    measured = [c for c in rows if c.error is not None]  # every measured peak, claimed or not
    errors = sorted(abs(c.error) for c in measured)
    qlora = [abs(c.error) for c in measured if c.row.job.get("qlora")]
    acc = [abs(c.accelerate_bytes / c.measured_bytes - 1) for c in measured if c.accelerate_bytes is not None]
    worst = max(measured, key=lambda c: abs(c.error))
    print(f"\n{sum(c.ok for c in claimed)}/{len(claimed)} claimed rows within +-{TOLERANCE:.0%} (or on the right "
          f"side of a capacity bound).\nAll {len(measured)} measured peaks (claimed or not): gpudoctor median |error| "
          f"{100 * statistics.median(errors):.1f} %, mean {100 * statistics.mean(errors):.1f} %, max "
          f"{100 * worst.error:+.1f} % ({worst.row.id}), {sum(e > 0.25 for e in errors)} rows beyond 25 %; "
          f"QLoRA rows: max |error| {100 * max(qlora):.1f} % ({len(qlora)} rows).\n"
          f"accelerate estimate-memory on the same rows: median |error| {100 * statistics.median(acc):.0f} %, "
          f"mean {100 * statistics.mean(acc):.0f} % ({len(acc)} rows it can answer).")
    for c in rows:
        if c.row.note:
            print(f"{c.row.id}: {c.row.note}")
    return 0 if all(c.ok for c in claimed) else 1


if __name__ == "__main__":
    sys.exit(main())
