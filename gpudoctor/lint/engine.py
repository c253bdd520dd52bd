"""Read each file, resolve its builds against the target machine, judge
them with the check rules, and point every finding at a file and line."""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from dataclasses import dataclass

from gpudoctor.findings import Finding, Location, RuleResult, sort_findings
from gpudoctor.install.target import Target
from gpudoctor.lint import readers_pip, readers_text, readers_toml
from gpudoctor.lint.model import MAX_FILE_BYTES, LintInputError, Source
from gpudoctor.lint.resolve import Resolved, resolve
from gpudoctor.rules.registry import all_rules, run_rules
from gpudoctor.snapshot import Driver, Fact, Gpu, Snapshot, System

# Rule families that judge builds against a machine; the rest judge the live
# host itself (driver state, hardware health) and have nothing to say about a file.
BUILD_FAMILIES = ("cuda", "arch", "libraries", "frameworks", "companions")

_CONDA_PLATFORM = {"linux-x86_64": "linux-64", "linux-aarch64": "linux-aarch64", "windows-x86_64": "win-64"}


@dataclass(frozen=True)
class FileReport:
    """What `gpudoctor lint` found in one file, its findings pointed at lines."""

    path: str
    kind: str
    builds: tuple[Resolved, ...]
    findings: tuple[Finding, ...]
    results: tuple[RuleResult, ...]
    notes: tuple[str, ...]
    notices: tuple[tuple[str, int, str], ...] = ()  # notes with a place: (file, line, text)


def kind_of(path: str, text: str) -> str:
    name = posixpath.basename(path.replace(os.sep, "/")).lower()
    if name == "pyproject.toml":
        return "pyproject"
    if name in ("uv.lock", "poetry.lock", "pixi.toml", "pixi.lock"):
        return name
    if name.startswith(("dockerfile", "containerfile")) or name.endswith((".dockerfile", ".containerfile")):
        return "dockerfile"
    if name.endswith((".yml", ".yaml")) and re.search(r"^dependencies:", text, re.M):
        return "conda"
    if name.endswith((".txt", ".in")) or name.startswith("requirements"):
        return "requirements"
    raise LintInputError(f"{path}: not a file lint reads (requirements*.txt, pyproject.toml, uv.lock, "
                         "poetry.lock, pixi.toml, pixi.lock, environment.yml, Dockerfile)")


def read_text(path: str) -> str:
    """A dependency file's text, within the size cap; LintInputError says why not."""
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise LintInputError(f"{path}: {size} bytes, over the {MAX_FILE_BYTES} byte limit")
        with open(path, encoding="utf-8") as fh:
            return fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise LintInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise LintInputError(f"{path} is not UTF-8 text") from None


def read_source(path: str, platform: str = "linux-x86_64") -> Source:
    text = read_text(path)
    kind = kind_of(path, text)
    if kind == "requirements":
        return readers_pip.read_requirements(path, text, load=read_text)
    if kind == "conda":
        return readers_text.read_environment_yml(path, text, load=read_text)
    if kind == "pixi.lock":
        return readers_text.read_pixi_lock(path, text, _CONDA_PLATFORM.get(platform, "linux-64"))
    if kind == "poetry.lock":
        # Which of several locked builds of a package installs where is decided by the
        # markers in pyproject.toml beside the lock (lock format 2.0 does not record them).
        project = os.path.join(os.path.dirname(path), "pyproject.toml")
        try:
            project_text = read_text(project) if os.path.isfile(project) else None
        except LintInputError:
            project_text = None
        return readers_toml.read_poetry_lock(path, text, project_text)
    readers = {"pyproject": readers_toml.read_pyproject, "uv.lock": readers_toml.read_uv_lock,
               "pixi.toml": readers_toml.read_pixi_toml, "dockerfile": readers_text.read_dockerfile}
    return readers[kind](path, text)


def host_from_target(target: Target) -> Snapshot:
    """A described machine as the Snapshot the rules read."""
    src = "described (--driver/--gpu/--sm/--python/--os/--arch)"
    gpus = tuple(Gpu(index=i, name=g.name or f"GPU with {g.cc.sm}", source=src,
                     compute_capability=f"{g.cc.major}.{g.cc.minor}") for i, g in enumerate(target.gpus))
    return Snapshot(
        origin="file",
        system=System(os=Fact(target.os, src), machine=Fact(target.arch, src),
                      python=Fact(target.python_text, src) if target.python else Fact()),
        driver=Driver(version=Fact(target.driver, src) if target.driver else Fact(),
                      cuda_api=Fact(target.driver_cuda, src) if target.driver_cuda else Fact()),
        gpus=() if target.cpu_only else (gpus if gpus else None),
    )


def _subject_of(f: Finding, lines: dict[str, int]) -> str | None:
    """The name in a finding's subject ("GPU 0 × torch") that the file has a line for."""
    parts = [p.strip() for p in (f.subject or "").split(" × ")]
    for part in parts + list(reversed(parts)):
        if part in lines:
            return part
    return "torch" if "torch" in lines else "image" if "image" in lines else None


def _location(f: Finding, path: str, res) -> Location:
    subject = _subject_of(f, res.lines)
    if subject is None:
        return Location(path, None)
    return Location(res.files.get(subject, path), res.lines[subject])


def lint_file(path: str, host: Snapshot, platform: str, matrices, debug: bool = False) -> FileReport:
    source = read_source(path, platform)
    res = resolve(source, host, matrices, platform)
    rules = [r for r in all_rules() if r.family in BUILD_FAMILIES]
    results = run_rules(res.snapshot, matrices, rules, debug=debug)
    findings = []
    for r in results:
        for f in r.findings:
            findings.append(dataclasses.replace(f, location=_location(f, path, res)))
    return FileReport(path, source.kind, tuple(res.builds), tuple(sort_findings(findings)), tuple(results),
                      tuple(source.notes + res.notes), tuple(source.notices))
