"""`gpudoctor matrix refresh` against recorded PyPI responses (no network).

The recorded responses are newer than a trimmed copy of the shipped data (the
newest torch series, TensorFlow series, JAX range and cuDNN range removed), so
refresh must re-derive what the hand-verified shipped rows say.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cli_helpers import invoke

from gpudoctor.matrices import load_matrices, overlay_dir
from gpudoctor.matrices.loader import SHIPPED_DIR, load_dir
from gpudoctor.matrices.pypi_metadata import PyPI, RefreshError, pins, python_floor, wheel_pythons
from gpudoctor.matrices.refresh import build_plan, render
from gpudoctor.matrices.tomlwrite import dump

FIXTURES = Path(__file__).parent / "fixtures" / "pypi"
TODAY = "2026-11-30"


class Response:
    def __init__(self, status: int, payload=None, text: str | None = None) -> None:
        self.status_code, self._payload, self._text = status, payload, text

    def json(self):
        if self._text is not None:
            raise ValueError("not JSON")
        return self._payload


class RecordedSession:
    """Serves tests/fixtures/pypi/<name>.json for /pypi/<name>/json; 404 elsewhere."""

    def __init__(self, override: dict[str, Response] | None = None, fail: Exception | None = None) -> None:
        self.urls: list[str] = []
        self.override = override or {}
        self.fail = fail

    def get(self, url: str, timeout: float) -> Response:
        assert timeout > 0
        self.urls.append(url)
        if self.fail:
            raise self.fail
        if url in self.override:
            return self.override[url]
        parts = url.removeprefix("https://pypi.org/pypi/").split("/")
        if len(parts) == 2 and parts[1] == "json" and (FIXTURES / f"{parts[0]}.json").is_file():
            return Response(200, json.loads((FIXTURES / f"{parts[0]}.json").read_text()))
        return Response(404)


SHIPPED = load_matrices(str(SHIPPED_DIR), overlay=None)


@pytest.fixture
def trimmed(tmp_path: Path) -> Path:
    """The shipped data minus what the recordings know to be newer."""
    as_of, data = load_dir(SHIPPED_DIR)
    data["torch"]["release"] = tuple(r for r in data["torch"]["release"] if not r.version.startswith("2.15"))
    data["torch"]["build"] = tuple(b for b in data["torch"]["build"] if b.series != "2.15")
    data["tensorflow"]["release"] = tuple(r for r in data["tensorflow"]["release"] if r.version != "2.21")
    data["jax"]["release"] = data["jax"]["release"][:-1]
    keep = data["cudnn"]["release"][:-1]  # drop the cu13-only 9.28.1 range, end the one before at 9.26.0
    data["cudnn"]["release"] = keep[:-1] + (replace(keep[-1], version_to="9.26.0"),)
    out = tmp_path / "shipped"
    out.mkdir()
    for stem, tables in data.items():
        (out / f"{stem}.toml").write_text(dump("trimmed copy", as_of[stem], {k: list(v) for k, v in tables.items()}))
    return out


def plan_for(shipped_dir: Path, session=None):
    m = load_matrices(str(shipped_dir), overlay=None)
    return m, build_plan(m, PyPI(session or RecordedSession()), TODAY)


def rows(plan, stem, table):
    return plan.rows.get(stem, {}).get(table, [])


def test_torch_release_and_default_build_are_derived_from_metadata(trimmed):
    _, plan = plan_for(trimmed)
    (rel,) = rows(plan, "torch", "release")
    want = SHIPPED.torch_release("2.15.0")
    assert (rel.version, rel.python_min, rel.python_max, rel.released) == \
        (want.version, want.python_min, want.python_max, want.released)
    (build,) = rows(plan, "torch", "build")
    shipped_pypi = SHIPPED.torch_pypi_build("2.15.0")
    assert (build.variant, build.cuda, build.cudnn, build.nccl) == \
        (shipped_pypi.variant, shipped_pypi.cuda, shipped_pypi.cudnn, shipped_pypi.nccl)
    assert build.pypi_default and build.arch_list == ()  # the arch list is not in metadata: unknown
    assert build.source.startswith("https://pypi.org/pypi/torch") and "Derived by" in build.note


def test_tensorflow_series_is_derived_without_prereleases(trimmed):
    _, plan = plan_for(trimmed)
    (rel,) = rows(plan, "tensorflow", "release")
    want = SHIPPED.tensorflow_release("2.21")
    assert rel.version == "2.21" and rel.releases == ("2.21.0",)  # 2.21.0rc0 is left out
    assert (rel.python_min, rel.python_max, rel.and_cuda_cudnn, rel.and_cuda_runtime, rel.cuda, rel.cudnn) == \
        (want.python_min, want.python_max, want.and_cuda_cudnn, want.and_cuda_runtime, want.cuda, want.cudnn)
    assert rel.and_cuda_extra and not rel.windows_native_gpu


def test_jax_range_and_cudnn_range_are_derived(trimmed):
    m, plan = plan_for(trimmed)
    (jax,) = rows(plan, "jax", "release")
    want = SHIPPED.jax_requirements("0.12.0.1")
    assert (jax.version_from, jax.version_to) == (want.version_from, want.version_to)
    assert (jax.cudnn_min, jax.cudnn13_min, jax.python_min, jax.cuda12_min, jax.cuda13_min) == \
        (want.cudnn_min, want.cudnn13_min, want.python_min, want.cuda12_min, want.cuda13_min)
    assert set(want.extras) <= set(jax.extras)
    assert jax.min_sm_cuda13 == m.jax_releases[-1].min_sm_cuda13  # carried over, and the note says so
    assert "carried over" in jax.note
    both, cu13 = rows(plan, "cudnn", "release")  # 9.28.1 has a cu13 wheel only: a range of its own
    assert (both.version_from, both.version_to, both.cuda_majors) == ("9.26.1", "9.28.0", (12, 13))
    assert (cu13.version_from, cu13.version_to, cu13.cuda_majors) == ("9.28.1", "9.28.1", (13,))


def test_nothing_is_derived_against_the_full_shipped_data():
    _, plan = plan_for(SHIPPED_DIR)
    assert plan.count() == 0
    # The toolkit table now reaches CUDA 13.5 (release notes 13.3-13.5), so the recorded 13.5 runtime
    # no longer outruns it; a runtime past the table is still said, not guessed (refresh.py).
    assert not any("CUDA 13.5 is newer than the toolkit table" in n for n in plan.notes), plan.notes


def test_rendered_overlay_passes_the_loader_and_merges_without_replacing(trimmed, tmp_path, monkeypatch):
    _, plan = plan_for(trimmed)
    texts = render(plan, TODAY)
    assert set(texts) == {"torch", "tensorflow", "jax", "cudnn"}
    over = tmp_path / "overlay"
    over.mkdir()
    for stem, text in texts.items():
        (over / f"{stem}.toml").write_text(text)
    load_matrices.cache_clear()
    merged = load_matrices(str(trimmed), overlay=str(over))
    assert merged.newest_known("torch") == "2.15.0" and merged.newest_known("jax") == "0.12.0.1"
    assert merged.jax_requirements("0.12.0").cudnn_min == SHIPPED.jax_requirements("0.12.0").cudnn_min
    assert merged.as_of["torch"] == TODAY


def test_overlay_rows_never_replace_shipped_rows(tmp_path):
    shipped_row = SHIPPED.torch_release("2.14.1")
    fake = replace(shipped_row, python_max="3.99", source="https://pypi.org/pypi/torch/json")
    (tmp_path / "torch.toml").write_text(dump("overlay", "2030-01-01", {"release": [fake]}))
    merged = load_matrices(str(SHIPPED_DIR), overlay=str(tmp_path))
    assert merged.torch_release("2.14.1").python_max == shipped_row.python_max


def test_a_broken_overlay_is_ignored(tmp_path):
    (tmp_path / "torch.toml").write_text("schema_version = 1\n[[release]]\nversion = 3\n")
    merged = load_matrices(str(SHIPPED_DIR), overlay=str(tmp_path))
    assert merged.newest_known("torch") == SHIPPED.newest_known("torch")


@pytest.mark.parametrize("session, message", [
    (RecordedSession(fail=ConnectionError("no route to host")), "cannot reach PyPI"),
    (RecordedSession(fail=TimeoutError("timed out")), "cannot reach PyPI"),
    (RecordedSession({"https://pypi.org/pypi/torch/json": Response(503)}), "HTTP 503"),
    (RecordedSession({"https://pypi.org/pypi/torch/json": Response(200, text="<html>")}), "not JSON"),
    (RecordedSession({"https://pypi.org/pypi/torch/json": Response(200, {"info": {}})}), "no 'releases'"),
    (RecordedSession({"https://pypi.org/pypi/jax/json": Response(200, ["x"])}), "no 'info'"),
], ids=["offline", "timeout", "http-503", "not-json", "no-releases", "not-an-object"])
def test_bad_responses_raise_one_clear_error(session, message):
    with pytest.raises(RefreshError, match=message) as info:
        build_plan(SHIPPED, PyPI(session), TODAY)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("session, code", [
    (RecordedSession(fail=ConnectionError("offline")), 2),
    (RecordedSession({"https://pypi.org/pypi/tensorflow/json": Response(500)}), 2),
])
def test_cli_refresh_failure_writes_nothing_and_exits_2(session, code, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    result = invoke("matrix", "refresh", obj={"session": session, "today": TODAY})
    assert result.exit_code == code
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert "nothing written" in result.stderr
    assert not Path(overlay_dir()).exists()


def test_cli_refresh_writes_the_overlay_then_queries_see_it(trimmed, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    obj = {"session": RecordedSession(), "today": TODAY, "shipped": str(trimmed)}
    dry = invoke("matrix", "refresh", "--dry-run", obj=dict(obj))
    assert dry.exit_code == 0, dry.output
    assert "+version = \"2.15.0\"" in dry.stdout and not Path(overlay_dir()).exists()
    done = invoke("matrix", "refresh", obj=dict(obj))
    assert done.exit_code == 0, done.output
    written = Path(overlay_dir())
    assert sorted(p.name for p in written.glob("*.toml")) == ["cudnn.toml", "jax.toml", "tensorflow.toml", "torch.toml"]
    assert not list(written.glob(".*.tmp"))  # atomic writes leave no temp files
    merged = load_matrices(str(trimmed), overlay=overlay_dir())
    assert merged.torch_pypi_build("2.15.0").cuda == SHIPPED.torch_pypi_build("2.15.0").cuda
    again = invoke("matrix", "refresh", "--dry-run", obj=dict(obj))
    assert "up to date" in again.stdout  # rebuilt from scratch: the same plan, no diff


def test_refresh_against_full_shipped_data_removes_a_stale_overlay(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    Path(overlay_dir()).mkdir(parents=True)
    (Path(overlay_dir()) / "torch.toml").write_text("stale")
    result = invoke("matrix", "refresh", obj={"session": RecordedSession(), "today": TODAY})
    assert result.exit_code == 0 and "nothing newer" in result.stdout
    assert "CUDA 13.5" not in result.stderr and "Traceback" not in result.stderr  # the toolkit table now has 13.5
    assert not (Path(overlay_dir()) / "torch.toml").exists()


def test_metadata_helpers():
    assert python_floor(">=3.10,!=3.14.1") == "3.10" and python_floor("") is None and python_floor("junk") is None
    env = {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "x86_64", "python_version": "3.12"}
    got = pins(['nvidia-cudnn-cu13==9.26.0.51; platform_system == "Linux"',
                'nvidia-nccl-cu12 (==2.18.1)', 'nvidia-cuda-runtime-cu12==12.8.90; platform_machine == "aarch64"',
                'nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"', 'not a requirement ((('], env)
    assert got == {"nvidia-cudnn-cu13": "9.26.0.51", "nvidia-nccl-cu12": "2.18.1"}
    assert pins(['nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"'], env, "and-cuda") == \
        {"nvidia-cublas-cu12": "12.5.3.2"}
    files = [{"filename": "torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl"},
             {"filename": "torch-2.15.0-cp314-cp314t-manylinux_2_28_x86_64.whl"},
             {"filename": "torch-2.15.0.tar.gz"}]
    assert wheel_pythons(files) == [(3, 11)]


def test_a_row_with_per_release_arch_lists_is_written_as_an_inline_table_and_read_back():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    from gpudoctor.matrices.records import TorchBuild
    from gpudoctor.matrices.tomlwrite import row_lines

    row = TorchBuild(series="1.3", variant="cu101", platform="linux-x86_64", source="s", cuda="10.1",
                     arch_list=("sm_50",), patch_arch_lists={"1.3.0": ("sm_35", "sm_50")})
    back = tomllib.loads("\n".join(row_lines("build", row)[1:]))
    assert back["patch_arch_lists"] == {"1.3.0": ["sm_35", "sm_50"]}
    assert "patch_arch_lists" not in "\n".join(row_lines("build", TorchBuild("1.3", "cpu", "linux-x86_64", "s")))
