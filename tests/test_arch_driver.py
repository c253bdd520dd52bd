"""GD108 and the install engine share one fact: an architecture's driver range
(matrices/cuda.toml [[arch_driver]]). A driver older than the first toolkit of an
architecture, or past its last branch, runs no build on that GPU."""

import pytest

from gpudoctor.compat import arch_driver_verdict
from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.matrices import load_matrices
from gpudoctor.versions import compute_capability, driver_at_least

M = load_matrices(overlay=None)

# nvidia-smi's banner as printed (layout of a 560.35.03 banner; GPU line of an RTX 5090).
SMI_5090_ON_560 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0 Off |                  N/A |
|  0%   34C    P8             20W /  575W |       1MiB /  32607MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""


@pytest.mark.parametrize("cc, driver, os_name, ok", [
    ("12.0", "560.35.03", "linux", False),
    ("12.0", "570.26", "linux", True),
    ("12.0", "570.65", "windows", True),
    ("10.0", "565.57.01", "linux", False),
    ("10.3", "575.57.08", "linux", False),
    ("10.3", "580.95.05", "linux", True),
    ("8.9", "515.105.01", "linux", False),
    ("8.9", "520.61.05", "linux", True),
    ("6.1", "580.95.05", "linux", True),
    ("6.1", "590.48.01", "linux", False),
    ("6.1", "581.57", "windows", True),  # Windows R580 is numbered 580-584
    ("6.1", "582.28", "linux", True),  # a paste that does not say its OS (judged as Linux): still R580
    ("3.7", "470.256.02", "linux", True),
    ("3.7", "535.247.01", "linux", False),
])
def test_verdicts(cc, driver, os_name, ok):
    v = arch_driver_verdict(compute_capability(cc), driver, os_name, M)
    assert v is not None and v.ok is ok, v
    assert v.source.startswith("https://")


def test_jetson_and_unknown_drivers_are_not_judged():
    assert arch_driver_verdict(compute_capability("8.7"), "540.4.0", "linux", M) is None
    assert arch_driver_verdict(compute_capability("12.0"), None, "linux", M) is None
    assert arch_driver_verdict(compute_capability("12.0"), "junk", "linux", M) is None


def test_every_floor_is_the_driver_of_its_first_toolkit():
    for row in M.table("cuda", "arch_driver"):
        if row.min_driver_linux and M.toolkit_min_driver(row.first_cuda):  # the toolkit table starts at 10.0
            assert M.toolkit_min_driver(row.first_cuda) == row.min_driver_linux, row


def test_a_pasted_banner_is_judged_by_the_same_rule():
    report = diagnose_report(read_paste(SMI_5090_ON_560, matrices=M), M)
    hits = [f for f in report.findings if f.code == "GD108"]
    assert hits, [f.code for f in report.findings]
    assert "570.26" in hits[0].fix.text


def test_a_driver_given_only_by_its_branch_is_not_judged_against_a_floor_inside_that_branch():
    # "Nvidia-driver-410" is some 410.xx: Turing's floor 410.48 may or may not be met
    assert driver_at_least("410", "410.48") is None
    assert driver_at_least("410", "418.39") is False and driver_at_least("450", "418.39") is True
    report = diagnose_report(read_paste("Nvidia-driver-410\nGeForce RTX 2080\n", matrices=M), M)
    assert not [f for f in report.findings if f.code == "GD108"]
