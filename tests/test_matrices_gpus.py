"""Invariants of the GPU table (gpudoctor/matrices/gpus.toml) and the name matcher.

Per-row checks are parametrized with the row's name as id, so a failure names the row.
"""

from __future__ import annotations

import re

import pytest

from gpudoctor.matrices import load_matrices
from gpudoctor.matrices.gpu_names import all_words_in as _all_words_in
from gpudoctor.matrices.gpu_names import normalise as _norm_gpu
from gpudoctor.matrices.records import GpuModel
from gpudoctor.matrices.records.gpus import PRECISIONS
from gpudoctor.smoke.rates import achievable, board_class
from gpudoctor.versions import compute_capability

M = load_matrices(overlay=None)  # shipped data only: a user overlay must not change the verdict
GPUS = M.gpus
PRECISION = {p.compute_capability: p for p in M.table("gpus", "precision")}
SEGMENTS = ("data-center", "workstation", "consumer", "laptop", "embedded")
EXPECTED_CCS = ("3.5", "3.7", "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7",
                "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1")
RATES = ("fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops", "fp4_tflops")

per_gpu = pytest.mark.parametrize("g", GPUS, ids=[g.name for g in GPUS])


def _natural(name: str) -> list[int | str]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name.casefold())]


def _sort_key(g: GpuModel) -> tuple:
    cc = compute_capability(g.compute_capability)
    return (SEGMENTS.index(g.segment), cc, _natural(g.name))


# --- the table as a whole ---------------------------------------------------------------


def test_table_covers_at_least_70_models() -> None:
    assert len(GPUS) >= 70


def test_rows_sorted_by_segment_compute_capability_then_name() -> None:
    keys = [_sort_key(g) for g in GPUS]
    bad = [(a.name, b.name) for a, b, ka, kb in zip(GPUS, GPUS[1:], keys, keys[1:]) if ka >= kb]
    assert not bad, f"out of order (or duplicate) after: {bad}"


def test_names_unique_even_after_normalising() -> None:
    seen: dict[str, str] = {}
    for g in GPUS:
        key = _norm_gpu(g.name)
        assert key not in seen, f"{g.name!r} and {seen[key]!r} normalise to the same key"
        seen[key] = g.name


def test_an_nvml_name_is_shared_only_by_memory_variants() -> None:
    by_name: dict[str, list[GpuModel]] = {}
    for g in GPUS:
        for n in g.nvml_names:
            by_name.setdefault(n.casefold(), []).append(g)
    for n, rows in by_name.items():
        if len(rows) > 1:
            assert len({(r.compute_capability, r.arch) for r in rows}) == 1, n
            # ... and each row's own name must contain the shared device name ("rtx 4060 ti" in "... Ti 8GB").
            assert all(_all_words_in(_norm_gpu(n).split(), _norm_gpu(r.name).split()) for r in rows), n
            assert len({r.memory_gb for r in rows}) == len(rows), f"{n}: rows differ in nothing the matcher can use"


def test_precision_rows_one_per_compute_capability_sorted() -> None:
    ccs = [p.compute_capability for p in M.table("gpus", "precision")]
    assert tuple(ccs) == EXPECTED_CCS


@pytest.mark.parametrize("p", M.table("gpus", "precision"), ids=lambda p: p.compute_capability)
def test_precision_features_nest(p) -> None:
    # Each generation adds to the last: fp4 => fp8 => bf16 => tf32 => fp16 tensor cores => fast fp16.
    chain = (p.fp16, p.fp16_tensor_cores, p.tf32, p.bf16, p.fp8, p.fp4)
    assert list(chain) == sorted(chain, reverse=True), chain
    assert p.source.strip()


@pytest.mark.parametrize("cc, fast", [("3.5", False), ("5.2", False), ("5.3", True), ("6.0", True), ("6.1", False),
                                      ("6.2", True), ("7.0", True), ("8.9", True)])
def test_fast_fp16_follows_the_programming_guides_throughput_table(cc, fast) -> None:
    # FP16 results per clock per SM: none on 3.x/5.0/5.2, 256 on 5.3, 128 on 6.0, 2 on 6.1 (FP32: 128).
    assert M.precision(cc).fp16 is fast


@pytest.mark.parametrize("q", M.table("gpus", "precision_quirk"), ids=lambda q: q.pattern)
def test_a_precision_quirk_names_its_examples_and_a_precision_its_row_has(q) -> None:
    assert q.precision in PRECISIONS and getattr(M.precision(q.compute_capability), q.precision)
    for name in q.examples:
        assert M.precision_quirks(name, q.compute_capability) == [q], name


@pytest.mark.parametrize("name", ["NVIDIA GeForce RTX 2080 Ti", "Tesla T4", "GeForce GTX 1080", "NVIDIA GeForce GTX 1070"])
def test_boards_of_the_same_capability_have_no_quirk(name) -> None:
    assert M.precision_quirks(name, "7.5") == [] and M.precision_quirks(name, "6.1") == []


def test_unlisted_minor_inherits_its_major() -> None:
    # Jetson Thor reported 10.1 before CUDA 13 renamed it 11.0.
    assert M.precision("10.1").compute_capability == "10.0"
    assert M.precision("sm_120").fp4 and not M.precision("8.9").fp4


# --- one row at a time ---------------------------------------------------------------------


def _left_out_with_reason(g: GpuModel, what: str) -> bool:
    # A figure no source publishes stays out of the row, and the note must say so.
    note = g.note.lower()
    return what in note and ("not published" in note or "not recorded" in note or "left out" in note)


@per_gpu
def test_row_basics(g: GpuModel) -> None:
    assert g.source.strip() and g.arch.strip()
    assert g.segment in SEGMENTS
    assert g.nvml_names, "every model needs the device name NVML reports"
    assert g.memory_gb > 0
    assert (g.memory_bandwidth_gbs or 0) > 0 or _left_out_with_reason(g, "bandwidth")
    assert (g.tdp_w or 0) > 0 or _left_out_with_reason(g, "tdp")
    assert g.release_year and 2012 <= g.release_year <= 2026  # Kepler K40: 2013
    assert (g.fp32_tflops or 0) > 0 or _left_out_with_reason(g, "fp32")


@per_gpu
def test_compute_capability_parses_and_has_a_precision_row(g: GpuModel) -> None:
    assert compute_capability(g.compute_capability) is not None
    assert g.compute_capability in PRECISION


@per_gpu
def test_rates_allowed_by_the_precision_row(g: GpuModel) -> None:
    p = PRECISION[g.compute_capability]
    for field, supported in (("bf16_tflops", p.bf16), ("tf32_tflops", p.tf32), ("fp8_tflops", p.fp8),
                             ("fp4_tflops", p.fp4), ("fp16_tflops", p.fp16_tensor_cores)):
        if getattr(g, field) is not None:
            assert supported or field == "fp16_tflops", f"{field} on a compute capability without it"
        elif supported:
            assert _left_out_with_reason(g, field.split("_")[0]), f"{field} missing and the note does not say why"


@per_gpu
def test_rates_ordered(g: GpuModel) -> None:
    for field in RATES:
        value = getattr(g, field)
        assert value is None or value > 0, field
    ladder = [v for v in (g.fp32_tflops, g.fp16_tflops, g.fp8_tflops, g.fp4_tflops) if v is not None]
    assert ladder == sorted(ladder), "each narrower type must be at least as fast as the wider one"
    if g.tf32_tflops is not None:
        assert (g.fp32_tflops or 0) <= g.tf32_tflops <= g.fp16_tflops
    if g.bf16_tflops is not None:
        assert g.bf16_tflops == g.fp16_tflops, "tensor cores run BF16 and FP16 at one rate"


consumer_ampere_up = [g for g in GPUS if g.segment == "consumer" and compute_capability(g.compute_capability) >= (8, 0)]


@pytest.mark.parametrize("g", consumer_ampere_up, ids=[g.name for g in consumer_ampere_up])
def test_geforce_uses_fp32_accumulate_rate(g: GpuModel) -> None:
    # GeForce Ampere/Ada/Blackwell: FP16 tensor with FP32 accumulate = 2x FP32 and TF32 = FP32.
    # A ratio near 4 means someone entered the FP16-accumulate (or a sparse) figure.
    if g.fp16_tflops is None:  # RTX 5090 D: NVIDIA publishes only its capped AI TOPS
        assert _left_out_with_reason(g, "fp16") and _left_out_with_reason(g, "tf32")
        return
    assert 1.9 <= g.fp16_tflops / g.fp32_tflops <= 2.1
    assert g.tf32_tflops == pytest.approx(g.fp32_tflops, rel=0.02)


@pytest.mark.parametrize(
    ("name", "field", "dense"),
    [
        # Whitepaper/datasheet anchors for the two traps: sparse-vs-dense and FP16- vs FP32-accumulate.
        ("H100 SXM 80GB", "bf16_tflops", 989.5),  # datasheet prints 1,979* (sparse)
        ("A100 SXM4 80GB", "tf32_tflops", 156),  # 312* sparse
        ("L4", "fp16_tflops", 121),  # 242* sparse
        ("GeForce RTX 4090", "fp16_tflops", 165.2),  # 330.3 is FP16-accumulate
        ("GeForce RTX 3090", "fp16_tflops", 71.2),  # 142 is FP16-accumulate
        ("GeForce RTX 5090", "bf16_tflops", 209.5),  # 419 is sparse
        ("RTX A6000", "bf16_tflops", 154.8),  # workstation: not halved
        ("RTX PRO 6000 Blackwell", "bf16_tflops", 503.8),
    ],
)
def test_anchor_figures(name: str, field: str, dense: float) -> None:
    assert getattr(M.gpu(name), field) == pytest.approx(dense, rel=0.005)


# --- matching device and user names -------------------------------------------------------------


@per_gpu
def test_every_nvml_name_resolves_to_its_own_row(g: GpuModel) -> None:
    for n in g.nvml_names:
        assert M.gpu(n, memory_gb=g.memory_gb) is g, n
        assert g in M.gpu_candidates(n), n
        assert M.gpu(n.upper().replace("NVIDIA ", ""), memory_gb=g.memory_gb) is g, "case and vendor prefix ignored"


@per_gpu
def test_every_canonical_name_resolves_to_its_row(g: GpuModel) -> None:
    assert M.gpu(g.name) is g


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("4090", {"GeForce RTX 4090"}),
        ("rtx 4090", {"GeForce RTX 4090"}),
        ("RTX4090", {"GeForce RTX 4090"}),
        ("GeForce GTX 1080 Ti", {"GeForce GTX 1080 Ti"}),
        ("a100 80gb", {"A100 PCIe 80GB", "A100 SXM4 80GB"}),
        ("A100 80 GB", {"A100 PCIe 80GB", "A100 SXM4 80GB"}),
        ("h100 sxm", {"H100 SXM 80GB"}),
        ("T4", {"T4"}),
        ("jetson orin", {"Jetson AGX Orin 64GB", "Jetson AGX Orin 32GB", "Jetson Orin NX 16GB", "Jetson Orin Nano 8GB",
                         "Jetson Orin Nano 4GB"}),
        ("3060", {"GeForce RTX 3060"}),
        ("h20", {"H20"}),
        ("a10", {"A10"}),
        ("NVIDIA A100-SXM4-80GB MIG 3g.40gb", {"A100 SXM4 80GB"}),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", {"RTX PRO 6000 Blackwell Server"}),
        ("GeForce RTX 2080 Ti", {"GeForce RTX 2080 Ti"}),
    ],
)
def test_user_spellings(spelling: str, expected: set[str]) -> None:
    best = M.gpu(spelling)
    assert best is not None and best.name in expected
    assert expected <= {g.name for g in M.gpu_candidates(spelling, limit=10)}


@pytest.mark.parametrize(("spelling", "family"), [("a100", "A100"), ("h100", "H100"), ("4060 ti", "4060 Ti"), ("h200", "H200")])
def test_ambiguous_names_give_several_candidates(spelling: str, family: str) -> None:
    hits = M.gpu_candidates(spelling)
    assert len(hits) >= 2
    assert all(family in g.name for g in hits), [g.name for g in hits]


@pytest.mark.parametrize(
    ("device", "memory_gb", "expected"),
    [
        ("NVIDIA GeForce RTX 4060 Ti", 16, "GeForce RTX 4060 Ti 16GB"),
        ("NVIDIA GeForce RTX 4060 Ti", 7.6, "GeForce RTX 4060 Ti 8GB"),
        ("NVIDIA GeForce RTX 3080", 11.8, "GeForce RTX 3080 12GB"),
        ("Orin", 15.3, "Jetson Orin NX 16GB"),
        ("Orin", 61.4, "Jetson AGX Orin 64GB"),
    ],
)
def test_memory_separates_models_with_one_device_name(device: str, memory_gb: float, expected: str) -> None:
    assert M.gpu(device, memory_gb=memory_gb).name == expected


def test_close_spelling_is_a_suggestion_not_an_answer() -> None:
    assert M.gpu("rtx 4900") is None
    assert "GeForce RTX 4090" in {g.name for g in M.gpu_candidates("rtx 4900")}
    assert M.gpu("Tesla P40").name == "P40"  # now a row of its own; it never became the L40
    assert M.gpu("Tesla P41") is None and M.gpu("MI300X") is None
    # "Quadro P1000" has a row now, and it is that row, never the RTX 8000; the mobile-only Quadro P3000 is a
    # laptop row, and the mobile Quadro P5200, with none, is not the desktop P5000.
    assert M.gpu("Quadro P1000").name == "Quadro P1000" and M.gpu("Quadro P3000").segment == "laptop"
    assert M.gpu("Quadro P5200") is None
    # A Ti, SUPER or D card is another model: an RTX 3070 SUPER (no such card) is not the 3070,
    # and "RTX 3050 Ti" (a laptop part only) is the laptop row, never the desktop 3050.
    assert M.gpu("GeForce RTX 3070 SUPER") is None and M.gpu("GeForce RTX 2060 Ti") is None
    assert M.gpu("GeForce RTX 3050 Ti").name == "GeForce RTX 3050 Ti Laptop GPU"


@pytest.mark.parametrize("name, row", [
    ("Tesla P40", "P40"), ("Tesla P4", "P4"), ("Tesla K40m", "K40"), ("Tesla M60", "M60 (per GPU)"),
    ("NVIDIA A800 80GB PCIe", "A800 PCIe 80GB"), ("NVIDIA H800", "H800 SXM 80GB"), ("NVIDIA L20", "L20"),
    ("NVIDIA GeForce RTX 4090 D", "GeForce RTX 4090 D"), ("NVIDIA GeForce RTX 5050", "GeForce RTX 5050"),
    ("B100", "B100"),
])
def test_china_skus_and_old_tesla_cards_have_rows(name, row) -> None:
    assert M.gpu(name).name == row
    # ... and the neighbours they used to be mistaken for are never the answer.
    assert M.gpu(name).name not in {"L40", "A40", "H200 SXM 141GB", "GeForce RTX 4090"}


def test_laptop_part_is_not_its_desktop_namesake() -> None:
    # A laptop GPU with a row gets its own row, never the desktop card of the same number ...
    assert M.gpu("NVIDIA GeForce RTX 4090 Laptop GPU").name == "GeForce RTX 4090 Laptop GPU"
    assert M.gpu("rtx 4060 laptop").segment == "laptop" and M.gpu("RTX 4060").segment == "consumer"
    assert M.gpu("NVIDIA GeForce RTX 4090").name == "GeForce RTX 4090"
    # ... and one without a row stays unknown: the desktop namesake is only a suggestion.
    assert M.gpu("NVIDIA RTX A5500 Laptop GPU") is None
    assert M.gpu_candidates("NVIDIA RTX A5500 Laptop GPU")[0].name == "RTX A5500"


@pytest.mark.parametrize("name, row", [
    ("NVIDIA GeForce RTX 4060 Laptop GPU", "GeForce RTX 4060 Laptop GPU"),
    ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "GeForce RTX 3050 Ti Laptop GPU"),
    ("NVIDIA GeForce RTX 3070 Laptop GPU", "GeForce RTX 3070 Laptop GPU"),  # not the 3070 Ti Laptop GPU
    ("NVIDIA GeForce RTX 5070 Laptop GPU", "GeForce RTX 5070 Laptop GPU"),
    ("NVIDIA GeForce RTX 2080 SUPER", "GeForce RTX 2080 SUPER"), ("2070S", "GeForce RTX 2070 SUPER"),
    ("NVIDIA L2", "L2"),
])
def test_laptop_super_and_l2_rows(name, row) -> None:
    assert M.gpu(name).name == row
    assert M.gpu("NVIDIA GeForce RTX 2080").name == "GeForce RTX 2080"  # the SUPER never swallows the plain card


@pytest.mark.parametrize("g", [g for g in GPUS if g.segment == "laptop"], ids=lambda g: g.name)
def test_laptop_rows_say_which_configuration(g: GpuModel) -> None:
    # A laptop's clock is its maker's power limit: the note must say which clock and power the figures are for.
    assert re.search(r"\d{3,4} MHz", g.note) and re.search(r"\d+ W", g.note), g.note
    assert M.gpu_family(g.name).compute_capability == g.compute_capability
    # ... so smoke gives no rate verdict for one, even at 75 W or less.
    assert board_class(g) == "laptop" and achievable(M, g, "gemm_bf16", "fp32") is None


def test_quadro_and_ada_rtx_6000_are_told_apart() -> None:
    assert M.gpu("Quadro RTX 6000").compute_capability == "7.5"
    assert M.gpu("NVIDIA RTX 6000 Ada Generation").compute_capability == "8.9"
    assert {"Quadro RTX 6000", "RTX 6000 Ada"} <= {g.name for g in M.gpu_candidates("rtx 6000")}


@pytest.mark.parametrize(("name", "row", "cc"), [
    ("Quadro 4000", None, "2.0"), ("NVIDIA Quadro 6000", None, "2.0"), ("Quadro RTX 4000", "Quadro RTX 4000", "7.5"),
    ("quadro rtx6000", "Quadro RTX 6000", "7.5")])
def test_a_fermi_quadro_never_becomes_the_quadro_rtx_of_its_number(name: str, row: str | None, cc: str) -> None:
    # NVIDIA reused the numbers: Quadro 4000/5000/6000 (GF100, 2.0) and Quadro RTX 4000/5000/6000 (Turing).
    found = M.gpu(name)
    assert (found.name if found else None) == row
    assert (found.compute_capability if found else M.gpu_family(name).compute_capability) == cc


@pytest.mark.parametrize("name", ["", "   ", "---"])
def test_empty_names_match_nothing(name: str) -> None:
    assert M.gpu(name) is None and M.gpu_candidates(name) == []


# --- families: the compute capability of names without a row ------------------------------
