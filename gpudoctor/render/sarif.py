"""SARIF 2.1.0 for file-anchored findings (lint), as GitHub code scanning
reads it: a stable ruleId per code, one result per finding with a physical
location, and a partial fingerprint so re-runs do not duplicate alerts."""

from __future__ import annotations

from typing import Any

from gpudoctor import __version__
from gpudoctor.findings import Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def sarif_log(findings: list[Finding]) -> dict[str, Any]:
    from gpudoctor.rules.registry import RULES

    codes = sorted({f.code for f in findings})
    rules = []
    for code in codes:
        r = RULES.get(code)
        rules.append({
            "id": code,
            "name": r.name if r else code,
            "shortDescription": {"text": r.summary if r else code},
            "help": {"text": f"Run `gpudoctor explain {code}` (gpudoctor/docs/rules/{code}.md)."},
            "defaultConfiguration": {"level": _LEVEL[(r.severity.value if r else "warning")]},
            "properties": {"category": r.category if r else ""},
        })
    index = {code: i for i, code in enumerate(codes)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "gpudoctor", "version": __version__, "rules": rules}},
            "results": [_result(f, index[f.code]) for f in findings],
        }],
    }


def _result(f: Finding, rule_index: int) -> dict[str, Any]:
    text = f.title
    if f.fix is not None:
        text += f"\nFix: {f.fix.text}"
        if f.fix.commands:
            text += "\n" + "\n".join(f.fix.commands)
    out: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[f.severity.value],
        "message": {"text": text},
        "partialFingerprints": {"gpudoctor/v1": f"{f.code}:{f.location.file if f.location else ''}:{f.subject or ''}"},
        "properties": {"category": f.category, "subject": f.subject or "",
                       "evidence": [f"{e.fact}={e.value} ({e.source})" for e in f.evidence]},
    }
    if f.location is not None:
        region = {"startLine": f.location.line or 1}
        if f.location.end_line:
            region["endLine"] = f.location.end_line
        out["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": f.location.file.replace("\\", "/")},
                                                  "region": region}}]
    return out
