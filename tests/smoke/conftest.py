"""Fixtures for the smoke tests.

- `fake_libcuda`: a directory holding a libcuda.so.1 built from fake_libcuda.c,
  whose answers are set by FAKE_* environment variables (needs a C compiler).
- `torch_python` / `jax_python`: interpreters that can import torch / jax (CPU
  builds are enough), from GPUDOCTOR_TEST_TORCH_PYTHON / GPUDOCTOR_TEST_JAX_PYTHON.
  Tests that need them skip, saying so, when the variable is unset.
- `gpu` marker: skipped without a working GPU unless GPUDOCTOR_REQUIRE_GPU=1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.smoke.driver import DRIVER_SCRIPT

HERE = Path(__file__).resolve().parent


def _interpreter(var: str, module: str) -> str | None:
    path = os.environ.get(var)
    if not path:
        return None
    probe = subprocess.run([path, "-c", f"import {module}"], capture_output=True, timeout=120)
    if probe.returncode != 0:
        pytest.fail(f"{var}={path} cannot import {module}: {probe.stderr.decode()[-300:]}")
    return path


def _framework_python(var: str, module: str):
    @pytest.fixture(scope="session")
    def fixture() -> str:
        path = _interpreter(var, module)
        if path is None:
            pytest.skip(f"set {var} to an interpreter with {module} (a CPU build is enough)")
        return path

    return fixture


torch_python = _framework_python("GPUDOCTOR_TEST_TORCH_PYTHON", "torch")
jax_python = _framework_python("GPUDOCTOR_TEST_JAX_PYTHON", "jax")


@pytest.fixture(scope="session")
def fake_libcuda(tmp_path_factory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    out = tmp_path_factory.mktemp("fakecuda")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out / "libcuda.so.1"), str(HERE / "fake_libcuda.c")],
                   check=True, timeout=120)
    return out


def _has_gpu() -> bool:
    try:
        res = subprocess.run([sys.executable, str(DRIVER_SCRIPT)], capture_output=True, text=True, timeout=60)
        doc = json.loads(res.stdout)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        return False
    return doc.get("cuinit") == 0 and (doc.get("device_count") or 0) > 0


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items or os.environ.get("GPUDOCTOR_REQUIRE_GPU") == "1" or _has_gpu():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (set GPUDOCTOR_REQUIRE_GPU=1 to fail instead)")
    for item in gpu_items:
        item.add_marker(skip)
