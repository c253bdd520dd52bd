"""Self-contained scripts run by the TARGET interpreter in a subprocess.

Each uses only the standard library (plus, for deep.py, the framework it
imports) and works on Python 3.8+, because the environment being judged may be
much older than gpudoctor's own.
"""

from __future__ import annotations

import os

SCRIPTS_DIR = os.path.dirname(os.path.realpath(__file__))


def script_path(name: str) -> str:
    """Absolute path of the script file `name` ("target_info.py")."""
    return os.path.join(SCRIPTS_DIR, name)
