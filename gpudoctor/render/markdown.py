"""Markdown output, for GitHub issues and CI job summaries."""

from __future__ import annotations

import re

from gpudoctor import __version__
from gpudoctor.doctor import Report
from gpudoctor.findings import Severity
from gpudoctor.render.text import deep_lines

ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.INFO: "ℹ️"}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def facts_table(report: Report) -> list[str]:
    s = report.snapshot
    d = s.driver
    rows = [
        ("OS", f"{s.system.os_release.value or s.system.os.value or '?'} ({s.system.machine.value or '?'}), "
               f"kernel {s.system.kernel.value or '?'}"),
        ("Python", f"{s.system.python.value or '?'} ({s.system.environment.value or '?'})"),
        ("Driver", f"{d.version.value} (CUDA {d.cuda_api.value or '?'})" if d.version.known
         else f"not found (NVML: {d.nvml.value or '?'})"),
        ("GPUs", "; ".join(f"{g.index}: {g.name} (sm_{(g.compute_capability or '?').replace('.', '')})"
                           for g in s.gpus) if s.gpus else ("none" if s.gpus == () else "unknown")),
        ("CUDA runtimes", "; ".join(f"{r.kind} {r.version} ({r.path})" for r in s.cuda_runtimes or ()) or "none"),
        ("cuDNN", "; ".join(f"{r.kind} {r.version} ({r.path})" for r in s.cudnn or ()) or "none"),
    ]
    for fw in s.frameworks or ():
        rows.append((fw.name, f"{fw.version.value} · {fw.build.value} build"
                     + (f" · CUDA {fw.cuda.value}" if fw.cuda.known else "")
                     + (f" · archs {', '.join(fw.arch_list.value)}" if fw.arch_list.value else "")))
        if fw.deep is not None:
            rows.append((f"{fw.name} --deep", "<br>".join(deep_lines(fw.deep))))
    out = ["| | |", "|---|---|"]
    out += [f"| **{_cell(k)}** | {_cell(v)} |" for k, v in rows]
    return out


def findings_md(report: Report) -> list[str]:
    if not report.findings:
        return ["No problems found."]
    out: list[str] = []
    for f in report.findings:
        out.append(f"- {ICON[f.severity]} **{f.code}** ({f.severity.value}, `{f.category}`) {f.title}")
        for e in f.evidence:
            out.append(f"  - evidence: `{e.fact}` = `{e.value}` ← {e.source}")
        if f.fix:
            out.append(f"  - fix: {f.fix.text}")
            if f.fix.commands:
                out.append("    ```sh")
                out += [f"    {c}" for c in f.fix.commands]
                out.append("    ```")
    return out


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def render(report: Report) -> str:
    counts = report.summary()
    lines = [f"## gpudoctor {__version__}: {_n(counts['error'], 'error')}, {_n(counts['warning'], 'warning')}, "
             f"{counts['info']} info", ""]
    lines += facts_table(report) + [""]
    if report.verdicts:
        lines += ["| GPU | Framework | Verdict | Why |", "|---|---|---|---|"]
        lines += [f"| {_cell(f'{v.gpu}: {v.gpu_name}' if v.gpu is not None else '—')} | {_cell(v.framework)} | "
                  f"{v.status} | {_cell(v.reason)} |" for v in report.verdicts]
        lines.append("")
    lines += ["### Findings", ""] + findings_md(report)
    return "\n".join(lines) + "\n"


def details(summary: str, body: str, lang: str = "") -> list[str]:
    """A collapsed block for GitHub: <details> with a fenced body (the fence is
    longer than any backtick run inside, so the body cannot close it)."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return ["<details>", f"<summary>{summary}</summary>", "", fence + lang, body, fence, "", "</details>"]


def issue_report(report: Report, snapshot_json: str) -> str:
    """`gpudoctor report`: facts, verdicts and findings with fixes, then the raw
    snapshot collapsed, so maintainers can replay it with `check --from`."""
    body = render(report)
    raw = details("Raw snapshot (replay: save as snapshot.json, run <code>gpudoctor check --from snapshot.json</code>)",
                  snapshot_json, "json")
    return body + "\n" + "\n".join(raw) + "\n"
