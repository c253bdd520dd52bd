"""Formula mode against published measurements (tests/fixtures/plan_ground_truth.toml),
and what `accelerate estimate-memory` would print for the same runs."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import Any
from pathlib import Path

from gpudoctor.plan import models
from gpudoctor.plan.job import GIB, Job
from gpudoctor.plan.memory import estimate
from gpudoctor.serde import from_data

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

UNITS = {"MiB": float(1 << 20), "GiB": GIB, "GB": 1e9}
TOLERANCE = 0.15


@dataclass(frozen=True)
class TruthRow:
    """One published measurement of a run (plan_ground_truth.toml) the formula mode is held to."""

    id: str
    model: str
    what: str
    gpu: str
    metric: str  # "nvidia-smi" | "torch-allocated" | "fits" | "oom"
    source: str
    job: dict[str, Any]
    asserted: bool = True
    measured: float | None = None
    unit: str = "GiB"
    context_mib: float = 0.0
    gpu_gib: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Comparison:
    """The formula's estimate for one measured run, beside the measurement and accelerate's figure."""

    row: TruthRow
    estimate_bytes: float
    measured_bytes: float | None
    accelerate_bytes: float | None

    @property
    def error(self) -> float | None:
        if self.measured_bytes is None:
            return None
        return self.estimate_bytes / self.measured_bytes - 1

    @property
    def of_capacity(self) -> float | None:
        """Estimate as a fraction of the GPU's memory (capacity-bound rows)."""
        return self.estimate_bytes / (self.row.gpu_gib * GIB) if self.row.gpu_gib else None

    @property
    def ok(self) -> bool:
        """Within the tolerance: of the measurement, or on the right side of a capacity bound
        (an estimate may exceed a card a run fitted on by at most the tolerance, and the reverse)."""
        if self.row.metric == "fits":
            return self.of_capacity <= 1 + TOLERANCE
        if self.row.metric == "oom":
            return self.of_capacity >= 1 - TOLERANCE
        return abs(self.error) <= TOLERANCE


def load_rows(path: str | Path) -> list[TruthRow]:
    doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    return [from_data(TruthRow, row, f"row[{i}]") for i, row in enumerate(doc.get("row", []))]


def job_for(row: TruthRow) -> Job:
    job = Job(**row.job)
    if row.metric in ("nvidia-smi", "fits", "oom"):
        context = row.context_mib / 1024 if row.context_mib else job.cuda_context_gib
        return replace(job, cuda_context_gib=context)
    return replace(job, cuda_context_gib=0.0, allocator_slack=0.0)


def accelerate_estimate(spec: models.ModelSpec, job: Job) -> float | None:
    """`accelerate estimate-memory`'s "Training using Adam" figure for this model.

    It loads the base model (AutoModel: no LM head unless tied, no classifier) in fp32,
    and prints max(model, gradients, optimizer, step) per dtype row: 16 B/param for
    float32, 8 B/param for float16 (used for every 16-bit run), "N/A" for int4 (QLoRA).
    Source: huggingface/accelerate src/accelerate/commands/estimate.py, estimate_training_usage.
    """
    if job.qlora:
        return None
    base = spec.params
    if spec.family == "encoder" and spec.head == "cls":
        base -= 2 * spec.hidden + 2  # the 2-label classifier is not in AutoModel
    elif spec.head == "lm" and not spec.tied_embeddings:
        base -= spec.vocab * spec.hidden  # AutoModel has no untied lm_head
    per_param = 16 if job.precision == "fp32" else 8
    return float(base) * per_param


def compare(row: TruthRow) -> Comparison:
    spec = models.find_preset(row.model)
    job = job_for(row)
    mem = estimate(spec, job)
    value = mem.allocated if row.metric == "torch-allocated" else mem.peak
    measured = row.measured * UNITS[row.unit] if row.measured is not None else None
    return Comparison(row, value, measured, accelerate_estimate(spec, job))


# Formula mode vs exact mode on the presets (tests/test_plan_exact.py asserts +-10 %,
# bench/plan_exact_check.py prints the figures). Fused attention everywhere except
# where the eager path is the point; AMP eager with long sequences is left out on
# purpose: a CPU build of torch simulates autocast with the CPU policy (softmax in
# 16-bit), which keeps less than CUDA does.
EXACT_CASES = {
    "gpt2 fp32 4 x 512": ("gpt2", Job(batch=4, seq=512, precision="fp32")),
    "gpt2 amp 4 x 512": ("gpt2", Job(batch=4, seq=512, precision="amp-bf16")),
    "bert-base fp32 eager 4 x 256": ("bert-base", Job(batch=4, seq=256, precision="fp32", attention="eager")),
    "bert-large fp32 eager 4 x 512": ("bert-large", Job(batch=4, seq=512, precision="fp32", attention="eager")),
    "llama-3.2-1b bf16 2 x 1024": ("llama-3.2-1b", Job(batch=2, seq=1024, precision="bf16")),
    "llama-3.2-1b bf16 checkpointed 8 x 1024": ("llama-3.2-1b", Job(batch=8, seq=1024, precision="bf16",
                                                                    grad_checkpointing=True)),
    "vit-b16 amp 32": ("vit-b16", Job(batch=32, precision="amp-bf16")),
    "resnet50 fp32 8": ("resnet50", Job(batch=8, precision="fp32", optimizer="sgd")),
}
