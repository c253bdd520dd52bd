"""Line-based readers: conda environment.yml, pixi.lock (both YAML, read
without a YAML library for the few shapes they take) and Dockerfiles."""

from __future__ import annotations

import os
import re
import shlex

from gpudoctor.lint.model import ImageRef, Req, Source, normalize, wheel_req
from gpudoctor.lint.readers_pip import Includes, Loader, add_args, parse_requirement
from gpudoctor.lint.readers_toml import _conda_spec

_CONDA_ITEM = re.compile(r"^\s*-\s+['\"]?(?:(?P<channel>[\w.-]+)::)?(?P<name>[A-Za-z0-9_.-]+)"
                         r"\s*(?P<spec>[=<>!~][^=\s'\"#]*)?(?:=(?P<build>[^\s'\"#]+))?")


def read_environment_yml(path: str, text: str, load: Loader | None = None) -> Source:
    """`load` reads the files `- -r requirements.txt` names in the pip: section: conda hands
    that section to pip as a temporary requirements file in the environment file's directory
    (conda/conda conda/env/installers/pip.py), so includes are relative to it."""
    source = Source(path, "conda")
    includes = Includes(load, path, (os.path.abspath(path),)) if load else None
    section, in_pip, pip_indent = None, False, 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        top = re.match(r"^(\w[\w-]*):", line)
        if top:
            section, in_pip = top.group(1), False
            continue
        if section != "dependencies":
            continue
        if in_pip and indent > pip_indent:
            item = line.strip()[1:].strip().strip("'\"")
            if item.startswith("-"):
                add_args(source, [(t, number) for t in shlex.split(item)], includes=includes)
            else:
                req = parse_requirement(item, number)
                if req is not None:
                    source.reqs.append(req)
            continue
        in_pip = False
        if re.match(r"^\s*-\s*pip:\s*$", line):
            in_pip, pip_indent = True, indent
            continue
        m = _CONDA_ITEM.match(line)
        if not m:
            continue
        name, spec = normalize(m.group("name")), (m.group("spec") or "").lstrip("=")
        if name == "python":
            source.python = spec.rstrip(".*") or None
            continue
        op = "" if not spec else ("" if spec[0] in "<>!~" else "=")
        source.reqs.append(Req(name, _conda_spec(op.replace("=", "") + spec) if spec else "", number, conda=True,
                               build=m.group("build")))
    return source


_PIXI_URL = re.compile(r"^\s*-\s*(?P<kind>conda|pypi):\s*(?P<url>\S+)")
_PIXI_PLATFORM = re.compile(r"^\s{4,8}(?P<platform>(linux|win|osx)-[\w]+):\s*$")
_CONDA_FILE = re.compile(r"/(?P<name>[a-z0-9_.-]+?)-(?P<version>\d[\w.]*)-(?P<build>[\w.]+)\.(conda|tar\.bz2)$")


def read_pixi_lock(path: str, text: str, platform: str = "linux-64", environment: str = "default") -> Source:
    """One environment's packages for one conda platform ("linux-64"):
    environments: -> NAME: -> packages: -> linux-64: -> "- conda: URL" / "- pypi: URL".
    The default environment, or the first one with packages for the platform when it has none."""
    source = Source(path, "pixi.lock")
    top = env = current = None
    by_env: dict[str, list[Req]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        key = re.match(r"^(?P<indent> *)(?P<key>[\w.-]+):\s*(?:\{\})?\s*$", raw)
        if key:
            depth = len(key.group("indent"))
            if depth == 0:
                top, env, current = key.group("key"), None, None
            elif depth == 2 and top == "environments":
                env, current = key.group("key"), None
            elif _PIXI_PLATFORM.match(raw):
                current = key.group("key")
            continue
        u = _PIXI_URL.match(raw)
        if not u or top != "environments" or env is None or current != platform:
            continue
        url = u.group("url")
        if u.group("kind") == "pypi":
            req = wheel_req(url, number) if url.endswith(".whl") else None
        else:
            c = _CONDA_FILE.search(url)
            req = Req(normalize(c.group("name")), f"=={c.group('version')}", number, url=url, conda=True,
                      build=c.group("build")) if c else None
        if req is not None:
            by_env.setdefault(env, []).append(req)
    chosen = environment if by_env.get(environment) else next(iter(by_env), None)
    if chosen is None:
        source.notes.append(f"no {platform} packages in any environment")
        return source
    if chosen != environment:
        source.notes.append(f"environment {environment!r} has no {platform} packages; judged {chosen!r} "
                            f"(others: {', '.join(e for e in by_env if e != chosen) or 'none'})")
    source.reqs = by_env[chosen]
    return source


_PIP_INSTALL = re.compile(r"(?:^|&&|;|\|\||\bthen\b|\bdo\b)\s*(?:\S*/)?(?:(?:python3?(?:\.\d+)?\s+-m\s+)?pip3?|uv\s+pip)"
                          r"\s+install\b(?P<args>.*?)(?=&&|;|\|\||$)", re.S)


def read_dockerfile(path: str, text: str) -> Source:
    """FROM images (the final stage's chain) and `pip install` in RUN lines."""
    source = Source(path, "dockerfile")
    args: dict[str, str] = {}
    stages: dict[str, str] = {}  # stage name -> the image it starts from
    for number, line in _instructions(text):
        word, _, rest = line.partition(" ")
        word = word.upper()
        rest = _substitute(rest.strip(), args)
        if word == "ARG":
            name, _, default = rest.partition("=")
            if default:
                args.setdefault(name.strip(), default.strip().strip("'\""))
        elif word == "ENV":
            for key, value in re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", rest):
                args[key] = value.strip('"')
        elif word == "FROM":
            words = [t for t in rest.split() if not t.startswith("--")]
            image = stages.get(words[0].lower(), words[0]) if words else ""
            if len(words) >= 3 and words[1].lower() == "as":
                stages[words[2].lower()] = image
            if image and image != "scratch":
                source.images.append(ImageRef(image, number))
        elif word == "RUN":
            for m in _PIP_INSTALL.finditer(rest):
                try:
                    tokens = shlex.split(m.group("args").replace("\\\n", " "))
                except ValueError:
                    tokens = m.group("args").split()
                add_args(source, [(t, number) for t in tokens], note_prefix="")
    return source


def _instructions(text: str):
    """(first line number, instruction with continuations joined)."""
    buf, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if not buf:
            start = number
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        buf += stripped
        yield start, buf
        buf = ""
    if buf:
        yield start, buf


def _substitute(text: str, args: dict[str, str]) -> str:
    """${NAME}, ${NAME:-default} and $NAME from earlier ARG/ENV lines."""
    def sub(m: re.Match) -> str:
        name = m.group(1) or m.group(3)
        if name in args:
            return args[name]
        return m.group(2) if m.group(2) is not None else m.group(0)

    return re.sub(r"\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)", sub, text)
