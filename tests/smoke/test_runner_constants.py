"""Values the smoke runner (stdlib-only, run by the target interpreter, so it
cannot import gpudoctor) copies by hand from gpudoctor: pinned here so that a
change on one side fails until the other follows."""

import importlib.util

from gpudoctor.matrices import load_matrices
from gpudoctor.smoke import process
from gpudoctor.versions import compute_capability

RUNNER = process.__file__.rsplit("/", 1)[0] + "/runner/gdsmoke_common.py"


def _runner_common():
    spec = importlib.util.spec_from_file_location("gdsmoke_common_under_test", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_event_prefix_is_the_one_the_parent_reads():
    assert _runner_common().EVENT_PREFIX == process.EVENT_PREFIX


# MIN_CC key -> the gpus.toml [[precision]] column it stands for
COLUMNS = {"tensor_cores": "fp16_tensor_cores", "tf32": "tf32", "bf16": "bf16", "fp8": "fp8"}


def test_precision_floors_match_the_gpu_matrix():
    rows = load_matrices(overlay=None).table("gpus", "precision")
    floors = _runner_common().MIN_CC
    assert set(floors) == set(COLUMNS)
    for key, column in COLUMNS.items():
        lowest = min(compute_capability(r.compute_capability) for r in rows if getattr(r, column))
        assert (lowest.major, lowest.minor) == floors[key], f"MIN_CC[{key!r}] vs gpus.toml {column}"
