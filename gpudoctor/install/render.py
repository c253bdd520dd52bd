"""Human output of an install plan. Only display; plain Text objects, so a
GPU name or path with [brackets] is never read as rich markup."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from gpudoctor.install.plan import Plan


def _block(console: Console, title: str, body: str | None, note: str = "") -> None:
    if not body:
        return
    head = Text(title, style="bold")
    if note:
        head.append(f"  ({note})", style="dim")
    console.print(head)
    for line in body.splitlines():
        console.print(Text("  " + line), soft_wrap=True)


def _list(console: Console, title: str, items, mark: str, style: str) -> None:
    items = list(items)
    if not items:
        return
    console.print(Text(title, style="bold"))
    for item in items:
        line = Text(f"  {mark} ", style=style)
        line.append(item)
        console.print(line)


def render_plan(plan: Plan, console: Console, verify=None) -> None:
    t = plan.target
    if plan.ok:
        c = plan.choice.candidate
        head = Text(f"{plan.framework} {c.version}", style="bold green")
        if c.variant not in ("-", ""):
            head.append(f" · {c.variant}")
        if c.cuda:
            head.append(f" · CUDA {c.cuda}")
        console.print(head)
    else:
        console.print(Text(f"No {plan.framework} build works here", style="bold red"))
    console.print(Text(f"for {t.describe()} ({t.origin})", style="dim"))
    console.print()
    if plan.ok:
        cm = plan.install.commands
        for step in cm.setup:
            _block(console, "first", step, "system CUDA libraries")
        _block(console, "pip", cm.pip)
        _block(console, "uv", cm.uv)
        _block(console, "uv project", cm.uv_project, "pyproject.toml")
        if cm.conda:
            _block(console, "conda", cm.conda, cm.conda_note)
            _block(console, "mamba", cm.mamba)
            _block(console, "pixi", cm.pixi, "pixi.toml")
        elif cm.conda_note:
            console.print(Text("conda", style="bold"))
            console.print(Text("  " + cm.conda_note, style="dim"))
        console.print()
        _list(console, "Why this one", plan.reasons, "•", "green")
    else:
        _list(console, "Why", plan.reasons, "✗", "red")
    _list(console, "Warnings", plan.warnings, "!", "yellow")
    if plan.needs:
        _list(console, "What would make it work", plan.needs, "→", "cyan")
    rejected = [f"{a.label}: {a.reason}" for a in plan.alternatives]
    _list(console, "Other builds", rejected, "·", "dim")
    if verify is not None:
        marks = {"found": ("✓", "green"), "missing": ("✗", "red"), "unknown": ("?", "yellow"),
                 "skipped": ("-", "dim")}
        console.print(Text("Verified online", style="bold"))
        for check in verify:
            mark, style = marks.get(check.status, ("?", "yellow"))
            line = Text(f"  {mark} ", style=style)
            line.append(f"{check.requirement}: {check.status}" + (f" ({check.filename})" if check.filename
                                                                  else f" ({check.detail})" if check.detail else ""))
            console.print(line)
