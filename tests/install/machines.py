"""The machine table: driver × GPUs × Python × OS × request, each row with
the build gpudoctor must choose and why. Used by test_machines.py (which
asserts every row on the shipped matrices) and by bench/install_vs_uv.py.

GPUs are given as (name, compute capability) so the table does not depend on
the GPU list; names only label the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudoctor.install.target import Target, TargetGpu
from gpudoctor.versions import compute_capability

PYPI = "pypi"  # expected index: PyPI's default wheel
WHL = "whl"  # download.pytorch.org/whl/<variant>

GTX1080TI = ("GeForce GTX 1080 Ti", "6.1")
GTX1060 = ("GeForce GTX 1060", "6.1")
P100 = ("Tesla P100", "6.0")
GTX980 = ("GeForce GTX 980", "5.2")
K80 = ("Tesla K80", "3.7")
K40 = ("Tesla K40", "3.5")
V100 = ("Tesla V100", "7.0")
T4 = ("Tesla T4", "7.5")
T4G = ("T4G (Graviton g5g)", "7.5")
A100 = ("A100", "8.0")
A10 = ("A10", "8.6")
RTX3060 = ("GeForce RTX 3060", "8.6")
RTX4090 = ("GeForce RTX 4090", "8.9")
L4 = ("L4", "8.9")
H100 = ("H100", "9.0")
H200 = ("H200", "9.0")
GH200 = ("GH200", "9.0")
B200 = ("B200", "10.0")
B300 = ("B300", "10.3")
THOR = ("Jetson Thor", "11.0")
RTX5090 = ("GeForce RTX 5090", "12.0")
GB10 = ("GB10 (DGX Spark)", "12.1")
GTX1080 = ("GeForce GTX 1080", "6.1")
RTX2080S = ("GeForce RTX 2080 SUPER", "7.5")
RTX4060L = ("GeForce RTX 4060 Laptop GPU", "8.9")
RTX3050TIL = ("GeForce RTX 3050 Ti Laptop GPU", "8.6")
RTX5070L = ("GeForce RTX 5070 Laptop GPU", "12.0")


@dataclass(frozen=True)
class Machine:
    id: str
    gpus: tuple[tuple[str, str], ...]
    driver: str | None
    python: str | None
    expect: tuple[str, str, str] | None  # (version, variant, PYPI|WHL); None: nothing works
    why: str
    os: str = "linux"
    arch: str = "x86_64"
    request: str | None = None
    framework: str = "torch"
    cpu: bool = False
    must_not: tuple[str, ...] = ()  # variants the choice must not be
    l4t: str | None = None  # a Jetson's L4T release
    says: tuple[str, ...] = ()  # text the plan's reasons, warnings or needs must contain

    def target(self) -> Target:
        py = tuple(int(x) for x in self.python.split(".")) if self.python else None
        gpus = tuple(TargetGpu(compute_capability(cc), name) for name, cc in self.gpus)
        return Target(os=self.os, arch=self.arch, python=py, driver=self.driver, gpus=gpus, cpu_only=self.cpu,
                      l4t=self.l4t)


def M(id, gpus, driver, python, expect, why, **kw) -> Machine:  # noqa: N802 - a table constructor
    return Machine(id, tuple(gpus), driver, python, expect, why, **kw)


TORCH = [
    # --- Pascal / Maxwell / Kepler: only cu126 (or older) builds still carry their kernels -----------------
    M("gtx1080ti-575-py311", [GTX1080TI], "575.57.08", "3.11", ("2.14.1", "cu126", WHL),
      "cu128/cu129 dropped sm_50-sm_61 and cu13x needs sm_75 and driver 580; cu126 has sm_60 cubins",
      must_not=("cu128", "cu129", "cu130", "cu132"), says=("sm_61 is supported only up to torch 2.14.1",)),
    M("gtx1080ti-580-py312", [GTX1080TI], "580.95.05", "3.12", ("2.14.1", "cu126", WHL),
      "a new driver does not help: cu130/cu132 have no sm_6x kernels and cuDNN >= 9.11 needs sm_75"),
    M("gtx1080ti-535-py310", [GTX1080TI], "535.247.01", "3.10", ("2.14.1", "cu126", WHL),
      "535 runs CUDA 12.6 through minor-version compatibility"),
    M("p100-550-py311", [P100], "550.163.01", "3.11", ("2.14.1", "cu126", WHL), "exact sm_60 in cu126"),
    M("gtx980-560-py311", [GTX980], "560.35.05", "3.11", ("2.14.1", "cu126", WHL),
      "sm_52 runs the sm_50 cubins of cu126"),
    M("k80-470-py39", [K80], "470.256.02", "3.9", ("2.3.1", "cu118", WHL),
      "cu118 keeps sm_37 up to 2.7, but 2.4+ bundle cuDNN 9.1 (sm_50+); 2.3.1 bundles cuDNN 8.7",
      says=("sm_37 is supported only up to torch 2.3.1",)),
    M("k40-470-py39", [K40], "470.256.02", "3.9", None,
      "sm_35 kernels end with torch 1.2.0 (1.3.1 and later build 3.7), whose wheels stop at cp37",
      says=("sm_35 is supported only up to torch 1.2.0", "Python 3.5–3.7 for torch 1.2.0")),
    M("k40-418-py37", [K40], "418.226.00", "3.7", ("1.2.0", "cu100", PYPI),
      "1.2.0's PyPI wheel is CUDA 10.0 with sm_35 cubins (read from the wheel); 1.3.0 also has them but 1.3.1 "
      "does not, and the data keeps one arch list per series"),
    # --- Old releases research code pins (torch 1.8-1.12, Linux x86_64) ---------------------------------------
    M("k80-470-torch112", [K80], "470.256.02", "3.9", ("1.12.1", "cu102", PYPI),
      "1.12's PyPI wheel is CUDA 10.2 with sm_37 (pytorch/builder release/1.12)", request="==1.12.1"),
    M("v100-418-py38", [V100], "418.226.00", "3.8", ("1.8.1", "cu101", WHL),
      "a CUDA 10.1 driver: 1.8 is the last series with cu101 wheels (-f torch_stable.html)",
      says=("1.8.1 is the newest release that does",)),
    M("rtx3090-455-torch19", [RTX3060], "455.32.00", "3.8", ("1.9.1", "cu111", WHL),
      "sm_86 needs an 11.1 build; 455.32 is CUDA 11.1's driver", request="==1.9.1"),
    # --- torch 1.0-1.7 (Linux x86_64): arch lists read from the PyPI wheels, the rest from pytorch/builder ----
    M("k80-440-py38", [K80], "440.100", "3.8", ("1.12.1", "cu102", PYPI),
      "a CUDA 10.2 driver: 1.12.1's PyPI wheel is cu102 with sm_37; cu11x needs driver 450.80.02"),
    M("k80-418-py37", [K80], "418.226.00", "3.7", ("1.8.1", "cu101", WHL),
      "a CUDA 10.1 driver: 1.8.1 is the last release with cu101 wheels, and they carry sm_37"),
    M("k80-410-py37", [K80], "410.104", "3.7", ("1.7.1", "cu92", WHL),
      "a CUDA 10.0 driver also runs CUDA 9.2 builds (>= 396.26): 1.7.1 cu92 carries sm_37"),
    M("k80-410-torch12", [K80], "410.104", "3.7", ("1.2.0", "cu100", PYPI),
      "1.2.0's PyPI wheel is cu100; sm_37 runs its sm_35 cubins (same major)", request="==1.2.0"),
    M("gtx1080-396-py36", [GTX1080], "396.54", "3.6", ("1.7.1", "cu92", WHL),
      "a CUDA 9.2 driver: 1.7.1 is the last release with cu92 wheels; sm_61 runs their sm_60 cubins"),
    M("v100-390-py36", [V100], "390.157", "3.6", ("1.1.0", "cu90", PYPI),
      "CUDA 9.1's driver runs CUDA 9.0 builds: 1.1.0's PyPI wheel (cu90, sm_70) is the newest; cu92 needs 396.26",
      must_not=("cu92",)),
    M("v100-384-py36", [V100], "384.183", "3.6", ("1.1.0", "cu90", PYPI),
      "a CUDA 9.0 driver: 1.1.0's PyPI wheel is CUDA 9.0 with sm_70 (read from the wheel)"),
    M("t4-418-torch14", [T4], "418.226.00", "3.7", ("1.4.0", "cu101", PYPI),
      "1.4.0's PyPI wheel is cu101 (sm_75 from the wheel's NVCC flags)", request="==1.4.0"),
    M("rtx3060-460-torch17", [RTX3060], "460.91.03", "3.8", ("1.7.1", "cu110", WHL),
      "1.7's PyPI cu102 wheel stops at sm_75; the cu110 build has sm_80 cubins, which sm_86 runs", request="==1.7.1",
      must_not=("cu102",)),
    # --- Volta: cu128 re-added it in 2.8, dropped it again in 2.11; cu13x never had it ------------------------
    M("v100-575-py311", [V100], "575.57.08", "3.11", ("2.14.1", "cu126", WHL),
      "2.12+ ship only cu126 and cu13x; cu13x starts at sm_75", must_not=("cu130", "cu132")),
    M("v100-575-torch211", [V100], "575.57.08", "3.11", ("2.11.0", "cu126", WHL),
      "torch 2.11 cu128 dropped Volta (sm_75..sm_120), cu130 too: cu126 it is",
      request="==2.11.0", must_not=("cu128",)),
    M("v100-575-torch210", [V100], "575.57.08", "3.11", ("2.10.0", "cu128", PYPI),
      "in 2.10 the PyPI default cu128 still had sm_70", request="==2.10.0"),
    M("v100-450-py311", [V100], "450.80.02", "3.11", ("2.7.1", "cu118", WHL),
      "450.80.02 is the CUDA 11 minor-version floor: cu118 is the newest CUDA it runs"),
    M("v100-418-py311", [V100], "418.226.00", "3.11", None,
      "no build in the data runs on a CUDA 10.1 driver", says=("driver >= 450.80.02",)),
    # --- Turing -------------------------------------------------------------------------------------------------
    M("t4-470-py311", [T4], "470.256.02", "3.11", ("2.7.1", "cu118", WHL),
      "driver 470 runs CUDA 11.x only: the newest cu118 build is torch 2.7.1"),
    M("t4-535-py311", [T4], "535.247.01", "3.11", ("2.14.1", "cu126", WHL),
      "cu13x needs driver 580; the newest CUDA 12 build is 2.14.1 cu126", must_not=("cu130", "cu132")),
    M("t4-580-py311", [T4], "580.95.05", "3.11", ("2.15.0", "cu132", PYPI), "sm_75 is the floor of cu13x"),
    # --- Ampere / Ada / Hopper ------------------------------------------------------------------------------
    M("a100-535-py311", [A100], "535.247.01", "3.11", ("2.14.1", "cu126", WHL),
      "a current torch on driver 535 must be a cu12x build, not cu13x", must_not=("cu130", "cu132")),
    M("a100-550-py312", [A100], "550.163.01", "3.12", ("2.14.1", "cu126", WHL), "same for 550"),
    M("a100-580-py312", [A100], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "PyPI default qualifies"),
    M("a100-470-py311", [A100], "470.256.02", "3.11", ("2.7.1", "cu118", WHL), "CUDA 11 driver"),
    M("a10-570-py311", [A10], "570.172.08", "3.11", ("2.14.1", "cu126", WHL),
      "570 runs 12.8, but 2.12+ have no cu128; cu126 is the newest CUDA 12 build"),
    M("rtx4090-575-py311", [RTX4090], "575.57.08", "3.11", ("2.14.1", "cu126", WHL), "sm_89 runs sm_86 cubins"),
    M("rtx4090-580-py314", [RTX4090], "580.95.05", "3.14", ("2.15.0", "cu132", PYPI), "Python 3.14 is in range"),
    M("l4-590-py313", [L4], "590.48.01", "3.13", ("2.15.0", "cu132", PYPI), "590 runs 13.2 via minor-version compat"),
    M("h100-535-py311", [H100], "535.247.01", "3.11", ("2.14.1", "cu126", WHL), "LTSB 535 keeps CUDA 12"),
    M("h100-580-py312", [H100], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "the PyPI default"),
    M("h200-595-py312", [H200], "595.71.05", "3.12", ("2.15.0", "cu132", PYPI), "the PyPI default"),
    # --- Blackwell: cu128 or newer only ---------------------------------------------------------------------
    M("b200-570-py312", [B200], "570.172.08", "3.12", ("2.11.0", "cu128", WHL),
      "cu126 has no sm_100; 2.11 is the last release with cu128", must_not=("cu126",)),
    M("b200-580-py312", [B200], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "native sm_100"),
    M("b300-580-py312", [B300], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "sm_103 runs sm_100 cubins"),
    M("rtx5090-575-py312", [RTX5090], "575.57.08", "3.12", ("2.11.0", "cu128", WHL),
      "cu126 has no sm_120; cu13x needs 580: the newest cu128 build", must_not=("cu126",)),
    M("rtx5090-570-py311", [RTX5090], "570.172.08", "3.11", ("2.11.0", "cu128", WHL), "same on 570"),
    M("rtx5090-580-py312", [RTX5090], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "native sm_120"),
    M("rtx5090-580-torch25", [RTX5090], "580.95.05", "3.12", None,
      "torch 2.5 predates Blackwell: no build of it has sm_120", request="==2.5.1",
      says=("sm_120 is supported from torch 2.7.0 on",)),
    # --- The driver's own floor for an architecture (matrices/cuda.toml [[arch_driver]]) -------------------
    M("rtx5090-560-py312", [RTX5090], "560.35.03", "3.12", None,
      "R560 predates Blackwell: no build runs, whatever its CUDA (a cu126 or cu118 wheel would not help)",
      says=("upgrade the driver to >= 570.26",)),
    M("b200-565-py312", [B200], "565.57.01", "3.12", None, "B200 needs the CUDA 12.8 driver (570.26) or newer",
      says=("upgrade the driver to >= 570.26",)),
    M("b300-575-py312", [B300], "575.57.08", "3.12", None, "B300 (sm_103) needs the CUDA 13.0 driver",
      says=("upgrade the driver to >= 580.65.06",)),
    M("rtx4090-515-py310", [RTX4090], "515.105.01", "3.10", None, "Ada needs the CUDA 11.8 driver 520.61.05",
      says=("upgrade the driver to >= 520.61.05",)),
    M("gtx1080ti-590-py312", [GTX1080TI], "590.48.01", "3.12", None,
      "R580 is the last branch for Pascal: driver 590 no longer runs a GTX 1080 Ti",
      says=("R580 or older",)),
    # --- Mixed GPUs: every GPU must be covered ----------------------------------------------------------------
    M("mixed-61-89-580", [GTX1080TI, RTX4090], "580.95.05", "3.11", ("2.14.1", "cu126", WHL),
      "the Pascal card rules out cu13x"),
    M("mixed-61-89-575", [GTX1080TI, RTX4090], "575.57.08", "3.11", ("2.14.1", "cu126", WHL), "same on 575"),
    M("mixed-70-120-580", [V100, RTX5090], "580.95.05", "3.12", ("2.10.0", "cu128", PYPI),
      "cu126 lacks sm_120, cu13x lacks sm_70: only 2.8-2.10 cu128 carry both"),
    # --- aarch64 ------------------------------------------------------------------------------------------------
    M("gh200-580-py312", [GH200], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "aarch64 PyPI default",
      arch="aarch64"),
    M("gh200-550-py312", [GH200], "550.163.01", "3.12", ("2.14.1", "cu126", WHL),
      "aarch64 cu126 builds carry sm_80 and sm_90", arch="aarch64"),
    M("gb10-580-py312", [GB10], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "sm_121 runs sm_120 cubins",
      arch="aarch64"),
    M("thor-580-py312", [THOR], "580.95.05", "3.12", ("2.15.0", "cu132", PYPI), "aarch64 cu13x builds have sm_110",
      arch="aarch64"),
    M("orin-jp62-py310", [("Jetson AGX Orin", "8.7")], "540.4.0", "3.10", None,
      "Jetson: the aarch64 wheels of PyPI and download.pytorch.org are SBSA builds; NVIDIA's Jetson index it is",
      arch="aarch64", l4t="36.4.3", says=("https://pypi.jetson-ai-lab.dev/jp6/cu126",)),
    M("t4g-570-py311", [T4G], "570.172.08", "3.11", ("2.8.0", "cu129", WHL),
      "aarch64 builds from 2.9 start at sm_80; 2.8's aarch64 arch list is not in the data (warned)",
      arch="aarch64", says=("is not in gpudoctor's data",)),
    # --- Windows ------------------------------------------------------------------------------------------------
    M("win-rtx3060-566-py312", [RTX3060], "566.36", "3.12", ("2.14.1", "cu126", WHL),
      "Windows CUDA 13 needs 580.88", os="windows", must_not=("cu130", "cu132")),
    M("win-gtx1060-581-py312", [GTX1060], "581.57", "3.12", ("2.14.1", "cu126", WHL),
      "the Windows cu126 list has sm_61", os="windows"),
    M("win-rtx5090-581-py313", [RTX5090], "581.57", "3.13", ("2.15.0", "cu132", WHL),
      "Windows CUDA wheels come from download.pytorch.org", os="windows"),
    M("win-rtx4090-572-py311", [RTX4090], "572.83", "3.11", ("2.14.1", "cu126", WHL), "572 < 580.88",
      os="windows"),
    M("win-arm64", [RTX4090], "581.57", "3.12", None, "no CUDA wheels for Windows on arm64",
      os="windows", arch="aarch64"),
    # --- Windows before 1.13: download.pytorch.org builds (PyPI carries CPU wheels from 1.7, none before) -------
    M("win-gtx1060-441-py38", [GTX1060], "441.22", "3.8", ("1.10.1", "cu102", WHL),
      "a CUDA 10.2 driver: the last Windows cu102 build is 1.10 (1.11 has none for Windows)", os="windows"),
    M("win-rtx2080s-452-torch111", [RTX2080S], "452.39", "3.9", ("1.11.0", "cu113", WHL),
      "1.11 on Windows is cu113 only; 452.39 is the Windows CUDA 11 floor", os="windows", request="==1.11.0"),
    M("win-rtx3060-456-torch17", [RTX3060], "456.71", "3.8", ("1.7.1", "cu110", WHL),
      "sm_86 runs the sm_80 cubins of the Windows cu110 build", os="windows", request="==1.7.1"),
    M("win-k80-426-torch112", [K80], "426.00", "3.9", None,
      "Windows 1.12 has cu113/cu116 builds only; driver 426 runs CUDA 10.1 at most",
      os="windows", request="==1.12.1", says=("driver >= 452.39",)),
    M("win-cpu-py36-torch16", [], None, "3.6", ("1.6.0", "cpu", WHL),
      "no Windows wheels on PyPI before 1.7: the CPU build comes from download.pytorch.org", os="windows",
      cpu=True, request="==1.6.0"),
    # --- Laptops and SUPER cards (the GPUs are given by compute capability; the names only label the row) --------
    M("win-laptop-rtx4060-560-py312", [RTX4060L], "560.94", "3.12", ("2.14.1", "cu126", WHL),
      "a 560 driver on Windows: CUDA 12 builds only, the newest being 2.14.1 cu126", os="windows",
      must_not=("cu130", "cu132")),
    M("laptop-rtx3050ti-535-py311", [RTX3050TIL], "535.183.01", "3.11", ("2.14.1", "cu126", WHL),
      "sm_86 on driver 535: the newest CUDA 12 build", must_not=("cu130", "cu132")),
    M("laptop-rtx5070-570-py312", [RTX5070L], "570.153.02", "3.12", ("2.11.0", "cu128", WHL),
      "Blackwell laptop on 570: cu126 lacks sm_120 and cu13x needs 580", must_not=("cu126",)),
    M("rtx2080s-470-torch18", [RTX2080S], "470.256.02", "3.8", ("1.8.1", "cu102", PYPI),
      "an exact old pin gets its PyPI default: cu102 has sm_70 cubins, which Turing runs", request="==1.8.1"),
    # --- Python versions --------------------------------------------------------------------------------------
    M("py314-gtx1080ti-580", [GTX1080TI], "580.95.05", "3.14", ("2.14.1", "cu126", WHL), "2.14 has cp314"),
    M("py315-gtx1080ti-580", [GTX1080TI], "580.95.05", "3.15", None,
      "only 2.15 has cp315, and it has no sm_61 kernels", says=("Python 3.10–3.14 for torch 2.14.1",)),
    M("py315-h100-580", [H100], "580.95.05", "3.15", ("2.15.0", "cu132", PYPI), "2.15 has cp315"),
    M("py39-a100-580", [A100], "580.95.05", "3.9", ("2.8.0", "cu128", PYPI), "2.8 is the last with cp39"),
    M("py38-a100-535", [A100], "535.247.01", "3.8", ("2.4.1", "cu121", PYPI), "2.4 is the last with cp38"),
    # --- Requests -----------------------------------------------------------------------------------------------
    M("req-24-26-gtx1080ti", [GTX1080TI], "575.57.08", "3.11", ("2.5.1", "cu124", PYPI),
      "the newest release in the request; its PyPI default cu124 has sm_60", request=">=2.4,<2.6"),
    M("req-291-rtx4090", [RTX4090], "580.95.05", "3.12", ("2.9.1", "cu128", PYPI),
      "an exact pin gets its PyPI default", request="torch==2.9.1"),
    # --- No GPU / unknown driver --------------------------------------------------------------------------------
    M("cpu-linux-py312", [], None, "3.12", ("2.15.0", "cpu", WHL), "the CPU index, not the CUDA PyPI wheel",
      cpu=True),
    M("cpu-windows-py312", [], None, "3.12", ("2.15.0", "cpu", PYPI), "Windows PyPI wheels are CPU builds",
      os="windows", cpu=True),
    M("cpu-aarch64-py312", [], None, "3.12", ("2.15.0", "cpu", WHL), "aarch64 PyPI wheels are CUDA from 2.11",
      arch="aarch64", cpu=True),
    M("driver-unknown-rtx4090", [RTX4090], None, "3.12", ("2.15.0", "cu132", PYPI),
      "driver not given: chosen, with the driver it needs stated", says=("needs driver >= 580.65.06",)),
]

OTHERS = [
    M("tf-gtx1080ti-575-py311", [GTX1080TI], "575.57.08", "3.11", ("2.21.0", "and-cuda", PYPI),
      "[and-cuda] would pull cuDNN >= 9.11, which drops sm_61: pinned below 9.11",
      framework="tensorflow", says=("pins nvidia-cudnn-cu12<9.11",)),
    M("tf-rtx5090-580-py312", [RTX5090], "580.95.05", "3.12", ("2.21.0", "and-cuda", PYPI),
      "no sm_120 SASS: runs through PTX JIT of compute_90", framework="tensorflow", says=("JIT-compiles",)),
    M("tf-rtx5090-535-py311", [RTX5090], "535.247.01", "3.11", None,
      "R535 predates Blackwell: no TensorFlow build runs on an RTX 5090 until the driver is R570+",
      framework="tensorflow", says=("upgrade the driver to >= 570.26",)),
    M("tf-win-rtx3060-py310", [RTX3060], "566.36", "3.10", ("2.10.1", "windows-native", PYPI),
      "native Windows GPU ended at 2.10", os="windows", framework="tensorflow"),
    M("tf-win-rtx3060-py312", [RTX3060], "566.36", "3.12", None, "2.10 needs Python <= 3.10",
      os="windows", framework="tensorflow", says=("WSL2",)),
    M("tf-aarch64", [GH200], "580.95.05", "3.12", None, "no TensorFlow GPU wheels for aarch64",
      arch="aarch64", framework="tensorflow"),
    M("tf115-v100-418-py37", [V100], "418.226.00", "3.7", ("1.15", "system-cuda", PYPI),
      "TF 1.15's `tensorflow` wheel includes GPU support (RELEASE.md 1.15.0), CUDA 10.0 (tested configurations)",
      framework="tensorflow", request="==1.15.*"),
    M("tf114-v100-418-py37", [V100], "418.226.00", "3.7", ("1.14", "system-cuda", PYPI),
      "up to 1.14 the GPU build is the tensorflow-gpu package, CUDA 10.0 (tensorflow.org tested configurations)",
      framework="tensorflow", request="==1.14.*", says=("tensorflow-gpu",)),
    M("tf23-gtx1080ti-440-py38", [GTX1080TI], "440.100", "3.8", ("2.3", "system-cuda", PYPI),
      "2.3 is the newest TF for a CUDA 10.2-era driver: CUDA 10.1, cuDNN 7.6", framework="tensorflow"),
    M("jax-h100-580-py312", [H100], "580.95.05", "3.12", ("0.12.0.1", "cuda13", PYPI), "cuda13 needs 580 and sm_75",
      framework="jax"),
    M("jax-a100-535-py312", [A100], "535.247.01", "3.12", ("0.12.0.1", "cuda12", PYPI), "535: CUDA 12 plugin",
      framework="jax"),
    M("jax-gtx1080ti-580-py312", [GTX1080TI], "580.95.05", "3.12", ("0.12.0.1", "cuda12", PYPI),
      "cuda13 needs sm_75; cuda12 with cuDNN pinned below 9.11", framework="jax",
      says=("pins nvidia-cudnn-cu12<9.11",)),
    M("jax-windows", [RTX4090], "581.57", "3.12", None, "no native Windows GPU wheels", os="windows",
      framework="jax", says=("WSL2",)),
    M("jax-t4-470-py39", [T4], "470.256.02", "3.9", ("0.4.25", "cuda11_pip", PYPI),
      "a CUDA 11 driver: jax 0.4.25 is the last with CUDA 11 wheels (jaxlib 0.4.26 dropped 11.8)", framework="jax",
      says=("jax_cuda_releases.html",)),
    M("cupy-k80-440", [K80], "440.100", "3.8", ("12.3.0", "cupy-cuda102", PYPI),
      "a CUDA 10.2 driver: the per-version cupy-cuda102 wheel (no [ctk]: local CUDA 10.2)", framework="cupy",
      says=("no [ctk] extra",)),
    M("cupy-gtx1080ti-580", [GTX1080TI], "580.95.05", "3.12", ("14.2.0", "cupy-cuda12x", PYPI),
      "NVRTC 13 cannot target sm_61", framework="cupy"),
    M("cupy-rtx4090-580", [RTX4090], "580.95.05", "3.12", ("14.2.0", "cupy-cuda13x", PYPI), "CUDA 13 works",
      framework="cupy"),
    M("cupy-rtx4090-535", [RTX4090], "535.247.01", "3.12", ("14.2.0", "cupy-cuda12x", PYPI), "535: CUDA 12",
      framework="cupy"),
]
