"""Rule documentation: gpudoctor/docs/rules/GDnnn.md, one file per code.

Each file has a title line and the sections "What it checks", "Why it
matters" and "How to fix" (optionally "Exceptions" and "Related"). `explain`
prints them; a test makes sure every registered code has one.
"""

from __future__ import annotations

import re
from importlib import resources

REQUIRED_SECTIONS = ("What it checks", "Why it matters", "How to fix")


def doc_text(code: str) -> str | None:
    try:
        return (resources.files("gpudoctor") / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None


def sections(text: str) -> dict[str, str]:
    """{heading: body} for the '## ' sections of a doc."""
    out: dict[str, str] = {}
    for m in re.finditer(r"^## (.+?)\n(.*?)(?=^## |\Z)", text, re.S | re.M):
        out[m.group(1).strip()] = m.group(2).strip()
    return out
