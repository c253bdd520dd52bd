"""`gpudoctor rules`: every finding code gpudoctor can report."""

from __future__ import annotations

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable list.")
def rules(as_json):
    """List every finding code with its category, severity and summary."""
    from gpudoctor.rules.registry import all_rules

    items = all_rules()
    if as_json:
        from gpudoctor.render.json import dumps

        click.echo(dumps([{"code": r.code, "name": r.name, "category": r.category, "severity": r.severity.value,
                           "family": r.family, "summary": r.summary} for r in items]))
        return
    from rich.table import Table

    from gpudoctor.render.console import stdout_console

    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("Code", "Name", "Severity", "Category", "Summary"):
        table.add_column(col, overflow="fold")
    for r in items:
        table.add_row(r.code, r.name, r.severity.value, r.category, r.summary)
    stdout_console().print(table)
    click.echo("\n`gpudoctor explain CODE` shows what a code checks, why it matters and how to fix it.")
