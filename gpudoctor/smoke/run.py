"""run_smoke: driver check, then the framework runner, then the judge.

This is the one entry point: `gpudoctor smoke` and `gpudoctor check --smoke`
both call it. The framework is never imported here; the runner is a script
run by the TARGET interpreter in its own process group with a hard timeout.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from gpudoctor.host import Host
from gpudoctor.matrices import Matrices
from gpudoctor.smoke.driver import (
    MAIN_SCRIPT,
    driver_limit,
    last_json_object,
    run_driver_check,
)
from gpudoctor.smoke.judge import SmokeInput, judge
from gpudoctor.smoke.judge_driver import driver_findings
from gpudoctor.smoke.model import SmokeReport
from gpudoctor.smoke.process import run_streaming
from gpudoctor.snapshot import Snapshot

RUNNER_FORMAT = "gpudoctor-smoke-runner"
BACKENDS = ("auto", "torch", "cupy", "jax")
MODES = ("quick", "full")
# First use may JIT PTX or build cuBLAS/cuDNN plans; a hang costs at most this.
DEFAULT_TIMEOUT_S = {"quick": 120.0, "full": 600.0}


class SmokeUsageError(ValueError):
    """Bad input from the user (exit 2): unknown backend, missing interpreter, GPU index."""


@dataclass(frozen=True)
class SmokeOptions:
    """How `gpudoctor smoke` (or `check --smoke`) was asked to run."""

    backend: str = "auto"
    gpus: tuple[int, ...] | None = None  # CUDA ordinals; None = all visible
    mode: str = "quick"
    timeout_s: float | None = None  # None: DEFAULT_TIMEOUT_S[mode]
    allow_cpu: bool = False  # no driver check; numerics on the CPU when CUDA is unavailable
    strict: bool = False  # warnings (e.g. performance) fail too
    runner_script: str | None = None  # a replacement runner (tests inject crashing/hanging ones)
    driver_timeout_s: float | None = None  # None: scaled with the GPU count (driver.driver_limit)

    @property
    def timeout(self) -> float:
        return self.timeout_s if self.timeout_s is not None else DEFAULT_TIMEOUT_S[self.mode]


def parse_gpus(text: str | None) -> tuple[int, ...] | None:
    """'all' -> None; '0,2' -> (0, 2); anything else raises SmokeUsageError."""
    if text is None or text.strip() in ("", "all"):
        return None
    try:
        values = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise SmokeUsageError(f"--gpus must be 'all' or CUDA device numbers like 0,2; got {text!r}") from None
    if any(v < 0 for v in values) or len(set(values)) != len(values):
        raise SmokeUsageError(f"--gpus: device numbers must be distinct and >= 0; got {text!r}")
    return values


def resolve_python(host: Host, python: str | None) -> str:
    if not python:
        return host.python
    path = python if os.sep in python else host.which(python)
    if not path or not host.exists(path):
        raise SmokeUsageError(f"--python: no interpreter at {python!r}")
    return path


def runner_argv(python: str, options: SmokeOptions) -> list[str]:
    argv = [python, options.runner_script or str(MAIN_SCRIPT), "--backend", options.backend,
            "--gpus", ",".join(str(g) for g in options.gpus) if options.gpus else "all", "--mode", options.mode]
    return argv + (["--allow-cpu"] if options.allow_cpu else [])


def _validate(options: SmokeOptions) -> None:
    if options.backend not in BACKENDS:
        raise SmokeUsageError(f"--backend must be one of {', '.join(BACKENDS)}")
    if options.mode not in MODES:
        raise SmokeUsageError(f"mode must be one of {', '.join(MODES)}")
    if options.timeout <= 0:
        raise SmokeUsageError("--timeout must be a positive number of seconds")


def run_smoke(host: Host, python: str | None = None, options: SmokeOptions | None = None,
              snapshot: Snapshot | None = None, *, matrices: Matrices | None = None,
              on_event: Callable[[dict], None] | None = None,
              on_runner_start: Callable[[int], None] | None = None) -> SmokeReport:
    """Run the smoke suite for `python` (default: gpudoctor's own interpreter).

    Raises SmokeUsageError for bad input. Never raises for a broken machine:
    no driver, a crash or a hang become findings in the report. `on_event`
    receives the runner's progress events; `on_runner_start(n_gpus)` is called
    just before the runner starts (for a progress bar)."""
    options = options or SmokeOptions()
    _validate(options)
    started = time.monotonic()
    target = resolve_python(host, python)

    def verdict(runner: dict | None = None, proc=None) -> SmokeReport:
        return judge(SmokeInput(driver, runner, proc, snapshot, target), matrices, mode=options.mode,
                     strict=options.strict, wall_s=time.monotonic() - started)

    driver = None
    n_gpus = 1
    if not options.allow_cpu:
        limit, why = driver_limit(host, snapshot) if options.driver_timeout_s is None else (
            options.driver_timeout_s, f"{options.driver_timeout_s:g} s (set)")
        driver = run_driver_check(host, min(limit, options.timeout), why)
        if not driver_findings(driver)[1]:
            return verdict()  # no usable GPU: say so now, without starting the framework
        count = driver.get("device_count") or 0
        missing = [g for g in options.gpus or () if g >= count]
        if missing:
            raise SmokeUsageError(f"--gpus {','.join(map(str, missing))}: only {count} GPU(s) visible "
                                  f"(CUDA device numbers 0..{count - 1})")
        n_gpus = len(options.gpus) if options.gpus else count
    env = dict(host.env())
    env.update(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
    if on_runner_start is not None:
        on_runner_start(n_gpus)
    proc = run_streaming(runner_argv(target, options), timeout=options.timeout, env=env, on_event=on_event)
    return verdict(last_json_object(proc.stdout, RUNNER_FORMAT), proc)
