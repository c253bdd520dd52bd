"""The TARGET interpreter: the Python whose environment is judged.

gpudoctor may live in its own pipx/uv tool environment and judge another venv
or conda env (`--python PATH`). Everything about that interpreter (version,
sys.path, venv or conda) is read once, by running a stdlib-only script with it;
when the target is gpudoctor's own interpreter the same function runs in-process.
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
import threading

from gpudoctor.child import kill_running_commands
from gpudoctor.frozen import frozen
from gpudoctor.host import Host, RealHost
from gpudoctor.scripts import script_path

TARGET_TIMEOUT_S = 10.0
TARGET_SCRIPT = script_path("target_info.py")


class TargetPythonError(ValueError):
    """The target interpreter is missing or unusable; the message is one line
    meant for the user (the CLI prints it and exits 2)."""


@frozen
class TargetInfo:
    """What the target interpreter says about itself (version, prefixes, sys.path, platform)."""

    python: str  # as resolved from --python (or gpudoctor's own interpreter)
    version: str  # "3.11.7"
    executable: str
    prefix: str
    base_prefix: str
    path: tuple[str, ...]  # sys.path, in order
    source: str  # how it was read
    implementation: str = "CPython"
    user_site: str | None = None
    system: str = ""  # platform.system(): "Linux"
    machine: str = ""
    release: str = ""
    libc: str | None = None  # "glibc 2.36"
    conda_prefix: str | None = None  # CONDA_PREFIX as the target sees it

    @property
    def is_venv(self) -> bool:
        return posixpath.normpath(self.prefix) != posixpath.normpath(self.base_prefix)

    @classmethod
    def from_data(cls, python: str, data: dict, source: str) -> TargetInfo:
        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        def opt(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) and value else None

        path = data.get("path")
        if not isinstance(path, list) or not text("version") or not text("prefix"):
            raise TargetPythonError(f"--python {python}: its self-description lacks version, prefix or sys.path")
        return cls(
            python=python, version=text("version"), executable=text("executable") or python,
            prefix=text("prefix"), base_prefix=text("base_prefix") or text("prefix"),
            path=tuple(p for p in path if isinstance(p, str) and p), source=source,
            implementation=text("implementation") or "CPython", user_site=opt("user_site"),
            system=text("system"), machine=text("machine"), release=text("release"),
            libc=opt("libc"), conda_prefix=opt("conda_prefix"),
        )


# Files that mark gpudoctor's own interpreter as a tool environment: nobody
# means to judge that one, so the environment the user activated is judged.
TOOL_ENV_MARKERS = (("pipx_metadata.json", "pipx"), ("uv-receipt.toml", "uv tool"))
ACTIVE_ENV_VARS = ("VIRTUAL_ENV", "CONDA_PREFIX")  # an activated venv wins over the conda env around it
ACTIVE_MARK = "the active environment"


def active_environment(host: Host) -> tuple[str, str] | None:
    """(interpreter, why) for the active venv or conda env, when gpudoctor runs
    from its own pipx or uv-tool environment and another one is activated."""
    own_prefix = posixpath.dirname(posixpath.dirname(host.python))
    kind = next((k for marker, k in TOOL_ENV_MARKERS if host.exists(posixpath.join(own_prefix, marker))), None)
    if kind is None:
        return None
    env = host.env()
    for var in ACTIVE_ENV_VARS:
        root = env.get(var)
        if not root or posixpath.normpath(root) == posixpath.normpath(own_prefix):
            continue
        for name in ("bin/python", "bin/python3"):
            candidate = posixpath.join(root, name)
            if host.exists(candidate):
                return candidate, f"{ACTIVE_MARK}, {var}={root}; gpudoctor itself runs from its {kind} environment"
    return None


def resolve_python(host: Host, python: str | None) -> str:
    """The interpreter path for `--python`: a path, a venv/conda dir, or a name on PATH."""
    if python is None:
        return host.python
    if not python.strip():
        raise TargetPythonError("--python: empty interpreter path")
    if "/" not in python:
        found = host.which(python)
        if not found:
            raise TargetPythonError(f"--python {python}: not found on PATH")
        return found
    if host.is_dir(python):
        for name in ("bin/python", "bin/python3"):
            candidate = posixpath.join(python, name)
            if host.exists(candidate):
                return candidate
        raise TargetPythonError(f"--python {python}: a directory without bin/python")
    if not host.exists(python):
        raise TargetPythonError(f"--python {python}: no such file")
    return python


def _is_own_interpreter(host: Host, python: str) -> bool:
    # Compare paths without resolving links: a venv's bin/python links to the
    # base interpreter but is a different environment.
    return isinstance(host, RealHost) and os.path.abspath(python) == os.path.abspath(sys.executable)


def interrogate(host: Host, python: str | None = None) -> TargetInfo:
    """Read the target interpreter once; raise TargetPythonError if it cannot be."""
    active = active_environment(host) if python is None else None
    exe = active[0] if active else resolve_python(host, python)
    if _is_own_interpreter(host, exe):
        from gpudoctor.scripts import target_info  # noqa: PLC0415 - only needed in-process

        return TargetInfo.from_data(exe, target_info.describe(), "in-process (gpudoctor's own interpreter)")
    res = host.run([exe, TARGET_SCRIPT], timeout=TARGET_TIMEOUT_S)
    if not res.ok:
        raise TargetPythonError(f"--python {exe}: could not run it ({_why(res.describe(), exe)})")
    line = next((ln for ln in reversed(res.stdout.splitlines()) if ln.startswith("{")), "")
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise TargetPythonError(f"--python {exe}: did not describe itself (is it a Python 3.8+ interpreter?)")
    source = f"{exe} {posixpath.basename(TARGET_SCRIPT)}" + (f" ({active[1]})" if active else "")
    return TargetInfo.from_data(exe, data, source)


class Interrogation:
    """interrogate() started in a thread: the target interpreter starts and
    describes itself while gpudoctor imports the rest of itself, and `result`
    answers exactly what interrogate would (its TargetPythonError included)."""

    def __init__(self, host: Host, python: str | None) -> None:
        self._info: TargetInfo | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._run, args=(host, python), daemon=True)
        self._thread.start()

    def _run(self, host: Host, python: str | None) -> None:
        try:
            self._info = interrogate(host, python)
        except Exception as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc

    def result(self) -> TargetInfo:
        # Bounded: interrogate's own command has TARGET_TIMEOUT_S. Ctrl-C and
        # SIGTERM arrive here, not in the worker: kill its command on the way out.
        try:
            self._thread.join()
        except BaseException:
            kill_running_commands()
            raise
        if self._error is not None:
            raise self._error
        assert self._info is not None
        return self._info


def _why(described: str, exe: str) -> str:
    # CommandResult.describe() starts with the whole argv; the user knows it.
    prefix = f"{exe} {TARGET_SCRIPT}: "
    return described[len(prefix):] if described.startswith(prefix) else described
