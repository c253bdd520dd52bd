"""`gpudoctor rules`: every finding code, as a table or as JSON."""

from __future__ import annotations

EXPLAIN_HINT = "\n`gpudoctor explain CODE` shows what a code checks, why it matters and how to fix it."


def rules_data(rules) -> list[dict]:
    return [{"code": r.code, "name": r.name, "category": r.category, "severity": r.severity.value,
             "family": r.family, "status": r.status, "since": r.since, "summary": r.summary} for r in rules]


def render_table(rules, console) -> None:
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("Code", "Name", "Severity", "Category", "Status", "Since", "Summary"):
        table.add_column(col, overflow="fold")
    for r in rules:
        table.add_row(r.code, r.name, r.severity.value, r.category, r.status, r.since, r.summary)
    console.print(table)
    console.out(EXPLAIN_HINT)  # one line at any width, as written
