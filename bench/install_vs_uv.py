"""gpudoctor install vs uv's --torch-backend=auto on the machine table.

For every torch machine in tests/install/machines.py: the build gpudoctor
chooses, the build uv's documented rule resolves to (tests/install/uv_auto.py),
and whether each works there by the shipped matrices (kernels for every GPU,
driver, cuDNN floor). Prints a markdown table and the counts quoted in
docs/install.md.

    python bench/install_vs_uv.py            # table + summary
    python bench/install_vs_uv.py --summary  # counts only
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "install"))

from machines import TORCH  # noqa: E402
from uv_auto import judge_uv  # noqa: E402

from gpudoctor.install import plan_install  # noqa: E402
from gpudoctor.install.candidates import version_key  # noqa: E402
from gpudoctor.install.request import parse_request  # noqa: E402
from gpudoctor.matrices import load_matrices  # noqa: E402


def main(argv: list[str]) -> int:
    m = load_matrices(overlay=None)
    rows, timings = [], []
    for row in TORCH:
        if row.driver is None and not row.cpu:
            continue  # uv reads the driver of a real machine; a described one without it is not comparable
        req = parse_request("torch", (), row.request)
        start = time.perf_counter()
        plan = plan_install(req, row.target(), m)
        timings.append(time.perf_counter() - start)
        uv_pick, uv_works, uv_why = judge_uv(row.target(), req, m)
        rows.append((row, plan, uv_pick, uv_works, uv_why))

    n = len(rows)
    solvable = sum(1 for _, p, *_ in rows if p.ok)
    gd_ok = solvable  # every plan gpudoctor returns passed its own checks
    uv_ok = sum(1 for *_, works, _ in rows if works)
    uv_broken = sum(1 for _, _, pick, works, _ in rows if pick and not works)
    uv_broken_when_none = sum(1 for _, p, pick, works, _ in rows if not p.ok and pick and not works)
    older = sum(1 for _, p, pick, works, _ in rows
                if works and p.ok and version_key(pick[0]) < version_key(p.choice.candidate.version))

    if "--summary" not in argv:
        print("| machine | gpudoctor | uv --torch-backend=auto | uv works? |")
        print("|---|---|---|---|")
        for row, plan, pick, works, why in rows:
            gd = (f"{plan.choice.candidate.version} {plan.choice.candidate.variant}" if plan.ok
                  else "none (says why)")
            uv = f"{pick[0]} {pick[1]}" if pick else "nothing"
            verdict = "yes" if works else f"no: {why[:90]}"
            print(f"| {row.id} | {gd} | {uv} | {verdict} |")
        print()
    print(f"machines compared: {n} (torch rows of tests/install/machines.py with a driver or --cpu)")
    print(f"machines where some published wheel works: {solvable}")
    print(f"gpudoctor install: working wheel on {gd_ok}/{n}; on the other {n - gd_ok} it installs nothing and says why")
    print(f"uv --torch-backend=auto: working wheel on {uv_ok}/{n}; a wheel that does not work on {uv_broken} "
          f"({uv_broken - uv_broken_when_none} of them where a working one exists)")
    print(f"uv picks an older torch than needed (works, but older than gpudoctor's choice) on {older}")
    timings.sort()
    print(f"gpudoctor plan time: median {timings[len(timings) // 2] * 1000:.0f} ms, "
          f"max {timings[-1] * 1000:.0f} ms per machine (this host)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
