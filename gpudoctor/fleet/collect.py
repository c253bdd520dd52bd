"""`gpudoctor fleet collect --slurm`: one `gpudoctor check --json` per node,
through the scheduler the site already runs (srun), never a home-made runner.

    srun --ntasks-per-node=1 --label --kill-on-bad-exit=0 [SRUN-ARGS…] \\
         PYTHON -m gpudoctor fleet node --timeout S -- [CHECK-ARGS…]

--label prefixes each line with its task number, so the collector reads every
node's lines from one stream, with no shared filesystem needed. Each node
first prints its name (SLURMD_NODENAME), then its envelope; DIR/<node>.json is
written as soon as the envelope arrives. A node that started and never sent
its envelope is written as a timeout; a task srun reports as failed, under
the node name srun gives ("srun: error: n2: task 1: Exited with exit code 2"),
as failed. DIR/_collect.json records the srun command and how it ended.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor.fleet.node import END_PREFIX, PART_PREFIX, START_PREFIX, envelope, now
from gpudoctor.fleet.proc import run_streaming

_LABELLED = re.compile(r"^\s*(\d+): ?(.*)$")
_SRUN_TASK_ERROR = re.compile(r"srun: error: ([\w.\-]+): tasks? ([\d,\-]+): (.+)")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$")
MAX_LINE_CHARS = 40 * 1024 * 1024  # an envelope; anything longer is not one of ours


@dataclass
class Collection:
    """The srun output stream being read: each task's node name and envelope pieces, written
    as DIR/<node>.json when whole, and the lines that were none of ours."""

    out: Path
    nodes: dict[str, str] = field(default_factory=dict)  # node -> envelope status
    task_node: dict[int, str] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    parts: dict[int, list[str]] = field(default_factory=dict)
    sizes: dict[int, int] = field(default_factory=dict)
    stray: list[str] = field(default_factory=list)  # unlabelled or unparsable lines (first few)

    def on_line(self, line: str) -> None:
        m = _LABELLED.match(line[:MAX_LINE_CHARS])
        if not m:
            self._stray(line)
            return
        task, text = int(m.group(1)), m.group(2)
        try:
            if text.startswith(START_PREFIX):
                name = json.loads(text[len(START_PREFIX):]).get("node")
                if isinstance(name, str) and _SAFE_NAME.match(name):
                    self.task_node[task] = name
                return
            if text.startswith(PART_PREFIX):
                piece = text[len(PART_PREFIX):]
                self.sizes[task] = self.sizes.get(task, 0) + len(piece)
                if self.sizes[task] <= MAX_LINE_CHARS:
                    self.parts.setdefault(task, []).append(piece)
                return
            if text.startswith(END_PREFIX):
                want = json.loads(text[len(END_PREFIX):]).get("chars")
                whole = "".join(self.parts.pop(task, []))
                if len(whole) != want:
                    self._stray(f"{task}: envelope of {len(whole)} characters, expected {want}")
                    return
                env = json.loads(whole)
                name = self.task_node.get(task) or env.get("node")
                if isinstance(env, dict) and isinstance(name, str) and _SAFE_NAME.match(name):
                    env["node"] = name
                    self.write(name, env)
                    self.done.add(task)
                return
        except ValueError:
            pass
        self._stray(line)

    def _stray(self, line: str) -> None:
        if len(self.stray) < 20:
            self.stray.append(line[:300])

    def write(self, node: str, env: dict) -> None:
        path = self.out / f"{node}.json"
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(env, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        self.nodes[node] = env.get("status", "ok")


def srun_argv(srun_args: Sequence[str], check_args: Sequence[str], node_timeout: float,
              node_command: Sequence[str] | None = None) -> list[str]:
    command = list(node_command) if node_command else [sys.executable, "-m", "gpudoctor"]
    return ["srun", "--ntasks-per-node=1", "--label", "--kill-on-bad-exit=0", *srun_args,
            *command, "fleet", "node", "--timeout", f"{node_timeout:g}", "--", *check_args]


def collect_slurm(out: Path, srun_args: Sequence[str], check_args: Sequence[str] = (),
                  node_timeout: float = 120.0, srun_timeout: float | None = None,
                  node_command: Sequence[str] | None = None, srun: str = "srun") -> dict:
    """Run the check on every node srun gives; returns the _collect.json summary."""
    out.mkdir(parents=True, exist_ok=True)
    argv = srun_argv(srun_args, check_args, node_timeout, node_command)
    argv[0] = srun
    coll = Collection(out)
    started = now()
    # srun may wait for an allocation first; the margin covers that and the step start-up.
    deadline = srun_timeout if srun_timeout is not None else node_timeout + 120.0
    done = run_streaming(argv, deadline, coll.on_line)
    for task, node in coll.task_node.items():  # started, never reported: hung past the deadline
        if task not in coll.done:
            why = ("srun was stopped at the collector's deadline" if done.timed_out
                   else "its task ended without one")
            coll.write(node, envelope(node, "timeout" if done.timed_out else "failed", None,
                                      f"started but sent no report: {why}", None))
    for m in _SRUN_TASK_ERROR.finditer(done.stderr):
        node, reason = m.group(1), m.group(3).strip()
        if _SAFE_NAME.match(node) and node not in coll.nodes:
            coll.write(node, envelope(node, "failed", None, f"srun: {reason}; {_last_error(done.stderr, node)}", None))
    summary = {
        "schema_version": 1, "kind": "gpudoctor-fleet-collect", "engine": "slurm", "argv": argv,
        "started": started, "finished": now(), "returncode": done.returncode, "timed_out": done.timed_out,
        "error": done.error, "seconds": round(done.seconds, 3), "nodes": dict(sorted(coll.nodes.items())),
        "stderr_tail": done.stderr.strip().splitlines()[-20:], "stray_lines": coll.stray,
    }
    (out / "_collect.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _last_error(stderr: str, node: str) -> str:
    lines = [x for x in stderr.splitlines() if f"-{node}:" in x or f" {node}:" in x]
    lines = [x for x in lines if "srun: error:" not in x]
    return (lines[-1].strip() if lines else "no other message")[:300]
