"""What a command leaves unimported: the JSON paths never load rich (the
terminal views do), and a check whose rules do not need the install engine
never loads it. Each case runs in a fresh interpreter."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = Path(__file__).resolve().parent / "rules" / "GD401" / "good.json"

PROBE = """
import json, sys
from gpudoctor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
loaded = sorted({name.split(".")[0] if not name.startswith("gpudoctor") else ".".join(name.split(".")[:2])
                 for name in sys.modules})
sys.stderr.write("MODULES=" + json.dumps(loaded) + "\\n")
"""


# The same through the entry point of `python -m gpudoctor` and the console script.
ENTRY_PROBE = """
import json, os, sys
import gpudoctor.__main__ as entry
real_exit = os._exit
def leave(status):
    loaded = sorted({name.split(".")[0] if not name.startswith("gpudoctor") else ".".join(name.split(".")[:2])
                     for name in sys.modules})
    sys.stderr.write("MODULES=" + json.dumps(loaded) + "\\n")
    sys.stderr.flush()
    real_exit(status)
os._exit = leave
sys.argv = ["gpudoctor", *sys.argv[1:]]
entry.run()
"""


def _modules(*args: str, probe: str = PROBE) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES="))
    return set(json.loads(line[len("MODULES="):]))


@pytest.mark.parametrize("args", [("plan", "llama2-7b", "--json"), ("plan", "llama2-7b", "--gpu", "a100", "--json")],
                         ids=["plan", "plan-gpu"])
def test_plan_json_does_not_import_rich(args):
    assert "rich" not in _modules(*args)


def test_plan_text_does_import_rich():  # the check above can fail: the text view needs it
    assert "rich" in _modules("plan", "llama2-7b")


def test_check_json_does_not_import_rich(tmp_path):
    snap = json.loads(GOOD.read_text())
    snap.pop("_note", None)
    (tmp_path / "s.json").write_text(json.dumps(snap))
    assert "rich" not in _modules("check", "--from", str(tmp_path / "s.json"), "--json")


def test_live_check_json_does_not_import_rich():  # probing this host: the status shown on a terminal only
    assert "rich" not in _modules("check", "--json")


@pytest.mark.parametrize("args", [("check", "--json"), ("check", "--format", "markdown", "--strict")],
                         ids=["json", "markdown"])
def test_entry_point_check_does_not_import_click(args):
    assert "click" not in _modules(*args, probe=ENTRY_PROBE)


def test_entry_point_other_commands_do_import_click():  # the check above can fail: it finds click when loaded
    assert "click" in _modules("rules", "--json", probe=ENTRY_PROBE)


def _fixture(tmp_path, code: str, kind: str) -> str:
    snap = json.loads((GOOD.parents[1] / code / f"{kind}.json").read_text())
    snap.pop("_note", None)
    path = tmp_path / f"{code}-{kind}.json"
    path.write_text(json.dumps(snap))
    return str(path)


def test_check_without_a_reinstall_fix_does_not_import_the_install_engine(tmp_path):
    assert "gpudoctor.install" not in _modules("check", "--from", _fixture(tmp_path, "GD401", "good"), "--json")


def test_check_with_a_reinstall_fix_imports_it(tmp_path):  # GD401's fix comes from the install engine
    assert "gpudoctor.install" in _modules("check", "--from", _fixture(tmp_path, "GD401", "bad"), "--json")


def test_check_without_policy_does_not_import_the_policy_reader(tmp_path):
    assert "gpudoctor.policy" not in _modules("check", "--from", _fixture(tmp_path, "GD401", "good"), "--json")


# Folders of scripts the TARGET interpreter runs (by path, in a subprocess): only they may import a framework.
TARGET_SCRIPT_DIRS = ("scripts", "smoke/runner", "plan/target")
FRAMEWORKS = {"torch", "tensorflow", "jax", "jaxlib", "cupy", "paddle", "mxnet", "onnxruntime", "numba", "cudf"}


def _imported_roots(path: Path) -> set[str]:
    """Every module an import statement in the file names (at any depth: a function's
    lazy import runs in the same process), by its top-level package."""
    import ast

    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
            if node.module.split(".")[:3] in (["gpudoctor", "plan", "target"], ["gpudoctor", "smoke", "runner"]):
                roots.add("torch")  # those scripts import frameworks: loading one is loading them
    return roots


def test_no_framework_is_imported_by_gpudoctors_own_modules():
    package = Path(__file__).resolve().parents[1] / "gpudoctor"
    target_scripts = [p for d in TARGET_SCRIPT_DIRS for p in (package / d).glob("*.py")]
    assert any(FRAMEWORKS & _imported_roots(p) for p in target_scripts)  # the check below can fail
    own = [p for p in package.rglob("*.py") if p not in target_scripts]
    assert {str(p.relative_to(package)): FRAMEWORKS & _imported_roots(p) for p in own
            if FRAMEWORKS & _imported_roots(p)} == {}
