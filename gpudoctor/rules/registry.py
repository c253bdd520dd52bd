"""Rule registry: every finding code, its metadata, and how rules are run.

A rule is a pure function (snapshot, matrices) -> findings. It raises
`Unknown` when a fact it needs was not probed; any other exception is caught
and reported as a crashed rule, never aborting the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpudoctor.findings import CATEGORIES, Finding, Outcome, RuleResult, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import Snapshot

CheckFn = Callable[[Snapshot, Matrices], Iterable[Finding]]


class Unknown(Exception):
    """A rule could not decide: the facts it needs are unknown."""


@dataclass(frozen=True)
class Rule:
    code: str  # "GD201"
    name: str  # kebab-case, "driver-too-old-for-build"
    category: str
    severity: Severity  # the severity its findings usually have
    summary: str  # one line
    check: CheckFn | None  # None for codes raised outside check (smoke, diagnose)
    family: str  # "driver", "cuda", ...

    def finding(self, title: str, *, evidence=(), fix=None, subject=None,
                severity: Severity | None = None, category: str | None = None) -> Finding:
        return Finding(code=self.code, severity=severity or self.severity,
                       category=category or self.category, title=title,
                       evidence=tuple(evidence), fix=fix, subject=subject)


RULES: dict[str, Rule] = {}
_CODE = re.compile(r"^GD\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def register(code: str, name: str, category: str, severity: Severity, summary: str,
             family: str, check: CheckFn | None = None) -> Rule:
    if not _CODE.match(code):
        raise ValueError(f"bad rule code {code!r}")
    if not _NAME.match(name):
        raise ValueError(f"{code}: name must be kebab-case, got {name!r}")
    if category not in CATEGORIES:
        raise ValueError(f"{code}: unknown category {category!r}")
    if code in RULES:
        raise ValueError(f"duplicate rule code {code}")
    rule = Rule(code, name, category, severity, summary, check, family)
    RULES[code] = rule
    return rule


def rule(code: str, name: str, category: str, severity: Severity, summary: str, family: str):
    """Decorator form of `register` for check functions."""

    def wrap(fn: CheckFn) -> CheckFn:
        fn.rule = register(code, name, category, severity, summary, family, fn)  # type: ignore[attr-defined]
        return fn

    return wrap


def run_rules(snapshot: Snapshot, matrices: Matrices, rules: Iterable[Rule] | None = None,
              debug: bool = False) -> list[RuleResult]:
    results = []
    for r in rules if rules is not None else all_rules():
        if r.check is None:
            continue
        try:
            found = tuple(r.check(snapshot, matrices))
        except Unknown as exc:
            results.append(RuleResult(r.code, Outcome.UNKNOWN, str(exc)))
            continue
        except Exception as exc:  # noqa: BLE001 - a buggy rule must not hide the others
            if debug:
                raise
            detail = f"{type(exc).__name__}: {exc}"
            import traceback  # only for a crashed rule

            tb = traceback.extract_tb(exc.__traceback__)
            if tb:
                detail += f" (at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})"
            results.append(RuleResult(r.code, Outcome.CRASHED, detail))
            continue
        results.append(RuleResult(r.code, Outcome.FINDING if found else Outcome.OK, "", found))
    return results


def all_rules() -> list[Rule]:
    _load_families()
    return [RULES[c] for c in sorted(RULES)]


_FAMILIES = (
    "gpudoctor.rules.driver",      # GD1xx driver and NVML
    "gpudoctor.rules.cuda",        # GD2xx CUDA runtime vs driver
    "gpudoctor.rules.arch",        # GD3xx GPU architecture vs build
    "gpudoctor.rules.libraries",   # GD4xx cuDNN, NCCL, library conflicts
    "gpudoctor.rules.frameworks",  # GD5xx frameworks and Python
    "gpudoctor.rules.companions",  # GD52x companion and extension libraries, RAPIDS, numba-cuda
    "gpudoctor.rules.hardware",    # GD6xx hardware health, MIG, PCIe, containers, WSL
    "gpudoctor.rules.smoke_codes",  # GD7xx smoke kernels (raised by `smoke`)
    "gpudoctor.rules.diagnose_codes",  # GD8xx facts read from pasted errors (raised by `diagnose`)
    "gpudoctor.rules.policy",      # GD9xx the site's policy file (raised by `check --policy`)
)


def _load_families() -> None:
    import importlib

    for mod in _FAMILIES:
        importlib.import_module(mod)
