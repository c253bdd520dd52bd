"""The dated, editable GPU price table: rent per GPU-hour by tier, purchase prices.

Shipped rows live in gpudoctor/data/prices.toml. A user file (--prices FILE,
or ~/.config/gpudoctor/prices.toml when present) overrides them: its rows
replace shipped rows of the same gpu + tier + provider (rent) or gpu (buy).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from gpudoctor.matrices.records import GpuModel
from gpudoctor.serde import DataError, from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "prices.toml"
TIERS = ("community", "on-demand", "hyperscaler", "spot")


class PriceError(ValueError):
    """A price file does not follow the schema."""


@dataclass(frozen=True)
class Rent:
    """One dated rent price: USD per GPU-hour for a GPU at a provider's tier, with its source."""

    gpu: str
    tier: str
    provider: str
    usd_per_hour: float
    date: str
    source: str
    note: str = ""


BUY_KINDS = ("street", "used", "launch")  # preferred in this order for buy-vs-rent
STALE_DAYS = 90


@dataclass(frozen=True)
class Buy:
    """One dated purchase price of a GPU (launch, street or used), with its source."""

    gpu: str
    usd: float
    date: str
    source: str
    note: str = ""
    kind: str = "launch"  # street (new, at retail), used, launch (MSRP)


@dataclass(frozen=True)
class PriceTable:
    """The dated price table a plan costs each GPU with: shipped rows, and a user file's over them."""

    as_of: str
    rent: tuple[Rent, ...]
    buy: tuple[Buy, ...]
    electricity_usd_per_kwh: float = 0.15
    origin: str = "shipped"

    def for_gpu(self, gpu: GpuModel) -> tuple[list[Rent], Buy | None]:
        """Rows whose `gpu` label names this model."""
        rents = [r for r in self.rent if names_gpu(r.gpu, gpu)]
        buys = sorted((b for b in self.buy if names_gpu(b.gpu, gpu)),
                      key=lambda b: (BUY_KINDS.index(b.kind), b.date), reverse=False)
        buys = [b for b in buys if b.kind == buys[0].kind] if buys else []
        return rents, (max(buys, key=lambda b: b.date) if buys else None)

    def age_days(self, today: date | None = None) -> int | None:
        """Days since the table's as_of date (None when it does not parse)."""
        when = parse_date(self.as_of)
        return None if when is None else ((today or date.today()) - when).days

    def stale_warning(self, today: date | None = None) -> str | None:
        age = self.age_days(today)
        if age is None or age <= STALE_DAYS:
            return None
        return (f"prices are {age} days old (as of {self.as_of}; rent prices move within weeks): check the "
                "providers' pages and pass your own with --prices FILE")


def parse_date(text: str) -> date | None:
    """'2026-09-09', '2026-09' (first of the month) or '2026' (January 1st); None on junk."""
    m = re.fullmatch(r"\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?\s*", text or "")
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def _tokens(name: str) -> list[str]:
    s = re.sub(r"\b(nvidia|geforce|tesla|quadro)\b", " ", name.lower())
    s = re.sub(r"(\d+)\s*gb\b", r"\1gb", s)
    return re.sub(r"[^a-z0-9]+", " ", s).split()


def names_gpu(label: str, gpu: GpuModel) -> bool:
    """Whether a price row's `gpu` label names this model: every word of the label
    appears in the model's name (or an NVML name); words with digits must match
    exactly ("A10" is not "A100"), plain words may be prefixes ("SXM" ~ "SXM4")."""
    want = _tokens(label)
    if not want:
        return False
    for candidate in (gpu.name, *gpu.nvml_names):
        have = _tokens(candidate)
        if all(any(h == w or (w.isalpha() and h.startswith(w)) for h in have) for w in want):
            return True
    return False


def user_file() -> Path | None:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    path = Path(base) / "gpudoctor" / "prices.toml"
    return path if path.is_file() else None


def _parse(text: str, origin: str) -> tuple[dict, list[Rent], list[Buy]]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PriceError(f"{origin}: not valid TOML: {exc}") from None
    if doc.pop("schema_version", 1) != 1:
        raise PriceError(f"{origin}: schema_version must be 1")
    rents, buys = doc.pop("rent", []), doc.pop("buy", [])
    settings = {k: doc.pop(k) for k in ("as_of", "electricity_usd_per_kwh") if k in doc}
    if doc:
        raise PriceError(f"{origin}: unknown key {min(doc)!r} (known: as_of, electricity_usd_per_kwh, "
                         "rent, buy)")
    out_r, out_b = [], []
    for kind, rows, cls, out in (("rent", rents, Rent, out_r), ("buy", buys, Buy, out_b)):
        for i, row in enumerate(rows):
            try:
                item = from_data(cls, row, f"{kind}[{i}]")
            except DataError as exc:
                raise PriceError(f"{origin}: {exc}") from None
            if not item.source.strip():
                raise PriceError(f"{origin}: {kind}[{i}]: source must not be empty")
            if kind == "rent" and item.tier not in TIERS:
                raise PriceError(f"{origin}: rent[{i}]: tier {item.tier!r} is not one of {', '.join(TIERS)}")
            if kind == "buy" and item.kind not in BUY_KINDS:
                raise PriceError(f"{origin}: buy[{i}]: kind {item.kind!r} is not one of {', '.join(BUY_KINDS)}")
            if parse_date(item.date) is None:
                raise PriceError(f"{origin}: {kind}[{i}]: date {item.date!r} is not YYYY-MM-DD (or YYYY-MM)")
            out.append(item)
    return settings, out_r, out_b


def load_prices(path: str | None = None, *, use_user_file: bool = True) -> PriceTable:
    settings, rents, buys = _parse(SHIPPED.read_text(encoding="utf-8"), str(SHIPPED.name))
    override = Path(path) if path else (user_file() if use_user_file else None)
    origin = "shipped"
    if override is not None:
        try:
            text = override.read_text(encoding="utf-8")
        except OSError as exc:
            raise PriceError(f"cannot read {override}: {exc.strerror or exc}") from None
        o_settings, o_rents, o_buys = _parse(text, str(override))
        settings.update(o_settings)
        replaced = {(r.gpu.lower(), r.tier, r.provider.lower()) for r in o_rents}
        rents = [r for r in rents if (r.gpu.lower(), r.tier, r.provider.lower()) not in replaced] + o_rents
        bought = {(b.gpu.lower(), b.kind) for b in o_buys}
        buys = [b for b in buys if (b.gpu.lower(), b.kind) not in bought] + o_buys
        origin = str(override)
    return PriceTable(as_of=str(settings.get("as_of", "")), rent=tuple(rents), buy=tuple(buys),
                      electricity_usd_per_kwh=float(settings.get("electricity_usd_per_kwh", 0.15)), origin=origin)


@dataclass(frozen=True)
class Cost:
    """What renting costs, per tier: (low, high) USD per GPU-hour and for the whole job."""

    per_hour: dict[str, tuple[float, float]]
    job: dict[str, tuple[float, float]]  # empty when the job length is unknown
    buy_usd: float | None = None
    break_even_hours: float | None = None  # hours of use after which buying beats the cheapest rent
    dates: tuple[str, ...] = ()
    buy_kind: str | None = None  # street | used | launch
    buy_date: str | None = None


def cost_for(gpu: GpuModel, table: PriceTable, hours: float | None, gpus: int) -> Cost | None:
    rents, buy = table.for_gpu(gpu)
    if not rents and buy is None:
        return None
    per_hour: dict[str, tuple[float, float]] = {}
    for tier in TIERS:
        values = [r.usd_per_hour for r in rents if r.tier == tier]
        if values:
            per_hour[tier] = (min(values), max(values))
    job = {t: (lo * hours * gpus, hi * hours * gpus) for t, (lo, hi) in per_hour.items()} if hours else {}
    break_even = None
    if buy is not None and rents:
        cheapest = min(r.usd_per_hour for r in rents)
        power = (gpu.tdp_w or 0) / 1000 * table.electricity_usd_per_kwh
        if cheapest > power:
            break_even = buy.usd / (cheapest - power)
    dates = tuple(sorted({r.date for r in rents} | ({buy.date} if buy else set())))
    return Cost(per_hour=per_hour, job=job, buy_usd=buy.usd if buy else None, break_even_hours=break_even,
                dates=dates, buy_kind=buy.kind if buy else None, buy_date=buy.date if buy else None)
