"""Fixes that reinstall a framework come from the install engine, so that
`check` and `install` never disagree about which build works here."""

from __future__ import annotations

from gpudoctor.findings import Fix
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import Framework, Snapshot


def reinstall_fix(s: Snapshot, m: Matrices, fw: Framework, why: str) -> Fix:
    """A Fix whose commands install a build of `fw` that works on this machine."""
    # Imported here: the install engine is needed only when a rule fires, and it
    # always ships with gpudoctor.
    from gpudoctor.install.from_snapshot import fix_for_snapshot

    fix = fix_for_snapshot(s, m, fw.name, why)
    if fix is not None:
        return fix
    return Fix(f"{why} `gpudoctor install {fw.name}` prints the exact command for this machine.",
               (f"gpudoctor install {fw.name}",))
