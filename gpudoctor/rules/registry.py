"""Rule registry: every finding code, indexed once from an explicit list of
the rule families, and how the rules `check` runs are run.

A rule is a pure function (snapshot, matrices) -> findings (see rule.py). It
raises `Unknown` when a fact it needs was not probed; any other exception is
caught and reported as a crashed rule, never aborting the others.

Every code present today has `since="0.1.0"`: gpudoctor has had one version,
0.1.0, since its first commit and no release tag, so no code is younger than
another in release terms. A code added after a version bump names the release
that first ships it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from gpudoctor.findings import Outcome, RuleResult
from gpudoctor.matrices import Matrices
from gpudoctor.rules import (
    arch,
    companions,
    cuda,
    diagnose_codes,
    driver,
    frameworks,
    hardware,
    libraries,
    policy,
    runtimes,
    smoke_codes,
)
from gpudoctor.rules.rule import CheckFn, Rule, Unknown
from gpudoctor.snapshot import Snapshot

__all__ = ["FAMILIES", "RULES", "CheckFn", "Rule", "Unknown", "all_rules", "index_rules", "run_rules"]

FAMILIES: tuple[tuple[Rule, ...], ...] = (
    driver.RULES,          # GD1xx driver and NVML
    cuda.RULES,            # GD2xx CUDA runtime vs driver
    arch.RULES,            # GD3xx GPU architecture vs build
    libraries.RULES,       # GD4xx cuDNN, NCCL, library conflicts
    frameworks.RULES,      # GD5xx frameworks and Python
    runtimes.RULES,        # GD509-GD510 inference runtimes (ONNX Runtime)
    companions.RULES,      # GD52x companion and extension libraries, RAPIDS, numba-cuda
    hardware.RULES,        # GD6xx hardware health, MIG, PCIe, containers, WSL
    smoke_codes.RULES,     # GD7xx smoke kernels (raised by `smoke`)
    diagnose_codes.RULES,  # GD8xx facts read from pasted errors (raised by `diagnose`)
    policy.RULES,          # GD9xx the site's policy file (raised by `check --policy`)
)


def index_rules(families: Iterable[Iterable[Rule]]) -> Mapping[str, Rule]:
    """Code -> rule, sorted by code and read-only. A code or a name given twice
    is refused: a code has one meaning forever, and names are its other key."""
    by_code: dict[str, Rule] = {}
    names: dict[str, str] = {}
    for family in families:
        for r in family:
            if r.code in by_code:
                raise ValueError(f"duplicate rule code {r.code}")
            if r.name in names:
                raise ValueError(f"{r.code}: name {r.name!r} is already {names[r.name]}'s")
            by_code[r.code] = r
            names[r.name] = r.code
    return MappingProxyType(dict(sorted(by_code.items())))


RULES: Mapping[str, Rule] = index_rules(FAMILIES)


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
    """Every rule, sorted by code."""
    return list(RULES.values())
