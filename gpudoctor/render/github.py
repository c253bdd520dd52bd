"""GitHub Actions: workflow commands, the job summary, step outputs.

Formats from GitHub's "Workflow commands for GitHub Actions" page
(https://docs.github.com/actions/reference/workflow-commands-for-github-actions):
`::error file=F,line=L,endLine=E,title=T::message`; in the message `%`, CR
and LF are escaped as %25, %0D, %0A, and in property values also `:` and `,`
(%3A, %2C). A finding with a Location lands on that file and line (lint);
one without attaches to the run. The job summary is GitHub-flavoured markdown
appended to $GITHUB_STEP_SUMMARY (capped at 1024 KiB per step by GitHub), the
outputs `name=value` lines appended to $GITHUB_OUTPUT.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpudoctor.findings import Finding, Severity
from gpudoctor.render.markdown import ICON, _cell, details
from gpudoctor.render.outcomes import RunView, finding_detail, finding_name

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
# A run page shows at most about 10 annotations of each kind per step (the
# figure seen on run pages; see the research notes): the rest go to the summary.
ANNOTATIONS_PER_KIND = 10
SUMMARY_LIMIT = 1024 * 1024 - 4096  # GitHub refuses a step summary over 1024k


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(f: Finding, level: str | None = None) -> str:
    """One `::error …::message` line for a finding (message carries the fix)."""
    props: list[tuple[str, str]] = []
    if f.location is not None:
        props.append(("file", f.location.file))
        if f.location.line is not None:
            props.append(("line", str(f.location.line)))
        if f.location.end_line is not None:
            props.append(("endLine", str(f.location.end_line)))
    props.append(("title", f"{f.code} {f.title}"))
    body = finding_name(f)
    detail = finding_detail(f)
    message = body + ("\n" + detail if detail else "")
    prop_text = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    return f"::{level or COMMAND[f.severity]} {prop_text}::{escape_data(message)}"


def workflow_commands(findings: Iterable[Finding], strict: bool = False,
                      per_kind: int = ANNOTATIONS_PER_KIND) -> list[str]:
    """Annotations, worst first, `per_kind` of each level at most; under
    --strict a warning fails the job, so it is shown as an error."""
    out: list[str] = []
    shown: dict[str, int] = {}
    left = 0
    for f in findings:
        level = "error" if strict and f.severity is Severity.WARNING else COMMAND[f.severity]
        if shown.get(level, 0) >= per_kind:
            left += 1
            continue
        shown[level] = shown.get(level, 0) + 1
        out.append(workflow_command(f, level))
    if left:
        out.append(f"::notice title=gpudoctor::{left} more findings are in the job summary")
    return out


def step_summary(view: RunView) -> str:
    """The job summary: the status table first, each finding's evidence and fix collapsed."""
    e, w, i = (view.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    verdict = "✅ pass" if view.verdict == "pass" else "❌ fail"
    lines = [f"## gpudoctor {view.command}: {verdict}", "",
             "| Errors | Warnings | Info | Exit code |", "|---|---|---|---|",
             f"| {e} | {w} | {i} | {view.exit_code} |", ""]
    if view.findings:
        lines += ["| | Code | Subject | Finding |", "|---|---|---|---|"]
        lines += [f"| {ICON[f.severity]} | {f.code} | {_cell(f.subject or '—')} | {_cell(f.title)} |"
                  for f in view.findings]
        lines.append("")
        for f in view.findings:
            detail = finding_detail(f)
            if detail:
                lines += details(f"{f.code} {_cell(finding_name(f))}", detail) + [""]
    else:
        lines += ["No problems found.", ""]
    text = "\n".join(lines) + "\n"
    if len(text.encode()) > SUMMARY_LIMIT:
        text = text.encode()[:SUMMARY_LIMIT].decode(errors="ignore") + "\n\n(truncated: see the JSON report)\n"
    return text


def step_outputs(view: RunView) -> list[tuple[str, str]]:
    out = [("verdict", view.verdict), ("exit-code", str(view.exit_code)),
           ("errors", str(view.count(Severity.ERROR))), ("warnings", str(view.count(Severity.WARNING)))]
    if view.report_path:
        out.append(("report", view.report_path))
    return out


def render(view: RunView, env: Mapping[str, str]) -> str:
    """The workflow commands (returned, for stdout), and the summary and the
    outputs appended to the files GitHub names in the environment, if any."""
    summary_path = env.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        _append(summary_path, step_summary(view))
    output_path = env.get("GITHUB_OUTPUT")
    if output_path:
        _append(output_path, "".join(f"{k}={v}\n" for k, v in step_outputs(view)))
    return "\n".join(workflow_commands(view.findings, view.strict)) + "\n" if view.findings else ""


def _append(path: str, text: str) -> None:
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:  # a read-only summary file must not cost the verdict
        import sys

        print(f"gpudoctor: cannot append to {path}: {exc.strerror or exc}", file=sys.stderr)
