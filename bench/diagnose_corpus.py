"""Run `diagnose` over the labelled corpus (tests/diagnose_corpus/MANIFEST.toml) and
print the hit rate (first finding's category equals the established diagnosis) and
the false-error rate on negative controls (an error-severity finding where the
environment is fine).

    python bench/diagnose_corpus.py [-v]
"""

from __future__ import annotations

import sys
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


def outcome(path: Path, matrices) -> tuple[str, bool]:
    """(first finding's category or 'none', whether any error-severity finding)."""
    report = diagnose_report(read_paste(path.read_bytes(), matrices=matrices), matrices)
    first = report.findings[0].category if report.findings else "none"
    errors = any(f.severity is Severity.ERROR for f in report.findings)
    return (first if errors or report.findings else "none"), errors


def main(verbose: bool) -> int:
    manifest = tomllib.loads((CORPUS / "MANIFEST.toml").read_text())["report"]
    matrices = load_matrices(overlay=None)
    splits: dict[str, list[int]] = {}  # split -> [hits, positives, false errors, negatives]
    for row in manifest:
        got, errors = outcome(CORPUS / row["file"], matrices)
        tally = splits.setdefault(row.get("split", "development"), [0, 0, 0, 0])
        if row["expected"] == "none":
            tally[3] += 1
            tally[2] += errors
            ok = not errors
        else:
            tally[1] += 1
            ok = got == row["expected"]
            tally[0] += ok
        if verbose or not ok:
            print(f"{'ok  ' if ok else 'MISS'} {row['file']}: expected {row['expected']}, got {got}")
    total = [sum(t[i] for t in splits.values()) for i in range(4)]
    for name, (hits, positives, false_errors, negatives) in [*splits.items(), ("all", total)]:
        print(f"{name}: hit rate (first category) {hits}/{positives} = {hits / max(positives, 1):.0%}; "
              f"false-error rate on negatives {false_errors}/{negatives} = {false_errors / max(negatives, 1):.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main("-v" in sys.argv))
