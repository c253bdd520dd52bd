"""Merge per-node reports into one fleet view: every node with its verdict,
groups of identical nodes, drift (facts that differ between nodes) and
findings by code across nodes.

Drift is computed from each report's snapshot facts (driver, CUDA, cuDNN,
NCCL, frameworks, GPUs, Python, OS), read back through Snapshot.from_dict,
never from rendered text. The JSON form is gpudoctor/schema/fleet.v1.json.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gpudoctor.fleet.node import ENVELOPE_KIND
from gpudoctor.serde import DataError
from gpudoctor.snapshot import Snapshot

FLEET_SCHEMA_VERSION = 1
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_FILES = 20000
# Verdicts: pass / fail from the check's exit code; error when no report came back
# (the node failed, timed out or was unreadable) or the check exited 2 or 3.
VERDICTS = ("pass", "fail", "error")


class FleetInputError(Exception):
    pass


@dataclass(frozen=True)
class Node:
    """One node's report as the fleet view reads it, or why there is none."""

    name: str
    verdict: str
    status: str  # the envelope's: ok | failed | timeout | missing | unreadable
    exit_code: int | None
    detail: str
    source: str  # the file it was read from
    facts: tuple[tuple[str, str], ...] = ()
    findings: tuple[dict, ...] = ()  # the report's findings, as JSON data

    @property
    def fact_map(self) -> dict[str, str]:
        return dict(self.facts)


def node_facts(s: Snapshot) -> dict[str, str]:
    """The facts that make two nodes the same or not, as strings."""
    d = s.driver
    facts = {"driver.version": d.version.value or "none", "driver.cuda_api": d.cuda_api.value or "none"}
    gpus = s.visible_gpus()
    if gpus is not None:
        facts["gpus.count"] = str(len(gpus))
        models = Counter(g.name for g in gpus)
        facts["gpus.models"] = ", ".join(f"{n}× {m}" for m, n in sorted(models.items())) or "none"
    for key, rows in (("cuda.runtimes", s.cuda_runtimes), ("cudnn", s.cudnn), ("nccl", s.nccl)):
        if rows is not None:
            facts[key] = ", ".join(sorted({r.version or "?" for r in rows})) or "none"
    for fw in s.frameworks or ():
        facts[f"framework.{fw.name}"] = fw.version.value or "?"
        if fw.cuda.known:
            facts[f"framework.{fw.name}.cuda"] = fw.cuda.value
    if s.system.python.known:
        facts["python"] = s.system.python.value
    if s.system.os_release.known:
        facts["os"] = s.system.os_release.value
    return facts


def read_node(path: Path) -> Node:
    stem = path.stem
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return _unreadable(stem, path, f"larger than {MAX_FILE_BYTES >> 20} MiB")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return _unreadable(stem, path, f"not a readable JSON file: {exc}")
    if not isinstance(data, dict):
        return _unreadable(stem, path, "not a gpudoctor report")
    if data.get("kind") == ENVELOPE_KIND:
        name, status, report = str(data.get("node") or stem), str(data.get("status", "ok")), data.get("report")
        exit_code, detail = data.get("exit_code"), str(data.get("detail") or "")
    elif "findings" in data and "snapshot" in data:  # a bare `check --json` report (a DaemonSet's)
        name, status, report, detail = stem, "ok", data, ""
        exit_code = (data.get("summary") or {}).get("exit_code")
    else:
        return _unreadable(stem, path, "neither a fleet envelope nor a `check --json` report")
    if not isinstance(report, dict):
        return Node(name, "error", status, exit_code, detail or "no report", str(path))
    try:
        snap = Snapshot.from_dict(report.get("snapshot"))
    except DataError as exc:
        return _unreadable(name, path, f"its snapshot does not read back: {exc}")
    findings = tuple(f for f in report.get("findings") or () if isinstance(f, dict))
    verdict = {0: "pass", 1: "fail"}.get(exit_code, "error") if isinstance(exit_code, int) else "error"
    return Node(name, verdict, status, exit_code, detail, str(path), tuple(sorted(node_facts(snap).items())),
                findings)


def _unreadable(name: str, path: Path, why: str) -> Node:
    return Node(name, "error", "unreadable", None, why, str(path))


def report_files(inputs: Iterable[str]) -> list[Path]:
    """Files named, and the *.json of directories named (not _collect.json or dotfiles)."""
    out: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            out += sorted(x for x in p.glob("*.json") if not x.name.startswith(("_", ".")))
        elif p.is_file():
            out.append(p)
        else:
            raise FleetInputError(f"{item}: no such file or directory")
        if len(out) > MAX_FILES:
            raise FleetInputError(f"more than {MAX_FILES} report files")
    if not out:
        raise FleetInputError("no report files (*.json) found")
    return out


@dataclass(frozen=True)
class Fleet:
    """Every node's report together: groups of identical nodes, drift and findings by code."""

    nodes: tuple[Node, ...]

    def groups(self) -> list[dict]:
        """Nodes with identical facts and verdict, largest group first."""
        by: dict[tuple, list[str]] = {}
        for n in self.nodes:
            if n.facts:
                by.setdefault((n.facts, n.verdict), []).append(n.name)
        rows = [{"nodes": sorted(names), "verdict": verdict, "facts": dict(facts)}
                for (facts, verdict), names in by.items()]
        return sorted(rows, key=lambda g: (-len(g["nodes"]), g["nodes"]))

    def drift(self) -> list[dict]:
        """Each fact whose value differs between the nodes that have a report."""
        judged = [n for n in self.nodes if n.facts]
        keys = sorted({k for n in judged for k, _ in n.facts})
        out = []
        for key in keys:
            values: dict[str, list[str]] = {}
            for n in judged:
                values.setdefault(n.fact_map.get(key, "absent"), []).append(n.name)
            if len(values) > 1:
                out.append({"fact": key, "values": [{"value": v, "nodes": sorted(ns)}
                                                    for v, ns in sorted(values.items(), key=lambda kv: -len(kv[1]))]})
        return out

    def findings_by_code(self) -> list[dict]:
        by: dict[str, dict] = {}
        for n in self.nodes:
            for f in n.findings:
                code = str(f.get("code"))
                row = by.setdefault(code, {"code": code, "severity": f.get("severity"), "title": f.get("title"),
                                           "nodes": []})
                if n.name not in row["nodes"]:
                    row["nodes"].append(n.name)
        rank = {"error": 0, "warning": 1, "info": 2}
        return sorted(by.values(), key=lambda r: (rank.get(r["severity"], 3), -len(r["nodes"]), r["code"]))

    def counts(self) -> dict[str, int]:
        c = Counter(n.verdict for n in self.nodes)
        return {"nodes": len(self.nodes), **{v: c.get(v, 0) for v in VERDICTS}}

    @property
    def exit_code(self) -> int:
        """0 every node passed, 1 any node failed or gave no report."""
        return 0 if all(n.verdict == "pass" for n in self.nodes) else 1


def load_fleet(inputs: Iterable[str]) -> Fleet:
    nodes = [read_node(p) for p in report_files(inputs)]
    seen: Counter[str] = Counter()
    unique = []
    for n in nodes:  # two files for one node (a rerun, a copy): keep both, tell them apart
        seen[n.name] += 1
        unique.append(n if seen[n.name] == 1 else _renamed(n, f"{n.name}#{seen[n.name]}"))
    return Fleet(tuple(sorted(unique, key=lambda n: n.name)))


def _renamed(n: Node, name: str) -> Node:
    from dataclasses import replace

    return replace(n, name=name)


def fleet_data(fleet: Fleet) -> dict:
    from gpudoctor import __version__

    return {
        "schema_version": FLEET_SCHEMA_VERSION, "gpudoctor_version": __version__, "summary": fleet.counts(),
        "nodes": [{"name": n.name, "verdict": n.verdict, "status": n.status, "exit_code": n.exit_code,
                   "detail": n.detail, "source": n.source, "facts": n.fact_map,
                   "findings": [{"code": f.get("code"), "severity": f.get("severity"), "subject": f.get("subject"),
                                 "title": f.get("title")} for f in n.findings]} for n in fleet.nodes],
        "groups": fleet.groups(), "drift": fleet.drift(), "findings_by_code": fleet.findings_by_code(),
    }
