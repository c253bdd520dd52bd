"""Display of `explain GDnnn` (the code's documentation) and of `explain "ERROR
TEXT"`: the catalogue entries a message matched, and what this machine's
snapshot says about them."""

from __future__ import annotations

import re

from rich.console import Console
from rich.markup import escape

from gpudoctor.diagnose.catalog import ErrorEntry
from gpudoctor.findings import Finding
from gpudoctor.render.json import finding_data
from gpudoctor.rules.registry import RULES
from gpudoctor.snapshot import Snapshot


def code_data(rule, doc: str) -> dict:
    from gpudoctor.ruledocs import sections

    return {"code": rule.code, "name": rule.name, "category": rule.category, "severity": rule.severity.value,
            "summary": rule.summary, "status": rule.status, "since": rule.since, "sections": sections(doc)}


def render_code(console: Console, rule, doc: str) -> None:
    from rich.markdown import Markdown

    console.print(f"[bold]{rule.code}[/] {rule.name} · {rule.severity.value} · category {rule.category} · "
                  f"{rule.status} since {rule.since}")
    console.print(Markdown(doc))


def entry_data(e: ErrorEntry, line: str) -> dict:
    category = e.category or (RULES[e.code].category if e.code in RULES else None)
    return {"id": e.id, "title": e.title, "matched": line, "code": e.code, "category": category,
            "causes": list(e.causes), "confirm": list(e.confirm), "fix": e.fix, "steps": list(e.steps),
            "commands": list(e.commands),
            "related": list(e.related), "source": e.source}


def machine_facts(s: Snapshot) -> list[str]:
    """The facts an error explanation usually turns on, in one short list."""
    out = []
    d = s.driver
    if d.version.known:
        out.append(f"driver {d.version.value}" + (f" (CUDA {d.cuda_api.value})" if d.cuda_api.known else ""))
    elif d.nvml.known:
        out.append(f"no working driver (NVML: {d.nvml.value})")
    for fw in s.frameworks or ():
        if fw.version.known:
            cuda = f", CUDA {fw.cuda.value}" if fw.cuda.known else ""
            out.append(f"{fw.name} {fw.version.value} ({fw.build.value or '?'} build{cuda})")
    for g in s.gpus or ():
        cc = f", sm_{g.compute_capability.replace('.', '')}" if g.compute_capability else ""
        out.append(f"GPU {g.index}: {g.name}{cc}")
    if s.gpus == ():
        out.append("no GPU")
    return out


def machine_data(machine: tuple[Snapshot, list[Finding]]) -> dict:
    snapshot, findings = machine
    return {"origin": snapshot.origin, "facts": machine_facts(snapshot), "findings": [finding_data(f) for f in findings]}


PYTHON_EXPRESSION = re.compile(r"[A-Za-z_]\w*(\.\w+)+\(")  # torch.cuda.memory_summary() ...


def render_text(console: Console, matches, machine: tuple[Snapshot, list[Finding]] | None) -> None:
    for i, m in enumerate(matches):
        e: ErrorEntry = m.entry
        if i:
            console.print()
        code = f" · {e.code}" if e.code else ""
        console.print(f"[bold]{escape(e.title)}[/][dim]{escape(code)} · matched: {escape(m.text[:160])}[/]")
        console.print("[bold]Usually means[/]")
        for c in e.causes:
            console.print(f"  • {escape(c)}")
        console.print("[bold]How to confirm[/]")
        for c in e.confirm:
            if PYTHON_EXPRESSION.match(c):  # Python to run in the job, not at a shell prompt
                console.print(f"  in Python: {escape(c)}")
            else:
                console.print(f"  $ {escape(c)}", soft_wrap=True)
        console.print(f"[bold]Fix[/]  {escape(e.fix)}")
        for n, step in enumerate(e.steps, 1):
            console.print(f"  {n}. {escape(step)}")
        for c in e.commands:
            console.print(f"  [green]$[/] {escape(c)}", soft_wrap=True)
        if e.related:
            related = ", ".join(f"{c} ({RULES[c].name})" if c in RULES else c for c in e.related)
            console.print(f"[dim]Related checks: {escape(related)}[/]")
        console.print(f"[dim]Source: {escape(e.source)}[/]", soft_wrap=True)  # a URL is copied whole
    if machine is not None:
        _render_machine(console, *machine)


def _render_machine(console: Console, snapshot: Snapshot, findings: list[Finding]) -> None:
    where = "this machine" if snapshot.origin == "live" else "the snapshot"
    console.print()
    console.print(f"[bold]On {where}[/]: " + escape("; ".join(machine_facts(snapshot)) or "nothing known"))
    if not findings:
        console.print(f"  gpudoctor finds nothing on {where} that explains this error.")
        return
    for f in findings:
        console.print(f"  → [bold]{f.code}[/] {f.severity.value}: {escape(f.title)}")
        if f.fix:
            console.print(f"    fix: {escape(f.fix.text)}")
            for c in f.fix.commands:
                console.print(f"      [green]$[/] {escape(c)}", soft_wrap=True)
