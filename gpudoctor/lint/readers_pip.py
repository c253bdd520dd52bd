"""pip's language: requirements files and `pip install` argument lists (also
used for RUN lines of a Dockerfile). Index options are kept, since they
decide which torch build a plain `torch==2.7.0` resolves to."""

from __future__ import annotations

import dataclasses
import re
import shlex

from packaging.requirements import InvalidRequirement, Requirement

from gpudoctor.lint.model import Req, Source, normalize, wheel_req

INDEX_OPTIONS = ("-i", "--index-url", "--extra-index-url")
# Options that take a value we do not need (skip the value too).
VALUE_OPTIONS = ("-c", "--constraint", "-f", "--find-links", "--trusted-host", "--target", "-t", "--prefix",
                 "--root", "--python", "--platform", "--python-version", "--implementation", "--abi",
                 "--cache-dir", "--src", "--progress-bar", "--timeout", "--retries", "--proxy",
                 "--upgrade-strategy", "--no-binary", "--only-binary", "--torch-backend", "-C", "--config-settings")


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


def add_args(source: Source, tokens: list[tuple[str, int]], note_prefix: str = "") -> None:
    """`pip install` arguments (token, line) into `source`."""
    it = iter(tokens)
    for tok, line in it:
        opt, _, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if opt in INDEX_OPTIONS:
            value = inline or next(it, ("", line))[0]
            if value:
                source.indexes.append((value, line))
            continue
        if tok.startswith("-i") and len(tok) > 2:
            source.indexes.append((tok[2:], line))
            continue
        if opt in ("-r", "--requirement"):
            value = inline or next(it, ("", line))[0]
            source.notes.append(f"{note_prefix}line {line}: -r {value} is not followed; lint that file too")
            continue
        if opt in VALUE_OPTIONS:
            if not inline:
                next(it, None)
            continue
        if tok.startswith("-"):
            continue
        req = parse_requirement(tok, line)
        if req is not None:
            source.reqs.append(req)


def read_requirements(path: str, text: str) -> Source:
    source = Source(path, "requirements")
    logical, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not logical:
            start = number
        body = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if body.endswith("\\"):
            logical += body[:-1] + " "
            continue
        logical += body
        _add_line(source, logical.strip(), start)
        logical = ""
    if logical.strip():
        _add_line(source, logical.strip(), start)
    return source


def _add_line(source: Source, line: str, number: int) -> None:
    if not line:
        return
    if line.startswith("-"):
        try:
            tokens = shlex.split(line)
        except ValueError:
            tokens = line.split()
        add_args(source, [(t, number) for t in tokens])
        return
    # A requirement may carry per-line options after it ("torch==2.7.0 --hash=sha256:...").
    req = parse_requirement(re.split(r"\s+--?\w", line, maxsplit=1)[0], number)
    if req is not None:
        source.reqs.append(req)
    else:
        source.notes.append(f"line {number}: not a requirement gpudoctor reads: {line[:80]}")
