"""`gpudoctor lint`'s own views: the JSON document (schema/lint.v1.json) and
the text, file by file (the SARIF and GitHub views are render.sarif's and
render.github's)."""

from __future__ import annotations

from gpudoctor.findings import Severity

LINT_SCHEMA_VERSION = 1


def lint_data(reports, described: str, code: int) -> dict:
    from gpudoctor import __version__
    from gpudoctor.render.json import finding_data
    from gpudoctor.serde import to_data

    count = {s.value: sum(1 for r in reports for f in r.findings if f.severity is s) for s in Severity}
    return {
        "schema_version": LINT_SCHEMA_VERSION, "gpudoctor_version": __version__, "command": "lint",
        "target": described,
        "files": [{"path": r.path, "kind": r.kind, "builds": [to_data(b) for b in r.builds],
                   "findings": [finding_data(f) for f in r.findings], "notes": list(r.notes),
                   "unknown": [{"code": x.code, "detail": x.detail} for x in r.results if x.outcome.value == "unknown"]}
                  for r in reports],
        "summary": {**count, "exit_code": code},
    }


def render_text(reports, described: str, verbose: bool) -> str:
    lines = [f"target: {described}"]
    for r in reports:
        lines.append(f"\n{r.path} ({r.kind})")
        for b in r.builds:
            at = (f"{b.file}:{b.line}" if b.file else f"line {b.line}") if b.line else "?"
            lines.append(f"  resolves {b.name} {b.version or '?'} [{b.build}] ({at}): {b.how}")
        if not r.builds:
            lines.append("  resolves no framework build gpudoctor judges")
        for f in r.findings:
            if f.severity is Severity.INFO and not verbose:
                continue
            file, line = (f.location.file, f.location.line) if f.location else (r.path, None)
            lines.append(f"  {file}:{line or 1}: {f.code} {f.severity.value}: {f.title}")
            if verbose:
                lines += [f"      {e.fact} = {e.value}  ({e.source})" for e in f.evidence]
            if f.fix is not None:
                lines.append(f"      fix: {f.fix.text}")
                lines += [f"        {c}" for c in f.fix.commands]
        lines += [f"  note: {note}" for note in r.notes]
    errors = sum(1 for r in reports for f in r.findings if f.severity is Severity.ERROR)
    warnings = sum(1 for r in reports for f in r.findings if f.severity is Severity.WARNING)
    lines.append(f"\n{errors} error(s), {warnings} warning(s) in {len(reports)} file(s)")
    return "\n".join(lines) + "\n"


def notice_annotations(reports) -> str:
    """An include that cannot be read: a GitHub warning on the line that names it."""
    from gpudoctor.render.github import escape_data, escape_property

    return "".join(f"::warning file={escape_property(file)},line={line},title=gpudoctor lint::{escape_data(text)}\n"
                   for r in reports for file, line, text in r.notices)
