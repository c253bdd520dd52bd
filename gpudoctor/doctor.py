"""Judge a snapshot: run the rules, escalate what the user requires, and
summarise a verdict for every visible GPU × framework pair."""

from __future__ import annotations

import dataclasses

from gpudoctor.compat import KernelKind, kernel_for
from gpudoctor.findings import Finding, Outcome, RuleResult, Severity, exit_code_for, sort_findings
from gpudoctor.matrices import Matrices
from gpudoctor.rules.registry import run_rules
from gpudoctor.snapshot import Framework, Gpu, Snapshot
from gpudoctor.versions import compute_capability
from gpudoctor.frozen import frozen

REPORT_SCHEMA_VERSION = 1


@frozen
class Verdict:
    """Will one framework use one GPU: ok, broken, cpu-only or unknown, and why."""

    gpu: int | None  # NVML index; None for a framework with no GPU to judge against
    gpu_name: str | None
    framework: str
    status: str  # "ok" | "broken" | "cpu-only" | "unknown"
    reason: str


@frozen
class Report:
    """What check found: the snapshot, the findings, every rule's result and the verdicts."""

    snapshot: Snapshot
    findings: tuple[Finding, ...]
    results: tuple[RuleResult, ...]
    verdicts: tuple[Verdict, ...]

    def exit_code(self, strict: bool = False) -> int:
        return int(exit_code_for(self.findings, strict))

    def summary(self) -> dict[str, int]:
        count = {s.value: 0 for s in Severity}
        for f in self.findings:
            count[f.severity.value] += 1
        for o in (Outcome.UNKNOWN, Outcome.CRASHED):
            count[o.value] = sum(1 for r in self.results if r.outcome is o)
        count["probe_errors"] = len(self.snapshot.probe_errors)
        return count


def judge(snapshot: Snapshot, matrices: Matrices, require_precision: tuple[str, ...] = (),
          debug: bool = False) -> Report:
    results = run_rules(snapshot, matrices, debug=debug)
    findings = [f for r in results for f in r.findings]
    findings = sort_findings([_escalate(f, require_precision) for f in findings])
    return Report(snapshot, tuple(findings), tuple(results), tuple(verdicts(snapshot, matrices, findings, results)))


def _escalate(f: Finding, required: tuple[str, ...]) -> Finding:
    # A missing precision is information until the user says the job needs it.
    if f.code == "GD612" and f.subject and f.subject.rsplit(" ", 1)[-1] in required:
        return dataclasses.replace(f, severity=Severity.ERROR)
    return f


# The rules that judge whether a framework's build runs on a GPU: while one of them
# could not tell, neither can the table.
PAIR_RULES = ("GD201", "GD203", "GD301", "GD302", "GD303")


def verdicts(s: Snapshot, m: Matrices, findings, results) -> list[Verdict]:
    """One line per visible GPU × installed framework: will it use that GPU? Read
    from the rules' outcomes (one judge): a pair is broken when an error finding
    concerns it, unknown when a rule that judges pairs could not tell, and ok
    otherwise; the reason says which kernels it runs, as compat reads them."""
    out: list[Verdict] = []
    gpus = s.visible_gpus()
    unknown = [r for r in results if r.code in PAIR_RULES and r.outcome is not Outcome.FINDING and r.detail]
    errors = [f for f in findings if f.severity is Severity.ERROR]
    for fw in s.frameworks or ():
        if fw.build.value != "cuda":
            status = "cpu-only" if fw.build.value in ("cpu", None) and fw.build.known else "unknown"
            reason = f"{fw.build.value} build" if fw.build.known else "build type unknown"
            if fw.build.value in ("rocm", "xpu"):
                status, reason = "broken", f"{fw.build.value} build cannot use NVIDIA GPUs"
            for g in gpus or (None,):
                out.append(Verdict(g.index if g else None, g.name if g else None, fw.name, status, reason))
            continue
        if not gpus:
            out.append(Verdict(None, None, fw.name, "unknown" if gpus is None else "broken",
                               "GPUs unknown" if gpus is None else "no GPU visible"))
            continue
        for g in gpus:
            status, reason = _pair(s, g, fw, [f for f in errors if _concerns(f, g, fw)], unknown)
            out.append(Verdict(g.index, g.name, fw.name, status, reason))
    return out


def _concerns(f: Finding, g: Gpu, fw: Framework) -> bool:
    """Whether a finding is about this GPU × framework pair: a finding without a
    subject is about the whole machine."""
    subject = f.subject
    if subject is None:
        return True
    return subject in (fw.name, f"GPU {g.index}", f"GPU {g.index} × {fw.name}")


def _pair(s: Snapshot, g: Gpu, fw: Framework, errors: list[Finding], unknown: list[RuleResult]) -> tuple[str, str]:
    if errors:
        return "broken", f"{errors[0].code}: {errors[0].title}"
    cc = compute_capability(g.compute_capability)
    if unknown or cc is None or not fw.arch_list.known:
        why = unknown[0].detail if unknown else "compute capability or arch list unknown"
        return "unknown", why
    km = kernel_for(cc, fw.arch_list.value)
    if km.kind is KernelKind.NONE:
        return "unknown", f"no kernels for sm_{cc.major}{cc.minor}, yet no rule says why"
    return "ok", _kernel_text(km)


def _kernel_text(km) -> str:
    return {KernelKind.SASS: f"native {km.entry}", KernelKind.SASS_COMPATIBLE: f"{km.entry} SASS (same major)",
            KernelKind.PTX_JIT: f"{km.entry} PTX JIT"}.get(km.kind, "none")
