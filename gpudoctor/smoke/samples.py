"""NVML samples the runner took while a GEMM ran: a summary, and the cause they show.

The runner reports columns (gdsmoke_nvml.py): time, phase, SM clock, power draw,
temperature and the clocks-event reason bits, plus the clock and power ceilings. Only
the samples of the timed window ("timed") are judged. A reason counts when it is set in
at least ACTIVE_SHARE of them; with no reason and the SM clock near its maximum the
clocks do not explain a slow GEMM, and the judge says so rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from gpudoctor.findings import Evidence

# nvml.h nvmlClocksEventReason* (the older nvmlClocksThrottleReason* have the same values).
REASON_BITS = (
    (0x1, "gpu_idle"), (0x2, "applications_clocks_setting"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
    (0x10, "sync_boost"), (0x20, "sw_thermal_slowdown"), (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"), (0x100, "display_clock_setting"),
)
SOURCE = "NVML during the GEMM (clock, power, temperature, clocks-event reasons)"
ACTIVE_SHARE = 0.3
CLOCK_HELD = 0.9  # an SM clock below this share of its maximum is held down
MAX_SAMPLES = 1000  # input cap: the runner sends at most 120
POWER_LIMIT_LOWERED = 0.95  # enforced limit below this share of the default: set lower by someone
CAPPED_BELOW = 0.85  # power-capped while drawing less than this share of the limit: capped from outside


@dataclass(frozen=True)
class Summary:
    """The NVML samples taken while one GEMM ran, summarised for the throttling verdict."""

    n: int
    sm_clock_mhz: float | None = None  # median
    max_sm_clock_mhz: float | None = None
    power_w: float | None = None  # median
    power_limit_w: float | None = None
    default_power_limit_w: float | None = None
    temperature_c: float | None = None  # maximum
    slowdown_temperature_c: float | None = None
    reasons: tuple[tuple[str, float], ...] = ()  # (reason, share of samples), most frequent first

    def share(self, reason: str) -> float:
        return dict(self.reasons).get(reason, 0.0)

    def active(self, reason: str) -> bool:
        return self.share(reason) >= ACTIVE_SHARE

    @property
    def clock_ratio(self) -> float | None:
        if self.sm_clock_mhz is None or not self.max_sm_clock_mhz:
            return None
        return self.sm_clock_mhz / self.max_sm_clock_mhz

    def describe(self) -> str:
        parts = [f"{self.n} samples"]
        if self.sm_clock_mhz is not None:
            parts.append(f"SM clock {self.sm_clock_mhz:.0f} MHz" + (
                f" of {self.max_sm_clock_mhz:.0f} MHz max" if self.max_sm_clock_mhz else ""))
        if self.power_w is not None:
            parts.append(f"power {self.power_w:.0f} W" + (f" of a {self.power_limit_w:.0f} W limit"
                                                          if self.power_limit_w else ""))
        if self.temperature_c is not None:
            parts.append(f"up to {self.temperature_c:.0f} C" + (
                f" (slowdown at {self.slowdown_temperature_c:.0f} C)" if self.slowdown_temperature_c else ""))
        active = [f"{r} {100 * s:.0f} %" for r, s in self.reasons if r != "gpu_idle"]
        parts.append("reasons: " + (", ".join(active) if active else "none"))
        return "; ".join(parts)

    def evidence(self, test: str) -> Evidence:
        return Evidence(f"{test}.nvml", self.describe(), SOURCE)

    def to_json(self) -> dict:
        return {"n": self.n, "sm_clock_mhz": self.sm_clock_mhz, "max_sm_clock_mhz": self.max_sm_clock_mhz,
                "power_w": self.power_w, "power_limit_w": self.power_limit_w,
                "default_power_limit_w": self.default_power_limit_w, "temperature_c": self.temperature_c,
                "slowdown_temperature_c": self.slowdown_temperature_c, "reasons": dict(self.reasons)}


def _numbers(values: object) -> list[float]:
    if not isinstance(values, list):
        return []
    return [float(v) for v in values[:MAX_SAMPLES] if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def summarise(raw: object, phase: str = "timed") -> Summary | None:
    """The samples of one phase (all of them when the runner labelled none); None without samples."""
    if not isinstance(raw, dict):
        return None
    phases = raw.get("phase") if isinstance(raw.get("phase"), list) else []
    keep = [i for i, p in enumerate(phases[:MAX_SAMPLES]) if p == phase] if phases else None

    def column(key: str) -> list[float]:
        values = raw.get(key) if isinstance(raw.get(key), list) else []
        picked = [values[i] for i in keep if i < len(values)] if keep is not None else values
        return _numbers(picked)

    clocks, power, temps = column("sm_clock_mhz"), column("power_w"), column("temperature_c")
    bits = [int(b) for b in column("reasons")]
    n = max(len(clocks), len(power), len(temps), len(bits))
    if n == 0:
        return None
    reasons = sorted(((name, sum(1 for b in bits if b & bit) / len(bits)) for bit, name in REASON_BITS
                      if bits and any(b & bit for b in bits)), key=lambda x: -x[1])
    return Summary(n, median(clocks) if clocks else None, _number(raw.get("max_sm_clock_mhz")),
                   median(power) if power else None, _number(raw.get("power_limit_w")),
                   _number(raw.get("default_power_limit_w")), max(temps) if temps else None,
                   _number(raw.get("slowdown_temperature_c")), tuple(reasons))


def clock_cause(s: Summary) -> tuple[str, str] | None:
    """(cause key, explanation) that the samples show, or None when the clocks were not held."""
    if s.active("hw_power_brake_slowdown"):
        return "power-brake", "an external power-brake signal (chassis or power supply) cut the clocks"
    if s.active("hw_slowdown"):
        return "hw-slowdown", "hardware slowdown: the GPU protected itself (temperature or power delivery)"
    if s.active("sw_thermal_slowdown") or s.active("hw_thermal_slowdown"):
        temp = f" at {s.temperature_c:.0f} C" if s.temperature_c is not None else ""
        return "thermal", f"thermal throttling{temp}: the clocks were cut to cool the GPU"
    if s.active("sw_power_cap"):
        if s.power_limit_w and s.default_power_limit_w and \
                s.power_limit_w < POWER_LIMIT_LOWERED * s.default_power_limit_w:
            return ("power-limit-lowered", f"held at a {s.power_limit_w:.0f} W power limit, lowered from the "
                    f"default {s.default_power_limit_w:.0f} W")
        if s.power_w is not None and s.power_limit_w and s.power_w < CAPPED_BELOW * s.power_limit_w:
            return ("power-cap-below-limit", f"power-capped at {s.power_w:.0f} W, well below its "
                    f"{s.power_limit_w:.0f} W limit: the chassis or its BMC grants the board less power")
        limit = f" {s.power_limit_w:.0f} W" if s.power_limit_w else ""
        return "power-cap", f"held at its{limit} power limit (a hot chip draws more power at the same clock)"
    if s.active("applications_clocks_setting"):
        return "application-clocks", "application clocks are set below the maximum"
    if s.active("sync_boost"):
        return "sync-boost", "sync boost holds this GPU at the clock of the slowest GPU in its group"
    ratio = s.clock_ratio
    if ratio is not None and ratio < CLOCK_HELD:
        return ("clocks-low", f"the SM clock ran at {s.sm_clock_mhz:.0f} of {s.max_sm_clock_mhz:.0f} MHz "
                "with no reason NVML names")
    return None
