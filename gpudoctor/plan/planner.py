"""One plan: the model, the job, the memory per GPU, every candidate GPU ranked,
and the changes that make the job fit. `to_json` is the --json contract
(gpudoctor/schema/plan.v1.json)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date

from gpudoctor import __version__
from gpudoctor.matrices import Matrices
from gpudoctor.plan import compute
from gpudoctor.plan.job import GIB, Job
from gpudoctor.plan.memory import Memory, estimate
from gpudoctor.plan.models import ModelSpec
from gpudoctor.plan.prices import PriceTable
from gpudoctor.plan.ranking import (
    GpuPlan,
    Pick,
    Suggestion,
    Target,
    picks,
    plan_gpus,
    suggestions,
)

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Plan:
    """One `gpudoctor plan` answer: model, job, memory per GPU, the GPUs ranked and the changes
    that make the job fit."""

    spec: ModelSpec
    job: Job
    memory: Memory
    gpus: list[GpuPlan]
    options: list[Suggestion]
    prices: PriceTable | None
    mode: str = "formula"  # "formula" | "exact"
    steps: float | None = None
    here: dict | None = None  # --here: what the probes found
    notes: list[str] = field(default_factory=list)
    sort: str = "cost"
    picks: list[Pick] = field(default_factory=list)
    price_warning: str | None = None
    price_age_days: int | None = None

    @property
    def fits_anywhere(self) -> bool:
        return any(p.fits for p in self.gpus)


def make_plan(spec: ModelSpec, job: Job, targets: list[Target], matrices: Matrices, prices: PriceTable | None,
              memory: Memory | None = None, flops_per_step: float | None = None, mode: str = "formula",
              here: dict | None = None, suggest: bool = True, sort: str = "cost", edge: bool = False,
              today: date | None = None) -> Plan:
    """`suggest=False` when the memory did not come from the formulas the suggestions use;
    `edge`: keep embedded boards (Jetson) and laptop GPUs among the candidates (named GPUs
    always stay): neither is rented, and a laptop's speed depends on its maker's power limit."""
    if not edge:
        targets = [t for t in targets if t.model.segment not in ("embedded", "laptop")]
    mem = memory if memory is not None else estimate(spec, job)
    options: list[Suggestion] = []
    if suggest and any(mem.peak > t.capacity for t in targets):
        options = suggestions(spec, job, targets, matrices)
    gpus = plan_gpus(spec, job, mem, targets, matrices, prices, flops_per_step, options, sort)
    notes = list(mem.notes)
    if spec.note:
        notes.append(f"{spec.name}: {spec.note}")
    bounds = {p.step.bound for p in gpus if p.step}
    if "memory bandwidth" in bounds:
        notes.append("CNN speed: the slower of compute and memory traffic (fitted on NVIDIA's ResNet-50 runs, which "
                     "decode images on the GPU with DALI); a CPU data loader can be slower: give --input-rate")
    warning = prices.stale_warning(today) if prices is not None else None
    return Plan(spec, job, mem, gpus, options, prices, mode, compute.total_steps(spec, job), here, notes, sort,
                picks(gpus), warning, prices.age_days(today) if prices is not None else None)


def _r(x: float | None, nd: int = 3) -> float | None:
    return None if x is None else round(float(x), nd)


def _gpu_json(rank: int, p: GpuPlan, plan_steps: float | None = None) -> dict:
    step = p.step
    cost = None
    if p.cost is not None:
        cost = {
            "per_hour_usd": {t: [_r(lo), _r(hi)] for t, (lo, hi) in p.cost.per_hour.items()},
            "job_usd": {t: [_r(lo, 2), _r(hi, 2)] for t, (lo, hi) in p.cost.job.items()},
            "buy_usd": p.cost.buy_usd,
            "buy_kind": p.cost.buy_kind,
            "buy_date": p.cost.buy_date,
            "break_even_hours": _r(p.cost.break_even_hours, 1),
            "price_dates": list(p.cost.dates),
        }
    return {
        "rank": rank,
        "name": p.name,
        "model": p.target.model.name,
        "memory_gib": _r(p.target.capacity / GIB),
        "fits": p.fits,
        "headroom_gib": _r(p.headroom / GIB),
        "precision_supported": p.supported,
        "note": p.support_note,
        "step_time_s": _r(step.seconds, 4) if step else None,
        "samples_per_s": _r(step.samples_per_s, 2) if step else None,
        "tokens_per_s": _r(step.tokens_per_s, 1) if step and step.tokens_per_s else None,
        "utilisation_prior": _r(step.utilisation) if step else None,
        "peak_tflops": step.tflops_peak if step else None,
        "decode_tokens_per_s": _r(p.decode_tokens_per_s, 1),
        "speed_bound": step.bound if step else None,
        "segment": p.target.model.segment,
        "job_rent_usd": _r(p.rent_per_step * plan_steps, 2) if p.rent_per_step is not None and plan_steps else None,
        "hours": _r(p.hours, 3),
        "cost": cost,
        "to_fit": None if p.fix is None else {"change": p.fix.change, "flags": p.fix.flags,
                                              "peak_gib": _r(p.fix.peak / GIB)},
    }


def to_json(plan: Plan) -> dict:
    mem = plan.memory
    job = {k: v for k, v in asdict(plan.job).items()}
    out = {
        "schema_version": SCHEMA_VERSION,
        "gpudoctor_version": __version__,
        "mode": plan.mode,
        "model": {"name": plan.spec.name, "family": plan.spec.family, "params": plan.spec.params,
                  "trainable_params": int(mem.detail.get("trainable_params", plan.spec.params)),
                  "source": plan.spec.source},
        "job": job,
        "memory": {**{k: _r(v) for k, v in mem.gib().items()}, "allocated_gib": _r(mem.allocated / GIB),
                   "kv_cache_gib": _r(mem.kv_cache / GIB), "paged_gib": _r(mem.paged / GIB),
                   "phase": mem.phase, "notes": list(plan.notes)},
        "steps": plan.steps,
        "sort": plan.sort,
        "summary": [{"pick": k.label, "gpu": k.plan.name, "why": k.why, "hours": _r(k.plan.hours, 3),
                     "job_rent_usd": _r(k.plan.rent_per_step * plan.steps, 2) if plan.steps else None,
                     "rent_usd_per_hour": _r(k.plan.rent_per_step * 3600 / k.plan.step.seconds, 3)
                     if k.plan.step else None} for k in plan.picks],
        "gpus": [_gpu_json(i + 1, p, plan.steps) for i, p in enumerate(plan.gpus)],
        "suggestions": [{"change": s.change, "flags": s.flags, "peak_gib": _r(s.peak / GIB),
                         "smallest_fit": s.smallest_fit} for s in plan.options],
        "prices": None if plan.prices is None else {"as_of": plan.prices.as_of, "origin": plan.prices.origin,
                                                    "age_days": plan.price_age_days,
                                                    "warning": plan.price_warning},
    }
    if plan.here is not None:
        out["here"] = plan.here
    return out
