"""One way to make the rich console for stdout: colour on a terminal; plain,
wide text when piped (CI logs, files), so tables are not cut at 80 columns."""

from __future__ import annotations

from rich.console import Console

PIPED_WIDTH = 120


def stdout_console(**kwargs) -> Console:
    console = Console(highlight=False, **kwargs)
    if not console.is_terminal:
        console = Console(highlight=False, width=PIPED_WIDTH, no_color=True, **kwargs)
    return console
