"""Run the driver-level check (runner/gdsmoke_driver.py) through the Host.

It needs no framework, so gpudoctor's own interpreter runs it. The result is
the script's JSON document plus an "outcome" key: ok | timeout | crashed |
unreadable, so the judge sees a hung cuInit or a segfaulting libcuda as data.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpudoctor.host import Host

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
DRIVER_SCRIPT = RUNNER_DIR / "gdsmoke_driver.py"
MAIN_SCRIPT = RUNNER_DIR / "gdsmoke_main.py"
DRIVER_FORMAT = "gpudoctor-smoke-driver"
DEFAULT_DRIVER_TIMEOUT_S = 30.0  # cuInit on an 8-GPU node without persistence mode takes seconds


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


def driver_argv(host: Host) -> list[str]:
    return [host.python, str(DRIVER_SCRIPT)]


def run_driver_check(host: Host, timeout: float = DEFAULT_DRIVER_TIMEOUT_S) -> dict:
    res = host.run(driver_argv(host), timeout=timeout, env=dict(host.env()))
    tail = [ln for ln in (res.stderr or "").strip().splitlines() if ln.strip()][-10:]
    if res.timed_out:
        return {"format": DRIVER_FORMAT, "outcome": "timeout", "seconds": res.duration_s, "stderr_tail": tail}
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
