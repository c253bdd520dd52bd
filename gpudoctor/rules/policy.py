"""GD9xx: the site's policy file is not met. Raised by `check --policy`
(apply_policy below), not by the rule loop, so check=None: the same snapshot
passes or fails depending on the policy a site chose.

apply_policy is pure: (report, policy, today) -> report. Ignoring and
escalating change what the findings say about this run; they judge nothing new.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from gpudoctor.findings import Evidence, Finding, Fix, Outcome, RuleResult, Severity, sort_findings
from gpudoctor.matrices.gpu_names import all_words_in, normalise
from gpudoctor.rules.rule import Rule
from gpudoctor.versions import driver_at_least
from gpudoctor.frozen import frozen

if TYPE_CHECKING:  # every check lists these codes; only `check --policy` reads a policy
    import datetime

    from gpudoctor.policy import Ignore, Policy

FAMILY = "policy"
E, W = Severity.ERROR, Severity.WARNING

FRAMEWORK_MISSING = Rule(
    "GD901", "policy-framework-missing", "policy", E,
    "a framework the policy requires is not installed in the judged environment", FAMILY, since="0.1.0")
FRAMEWORK_VERSION = Rule(
    "GD902", "policy-framework-version", "policy", E,
    "an installed framework's version is outside the policy's version specifier", FAMILY, since="0.1.0")
GPU_COUNT = Rule(
    "GD903", "policy-gpu-count", "policy", E,
    "the number of visible GPUs differs from the policy's count (or is below its min_count)", FAMILY, since="0.1.0")
GPU_MODEL = Rule(
    "GD904", "policy-gpu-model", "policy", E,
    "a visible GPU is not one of the models the policy allows", FAMILY, since="0.1.0")
DRIVER_FLOOR = Rule(
    "GD905", "policy-driver-floor", "policy", E,
    "the driver release is older than the policy's driver_min", FAMILY, since="0.1.0")
IGNORE_EXPIRED = Rule(
    "GD906", "policy-ignore-expired", "policy", W,
    "an [[ignore]] entry of the policy has passed its expiry date, so its finding counts again", FAMILY, since="0.1.0")

RULES: tuple[Rule, ...] = (
    FRAMEWORK_MISSING,
    FRAMEWORK_VERSION,
    GPU_COUNT,
    GPU_MODEL,
    DRIVER_FLOOR,
    IGNORE_EXPIRED,
)



@frozen
class Ignored:
    """A finding the policy set aside, with the ignore rule that covers it."""

    finding: Finding
    rule: Ignore


def apply_policy(report, policy: Policy, today: datetime.date | None = None):
    """The report under the policy, and the findings it set aside."""
    import datetime  # noqa: PLC0415 - only a policy needs today's date

    today = today or datetime.date.today()
    results, found = evaluate(report.snapshot, policy)
    findings = list(report.findings) + found
    kept, ignored = [], []
    for f in findings:
        rule = next((i for i in policy.ignore if i.covers(f.code, f.subject) and not i.expired(today)), None)
        if rule is not None and f.code != IGNORE_EXPIRED.code:
            ignored.append(Ignored(f, rule))
        else:
            kept.append(_escalate(f, policy))
    expired = [_expired(i, policy) for i in policy.ignore if i.expired(today)]
    results.append(RuleResult(IGNORE_EXPIRED.code, Outcome.FINDING if expired else Outcome.OK, "", tuple(expired)))
    kept += expired
    out = dataclasses.replace(report, findings=tuple(sort_findings(kept)),
                              results=tuple(report.results) + tuple(results))
    return out, tuple(ignored)


def evaluate(snapshot, policy: Policy) -> tuple[list[RuleResult], list[Finding]]:
    results = [*_frameworks(snapshot, policy), _gpu_count(snapshot, policy), _gpu_models(snapshot, policy),
               _driver(snapshot, policy)]
    judged = [r for r in results if r is not None]
    return judged, [f for r in judged for f in r.findings]


def policy_data(policy: Policy, ignored: tuple[Ignored, ...]) -> dict:
    """The `policy` block of the JSON report."""
    return {"file": policy.file, "ignored": [
        {"code": i.finding.code, "subject": i.finding.subject, "reason": i.rule.reason,
         "expires": i.rule.expires.isoformat() if i.rule.expires else None} for i in ignored]}


def _result(code: str, findings: list[Finding]) -> RuleResult:
    return RuleResult(code, Outcome.FINDING if findings else Outcome.OK, "", tuple(findings))


def _ev(policy: Policy, key: str, value: str) -> Evidence:
    return Evidence(f"policy.{key}", value, policy.file)


def _frameworks(s, p: Policy) -> list[RuleResult]:
    if not p.frameworks:
        return []
    if s.frameworks is None:
        return [RuleResult(c, Outcome.UNKNOWN, "frameworks were not probed")
                for c in (FRAMEWORK_MISSING.code, FRAMEWORK_VERSION.code)]
    out = []
    for name, spec in p.frameworks:
        fw = s.framework(name)
        if fw is None:
            out.append(FRAMEWORK_MISSING.finding(
                f"the policy requires {name} {spec}, and it is not installed", subject=name,
                evidence=[_ev(p, f"frameworks.{name}", spec),
                          Evidence("frameworks", ", ".join(f.name for f in s.frameworks) or "none", "probe")],
                fix=Fix(f"Install a {name} build that works on this machine.", (f"gpudoctor install {name}"
                                                                                + _version_arg(spec),))))
            continue
        if spec == "*" or not fw.version.known:
            continue
        from packaging.specifiers import SpecifierSet

        try:
            ok = SpecifierSet(spec).contains(Version(fw.version.value), prereleases=True)
        except InvalidVersion:
            continue
        if not ok:
            out.append(FRAMEWORK_VERSION.finding(
                f"{name} {fw.version.value} is outside the policy's {spec}", subject=name,
                evidence=[_ev(p, f"frameworks.{name}", spec),
                          Evidence(f"{name}.version", fw.version.value, fw.version.source)],
                fix=Fix(f"Install a {name} release within {spec} that works on this machine.",
                        (f"gpudoctor install {name}" + _version_arg(spec),))))
    return [_result(c, [f for f in out if f.code == c]) for c in (FRAMEWORK_MISSING.code, FRAMEWORK_VERSION.code)]


def _version_arg(spec: str) -> str:
    return "" if spec == "*" else f" --version '{spec}'"


def _gpu_count(s, p: Policy) -> RuleResult | None:
    if p.gpu_count is None and p.gpu_min_count is None:
        return None
    gpus = s.visible_gpus()
    if gpus is None:
        return RuleResult(GPU_COUNT.code, Outcome.UNKNOWN, "GPUs were not probed")
    have = len(gpus)
    if p.gpu_count is not None:
        want, key, bad = p.gpu_count, "gpus.count", have != p.gpu_count
    else:
        assert p.gpu_min_count is not None  # one of the two is set (checked above)
        want, key, bad = p.gpu_min_count, "gpus.min_count", have < p.gpu_min_count
    if not bad:
        return _result(GPU_COUNT.code, [])
    visible = s.visibility.cuda_visible_devices
    return _result(GPU_COUNT.code, [GPU_COUNT.finding(
        f"{have} GPU{'s' * (have != 1)} visible, the policy wants {'' if key == 'gpus.count' else 'at least '}{want}",
        evidence=[_ev(p, key, str(want)), Evidence("gpus.visible", str(have), "nvml" if s.gpus else "probe"),
                  Evidence("CUDA_VISIBLE_DEVICES", visible if visible is not None else "unset", "environment")],
        fix=Fix("Run on a node with the GPUs the policy names, or request them from the scheduler "
                "(Slurm --gpus-per-node, Kubernetes nvidia.com/gpu limits); check CUDA_VISIBLE_DEVICES.",
                ("nvidia-smi -L",)))])


def _gpu_models(s, p: Policy) -> RuleResult | None:
    if not p.gpu_models:
        return None
    gpus = s.visible_gpus()
    if gpus is None:
        return RuleResult(GPU_MODEL.code, Outcome.UNKNOWN, "GPUs were not probed")
    allowed = [normalise(m).split() for m in p.gpu_models]
    out = [GPU_MODEL.finding(
        f"{g.name} is not one of the policy's models ({', '.join(p.gpu_models)})", subject=f"GPU {g.index}",
        evidence=[_ev(p, "gpus.models", ", ".join(p.gpu_models)), Evidence(f"gpu[{g.index}].name", g.name, g.source)],
        fix=Fix("Run on a node with an allowed GPU model (Slurm --constraint or --gres=gpu:TYPE, Kubernetes "
                "nodeSelector on nvidia.com/gpu.product), or add the model to the policy.", ("nvidia-smi -L",)))
        for g in gpus if not any(all_words_in(words, normalise(g.name).split()) for words in allowed)]
    return _result(GPU_MODEL.code, out)


def _driver(s, p: Policy) -> RuleResult | None:
    if p.driver_min is None:
        return None
    have = s.driver.version.value
    ok = driver_at_least(have, p.driver_min)
    if ok is None:
        return RuleResult(DRIVER_FLOOR.code, Outcome.UNKNOWN, "driver release unknown")
    if ok:
        return _result(DRIVER_FLOOR.code, [])
    return _result(DRIVER_FLOOR.code, [DRIVER_FLOOR.finding(
        f"driver {have} is older than the policy's floor {p.driver_min}",
        evidence=[_ev(p, "driver_min", p.driver_min), Evidence("driver.version", have, s.driver.version.source)],
        fix=Fix(f"Upgrade the NVIDIA driver to {p.driver_min} or newer (then reboot, or reload the kernel "
                "module), or run on a node that has it.", ("nvidia-smi --query-gpu=driver_version --format=csv",)))])


def _escalate(f: Finding, p: Policy) -> Finding:
    if f.severity is Severity.WARNING and p.warning_fails(f.code):
        return dataclasses.replace(f, severity=Severity.ERROR,
                                   evidence=f.evidence + (_ev(p, "fail_on_warnings", f.code),))
    return f


def _expired(i: Ignore, p: Policy) -> Finding:
    return IGNORE_EXPIRED.finding(
        f"the policy's ignore of {i.code}{f' on {i.subject}' if i.subject else ''} expired on {i.expires}",
        subject=i.code,
        evidence=[_ev(p, "ignore.expires", str(i.expires)), _ev(p, "ignore.reason", i.reason)],
        fix=Fix(f"Fix what {i.code} reports, or renew the entry with a new expiry date if the reason still holds.",
                (f"gpudoctor explain {i.code}",)))
