"""Fuzz gpudoctor's inputs in process and print what broke.

Kinds of input (shares in brackets):
  snapshot  mutated snapshots (value swaps, type changes, dropped and unknown keys,
            x300 lists, big numbers, deep nesting, raw byte edits) through
            snapshot_from_json -> judge(debug) -> text/markdown/JSON/issue report
            -> redaction -> install planning                                   [40%]
  paste     random bytes, byte and line mutations of the diagnose corpus, other
            encodings, very long lines, through read_paste -> diagnose_report
            -> renderers -> redaction                                          [35%]
  plan      random option values through the `plan` command (in process)       [10%]
  file      random bytes written to a file, read back through the bounded
            reader and the JSON parser                                         [10%]
  smi       nvidia-smi answers (garbage, floods, odd values) through the parser
            and the GPU fact builder                                           [ 5%]

Expected refusals (InputError: one line, exit 2) are not failures. Every other
exception is counted as uncaught, and each input runs under a 20 s alarm: one
that passes it is a hang. Max memory is the process's peak RSS.

    python bench/fuzz.py [N] [SEED]        # default: 10000 inputs, seed 1
"""

from __future__ import annotations

import argparse
import collections
import copy
import io
import json
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from click.testing import CliRunner
from rich.console import Console

from gpudoctor.cli import InputError, cli
from gpudoctor.commands.check import snapshot_from_json
from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.doctor import judge
from gpudoctor.inputs import parse_json, read_text
from gpudoctor.install import (
    TargetError,
    parse_request,
    plan_install,
    target_from_snapshot,
)
from gpudoctor.matrices import load_matrices
from gpudoctor.probes import smi
from gpudoctor.probes.gpus import _from_smi
from gpudoctor.redact import Redactor
from gpudoctor.render.json import dumps, report_data
from gpudoctor.render.markdown import issue_report
from gpudoctor.render.markdown import render as render_markdown
from gpudoctor.render.text import render as render_text

HANG_S = 20
TESTS = ROOT / "tests"
MATRICES = load_matrices()
TORCH = parse_request("torch", ("torchvision",), None)
WEIRD = [None, True, False, 0, -1, 1.5, 10**30, -(10**30), 2**63, "", " ", "abc", "linux", "1.2.3.4.5.6.7.8",
         "9999.99", "-1", "13.0+cu130", "nan", "sm_", "GPU-", "\x00", "\u202e", "A" * 100_000, [], {}, [None],
         {"value": None}, {"value": "x", "source": 1}, "[bold]x[/]", "0" * 4000, "12.8", "580.65.06", "sm_90a",
         "compute_120", "8.9", "10.0", "99.9", "../../../etc/passwd"]


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang


def _where(exc: BaseException) -> str:
    """The innermost gpudoctor frame of a traceback: where it broke or hung."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/gpudoctor/" in f.filename]
    return f"{frames[-1].filename.split('/gpudoctor/')[-1]}:{frames[-1].lineno}" if frames else "?"


def _seeds() -> list[dict]:
    out = []
    for path in sorted((TESTS / "rules").glob("GD*/*.json")):
        data = json.loads(path.read_text())
        data.pop("_note", None)
        try:
            snapshot_from_json(json.dumps(data), "seed")
        except InputError:
            continue
        out.append(data)
    return out


def _paths(data, prefix=()):
    stack = [(prefix, data)]
    while stack:
        pre, item = stack.pop()
        yield pre
        if isinstance(item, dict):
            stack.extend(((*pre, k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend(((*pre, i), v) for i, v in enumerate(item))


def mutate_snapshot(rnd: random.Random, seeds: list[dict]) -> str:
    data = copy.deepcopy(rnd.choice(seeds))
    for _ in range(rnd.randint(1, 6)):
        paths = [p for p in _paths(data) if p]
        path = rnd.choice(paths)
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        key, op, cur = path[-1], rnd.randrange(20), parent[path[-1]]
        if op < 9:  # a value of the same type: the schema accepts it, the rules must cope
            same = [w for w in WEIRD if type(w) is type(cur) and not isinstance(w, (list, dict))]
            parent[key] = copy.deepcopy(rnd.choice(same)) if same else cur
        elif op < 11 and isinstance(parent, dict):
            del parent[key]
        elif op == 11 and isinstance(parent, dict):
            parent[f"unknown_{rnd.randrange(100)}"] = rnd.choice(WEIRD)
        elif op < 15 and isinstance(cur, list) and cur:
            parent[key] = cur * 300
        elif op == 15:
            parent[key] = "[" * rnd.choice((10, 100, 5000)) + "]" * 10
        else:
            parent[key] = copy.deepcopy(rnd.choice(WEIRD))
    text = json.dumps(data)
    if rnd.random() < 0.05:  # raw byte edits: a truncated or corrupted file
        b = bytearray(text.encode())
        for _ in range(rnd.randint(1, 5)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        text = b.decode("utf-8", "replace")[: rnd.randint(1, len(b))]
    if rnd.random() < 0.05:
        text = text.replace("1", "1" * rnd.choice((50, 5000)), 1)
    return text


def _render(report) -> None:
    console = Console(file=io.StringIO(), width=100, highlight=False)  # as stdout_console() makes it
    render_text(report, console, verbose=True)
    render_markdown(report)
    dumps(report_data(report, "check", False))
    Redactor.for_snapshot(report.snapshot, ["box-1"]).text(issue_report(report, dumps(report.snapshot.to_dict())))


def run_snapshot(rnd, seeds) -> None:
    try:
        snap = snapshot_from_json(mutate_snapshot(rnd, seeds), "fuzz.json")
    except InputError:
        return "refused"
    _render(judge(snap, MATRICES, debug=True))
    try:
        plan_install(TORCH, target_from_snapshot(snap, MATRICES), MATRICES)
    except TargetError:
        pass
    return "accepted"


def make_paste(rnd: random.Random, corpus: list[bytes]) -> bytes:
    kind = rnd.randrange(7)
    if kind == 0:
        return rnd.randbytes(rnd.randint(0, 20_000))
    base = rnd.choice(corpus)
    if kind == 1:
        b = bytearray(base)
        for _ in range(rnd.randint(1, 50)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        return bytes(b)
    lines = base.split(b"\n")
    if kind == 2:
        rnd.shuffle(lines)
        return b"\n".join(lines)
    if kind == 3:
        return b"\n".join(lines[: rnd.randint(0, len(lines))])
    if kind == 4:
        enc = rnd.choice(("utf-16", "utf-32", "cp1252", "shift_jis", "gb18030"))
        return base.decode("utf-8", "replace").encode(enc, "replace")
    if kind == 5:
        line = rnd.choice(lines) or b"GPU 0: "
        return line * rnd.randint(100, 20_000)
    return b"\n".join(rnd.choice(lines) + rnd.choice((b"", b"(" * 500, b" " * 1000, b"0." * 300)) for _ in range(200))


def run_paste(rnd, corpus) -> None:
    data = make_paste(rnd, corpus)
    error = rnd.choice([None, b"RuntimeError: CUDA error: out of memory", rnd.randbytes(200)])
    d = read_paste(data, error, MATRICES, debug=True)
    _render(diagnose_report(d, MATRICES, debug=True))


PLAN_OPTIONS = ["--batch", "--seq", "--layers", "--hidden", "--heads", "--kv-heads", "--lora", "--gpus", "--zero",
                "--context", "--grad-accum", "--top", "--vocab", "--ffn", "--image-size", "--params", "--tokens",
                "--samples", "--epochs", "--cuda-context-gib", "--timeout", "--precision", "--optimizer"]
PLAN_VALUES = ["1e400", "-1e400", "nan", "inf", "-0", "7B", "1.5e9", "0", "", "350k", "12T", "abc", "1" * 5000, "-5",
               "1", "8", "2048", "99999999999999999999", "3", "fp8", "amp-bf16", "adamw", "0.5"]


def run_plan(rnd, runner) -> None:
    args = ["plan", "--json", rnd.choice(["llama3-8b", "gpt2", "bert-base", "vit-b16", "mistral-7b"])]
    if rnd.random() < 0.3:
        args.append("--inference")
    for _ in range(rnd.randint(0, 3)):
        value = rnd.choice(PLAN_VALUES + [str(rnd.randint(-10**6, 10**12))]) if rnd.random() < 0.5 else \
            rnd.choice(["1", "2", "4", "8", "16", "512", "2048"])
        args += [rnd.choice(PLAN_OPTIONS), value]
    res = runner.invoke(cli, args)
    if res.exit_code not in (0, 1, 2) or (res.exit_code == 2 and len(res.stderr.strip().splitlines()) != 1):
        raise AssertionError(f"plan {args}: exit {res.exit_code}: {res.output[-300:]}") from res.exception
    return "refused" if res.exit_code == 2 else "accepted"


def run_file(rnd, tmp: Path) -> None:
    path = tmp / "input.json"
    kind = rnd.randrange(3)
    if kind == 0:
        path.write_bytes(rnd.randbytes(rnd.randint(0, 5000)))
    elif kind == 1:
        path.write_text("[" * rnd.randint(1, 100_000) + "]" * rnd.randint(0, 10))
    else:
        path.write_text(json.dumps({"n": 1}).replace("1", "9" * rnd.choice((rnd.randint(1, 40), rnd.randint(41, 10_000)))))
    try:
        parse_json(read_text(str(path), limit=1 << 20), str(path))
    except InputError:
        return "refused"
    return "accepted"


def run_smi(rnd) -> None:
    rows = []
    for _ in range(rnd.randint(0, 100)):
        cells = [rnd.choice(["0", "1", "NVIDIA GeForce RTX 4090", "[N/A]", "inf", "nan", "-5", "1e9", "9" * 400,
                             "99.99", "550.54.14", "Enabled", "", "\x00", rnd.randbytes(8).decode("latin-1")])
                 for _ in range(len(smi.FIELDS))]
        rows.append(", ".join(cells))
    text = "\n".join(rows) * rnd.choice((1, 1, 1, 50))
    for i, row in enumerate(smi._parse(text, smi.FIELDS)):
        _from_smi(row, i)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="?", type=int, default=10_000, help="how many inputs (default 10000)")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="random seed (default 1)")
    args = ap.parse_args()
    n = args.inputs
    rnd = random.Random(args.seed)
    seeds = _seeds()
    corpus = [p.read_bytes() for d in ("diagnose_corpus", "diagnose_samples")
              for p in sorted((TESTS / d).glob("*.txt"))]
    runner = CliRunner()
    signal.signal(signal.SIGALRM, _alarm)
    counts: collections.Counter[str] = collections.Counter()
    uncaught: collections.Counter[str] = collections.Counter()
    hangs: collections.Counter[str] = collections.Counter()
    first_error: dict[str, str] = {}
    slowest = (0.0, "")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        kinds = [("snapshot", 40, lambda: run_snapshot(rnd, seeds)), ("paste", 35, lambda: run_paste(rnd, corpus)),
                 ("plan", 10, lambda: run_plan(rnd, runner)), ("file", 10, lambda: run_file(rnd, tmp)),
                 ("smi", 5, lambda: run_smi(rnd))]
        for _ in range(n):
            name, _, fn = rnd.choices(kinds, weights=[w for _, w, _ in kinds])[0]
            counts[name] += 1
            start = time.monotonic()
            signal.alarm(HANG_S)
            try:
                outcome = fn()
                if outcome:
                    counts[f"{name} {outcome}"] += 1
            except Hang as exc:
                hangs[f"{name} at {_where(exc)}"] += 1
                first_error.setdefault(f"{name}: hang", "".join(traceback.format_exception(exc))[-2500:])
            except Exception as exc:  # noqa: BLE001 - counting them is the point
                key = f"{name}: {type(exc).__name__} at {_where(exc)}"
                uncaught[key] += 1
                first_error.setdefault(key, "".join(traceback.format_exception(exc))[-1500:])
            finally:
                signal.alarm(0)
            took = time.monotonic() - start
            if took > slowest[0]:
                slowest = (took, name)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = sum(v for k, v in counts.items() if " " not in k)
    print(f"inputs: {total} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    print(f"uncaught exceptions: {sum(uncaught.values())}" + (f" ({dict(uncaught)})" if uncaught else ""))
    print(f"hangs (over {HANG_S} s): {sum(hangs.values())}" + (f" ({dict(hangs)})" if hangs else ""))
    print(f"max time: {slowest[0]:.2f} s ({slowest[1]})")
    print(f"max memory: {peak_mb:.0f} MB peak RSS")
    for key, tb in first_error.items():
        print(f"\n--- first {key} ---\n{tb}")
    sys.exit(1 if uncaught or hangs else 0)


if __name__ == "__main__":
    main()
