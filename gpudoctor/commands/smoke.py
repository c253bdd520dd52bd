"""`gpudoctor smoke`: prove each precision path runs, right and fast.

Exit codes: 0 every test passed and no error finding; 1 a test failed,
crashed or timed out, or an error finding (no driver, no GPU); 2 bad input.
"""

from __future__ import annotations

import json
import sys

import click

from gpudoctor.host import RealHost
from gpudoctor.render.emit import OutputFormat, Printed, ci_views, emit, format_option
from gpudoctor.smoke import SmokeOptions, SmokeUsageError, parse_gpus, run_smoke
from gpudoctor.smoke.progress import make_progress, planned_tests
from gpudoctor.snapshot import Snapshot


def _load_snapshot(path: str | None) -> Snapshot | None:
    if path is None:
        return None
    from gpudoctor.commands.check import load_snapshot_file

    return load_snapshot_file(path)


@click.command("smoke")
@click.option("--python", "python", metavar="PATH", help="Interpreter of the environment to test (default: this one).")
@click.option("--backend", type=click.Choice(["auto", "torch", "cupy", "jax"]), default="auto", show_default=True,
              help="Framework to run the kernels with; auto tries torch, then cupy, then jax.")
@click.option("--gpus", default="all", show_default=True, help="'all' or CUDA device numbers, e.g. 0,2.")
@click.option("--quick/--full", "quick", default=True, show_default=True,
              help="--full adds a pattern write/verify over most free memory and longer timings.")
@click.option("--timeout", "timeout", type=float, metavar="S", help="Hard limit for the runner (default 120, --full 600).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema smoke.v1) on stdout.")
@format_option("smoke", help="Output format (CI and scheduler formats: docs/ci.md).")
@click.option("--allow-cpu", is_flag=True, help="Run the numerics on the CPU where CUDA is unavailable (for tests).")
@click.option("--strict", is_flag=True, help="Warnings (slow GEMM, slow copies) fail too.")
@click.option("--snapshot", "snapshot_file", metavar="FILE",
              help="A `gpudoctor snapshot > FILE` (or `check --json`) file: NVML throttle reasons and PCIe link "
                   "explain slow results.")
@click.option("--runner", "runner_script", hidden=True, help="Replacement runner script (tests).")
def smoke(python, backend, gpus, quick, timeout, as_json, fmt, allow_cpu, strict, snapshot_file,
          runner_script) -> None:
    """Run seconds-long GPU kernels that prove each precision path.

    Per GPU: GEMM in FP32 (TF32 off), TF32, FP16, BF16 and FP8 against an FP64
    reference and at measured TFLOPS vs the GPU's peak; cuDNN convolution
    forward/backward; which attention kernel SDPA selects; copy bandwidth;
    with several GPUs, NCCL all-reduce and peer access.
    """
    as_json = as_json or fmt == "json"
    quiet = as_json or fmt != "text"
    try:
        options = SmokeOptions(backend=backend, gpus=parse_gpus(gpus), mode="quick" if quick else "full",
                               timeout_s=timeout, allow_cpu=allow_cpu, strict=strict, runner_script=runner_script)
        snapshot = _load_snapshot(snapshot_file)
        progress = make_progress(sys.stderr, quiet)
        try:
            report = run_smoke(RealHost(), python, options, snapshot, on_event=progress.on_event,
                               on_runner_start=lambda n: progress.start(planned_tests(n, options.mode)))
        finally:
            progress.close()
    except SmokeUsageError as exc:
        raise click.UsageError(str(exc)) from None
    emit("smoke", "json" if as_json else fmt, _views(report))
    sys.exit(int(report.exit_code))


def _views(report) -> dict:
    from gpudoctor.render.outcomes import from_smoke

    def text(console) -> None:
        from gpudoctor.smoke.render_text import render

        render(report, console)

    return {OutputFormat.JSON: lambda: json.dumps(report.to_json(), indent=2) + "\n", OutputFormat.TEXT: Printed(text),
            **ci_views(lambda: from_smoke(report))}
