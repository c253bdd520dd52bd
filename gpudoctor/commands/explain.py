"""`gpudoctor explain GDnnn`: what a finding code checks, why, and how to fix it."""

from __future__ import annotations

import difflib
import re
import sys

import click

from gpudoctor.findings import ExitCode


@click.command()
@click.argument("topic")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def explain(topic, as_json):
    """Explain a finding code (GD201) or an error message."""
    from gpudoctor.ruledocs import doc_text, sections
    from gpudoctor.rules.registry import RULES, all_rules

    code = topic.strip().upper()
    if not re.fullmatch(r"GD\d{3}", code):
        raise click.UsageError(f"{topic!r} is not a finding code like GD201")
    all_rules()
    rule = RULES.get(code)
    text = doc_text(code)
    if rule is None or text is None:
        close = difflib.get_close_matches(code, list(RULES), n=3, cutoff=0.5)
        hint = f" (close: {', '.join(close)})" if close else "; `gpudoctor rules` lists them"
        click.echo(f"gpudoctor: unknown code {code}{hint}", err=True)
        sys.exit(ExitCode.USAGE)
    if as_json:
        from gpudoctor.render.json import dumps

        click.echo(dumps({"code": rule.code, "name": rule.name, "category": rule.category,
                          "severity": rule.severity.value, "summary": rule.summary, "sections": sections(text)}))
        return
    from rich.markdown import Markdown

    from gpudoctor.render.console import stdout_console

    console = stdout_console()
    console.print(f"[bold]{rule.code}[/] {rule.name} · {rule.severity.value} · category {rule.category}")
    console.print(Markdown(text))
