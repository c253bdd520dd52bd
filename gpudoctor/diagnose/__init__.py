"""Read a pasted environment report or error into the Snapshot the rules judge.

    diagnosis = read_paste(text, error=None, matrices=load_matrices())
    diagnosis.snapshot   # origin="diagnose"; what no parser found stays unknown
    diagnosis.reads      # every fact with where it was read ("nvidia-smi banner line 3")
    diagnosis.signals    # error lines the catalogue recognised

One paste may mix formats, so every parser reads all of it. Parsers never
raise: a bug in one is recorded in snapshot.probe_errors and the others go on.
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from gpudoctor.diagnose import (
    banners,
    collect_env,
    companion_text,
    cuda_tools,
    ds_report,
    errors,
    freetext,
    installs,
    jax_env,
    library_path,
    nvidia_smi,
    onnxruntime,
    packages,
    repl,
    system,
    tensorflow,
)
from gpudoctor.diagnose.build import build
from gpudoctor.diagnose.collect import Facts, Read, Signal, prefer_the_failing_report
from gpudoctor.diagnose.paste import Paste
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import ProbeError, Snapshot

# Tool formats first; free text last, so that it only fills gaps.
PARSERS: tuple[tuple[str, Callable[[Paste, Facts], None]], ...] = (
    ("nvidia-smi", nvidia_smi.parse),
    ("collect_env", collect_env.parse),
    ("nvcc/deviceQuery", cuda_tools.parse),
    ("ds_report", ds_report.parse),
    ("jax", jax_env.parse),
    ("tensorflow", tensorflow.parse),
    ("onnxruntime issue form", onnxruntime.parse),
    ("banners", banners.parse),
    ("packages", packages.parse),
    ("interpreter output", repl.parse),
    ("errors", errors.parse),
    ("LD_LIBRARY_PATH", library_path.parse),
    ("issue form", system.parse_issue_form),
    ("free text", freetext.parse),
    ("companions in prose", companion_text.parse),
    ("install commands", installs.parse),  # after free text: the OS decides what PyPI's default is
)


@dataclass(frozen=True)
class Diagnosis:
    """What `gpudoctor diagnose` read from the pastes: the Snapshot the rules judge, each
    fact with its source, and where the sources disagreed."""

    snapshot: Snapshot
    reads: tuple[Read, ...]
    signals: tuple[Signal, ...]
    formats: tuple[str, ...]
    conflicts: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.reads and not self.signals


def read_facts(pastes: list[Paste], debug: bool = False) -> tuple[Facts, list[ProbeError]]:
    f = Facts()
    crashed: list[ProbeError] = []
    for p in pastes:
        for name, parse in PARSERS:
            try:
                parse(p, f)
            except Exception as exc:  # noqa: BLE001 - one broken parser must not hide what the others read
                if debug:
                    raise
                tb = traceback.extract_tb(exc.__traceback__)
                where = f" (at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno})" if tb else ""
                crashed.append(ProbeError(f"diagnose {name}", f"{type(exc).__name__}: {exc}{where}"))
    try:
        prefer_the_failing_report(f)
        packages.interpret(f)
    except Exception as exc:  # noqa: BLE001
        if debug:
            raise
        crashed.append(ProbeError("diagnose packages", f"{type(exc).__name__}: {exc}"))
    return f, crashed


def read_paste(text: bytes | str | None, error: bytes | str | None = None, matrices: Matrices | None = None,
               base: Snapshot | None = None, debug: bool = False,
               more: tuple[tuple[bytes | str, str], ...] = ()) -> Diagnosis:
    """`text` is the paste (None when `base`, a snapshot read from gpudoctor's
    own JSON, replaces it); `error` is the --error text; `more` are further
    parts of the same input as (text, label): the tail of a log too large to
    read whole, whose sources then read "LABEL: collect_env line 3"."""
    pastes = ([Paste.of(text)] if text is not None else []) + [Paste.of(part, label) for part, label in more] \
        + ([Paste.of(error, "--error")] if error else [])
    f, crashed = read_facts(pastes, debug)
    snapshot, reads = build(f, matrices)
    if base is not None:
        snapshot, reads = dataclasses.replace(base, origin="diagnose"), [
            Read("snapshot", "gpudoctor snapshot JSON", "the input file")]
    if crashed:
        snapshot = dataclasses.replace(snapshot, probe_errors=snapshot.probe_errors + tuple(crashed))
    return Diagnosis(snapshot, tuple(reads), tuple(f.signals), tuple(f.formats), tuple(f.conflicts))
