"""`gpudoctor plan`'s options and files, checked at the command line before any
arithmetic: a negative context, a zero sequence length, nan, 1e400 or a config
with zero attention heads is one line and exit 2, never an internal error. And
the Job the options describe (job_from_options).

The bounds are far beyond any real job (they only keep the arithmetic finite).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any

from gpudoctor.inputs import CONFIG_LIMIT, PRICES_LIMIT, parse_json, read_text
from gpudoctor.plan.job import LORA_TARGETS, OPTIMIZER_IMPLS, OPTIMIZERS, PRECISIONS, Job


class OptionError(ValueError):
    """One line for the user; the command exits 2."""


# option -> (lowest, highest) for integer options that, when given, must be positive
POSITIVE_INTS: Mapping[str, tuple[int, int]] = {
    "--layers": (1, 100_000), "--hidden": (1, 10_000_000), "--heads": (1, 100_000), "--kv-heads": (1, 100_000),
    "--ffn": (1, 100_000_000), "--vocab": (1, 100_000_000), "--seq": (1, 100_000_000),
    "--image-size": (1, 100_000), "--batch": (1, 10_000_000), "--grad-accum": (1, 1_000_000),
    "--gpus": (1, 1_000_000), "--context": (1, 100_000_000), "--lora": (1, 65_536),
}
# option -> (lowest, highest, lowest allowed itself?) for numbers
NUMBERS: Mapping[str, tuple[float, float, bool]] = {
    "--cuda-context-gib": (0.0, 1024.0, True), "--epochs": (0.0, 1e6, False), "--timeout": (0.0, 7 * 86400.0, False),
    "--params": (0.0, 1e15, False), "--tokens": (0.0, 1e18, False), "--samples": (1.0, 1e15, True),
}
ZERO_STAGES = (0, 1, 2, 3)
# option (its click name) -> the values it takes, checked in this order
CHOICES: Mapping[str, tuple[str, ...]] = {
    "precision": PRECISIONS, "optimizer": OPTIMIZERS, "optimizer_impl": OPTIMIZER_IMPLS,
    "lora_targets": LORA_TARGETS, "attention": ("sdpa", "eager"),
}
_COUNT = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBtT]?)\s*")
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def count(value: str | None, option: str) -> float | None:
    """'7B', '124M', '1.5e9', '350k' -> a finite number within the option's bounds."""
    if value is None:
        return None
    m = _COUNT.fullmatch(value) if len(value) <= 64 else None
    if not m:
        raise OptionError(f"{option}: {value[:64]!r} is not a number (e.g. 7B, 124M, 1.5e9)")
    return number(float(m.group(1)) * _SCALE[m.group(2).lower()], option, shown=value)


def number(value: float | None, option: str, shown: str | None = None) -> float | None:
    if value is None:
        return None
    low, high, low_ok = NUMBERS[option]
    shown = shown if shown is not None else f"{value:g}"
    if not math.isfinite(value):
        raise OptionError(f"{option}: {shown} is not a finite number")
    if value < low or (value == low and not low_ok):
        raise OptionError(f"{option}: {shown} must be {'at least' if low_ok else 'more than'} {low:g}")
    if value > high:
        raise OptionError(f"{option}: {shown} is more than {high:g}")
    return value


def positive_int(value: int | None, option: str) -> int | None:
    if value is None:
        return None
    low, high = POSITIVE_INTS[option]
    if not low <= value <= high:
        raise OptionError(f"{option}: {value} must be between {low:,} and {high:,}")
    return value


def check_ints(values: Mapping[str, int | None]) -> None:
    for option, value in values.items():
        positive_int(value, option)


def check_zero(stage: int) -> None:
    if stage not in ZERO_STAGES:
        raise OptionError(f"--zero: {stage} is not a DeepSpeed ZeRO stage (0, 1, 2 or 3)")


# Hugging Face config keys gpudoctor reads as sizes: each, when present, must be a positive integer.
CONFIG_SIZES = (
    "hidden_size", "n_embd", "d_model", "dim", "num_hidden_layers", "n_layer", "num_layers", "n_layers",
    "num_attention_heads", "n_head", "num_heads", "n_heads", "num_key_value_heads", "num_kv_heads",
    "intermediate_size", "n_inner", "ffn_dim", "d_ff", "vocab_size", "max_position_embeddings", "n_positions",
    "n_ctx", "seq_length", "image_size", "patch_size",
)
CONFIG_MAX = 1 << 31


def check_config(path: str) -> dict[str, Any]:
    """Read a config.json through the bounded reader and check the sizes it
    gives; OptionError (or the reader's InputError) when it cannot be planned."""
    cfg = parse_json(read_text(path, limit=CONFIG_LIMIT, name=f"--config {path}", stdin_ok=False), f"--config {path}")
    if not isinstance(cfg, dict):
        raise OptionError(f"--config {path}: expected a JSON object (a Hugging Face config.json)")
    for where, section in (("", cfg), ("text_config.", cfg.get("text_config"))):
        if not isinstance(section, dict):
            continue
        for key in CONFIG_SIZES:
            value = section.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= CONFIG_MAX:
                raise OptionError(f"--config {path}: {where}{key} is {str(value)[:40]}; "
                                  f"expected a positive whole number up to {CONFIG_MAX:,}")
    return cfg


def check_prices_file(path: str) -> None:
    """A price table must be a readable, regular, UTF-8 file under the size
    cap, and its numbers finite and not negative (TOML allows nan and inf).
    Its schema is the price loader's to check."""
    text = read_text(path, limit=PRICES_LIMIT, name=f"--prices {path}", stdin_ok=False)
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # the loader reports the syntax error, with its position
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
        elif isinstance(item, (int, float)) and not isinstance(item, bool) and not (
                math.isfinite(item) and item >= 0):
            raise OptionError(f"--prices {path}: {where} is {item}; prices are finite and not negative")


def check_options(options: Mapping[str, Any]) -> None:
    """Every option and file checked before any arithmetic; `options` are the
    command's, by their click names."""
    model, config, factory = options["model"], options["config"], options["factory"]
    if model and config:
        raise OptionError(f"give a preset ({model}) or --config {config}, not both")
    if factory and config:
        raise OptionError("give --torch MODULE:FACTORY or --config FILE, not both")
    check_ints({option: options[_name(option)] for option in (
        "--layers", "--hidden", "--heads", "--kv-heads", "--ffn", "--vocab", "--seq", "--image-size", "--batch",
        "--grad-accum", "--lora", "--gpus", "--context")})
    check_zero(options["zero"])
    for option in ("--cuda-context-gib", "--epochs", "--timeout"):
        number(options[_name(option)], option)
    for option in ("--params", "--samples", "--tokens"):
        count(options[_name(option)], option)
    if config:
        check_config(config)
    from gpudoctor.plan.prices import user_file

    own = options["prices_file"] or user_file()
    if own:
        check_prices_file(str(own))


def _name(option: str) -> str:
    """--kv-heads -> kv_heads, the option's click name."""
    return option.lstrip("-").replace("-", "_")


# Job fields whose option has another name; the other options named like a Job
# field are passed on as they are (so a new Job option needs only its click option).
_JOB_FIELD = {"lora": "lora_rank", "compile_": "compile"}


def job_from_options(options: Mapping[str, Any], seq: int | None) -> Job:
    """The Job `options` (checked by check_options) describe; `seq` is the
    sequence length the command settled on (the option, or a default cap)."""
    names = {f.name for f in dataclasses.fields(Job)}
    fields = {_JOB_FIELD.get(k, k): v for k, v in options.items() if _JOB_FIELD.get(k, k) in names}
    samples = count(options["samples"], "--samples") if options["samples"] else None
    fields.update(seq=seq, lora_rank=options["lora"] or 0, double_quant=not options["no_double_quant"],
                  samples=int(samples) if samples is not None else None, tokens=count(options["tokens"], "--tokens"))
    return Job(**fields)
