"""Findings: verdicts with evidence and a fix. One shape for every command."""

from __future__ import annotations

import enum
from dataclasses import field

from gpudoctor.frozen import frozen


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


# The fixed vocabulary, so machines can aggregate findings across tools and fleets.
CATEGORIES = frozenset({
    "no-driver",
    "driver-too-old-for-runtime",
    "driver-library-mismatch",
    "cpu-only-build",
    "arch-not-in-build",
    "arch-too-new-for-cuda",
    "arch-dropped",
    "cudnn-missing",
    "cudnn-version-mismatch",
    "library-conflict",
    "framework-cuda-mismatch",
    "precision-unsupported",
    "python-version-unsupported",
    "wsl",
    "container-no-gpu",
    "hardware-health",
    "smoke-failure",
    "performance",
    "info",
    "policy",  # the site's policy file (gpudoctor.toml) is not met: GD9xx
})


class Outcome(str, enum.Enum):
    OK = "ok"
    FINDING = "finding"
    UNKNOWN = "unknown"  # could not tell: never counted as a failure
    CRASHED = "crashed"  # a bug in a rule: reported, never aborts the others


class ExitCode(enum.IntEnum):
    OK = 0  # no error-severity findings (and no warnings under --strict)
    FINDINGS = 1  # error findings (or warnings under --strict)
    USAGE = 2  # bad option, missing --python, malformed input file
    INTERNAL = 3  # a bug in gpudoctor


@frozen
class Evidence:
    """One fact a finding rests on, with where it was read."""

    fact: str  # "driver.version"
    value: str  # "535.104.05"
    source: str  # "nvml", "/proc/driver/nvidia/version", "torch/version.py"


@frozen
class Fix:
    """What to do about a finding: a sentence and the commands to run."""

    text: str
    commands: tuple[str, ...] = ()


@frozen
class Location:
    """Where in a file a finding points (lint: requirements.txt line 3). Live-host
    findings have none; renderers that can anchor to a file (github, SARIF) use it."""

    file: str
    line: int | None = None
    end_line: int | None = None


@frozen
class Finding:
    """One verdict of a rule: code, severity, category, evidence and fix."""

    code: str  # "GD201", stable forever
    severity: Severity
    category: str
    title: str
    evidence: tuple[Evidence, ...] = ()
    fix: Fix | None = None
    subject: str | None = None  # what it is about: "GPU 0", "torch", "GPU 1 × torch"
    links: tuple[str, ...] = ()
    location: Location | None = field(default=None, metadata={"omit_empty": True})

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"{self.code}: unknown category {self.category!r}")


@frozen
class RuleResult:
    """What one rule gave: findings, nothing (ok), unknown (facts missing) or a crash."""

    code: str
    outcome: Outcome
    detail: str = ""  # why unknown, or the crash message
    findings: tuple[Finding, ...] = field(default=())


def exit_code_for(findings: list[Finding] | tuple[Finding, ...], strict: bool = False) -> ExitCode:
    worst = {f.severity for f in findings}
    if Severity.ERROR in worst or (strict and Severity.WARNING in worst):
        return ExitCode.FINDINGS
    return ExitCode.OK


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.severity.rank, f.code, f.subject or ""))
