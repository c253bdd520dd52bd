"""`gpudoctor matrix`: query the compatibility matrices, and refresh them from PyPI.

    gpudoctor matrix torch [VERSION] [--platform P]   builds of a release or series
    gpudoctor matrix cuda [VERSION]                    driver floors and compilable SMs
    gpudoctor matrix gpu [NAME]                        GPU specs (fuzzy name match)
    gpudoctor matrix tensorflow|jax|cudnn|cupy|onnxruntime [VERSION]
    gpudoctor matrix refresh [--dry-run]               learn newer releases from PyPI

Text by default (rich tables with the "data as of" date), `--json` for scripts.
An unknown version or name is a one-line error with the closest matches, exit 2.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import click

from gpudoctor.findings import ExitCode
from gpudoctor.matrices import MatrixError, load_matrices, overlay_dir
from gpudoctor.matrices.views import PLATFORMS, VIEWS, NoMatch, View
from gpudoctor.render.emit import OutputFormat, Printed, emit


def _matrices(ctx: click.Context):
    overlay = None if ctx.obj.get("no_overlay") else overlay_dir()
    try:
        return load_matrices(overlay=overlay)
    except MatrixError as exc:  # shipped data broken: a bug, but say it in one line
        click.echo(f"gpudoctor matrix: {exc}", err=True)
        ctx.exit(ExitCode.INTERNAL)


def _emit(ctx: click.Context, view: View, query: str | None, as_json: bool) -> None:
    from gpudoctor.render.matrix import matrix_data, render_table

    as_of = ctx.obj["matrices"].data_as_of(view.stem) or "unknown"
    emit("matrix", "json" if as_json or ctx.obj.get("json") else "text",
         {OutputFormat.JSON: lambda: json.dumps(matrix_data(view, query, as_of), indent=2) + "\n",
          OutputFormat.TEXT: Printed(lambda console: render_table(view, as_of, console))})


def _show(ctx: click.Context, subject: str, query: str | None, as_json: bool, **kw: Any) -> None:
    ctx.obj["matrices"] = _matrices(ctx)
    try:
        view = VIEWS[subject](ctx.obj["matrices"], query, **kw)
    except NoMatch as exc:
        hint = f" (closest: {', '.join(exc.close)})" if exc.close else ""
        click.echo(f"gpudoctor: error: matrix {subject}: unknown {exc.what} {exc.query!r}{hint}", err=True)
        ctx.exit(ExitCode.USAGE)
    _emit(ctx, view, query, as_json)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (schema_version, data_as_of, rows).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True, help="JSON output for every subcommand.")
@click.option("--no-overlay", is_flag=True, help="Use only the shipped data, not the refresh overlay.")
@click.pass_context
def matrix(ctx: click.Context, as_json: bool, no_overlay: bool) -> None:
    """Query the compatibility matrices (shipped data plus the `refresh` overlay)."""
    ctx.ensure_object(dict)
    ctx.obj.update(json=as_json, no_overlay=no_overlay)


@matrix.command()
@click.argument("version", required=False)
@click.option("--platform", type=click.Choice(PLATFORMS), help="Only builds for this platform.")
@json_option
@click.pass_context
def torch(ctx: click.Context, version: str | None, platform: str | None, as_json: bool) -> None:
    """PyTorch builds: variant, CUDA, cuDNN, arch list, Python, PyPI default, index URL.

    VERSION is a release (2.14.1) or a series (2.14); none lists every build."""
    _show(ctx, "torch", version, as_json, platform=platform)


def _subject(name: str, arg: str, doc: str) -> None:
    """Register `matrix <name> [ARG] [--json]`: one table, one optional query."""

    @click.argument(arg, required=False)
    @json_option
    @click.pass_context
    def command(ctx: click.Context, as_json: bool, **kw: Any) -> None:
        _show(ctx, name, kw[arg], as_json)

    command.__doc__ = doc
    matrix.command(name)(command)


_subject("cuda", "version", "CUDA toolkits: minimum drivers, minor-version-compatibility floor, compilable SMs.")
_subject("gpu", "name", "GPU models (fuzzy NAME match): compute capability, memory, dense TFLOPS.")
_subject("tensorflow", "version", "TensorFlow: tested CUDA/cuDNN/Python, [and-cuda], native-Windows GPU, arch list.")
_subject("jax", "version", "JAX/jaxlib: install extras and minimum CUDA/cuDNN/driver/SM by version range.")
_subject("cudnn", "version", "cuDNN: CUDA majors, minimum driver, supported SM range (9.11+ needs SM 7.5).")
_subject("cupy", "query", "CuPy wheels (cupy-cudaNNx) and the CUDA each needs; QUERY is a CUDA major or a name.")
_subject("onnxruntime", "version", "ONNX Runtime: the CUDA and cuDNN of each GPU build, and which one PyPI ships.")


@matrix.command()
@click.option("--dry-run", is_flag=True, help="Show the diff of the overlay; write nothing.")
@click.option("--timeout", default=15.0, show_default=True, help="Seconds per PyPI request.")
@click.pass_context
def refresh(ctx: click.Context, dry_run: bool, timeout: float) -> None:
    """Learn releases newer than the shipped data from PyPI (the only network access
    gpudoctor makes) and write them to a user overlay; exit 2 when PyPI cannot be used."""
    session = ctx.obj.get("session")  # tests inject a recorded session
    if session is None:
        try:
            import requests
        except ImportError:
            click.echo("gpudoctor: error: matrix refresh needs the 'requests' package "
                       "(pip install 'gpudoctor[online]'); shipped data is still used", err=True)
            ctx.exit(ExitCode.USAGE)
        session = requests.Session()
    run_refresh(ctx, session, dry_run, timeout)


def run_refresh(ctx: click.Context, session: Any, dry_run: bool, timeout: float) -> None:
    from gpudoctor.matrices import refresh as rf

    shipped = load_matrices(ctx.obj.get("shipped"), overlay=None)  # tests inject a trimmed copy
    today = ctx.obj.get("today") or _dt.date.today().isoformat()
    pypi = rf.PyPI(session, timeout=timeout)
    from gpudoctor.render.console import status

    try:
        with status("gpudoctor matrix refresh: asking PyPI for newer releases…"):
            plan = rf.build_plan(shipped, pypi, today)
            texts = rf.render(plan, today)
    except rf.RefreshError as exc:
        click.echo(f"gpudoctor matrix refresh: {exc}; nothing written, shipped data still used", err=True)
        ctx.exit(ExitCode.USAGE)
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)
    directory = Path(overlay_dir())
    if dry_run:
        diff = rf.diff(directory, texts)
        said = diff if diff else f"overlay {directory} is up to date ({plan.count()} derived rows)"
    else:
        rf.write(directory, texts)
        load_matrices.cache_clear()
        said = (f"{plan.count()} rows newer than the shipped data written to {directory}"
                if texts else f"nothing newer than the shipped data on PyPI; overlay {directory} is empty")
    emit("matrix", "text", {OutputFormat.TEXT: lambda: said + "\n"})
