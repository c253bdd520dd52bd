"""`gpudoctor fleet collect|report`: many nodes, one view (docs/fleet.md)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click

from gpudoctor.cli import InputError
from gpudoctor.render.emit import OutputFormat, emit, format_option


@click.group()
def fleet() -> None:
    """Collect one report per node on an existing engine (Slurm), and merge them.

    Exit codes: 0 every node passed, 1 a node failed or gave no report, 2 bad input.
    """


def _stop_on_sigterm() -> None:
    # A scheduler or systemd stops us with SIGTERM: unwind, so srun is stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


@fleet.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--slurm", is_flag=True, help="Run through Slurm: srun --ntasks-per-node=1 … on each node.")
@click.option("--out", "out_dir", required=True, metavar="DIR", help="Write DIR/<node>.json per node.")
@click.option("--timeout", "node_timeout", type=float, default=120.0, show_default=True, metavar="S",
              help="Deadline of the check on each node.")
@click.option("--srun-timeout", type=float, metavar="S",
              help="Deadline of the whole srun, allocation wait included (default: --timeout + 120).")
@click.option("--check-arg", "check_args", multiple=True, metavar="ARG",
              help="Pass ARG to each node's `gpudoctor check` (repeat: --check-arg=--policy --check-arg=F).")
@click.option("--node-command", metavar="CMD",
              help="How a node runs gpudoctor (default: this Python, `-m gpudoctor`), e.g. 'gpudoctor'.")
@click.argument("srun_args", nargs=-1, type=click.UNPROCESSED, metavar="[SRUN-ARGS]...")
def collect(slurm, out_dir, node_timeout, srun_timeout, check_args, node_command, srun_args):
    """Run `gpudoctor check --json` on every node and write one report per node.

    SRUN-ARGS go to srun as they are: -N2, -p gpu, -w 'gpu[01-16]', --gres=gpu:8.
    A node that fails or times out is written too (status failed/timeout).
    """
    import shlex

    from gpudoctor.fleet.collect import collect_slurm

    if not slurm:
        raise click.UsageError("choose an engine: --slurm (Kubernetes: deploy/kubernetes/, docs/fleet.md)")
    if node_timeout <= 0 or (srun_timeout is not None and srun_timeout <= 0):
        raise click.UsageError("timeouts must be positive")
    _stop_on_sigterm()
    from gpudoctor.render.console import status

    try:
        with status(f"gpudoctor fleet: running the check on every node (srun, at most {node_timeout:g} s a node)…"):
            summary = collect_slurm(Path(out_dir), srun_args, check_args, node_timeout, srun_timeout,
                                    shlex.split(node_command) if node_command else None)
    except OSError as exc:
        raise InputError(f"--out {out_dir}: {exc.strerror or exc}") from None
    if summary["error"]:
        raise InputError(f"cannot run srun: {summary['error']}")
    nodes = summary["nodes"]
    bad = {n: s for n, s in nodes.items() if s != "ok"}
    click.echo(f"{len(nodes)} node report{'s' * (len(nodes) != 1)} in {out_dir}"
               + (f"; without a report: {', '.join(f'{n} ({s})' for n, s in bad.items())}" if bad else ""), err=True)
    if not nodes:
        tail = " ".join(summary["stderr_tail"][-3:])
        click.echo(f"srun gave no node reports (exit {summary['returncode']}): {tail}", err=True)
        sys.exit(1)
    sys.exit(0 if not bad and summary["returncode"] == 0 else 1)


@fleet.command()
@click.argument("inputs", nargs=-1, required=True, metavar="DIR|FILES...")
@format_option("fleet report")
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE instead of stdout.")
def report(inputs, fmt, output):
    """Merge per-node reports: verdicts, groups of identical nodes, drift, findings by code."""
    from gpudoctor.fleet.merge import FleetInputError, fleet_data, load_fleet

    try:
        fl = load_fleet(inputs)
    except FleetInputError as exc:
        raise InputError(str(exc)) from None
    try:
        emit("fleet report", fmt, _views(fleet_data(fl)), output=output)
    except OSError as exc:
        if not output:
            raise  # stdout itself (a closed pipe): not the file's fault
        raise InputError(f"--output: cannot write {output}: {exc.strerror or exc}") from None
    sys.exit(fl.exit_code)


def _views(data: dict) -> dict:
    from gpudoctor.fleet.html import render_html
    from gpudoctor.fleet.render import render_markdown, render_text
    from gpudoctor.render.json import dumps

    return {OutputFormat.JSON: lambda: dumps(data) + "\n", OutputFormat.HTML: lambda: render_html(data),
            OutputFormat.MARKDOWN: lambda: render_markdown(data), OutputFormat.TEXT: lambda: render_text(data)}


@fleet.command("node", hidden=True, context_settings={"ignore_unknown_options": True})
@click.option("--timeout", type=float, default=120.0)
@click.argument("check_args", nargs=-1, type=click.UNPROCESSED)
def node(timeout, check_args):
    """One node's part of `fleet collect` (started by srun): check, then an envelope."""
    from gpudoctor.fleet.node import main

    _stop_on_sigterm()
    sys.exit(main(check_args, timeout))
