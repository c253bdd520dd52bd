"""A node-feature-discovery local feature file: node labels from a check report.

NFD's local source reads /etc/kubernetes/node-feature-discovery/features.d/*
(one `key=value` per line, `# +expiry-time=<RFC3339>` makes the labels lapse,
dotfiles are ignored, 64 KiB at most) and turns each line into a node label;
keys need a DNS-subdomain prefix outside kubernetes.io, values must be valid
label values (63 characters, alphanumerics and -_. inside). Labels:

    gpudoctor.io/check=pass|fail
    gpudoctor.io/errors=0  gpudoctor.io/warnings=1
    gpudoctor.io/driver=580.95.05
    gpudoctor.io/torch-cu128=ok|broken|cpu-only|unknown   (worst over the GPUs)

so a pod can require `gpudoctor.io/torch-cu128: ok` in its nodeAffinity.
"""

from __future__ import annotations

import datetime
import re

from gpudoctor.findings import Severity

EXPIRY_S = 3600  # the DaemonSet rewrites it every 10 minutes; labels lapse an hour after it stops
STATUS_RANK = {"broken": 0, "unknown": 1, "cpu-only": 2, "ok": 3}
_VALUE_BAD = re.compile(r"[^A-Za-z0-9_.\-]")


def label_value(text: str) -> str:
    """A valid label value: allowed characters only, 63 at most, alphanumeric at both ends."""
    v = _VALUE_BAD.sub("-", text)[:63].strip("-_.")
    return v or "unknown"


def labels(report, strict: bool = False) -> dict[str, str]:
    out = {"gpudoctor.io/check": "pass" if report.exit_code(strict) == 0 else "fail",
           "gpudoctor.io/errors": str(sum(f.severity is Severity.ERROR for f in report.findings)),
           "gpudoctor.io/warnings": str(sum(f.severity is Severity.WARNING for f in report.findings))}
    driver = report.snapshot.driver.version.value
    out["gpudoctor.io/driver"] = label_value(driver) if driver else "none"
    worst: dict[str, str] = {}
    for v in report.verdicts:
        fw = report.snapshot.framework(v.framework)
        tag = f"cu{fw.cuda.value.replace('.', '')}" if fw and fw.cuda.known else (fw.build.value if fw else None)
        key = f"gpudoctor.io/{v.framework}-{label_value(tag or 'unknown')}"
        if key not in worst or STATUS_RANK.get(v.status, 1) < STATUS_RANK.get(worst[key], 1):
            worst[key] = v.status
    out.update(sorted(worst.items()))
    return out


def render(report, strict: bool = False, now: datetime.datetime | None = None, expiry_s: int = EXPIRY_S) -> str:
    now = now or datetime.datetime.now(datetime.timezone.utc)
    expires = (now + datetime.timedelta(seconds=expiry_s)).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"# +expiry-time={expires}"] + [f"{k}={v}" for k, v in labels(report, strict).items()]
    return "\n".join(lines) + "\n"
