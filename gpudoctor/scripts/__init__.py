"""Self-contained scripts run by the TARGET interpreter in a subprocess.

Each uses only the standard library (plus, for deep.py, the framework it
imports) and works on Python 3.8+, because the environment being judged may be
much older than gpudoctor's own.
"""

from __future__ import annotations

from pathlib import Path

SCRIPTS_DIR = Path(__file__).resolve().parent


def script_path(name: str) -> str:
    """Absolute path of the script file `name` ("target_info.py")."""
    return str(SCRIPTS_DIR / name)
