"""Judge a snapshot: run the rules, escalate what the user requires, and
summarise a verdict for every visible GPU × framework pair."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gpudoctor.compat import DriverSupport, KernelKind, driver_supports, kernel_for, ptx_jit_supported
from gpudoctor.findings import Finding, Outcome, RuleResult, Severity, exit_code_for, sort_findings
from gpudoctor.matrices import Matrices
from gpudoctor.rules.registry import run_rules
from gpudoctor.snapshot import Framework, Gpu, Snapshot
from gpudoctor.versions import compute_capability

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Verdict:
    gpu: int | None  # NVML index; None for a framework with no GPU to judge against
    gpu_name: str | None
    framework: str
    status: str  # "ok" | "broken" | "cpu-only" | "unknown"
    reason: str


@dataclass(frozen=True)
class Report:
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
    findings = [_escalate(f, require_precision) for f in findings]
    return Report(snapshot, tuple(sort_findings(findings)), tuple(results), tuple(verdicts(snapshot, matrices)))


def _escalate(f: Finding, required: tuple[str, ...]) -> Finding:
    # A missing precision is information until the user says the job needs it.
    if f.code == "GD612" and f.subject and f.subject.rsplit(" ", 1)[-1] in required:
        return dataclasses.replace(f, severity=Severity.ERROR)
    return f


def verdicts(s: Snapshot, m: Matrices) -> list[Verdict]:
    """One line per visible GPU × installed framework: will it use that GPU?"""
    out: list[Verdict] = []
    gpus = s.visible_gpus()
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
            status, reason = _pair(s, m, g, fw)
            out.append(Verdict(g.index, g.name, fw.name, status, reason))
    return out


def _pair(s: Snapshot, m: Matrices, g: Gpu, fw: Framework) -> tuple[str, str]:
    os_name = "windows" if s.system.os.value == "windows" else "linux"
    support = driver_supports(fw.cuda.value, s.driver.version.value, s.driver.cuda_api.value, m, os_name)
    if support.support is DriverSupport.TOO_OLD:
        return "broken", f"driver too old for CUDA {fw.cuda.value}"
    cc = compute_capability(g.compute_capability)
    if cc is None or not fw.arch_list.known:
        return "unknown", "compute capability or arch list unknown"
    km = kernel_for(cc, fw.arch_list.value)
    if km.kind is KernelKind.NONE:
        return "broken", f"no kernels for sm_{cc.major}{cc.minor}"
    if km.kind is KernelKind.PTX_JIT:
        driver_cuda = s.driver.cuda_api.value or (str(support.driver_cuda) if support.driver_cuda else None)
        if ptx_jit_supported(driver_cuda, fw.cuda.value) is False:
            return "broken", f"only {km.entry} PTX, too new for the driver to JIT"
    if fw.deep is not None:
        if not fw.deep.imported:
            return "broken", "import fails"
        if fw.deep.is_available is False:
            return "broken", "CUDA not available at import"
    if support.support is DriverSupport.UNKNOWN:
        return "unknown", f"{_kernel_text(km)}; driver unknown"
    compat = " (minor-version compatibility)" if support.support is DriverSupport.MINOR_COMPAT else ""
    return "ok", _kernel_text(km) + compat


def _kernel_text(km) -> str:
    return {KernelKind.SASS: f"native {km.entry}", KernelKind.SASS_COMPATIBLE: f"{km.entry} SASS (same major)",
            KernelKind.PTX_JIT: f"{km.entry} PTX JIT"}.get(km.kind, "none")
