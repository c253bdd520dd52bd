"""Poetry projects and locks from public repositories (tests/fixtures/lint/SOURCES.md):
a CUDA index bound by an explicit source, a CPU index, one package locked twice and
placed per platform by the project's markers, and Poetry 1.4's older lock format."""

from __future__ import annotations

import shutil
from pathlib import Path

from packaging.version import Version

from gpudoctor.install.target import Target, target_from_options
from gpudoctor.lint.engine import host_from_target, lint_file, read_source
from gpudoctor.lint.resolve import resolve
from gpudoctor.matrices import load_matrices
from gpudoctor.requires import host_needs

LINT = Path(__file__).parent / "fixtures" / "lint"
M = load_matrices(overlay=None)
CU121 = LINT / "pytorch-template"  # popura/pytorch-template: torch ^2.3.1+cu121 from an explicit cu121 source
CPU = LINT / "axolotl-memory"  # KCaverly/axolotl_memory: torch ^2.1.2+cpu from an explicit CPU source
SPLIT = LINT / "gnn-final-project"  # Marsmaennchen221/GNN-final-project: PyPI torch, cu126 on Windows
OLD = LINT / "gpu-using-with-poetry"  # hironow/gpu-using-with-poetry: Poetry 1.4, `secondary = true`


def lint(path: Path, **target):
    t = target_from_options(M, **target)
    return lint_file(str(path), host_from_target(t), t.platform, M, debug=True)


def errors(report):
    return [(f.code, f.location.line) for f in report.findings if f.severity.value == "error"]


def newest_on_index(variant: str, platform: str = "linux-x86_64") -> str:
    return max((r.version for r in M.torch_releases if M.torch_build(r.version, variant, platform, pypi=False)),
               key=Version)


# --- readers -------------------------------------------------------------------

def test_lock_with_an_explicit_cuda_source():
    src = read_source(str(CU121 / "poetry.lock"))
    torch = src.find("torch")
    assert (torch.spec, torch.index, torch.line) == ("==2.3.1+cu121", "https://download.pytorch.org/whl/cu121", 146)
    # Poetry locks name files, not URLs: the names still carry the platform tags.
    assert "torch-2.3.1+cu121-cp311-cp311-linux_x86_64.whl" in torch.wheels
    assert src.find("torchvision").spec == "==0.18.1+cu121"
    assert src.python == "^3.9,<3.12"


def test_project_with_an_explicit_source_and_its_caret_spec():
    src = read_source(str(CU121 / "pyproject.toml"))
    torch = src.find("torch")
    assert (torch.spec, torch.index, torch.line) == (">=2.3.1,<3", "https://download.pytorch.org/whl/cu121", 18)
    assert src.indexes == []  # an explicit source serves only the packages that name it
    assert src.python == "^3.9,<3.12"


def test_poetry_1_4_lock_and_a_secondary_source():
    lock = read_source(str(OLD / "poetry.lock"))
    assert (lock.find("torch").spec, lock.find("torch").line) == ("==2.0.1+cu118", 487)
    project = read_source(str(OLD / "pyproject.toml"))
    assert project.find("torch").index == "https://download.pytorch.org/whl/cu118/"
    assert project.indexes == []  # secondary: asked only for what PyPI lacks


def test_one_package_locked_twice_is_placed_by_the_projects_markers():
    src = read_source(str(SPLIT / "poetry.lock"))
    torches = [r for r in src.reqs if r.name == "torch"]
    assert {(r.spec, r.line, r.marker) for r in torches} == {
        ("==2.6.0", 171, "sys_platform != 'win32'"),
        ("==2.6.0+cu126", 227, "sys_platform == 'win32'"),
    }
    assert not src.notes


def test_a_lock_without_its_project_says_it_cannot_place_them(tmp_path):
    shutil.copy(SPLIT / "poetry.lock", tmp_path / "poetry.lock")
    src = read_source(str(tmp_path / "poetry.lock"))
    assert any(n.startswith("torch is locked 2 times (2.6.0, 2.6.0+cu126)") for n in src.notes)


# --- builds and findings ---------------------------------------------------------------

def test_cuda_lock_on_a_driver_too_old_for_cuda_12():
    report = lint(CU121 / "poetry.lock", driver="470.256.02", sms=("8.0",), python="3.11")
    (b,) = report.builds
    assert (b.version, b.build, b.line) == ("2.3.1", "cu121", 146)
    assert errors(report) == [("GD201", 146)]
    assert not errors(lint(CU121 / "poetry.lock", driver="535.104.05", gpus=("H100 SXM 80GB",), python="3.11"))


def test_cuda_lock_on_a_gpu_newer_than_the_build():
    report = lint(CU121 / "poetry.lock", driver="570.172.08", gpus=("GeForce RTX 5090",), python="3.11")
    assert errors(report) == [("GD302", 146)]


def test_cuda_lock_has_no_wheel_for_aarch64():
    report = lint(CU121 / "poetry.lock", driver="570.172.08", sms=("9.0",), arch="aarch64")
    assert not report.builds
    assert any("poetry.lock:146: torch 2.3.1+cu121 has no wheel for linux-aarch64" in n for n in report.notes)


def test_project_resolves_to_the_newest_release_its_index_serves():
    """`^2.3.1+cu121` from the cu121 index: the newest torch with a cu121 build, not the newest torch."""
    report = lint(CU121 / "pyproject.toml", driver="535.104.05", gpus=("H100 SXM 80GB",), python="3.11")
    (b,) = report.builds
    assert b.build == "cu121" and b.version == newest_on_index("cu121")
    assert Version(b.version) < Version(M.newest_torch())


def test_cpu_lock_on_a_gpu_machine_linux_and_windows():
    for os_name in ("linux", "windows"):
        report = lint(CPU / "poetry.lock", driver="570.172.08", gpus=("GeForce RTX 4090",), os_name=os_name)
        (b,) = report.builds
        assert (b.version, b.build) == ("2.1.2", "cpu")
        assert errors(report) == [("GD501", 18)]


def test_split_lock_linux_gets_pypi_torch_windows_the_cu126_one():
    linux = lint(SPLIT / "poetry.lock", driver="535.104.05", gpus=("H100 SXM 80GB",))
    (b,) = linux.builds
    assert (b.version, b.line) == ("2.6.0", 171) and b.build == M.torch_pypi_build("2.6.0").variant
    assert "PyPI default" in b.how and not errors(linux)
    windows = lint(SPLIT / "poetry.lock", driver="570.172.08", gpus=("GeForce RTX 5090",), os_name="windows")
    (b,) = windows.builds
    assert (b.version, b.build, b.line) == ("2.6.0", "cu126", 227)
    assert errors(windows) == [("GD302", 227)]  # cu126 has no sm_120 kernels


def test_split_lock_on_aarch64_is_pypis_cpu_wheel():
    """The same PyPI torch 2.6.0 entry: CUDA on x86_64, CPU-only on aarch64 (PyPI's default there)."""
    assert M.torch_pypi_build("2.6.0", "linux-aarch64").variant == "cpu"
    report = lint(SPLIT / "poetry.lock", driver="570.172.08", sms=("9.0",), arch="aarch64")
    assert errors(report) == [("GD501", 171)]


def test_split_project_places_the_marked_source_first_on_windows():
    report = lint(SPLIT / "pyproject.toml", driver="570.172.08", gpus=("GeForce RTX 5090",), os_name="windows")
    (b,) = report.builds
    assert b.build == "cu126" and b.line == 20  # the win32 constraint of the dev group, not line 10


def test_requires_of_the_cuda_lock():
    t = Target()
    n = host_needs(resolve(read_source(str(CU121 / "poetry.lock")), host_from_target(t), M, t.platform).snapshot, M)
    assert n.driver["linux"].value == M.minor_compat_floor(12, "linux")
    assert n.driver_full["linux"].value == M.toolkit_min_driver("12.1", "linux")


# --- Poetry shapes the fixtures do not have ----------------------------------------

def test_poetry_2_project_table_with_the_source_in_tool_poetry(tmp_path):
    """Poetry 2 lists requirements in [project] and binds a source in [tool.poetry.dependencies]."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        'dependencies = [\n    "torch (>=2.2.0)",\n]\n\n'
        '[[tool.poetry.source]]\nname = "pytorch-cu121"\nurl = "https://download.pytorch.org/whl/cu121"\n'
        'priority = "explicit"\n\n[tool.poetry.dependencies]\ntorch = {source = "pytorch-cu121"}\n')
    src = read_source(str(tmp_path / "pyproject.toml"))
    (torch,) = [r for r in src.reqs if r.name == "torch"]
    assert (torch.spec, torch.index, torch.line) == (">=2.2.0", "https://download.pytorch.org/whl/cu121", 6)
    assert src.python == ">=3.11,<3.12"


def test_a_primary_source_serves_every_package(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.poetry.dependencies]\npython = "^3.11"\ntorch = "2.5.1"\n\n'
        '[[tool.poetry.source]]\nname = "torch"\nurl = "https://download.pytorch.org/whl/cu118"\n')
    report = lint(tmp_path / "pyproject.toml", driver="570.172.08", sms=("8.9",))
    (b,) = report.builds
    assert (b.version, b.build) == ("2.5.1", "cu118")


def test_lock_2_1_markers_and_a_wheel_url_source(tmp_path):
    (tmp_path / "poetry.lock").write_text(
        '[[package]]\nname = "torch"\nversion = "2.5.1"\nmarkers = "sys_platform == \\"darwin\\""\nfiles = []\n\n'
        '[[package]]\nname = "torch"\nversion = "2.5.1+cu124"\nmarkers = {main = "sys_platform == \\"linux\\""}\n'
        'files = []\n\n[package.source]\ntype = "url"\n'
        'url = "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl"\n\n'
        '[metadata]\nlock-version = "2.1"\npython-versions = ">=3.11"\n')
    report = lint(tmp_path / "poetry.lock", driver="535.104.05", sms=("9.0",), python="3.11")
    (b,) = report.builds
    assert (b.version, b.build, b.line) == ("2.5.1", "cu124", 8)
