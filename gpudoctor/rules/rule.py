"""What a rule is: a finding code, its metadata, and (for the rules `check`
runs) a pure function (snapshot, matrices) -> findings.

A family module declares its rules as data: each check function becomes a
`Rule` through `@rule(...)`, which builds the object and registers nothing, and
the module lists them in a `RULES` tuple. `registry.py` indexes the families it
names. Importing a family module changes no global.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import Literal, get_args

from gpudoctor.findings import CATEGORIES, Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import Snapshot
from gpudoctor.frozen import frozen

# The type of a check: it yields findings, or raises Unknown when the facts it
# needs were not read. Any other exception is a bug, reported as crashed.
CheckFn = Callable[[Snapshot, Matrices], Iterable[Finding]]
Findings = Iterator[Finding]  # what a check written as a generator returns

# A code's lifecycle, as in ruff's rule groups: a preview rule may still change
# its wording or threshold; a deprecated one still runs and is still reported,
# and its doc names what replaces it. A code is never reused.
RuleStatus = Literal["stable", "preview", "deprecated"]
STATUSES: frozenset[str] = frozenset(get_args(RuleStatus))

_CODE = re.compile(r"^GD\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_RELEASE = re.compile(r"^\d+\.\d+\.\d+$")


class Unknown(Exception):
    """A rule could not decide: the facts it needs are unknown."""


@frozen
class Rule:
    """One finding code and its metadata, with the check function when `check` runs it."""

    code: str  # "GD201"
    name: str  # kebab-case, "driver-too-old-for-build"
    category: str
    severity: Severity  # the severity its findings usually have
    summary: str  # one line
    family: str  # "driver", "cuda", ...
    check: CheckFn | None = field(default=None, compare=False)  # None: raised outside check (smoke, diagnose)
    since: str = field(kw_only=True)  # the gpudoctor release the code first appeared in
    status: RuleStatus = field(default="stable", kw_only=True)

    def __post_init__(self) -> None:
        if not _CODE.match(self.code):
            raise ValueError(f"bad rule code {self.code!r}")
        if not _NAME.match(self.name):
            raise ValueError(f"{self.code}: name must be kebab-case, got {self.name!r}")
        if self.category not in CATEGORIES:
            raise ValueError(f"{self.code}: unknown category {self.category!r}")
        if not _RELEASE.match(self.since):
            raise ValueError(f"{self.code}: since must be a release such as 0.1.0, got {self.since!r}")
        if self.status not in STATUSES:
            raise ValueError(f"{self.code}: status must be one of {sorted(STATUSES)}, got {self.status!r}")

    def finding(self, title: str, *, evidence: Iterable[Evidence] = (), fix: Fix | None = None,
                subject: str | None = None, severity: Severity | None = None,
                category: str | None = None) -> Finding:
        return Finding(code=self.code, severity=severity or self.severity,
                       category=category or self.category, title=title,
                       evidence=tuple(evidence), fix=fix, subject=subject)


def rule(code: str, name: str, category: str, severity: Severity, summary: str, family: str, *,
         since: str, status: RuleStatus = "stable") -> Callable[[CheckFn], Rule]:
    """Make a check function into its Rule (nothing is registered: the family's
    RULES tuple lists it). The check then names its own rule for findings:
    `yield no_driver.finding(...)`."""

    def make(check: CheckFn) -> Rule:
        return Rule(code, name, category, severity, summary, family, check, since=since, status=status)

    return make
