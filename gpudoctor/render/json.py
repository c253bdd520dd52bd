"""JSON output: the contract other tools and CI rely on (schema/report.v1.json)."""

from __future__ import annotations

import json
from typing import Any

from gpudoctor import __version__
from gpudoctor.doctor import REPORT_SCHEMA_VERSION, Report
from gpudoctor.findings import Finding
from gpudoctor.serde import to_data


def finding_data(f: Finding) -> dict[str, Any]:
    data = {
        "code": f.code,
        "severity": f.severity.value,
        "category": f.category,
        "title": f.title,
        "subject": f.subject,
        "evidence": [to_data(e) for e in f.evidence],
        "fix": {"text": f.fix.text, "commands": list(f.fix.commands)} if f.fix else None,
        **({"location": to_data(f.location)} if f.location else {}),
    }
    return data


def report_data(report: Report, command: str = "check", strict: bool = False) -> dict[str, Any]:
    summary = report.summary()
    summary["exit_code"] = report.exit_code(strict)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "gpudoctor_version": __version__,
        "command": command,
        "snapshot": report.snapshot.to_dict(),
        "findings": [finding_data(f) for f in report.findings],
        "verdicts": [to_data(v) for v in report.verdicts],
        "results": [{"code": r.code, "outcome": r.outcome.value, "detail": r.detail} for r in report.results],
        "summary": summary,
    }


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False)
