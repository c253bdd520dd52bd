"""The scripts run by the target interpreter: Python 3.8 syntax, stdlib plus the framework only."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.scripts import SCRIPTS_DIR

SCRIPTS = sorted(p for p in Path(SCRIPTS_DIR).glob("*.py") if p.name != "__init__.py")
FRAMEWORKS = {"torch", "tensorflow", "jax", "cupy", "cupy_backends"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_script_is_python_3_8_and_stdlib_only(script):
    tree = ast.parse(script.read_text(), feature_version=(3, 8))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module.split(".")[0])
    foreign = modules - set(sys.stdlib_module_names) - FRAMEWORKS
    assert not foreign, f"{script.name} imports {foreign}"


def test_cuda_driver_script_reports_a_missing_library():
    out = subprocess.run([sys.executable, "-I", "-S", str(Path(SCRIPTS_DIR) / "cuda_driver.py"), "libnope.so.7"],
                         capture_output=True, text=True, timeout=30, check=True)
    data = json.loads(out.stdout)
    assert "libnope.so.7" in data["load_error"]


def test_deep_script_reports_an_uninstalled_framework():
    out = subprocess.run([sys.executable, str(Path(SCRIPTS_DIR) / "deep_framework.py"), "cupy"],
                         capture_output=True, text=True, timeout=60, check=True)
    lines = [json.loads(line.split(" ", 1)[1]) for line in out.stdout.splitlines() if line.startswith("GPUDOCTOR_DEEP ")]
    assert lines[-1]["stage"] == "done" and lines[-1]["imported"] is False
    assert lines[-1]["error"].startswith("ModuleNotFoundError")
