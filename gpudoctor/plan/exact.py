"""Exact mode: measure one training step with the TARGET interpreter.

gpudoctor never imports torch; it runs exact_script.py (stdlib + torch) with
the interpreter the user names, sends the request as JSON on stdin and reads
one JSON line back. A hung or crashing child becomes an ExactError with the
reason, never a traceback.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.host import run_command
from gpudoctor.plan.job import GIB, Job
from gpudoctor.plan.memory import WORKSPACE, Memory

SCRIPT = Path(__file__).resolve().parent / "target" / "exact_script.py"
DEFAULT_TIMEOUT = 600.0


class ExactError(RuntimeError):
    """Exact mode could not measure the model."""


@dataclass(frozen=True)
class ExactResult:
    """What exact mode measured in the target interpreter: the peak memory of one training step,
    by phase, and the model's parameter counts."""

    peak_bytes: int
    phase: str
    at_peak: dict
    phase_peaks: dict
    flops_per_step: float | None
    params: int
    trainable_params: int
    torch_version: str
    device_simulated: str
    real_peak_bytes: int | None = None
    raw: dict | None = None


def request_for(job: Job, *, builtin: str | None = None, factory: str | None = None,
                measure_real: bool = False) -> dict:
    return {
        "builtin": builtin, "factory": factory, "batch": job.batch, "seq": job.seq,
        "image_size": job.image_size, "precision": job.precision, "optimizer": job.optimizer,
        "grad_checkpointing": job.grad_checkpointing, "grad_accum": job.grad_accum,
        "attention": job.attention, "measure_real": measure_real,
    }


def _result(data: dict) -> ExactResult:
    if not data.get("ok"):
        raise ExactError(str(data.get("error", "unknown error")))
    return ExactResult(
        peak_bytes=int(data["peak_bytes"]), phase=str(data.get("peak_phase", "")),
        at_peak=dict(data.get("at_peak", {})), phase_peaks=dict(data.get("phase_peaks", {})),
        flops_per_step=data.get("flops_per_step"), params=int(data.get("params", 0)),
        trainable_params=int(data.get("trainable_params", 0)), torch_version=str(data.get("torch", "")),
        device_simulated=str(data.get("device_simulated", "")), real_peak_bytes=data.get("real_peak_bytes"),
        raw=data)


def run_exact_many(python: str, requests: list[dict], timeout: float = DEFAULT_TIMEOUT) -> list:
    """Several measurements in one child (torch imported once). Each item is an
    ExactResult or the ExactError of that request; a child that cannot run at
    all raises ExactError."""
    env = dict(os.environ)
    env.setdefault("PYTHONWARNINGS", "ignore")
    result = run_command([python, str(SCRIPT)], timeout=timeout, env=env, stdin=json.dumps(requests))
    if result.timed_out:
        raise ExactError(f"exact mode timed out after {timeout:.0f} s (raise --timeout, or plan a smaller batch)")
    if result.error:
        raise ExactError(f"cannot run {python}: {result.error}")
    lines = []
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                raise ExactError("exact mode printed something that is not JSON") from None
    if not lines:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise ExactError(f"exact mode failed in {python} (exit {result.returncode}): {tail}")
    if len(lines) < len(requests):  # the child died part way (or could not import torch)
        if len(lines) == 1 and not lines[0].get("ok"):
            raise ExactError(str(lines[0].get("error")))
        raise ExactError(f"exact mode stopped after {len(lines)} of {len(requests)} measurements "
                         f"(exit {result.returncode})")
    out = []
    for data in lines:
        try:
            out.append(_result(data))
        except ExactError as exc:
            out.append(exc)
    return out


def run_exact(python: str, request: dict, timeout: float = DEFAULT_TIMEOUT) -> ExactResult:
    """One measurement; raise ExactError with a one-line reason."""
    res = run_exact_many(python, [request], timeout)[0]
    if isinstance(res, ExactError):
        raise res
    return res


def to_memory(res: ExactResult, job: Job) -> Memory:
    """The measured peak as a Memory breakdown (context and allocator slack added as in formula mode)."""
    at = res.at_peak
    weights = at.get("parameters", 0) + at.get("buffers", 0)
    acts = at.get("activations", 0)
    other = at.get("temporary", 0) + at.get("inputs", 0) + WORKSPACE
    slack = job.allocator_slack * (acts + other)
    phase = {"optimizer": "optimizer step", "forward": "loss"}.get(res.phase, res.phase)
    notes = [f"exact mode: torch {res.torch_version}, fake tensors on {res.device_simulated}"]
    if res.device_simulated == "cpu" and job.precision.startswith("amp"):
        notes.append("autocast simulated with the CPU policy (CUDA's keeps softmax/norms in fp32)")
    return Memory(weights=weights, gradients=at.get("gradients", 0), optimizer=at.get("optimizer", 0),
                  activations=acts, other=other + slack, context=job.cuda_context_gib * GIB, phase=phase,
                  slack=slack, notes=tuple(notes),
                  detail={"trainable_params": res.trainable_params, "exact_peak_bytes": res.peak_bytes,
                          "flops_per_step": res.flops_per_step})
