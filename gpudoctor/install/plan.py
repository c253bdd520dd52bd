"""The choice: assess every candidate a framework module offers, pick the
best that works, and explain the choice, the rejected alternatives and (when
nothing works) what would make one work."""

from __future__ import annotations

import importlib
import re

from gpudoctor.frozen import frozen
from gpudoctor.install.candidates import Assessment, Candidate, preference, version_key
from gpudoctor.install.channels import Channels, load_channels
from gpudoctor.install.checks import assess
from gpudoctor.install.commands import Commands
from gpudoctor.install.request import Request
from gpudoctor.install.target import Target

SCHEMA_VERSION = 1
MODULES = {"torch": "gpudoctor.install.torch", "tensorflow": "gpudoctor.install.tensorflow",
           "jax": "gpudoctor.install.jax", "cupy": "gpudoctor.install.cupy"}
MAX_ALTERNATIVES = 12


@frozen
class Install:
    """What the framework module makes of the chosen candidate."""

    packages: tuple[str, ...]  # pinned requirements, as pip gets them
    commands: Commands
    index_url: str | None = None
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@frozen
class Alternative:
    """Another build the engine considered, and why it was not chosen."""

    version: str
    variant: str
    works: bool
    reason: str
    index_url: str | None = None

    @property
    def label(self) -> str:
        where = " from PyPI" if self.index_url and self.index_url.startswith("https://pypi.org/") else ""
        variant = "" if self.variant == "-" else f" {self.variant}"
        return f"{self.version}{variant}{where}"


@frozen
class Plan:
    """The engine's answer for one framework: the build chosen, its commands, the alternatives."""

    framework: str
    target: Target
    request: Request
    choice: Assessment | None
    install: Install | None
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    needs: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.choice is not None and self.install is not None

    def to_dict(self) -> dict:
        c = self.choice.candidate if self.choice else None
        t = self.target
        commands = self.install.commands.as_dict() if self.install else Commands().as_dict()
        return {
            "schema_version": SCHEMA_VERSION,
            "framework": self.framework,
            "version": c.version if c else None,
            "variant": c.variant if c else None,
            "cuda": c.cuda if c else None,
            "index_url": self.install.index_url if self.install else None,
            "packages": list(self.install.packages) if self.install else [],
            "commands": commands,
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
            "alternatives": [{"version": a.version, "variant": a.variant, "index_url": a.index_url,
                              "works": a.works, "reason": a.reason} for a in self.alternatives],
            "needs": list(self.needs),
            "source": c.source if c else None,
            "target": {"os": t.os, "arch": t.arch, "python": t.python_text, "driver": t.driver,
                       "driver_cuda": t.driver_cuda, "cpu_only": t.cpu_only, "origin": t.origin,
                       "gpus": [{"name": g.name, "compute_capability": str(g.cc)} for g in t.gpus],
                       "notes": list(t.notes)},
            "request": {"spec": self.request.spec_text or None, "companions": list(self.request.companions)},
        }


def framework_module(name: str):
    return importlib.import_module(MODULES[name])


def _coverage(target: Target, cands: list[Candidate], matrices, framework: str) -> dict:
    """For each GPU: (oldest, newest) release whose builds here have kernels
    (and a cuDNN) for it, ignoring Python, driver and the version request."""
    out = {}
    everything = Request(framework)
    for g in target.gpus:
        alone = Target(os=target.os, arch=target.arch, gpus=(g,), driver_cuda="99.9")
        covered = [c.version for c in cands
                   if not c.preset and not ({"arch", "cudnn"} & assess(c, alone, everything, matrices).kinds)]
        out[g] = (min(covered, key=version_key), max(covered, key=version_key)) if covered else None
    return out


def _coverage_hints(target, cands, matrices, framework, choice_version: str | None) -> list[str]:
    """'sm_35 is supported only up to torch 1.12' where the GPU explains the
    outcome: always when nothing works, else when the choice is not the newest."""
    cands = [c for c in cands if not c.preset]  # a platform without builds says so on its own
    if not target.gpus or not cands:
        return []
    newest = max((c.version for c in cands), key=version_key)
    oldest = min((c.version for c in cands), key=version_key)
    hints = []
    for g, span in _coverage(target, cands, matrices, framework).items():
        if span is None:
            hints.append(f"{g.label()}: no {framework} build gpudoctor knows for {target.platform} has kernels "
                         f"for it (its data covers {framework} {oldest} to {newest})")
            continue
        if version_key(span[1]) < version_key(newest):
            hints.append(f"{g.cc.sm} is supported only up to {framework} {span[1]}")
        if choice_version is None and version_key(span[0]) > version_key(oldest):
            hints.append(f"{g.cc.sm} is supported from {framework} {span[0]} on")
    return hints


def _needs(assessments: list[Assessment], request: Request, target: Target, framework: str) -> list[str]:
    """What one change would make some build work: for each kind of blocker,
    the newest build it alone blocks (and, for the driver, also the build
    needing the smallest upgrade)."""
    out: list[str] = []
    for kind in ("driver", "python", "version", "platform"):
        singles = [a for a in assessments if a.kinds == {kind}]
        if not singles:
            continue
        picks = [max(singles, key=preference)]
        if kind == "driver":
            # Newest first, so among equal upgrades the newest build is named.
            picks.append(min(sorted(singles, key=preference, reverse=True), key=_driver_need))
        for best in picks:
            c = best.candidate
            if kind == "version":
                out.append(f"{framework} {c.version} ({c.variant}) works here, outside the request "
                           f"{request.spec_text}")
                continue
            need = next((b.need for b in best.blockers if b.need), None)
            if need is None:
                out.append(f"{c.label}: {best.blocker_text()}")
            else:
                out.append(f"{need} ({framework} {c.version})" if kind == "driver" and c.version not in need
                           else need)
    return out


def _driver_need(a: Assessment) -> tuple[int, ...]:
    for b in a.blockers:
        m = re.search(r">= (\d+(?:\.\d+)*)", b.need or "")
        if m:
            return tuple(int(x) for x in m.group(1).split("."))
    return (999999,)


def _ranked_below(a: Assessment, choice: Assessment) -> str:
    c, best = a.candidate, choice.candidate
    if c.version != best.version:
        return f"works too; {best.version} is newer"
    if a.ptx_only and not choice.ptx_only:
        return "works too, but only through PTX JIT"
    if best.pypi_default and not c.pypi_default:
        return f"works too; the PyPI default build ({best.variant}) is preferred"
    return f"works too; {best.variant} has the newer CUDA"


def _alternatives(assessments: list[Assessment], choice: Assessment | None, request: Request) -> list[Alternative]:
    if choice is not None:
        floor = version_key(choice.candidate.version)
        pool = [a for a in assessments if a is not choice and version_key(a.candidate.version) >= floor]
    else:
        allowed = [a for a in assessments if request.allows(a.candidate.version)] or assessments
        versions = sorted({a.candidate.version for a in allowed}, key=version_key, reverse=True)[:2]
        pool = [a for a in allowed if a.candidate.version in versions]
    pool.sort(key=preference, reverse=True)
    out = []
    for a in pool[:MAX_ALTERNATIVES]:
        reason = a.blocker_text() if a.blockers else _ranked_below(a, choice)
        out.append(Alternative(a.candidate.version, a.candidate.variant, a.works, reason, a.candidate.index_url))
    return out


def _headline(choice: Assessment, assessments: list[Assessment], request: Request, framework: str) -> str:
    c = choice.candidate
    allowed = [a.candidate.version for a in assessments if request.allows(a.candidate.version)]
    newest = max(allowed, key=version_key) if allowed else c.version
    within = f" matching {request.spec_text}" if request.spec_text else ""
    if version_key(c.version) >= version_key(newest):
        return f"{framework} {c.version} is the newest release{within} with a build that works here"
    return (f"no build of {framework} {newest} works here (Other builds in `gpudoctor install` says why); "
            f"{c.version} is the newest release{within} that does")


def plan_install(request: Request, target: Target, matrices, channels: Channels | None = None) -> Plan:
    """The install plan for `request` on `target`: pure, no I/O beyond the data."""
    channels = channels or load_channels()
    module = framework_module(request.framework)
    cands = module.candidates(target, matrices, channels, request)
    assessments = [assess(c, target, request, matrices) for c in cands]
    working = [a for a in assessments if a.works]
    choice = max(working, key=preference) if working else None
    alternatives = tuple(_alternatives(assessments, choice, request))
    notes = list(target.notes)
    if choice is None:
        needs = _needs(assessments, request, target, request.framework)
        needs += _coverage_hints(target, cands, matrices, request.framework, None)
        needs += module.fallbacks(target, request, channels)
        if not cands:
            needs.append(f"gpudoctor's data has no {request.framework} builds")
        why = (f"no {request.framework} build{' matching ' + request.spec_text if request.spec_text else ''} "
               f"works on {target.describe()}")
        return Plan(request.framework, target, request, None, None, (why,), tuple(notes), alternatives,
                    tuple(dict.fromkeys(needs)))
    install = module.install_for(choice, target, request, matrices, channels)
    reasons = [_headline(choice, assessments, request, request.framework)]
    if choice.candidate.version != max((a.candidate.version for a in assessments), key=version_key):
        reasons += _coverage_hints(target, cands, matrices, request.framework, choice.candidate.version)
    reasons += list(install.reasons) + list(choice.reasons)
    warnings = notes + list(choice.warnings) + list(install.warnings)
    return Plan(request.framework, target, request, choice, install, tuple(dict.fromkeys(reasons)),
                tuple(dict.fromkeys(warnings)), alternatives, ())
