"""The target interpreter: resolving --python, and clear errors when it is unusable."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from fakes import FakeCommand, FakeHost
from probe_builders import Machine

from gpudoctor.host import RealHost
from gpudoctor.probes import TargetPythonError, collect
from gpudoctor.probes.target import TARGET_SCRIPT, interrogate, resolve_python


def test_missing_python_is_a_one_line_error():
    with pytest.raises(TargetPythonError, match=r"^--python /opt/nope/bin/python: no such file$"):
        collect(FakeHost(), python="/opt/nope/bin/python")


def test_name_not_on_path():
    with pytest.raises(TargetPythonError, match="python3.99: not found on PATH"):
        resolve_python(FakeHost(), "python3.99")


def test_name_on_path_and_venv_directory():
    host = FakeHost(executables={"python3.12": "/usr/bin/python3.12"}, files={"/srv/env/bin/python": ""})
    assert resolve_python(host, "python3.12") == "/usr/bin/python3.12"
    assert resolve_python(host, "/srv/env") == "/srv/env/bin/python"
    with pytest.raises(TargetPythonError, match="a directory without bin/python"):
        resolve_python(host, "/srv")


@pytest.mark.parametrize("command, message", [
    (FakeCommand(["/x/python", TARGET_SCRIPT], returncode=1, stderr="SyntaxError: invalid syntax\n"),
     "could not run it (exit 1 SyntaxError: invalid syntax)"),
    (FakeCommand(["/x/python", TARGET_SCRIPT], error="Permission denied"), "could not run it (Permission denied)"),
    (FakeCommand(["/x/python", TARGET_SCRIPT], stdout="Python 2.7.18\n"), "did not describe itself"),
    (FakeCommand(["/x/python", TARGET_SCRIPT], stdout='{"version": "3.9.1"}\n'), "lacks version, prefix"),
])
def test_broken_python(command, message):
    host = FakeHost(commands=[command], files={"/x/python": ""})
    with pytest.raises(TargetPythonError) as info:
        collect(host, python="/x/python")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_hung_python_times_out(monkeypatch):
    from gpudoctor.probes import target

    monkeypatch.setattr(target, "TARGET_TIMEOUT_S", 0.2)
    host = FakeHost(commands=[FakeCommand(["/x/python", TARGET_SCRIPT], hang_s=5)], files={"/x/python": ""})
    with pytest.raises(TargetPythonError, match="timed out"):
        collect(host, python="/x/python")


def test_target_facts_come_from_the_target():
    m = Machine(python="/opt/py38/bin/python3.8", prefix="/opt/py38", base_prefix="/opt/py38",
                site="/opt/py38/lib/python3.8/site-packages", version="3.8.18")
    snap = collect(m.finish())
    assert (snap.system.python.value, snap.system.python_executable.value) == ("3.8.18", "/opt/py38/bin/python3.8")
    assert snap.system.glibc.value == "2.35" and snap.system.machine.value == "x86_64"


# --- real interpreters -------------------------------------------------------

def test_real_missing_and_non_python_interpreters():
    with pytest.raises(TargetPythonError, match="no such file"):
        collect(RealHost(), python="/nonexistent/bin/python")
    false = "/bin/false" if os.path.exists("/bin/false") else "/usr/bin/false"
    with pytest.raises(TargetPythonError, match="could not run it"):
        collect(RealHost(), python=false)


def test_target_script_in_a_subprocess_agrees_with_in_process():
    own = interrogate(RealHost())
    assert own.source.startswith("in-process")
    out = subprocess.run([sys.executable, TARGET_SCRIPT], capture_output=True, text=True, timeout=30, check=True)
    data = json.loads(out.stdout)
    assert (data["version"], data["prefix"], data["executable"]) == (own.version, own.prefix, own.executable)
    assert os.path.dirname(TARGET_SCRIPT) not in data["path"]


def test_another_real_interpreter_is_run_not_imported():
    """The base interpreter behind a venv is another environment: it is asked in a subprocess."""
    base = os.path.realpath(sys.executable)
    if os.path.abspath(base) == os.path.abspath(sys.executable):
        pytest.skip("gpudoctor's interpreter is not a link; no second interpreter to compare")
    info = interrogate(RealHost(), base)
    assert info.source.endswith("target_info.py") and info.version == ".".join(map(str, sys.version_info[:3]))
    assert info.python == base


def test_an_interrogation_started_early_answers_what_interrogate_does():
    """check starts the target interpreter before importing its judge; the
    snapshot must not depend on that."""
    from gpudoctor.probes.target import Interrogation

    base = os.path.realpath(sys.executable)
    assert Interrogation(RealHost(), base).result() == interrogate(RealHost(), base)
    with pytest.raises(TargetPythonError, match=r"^--python /opt/nope/bin/python: no such file$"):
        Interrogation(FakeHost(), "/opt/nope/bin/python").result()
    early = collect(RealHost(), python=base, started=Interrogation(RealHost(), base))
    assert early.system == collect(RealHost(), python=base).system
