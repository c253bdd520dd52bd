"""What a dependency file says, with the line each thing came from."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A size cap on every input file: dependency files are small.
MAX_FILE_BYTES = 4 << 20


class LintInputError(ValueError):
    """A file that cannot be read or parsed: one line for the user, exit 2."""


@dataclass(frozen=True)
class Req:
    """One requirement a dependency file states (pip, uv, poetry, pixi or conda), with its line."""

    name: str  # PEP 503-normalized: "torch", "flash-attn"; conda names too ("pytorch", "pytorch-cuda")
    spec: str  # PEP 440 specifier text, "==2.7.0+cu126", ">=2.4", "" for any
    line: int
    url: str | None = None  # a direct reference (a wheel URL)
    index: str | None = None  # the index this requirement is bound to (uv/poetry sources, lockfile registry)
    conda: bool = False  # a conda package (environment.yml, pixi [dependencies], pixi.lock conda:)
    build: str | None = None  # conda build string, "cuda126_py311h..."
    marker: str | None = None  # PEP 508 environment marker, "platform_machine == 'x86_64'"
    wheels: tuple[str, ...] = ()  # a lockfile's wheel URLs (or file names) for this package, every platform
    file: str | None = None  # the file it came from when not the one linted (a -r/-c include)


@dataclass(frozen=True)
class ImageRef:
    """A container image a Dockerfile builds from, with its line."""

    ref: str  # "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04"
    line: int


@dataclass
class Source:
    """What one dependency file says: its requirements, indexes, images, Python pin and notes."""

    path: str
    kind: str  # "requirements" | "pyproject" | "uv.lock" | "poetry.lock" | "pixi.toml" | "pixi.lock" | "conda" | "dockerfile"
    reqs: list[Req] = field(default_factory=list)
    indexes: list[tuple[str, int]] = field(default_factory=list)  # index URLs that apply to every requirement
    images: list[ImageRef] = field(default_factory=list)
    python: str | None = None  # a Python the file pins ("3.11"), or its requires-python
    notes: list[str] = field(default_factory=list)
    # Notes that point at a place (an include that cannot be read): (file, line, text).
    notices: list[tuple[str, int, str]] = field(default_factory=list)
    constraints: list[Req] = field(default_factory=list)  # from -c files: versions, not requirements

    def notice(self, file: str, line: int, text: str) -> None:
        self.notices.append((file, line, text))
        self.notes.append(f"{file}:{line}: {text}")

    def find(self, *names: str) -> Req | None:
        for want in names:
            for r in self.reqs:
                if r.name == want:
                    return r
        return None


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def line_of(text: str, needle: str, default: int = 1) -> int:
    """1-based line of the first occurrence of `needle` in `text`."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else default


def package_line(text: str, name: str, version: str) -> int:
    """Line of a lockfile's `name = "..."` followed by its `version = "..."` (uv, Poetry)."""
    m = re.search(rf'^name = "{re.escape(name)}"\s*\nversion = "{re.escape(version)}"', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else line_of(text, f'name = "{name}"')


WHEEL_NAME = re.compile(r"([A-Za-z0-9_.]+)-([^-/]+)-(?:\d[^-/]*-)?([^-/]+)-([^-/]+)-([^-/]+)\.whl$")


def wheel_req(url: str, line: int, conda: bool = False) -> Req | None:
    """A requirement from a wheel URL: name, ==version (with local label), its index."""
    clean = url.split("#", 1)[0].split("?", 1)[0].replace("%2B", "+").replace("%2b", "+")
    m = WHEEL_NAME.search(clean.rsplit("/", 1)[-1])
    if not m:
        return None
    return Req(normalize(m.group(1)), f"=={m.group(2)}", line, url=clean, index=clean.rsplit("/", 1)[0])


def wheel_platform_tags(url: str) -> tuple[str, ...]:
    m = WHEEL_NAME.search(url.split("#", 1)[0].rsplit("/", 1)[-1].replace("%2B", "+"))
    return tuple(m.group(5).split(".")) if m else ()
