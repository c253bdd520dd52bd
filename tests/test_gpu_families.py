"""GPU names as people type them: the rows they resolve to, the families (gpus.toml
[[family]]) that give the compute capability of a GPU without a row, and the names sold
as boards of several (gpus.toml [[shared_name]])."""

from __future__ import annotations

import pytest

from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)  # shipped data only: a user overlay must not change the verdict
GPUS = M.gpus
FAMILIES = load_matrices(overlay=None).table("gpus", "family")


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.pattern)
def test_each_family_example_matches_that_family_alone(fam) -> None:
    m = load_matrices(overlay=None)
    for name in fam.examples:
        assert m.gpu_family(name) == fam, (name, [f.pattern for f in FAMILIES if f is not fam and m.gpu_family(name)])


def test_rows_and_families_agree_on_compute_capability() -> None:
    m = load_matrices(overlay=None)
    for g in GPUS:
        for name in (g.name, *g.nvml_names):
            fam = m.gpu_family(name)
            if fam is not None:
                assert fam.compute_capability == g.compute_capability, (name, fam.pattern)


@pytest.mark.parametrize("name,cc", [
    ("rtx3080ti", "8.6"), ("3080ti", "8.6"), ("a100-80g", "8.0"), ("GTX1080Ti", "6.1"), ("2080S", "7.5"),
    ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"), ("Quadro P1000", "6.1"), ("Tesla P40", "6.1"),
    ("RTX 4090 D", "8.9"), ("GeForce GTX 980M", "5.2"), ("GeForce GTX 960M", "5.0"), ("Jetson AGX Orin", "8.7"),
    # the mobile Kepler GK104/GK106, not the desktop card of the same number (GTX 780: 3.5)
    ("GeForce GTX 780M", "3.0"), ("GTX 680MX", "3.0"),
    # legacy boards as people type them (NVIDIA's legacy CUDA GPU list)
    ("GeForce 9500GT", "1.1"), ("NVIDIA Quadro FX 1800M", "1.2"), ("quadro 600", "2.1"),
    ("NVIDIA GTX650Ti", "3.0"),
    # notebook parts, not the desktop board of the same number (TechPowerUp's CUDA field per board)
    ("GeForce GT 750M", "3.0"), ("GeForce GTX 675M", "2.1"), ("GeForce GT 625M", "2.1"), ("GeForce 710M", "2.1"),
    ("GeForce GTX 580M", "2.1"), ("GeForce 920M", "3.5"), ("GeForce 920MX", "5.0"), ("GeForce 840M", "5.0"),
    ("NVS 310", "2.1"), ("NVS 510", "3.0"), ("Tesla C2050", "2.0"), ("GRID K520", "3.0"),
    ("GeForce 8400 GS", "1.1"), ("GeForce 8800 GTX", "1.0"), ("Quadro FX 2800M", "1.1"), ("GeForce 9600M GT", "1.1"),
])
def test_informal_names_get_their_family(name, cc) -> None:
    fam = load_matrices(overlay=None).gpu_family(name)
    assert fam is not None and fam.compute_capability == cc, (name, fam)


@pytest.mark.parametrize("name", ["MI300X", "AMD Instinct MI250X", "Arc A770", "Radeon RX 7900 XTX", "RTX 6000",
                                  "Apple M2 Max", "Intel UHD Graphics 630", "port 3080",
                                  # one name for boards of two architectures, or sources that disagree
                                  "GeForce GT 740M", "GeForce GT 730M", "GeForce 820M", "GeForce 810M",
                                  "GeForce GT 720M",
                                  "GeForce 9600 M"])  # a number with no board of that name
def test_names_of_other_vendors_or_ambiguous_ones_stay_unknown(name) -> None:
    m = load_matrices(overlay=None)
    assert m.gpu_family(name) is None
    assert m.gpu(name) is None


@pytest.mark.parametrize("name, row", [
    ("GTX 1660 SUPER", "GeForce GTX 1660 SUPER"), ("NVIDIA GeForce GTX 1660", "GeForce GTX 1660"),
    ("GeForce GTX 1650 SUPER", "GeForce GTX 1650 SUPER"), ("NVIDIA GeForce GTX 1630", "GeForce GTX 1630"),
    ("NVIDIA GeForce GTX 1070 Ti", "GeForce GTX 1070 Ti"), ("NVIDIA GeForce GTX 1060 3GB", "GeForce GTX 1060 3GB"),
    ("NVIDIA TITAN X (Pascal)", "TITAN X (Pascal)"), ("NVIDIA GeForce GTX TITAN X", "GeForce GTX TITAN X"),
    ("GeForce GTX TITAN Z", "GeForce GTX TITAN Z (per GPU)"), ("GeForce GTX 780 Ti", "GeForce GTX 780 Ti"),
    ("Quadro P6000", "Quadro P6000"), ("Quadro RTX 4000", "Quadro RTX 4000"), ("Quadro GV100", "Quadro GV100"),
    ("Tesla K20Xm", "K20X"), ("Tesla K20c", "K20"), ("Tesla M4", "M4"), ("Tesla M10", "M10 (per GPU)"), ("Tesla P6", "P6"),
    ("NVIDIA RTX A400", "RTX A400"), ("NVIDIA RTX PRO 4000 Blackwell SFF Edition", "RTX PRO 4000 Blackwell SFF"),
    ("NVIDIA GeForce RTX 5090 D", "GeForce RTX 5090 D"), ("NVIDIA GeForce RTX 5090 D v2", "GeForce RTX 5090 D v2"),
    ("NVIDIA GeForce RTX 3080 Laptop GPU", "GeForce RTX 3080 Laptop GPU"),
    ("NVIDIA GeForce RTX 2050", "GeForce RTX 2050 Laptop GPU"),
])
def test_older_and_professional_gpus_have_rows(name, row) -> None:
    assert M.gpu(name).name == row


def test_neighbours_of_the_new_rows_stay_apart() -> None:
    # Each name is its own model: a numbered neighbour, a variant word or a shorter Tesla name is never the answer.
    assert M.gpu("NVIDIA RTX PRO 4000 Blackwell").name == "RTX PRO 4000 Blackwell"
    assert M.gpu("NVIDIA GeForce RTX 5090").name == "GeForce RTX 5090"
    assert M.gpu("Tesla P4").name == "P4" and M.gpu("Tesla M40").name == "M40" and M.gpu("Tesla M60").name == "M60 (per GPU)"
    assert M.gpu("Quadro RTX 6000").name == "Quadro RTX 6000" and M.gpu("NVIDIA GeForce GTX 1080").name == "GeForce GTX 1080"
    # "TITAN X" is the Maxwell GTX TITAN X (5.2) or the TITAN X (Pascal) (6.1): it names neither.
    assert M.gpu("TITAN X") is None
    assert {"GeForce GTX TITAN X", "TITAN X (Pascal)"} <= {g.name for g in M.gpu_matches("TITAN X")}
    # The RTX 2050 is an Ampere laptop part (8.6), not a Turing RTX 20 card; the RTX 3050 A Laptop GPU an Ada one (8.9),
    # so it never takes the Ampere RTX 3050 Laptop GPU's row.
    assert M.gpu_family("NVIDIA GeForce RTX 2050").compute_capability == "8.6"
    assert M.gpu_family("NVIDIA GeForce RTX 3050 A Laptop GPU").compute_capability == "8.9"
    assert M.gpu("NVIDIA GeForce RTX 3050 A Laptop GPU") is None
    # One device name, two memory sizes: the RTX 3050 6 GB and 8 GB.
    assert M.gpu("NVIDIA GeForce RTX 3050", memory_gb=5.8).name == "GeForce RTX 3050 6GB"
    assert M.gpu("NVIDIA GeForce RTX 3050", memory_gb=7.8).name == "GeForce RTX 3050"


@pytest.mark.parametrize("name, row", [
    ("NVIDIA GeForce MX110", "GeForce MX110"), ("NVIDIA GeForce MX550", "GeForce MX550"),
    ("NVIDIA GeForce MX570", "GeForce MX570"), ("NVIDIA GeForce MX570 A", "GeForce MX570 A"),
    ("NVIDIA GeForce GTX 960M", "GeForce GTX 960M"), ("Quadro M2000M", "Quadro M2000M"),
    ("NVIDIA GeForce GTX 1070 with Max-Q Design", "GeForce GTX 1070 with Max-Q Design"),
    ("Quadro P4000 with Max-Q Design", "Quadro P4000 with Max-Q Design"),
    ("NVIDIA T400 4GB", "T400 4GB"), ("NVIDIA T1000", "T1000"), ("NVIDIA T500", "T500 Laptop GPU"),
    ("NVIDIA T600 Laptop GPU", "T600 Laptop GPU"), ("Quadro RTX 3000", "Quadro RTX 3000 Laptop GPU"),
    ("NVIDIA RTX A2000 8GB Laptop GPU", "RTX A2000 8GB Laptop GPU"),
    ("NVIDIA RTX 3500 Ada Generation Laptop GPU", "RTX 3500 Ada Generation Laptop GPU"),
])
def test_long_tail_laptop_and_workstation_rows(name, row) -> None:
    assert M.gpu(name).name == row


def test_laptop_names_never_take_desktop_rows() -> None:
    # The driver names Max-Q parts apart; a Max-Q name without a row of its own is not the desktop card ...
    assert M.gpu("NVIDIA GeForce GTX 1650 with Max-Q Design") is None
    assert M.gpu("NVIDIA GeForce RTX 2080 with Max-Q Design") is None
    assert M.gpu("NVIDIA GeForce GTX 1070").name == "GeForce GTX 1070"  # the Max-Q row never swallows it
    assert M.gpu("NVIDIA GeForce GTX 1650 Ti") is None  # TU116 and TU117 parts share it: the family answers
    assert M.gpu_family("NVIDIA GeForce GTX 1650 Ti").compute_capability == "7.5"
    # ... the laptop "Quadro T1000" (GDDR5 and GDDR6 parts under one name) is not the desktop "NVIDIA T1000" ...
    assert M.gpu("Quadro T1000") is None and M.gpu_family("Quadro T1000").compute_capability == "7.5"
    # ... and names whose parts differ in memory or power stay with their family.
    for name, cc in (("NVIDIA GeForce MX450", "7.5"), ("NVIDIA GeForce MX150", "6.1"), ("MX250", "6.1"),
                     ("GTX 965M", "5.2")):
        assert M.gpu(name) is None and M.gpu_family(name).compute_capability == cc, name
    # The desktop Quadro M2000 is a GM206 (5.2), the laptop M2000M a GM107 (5.0).
    assert M.gpu_family("Quadro M2000").compute_capability == "5.2"
    assert M.gpu_family("Quadro M2000M").compute_capability == "5.0"


@pytest.mark.parametrize("name", ["GeForce GTX 670M", "GTX 675M", "Quadro 4000M", "Quadro 5000M"])
def test_fermi_notebook_parts_never_take_the_desktop_namesakes_capability(name: str) -> None:
    # The GTX 670M/675M and Quadro 4000M are Fermi notebook chips, not the Kepler GTX 670 or the GF100 Quadro 4000.
    family = M.gpu_family(name)
    assert family is None or family.compute_capability.startswith("2.")


SHARED = M.table("gpus", "shared_name")


@pytest.mark.parametrize("row", SHARED, ids=lambda r: r.pattern)
def test_a_shared_name_is_no_family_and_gives_no_compute_capability(row) -> None:
    for name in row.examples:
        assert M.gpu_shared_name(name) == row, name
        assert M.gpu_family(name) is None and M.gpu(name) is None, name
    assert list(row.compute_capabilities) == sorted(row.compute_capabilities, key=float) and len(row.compute_capabilities) > 1
