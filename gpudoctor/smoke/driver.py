"""Run the driver-level check (runner/gdsmoke_driver.py) through the Host.

It needs no framework, so gpudoctor's own interpreter runs it. The result is
the script's JSON document plus an "outcome" key: ok | timeout | crashed |
unreadable, so the judge sees a hung cuInit or a segfaulting libcuda as data.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.host import Host
from gpudoctor.snapshot import Snapshot

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
DRIVER_SCRIPT = RUNNER_DIR / "gdsmoke_driver.py"
MAIN_SCRIPT = RUNNER_DIR / "gdsmoke_main.py"
DRIVER_FORMAT = "gpudoctor-smoke-driver"
PROGRESS_PREFIX = "@@gddriver "
# The limit is a base plus a share per GPU unless every GPU is in persistence mode: without
# it the driver initialises each GPU when cuInit runs (Azure/aks-gpu#105: nvidia-smi takes up
# to 30 s on multi-GPU VMs without persistenced; NVIDIA/nvtrust#113: cuInit took 6.5 s on one
# confidential-computing GPU). 30 s + 10 s per GPU leaves an 8-GPU node 110 s.
DRIVER_BASE_S = 30.0
DRIVER_PER_GPU_S = 10.0
DEFAULT_DRIVER_TIMEOUT_S = DRIVER_BASE_S


def last_json_object(text: str, fmt: str) -> dict | None:
    """The last stdout line that is a JSON object of the given format."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("format") == fmt:
            return doc
    return None


def driver_limit(host: Host, snapshot: Snapshot | None) -> tuple[float, str]:
    """(seconds, why) for the driver check: scaled with the GPU count unless every GPU is known
    to be in persistence mode. The count comes from the snapshot, else /proc/driver/nvidia/gpus."""
    gpus = snapshot.gpus if snapshot is not None and snapshot.gpus else None
    count = len(gpus) if gpus else len(host.listdir("/proc/driver/nvidia/gpus"))
    persistent = bool(gpus) and all(g.persistence_mode is True for g in gpus)
    if persistent or count == 0:
        why = f"{count} GPU(s) in persistence mode" if persistent else "GPU count unknown"
        return DRIVER_BASE_S, f"{DRIVER_BASE_S:.0f} s ({why})"
    off = bool(gpus) and any(g.persistence_mode is False for g in gpus)
    mode = "persistence mode off" if off else "persistence mode unknown"
    seconds = DRIVER_BASE_S + DRIVER_PER_GPU_S * count
    return seconds, f"{DRIVER_BASE_S:.0f} s + {DRIVER_PER_GPU_S:.0f} s x {count} GPU(s), {mode}"


def progress_steps(stderr: str) -> tuple[list[dict], dict | None]:
    """(finished steps, the step still running) from the check's progress lines."""
    done: list[dict] = []
    running: dict | None = None
    for line in (stderr or "").splitlines()[-2000:]:
        if not line.startswith(PROGRESS_PREFIX):
            continue
        try:
            ev = json.loads(line[len(PROGRESS_PREFIX):])
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        if ev.get("state") == "start":
            running = ev
        elif ev.get("state") == "done":
            done.append(ev)
            running = None
    return done, running


def driver_argv(host: Host) -> list[str]:
    return [host.python, str(DRIVER_SCRIPT)]


def run_driver_check(host: Host, timeout: float = DEFAULT_DRIVER_TIMEOUT_S, limit_why: str = "") -> dict:
    res = host.run(driver_argv(host), timeout=timeout, env=dict(host.env()))
    tail = [ln for ln in (res.stderr or "").strip().splitlines()
            if ln.strip() and not ln.startswith(PROGRESS_PREFIX)][-10:]
    if res.timed_out:
        done, running = progress_steps(res.stderr)
        return {"format": DRIVER_FORMAT, "outcome": "timeout", "seconds": res.duration_s, "stderr_tail": tail,
                "limit_s": timeout, "limit_why": limit_why or f"{timeout:.0f} s", "steps_done": done,
                "running": running}
    if res.error:
        return {"format": DRIVER_FORMAT, "outcome": "crashed", "error": res.error, "stderr_tail": tail}
    doc = last_json_object(res.stdout, DRIVER_FORMAT)
    if res.returncode != 0:
        return {"format": DRIVER_FORMAT, "outcome": "crashed", "returncode": res.returncode,
                "stderr_tail": tail, **({"partial": doc} if doc else {})}
    if doc is None:
        return {"format": DRIVER_FORMAT, "outcome": "unreadable", "stdout_head": res.stdout[:500],
                "stderr_tail": tail}
    return {**doc, "outcome": "ok"}
