"""How every command writes its result: one vocabulary of output formats
(OutputFormat), which of them each command takes (FORMATS, which are also its
--format choices, in its --help order), and one emit() that writes the chosen
one to stdout or a file.

A command hands emit() its views, one per format: a function that returns the
whole text (JSON, markdown, the CI formats), or a Printed that draws on a rich
console (the text views: tables, colour on a terminal). Views are built only
when chosen, so the JSON paths never import rich; nor click, which only
format_option needs (`check`'s common command lines run without it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Union

from gpudoctor.exits import echo

if TYPE_CHECKING:
    from rich.console import Console

    from gpudoctor.render.outcomes import RunView


class OutputFormat(str, Enum):
    TEXT = "text"  # for a person: rich tables on a terminal, plain text when piped
    JSON = "json"  # for programs: the command's schema in gpudoctor/schema/
    MARKDOWN = "markdown"  # for an issue or a pull request
    GITHUB = "github"  # GitHub Actions: workflow commands, the job summary, step outputs
    JUNIT = "junit"  # JUnit XML for GitLab and Jenkins
    SARIF = "sarif"  # SARIF 2.1.0 for code scanning
    PROMETHEUS = "prometheus"  # node_exporter's textfile collector
    ONELINE = "oneline"  # one line: a Slurm drain reason, a health check
    NFD = "nfd"  # node-feature-discovery labels
    HTML = "html"  # one self-contained page
    KUBERNETES = "kubernetes"  # a nodeAffinity block
    SLURM = "slurm"  # an #SBATCH --constraint line
    DOCKER = "docker"  # an ENV NVIDIA_REQUIRE_CUDA line

    def __str__(self) -> str:  # the value in messages and f-strings, on every Python
        return self.value


F = OutputFormat
# The formats CI systems and schedulers read, written from a RunView by render.ci.
CI_FORMATS = (F.GITHUB, F.JUNIT, F.PROMETHEUS, F.ONELINE)
# The formats each command writes; the first is its default.
FORMATS: Mapping[str, tuple[OutputFormat, ...]] = {
    "check": (F.TEXT, F.JSON, F.MARKDOWN, F.GITHUB, F.JUNIT, F.PROMETHEUS, F.ONELINE, F.NFD),
    "snapshot": (F.JSON,),
    "diagnose": (F.TEXT, F.JSON, F.MARKDOWN, F.GITHUB, F.JUNIT, F.ONELINE),
    "smoke": (F.TEXT, F.JSON, F.GITHUB, F.JUNIT, F.PROMETHEUS, F.ONELINE),
    "lint": (F.TEXT, F.JSON, F.SARIF, F.GITHUB),
    "requires": (F.TEXT, F.JSON, F.KUBERNETES, F.SLURM, F.DOCKER),
    "fleet report": (F.TEXT, F.JSON, F.MARKDOWN, F.HTML),
    "report": (F.MARKDOWN,),
    "plan": (F.TEXT, F.JSON),
    "install": (F.TEXT, F.JSON),
    "matrix": (F.TEXT, F.JSON),
    "rules": (F.TEXT, F.JSON),
    "explain": (F.TEXT, F.JSON),
}


def format_option(command: str, help: str | None = None) -> Callable:
    """The --format option of `command`: its formats, the first the default."""
    import click

    choices = [f.value for f in FORMATS[command]]
    return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True,
                        help=help)


class Printed:
    """A view drawn on a rich console (stdout's, or a plain one for a file or --redact)."""

    def __init__(self, draw: Callable[[Console], object], soft_wrap: bool = False) -> None:
        self.draw = draw
        self.soft_wrap = soft_wrap  # long lines (commands) stay whole instead of wrapping


View = Union[Callable[[], str], Printed]


def emit(command: str, fmt: str, views: Mapping[OutputFormat, View], *,
         redact: Callable[[str], str] | None = None, output: str | None = None) -> None:
    """Write `command`'s result in `fmt` to stdout, or to the file `output`
    (an OSError is the caller's to phrase). With `redact`, the text is made
    first, without colour, and filtered before anything is written."""
    chosen = OutputFormat(fmt)
    if chosen not in FORMATS[command] or chosen not in views:
        raise ValueError(f"gpudoctor {command} has no {chosen} output")
    view = views[chosen]
    if redact is None and output is None:
        if isinstance(view, Printed):
            from gpudoctor.render.console import stdout_console

            view.draw(stdout_console(soft_wrap=True) if view.soft_wrap else stdout_console())
        else:
            echo(view(), nl=False)
        return
    text = as_text(view)
    if redact is not None:
        text = redact(text)
    if output is None:
        echo(text, nl=False)
    else:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)


def as_text(view: View) -> str:
    """The view as plain text: a Printed one drawn at the piped width, without colour."""
    if not isinstance(view, Printed):
        return view()
    import io

    from rich.console import Console

    from gpudoctor.render.console import piped_width

    buffer = io.StringIO()
    view.draw(Console(file=buffer, width=piped_width(), no_color=True, highlight=False, soft_wrap=view.soft_wrap))
    return buffer.getvalue()


def ci_views(run_view: Callable[[], RunView]) -> dict[OutputFormat, View]:
    """The CI formats of a run (render.ci writes them); the RunView is made
    only for the format chosen, and nothing of render.ci is imported before."""

    def view(fmt: OutputFormat) -> Callable[[], str]:
        def text() -> str:
            from gpudoctor.render.ci import render

            return render(fmt, run_view())

        return text

    return {fmt: view(fmt) for fmt in CI_FORMATS}
