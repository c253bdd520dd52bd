"""Run `diagnose` over a labelled corpus and print, per split:

- named: the established cause is the category of an error- or warning-severity
  finding (the issue's goal);
- first: the first finding's category is the established cause;
- false errors: an error-severity finding on a negative control (an environment
  that is fine).

    python bench/diagnose_corpus.py [-v] [--corpus DIR] [--summary-only] [--by KEY]

DIR holds MANIFEST.toml and the pastes (default: tests/diagnose_corpus).
`--summary-only` prints the numbers and nothing about single reports: the way a
held-out slice is scored without anyone reading it. `--by framework|format|expected`
adds a breakdown of the named rate.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpudoctor.diagnose import read_paste  # noqa: E402
from gpudoctor.diagnose.findings import diagnose_report  # noqa: E402
from gpudoctor.findings import Severity  # noqa: E402
from gpudoctor.matrices import load_matrices  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

CORPUS = ROOT / "tests" / "diagnose_corpus"
SERIOUS = (Severity.ERROR, Severity.WARNING)


def outcome(path: Path, matrices) -> tuple[str, set[str], bool]:
    """(first finding's category or 'none', categories of error/warning findings, any error)."""
    report = diagnose_report(read_paste(path.read_bytes(), matrices=matrices), matrices)
    first = report.findings[0].category if report.findings else "none"
    named = {f.category for f in report.findings if f.severity in SERIOUS}
    errors = any(f.severity is Severity.ERROR for f in report.findings)
    return first, named, errors


def score(corpus: Path, verbose: bool = False, summary_only: bool = False, by: str | None = None) -> dict:
    manifest = tomllib.loads((corpus / "MANIFEST.toml").read_text(encoding="utf-8"))["report"]
    matrices = load_matrices(overlay=None)
    # split -> [named, first, positives, false errors, negatives]
    splits: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in manifest:
        first, named, errors = outcome(corpus / row["file"], matrices)
        tally = splits[row.get("split", "development")]
        if row["expected"] == "none":
            tally[4] += 1
            tally[3] += errors
            ok = not errors
        else:
            tally[2] += 1
            ok = row["expected"] in named
            tally[0] += ok
            tally[1] += first == row["expected"]
            if by:
                g = groups[str(row.get(by, "?"))]
                g[0] += ok
                g[1] += 1
        if not summary_only and (verbose or not ok):
            print(f"{'ok  ' if ok else 'MISS'} {row['file']}: expected {row['expected']}, "
                  f"got {sorted(named) or ['none']} (first {first})")
    total = [sum(t[i] for t in splits.values()) for i in range(5)]
    for name, (named, first, positives, false_errors, negatives) in [*sorted(splits.items()), ("all", total)]:
        print(f"{name}: named {named}/{positives} = {named / max(positives, 1):.0%}; "
              f"first {first}/{positives} = {first / max(positives, 1):.0%}; "
              f"false errors on negatives {false_errors}/{negatives}")
    for key, (hits, n) in sorted(groups.items()):
        print(f"  {by}={key}: named {hits}/{n}")
    return {"named": total[0], "first": total[1], "positives": total[2], "false_errors": total[3],
            "negatives": total[4]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--by", choices=["framework", "format", "expected", "year"])
    ap.add_argument("--known-misses", action="store_true",
                    help="print the misses as tests/diagnose_corpus/KNOWN_MISSES.toml entries")
    args = ap.parse_args(argv)
    if args.known_misses:
        print_known_misses(args.corpus)
        return 0
    score(args.corpus, args.verbose, args.summary_only, args.by)
    return 0


def print_known_misses(corpus: Path) -> None:
    manifest = tomllib.loads((corpus / "MANIFEST.toml").read_text(encoding="utf-8"))["report"]
    matrices = load_matrices(overlay=None)
    for row in manifest:
        _, named, errors = outcome(corpus / row["file"], matrices)
        if row["expected"] == "none" and errors:
            print(f'"{row["file"]}" = "an error finding on a negative control"')
        elif row["expected"] != "none" and row["expected"] not in named:
            print(f'"{row["file"]}" = "{row["expected"]} not named; found {", ".join(sorted(named)) or "nothing"}"')


if __name__ == "__main__":
    sys.exit(main())
