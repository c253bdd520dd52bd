"""`gpudoctor plan`: which GPU a training (or inference) job needs, how long, what it costs."""

from __future__ import annotations

import difflib
import json
import sys
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import click

from gpudoctor.cli import InputError
from gpudoctor.commands.plan_options import CHOICES, OptionError, check_options, job_from_options
from gpudoctor.commands.plan_options import count as _count
from gpudoctor.findings import ExitCode
from gpudoctor.plan import models
from gpudoctor.plan.job import LORA_TARGETS, OPTIMIZER_IMPLS, OPTIMIZERS, PRECISIONS, JobError
from gpudoctor.render.emit import OutputFormat, Printed, emit

DEFAULT_SEQ_CAP = 2048  # decoders with 128k contexts are planned at 2k tokens unless --seq says otherwise


class PlanUsageError(InputError):
    """One line on stderr ("gpudoctor: error: ..."), exit 2, like every other command's."""


class OneLineErrors(click.Command):
    """Click's own option errors (bad integer, unknown option: it lists close
    matches) as one line and exit 2, like every other plan error."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise PlanUsageError(exc.format_message()) from None


def _choice(value: str | None, choices: tuple[str, ...], option: str) -> str | None:
    if value is None or value in choices:
        return value
    close = difflib.get_close_matches(value, choices, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise PlanUsageError(f"{option}: {value!r} is not one of {', '.join(choices)}{hint}")


def list_presets(as_json: bool) -> None:
    from gpudoctor.render.plan_presets import presets_data, render_presets

    rows = sorted(models.presets().values(), key=lambda s: (models.FAMILIES.index(s.family), s.params))
    emit("plan", "json" if as_json else "text",
         {OutputFormat.JSON: lambda: json.dumps(presets_data(rows), indent=2) + "\n",
          OutputFormat.TEXT: Printed(lambda console: render_presets(rows, console))})


def _collect_snapshot():
    """This machine as the probes see it (a seam for the tests)."""
    from gpudoctor.host import RealHost
    from gpudoctor.probes import collect

    return collect(RealHost())


def here_targets(matrices) -> tuple[list, dict]:
    from gpudoctor.matrices.records import GpuModel
    from gpudoctor.plan.ranking import Target

    snap = _collect_snapshot()
    gpus = snap.visible_gpus()
    if not gpus:
        why = snap.driver.nvml.value or "no NVIDIA driver or GPU found"
        return [], {"gpus_found": 0, "reason": f"No NVIDIA GPU on this machine ({why}): nothing to plan against "
                                               "here. Plan against named GPUs with --gpu NAME, or all known "
                                               "GPUs without --here."}
    targets = []
    for g in gpus:
        model = matrices.gpu(g.name)
        if model is None:
            gb = (g.memory_total_mib or 0) / 1024
            model = GpuModel(name=g.name, compute_capability=g.compute_capability or "", arch="unknown",
                             memory_gb=gb, source="nvml (not in gpudoctor's GPU table: no speed or price)")
        targets.append(Target(model, g.memory_total_mib, label=f"GPU {g.index}: {g.name}"))
    return targets, {"gpus_found": len(targets), "reason": ""}


def resolve_targets(names: tuple[str, ...], matrices) -> list:
    from gpudoctor.plan.ranking import Target

    if not names:
        return [Target(g) for g in matrices.gpus]
    out = []
    for name in names:
        hit = matrices.gpu(name)
        if hit is None:
            known = [g.name for g in matrices.gpus]
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise PlanUsageError(f"--gpu: unknown GPU {name!r}{hint}")
        out.append(Target(hit))
    return out


@click.command("plan", cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("model", required=False)
@click.option("--list", "list_", is_flag=True, help="List the model presets.")
@click.option("--config", "config", metavar="FILE", help="A local Hugging Face config.json (no download).")
@click.option("--torch", "factory", metavar="MODULE:FACTORY",
              help="Exact mode: build the model with FACTORY and measure a real step on fake tensors.")
@click.option("--exact", is_flag=True, help="Exact mode on the preset's reference implementation.")
@click.option("--python", "python", metavar="PATH", help="Interpreter with torch for exact mode (default: this one).")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Exact-mode time limit, seconds.")
@click.option("--params", metavar="N", help="Parameter count (7B, 124M, 1.5e9).")
@click.option("--layers", type=int)
@click.option("--hidden", type=int)
@click.option("--heads", type=int)
@click.option("--kv-heads", type=int)
@click.option("--ffn", type=int, help="MLP width (default 4 x hidden).")
@click.option("--vocab", type=int)
@click.option("--seq", type=int, help="Tokens per sample.")
@click.option("--image-size", type=int, help="Input size in pixels (vision models).")
@click.option("--batch", type=int, default=8, show_default=True, help="Micro-batch per GPU.")
@click.option("--precision", default="amp-bf16", show_default=True, help="|".join(PRECISIONS))
@click.option("--optimizer", default="adamw", show_default=True, help="|".join(OPTIMIZERS))
@click.option("--optimizer-impl", default="foreach", show_default=True, help="|".join(OPTIMIZER_IMPLS))
@click.option("--grad-checkpointing", is_flag=True)
@click.option("--grad-accum", type=int, default=1, show_default=True)
@click.option("--lora", "lora", type=int, metavar="RANK", help="LoRA adapters of this rank.")
@click.option("--lora-targets", default="qv", show_default=True, help="|".join(LORA_TARGETS))
@click.option("--qlora", is_flag=True, help="4-bit (NF4) base weights with LoRA adapters.")
@click.option("--zero", type=int, default=0, help="DeepSpeed ZeRO stage 1|2|3 (with --gpus).")
@click.option("--fsdp", is_flag=True, help="FSDP full sharding (with --gpus).")
@click.option("--gpus", type=int, default=1, show_default=True, help="GPUs in data parallel.")
@click.option("--inference", is_flag=True, help="Plan inference: weights + KV cache.")
@click.option("--context", type=int, help="Inference: tokens held in the KV cache per sequence.")
@click.option("--offload-optimizer", is_flag=True, help="Optimizer states in CPU memory.")
@click.option("--optimizer-in-backward", is_flag=True, help="Step fused into backward (no gradient buffer).")
@click.option("--attention", help="sdpa|eager (default: the model's).")
@click.option("--cuda-context-gib", type=float, default=1.0, show_default=True)
@click.option("--samples", type=str, help="Dataset size in samples (for time and cost).")
@click.option("--epochs", type=float, default=1.0, show_default=True)
@click.option("--tokens", type=str, help="Total training tokens (instead of --samples).")
@click.option("--gpu", "gpu_names", multiple=True, metavar="NAME", help="Plan against this GPU (repeatable).")
@click.option("--here", is_flag=True, help="Plan against the GPUs of this machine.")
@click.option("--prices", "prices_file", metavar="FILE", help="Your price table (overrides the shipped one).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (schema plan.v1).")
@click.option("--svg", "svg", metavar="FILE", help="Also save the view as an SVG picture.")
@click.option("--top", type=click.IntRange(min=0), default=15, show_default=True,
              help="GPUs shown in the table (0: all). --json always lists every one.")
@click.option("--sort", "sort", type=click.Choice(("cost", "time", "fit")), default="cost", show_default=True,
              help="Rank the GPUs that fit by job cost (rentable first), time, or tightest fit.")
@click.option("--edge", is_flag=True, help="Include embedded boards (Jetson) and laptop GPUs among the candidates.")
@click.option("--quantizer", type=click.Choice(("bitsandbytes", "torchao")), default="bitsandbytes",
              show_default=True, help="QLoRA's NF4 implementation (torchtune uses torchao).")
@click.option("--bnb-version", metavar="VERSION",
              help="bitsandbytes release for QLoRA (default: read with --python, else assume >= 0.43.2).")
@click.option("--no-double-quant", is_flag=True, help="QLoRA without double quantization of the block constants.")
@click.option("--lora-head", is_flag=True, help="LoRA adapters on the LM head too.")
@click.option("--chunked-ce", is_flag=True, help="Cross-entropy over 8 chunks of the logits (torchtune).")
@click.option("--compile", "compile_", is_flag=True, help="torch.compile of the layers and the loss.")
@click.option("--activation-offload", is_flag=True, help="Saved activations streamed to CPU memory.")
@click.option("--input-rate", type=click.FloatRange(min=0, min_open=True), metavar="N",
              help="Samples/s your data pipeline delivers per GPU (bounds the speed).")
def plan(**options: Any) -> None:
    """Which GPU MODEL needs for a training (or inference) job, how long it takes, what it costs.

    MODEL is a preset (gpudoctor plan --list); or give --config FILE, --torch MODULE:FACTORY,
    or a shape (--params, --layers, --hidden, ...).

    Exit codes: 0 planned; 1 with --here when this machine has no GPU or the job fits none of
    its GPUs; 2 unknown model or bad options.
    """
    o = SimpleNamespace(**options)
    if o.list_:
        list_presets(o.as_json)
        return
    from gpudoctor.matrices import load_matrices
    from gpudoctor.plan.exact import ExactError, request_for, run_exact, to_memory
    from gpudoctor.plan.planner import make_plan, to_json
    from gpudoctor.plan.prices import PriceError, load_prices

    try:
        check_options(options)
    except OptionError as exc:
        raise PlanUsageError(str(exc)) from None
    for name, choices in CHOICES.items():
        _choice(options[name], choices, "--" + name.replace("_", "-"))
    try:
        base = models.resolve(o.model, o.config) if (o.model or o.config) else None
        if base is None and o.factory is None and not (o.params or o.layers or o.hidden):
            raise PlanUsageError("name a model: a preset (see --list), --config FILE, --torch MODULE:FACTORY, "
                                 "or --params / --layers and --hidden")
        spec = None
        if base is not None or o.params or o.layers or o.hidden:
            spec = models.explicit(_count(o.params, "--params"), o.layers, o.hidden, o.heads, o.vocab, o.ffn, o.seq,
                                   o.kv_heads, base=base)
        seq = o.seq
        if spec is not None and seq is None and spec.family == "decoder" and spec.max_seq > DEFAULT_SEQ_CAP:
            seq = DEFAULT_SEQ_CAP
        job = job_from_options(options, seq=seq)
        env_note = None
        if o.qlora and o.quantizer == "bitsandbytes" and not o.bnb_version and o.python:
            from gpudoctor.plan.target_env import bnb_version as read_bnb

            found, env_note = read_bnb(o.python)
            job = replace(job, bnb_version=found)
        if o.qlora and not o.lora:
            job = replace(job, lora_rank=64)  # the QLoRA paper's rank
        job.check()
        matrices = load_matrices()
        here_info = None
        if o.here:
            targets, here_info = here_targets(matrices)
        else:
            targets = resolve_targets(o.gpu_names, matrices)
        prices = load_prices(o.prices_file)

        memory = flops = None
        mode = "formula"
        if o.factory or o.exact:
            if o.exact and (base is None or base.name not in models.presets()):
                raise PlanUsageError("--exact runs a preset's reference implementation; for other models use "
                                     "--torch MODULE:FACTORY")
            from gpudoctor.render.console import status

            with status(f"gpudoctor plan: running the model once in a subprocess (at most {o.timeout:g} s)…",
                        enabled=not o.as_json):
                res = run_exact(o.python or sys.executable,
                                request_for(job, builtin=base.name if o.exact and base else None, factory=o.factory),
                                timeout=o.timeout)
            memory, flops, mode = to_memory(res, job), res.flops_per_step, "exact"
            if spec is None:
                spec = models.ModelSpec(name=o.factory, family="generic", params=res.params,
                                        source=f"--torch {o.factory}")
        result = make_plan(spec, job, targets, matrices, prices, memory=memory, flops_per_step=flops, mode=mode,
                           here=here_info, suggest=spec.family != "generic", sort=o.sort,
                           edge=o.edge or bool(o.gpu_names) or o.here)
        if env_note:
            result.notes.append(env_note)
    except (models.ModelError, JobError, PriceError, ExactError) as exc:
        raise PlanUsageError(str(exc)) from None

    if o.svg:
        from gpudoctor.plan.render import save_svg  # rich: only for the pictures

        try:
            save_svg(result, o.svg, top=o.top)
        except OSError as exc:
            raise PlanUsageError(f"--svg: cannot write {o.svg}: {exc.strerror or exc}") from None
    emit("plan", "json" if o.as_json else "text", _views(result, o.top, to_json))
    if o.here and (not result.gpus or not result.fits_anywhere):
        sys.exit(ExitCode.FINDINGS)


def _views(result, top: int, to_json) -> dict:
    def text(console) -> None:
        from gpudoctor.plan.render import print_plan

        print_plan(result, console, top=top)

    return {OutputFormat.JSON: lambda: json.dumps(to_json(result), indent=2) + "\n", OutputFormat.TEXT: Printed(text)}
