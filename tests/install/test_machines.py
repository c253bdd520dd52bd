"""The machine table (tests/install/machines.py) on the shipped matrices:
every row's expected choice, and the rule uv's --torch-backend=auto applies,
side by side."""

import pytest

from gpudoctor.install import plan_install
from gpudoctor.install.request import parse_request
from gpudoctor.matrices import load_matrices

from machines import OTHERS, PYPI, TORCH, WHL
from uv_auto import judge_uv, uv_auto_backends, uv_auto_choice

M = load_matrices(overlay=None)


def plan_for(row):
    return plan_install(parse_request(row.framework, (), row.request), row.target(), M)


def index_kind(plan):
    url = plan.install.index_url or ""
    return WHL if url.startswith("https://download.pytorch.org/") else PYPI


def test_the_table_is_big_enough():
    assert len(TORCH) >= 40
    assert len({r.id for r in TORCH + OTHERS}) == len(TORCH + OTHERS)


@pytest.mark.parametrize("row", TORCH + OTHERS, ids=lambda r: r.id)
def test_machine(row):
    plan = plan_for(row)
    if row.expect is None:
        assert not plan.ok, f"{row.id}: expected no answer ({row.why}), got {plan.choice.candidate.label}"
        assert plan.needs or plan.alternatives, "a 'no' must say why"
        assert plan.to_dict()["commands"]["pip"] is None
    else:
        assert plan.ok, f"{row.id}: {row.why}; gpudoctor found nothing: {plan.needs}"
        c = plan.choice.candidate
        assert (c.version, c.variant, index_kind(plan)) == row.expect, row.why
        assert c.variant not in row.must_not
        assert plan.install.commands.pip and plan.install.commands.uv
    text = "\n".join(plan.reasons + plan.warnings + plan.needs + tuple(a.reason for a in plan.alternatives))
    for snippet in row.says:
        assert snippet in text, f"{row.id}: expected {snippet!r} in the explanation"


def test_the_commands_name_the_chosen_wheel():
    (row,) = [r for r in TORCH if r.id == "gtx1080ti-575-py311"]
    cm = plan_for(row).install.commands
    assert cm.pip == "python -m pip install torch==2.14.1+cu126 --index-url https://download.pytorch.org/whl/cu126"
    assert cm.uv == "uv pip install torch==2.14.1+cu126 --torch-backend=cu126"
    (row,) = [r for r in TORCH if r.id == "h100-580-py312"]
    cm = plan_for(row).install.commands
    assert cm.pip == "python -m pip install torch==2.15.0" and cm.uv == "uv pip install torch==2.15.0"


# --- uv's rule, as documented -------------------------------------------------------------------------------

def test_uv_backend_order_follows_the_driver_alone():
    assert uv_auto_backends("575.57.08", "linux")[:3] == ["cu129", "cu128", "cu126"]
    assert uv_auto_backends("580.65.06", "linux")[:2] == ["cu132", "cu130"]
    assert uv_auto_backends("470.256.02", "linux")[0] == "cu118"
    assert uv_auto_backends("572.83", "windows")[0] == "cu129"
    assert uv_auto_backends(None, "linux") == ["cpu"]


def _row(rid):
    return next(r for r in TORCH if r.id == rid)


@pytest.mark.parametrize("rid, pick, works", [
    ("gtx1080ti-575-py311", ("2.8.0", "cu129"), False),  # the case: no sm_61 in cu129
    ("gtx1080ti-580-py312", ("2.15.0", "cu132"), False),
    ("v100-575-torch211", ("2.11.0", "cu128"), False),  # 2.11 cu128 dropped Volta
    ("mixed-61-89-580", ("2.15.0", "cu132"), False),
    ("k40-470-py39", ("2.7.1", "cu118"), False),
    ("rtx5090-575-py312", ("2.8.0", "cu129"), True),  # works, but an old torch
    ("t4-470-py311", ("2.7.1", "cu118"), True),
    ("h100-580-py312", ("2.15.0", "cu132"), True),
])
def test_uv_rule_on_table_rows(rid, pick, works):
    row = _row(rid)
    req = parse_request("torch", (), row.request)
    assert uv_auto_choice(row.target(), req, M) == pick
    assert judge_uv(row.target(), req, M)[1] is works


def test_gpudoctor_never_misses_a_machine_uv_gets_right():
    for row in TORCH:
        if row.driver is None and not row.cpu:
            continue  # uv detects the driver on a real machine; a described one without it is not comparable
        req = parse_request("torch", (), row.request)
        if judge_uv(row.target(), req, M)[1]:
            assert plan_for(row).ok, row.id
