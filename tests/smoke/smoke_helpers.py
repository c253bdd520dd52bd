"""Helpers shared by the smoke tests (imported by name: tests/smoke is on sys.path)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import jsonschema

from gpudoctor.host import RealHost

HERE = Path(__file__).resolve().parent
SCHEMA = HERE.parents[1] / "gpudoctor" / "schema" / "smoke.v1.json"


def fake_env(libdir: Path, **fake: object) -> dict[str, str]:
    """An environment whose libcuda.so.1 is the fake one, set up by FAKE_* variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    env["LD_LIBRARY_PATH"] = str(libdir)
    env.update({f"FAKE_{k.upper()}": str(v) for k, v in fake.items()})
    return env


def fake_host(libdir: Path, **fake: object) -> RealHost:
    """A real host whose environment loads the fake libcuda."""
    return RealHost(environ=fake_env(libdir, **fake))


def write_runner(tmp_path: Path, *parts: str, name: str = "runner.py") -> str:
    """A replacement runner script (it ignores the runner's arguments); each
    part is dedented on its own."""
    path = tmp_path / name
    path.write_text("import json, os, signal, sys, time\n" + "".join(textwrap.dedent(p) for p in parts))
    return str(path)


def validate(report_json: dict) -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(report_json, schema, cls=jsonschema.Draft202012Validator)


def event_line(**fields: object) -> str:
    return "@@gdsmoke " + json.dumps(fields)
