"""The bridge from `gpudoctor check` to the install engine: a finding whose
fix is "reinstall the framework" gets the engine's own commands for the
machine in the snapshot, so check and install never disagree."""

from __future__ import annotations

import functools

from gpudoctor.findings import Fix
from gpudoctor.install.plan import plan_install
from gpudoctor.install.request import FRAMEWORKS, Request
from gpudoctor.install.target import TargetError, target_from_snapshot


def _plan(snapshot, matrices, name: str):
    target = target_from_snapshot(snapshot, matrices)
    installed = snapshot.framework(name)
    return plan_install(Request(name, replaces=installed.version.value if installed else None), target, matrices)


# Several rules (GD301-GD303, GD401, GD501...) ask for the same framework's fix.
_plan_cached = functools.lru_cache(maxsize=8)(_plan)


def fix_for_snapshot(snapshot, matrices, framework_name: str, why: str) -> Fix | None:
    """A Fix whose text starts with `why` and whose commands are the pip and
    uv commands of the engine's choice. None when the engine cannot judge the
    snapshot (unknown framework, unusable facts); the caller falls back."""
    name = FRAMEWORKS.get(framework_name)
    if name is None:
        return None
    try:
        try:
            plan = _plan_cached(snapshot, matrices, name)
        except TypeError:  # an unhashable fact value: plan without the cache
            plan = _plan(snapshot, matrices, name)
    except (TargetError, ValueError, LookupError):
        return None
    if not plan.ok:
        needs = "; ".join(plan.needs) if plan.needs else "nothing in gpudoctor's data fits"
        return Fix(f"{why} No {name} build works on this machine as it is: {needs}.",
                   (f"gpudoctor install {name}",))
    c = plan.choice.candidate
    commands = tuple(x for x in (plan.install.commands.setup + (plan.install.commands.pip, plan.install.commands.uv))
                     if x)
    variant = f" ({c.variant})" if c.variant not in ("-", "") else ""
    return Fix(f"{why} Install {name} {c.version}{variant}: {plan.reasons[0]}.", commands)
