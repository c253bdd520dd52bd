"""One neutral view of a run (check, smoke, diagnose, and later lint) for the CI
and scheduler renderers: the findings, one outcome per thing that was checked,
the exit code and the smoke rates. Built from the reports the judges already
made; nothing here judges, it only reshapes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gpudoctor.findings import Finding, Severity, exit_code_for

# JUnit-style status of one checked thing.
PASSED, FAILED, SKIPPED, BROKEN = "passed", "failed", "skipped", "broken"


@dataclass(frozen=True)
class Case:
    """One check outcome: a rule on this machine, one finding, or one smoke test."""

    group: str  # "GD303", or "smoke.gemm_bf16"
    name: str  # "GPU 0 × torch: no kernels for sm_61", "GD201 driver-too-old-for-build"
    status: str  # PASSED | FAILED | SKIPPED | BROKEN
    message: str = ""  # one line: why it failed, was skipped or broke
    detail: str = ""  # evidence and fix, several lines
    seconds: float | None = None


@dataclass(frozen=True)
class Rate:
    """A smoke rate against the GPU's peak (for gauges)."""

    test: str
    gpu: str
    model: str
    fraction: float


@dataclass(frozen=True)
class RunView:
    """One run as the CI and scheduler renderers see it: findings, outcomes, exit code and rates."""

    command: str  # "check" | "smoke" | "diagnose"
    findings: tuple[Finding, ...]
    cases: tuple[Case, ...]
    exit_code: int
    strict: bool = False
    rates: tuple[Rate, ...] = ()
    report_path: str | None = None  # where the JSON report was written, if anywhere
    finished: float = 0.0  # unix time

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def verdict(self) -> str:
        return "pass" if self.exit_code == 0 else "fail"

    def fails(self, f: Finding) -> bool:
        """Does this finding make the run fail (error, or warning under --strict)?"""
        return f.severity is Severity.ERROR or (self.strict and f.severity is Severity.WARNING)


def finding_detail(f: Finding) -> str:
    lines = [f"evidence: {e.fact} = {e.value} ({e.source})" for e in f.evidence]
    if f.fix:
        lines.append(f"fix: {f.fix.text}")
        lines += [f"  $ {c}" for c in f.fix.commands]
    return "\n".join(lines)


def finding_name(f: Finding) -> str:
    return f"{f.subject}: {f.title}" if f.subject else f.title


def _finding_case(f: Finding, strict: bool) -> Case:
    failing = f.severity is Severity.ERROR or (strict and f.severity is Severity.WARNING)
    return Case(f.code, finding_name(f), FAILED if failing else PASSED,
                f"{f.severity.value}: {f.title}", finding_detail(f))


def from_report(report, command: str = "check", strict: bool = False,
                report_path: str | None = None, rates: tuple[Rate, ...] = ()) -> RunView:
    """From a doctor.Report: a case per rule that passed, could not tell or
    crashed, and a case per finding (findings of smoke or policy included)."""
    from gpudoctor.rules.registry import RULES

    cases: list[Case] = []
    for r in report.results:
        if r.findings:
            continue  # the findings below are its cases
        rule = RULES.get(r.code)
        name = f"{r.code} {rule.name}" if rule else r.code
        status = {"ok": PASSED, "unknown": SKIPPED, "crashed": BROKEN}.get(r.outcome.value, PASSED)
        cases.append(Case(r.code, name, status, f"{r.outcome.value}: {r.detail}" if r.detail else ""))
    cases += [_finding_case(f, strict) for f in report.findings]
    return RunView(command, tuple(report.findings), tuple(cases), report.exit_code(strict), strict,
                   rates, report_path, time.time())


def smoke_rates(smoke) -> tuple[Rate, ...]:
    return tuple(Rate(t.name, str(g.index), g.model or g.name, t.fraction_of_peak)
                 for g in smoke.gpus for t in g.tests if t.fraction_of_peak is not None)


def from_smoke(smoke, report_path: str | None = None) -> RunView:
    """From a smoke.model.SmokeReport: a case per test per GPU and per node test."""
    status = {"pass": PASSED, "skip": SKIPPED, "fail": FAILED, "crashed": BROKEN, "timeout": BROKEN}
    tests = [(f"GPU {g.index} {g.name}", t) for g in smoke.gpus for t in g.tests]
    tests += [("node", t) for t in smoke.node_tests]
    cases = [Case(f"smoke.{t.name}", f"{where}: {t.name}", status[t.status],
                  f"{t.status}: {t.detail}" if t.detail or t.status != "pass" else "",
                  seconds=t.seconds) for where, t in tests]
    cases += [_finding_case(f, smoke.strict) for f in smoke.findings]
    return RunView("smoke", tuple(smoke.findings), tuple(cases), int(smoke.exit_code), smoke.strict,
                   smoke_rates(smoke), report_path, time.time())


def from_findings(findings, command: str, strict: bool = False) -> RunView:
    """From bare findings (a future `lint`): one case per finding."""
    findings = tuple(findings)
    return RunView(command, findings, tuple(_finding_case(f, strict) for f in findings),
                   int(exit_code_for(findings, strict)), strict, (), None, time.time())
