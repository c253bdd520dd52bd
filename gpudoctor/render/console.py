"""One way to make the rich consoles: colour on a terminal; plain text when
piped (CI logs, files), as wide as COLUMNS says, else 80 columns.

rich is imported only when a console is made: `check --json` and a status
that is not shown (piped, quiet) never pay for it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

PIPED_WIDTH = 80  # a pipe has no width of its own: the narrowest common terminal, unless COLUMNS says
MIN_WIDTH, MAX_WIDTH = 40, 400


def piped_width() -> int:
    """COLUMNS when it is a sane number (a user or CI asking for a width), else 80."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return PIPED_WIDTH
    return min(max(width, MIN_WIDTH), MAX_WIDTH)


def stdout_console(**kwargs) -> Console:
    from rich.console import Console

    console = Console(highlight=False, **kwargs)
    if not console.is_terminal:
        console = Console(highlight=False, width=piped_width(), no_color=True, **kwargs)
    return console


@contextmanager
def status(message: str, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A transient one-line status on stderr (spinner and message, erased when
    done), on a terminal only: never in piped output, logs or JSON. Yields a
    function that replaces the message."""
    if not enabled or not sys.stderr.isatty():
        yield lambda _msg: None
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False)
    with console.status(escape(message)) as live:
        yield lambda msg: live.update(escape(msg))
