"""Formula mode against published measured peaks (tests/fixtures/plan_ground_truth.toml).

Every row names its source and what the source measured; the estimate is compared
with the same quantity (see the fixture's header). Rows not claimed are skipped
with the reason the fixture gives; bench/plan_accuracy.py prints them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.plan import accuracy, models
from gpudoctor.plan.job import Job

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "plan_ground_truth.toml"
ROWS = accuracy.load_rows(FIXTURE)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_formula_reproduces_measured_peak(row):
    if not row.asserted:
        pytest.skip(f"shown, not claimed: {row.note}")
    c = accuracy.compare(row)
    if row.metric in ("fits", "oom"):
        assert c.ok, f"{row.id}: estimate is {c.of_capacity:.0%} of the {row.gpu_gib} GiB the run {row.metric}"
    else:
        assert c.ok, f"{row.id}: estimate {c.estimate_bytes / 2**30:.2f} GiB vs measured " \
                     f"{c.measured_bytes / 2**30:.2f} GiB ({c.error:+.1%})"


def test_rows_are_sourced_and_well_formed():
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids))
    for r in ROWS:
        assert r.source.strip()
        assert r.metric in ("nvidia-smi", "torch-allocated", "fits", "oom")
        if r.metric in ("fits", "oom"):
            assert r.gpu_gib
        else:
            assert r.measured and r.unit in accuracy.UNITS
        if not r.asserted:
            assert r.note, "a row that is not claimed says why"
        models.find_preset(r.model)
        Job(**r.job).check()


def test_the_claim_covers_the_nine_bert_rows_and_llama_runs():
    claimed = {r.id for r in ROWS if r.asserted}
    assert {"M1", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11"} <= claimed
    assert {"M18-LoRA", "M18-QLoRA", "M22-packed"} <= claimed
    # torchtune's memory savers one at a time, and the QLoRA runs
    assert {"M22-compile", "M22-chunked", "M22-AC", "M22-optbwd", "M22-offload", "M22-LoRA", "M22-QLoRA",
            "M20-full", "M21-LoRA", "M21-QLoRA"} <= claimed


def test_nvidia_smi_rows_include_the_measured_context():
    row = next(r for r in ROWS if r.id == "M1")
    job = accuracy.job_for(row)
    assert job.cuda_context_gib == pytest.approx(1343 / 1024)
    torch_row = next(r for r in ROWS if r.metric == "torch-allocated")
    assert accuracy.job_for(torch_row).cuda_context_gib == 0


def test_accelerate_counts_weights_and_optimizer_only():
    spec = models.find_preset("bert-large")
    # AutoModel (BertModel with pooler, no classifier): 335,141,888 parameters
    assert accuracy.accelerate_estimate(spec, Job(precision="fp32")) == 335_141_888 * 16
    assert accuracy.accelerate_estimate(spec, Job(precision="amp-fp16")) == 335_141_888 * 8
    llama = models.find_preset("llama2-7b")
    assert accuracy.accelerate_estimate(llama, Job(precision="bf16")) == (6_738_415_616 - 32000 * 4096) * 8
    assert accuracy.accelerate_estimate(llama, Job(qlora=True, lora_rank=8)) is None
