"""`gpudoctor explain GD201` and `gpudoctor explain "ERROR TEXT"`.

A finding code prints its documentation. Anything else is read as an error
message and matched against the error catalogue: the cause, how to confirm
it, the fix and the source of the explanation. On a machine the answer is
tailored: gpudoctor probes it (unless --no-probe) and shows the findings that
bear on that error ("driver 535, torch cu130 → GD201").

Exit codes: 0 explained, 1 no known error matches the text, 2 unknown code or
bad input.
"""

from __future__ import annotations

import difflib
import re
import sys

import click

from gpudoctor.findings import ExitCode
from gpudoctor.render.emit import OutputFormat, Printed, emit


@click.command()
@click.argument("topic", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--no-probe", is_flag=True, help="Do not look at this machine to tailor the answer.")
@click.option("--from", "from_file", metavar="SNAPSHOT.json",
              help="Tailor the answer to a saved snapshot instead of this machine.")
@click.option("--python", "python", metavar="PATH", help="Tailor to this interpreter's environment.")
def explain(topic, as_json, no_probe, from_file, python):
    """Explain a finding code (GD201) or an error message ("CUDA out of memory"; - reads stdin).

    Exit codes: 0 explained, 1 the text matches no known error (try
    `gpudoctor diagnose` with the whole log), 2 unknown code or bad input.
    """
    if topic == ("-",):
        from gpudoctor.inputs import ERROR_TEXT_LIMIT, read_bytes

        text = read_bytes("-", limit=ERROR_TEXT_LIMIT).decode("utf-8", errors="replace")
    else:
        text = " ".join(topic)
    if re.fullmatch(r"\s*GD\d{3}\s*", text, re.I):
        _explain_code(text.strip().upper(), as_json)
        return
    _explain_error(text, as_json, None if no_probe else (from_file, python))


def _explain_code(code: str, as_json: bool) -> None:
    from gpudoctor.render.explain import code_data, render_code
    from gpudoctor.render.json import dumps
    from gpudoctor.ruledocs import doc_text
    from gpudoctor.rules.registry import RULES

    rule = RULES.get(code)
    text = doc_text(code)
    if rule is None or text is None:
        close = difflib.get_close_matches(code, list(RULES), n=3, cutoff=0.5)
        hint = f" (close: {', '.join(close)})" if close else "; `gpudoctor rules` lists them"
        click.echo(f"gpudoctor: unknown code {code}{hint}", err=True)
        sys.exit(ExitCode.USAGE)
    emit("explain", "json" if as_json else "text",
         {OutputFormat.JSON: lambda: dumps(code_data(rule, text)) + "\n",
          OutputFormat.TEXT: Printed(lambda console: render_code(console, rule, text))})


def _explain_error(text: str, as_json: bool, tailor: tuple[str | None, str | None] | None) -> None:
    from gpudoctor.diagnose.catalog import match_text, numbered_matches
    from gpudoctor.render.explain import entry_data, machine_data, render_text
    from gpudoctor.render.json import dumps

    matches = match_text(text)
    matched = {m.line_no for m in matches}  # a line with no match may give its CUDA error by number
    matches += [n for i, line in enumerate(text.splitlines(), 1) if i not in matched for n in numbered_matches(line, i)]
    seen: set[str] = set()
    unique = [m for m in matches if not (m.entry.id in seen or seen.add(m.entry.id))]
    machine = _machine(tailor, [m.entry for m in unique]) if tailor is not None and unique else None
    fmt = "json" if as_json else "text"
    if not unique:
        if as_json:  # an empty answer, so a script can tell; the text view says it on stderr
            emit("explain", fmt, {OutputFormat.JSON: lambda: dumps({"query": text[:2000], "matches": [],
                                                                    "machine": None}) + "\n"})
        click.echo("gpudoctor: no known error matches this text. For a whole log or environment report, run "
                   "`gpudoctor diagnose FILE` (or pipe it: `... | gpudoctor diagnose -`).", err=True)
        sys.exit(ExitCode.FINDINGS)
    emit("explain", fmt, {
        OutputFormat.JSON: lambda: dumps({"query": text[:2000], "matches": [entry_data(m.entry, m.text) for m in unique],
                                          "machine": machine_data(machine) if machine else None}) + "\n",
        OutputFormat.TEXT: Printed(lambda console: render_text(console, unique, machine))})


def _machine(tailor: tuple[str | None, str | None], entries):
    """(snapshot, relevant findings) of this machine or of a saved snapshot."""
    from gpudoctor.commands.check import load_snapshot_file, probe
    from gpudoctor.doctor import judge
    from gpudoctor.matrices import load_matrices
    from gpudoctor.rules.registry import RULES

    from_file, python = tailor
    snapshot = load_snapshot_file(from_file) if from_file else probe(python, deep=False, quiet=True)
    report = judge(snapshot, load_matrices())
    codes = {c for e in entries for c in (*e.related, *(e.code and [e.code] or []))}
    categories = {e.category or (RULES[e.code].category if e.code in RULES else None) for e in entries}
    relevant = [f for f in report.findings if f.code in codes or f.category in categories - {None, "info"}]
    return snapshot, relevant
