"""`--deep`: import each installed framework with the TARGET interpreter.

Each import runs in its own subprocess with a timeout (the process group is
killed at the deadline, so a hung CUDA init cannot hang gpudoctor) and reports
is_available and its error, devices, get_arch_list(), the cuDNN actually
loaded, the CUDA libraries mapped (/proc/self/maps) and a tiny op per GPU.
"""

from __future__ import annotations

import dataclasses
import json
import re

from gpudoctor.host import CommandResult
from gpudoctor.probes.context import Context
from gpudoctor.scripts import script_path
from gpudoctor.snapshot import DeepResult, Framework

DEEP_TIMEOUT_S = 60.0
DEEP_SCRIPT = script_path("deep_framework.py")
MARKER = "GPUDOCTOR_DEEP "
# stderr lines worth keeping (TensorFlow and XLA report CUDA trouble only in logs).
_STDERR_SIGNAL = re.compile(r"could not|cannot|failed|unable|not compatible|error", re.IGNORECASE)


def probe(ctx: Context, frameworks: tuple[Framework, ...]) -> tuple[Framework, ...]:
    return tuple(dataclasses.replace(fw, deep=run_one(ctx, fw.name)) for fw in frameworks)


def run_one(ctx: Context, name: str) -> DeepResult:
    res = ctx.host.run([ctx.target.python, DEEP_SCRIPT, name], timeout=DEEP_TIMEOUT_S)
    return parse(res)


def parse(res: CommandResult) -> DeepResult:
    data = _last_report(res.stdout)
    stderr_notes = tuple(dict.fromkeys(
        line.strip()[:500] for line in res.stderr.splitlines() if _STDERR_SIGNAL.search(line)))[:10]
    if res.timed_out:
        stage = data.get("stage", "start") if data else "start"
        return _result(data, error=f"timed out after {res.duration_s:.0f} s (last stage: {stage})",
                       timed_out=True, duration_s=res.duration_s, extra_warnings=stderr_notes)
    if data is None or data.get("stage") != "done":
        stage = data.get("stage", "start") if data else "start"
        why = res.error or f"exit {res.returncode}"
        tail = (res.stderr.strip().splitlines() or [""])[-1][:500]
        return _result(data, error=f"crashed ({why}) after stage {stage}" + (f": {tail}" if tail else ""),
                       duration_s=res.duration_s, extra_warnings=stderr_notes)
    return _result(data, error=data.get("error"), duration_s=data.get("duration_s"), extra_warnings=stderr_notes)


def _last_report(stdout: str) -> dict | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                data = json.loads(line[len(MARKER):])
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _result(data: dict | None, *, error: object, duration_s: object, timed_out: bool = False,
            extra_warnings: tuple[str, ...] = ()) -> DeepResult:
    d = data or {}
    arch = d.get("arch_list")
    count = d.get("device_count")
    available = d.get("is_available")
    return DeepResult(
        imported=bool(d.get("imported")),
        error=str(error) if error else None,
        is_available=available if isinstance(available, bool) else None,
        device_count=count if isinstance(count, int) else None,
        devices=_strings(d.get("devices")),
        arch_list=_strings(arch) if isinstance(arch, list) else None,
        cudnn_runtime=d.get("cudnn_runtime") if isinstance(d.get("cudnn_runtime"), str) else None,
        loaded_libraries=_strings(d.get("loaded_libraries")),
        op_results=_strings(d.get("op_results")),
        warnings=tuple(dict.fromkeys(_strings(d.get("warnings")) + extra_warnings)),
        timed_out=timed_out,
        duration_s=float(duration_s) if isinstance(duration_s, (int, float)) else None,
    )
