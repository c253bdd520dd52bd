"""Install commands as text, quoted for the target's shell.

Every argument goes through `quote_arg`: POSIX shells get shlex.quote;
Windows (cmd and PowerShell) gets double quotes around anything that is not
plainly safe, and arguments that could never be quoted safely there are
refused. Commands are built from argument lists, never by pasting strings.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import field

from gpudoctor.frozen import frozen

_WIN_SAFE = re.compile(r"^[A-Za-z0-9_@+=:,./\\-]+$")
_WIN_UNQUOTABLE = re.compile(r'["%!^`$\r\n]')


@frozen
class Commands:
    """The install commands for the chosen build, one per installer."""

    pip: str | None = None
    uv: str | None = None
    uv_project: str | None = None  # pyproject.toml snippet
    conda: str | None = None
    mamba: str | None = None
    pixi: str | None = None  # pixi.toml snippet
    conda_note: str = ""  # which channel the conda command uses, or why there is none
    setup: tuple[str, ...] = ()  # commands to run first (system CUDA for old TF on Windows)
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {"pip": self.pip, "uv": self.uv, "uv_project": self.uv_project, "conda": self.conda,
                "mamba": self.mamba, "pixi": self.pixi, "conda_note": self.conda_note,
                "setup": list(self.setup)}


def quote_arg(arg: str, os_name: str = "linux") -> str:
    if os_name != "windows":
        return shlex.quote(arg)
    if _WIN_SAFE.match(arg):
        return arg
    if _WIN_UNQUOTABLE.search(arg):
        raise ValueError(f"cannot quote {arg!r} safely for a Windows shell")
    return f'"{arg}"'


def join(args: list[str] | tuple[str, ...], os_name: str = "linux") -> str:
    return " ".join(quote_arg(a, os_name) for a in args)


def python_launcher(python_executable: str | None) -> list[str]:
    """`python -m pip` runs the pip of the interpreter that will import the framework."""
    return [python_executable or "python", "-m", "pip"]


# How pip and uv reach a wheel source: the flag, and the URL as the flag wants it.
INDEX_FLAGS = {"index": "--index-url", "extra-index": "--extra-index-url", "find-links": "--find-links",
               "find-links-page": "--find-links"}  # a page given whole (jax_cuda_releases.html)


def source_url(index_url: str, index_kind: str = "index") -> str:
    """torch <= 1.10 lists its wheels on a flat torch_stable.html page, not a simple index."""
    return f"{index_url.rstrip('/')}/torch_stable.html" if index_kind == "find-links" else index_url


def pip_install(requirements: list[str], os_name: str, *, index_url: str | None = None,
                python_executable: str | None = None, index_kind: str = "index") -> str:
    args = [*python_launcher(python_executable), "install", *requirements]
    if index_url:
        args += [INDEX_FLAGS[index_kind], source_url(index_url, index_kind)]
    return join(args, os_name)


def uv_pip_install(requirements: list[str], os_name: str, *, torch_backend: str | None = None,
                   index_url: str | None = None, python_executable: str | None = None,
                   index_kind: str = "index") -> str:
    args = ["uv", "pip", "install"]
    if python_executable:
        args += ["--python", python_executable]
    args += requirements
    if torch_backend:
        args.append(f"--torch-backend={torch_backend}")
    elif index_url:
        args += [INDEX_FLAGS[index_kind], source_url(index_url, index_kind)]
    return join(args, os_name)


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


_SYS_PLATFORM = {"linux": "linux", "windows": "win32", "macos": "darwin"}


# The [project] a printed pyproject.toml needs to be a valid file on its own
# (PEP 621: name and version; uv also wants requires-python to resolve).
PROJECT_NAME = "gpu-env"
PROJECT_VERSION = "0.1.0"


def requires_python(python: str | None, python_min: str | None) -> str:
    """'>=3.11' for the target's Python, else the release's own floor."""
    floor = python or python_min or "3.10"  # the oldest Python current CuPy, torch and jax support
    return f">={floor}"


def uv_project_snippet(dependencies: list[str], os_name: str, *, python: str | None = None,
                       index_name: str | None = None, index_url: str | None = None,
                       from_index: tuple[str, ...] = (), index_kind: str = "index") -> str:
    """A complete pyproject.toml: [project] (name, version, requires-python,
    dependencies) and, for a non-PyPI index, an explicit [[tool.uv.index]] with
    [tool.uv.sources] routing only the framework's own packages there (on this
    OS only). `python` is the requires-python floor, "3.11"."""
    lines = ["[project]", f"name = {_toml_str(PROJECT_NAME)}", f"version = {_toml_str(PROJECT_VERSION)}",
             f"requires-python = {_toml_str(requires_python(python, None))}",
             "dependencies = [" + ", ".join(_toml_str(d) for d in dependencies) + "]"]
    if index_name and index_url:
        marker = f"sys_platform == '{_SYS_PLATFORM.get(os_name, os_name)}'"
        lines += ["", "[[tool.uv.index]]", f"name = {_toml_str(index_name)}",
                  f"url = {_toml_str(source_url(index_url, index_kind))}"]
        if index_kind in ("find-links", "find-links-page"):
            lines.append('format = "flat"')  # a find-links page, not a simple index
        lines += ["explicit = true", "", "[tool.uv.sources]"]
        lines += [f"{pkg} = [{{ index = {_toml_str(index_name)}, marker = {_toml_str(marker)} }}]"
                  for pkg in from_index]
    return "\n".join(lines)


def conda_install(tool: str, specs: list[str], channels: list[str], os_name: str) -> str:
    args = [tool, "install"]
    for ch in channels:
        args += ["-c", ch]
    args += specs
    return join(args, os_name)


# gpudoctor's platform keys -> conda's subdirs, which pixi's `platforms` takes.
CONDA_SUBDIR = {"linux-x86_64": "linux-64", "linux-aarch64": "linux-aarch64", "windows-x86_64": "win-64",
                "macos-arm64": "osx-arm64", "macos-x86_64": "osx-64"}


def pixi_snippet(channels: list[str], deps: dict[str, str], cuda_major: int | None = None,
                 platform: str = "linux-x86_64") -> str:
    """A complete pixi.toml: pixi refuses a workspace without `platforms`."""
    lines = ["[workspace]", f"name = {_toml_str(PROJECT_NAME)}",
             "channels = [" + ", ".join(_toml_str(c) for c in channels) + "]",
             f"platforms = [{_toml_str(CONDA_SUBDIR.get(platform, platform))}]"]
    if cuda_major:
        lines += ["", "[system-requirements]", f"cuda = {_toml_str(str(cuda_major))}"]
    lines += ["", "[dependencies]"] + [f"{name} = {_toml_str(spec)}" for name, spec in deps.items()]
    return "\n".join(lines)
