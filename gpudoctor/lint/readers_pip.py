"""pip's language: requirements files and `pip install` argument lists (also
used for RUN lines of a Dockerfile). Index options are kept, since they
decide which torch build a plain `torch==2.7.0` resolves to.

`-r FILE` and `-c FILE` are followed the way pip follows them (pypa/pip
src/pip/_internal/req/req_file.py, RequirementsFileParser._parse_and_recurse
and handle_option_line): the path is relative to the including file, a file
that includes itself (directly or through others) is an error, `-r` inside a
constraints file adds requirements, and the index options of every file apply
in reading order to the whole install: `--index-url` replaces the index list
read so far, `--extra-index-url` appends to it, `--no-index` empties it."""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.requirements import InvalidRequirement, Requirement

from gpudoctor.lint.model import LintInputError, Req, Source, normalize, wheel_req

INDEX_OPTIONS = ("-i", "--index-url", "--extra-index-url")
INCLUDE_OPTIONS = {"-r": False, "--requirement": False, "-c": True, "--constraint": True}  # -> is a constraint
# Options that take a value we do not need (skip the value too).
VALUE_OPTIONS = ("-f", "--find-links", "--trusted-host", "--target", "-t", "--prefix",
                 "--root", "--python", "--platform", "--python-version", "--implementation", "--abi",
                 "--cache-dir", "--src", "--progress-bar", "--timeout", "--retries", "--proxy",
                 "--upgrade-strategy", "--no-binary", "--only-binary", "--torch-backend", "-C", "--config-settings")
# pip sets no depth limit; a chain this deep is a mistake, and every level costs a file read.
MAX_INCLUDE_DEPTH = 8
MAX_INCLUDED_FILES = 32
_URL = re.compile(r"^(http|https|file):", re.I)  # pip's SCHEME_RE: such includes are fetched, not read here

Loader = Callable[[str], str]  # path -> text; raises LintInputError (missing, too big, not UTF-8)


@dataclass
class Includes:
    """How `-r`/`-c` lines are followed while one requirements file is read."""

    load: Loader
    file: str  # the file being read
    chain: tuple[str, ...]  # absolute paths from the outermost file to this one
    constraint: bool = False  # this file is a constraints file
    counter: list[int] = field(default_factory=lambda: [0])  # files read, shared by the whole tree

    def follow(self, source: Source, value: str, line: int, constraint: bool) -> None:
        opt = "-c" if constraint else "-r"
        if _URL.match(value):
            source.notice(self.file, line, f"{opt} {value}: a URL, not followed; lint that file too")
            return
        target = os.path.normpath(os.path.join(os.path.dirname(self.file), value))
        key = os.path.abspath(target)
        if key in self.chain:
            loop = " -> ".join(os.path.basename(p) for p in self.chain[self.chain.index(key):] + (key,))
            source.notice(self.file, line, f"{opt} {value} includes itself ({loop}); pip refuses this file")
            return
        if len(self.chain) > MAX_INCLUDE_DEPTH or self.counter[0] >= MAX_INCLUDED_FILES:
            source.notice(self.file, line, f"{opt} {value}: not followed (more than {MAX_INCLUDE_DEPTH} levels "
                                           f"or {MAX_INCLUDED_FILES} files of includes)")
            return
        try:
            text = self.load(target)
        except LintInputError as exc:
            source.notice(self.file, line, f"{opt} {value}: {exc}; what it lists is not judged")
            return
        self.counter[0] += 1
        child = Includes(self.load, target, self.chain + (key,), constraint, self.counter)
        _read_lines(source, text, child)


def parse_requirement(text: str, line: int) -> Req | None:
    text = text.strip()
    if not text:
        return None
    if re.match(r"^(https?|file)://\S+\.whl", text):
        return wheel_req(text.split()[0], line)
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    url = req.url if req.url else None
    marker = str(req.marker) if req.marker else None
    if url and url.endswith(".whl"):
        from_url = wheel_req(url, line)
        if from_url is not None:
            return dataclasses.replace(from_url, marker=marker)
    return Req(normalize(req.name), str(req.specifier), line, url=url, marker=marker)


def add_args(source: Source, tokens: list[tuple[str, int]], note_prefix: str = "",
             includes: Includes | None = None) -> None:
    """`pip install` arguments (token, line) into `source`. With `includes` they are a
    line of a requirements file: -r/-c are followed and index options act as pip's do;
    without (a Dockerfile RUN line), -r/-c are noted and index URLs accumulate."""
    it = iter(tokens)
    for tok, line in it:
        opt, _, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if tok.startswith(("-i", "-r", "-c")) and len(tok) > 2 and not tok.startswith("--"):
            opt, inline = tok[:2], tok[2:]  # "-ihttps://..." and "-rbase.txt", as optparse reads them
        if opt in INDEX_OPTIONS:
            value = inline or next(it, ("", line))[0]
            if value:
                if includes is not None and opt != "--extra-index-url":
                    source.indexes.clear()
                source.indexes.append((value, line))
            continue
        if opt == "--no-index":
            if includes is not None:
                source.indexes.clear()
            continue
        if opt in INCLUDE_OPTIONS:
            value = inline or next(it, ("", line))[0]
            if not value:
                continue
            if includes is None:
                source.notes.append(f"{note_prefix}line {line}: {opt} {value} is not followed; lint that file too")
            else:
                includes.follow(source, value, line, INCLUDE_OPTIONS[opt])
            continue
        if opt in VALUE_OPTIONS:
            if not inline:
                next(it, None)
            continue
        if tok.startswith("-"):
            continue
        req = parse_requirement(tok, line)
        if req is not None:
            _add_req(source, req, includes)


def _add_req(source: Source, req: Req, includes: Includes | None) -> None:
    if includes is not None and includes.file != source.path:
        req = dataclasses.replace(req, file=includes.file)
    (source.constraints if includes is not None and includes.constraint else source.reqs).append(req)


def read_requirements(path: str, text: str, load: Loader | None = None) -> Source:
    """A requirements file; `load` reads the files it includes (None: includes are noted)."""
    source = Source(path, "requirements")
    if load is None:
        def load(p: str) -> str:
            raise LintInputError(f"{p} is not read here")
    _read_lines(source, text, Includes(load, path, (os.path.abspath(path),)))
    return source


def _read_lines(source: Source, text: str, includes: Includes) -> None:
    logical, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not logical:
            start = number
        body = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if body.endswith("\\"):
            logical += body[:-1] + " "
            continue
        logical += body
        _add_line(source, logical.strip(), start, includes)
        logical = ""
    if logical.strip():
        _add_line(source, logical.strip(), start, includes)


def _add_line(source: Source, line: str, number: int, includes: Includes) -> None:
    if not line:
        return
    if line.startswith("-"):
        try:
            tokens = shlex.split(line)
        except ValueError:
            tokens = line.split()
        add_args(source, [(t, number) for t in tokens], includes=includes)
        return
    # A requirement may carry per-line options after it ("torch==2.7.0 --hash=sha256:...").
    req = parse_requirement(re.split(r"\s+--?\w", line, maxsplit=1)[0], number)
    if req is not None:
        _add_req(source, req, includes)
    elif includes.file == source.path:
        source.notes.append(f"line {number}: not a requirement gpudoctor reads: {line[:80]}")
    else:
        source.notes.append(f"{includes.file}:{number}: not a requirement gpudoctor reads: {line[:80]}")
