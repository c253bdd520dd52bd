"""Exactly one line, for a Slurm drain reason, an NHC `die` message, a Docker
HEALTHCHECK (docker inspect keeps 4096 bytes) or a Kubernetes termination
message: the verdict, the counts and the worst finding that fails the run."""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.render.outcomes import RunView, finding_name

MAX_CHARS = 250  # drain reasons are read in `sinfo -R` columns: keep them short


def render(view: RunView, max_chars: int = MAX_CHARS) -> str:
    e, w = view.count(Severity.ERROR), view.count(Severity.WARNING)
    counts = f"{e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}"
    failing = [f for f in view.findings if view.fails(f)]
    if view.exit_code == 0:
        line = f"gpudoctor {view.command}: OK ({counts})"
    elif failing:
        worst = failing[0]
        more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
        line = f"gpudoctor {view.command}: FAIL {counts}: {worst.code} {finding_name(worst)}{more}"
    else:  # a failed smoke test without a finding of its own
        broken = next((c for c in view.cases if c.status in ("failed", "broken")), None)
        line = f"gpudoctor {view.command}: FAIL {counts}" + (f": {broken.name} {broken.message}" if broken else "")
    line = " ".join(line.split())  # no newline or tab can survive
    return (line if len(line) <= max_chars else line[: max_chars - 1] + "…") + "\n"
