"""`gpudoctor install`: the exact install commands that work on a machine.

The engine is pure: `plan_install(request, target, matrices)` assesses every
published build of a framework against the machine (Python, platform, kernels
for every GPU, driver, cuDNN) and returns a Plan with the commands for the
best one, the reasons, the rejected alternatives and, when nothing works,
what would make something work.
"""

from __future__ import annotations

from gpudoctor.install.plan import Plan, plan_install
from gpudoctor.install.request import Request, parse_request
from gpudoctor.install.target import Target, TargetError, TargetGpu, target_from_options, target_from_snapshot

__all__ = ["Plan", "Request", "Target", "TargetError", "TargetGpu", "parse_request", "plan_install",
           "target_from_options", "target_from_snapshot"]
