"""One node's part of a fleet: run `gpudoctor check --json` on this node and
wrap the result in an envelope that says which node it was and how it ended.

`fleet collect --slurm` starts this once per node through srun. It prints a start
line (so the collector knows the node even if the check then hangs past its
deadline), then the envelope as JSON in pieces that srun does not split, then
an end line with its length.
The same envelope is what `fleet collect` writes as DIR/<node>.json, and what
`fleet report` reads (a bare `check --json` report is read too).
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import sys
from collections.abc import Sequence

from gpudoctor.fleet.proc import run_streaming

ENVELOPE_KIND = "gpudoctor-fleet-node"
START_PREFIX = "@@gpudoctor-node "
PART_PREFIX = "@@gpudoctor-part "
END_PREFIX = "@@gpudoctor-end "
# srun splits an output line at 1024 bytes (and --label prefixes each piece), so the
# envelope travels as ASCII pieces well below that, then a line with its length.
PART_CHARS = 900
MAX_REPORT_CHARS = 32 * 1024 * 1024
# Envelope status: the check ran (its exit code says pass/fail), or it did not give a report.
STATUSES = ("ok", "failed", "timeout", "missing")


def node_name(env: dict[str, str] | None = None) -> str:
    env = dict(os.environ) if env is None else env
    return env.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0] or "unknown"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def envelope(node: str, status: str, exit_code: int | None, detail: str, report: dict | None) -> dict:
    return {"schema_version": 1, "kind": ENVELOPE_KIND, "node": node, "status": status,
            "exit_code": exit_code, "detail": detail, "collected": now(), "report": report}


def run_check(check_args: Sequence[str], timeout: float) -> dict:
    """Run the check in a child (its own process group, a deadline) and wrap it."""
    node = node_name()
    chunks: list[str] = []
    size = [0]

    def keep(line: str) -> None:
        if size[0] < MAX_REPORT_CHARS:
            chunks.append(line)
            size[0] += len(line) + 1

    argv = [sys.executable, "-m", "gpudoctor", "check", "--json", *check_args]
    done = run_streaming(argv, timeout, keep)
    tail = " ".join(done.stderr.strip().splitlines()[-3:])[-500:]
    if done.error:
        return envelope(node, "failed", None, f"could not start the check: {done.error}", None)
    if done.timed_out:
        return envelope(node, "timeout", None, f"the check was killed at its {timeout:.0f} s deadline", None)
    try:
        report = json.loads("\n".join(chunks))
    except ValueError:
        return envelope(node, "failed", done.returncode,
                        f"the check exited with {done.returncode} without a JSON report: {tail}", None)
    if not isinstance(report, dict) or "findings" not in report:
        return envelope(node, "failed", done.returncode, "the check printed JSON that is not a report", None)
    return envelope(node, "ok", done.returncode, tail if done.returncode not in (0, 1) else "", report)


def main(check_args: Sequence[str], timeout: float) -> int:
    """`gpudoctor fleet node`: the start line, then the envelope; exit 0 when the
    envelope was written (the verdict is inside it, so srun's exit code only
    says whether the node could run gpudoctor at all)."""
    out = sys.stdout
    out.write(START_PREFIX + json.dumps({"node": node_name()}) + "\n")
    out.flush()
    text = json.dumps(run_check(check_args, timeout), separators=(",", ":"), ensure_ascii=True)
    for i in range(0, len(text), PART_CHARS):
        out.write(PART_PREFIX + text[i:i + PART_CHARS] + "\n")
    out.write(END_PREFIX + json.dumps({"chars": len(text)}) + "\n")
    out.flush()
    return 0
