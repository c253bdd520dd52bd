"""What the target environment has installed that changes the plan (bitsandbytes'
release for QLoRA), read with the target interpreter's importlib.metadata: the
package is never imported, here or there."""

from __future__ import annotations

import re

from gpudoctor.host import run_command

PROBE = ("import importlib.metadata as m\n"
         "try:\n    print(m.version('bitsandbytes'))\nexcept m.PackageNotFoundError:\n    print('-')\n")
TIMEOUT = 20.0


def bnb_version(python: str) -> tuple[str | None, str]:
    """(version or None, what happened, for the plan's notes)."""
    result = run_command([python, "-c", PROBE], timeout=TIMEOUT)
    if result.timed_out:
        return None, f"{python} did not answer within {TIMEOUT:.0f} s: bitsandbytes' release not read"
    if result.error or result.returncode != 0:
        why = result.error or f"exit {result.returncode}"
        return None, f"cannot run {python} ({why}): bitsandbytes' release not read"
    line = (result.stdout.strip().splitlines() or ["-"])[-1].strip()
    if line == "-":
        return None, f"bitsandbytes is not installed in {python}"
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+\-]{0,40}", line):
        return None, f"{python} reported an unreadable bitsandbytes version"
    return line, f"bitsandbytes {line} (read from {python})"
