"""The CI and scheduler formats, one entry point for every command:
`--format github|junit|prometheus|oneline` (render.emit.CI_FORMATS) over a RunView."""

from __future__ import annotations

import os
from collections.abc import Mapping

from gpudoctor.render.outcomes import RunView


def render(fmt: str, view: RunView, env: Mapping[str, str] | None = None) -> str:
    if fmt == "github":
        from gpudoctor.render import github

        return github.render(view, os.environ if env is None else env)
    if fmt == "junit":
        from gpudoctor.render import junit

        return junit.render(view)
    if fmt == "prometheus":
        from gpudoctor.render import prometheus

        return prometheus.render(view)
    if fmt == "oneline":
        from gpudoctor.render import oneline

        return oneline.render(view)
    raise ValueError(f"not a CI format: {fmt}")


def write_report(path: str, text: str) -> None:
    """--report-out: the JSON report next to a CI format, written whole or not at all."""
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    os.replace(tmp, path)
