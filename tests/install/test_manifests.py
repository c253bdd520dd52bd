"""The manifests `install` prints are complete files: a pyproject.toml that uv
parses and validates (checked with the real uv when it is installed next to
this interpreter or on PATH: offline, a valid file gets as far as resolution,
an invalid one fails at parsing), and a pixi.toml with the keys pixi requires."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from machines import OTHERS, TORCH

from gpudoctor.install import plan_install
from gpudoctor.install.request import parse_request
from gpudoctor.matrices import load_matrices

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

M = load_matrices(overlay=None)
ROWS = [row for row in TORCH + OTHERS if row.expect is not None]
HERE_PY = f"{sys.version_info[0]}.{sys.version_info[1]}"


def plan_of(row, python=None):
    target = row.target()
    if python:
        from dataclasses import replace
        target = replace(target, python=tuple(int(x) for x in python.split(".")))
    return plan_install(parse_request(row.framework, (), row.request), target, M)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_uv_project_is_a_complete_pyproject(row):
    plan = plan_of(row)
    doc = tomllib.loads(plan.install.commands.uv_project)
    project = doc["project"]
    assert project["name"] and project["version"] and project["requires-python"].startswith(">=")
    assert project["dependencies"]
    for source in doc.get("tool", {}).get("uv", {}).get("sources", {}).values():
        names = {i["name"] for i in doc["tool"]["uv"]["index"]}
        assert all(s["index"] in names for s in source)


@pytest.mark.parametrize("row", [r for r in ROWS if r.framework == "torch"], ids=lambda r: r.id)
def test_pixi_manifest_has_channels_platforms_and_dependencies(row):
    pixi = plan_of(row).install.commands.pixi
    if pixi is None:
        return
    doc = tomllib.loads(pixi)
    ws = doc["workspace"]
    assert ws["channels"] and ws["platforms"]
    assert set(ws["platforms"]) <= {"linux-64", "linux-aarch64", "win-64", "osx-arm64", "osx-64"}
    assert doc["dependencies"]


def _uv() -> str | None:
    near = Path(sys.executable).with_name("uv")
    return str(near) if near.exists() else shutil.which("uv")


UV_ROWS = [r for r in ROWS if r.os == "linux"][:12]


@pytest.mark.skipif(_uv() is None, reason="uv is not installed (pip install uv) next to this interpreter")
@pytest.mark.parametrize("row", UV_ROWS, ids=lambda r: r.id)
def test_real_uv_accepts_the_project_file(row, tmp_path):
    plan = plan_of(row, python=HERE_PY)
    if not plan.ok:
        pytest.skip(f"nothing works for {row.id} on Python {HERE_PY}")
    (tmp_path / "pyproject.toml").write_text(plan.install.commands.uv_project)
    env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_CACHE_DIR": str(tmp_path / "c")}
    res = subprocess.run([_uv(), "lock", "--offline", "--python", sys.executable], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=env)
    err = res.stderr
    # Offline and with an empty cache a valid project stops at resolution; a bad file never gets there.
    assert "parse error" not in err.lower() and "failed to parse" not in err.lower(), err
    assert res.returncode == 0 or "No solution found" in err or "offline" in err.lower(), err


def test_cupy_extras_exist_in_the_chosen_wheel():
    from machines import M as row_of
    old = row_of("cupy-t4-470", [("Tesla T4", "7.5")], "470.256.02", "3.11", None, "", framework="cupy")
    plan = plan_of(old)
    assert plan.ok and plan.choice.candidate.variant == "cupy-cuda11x"
    assert "[ctk]" not in plan.install.commands.pip, "cupy-cuda11x has no [ctk] extra"
    assert any("no [ctk] extra" in w for w in plan.warnings)
    new = row_of("cupy-4090-580", [("GeForce RTX 4090", "8.9")], "580.95.05", "3.12", None, "", framework="cupy")
    assert "cupy-cuda13x[ctk]" in plan_of(new).install.commands.pip


def test_a_described_machine_is_never_told_another_build_is_installed():
    for row in TORCH:
        plan = plan_of(row)
        assert not any("already satisfies this pin" in w for w in plan.warnings), row.id


def test_macos_floor_of_torch_212_and_later():
    from machines import M as row_of
    mac = row_of("mac", [], None, "3.12", None, "", os="macos", arch="aarch64", cpu=True)
    plan = plan_of(mac)
    assert plan.ok and any("need macOS 14.0 or newer" in w for w in plan.warnings)
    from dataclasses import replace
    old_mac = replace(mac.target(), os_version="13.6")
    plan = plan_install(parse_request("torch", (), None), old_mac, M)
    assert plan.ok and plan.choice.candidate.version.startswith("2.11"), plan.choice.candidate.version


@pytest.mark.skipif(_uv() is None, reason="uv is not installed (pip install uv) next to this interpreter")
def test_real_uv_rejects_the_old_incomplete_snippet(tmp_path):
    """The control: the snippet gpudoctor printed before (no name, no version) fails at parsing."""
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch==2.14.1"]\n')
    env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_CACHE_DIR": str(tmp_path / "c")}
    res = subprocess.run([_uv(), "lock", "--offline", "--python", sys.executable], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=env)
    assert res.returncode != 0 and "project.name" in res.stderr, res.stderr


@pytest.mark.skipif(_uv() is None, reason="uv is not installed (pip install uv) next to this interpreter")
@pytest.mark.parametrize("kind", ["extra-index", "find-links"])
def test_real_uv_accepts_old_torch_sources(kind, tmp_path):
    """torch <= 1.12 comes from --extra-index-url or a flat torch_stable.html page: uv must parse both."""
    from gpudoctor.install import commands as cmd
    text = cmd.uv_project_snippet(["torch==1.9.1"], "linux", python=HERE_PY, index_name="pytorch-cu111",
                                  index_url="https://download.pytorch.org/whl/cu111", from_index=("torch",),
                                  index_kind=kind)
    (tmp_path / "pyproject.toml").write_text(text)
    env = {**os.environ, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_CACHE_DIR": str(tmp_path / "c")}
    res = subprocess.run([_uv(), "lock", "--offline", "--python", sys.executable], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=env)
    assert "parse error" not in res.stderr.lower() and "failed to parse" not in res.stderr.lower(), res.stderr
    assert res.returncode == 0 or "No solution found" in res.stderr or "offline" in res.stderr.lower(), res.stderr
