"""The views of a judged report (check, diagnose), one per output format, for
render.emit. Each renderer is imported only when its format is chosen."""

from __future__ import annotations

from typing import Any

from gpudoctor.render.emit import OutputFormat, Printed, View, ci_views


def report_views(report, command: str, strict: bool, verbose: bool, data: dict[str, Any],
                 report_path: str | None = None) -> dict[OutputFormat, View]:
    """`data` is the JSON document (render.json.report_data plus what the command adds);
    `report_path` where it was also written (--report-out), for the CI formats to name."""

    def as_json() -> str:
        from gpudoctor.render.json import dumps

        return dumps(data) + "\n"

    def markdown() -> str:
        from gpudoctor.render.markdown import render

        return render(report)

    def nfd() -> str:
        from gpudoctor.render.nfd import render

        return render(report, strict)

    def run_view():
        from gpudoctor.render.outcomes import from_report

        return from_report(report, command, strict, report_path)

    def text(console) -> None:
        from gpudoctor.render.text import render

        render(report, console, verbose)

    return {OutputFormat.JSON: as_json, OutputFormat.MARKDOWN: markdown, OutputFormat.NFD: nfd,
            OutputFormat.TEXT: Printed(text), **ci_views(run_view)}
