"""The rich view of a plan: the memory breakdown, one row and one memory bar per
candidate GPU, and the changes that make the job fit. Display only."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from gpudoctor.plan.job import GIB
from gpudoctor.plan.planner import Plan
from gpudoctor.plan.ranking import GpuPlan
from gpudoctor.render.fit import fit_table

COMPONENTS = (  # (attribute, label, style)
    ("weights", "weights", "bright_blue"),
    ("gradients", "gradients", "magenta"),
    ("optimizer", "optimizer states", "yellow"),
    ("activations", "activations", "green"),
    ("other", "logits, temporaries", "cyan"),
    ("context", "CUDA context", "grey50"),
)
BAR = 20


def gib(x: float) -> str:
    return f"{x / GIB:.1f} GiB" if abs(x) >= 0.095 * GIB else f"{x / (1 << 20):.0f} MiB"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2f} s" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def usd(x: float) -> str:
    return f"${x:,.0f}" if x >= 100 else f"${x:,.2f}"


def memory_bar(plan: Plan, capacity: float, width: int = BAR) -> Text:
    """Components of the peak, to the scale of this GPU's memory; red past the end."""
    text = Text()
    used = 0
    for attr, _, style in COMPONENTS:
        value = getattr(plan.memory, attr)
        cells = round(value / capacity * width) if capacity else 0
        cells = min(cells, width - used)
        text.append("█" * cells, style=style)
        used += cells
    if plan.memory.peak > capacity:
        text.append("!", style="bold red")
    else:
        text.append("·" * (width - used), style="grey35")
    return text


def breakdown(plan: Plan) -> Table:
    mem = plan.memory
    t = Table(title="Memory per GPU at the peak", title_justify="left", show_header=False, box=None, pad_edge=False)
    t.add_column(justify="left")
    t.add_column(justify="right")
    t.add_column()
    for attr, label, style in COMPONENTS:
        value = getattr(mem, attr)
        cells = round(value / mem.peak * 40) if mem.peak else 0
        if attr == "activations" and mem.phase == "inference":
            label = "KV cache"
        elif attr == "optimizer" and mem.paged:
            label = "optimizer states (paged)"
        t.add_row(label, gib(value), Text("█" * cells, style=style))
    when = "during inference" if mem.phase == "inference" else f"at the {mem.phase}"
    t.add_row(Text("peak", style="bold"), Text(gib(mem.peak), style="bold"), Text(when))
    return t


def _cost_cell(p: GpuPlan) -> str:
    """Cost of the job per tier (or per GPU-hour when the job length is unknown), buy-vs-rent."""
    if p.cost is None:
        return "-"
    parts = []
    for tier, label in (("community", "community"), ("on-demand", "on-demand"), ("hyperscaler", "cloud")):
        table = p.cost.job if p.cost.job else p.cost.per_hour
        if tier in table:
            lo, hi = table[tier]
            rng = usd(lo) + (f"-{usd(hi)}" if hi > lo * 1.005 else "")
            parts.append(f"{label} {rng}" + ("" if p.cost.job else "/h"))
    if p.cost.break_even_hours:
        kind = {"street": "street price", "used": "used price", "launch": "launch price"}.get(p.cost.buy_kind or "", "")
        parts.append(f"buying ({usd(p.cost.buy_usd)} {kind} {p.cost.buy_date}) pays after "
                     f"{p.cost.break_even_hours:,.0f} h")
    return "\n".join(parts) or "-"


# When the table is wider than the screen, these columns go first (in this order), so
# the time and cost of the job are never cut: the memory bar, the step time, throughput.
DROP_FIRST = (3, 4, 5, 0)


def gpu_table(plan: Plan, top: int = 0, width: int = 150) -> Table:
    shown = plan.gpus[:top] if top else plan.gpus
    more = len(plan.gpus) - len(shown)
    order = {"cost": "cheapest job first (rentable GPUs), then time", "time": "fastest first",
             "fit": "tightest fit first"}[plan.sort]
    t = Table(title=f"Candidate GPUs (fitting ones first, {order})", title_justify="left", caption_justify="left")
    t.add_column("#", justify="right")
    t.add_column("GPU")
    t.add_column("fits", justify="right", no_wrap=True)  # numbers with their unit: never broken
    t.add_column("use of memory", no_wrap=True)
    t.add_column("decode" if plan.job.inference else "step", justify="right", no_wrap=True)
    t.add_column("throughput", justify="right", no_wrap=True)
    t.add_column("time", justify="right", no_wrap=True)
    t.add_column("job cost" if any(p.cost and p.cost.job for p in shown) else "price per GPU-hour")
    rows = []
    for i, p in enumerate(shown, 1):
        if p.fits:
            fits = Text(f"yes +{gib(p.headroom)}", style="green")
        elif p.supported is False:
            fits = Text("precision", style="red")
        else:
            fits = Text(f"no {gib(p.headroom)}", style="red")
        if p.step:
            speed = f"{p.step.tokens_per_s:,.0f} tok/s" if p.step.tokens_per_s else f"{p.step.samples_per_s:,.1f}/s"
            step = duration(p.step.seconds)
        elif p.decode_tokens_per_s:
            speed = f"{p.decode_tokens_per_s:,.0f} tok/s"
            step = duration(plan.job.batch / p.decode_tokens_per_s)  # one decode step of the whole batch
        else:
            speed, step = "-", "-"
        if p.step and p.step.bound != "compute":
            speed += f"\n{p.step.bound}-bound"
        hours = p.hours
        if hours is None and p.decode_tokens_per_s and plan.job.inference:
            # generating the whole context for the batch, at the decode rate
            hours = plan.memory.detail.get("context_tokens", 0) * plan.job.batch / p.decode_tokens_per_s / 3600
        name = Text(f"{p.name} ({p.target.capacity / GIB:.0f} GiB)")
        if p.support_note:
            name.append(f"\n{p.support_note}", style="dim")
        if p.fix is not None:
            name.append(f"\nfits with {p.fix.flags}", style="yellow")
        rows.append([str(i), name, fits, memory_bar(plan, p.target.capacity), step, speed,
                     duration(hours * 3600 if hours else None), _cost_cell(p)])
    dropped = fit_table(t, rows, width, DROP_FIRST)
    notes = [f"{more} more GPUs: --top 0 shows all, --json lists every one"] if more else []
    if dropped:
        notes.append(f"left out at this width: {', '.join(dropped)} (a wider terminal or --json shows them)")
    t.caption = "\n".join(notes) or None
    return t


def header(plan: Plan) -> Text:
    s, j = plan.spec, plan.job
    seq = plan.memory.detail.get("seq")
    what = "inference" if j.inference else \
        ("QLoRA" if j.qlora else (f"LoRA r{j.lora_rank}" if j.lora_rank else "training"))
    text = Text()
    text.append(f"{s.name}", style="bold")
    size = f"{s.params / 1e9:,.2f}B" if s.params >= 1e9 else f"{s.params / 1e6:,.1f}M"
    text.append(f"  {size} params · {s.family} · {what} · {plan.mode} mode\n")
    if j.inference:
        shape = f"batch {j.batch} × {plan.memory.detail.get('context_tokens', seq)}-token context"
    else:
        shape = f"batch {j.batch}" + (f" × {seq} tokens" if seq and s.family not in ("cnn", "unet", "mlp") else "")
    if j.image_size:
        shape += f" at {j.image_size} px"
    extras = [j.precision] + ([] if j.inference else [j.optimizer])
    if j.grad_checkpointing:
        extras.append("grad checkpointing")
    if j.grad_accum > 1:
        extras.append(f"grad accum {j.grad_accum}")
    if j.sharded:
        extras.append(("FSDP" if j.fsdp else f"ZeRO-{j.zero}") + f" × {j.gpus} GPUs")
    elif j.gpus > 1:
        extras.append(f"DDP × {j.gpus} GPUs")
    text.append(shape + " · " + " · ".join(extras), style="dim")
    return text


def answer(plan: Plan) -> Text:
    """One plain line: cheapest, fastest, best value (rentable GPUs that fit)."""
    text = Text()
    if not plan.picks:
        if plan.gpus and plan.prices is not None:
            text.append("No rentable GPU in the price table fits this job.\n", style="bold")
        return text
    parts = []
    for k in plan.picks:
        p = k.plan
        bits = []
        if p.hours is not None:
            bits.append(duration(p.hours * 3600))
        if plan.steps:
            bits.append(usd(p.rent_per_step * plan.steps))
        else:
            bits.append(f"{usd(p.rent_per_step * 3600 / p.step.seconds)}/h" if p.step else "")
        parts.append(f"{k.label}: {p.name}" + (f" ({', '.join(b for b in bits if b)})" if bits else ""))
    text.append(", ".join(parts), style="bold")
    if not plan.steps:
        text.append("  (give --samples or --tokens for the time and cost of the whole job)", style="dim")
    text.append("\n")
    return text


def _indented(text: str, indent: int, style: str = "") -> Padding:
    """A line that wraps under its own first character (a hanging indent), not at column 0."""
    return Padding(Text(text, style=style), (0, 0, 0, indent))


def footer(plan: Plan) -> Group:
    parts: list = []
    text = Text()
    if plan.options and not all(p.fits for p in plan.gpus):
        singles = [s for s in plan.options if not s.stacked][:5]
        stacked = [s for s in plan.options if s.stacked][-2:]
        parts.append(Text("What makes it fit (cheapest change first):", style="bold"))
        for s in singles + stacked:
            where = (f"fits a {s.smallest_fit_gb:g} GB card ({s.smallest_fit})" if s.smallest_fit
                     else "fits none of the GPUs planned")
            parts.append(_indented(f"{s.change} → {gib(s.peak)}, {where}", 2))
            parts.append(_indented(s.flags, 4))
    priors = {}
    for p in plan.gpus:
        if p.step:
            priors.setdefault((p.step.utilisation, p.step.prior_source), []).append(p.name)
    if priors:
        parts.append(Text("Step time = FLOPs ÷ (dense peak × utilisation prior). Priors used:", style="dim"))
        for (util, source), names in priors.items():
            parts.append(_indented(f"{util:.2f} for {', '.join(names[:3])}{' ...' if len(names) > 3 else ''} "
                                   f"({source})", 2, "dim"))
    if plan.prices is not None:
        text.append(f"Prices as of {plan.prices.as_of} ({plan.prices.origin}); edit with --prices FILE. Job cost = "
                    "cheapest non-spot rent x time.\n", style="dim")
    if plan.price_warning:
        text.append(f"Warning: {plan.price_warning}\n", style="bold yellow")
    for note in plan.notes:
        text.append(f"Note: {note}\n", style="dim")
    if plan.here is not None and not plan.here.get("gpus_found"):
        text.append(f"{plan.here.get('reason')}\n", style="bold red")
    text.rstrip()
    return Group(*parts, *([text] if text.plain else []))


def view(plan: Plan, top: int = 0, width: int = 150) -> Group:
    parts = [header(plan), Text(), breakdown(plan)]
    if plan.gpus:
        parts += [Text(), gpu_table(plan, top, width), answer(plan)]
    parts.append(footer(plan))
    return Group(*parts)


def print_plan(plan: Plan, console: Console, top: int = 0) -> None:
    console.print(view(plan, top, console.width))


def save_svg(plan: Plan, path: str, width: int = 150, top: int = 0) -> None:
    """The same view as a picture (rich's recorded console), written to `path`."""
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    console.print(view(plan, top, width))
    console.save_svg(path, title=f"gpudoctor plan {plan.spec.name}")
