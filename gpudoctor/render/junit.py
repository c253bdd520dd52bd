"""JUnit XML for GitLab (artifacts:reports:junit) and Jenkins (junit plugin).

One <testcase> per check outcome (classname gpudoctor.<code>, so a test's
identity is stable from run to run), a <failure> per finding that fails the
run, <error> for a rule that crashed or a smoke test that crashed or timed out,
<skipped> for "could not tell". The shape is the Jenkins xunit-plugin's
junit-10.xsd (tests/junit.xsd is the subset this emits, and the tests validate
against it); note that <testsuites> there has no `skipped` attribute.
GitLab ignores the report for the job's status: the exit code decides.
"""

from __future__ import annotations

import datetime
import platform
from xml.sax.saxutils import quoteattr

from gpudoctor.render.outcomes import BROKEN, FAILED, SKIPPED, RunView

# XML 1.0 forbids most control characters, even escaped: drop them.
_BAD_XML = {c: None for c in range(32) if c not in (9, 10, 13)}


def _text(s: str) -> str:
    return s.translate(_BAD_XML).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(s: str) -> str:
    return quoteattr(s.translate(_BAD_XML))


def render(view: RunView, hostname: str | None = None) -> str:
    cases = view.cases
    failures = sum(1 for c in cases if c.status == FAILED)
    errors = sum(1 for c in cases if c.status == BROKEN)
    skipped = sum(1 for c in cases if c.status == SKIPPED)
    seconds = sum(c.seconds or 0.0 for c in cases)
    stamp = datetime.datetime.fromtimestamp(view.finished or 0, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    counts = f'tests="{len(cases)}" failures="{failures}" errors="{errors}"'
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="gpudoctor" {counts} time="{seconds:.3f}">',
           f'  <testsuite name="gpudoctor.{view.command}" {counts} skipped="{skipped}" time="{seconds:.3f}" '
           f'timestamp="{stamp}" hostname={_attr(hostname or platform.node() or "localhost")}>']
    for c in cases:
        head = f'    <testcase classname={_attr("gpudoctor." + c.group)} name={_attr(c.name)}'
        if c.seconds is not None:
            head += f' time="{c.seconds:.3f}"'
        tag = {FAILED: "failure", BROKEN: "error", SKIPPED: "skipped"}.get(c.status)
        if tag is None:
            out.append(head + ("/>" if not c.detail else f"><system-out>{_text(c.detail)}</system-out></testcase>"))
            continue
        kind = c.message.split(":", 1)[0] if c.message else c.status
        out.append(f"{head}><{tag} type={_attr(kind)} message={_attr(c.message)}>{_text(c.detail)}</{tag}></testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out) + "\n"
