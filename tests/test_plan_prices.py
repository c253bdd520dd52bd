"""The price table: shipped rows, user overrides, GPU name matching, costs and break-even."""

from __future__ import annotations

import re

import pytest

from gpudoctor.plan import prices
from plan_helpers import A10, A100_80, H100, RTX4090, T4


def test_shipped_table_is_dated_and_sourced():
    table = prices.load_prices(use_user_file=False)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table.as_of)
    assert table.rent and table.buy
    for row in table.rent + table.buy:
        assert row.source.strip() and prices.parse_date(row.date) is not None
        assert re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", row.date)
    for row in table.rent:
        assert row.tier in prices.TIERS and 0 < row.usd_per_hour < 50


@pytest.mark.parametrize("label, gpu, expected", [
    ("RTX 4090", RTX4090, True),
    ("A100 80GB SXM", A100_80, True),  # "SXM" is a prefix of "SXM4"
    ("A10", A100_80, False),  # model numbers must match exactly
    ("A10", A10, True),
    ("H100 SXM", H100, True),
    ("H200", H100, False),
    ("T4", T4, True),
    ("L4", T4, False),
    ("A100 40GB", A100_80, False),
])
def test_price_labels_name_gpus_exactly(label, gpu, expected):
    assert prices.names_gpu(label, gpu) is expected


def test_cost_ranges_and_job_cost(tmp_path):
    table = prices.load_prices(use_user_file=False)
    cost = prices.cost_for(RTX4090, table, hours=10, gpus=2)
    lo, hi = cost.per_hour["community"]
    assert lo <= hi
    assert cost.job["community"] == pytest.approx((lo * 20, hi * 20))
    # buy-vs-rent uses the street price (dated, sourced) over the launch MSRP
    assert cost.buy_usd == 1300 and cost.buy_kind == "street" and cost.buy_date == "2026-04"


def test_break_even_accounts_for_electricity():
    table = prices.PriceTable(as_of="2026-01-01", electricity_usd_per_kwh=0.20,
                              rent=(prices.Rent("RTX 4090", "community", "x", 0.50, "2026-01-01", "test"),),
                              buy=(prices.Buy("RTX 4090", 1600, "2026-01-01", "test"),))
    cost = prices.cost_for(RTX4090, table, hours=None, gpus=1)
    # 0.45 kW x $0.20 = $0.09/h of power; 1600 / (0.50 - 0.09)
    assert cost.break_even_hours == pytest.approx(1600 / 0.41)
    assert cost.job == {}


def test_no_rows_no_cost():
    table = prices.PriceTable(as_of="x", rent=(), buy=())
    assert prices.cost_for(T4, table, hours=1, gpus=1) is None


def test_user_file_overrides_rows(tmp_path):
    user = tmp_path / "prices.toml"
    user.write_text('as_of = "2030-01-01"\n[[rent]]\ngpu = "RTX 4090"\ntier = "community"\n'
                    'provider = "RunPod Community Cloud"\nusd_per_hour = 9.99\ndate = "2030-01-01"\nsource = "mine"\n')
    table = prices.load_prices(str(user))
    assert table.as_of == "2030-01-01" and table.origin == str(user)
    runpod = [r for r in table.rent if r.gpu == "RTX 4090" and r.provider == "RunPod Community Cloud"]
    assert [r.usd_per_hour for r in runpod] == [9.99]
    assert any(r.provider.startswith("Vast") for r in table.rent if r.gpu == "RTX 4090")  # others kept


def test_user_file_in_config_dir_is_picked_up(tmp_path, monkeypatch):
    (tmp_path / "gpudoctor").mkdir()
    (tmp_path / "gpudoctor" / "prices.toml").write_text('as_of = "2031-02-03"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert prices.load_prices().as_of == "2031-02-03"
    assert prices.load_prices(use_user_file=False).as_of != "2031-02-03"


@pytest.mark.parametrize("content, message", [
    ("[[rent]]\ngpu = 1\n", "rent\\[0\\]"),
    ('[[rent]]\ngpu = "x"\ntier = "cheap"\nprovider = "p"\nusd_per_hour = 1.0\ndate = "d"\nsource = "s"\n', "tier"),
    ('[[buy]]\ngpu = "x"\nusd = 1\ndate = "d"\nsource = " "\n', "source"),
    ("colour = 'blue'\n", "unknown key"),
    ("not toml [", "not valid TOML"),
])
def test_bad_price_files(tmp_path, content, message):
    p = tmp_path / "p.toml"
    p.write_text(content)
    with pytest.raises(prices.PriceError, match=message):
        prices.load_prices(str(p))


def test_missing_price_file(tmp_path):
    with pytest.raises(prices.PriceError, match="cannot read"):
        prices.load_prices(str(tmp_path / "none.toml"))


def test_buy_prefers_street_then_used_then_launch():
    rent = (prices.Rent("RTX 4090", "community", "x", 0.50, "2026-01-01", "test"),)
    launch = prices.Buy("RTX 4090", 1599, "2022-09-20", "msrp")
    used = prices.Buy("RTX 4090", 1000, "2026-03", "market", kind="used")
    street = prices.Buy("RTX 4090", 1300, "2026-04", "retail", kind="street")
    for buys, want in (((launch,), 1599), ((launch, used), 1000), ((used, street, launch), 1300)):
        table = prices.PriceTable(as_of="2026-04-01", rent=rent, buy=buys)
        assert prices.cost_for(RTX4090, table, hours=None, gpus=1).buy_usd == want


def test_prices_older_than_90_days_warn():
    from datetime import date

    table = prices.PriceTable(as_of="2026-09-09", rent=(), buy=())
    assert table.age_days(date(2026, 12, 1)) == 83
    assert table.stale_warning(date(2026, 12, 1)) is None
    warning = table.stale_warning(date(2026, 12, 9))
    assert warning and "91 days old" in warning and "--prices" in warning
    assert prices.PriceTable(as_of="someday", rent=(), buy=()).stale_warning(date(2026, 12, 9)) is None


@pytest.mark.parametrize("text, expected", [
    ("2026-09-09", (2026, 9, 9)), ("2026-04", (2026, 4, 1)), ("2026", (2026, 1, 1)),
    ("2026-13-01", None), ("yesterday", None), ("", None),
])
def test_price_dates_parse(text, expected):
    from datetime import date

    assert prices.parse_date(text) == (date(*expected) if expected else None)
