"""Human-readable smoke report (rich): one table per GPU, then the findings."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpudoctor.findings import sort_findings
from gpudoctor.render.fit import fit_table
from gpudoctor.smoke.model import GpuResult, SmokeReport, TestResult

STATUS_STYLE = {"pass": "green", "fail": "bold red", "skip": "dim", "crashed": "bold red", "timeout": "bold red"}
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _rate(t: TestResult) -> str:
    if t.value is None:
        return ""
    number = f"{t.value:,.1f}" if t.value >= 10 else f"{t.value:.3g}"
    return f"{number} {'TFLOPS' if t.unit == 'tflops' else 'GB/s'}"


def _peak(t: TestResult) -> str:
    if t.expected is None and t.peak is None:
        return ""
    expected = f"{t.expected:,.0f} / " if t.expected is not None and t.expected != t.peak else ""
    pct = f" ({100 * t.fraction_of_peak:.0f}%)" if t.fraction_of_peak is not None else ""
    return f"{expected}{t.peak or t.expected:,.0f}{pct}"


# Columns dropped first when the terminal is narrow: the note, the tolerance, the error,
# then the expected rate; the test, its status and what it measured always stay.
DROP_FIRST = (6, 5, 4, 3)


def _tests_table(title: str, tests: tuple[TestResult, ...], width: int) -> tuple[Table, list[str]]:
    table = Table(title=title, title_justify="left", expand=False)
    for col in ("test", "status", "measured", "expected / peak (%)", "rel. error", "tolerance"):
        table.add_column(col, no_wrap=True)
    table.add_column("note")
    rows = []
    for t in tests:
        err = "" if t.max_rel_error is None else f"{t.max_rel_error:.1e}"
        tol = "" if t.tolerance is None else f"{t.tolerance:g}"
        note = t.detail if t.status != "pass" or t.detail else (f"kernel: {t.kernel}" if t.kernel else "")
        if t.perf == "low":
            note = (note + "; " if note else "") + "below expected rate" + (f" ({t.cause})" if t.cause else "")
        rows.append((t.name, Text(t.status, style=STATUS_STYLE.get(t.status, "")), _rate(t), _peak(t), err,
                     tol, Text(note)))
    dropped = fit_table(table, rows, width, DROP_FIRST)
    return table, dropped


def _gpu_title(g: GpuResult) -> str:
    cc = f", sm_{g.compute_capability.replace('.', '')}" if g.compute_capability else ""
    model = f", peaks from {g.model}" if g.model else ", no peaks (GPU not in the matrices)"
    mig = f", MIG {g.mig_profile} share" if g.mig_profile else ""
    return f"GPU {g.index}: {g.name}{cc}{model}{mig}"


def render(report: SmokeReport, console: Console) -> None:
    head = report.framework or "no framework"
    console.print(f"[bold]gpudoctor smoke[/bold] ({report.mode}) · {head} · {report.python or ''} · "
                  f"{report.wall_s:.1f} s")
    if report.precision:
        env = report.precision.get("env") or {}
        facts = ", ".join([f"{k}={v}" for k, v in env.items() if v is not None]
                          + [f"float32 matmul precision {report.precision.get('float32_matmul_precision')}"])
        console.print(Text(f"TF32: {facts}", style="dim"))
    dropped: list[str] = []
    for title, tests in [*((_gpu_title(g), g.tests) for g in report.gpus),
                         *((("all GPUs", report.node_tests),) if report.node_tests else ())]:
        table, left_out = _tests_table(title, tests, console.width)
        console.print(table)
        dropped += [d for d in left_out if d not in dropped]
    if dropped:
        console.print(Text(f"left out at this width: {', '.join(dropped)} (a wider terminal or --json shows them)",
                           style="dim"))
    findings = sort_findings(list(report.findings))
    for f in findings:
        console.print(Text(f"{f.code} {f.severity.value}", style=SEVERITY_STYLE[f.severity.value]),
                      Text(f.title))
        for e in f.evidence[:6]:
            console.print(Text(f"    {e.fact}: {e.value}", style="dim"))
        if f.fix:
            console.print(f"    fix: {f.fix.text}")
            for cmd in f.fix.commands:
                console.print(Text(f"      $ {cmd}"))
    failed = report.failed_tests
    verdict = "FAIL" if int(report.exit_code) else "PASS"
    style = "bold red" if int(report.exit_code) else "bold green"
    console.print(Text(f"{verdict}: {len(failed)} failed test(s), {len(findings)} finding(s)", style=style))
