"""TOML files: pyproject.toml (PEP 621, uv sources/indexes, Poetry), uv.lock,
poetry.lock, pixi.toml. Lines come from searching the text, since TOML
parsers drop them."""

from __future__ import annotations

import dataclasses
import re
import sys

from gpudoctor.lint import readers_poetry
from gpudoctor.lint.model import LintInputError, Req, Source, line_of, normalize, package_line, wheel_req
from gpudoctor.lint.readers_pip import parse_requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib


def _load(path: str, text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LintInputError(f"{path} is not valid TOML: {exc}") from None


def _dep_line(text: str, dep: str, name: str) -> int:
    line = line_of(text, f'"{dep}"', 0) or line_of(text, f"'{dep}'", 0)
    return line or line_of(text, name)


def read_pyproject(path: str, text: str) -> Source:
    data = _load(path, text)
    source = Source(path, "pyproject")
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    deps = list(project.get("dependencies") or [])
    for group in (project.get("optional-dependencies") or {}).values():
        deps += list(group or [])
    for group in (data.get("dependency-groups") or {}).values():
        deps += [d for d in group or [] if isinstance(d, str)]
    uv = (data.get("tool") or {}).get("uv") or {}
    indexes = {ix.get("name"): ix.get("url") for ix in uv.get("index") or [] if isinstance(ix, dict)}
    sources = uv.get("sources") or {}
    for dep in deps:
        if not isinstance(dep, str):
            continue
        req = parse_requirement(dep, _dep_line(text, dep, dep))
        if req is None:
            continue
        bound = sources.get(req.name) or sources.get(req.name.replace("-", "_"))
        index = _uv_index(bound, indexes)
        source.reqs.append(dataclasses.replace(req, index=index) if index else req)
    for ix in uv.get("index") or []:
        if isinstance(ix, dict) and ix.get("url") and not ix.get("explicit"):
            source.indexes.append((ix["url"], line_of(text, ix["url"])))
    readers_poetry.read_poetry_tables(source, data, text)
    source.python = project.get("requires-python") or source.python
    return source


def _uv_index(bound, indexes: dict) -> str | None:
    """[tool.uv.sources] torch = { index = "pytorch-cu126" } or a list of them with markers
    (the first Linux one wins: lint judges a Linux or Windows target)."""
    entries = bound if isinstance(bound, list) else [bound] if isinstance(bound, dict) else []
    for e in entries:
        if isinstance(e, dict) and e.get("index") in indexes:
            marker = str(e.get("marker", ""))
            if "darwin" in marker and "!=" not in marker:
                continue
            return indexes[e["index"]]
    return None


def read_uv_lock(path: str, text: str) -> Source:
    data = _load(path, text)
    source = Source(path, "uv.lock")
    # [[package]] tables in file order: the n-th table's `name =` line is the n-th match.
    lines = [text.count("\n", 0, m.start()) + 2 for m in re.finditer(r"^\[\[package\]\]\s*\n", text, re.M)]
    packages = data.get("package") or []
    for i, pkg in enumerate(packages):
        if not isinstance(pkg, dict) or "name" not in pkg:
            continue
        name, version = normalize(pkg["name"]), str(pkg.get("version", ""))
        src = pkg.get("source") or {}
        index = src.get("registry") if isinstance(src, dict) else None
        line = lines[i] if len(lines) == len(packages) else package_line(text, pkg["name"], version)
        wheels = [w.get("url") for w in pkg.get("wheels") or [] if isinstance(w, dict) and w.get("url")]
        url = src.get("url") if isinstance(src, dict) and str(src.get("url", "")).endswith(".whl") else None
        source.reqs.append(Req(name, f"=={version}" if version else "", line, url=url, index=index,
                               wheels=tuple(wheels)))
    source.python = data.get("requires-python")
    return source


def read_poetry_lock(path: str, text: str, project_text: str | None = None) -> Source:
    """poetry.lock; `project_text` is the pyproject.toml beside it (its markers place
    packages the lock holds twice)."""
    project = None
    if project_text is not None:
        try:
            project = tomllib.loads(project_text)
        except tomllib.TOMLDecodeError:
            project = None
    return readers_poetry.read_lock(path, _load(path, text), text, project)


def read_pixi_toml(path: str, text: str) -> Source:
    data = _load(path, text)
    source = Source(path, "pixi.toml")
    tables = [data] + [f for f in (data.get("feature") or {}).values() if isinstance(f, dict)]
    for table in tables:
        for name, value in (table.get("dependencies") or {}).items():
            spec = value if isinstance(value, str) else value.get("version", "") if isinstance(value, dict) else ""
            build = value.get("build") if isinstance(value, dict) else None
            line = line_of(text, f"{name} =")
            if name == "python":
                source.python = str(spec).lstrip("=<>~ ").split(",")[0].rstrip(".*") or None
                continue
            source.reqs.append(Req(normalize(name), _conda_spec(str(spec)), line, conda=True, build=build))
        for name, value in (table.get("pypi-dependencies") or {}).items():
            spec = value if isinstance(value, str) else value.get("version", "") if isinstance(value, dict) else ""
            index = value.get("index") if isinstance(value, dict) else None
            url = value.get("url") if isinstance(value, dict) else None
            req = wheel_req(url, line_of(text, f"{name} =")) if url and url.endswith(".whl") else None
            source.reqs.append(req or Req(normalize(name), "" if spec == "*" else str(spec),
                                          line_of(text, f"{name} ="), index=index))
        cuda = (table.get("system-requirements") or {}).get("cuda")
        if cuda:
            source.notes.append(f"line {line_of(text, 'cuda =')}: [system-requirements] cuda = {cuda!r}")
    return source


def _conda_spec(spec: str) -> str:
    """A conda match spec's version part as PEP 440: '2.5.*' -> '==2.5.*', '>=2.4' stays."""
    spec = spec.strip()
    if spec in ("", "*"):
        return ""
    if re.fullmatch(r"\d[\w.]*\*?", spec):
        return f"=={spec}" if "*" in spec or spec.count(".") >= 2 else f"=={spec}.*"
    return spec.replace(" ", "")
