"""`gpudoctor rules`: every finding code gpudoctor can report."""

from __future__ import annotations

import click

from gpudoctor.render.emit import OutputFormat, Printed, emit


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable list.")
def rules(as_json):
    """List every finding code with its category, severity and summary."""
    from gpudoctor.render.json import dumps
    from gpudoctor.render.rules import render_table, rules_data
    from gpudoctor.rules.registry import all_rules

    items = all_rules()
    emit("rules", "json" if as_json else "text",
         {OutputFormat.JSON: lambda: dumps(rules_data(items)) + "\n",
          OutputFormat.TEXT: Printed(lambda console: render_table(items, console))})
