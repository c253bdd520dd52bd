"""Property-based fuzzing, bounded for CI (bench/fuzz.py runs the long version).

Properties: a mutated snapshot is either refused with one line (InputError)
or judged by every rule without a crash and rendered in every format; any
paste is diagnosed without a crash; any plan option value gives exit 0, 1 or
2, never an internal error; any bytes given as JSON parse or are refused.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest
from cli_helpers import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from gpudoctor.cli import InputError
from gpudoctor.commands.check import snapshot_from_json
from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.doctor import judge
from gpudoctor.inputs import parse_json
from gpudoctor.matrices import load_matrices
from gpudoctor.redact import Redactor
from gpudoctor.render.json import dumps, report_data
from gpudoctor.render.markdown import issue_report
from gpudoctor.render.markdown import render as render_markdown
from gpudoctor.render.text import render as render_text

HERE = Path(__file__).parent
MATRICES = load_matrices()
FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _seeds() -> list[dict]:
    out = []
    for path in sorted((HERE / "rules").glob("GD[1-6]*/*.json"))[::6]:
        data = json.loads(path.read_text())
        data.pop("_note", None)
        out.append(data)
    return out


SEEDS = _seeds()
WEIRD = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=40),
    st.sampled_from(["linux", "", "-1", "9999.99", "13.0+cu130", "sm_", "GPU-", "8.9", "99.9", "1.2.3.4.5.6",
                     "[bold]x[/]", "0" * 50, "\u202e", "nan", "580.65.06", "compute_120"]),
    st.lists(st.text(max_size=5), max_size=3), st.just({}), st.just({"value": None}),
)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _paths(value, (*prefix, i))


@st.composite
def mutated_snapshots(draw) -> str:
    data = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(WEIRD)
    return json.dumps(data)


def _render_all(report) -> None:
    console = Console(file=io.StringIO(), width=100, highlight=False)  # as stdout_console() makes it
    render_text(report, console, verbose=True)
    render_markdown(report)
    dumps(report_data(report, "check", False))
    Redactor.for_snapshot(report.snapshot, ["box-1"]).text(issue_report(report, dumps(report.snapshot.to_dict())))


@FUZZ
@given(mutated_snapshots())
def test_a_mutated_snapshot_is_refused_or_judged_without_a_crash(text):
    try:
        snapshot = snapshot_from_json(text, "fuzz.json")
    except InputError as exc:
        assert "\n" not in exc.format_message()
        return
    report = judge(snapshot, MATRICES, debug=True)  # debug: a crashing rule raises here
    _render_all(report)
    from gpudoctor.install import (
        TargetError,
        parse_request,
        plan_install,
        target_from_snapshot,
    )

    try:
        target = target_from_snapshot(snapshot, MATRICES)
    except TargetError:
        return
    plan_install(parse_request("torch", ("torchvision",), None), target, MATRICES)


CORPUS_LINES = [line for path in sorted((HERE / "diagnose_samples").glob("*.txt"))
                for line in path.read_text(errors="replace").splitlines()]


@st.composite
def pastes(draw) -> bytes:
    kind = draw(st.sampled_from(["bytes", "text", "lines"]))
    if kind == "bytes":
        return draw(st.binary(max_size=2000))
    if kind == "text":
        return draw(st.text(max_size=2000)).encode("utf-8", "surrogatepass")
    lines = draw(st.lists(st.sampled_from(CORPUS_LINES), min_size=1, max_size=60))
    cut = draw(st.integers(0, 20))
    return "\n".join(line[: len(line) - cut] if cut % 3 else line for line in lines).encode()


@FUZZ
@given(pastes(), st.one_of(st.none(), st.text(max_size=200)))
def test_any_paste_is_diagnosed_without_a_crash(data, error):
    d = read_paste(data, error.encode() if error else None, MATRICES, debug=True)
    report = diagnose_report(d, MATRICES, debug=True)
    _render_all(report)


PLAN_INT_OPTIONS = ["--batch", "--seq", "--layers", "--hidden", "--heads", "--lora", "--gpus", "--zero", "--context",
                    "--grad-accum", "--top", "--vocab"]
PLAN_TEXT_OPTIONS = ["--params", "--tokens", "--samples", "--epochs", "--cuda-context-gib", "--timeout",
                     "--precision", "--optimizer", "--attention"]
OPTION_VALUES = st.one_of(st.integers(-(10**20), 10**20).map(str), st.floats().map(repr),
                          st.sampled_from(["1e400", "-1e400", "nan", "inf", "-0", "7B", "1.5e9", "0", "",
                                           "350k", "12T", "abc", "1" * 5000]))


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(PLAN_INT_OPTIONS + PLAN_TEXT_OPTIONS), OPTION_VALUES), max_size=4),
       st.sampled_from(["llama3-8b", "gpt2", "bert-base", None]), st.booleans())
def test_any_plan_option_value_is_planned_or_refused_with_one_line(options, model, inference):
    args = ["plan", "--json"] + ([model] if model else ["--params", "1B"]) + (["--inference"] if inference else [])
    for option, value in options:
        args += [option, value]
    res = invoke(*args)
    assert res.exit_code in (0, 1, 2), (args, res.output, res.exception)
    if res.exit_code == 2:
        assert len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
    else:
        json.loads(res.stdout)


@FUZZ
@given(st.one_of(st.binary(max_size=500).map(lambda b: b.decode("latin-1")),
                 st.recursive(st.one_of(st.none(), st.integers(), st.text(max_size=5)),
                              lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                          max_size=3)).map(json.dumps),
                 st.integers(1, 200).map(lambda n: "[" * n + "]" * n)))
def test_any_text_given_as_json_parses_or_is_refused(text):
    try:
        parse_json(text, "x.json")
    except InputError as exc:
        assert "\n" not in exc.format_message()


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_every_seed_is_a_valid_snapshot(seed):
    snapshot_from_json(json.dumps(SEEDS[seed]), "seed")  # the fuzz mutates valid inputs
