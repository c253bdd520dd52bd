"""Put the memory, speed and price together per GPU, rank the GPUs, and find the
cheapest change that makes a job fit where it does not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records import GpuModel
from gpudoctor.plan import compute
from gpudoctor.plan.job import GIB, Job, JobError
from gpudoctor.plan.memory import Memory, estimate
from gpudoctor.plan.models import ModelSpec
from gpudoctor.plan.prices import Cost, PriceTable, cost_for

# The driver and ECC keep part of the nominal memory: a V100 16 GB shows 16,160 MiB,
# an 80 GB A100 81,920 MiB, an RTX 4090 24,564 MiB. Budget 3 % below nominal.
USABLE_FRACTION = 0.97
SORTS = ("cost", "time", "fit")
RANK_TIERS = ("community", "on-demand", "hyperscaler")  # spot can be taken away mid-run: not ranked on


@dataclass(frozen=True)
class Target:
    """A GPU to plan against: a matrix row, and the memory NVML reports when it is this machine's."""

    model: GpuModel
    memory_total_mib: int | None = None
    label: str | None = None  # how it was named (NVML name for --here)

    @property
    def capacity(self) -> float:
        if self.memory_total_mib:
            return self.memory_total_mib * float(1 << 20)
        return self.model.memory_gb * GIB * USABLE_FRACTION


@dataclass(frozen=True)
class Suggestion:
    """A change that makes the job fit (a flag to pass) and the peak memory per GPU after it."""

    change: str  # "gradient checkpointing"
    flags: str  # "--grad-checkpointing"
    peak: float  # bytes per GPU after the change
    job: Job
    smallest_fit: str | None = None  # name of the smallest planned GPU it fits
    smallest_fit_gb: float | None = None  # that GPU's nominal memory
    stacked: bool = False  # several changes together


@dataclass(frozen=True)
class GpuPlan:
    """One candidate GPU for the job: whether it fits, how fast and at what cost, and the change
    that makes it fit when it does not."""

    target: Target
    fits: bool
    headroom: float  # bytes; negative when it does not fit
    supported: bool | None  # the precision runs on this GPU (None: unknown)
    support_note: str
    step: compute.StepTime | None
    hours: float | None
    decode_tokens_per_s: float | None
    cost: Cost | None
    fix: Suggestion | None

    @property
    def name(self) -> str:
        return self.target.label or self.target.model.name

    target_gpus: int = 1  # GPUs of this model the job runs on

    @property
    def rent_per_step(self) -> float | None:
        """USD a step costs at the cheapest non-spot rent (all GPUs of the job): the job's cost
        up to the number of steps, so it ranks even when the job length is not given."""
        if self.cost is None or self.step is None:
            return None
        lows = [lo for t, (lo, _) in self.cost.per_hour.items() if t in RANK_TIERS]
        if not lows:
            return None
        return min(lows) * self.step.seconds / 3600 * self.target_gpus

    @property
    def seconds_per_sample(self) -> float | None:
        if self.step is not None:
            return 1.0 / self.step.samples_per_s
        if self.decode_tokens_per_s:
            return 1.0 / self.decode_tokens_per_s
        return None

    @property
    def edge(self) -> bool:
        return self.target.model.segment == "embedded"


def precision_support(gpu: GpuModel, precision: str, matrices: Matrices) -> tuple[bool | None, str]:
    """Whether the hardware runs the precision: the matrices' precision table, else a TFLOPS figure."""
    row = matrices.precision(gpu.compute_capability)
    if precision in ("amp-bf16", "bf16"):
        ok = row.bf16 if row else (True if gpu.bf16_tflops else None)
        return ok, "" if ok is not False else f"no bf16 on compute capability {gpu.compute_capability}: use amp-fp16"
    if precision == "fp8":
        ok = row.fp8 if row else (True if gpu.fp8_tflops else None)
        return ok, "" if ok is not False else f"no fp8 tensor cores on compute capability {gpu.compute_capability}"
    if precision == "amp-fp16" and row is not None and not row.fp16_tensor_cores:
        return True, "no fp16 tensor cores: fp16 runs at the non-tensor rate"
    return True, ""


@dataclass(frozen=True)
class Change:
    """A memory-saving change the planner may try: its flags and how it rewrites the job."""

    kind: str  # changes of one kind replace each other when stacked (batch splits)
    name: str
    flags: str
    apply: Callable[[Job], Job]


def candidate_changes(spec: ModelSpec, job: Job) -> list[Change]:
    """Memory savers, cheapest first (by what they cost in speed or quality)."""
    out: list[Change] = []
    if job.inference:
        if job.batch > 1:
            out.append(Change("batch", "smaller batch", f"--batch {job.batch // 2}",
                              lambda j: replace(j, batch=j.batch // 2)))
        if spec.has_shape and not job.qlora:
            out.append(Change("quant", "4-bit weights", "--qlora", lambda j: replace(j, qlora=True)))
        return out
    foreach = job.optimizer in ("adam", "adamw", "adafactor") and job.optimizer_impl == "foreach"
    if foreach and not job.offload_optimizer:
        out.append(Change("impl", "fused optimizer step", "--optimizer-impl fused",
                          lambda j: replace(j, optimizer_impl="fused")))
    b, ga = job.batch, job.grad_accum
    while b > 1 and not job.optimizer_in_backward:
        b, ga = b // 2, ga * 2
        out.append(Change("batch", f"micro-batch {b} x {ga} accumulation steps", f"--batch {b} --grad-accum {ga}",
                          lambda j, b=b, ga=ga: replace(j, batch=b, grad_accum=ga)))
    if not job.grad_checkpointing and spec.has_shape:
        out.append(Change("gc", "gradient checkpointing", "--grad-checkpointing",
                          lambda j: replace(j, grad_checkpointing=True)))
    if job.optimizer in ("adam", "adamw") and not job.peft:
        out.append(Change("opt", "8-bit AdamW", "--optimizer adam8bit", lambda j: replace(j, optimizer="adam8bit")))
    if job.precision in ("fp32", "amp-fp16", "amp-bf16") and not job.peft:
        out.append(Change("precision", "pure bf16 weights and optimizer states", "--precision bf16",
                          lambda j: replace(j, precision="bf16")))
    if spec.has_shape and not job.peft:
        out.append(Change("peft", "LoRA rank 16", "--lora 16", lambda j: replace(j, lora_rank=16)))
    if spec.has_shape and not job.qlora:
        out.append(Change("peft", "QLoRA (4-bit base, rank 16)", "--qlora --lora 16",
                          lambda j: replace(j, qlora=True, lora_rank=j.lora_rank or 16)))
    if not job.offload_optimizer and not job.peft:
        out.append(Change("offload", "optimizer states in CPU memory", "--offload-optimizer",
                          lambda j: replace(j, offload_optimizer=True)))
    return out


def _peak(spec: ModelSpec, job: Job) -> float | None:
    try:
        return estimate(spec, job).peak
    except JobError:
        return None


def suggestions(spec: ModelSpec, job: Job, targets: list[Target], matrices: Matrices) -> list[Suggestion]:
    """Single changes that lower the peak, cheapest first; then the changes stacked
    in the same order (a later change of a kind replaces an earlier one). Each
    names the smallest planned GPU it fits that also runs its precision."""
    base = _peak(spec, job)
    if base is None:
        return []
    by_size = sorted(targets, key=lambda t: t.capacity)
    changes = candidate_changes(spec, job)
    singles: list[Suggestion] = []
    for c in changes:
        peak = _peak(spec, c.apply(job))
        if peak is not None and peak < 0.99 * base:
            single = c.apply(job)
            singles.append(Suggestion(c.name, c.flags, peak, single, *_smallest(by_size, peak, single, matrices)))
    stacked: list[Suggestion] = []
    chosen: dict[str, Change] = {}
    best = base
    for c in changes:
        trial = {**chosen, c.kind: c}
        j = job
        for step in trial.values():
            j = step.apply(j)
        peak = _peak(spec, j)
        if peak is None or peak >= 0.99 * best:
            continue
        chosen, best = trial, peak
        if len(chosen) > 1:
            stacked.append(Suggestion(" + ".join(x.name for x in chosen.values()),
                                      " ".join(x.flags for x in chosen.values()), peak, j,
                                      *_smallest(by_size, peak, j, matrices), stacked=True))
    return singles + stacked


def _smallest(by_size: list[Target], peak: float, job: Job, matrices: Matrices) -> tuple[str | None, float | None]:
    for t in by_size:
        if t.capacity >= peak and precision_support(t.model, job.precision, matrices)[0] is not False:
            return t.label or t.model.name, t.model.memory_gb
    return None, None


def plan_gpus(spec: ModelSpec, job: Job, memory: Memory, targets: list[Target], matrices: Matrices,
              prices: PriceTable | None, flops_per_step: float | None = None,
              options: list[Suggestion] | None = None, sort: str = "cost") -> list[GpuPlan]:
    """One GpuPlan per target, ranked by `sort` (see rank)."""
    steps = compute.total_steps(spec, job)
    plans = []
    for t in targets:
        headroom = t.capacity - memory.needed
        supported, note = precision_support(t.model, job.precision, matrices)
        step = None if job.inference else compute.step_time(spec, job, t.model, flops_per_step)
        decode = None
        if job.inference:
            decode = compute.decode_tokens_per_s(memory.weights, memory.activations, job.batch, t.model)
        hours = None
        if step is not None and steps is not None:
            hours = steps * step.seconds / 3600
        elif decode and job.tokens:
            hours = job.tokens / decode / 3600
        cost = cost_for(t.model, prices, hours, job.gpus) if prices is not None else None
        fix = None
        if headroom < 0 and options and supported is not False:
            fix = next((s for s in options if s.peak - memory.paged <= t.capacity
                        and precision_support(t.model, s.job.precision, matrices)[0] is not False), None)
        plans.append(GpuPlan(t, headroom >= 0 and supported is not False, headroom, supported, note, step,
                             hours, decode, cost, fix, job.gpus))
    return rank(plans, sort)


def rank(plans: list[GpuPlan], sort: str = "cost") -> list[GpuPlan]:
    """GPUs that fit first, then the nearest misses. Among those that fit:

    cost: rentable ones by the cost of the job (cheapest rent x time), then by time; then
          the ones with no rent price (owned cards) by time;
    time: fastest first;
    fit:  tightest fit first (the smallest card that does the job)."""
    fitting = [p for p in plans if p.fits]
    big = float("inf")

    def speed(p: GpuPlan) -> float:
        return p.seconds_per_sample if p.seconds_per_sample is not None else big

    if sort == "fit":
        fitting.sort(key=lambda p: p.headroom)
    elif sort == "time":
        fitting.sort(key=lambda p: (speed(p), p.rent_per_step if p.rent_per_step is not None else big))
    else:
        fitting.sort(key=lambda p: (p.rent_per_step is None, p.rent_per_step or 0.0, speed(p)))
    missing = sorted((p for p in plans if not p.fits), key=lambda p: (p.supported is False, -p.headroom))
    return fitting + missing


@dataclass(frozen=True)
class Pick:
    """A GPU plan the answer recommends (cheapest, fastest, best value), and why."""

    label: str  # "cheapest" | "fastest" | "best value"
    plan: GpuPlan
    why: str


def picks(plans: list[GpuPlan]) -> list[Pick]:
    """The plain answer among the rentable GPUs that fit: the cheapest job, the fastest
    job, and the best value: the least cost x time, both relative to the best of each
    (so 10 % dearer and 30 % faster beats the cheapest)."""
    rentable = [p for p in plans if p.fits and p.rent_per_step is not None and p.seconds_per_sample]
    if not rentable:
        return []
    cheapest = min(rentable, key=lambda p: (p.rent_per_step, p.seconds_per_sample))
    fastest = min(rentable, key=lambda p: (p.seconds_per_sample, p.rent_per_step))
    lo_cost, lo_time = cheapest.rent_per_step, fastest.seconds_per_sample
    value = min(rentable, key=lambda p: (p.rent_per_step / lo_cost) * (p.seconds_per_sample / lo_time))
    out = [Pick("cheapest", cheapest, "lowest cost of the job"), Pick("fastest", fastest, "shortest time")]
    out.append(Pick("best value", value, "least cost x time, each relative to the best"))
    return out
