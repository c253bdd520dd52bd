"""A site's policy file: what this machine must have, beyond "does it work".

Read from `gpudoctor.toml` (keys at the top) or a pyproject.toml's
`[tool.gpudoctor]` table. Closed world: an unknown key or a bad value is a
PolicyError naming the file, the key and the reason (exit 2), never a guess.

    driver_min = "550.54.14"          # the driver release floor
    precisions = ["bf16"]             # the job needs these on every GPU (GD612 becomes an error)
    fail_on_warnings = ["GD708"]      # these warnings fail the run; `true` for all of them
    [gpus]
    count = 8                         # exactly this many visible GPUs (or min_count = 4)
    models = ["H100", "A100 80GB"]    # every GPU is one of these (words of the name)
    [frameworks]
    torch = ">=2.6,<2.10"             # a PEP 440 specifier; "*" for any version
    [[ignore]]
    code = "GD605"
    reason = "PCIe link is x8 by design on these boards"
    expires = 2027-03-31              # optional; after it the finding counts again (GD906)
    subject = "GPU 3"                 # optional; default: every subject

The findings it raises are GD9xx (gpudoctor.rules.policy).
"""

from __future__ import annotations

import datetime
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from gpudoctor.matrices.records.gpus import PRECISIONS
from gpudoctor.versions import driver_tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_POLICY_BYTES = 256 * 1024
FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy")
TOP_KEYS = {"schema_version", "driver_min", "precisions", "fail_on_warnings", "gpus", "frameworks", "ignore"}


class PolicyError(Exception):
    def __init__(self, file: str, key: str, reason: str) -> None:
        super().__init__(f"policy {file}: {key}: {reason}" if key else f"policy {file}: {reason}")


@dataclass(frozen=True)
class Ignore:
    """A policy `ignore` entry: a finding code set aside, for a reason, until it expires."""

    code: str
    reason: str
    expires: datetime.date | None = None
    subject: str | None = None

    def covers(self, code: str, subject: str | None) -> bool:
        return code == self.code and (self.subject is None or self.subject == subject)

    def expired(self, today: datetime.date) -> bool:
        return self.expires is not None and today > self.expires


@dataclass(frozen=True)
class Policy:
    """What a site's policy file requires of this machine, and the findings it ignores."""

    file: str
    driver_min: str | None = None
    precisions: tuple[str, ...] = ()
    fail_on_warnings: bool | tuple[str, ...] = False
    gpu_count: int | None = None
    gpu_min_count: int | None = None
    gpu_models: tuple[str, ...] = ()
    frameworks: tuple[tuple[str, str], ...] = ()  # (name, specifier text)
    ignore: tuple[Ignore, ...] = ()

    def warning_fails(self, code: str) -> bool:
        return self.fail_on_warnings is True or (isinstance(self.fail_on_warnings, tuple)
                                                 and code in self.fail_on_warnings)


def load_policy(path: str) -> Policy:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_POLICY_BYTES:
            raise PolicyError(path, "", f"larger than {MAX_POLICY_BYTES // 1024} KiB")
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(path, "", f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PolicyError(path, "", "not UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(path, "", f"not valid TOML: {exc}") from None
    if p.name == "pyproject.toml":
        doc = doc.get("tool", {}).get("gpudoctor")
        if not isinstance(doc, dict):
            raise PolicyError(path, "tool.gpudoctor", "no [tool.gpudoctor] table")
        prefix = "tool.gpudoctor."
    else:
        prefix = ""
    return parse_policy(doc, path, prefix)


def parse_policy(doc: dict, file: str, prefix: str = "") -> Policy:
    def bad(key: str, reason: str) -> PolicyError:
        return PolicyError(file, prefix + key, reason)

    _no_unknown(doc, TOP_KEYS, "", bad)
    if doc.get("schema_version", 1) != 1:
        raise bad("schema_version", f"version {doc['schema_version']!r} is not supported (only 1)")
    driver_min = doc.get("driver_min")
    if driver_min is not None and (not isinstance(driver_min, str) or driver_tuple(driver_min) is None):
        raise bad("driver_min", f"must be a driver release such as \"550.54.14\", got {driver_min!r}")
    precisions = _str_list(doc, "precisions", bad)
    for x in precisions:
        if x not in PRECISIONS:
            raise bad("precisions", f"unknown precision {x!r} (one of {', '.join(PRECISIONS)})")
    fail = doc.get("fail_on_warnings", False)
    if not isinstance(fail, bool):
        fail = _str_list(doc, "fail_on_warnings", bad)
        _codes(fail, "fail_on_warnings", bad)
    gpus = _table(doc, "gpus", bad)
    _no_unknown(gpus, {"count", "min_count", "models"}, "gpus.", bad)
    count, min_count = (_positive(gpus, k, "gpus.", bad) for k in ("count", "min_count"))
    if count is not None and min_count is not None:
        raise bad("gpus", "give count or min_count, not both")
    models = _str_list(gpus, "models", bad, "gpus.")
    frameworks = _table(doc, "frameworks", bad)
    fws = []
    for name, spec in frameworks.items():
        if name not in FRAMEWORKS:
            raise bad(f"frameworks.{name}", f"unknown framework (one of {', '.join(FRAMEWORKS)})")
        if not isinstance(spec, str):
            raise bad(f"frameworks.{name}", f"must be a version specifier string, got {spec!r}")
        if spec.strip() != "*":
            try:
                SpecifierSet(spec)
            except InvalidSpecifier:
                raise bad(f"frameworks.{name}", f"not a version specifier: {spec!r}") from None
        fws.append((name, spec.strip()))
    return Policy(file, driver_min, tuple(precisions), fail if isinstance(fail, bool) else tuple(fail),
                  count, min_count, tuple(models), tuple(fws), _ignores(doc.get("ignore", []), bad))


def _ignores(raw, bad) -> tuple[Ignore, ...]:
    if not isinstance(raw, list):
        raise bad("ignore", "must be an array of tables ([[ignore]])")
    out = []
    for i, row in enumerate(raw):
        key = f"ignore[{i}]"
        if not isinstance(row, dict):
            raise bad(key, "must be a table with code and reason")
        _no_unknown(row, {"code", "reason", "expires", "subject"}, key + ".", bad)
        code, reason = row.get("code"), row.get("reason")
        _codes([code] if isinstance(code, str) else [repr(code)], key + ".code", bad)
        if not isinstance(reason, str) or not reason.strip():
            raise bad(key + ".reason", "every ignored code needs a reason")
        expires = row.get("expires")
        if expires is not None and not (isinstance(expires, datetime.date)
                                        and not isinstance(expires, datetime.datetime)):
            raise bad(key + ".expires", f"must be a TOML date such as 2027-03-31, got {expires!r}")
        subject = row.get("subject")
        if subject is not None and not isinstance(subject, str):
            raise bad(key + ".subject", f"must be a string such as \"GPU 0\", got {subject!r}")
        out.append(Ignore(code, reason.strip(), expires, subject))
    return tuple(out)


def _no_unknown(table: dict, known: set[str], prefix: str, bad) -> None:
    for k in table:
        if k not in known:
            raise bad(prefix + k, f"unknown key (known: {', '.join(sorted(known))})")


def _table(doc: dict, key: str, bad) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise bad(key, f"must be a table ([{key}])")
    return value


def _str_list(doc: dict, key: str, bad, prefix: str = "") -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise bad(prefix + key, f"must be a list of strings, got {value!r}")
    return value


def _positive(doc: dict, key: str, prefix: str, bad) -> int | None:
    value = doc.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise bad(prefix + key, f"must be a whole number >= 0, got {value!r}")
    return value


def _codes(codes: list[str], key: str, bad) -> None:
    import re

    for c in codes:
        if not re.fullmatch(r"GD\d{3}", c):
            raise bad(key, f"not a finding code such as GD201: {c}")
