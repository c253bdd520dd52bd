"""Poetry: the [tool.poetry] tables of pyproject.toml and poetry.lock.

Shapes read, as real projects write them (tests/fixtures/lint/poetry-*):
- a dependency as a version string, a table (version, source, markers, platform, url)
  or a list of tables ("multiple constraints": one source per platform);
- [tool.poetry.group.NAME.dependencies] and the older [tool.poetry.dev-dependencies];
- [[tool.poetry.source]] with `priority` (primary, supplemental, explicit; the
  deprecated default and secondary) or the older `secondary = true`;
- Poetry 2's [project] dependencies, with [tool.poetry.dependencies] naming only a source;
- poetry.lock packages with `files` (names only, no URLs), a [package.source] of type
  legacy (an index) or url (a wheel), lock 2.1's per-package `markers`, and lock 1.1's
  [metadata.files] table.

Lock format 2.0 (Poetry 1.x) can hold one package twice, e.g. torch 2.6.0 from PyPI and
2.6.0+cu126 from a CUDA index, without saying which installs where: Poetry decides at
install time from the markers of the pyproject constraints that name each source. So the
lock reader takes those markers from the pyproject.toml beside the lock.
"""

from __future__ import annotations

import dataclasses
import re

from gpudoctor.lint.model import Req, Source, line_of, normalize, package_line, wheel_req

# Poetry's source priorities: a primary (or default) source serves every package not bound
# to another, and with one configured PyPI is no longer implicit; supplemental and
# secondary are only asked for what the others lack (PyPI has torch); explicit ones only
# serve the packages that name them. (python-poetry.org/docs/repositories, "Package sources")
_SERVES_ALL = ("primary", "default")


def _deps_tables(poetry: dict) -> list[tuple[str, dict]]:
    """(table header, dependencies table) in the order Poetry reads them."""
    tables = [("[tool.poetry.dependencies]", poetry.get("dependencies") or {})]
    for name, group in (poetry.get("group") or {}).items():
        if isinstance(group, dict) and isinstance(group.get("dependencies"), dict):
            tables.append((f"[tool.poetry.group.{name}.dependencies]", group["dependencies"]))
    if isinstance(poetry.get("dev-dependencies"), dict):
        tables.append(("[tool.poetry.dev-dependencies]", poetry["dev-dependencies"]))
    return [(h, t) for h, t in tables if isinstance(t, dict)]


def _key_line(text: str, header: str, name: str, nth_item: int | None = None) -> int:
    """1-based line of `name = ...` in the table `header` (TOML parsers drop lines); for a
    list of constraints, the line of its nth `{`."""
    start = text.find(header)
    m = re.compile(rf"^[ \t]*[\"']?{re.escape(name)}[\"']?[ \t]*=", re.M).search(text, max(start, 0))
    if m is None:
        return line_of(text, f"{name} =")
    at = m.start()
    for _ in range((nth_item or 0) + 1 if nth_item is not None else 0):
        nxt = text.find("{", at + 1)
        if nxt < 0:
            break
        at = nxt
    return text.count("\n", 0, at) + 1


def _marker(entry: dict) -> str | None:
    """A constraint's `markers` and `platform` ("win32") as one PEP 508 marker."""
    parts = []
    if entry.get("platform"):
        parts.append(f'sys_platform == "{entry["platform"]}"')
    if isinstance(entry.get("markers"), str) and entry["markers"].strip():
        parts.append(f"({entry['markers']})" if parts else entry["markers"])
    return " and ".join(parts) or None


def constraints(poetry: dict) -> list[tuple[str, dict]]:
    """(normalized name, constraint table) for every Poetry dependency, lists flattened."""
    out = []
    for _, table in _deps_tables(poetry):
        for name, value in table.items():
            items = value if isinstance(value, list) else [value]
            for item in items:
                out.append((normalize(name), item if isinstance(item, dict) else {"version": str(item)}))
    return out


def read_poetry_tables(source: Source, data: dict, text: str) -> None:
    """Poetry's tables of a pyproject.toml into `source` (after its [project] deps)."""
    poetry = (data.get("tool") or {}).get("poetry") or {}
    sources = [s for s in poetry.get("source") or [] if isinstance(s, dict) and s.get("name")]
    named = {s["name"]: s.get("url") for s in sources}
    for s in sources:
        priority = s.get("priority") or ("default" if s.get("default") else
                                          "secondary" if s.get("secondary") else "primary")
        if priority in _SERVES_ALL and s.get("url"):
            source.indexes.append((s["url"], line_of(text, s["url"])))
    from_project = {r.name for r in source.reqs}
    first = len(source.reqs)
    for header, table in _deps_tables(poetry):
        for name, value in table.items():
            if name == "python":
                source.python = source.python or str(value)
                continue
            items = value if isinstance(value, list) else [value]
            for nth, item in enumerate(items):
                line = _key_line(text, header, name, nth if isinstance(value, list) else None)
                _add(source, normalize(name), item, named, line, bind_only=normalize(name) in from_project)
    # A constraint placed by marker is more specific than an unplaced one for the same
    # package (torch = "^2.6" beside torch = [{markers = "sys_platform == 'win32'", source
    # = "cu126"}, ...]): where its marker holds, it decides; so it is tried first.
    added = source.reqs[first:]
    source.reqs[first:] = [r for r in added if r.marker] + [r for r in added if not r.marker]


def _add(source: Source, name: str, item, named: dict, line: int, bind_only: bool) -> None:
    if not isinstance(item, dict):
        item = {"version": str(item)}
    index = named.get(item.get("source")) if item.get("source") not in (None, "pypi", "PyPI") else None
    marker = _marker(item)
    if bind_only and "version" not in item and "url" not in item:
        # Poetry 2: [project] lists the requirement, [tool.poetry.dependencies] only its source.
        source.reqs = [dataclasses.replace(r, index=index or r.index, marker=r.marker or marker)
                       if r.name == name else r for r in source.reqs]
        return
    url = item.get("url")
    req = wheel_req(url, line) if isinstance(url, str) and url.endswith(".whl") else None
    if req is None:
        req = Req(name, poetry_spec(str(item.get("version", ""))), line, index=index)
    source.reqs.append(dataclasses.replace(req, marker=marker))


def poetry_spec(spec: str) -> str:
    """Poetry's ^/~ to PEP 440 (enough to choose a release): ^2.1 -> >=2.1,<3."""
    spec = spec.strip()
    if spec in ("", "*"):
        return ""
    if "+" in spec and spec[0] in "^~":
        spec = spec.split("+", 1)[0]  # "^2.2.0+cu121": the source named beside it gives the variant
    m = re.fullmatch(r"\^(\d+)(\.[\d.]+)?", spec)
    if m:
        return f">={m.group(1)}{m.group(2) or ''},<{int(m.group(1)) + 1}"
    m = re.fullmatch(r"~(\d+)\.(\d+)(\.\d+)?", spec)
    if m:
        return f">={m.group(1)}.{m.group(2)}{m.group(3) or ''},<{m.group(1)}.{int(m.group(2)) + 1}"
    if re.fullmatch(r"\d[\w.]*\.\*", spec):
        return f"=={spec}"
    return f"=={spec}" if re.fullmatch(r"\d[\w.+]*", spec) else spec


def _lock_marker(pkg: dict) -> str | None:
    """Lock 2.1 records where a package installs: a marker, or one per dependency group."""
    markers = pkg.get("markers")
    if isinstance(markers, str):
        return markers or None
    if isinstance(markers, dict):
        values = [str(v) for v in markers.values() if v]
        return " or ".join(f"({v})" for v in values) or None
    return None


def _table(data: dict, key: str) -> dict:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _markers_by_source(project: dict | None) -> dict[tuple[str, str | None], str | None]:
    """(package, source name or None for PyPI) -> where the project wants it from there.
    Only constraints that name a source count: they are what splits a package across
    sources; an unbound one (`torch = "^2.6"`) is served by the split."""
    if not project:
        return {}
    out: dict[tuple[str, str | None], list[str | None]] = {}
    for name, item in constraints((project.get("tool") or {}).get("poetry") or {}):
        if "source" not in item:
            continue
        src = None if str(item["source"]).lower() == "pypi" else item["source"]
        out.setdefault((name, src), []).append(_marker(item))
    return {k: (None if None in v else " or ".join(f"({m})" for m in v) if len(v) > 1 else v[0])
            for k, v in out.items()}


def read_lock(path: str, data: dict, text: str, project: dict | None) -> Source:
    source = Source(path, "poetry.lock")
    packages = [p for p in data.get("package") or [] if isinstance(p, dict) and "name" in p]
    meta = _table(data, "metadata")
    old_files = _table(meta, "files")  # lock 1.1
    counts: dict[str, int] = {}
    for pkg in packages:
        counts[normalize(pkg["name"])] = counts.get(normalize(pkg["name"]), 0) + 1
    by_source = _markers_by_source(project)
    marked: list[Req] = []
    unmarked: list[Req] = []
    for pkg in packages:
        req = _lock_req(pkg, text, old_files)
        name = req.name
        if req.marker is None and counts[name] > 1 and _lock_marker(pkg) is None:
            src = _table(pkg, "source")
            key = (name, src.get("reference") if src.get("type") == "legacy" else None)
            if key in by_source:
                req = dataclasses.replace(req, marker=by_source[key])
        (marked if req.marker else unmarked).append(req)
    # Where a package is locked twice, the entries the project placed by marker come first:
    # one of them is what installs where its marker holds.
    source.reqs = marked + unmarked
    for name, n in counts.items():
        if n > 1 and not any(r.marker for r in source.reqs if r.name == name):
            versions = ", ".join(r.spec.lstrip("=") for r in source.reqs if r.name == name)
            source.notes.append(f"{name} is locked {n} times ({versions}) and no marker "
                                f"{'in pyproject.toml ' if project else '(no pyproject.toml beside the lock) '}"
                                "says which installs where: the first is judged")
    source.python = meta.get("python-versions")
    return source


def _lock_req(pkg: dict, text: str, old_files: dict) -> Req:
    name, version = normalize(pkg["name"]), str(pkg.get("version", ""))
    src = _table(pkg, "source")
    files = pkg.get("files") or old_files.get(pkg["name"]) or []
    wheels = tuple(str(f["file"]) for f in files if isinstance(f, dict) and str(f.get("file", "")).endswith(".whl"))
    line = package_line(text, pkg["name"], version)
    marker = _lock_marker(pkg)
    if src.get("type") == "url" and str(src.get("url", "")).endswith(".whl"):
        req = wheel_req(src["url"], line)
        if req is not None:
            return dataclasses.replace(req, marker=marker)
    index = src.get("url") if src.get("type") in ("legacy", "explicit") else None
    return Req(name, f"=={version}" if version else "", line, index=index, marker=marker, wheels=wheels)
