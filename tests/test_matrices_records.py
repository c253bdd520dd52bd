"""The record types live in one module per matrix file and are imported when
first named: a check that loads only some files builds only their classes."""

import dataclasses
import json
import subprocess
import sys

from gpudoctor.matrices import records
from gpudoctor.matrices.loader import TABLES


def test_every_table_names_a_record_type_of_its_own_file():
    named = {name for tables in TABLES.values() for name in tables.values()}
    assert named == set(records.MODULES) == set(records.__all__)
    for stem, tables in TABLES.items():
        for name in tables.values():
            cls = getattr(records, name)
            assert dataclasses.is_dataclass(cls) and cls.__module__ == f"gpudoctor.matrices.records.{stem}"
            assert records.MODULES[name] == stem


def test_a_name_not_there_is_an_attribute_error():
    try:
        records.NoSuchRow  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchRow" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_only_the_files_loaded_build_their_records():
    code = ("import json, sys\n"
            "from gpudoctor.matrices import load_matrices\n"
            "load_matrices(overlay=None).table('cuda', 'toolkit')\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('gpudoctor.matrices.records.'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(out) == ["gpudoctor.matrices.records.cuda"]
