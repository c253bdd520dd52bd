"""Prometheus text exposition format, for node_exporter's textfile collector
(--collector.textfile.directory; it reads *.prom files). Gauges only.

Every series carries `command`, so a check timer and a smoke timer can write
two files into the same directory without duplicate series; HELP and TYPE are
the same text in every file, as node_exporter requires. Write the file
atomically (temp file, then rename): deploy/prometheus/ shows how.
"""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.render.outcomes import RunView


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _series(name: str, labels: dict[str, str], value: float | int) -> str:
    inner = ",".join(f'{k}="{_label(v)}"' for k, v in labels.items())
    return f"{name}{{{inner}}} {value!r}" if isinstance(value, float) else f"{name}{{{inner}}} {value}"


def _family(name: str, help_text: str, rows: list[str]) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", *rows]


def render(view: RunView) -> str:
    cmd = {"command": view.command}
    out = _family("gpudoctor_exit_code",
                  "Exit code of the last gpudoctor run (0 ok, 1 findings fail, 2 bad input, 3 internal error).",
                  [_series("gpudoctor_exit_code", cmd, view.exit_code)])
    out += _family("gpudoctor_findings", "Findings of the last gpudoctor run, by severity.",
                   [_series("gpudoctor_findings", {**cmd, "severity": s.value}, view.count(s)) for s in Severity])
    seen: set[tuple[str, str]] = set()
    rows = []
    for f in view.findings:
        key = (f.code, f.subject or "")
        if key in seen:  # one series per (code, subject): a duplicate series is invalid
            continue
        seen.add(key)
        rows.append(_series("gpudoctor_finding", {**cmd, "code": f.code, "severity": f.severity.value,
                                                  "category": f.category, "subject": f.subject or ""}, 1))
    out += _family("gpudoctor_finding", "One series per finding of the last run (value 1).", rows)
    if view.rates:
        out += _family("gpudoctor_smoke_fraction_of_peak", "Measured rate / the GPU's dense peak, per smoke test.",
                       [_series("gpudoctor_smoke_fraction_of_peak",
                                {"test": r.test, "gpu": r.gpu, "model": r.model}, float(r.fraction))
                        for r in view.rates])
    out += _family("gpudoctor_last_run_timestamp_seconds", "Unix time the last gpudoctor run finished.",
                   [_series("gpudoctor_last_run_timestamp_seconds", cmd, float(round(view.finished, 3)))])
    return "\n".join(out) + "\n"
