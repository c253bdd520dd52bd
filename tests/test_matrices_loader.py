"""The matrices loader is closed-world, and the shipped data keeps its invariants.

Part 1: one synthetic bad file per error kind; the message names file, row, key.
Part 2: invariants parametrized per shipped row (ids = table and row key).
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import fields

import pytest
from packaging.version import Version

from gpudoctor.compat import parse_arch_list
from gpudoctor.matrices import PYPI_SIMPLE, load_matrices, torch_series
from gpudoctor.matrices.loader import KEYS, SHIPPED_DIR, TABLES, MatrixError, parse_file, row_key
from gpudoctor.versions import compute_capability, cuda_version

GOOD_ROW = '''
[[release]]
version = "2.14.1"
python_min = "3.10"
python_max = "3.14"
source = "https://pypi.org/project/torch/2.14.1/"
'''
HEAD = 'schema_version = 1\ndata_as_of = "2026-11-29"\n'


def parse(body: str, head: str = HEAD, stem: str = "torch"):
    return parse_file(stem, head + body, "torch.toml")


def test_a_good_file_parses_into_frozen_records():
    as_of, tables = parse(GOOD_ROW)
    rel = tables["release"][0]
    assert as_of == "2026-11-29" and rel.version == "2.14.1" and tables["build"] == ()
    with pytest.raises(AttributeError):
        rel.version = "9"  # frozen


@pytest.mark.parametrize("body, head, pattern", [
    pytest.param(GOOD_ROW.replace('python_max', 'pythn_max'), HEAD,
                 r"torch\.toml: release\[0\] \(version='2\.14\.1'\): unknown key 'pythn_max'", id="unknown-key"),
    pytest.param(GOOD_ROW.replace('python_min = "3.10"', 'python_min = 3.10'), HEAD,
                 r"torch\.toml: release\[0\] \(version='2\.14\.1'\): python_min: expected str, got float", id="wrong-type"),
    pytest.param(GOOD_ROW.replace('python_max = "3.14"\n', ''), HEAD,
                 r"torch\.toml: release\[0\] \(version='2\.14\.1'\): missing key 'python_max'", id="missing-key"),
    pytest.param(GOOD_ROW.replace('source = "https://pypi.org/project/torch/2.14.1/"', 'source = "  "'), HEAD,
                 r"torch\.toml: release\[0\] \(version='2\.14\.1'\): source must not be empty", id="empty-source"),
    pytest.param(GOOD_ROW.replace('[[release]]', '[[releases]]'), HEAD,
                 r"torch\.toml: unknown table 'releases'", id="unknown-table"),
    pytest.param(GOOD_ROW, HEAD.replace("= 1", "= 2"),
                 r"torch\.toml: schema_version is 2, expected 1", id="bad-schema-version"),
    pytest.param(GOOD_ROW, "",
                 r"torch\.toml: schema_version is None, expected 1", id="missing-schema-version"),
    pytest.param(GOOD_ROW + "version = [", HEAD, r"torch\.toml: not valid TOML", id="bad-toml"),
    pytest.param(GOOD_ROW + GOOD_ROW, HEAD,
                 r"torch\.toml: release\[1\] \(version='2\.14\.1'\): duplicate key version \(same as release\[0\]\)",
                 id="duplicate-key"),
    pytest.param(GOOD_ROW, HEAD.replace('data_as_of = "2026-11-29"\n', ''),
                 r"torch\.toml: data_as_of must be a date string", id="missing-data-as-of"),
])
def test_loader_rejects_each_error_kind_naming_file_row_and_key(body, head, pattern):
    with pytest.raises(MatrixError, match=pattern):
        parse(body, head)


def test_loader_rejects_an_unknown_file_and_a_non_table_array():
    with pytest.raises(MatrixError, match=r"unknown matrix file 'pytorch'"):
        parse(GOOD_ROW, stem="pytorch")
    with pytest.raises(MatrixError, match=r"release must be an array of tables"):
        parse('release = "x"\n')


def test_wrong_type_inside_a_tuple_names_the_item():
    body = ('[[build]]\nseries = "2.14"\nvariant = "cu130"\nplatform = "linux-x86_64"\n'
            'source = "s"\narch_list = ["sm_90", 120]\n')
    with pytest.raises(MatrixError, match=r"build\[0\] \(series='2\.14', variant='cu130', platform='linux-x86_64'\): "
                                          r"arch_list\[1\]: expected str"):
        parse(body)


# --- Part 2: invariants of the shipped data, one test case per row -----------------------------
M = load_matrices(str(SHIPPED_DIR), overlay=None)
ROWS = [(stem, table, row) for stem in TABLES for table in TABLES[stem] for row in M.table(stem, table)]


def _id(item) -> str:
    stem, table, row = item
    return f"{stem}.{table}:" + ",".join(str(v) for v in row_key(stem, table, row))


ROW_IDS = [_id(x) for x in ROWS]
SOURCE = re.compile(r"(https://\S+|\b[\w.-]+/[\w.-]+ \S+)")
VERSION_FIELDS = {"version", "version_from", "version_to", "python_min", "python_max", "cuda", "cudnn", "nccl",
                  "cuda_from", "cuda_to", "torchvision", "torchaudio", "cuda12_min", "cuda13_min", "cudnn_min",
                  "cudnn13_min", "min_driver_linux", "min_driver_windows", "min_driver_cuda12", "min_driver_cuda13",
                  "cuda_min", "and_cuda_runtime", "and_cuda_cudnn", "series"}
CC_FIELDS = {"compute_capability", "min_sm", "max_sm", "min_sm_cuda12", "min_sm_cuda13"}


def test_every_shipped_file_loads_and_has_rows():
    for stem in ("cuda", "torch", "tensorflow", "jax", "cudnn", "cupy", "onnxruntime"):
        assert M.as_of.get(stem), stem
        assert all(M.table(stem, t) for t in TABLES[stem]), stem


@pytest.mark.parametrize("item", ROWS, ids=ROW_IDS)
def test_row_source_is_a_url_or_repo_path(item):
    _, _, row = item
    assert SOURCE.search(row.source), row.source  # a citation: it names a URL or owner/repo path


@pytest.mark.parametrize("item", ROWS, ids=ROW_IDS)
def test_row_versions_parse_with_packaging(item):
    _, _, row = item
    for f in fields(row):
        value = getattr(row, f.name)
        if f.name in VERSION_FIELDS and isinstance(value, str):
            Version(value)  # raises InvalidVersion
        if f.name in CC_FIELDS and value is not None:
            assert compute_capability(value) is not None, (f.name, value)


@pytest.mark.parametrize("item", [x for x in ROWS if hasattr(x[2], "arch_list") or hasattr(x[2], "sm")],
                         ids=[_id(x) for x in ROWS if hasattr(x[2], "arch_list") or hasattr(x[2], "sm")])
def test_row_arch_entries_parse_and_are_sorted(item):
    _, _, row = item
    entries = tuple(getattr(row, "arch_list", None) or getattr(row, "sm", ()))
    parsed = parse_arch_list(entries)
    assert tuple(str(e) for e in parsed) == entries  # every entry parses, in get_arch_list() order


def _sort_key(stem: str, table: str, row):
    if (stem, table) == ("torch", "build"):
        def variant(v: str):
            if v == "cpu":
                return (0, ())
            if v.startswith("cu"):
                return (1, (int(v[2:-1]), int(v[-1])))
            return (2, tuple(int(x) for x in v.removeprefix("rocm").split(".")))
        plat = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64").index(row.platform)
        return (Version(row.series), plat, variant(row.variant), not row.pypi_default)
    if (stem, table) == ("cupy", "package"):
        return row.cuda_major
    if (stem, table) == ("onnxruntime", "release"):
        return (Version(row.version_from), row.cuda_major)
    if stem == "companions":  # by name, then version (then CUDA major)
        names = KEYS[(stem, table)]
        return tuple(Version(getattr(row, k)) if k in ("version", "framework_version", "version_from", "tag")
                     else (getattr(row, k) or 0) for k in names)
    key = KEYS[(stem, table)][0]
    value = getattr(row, key)
    return value if isinstance(value, int) else Version(value)


@pytest.mark.parametrize("stem, table", [(s, t) for s in TABLES for t in TABLES[s] if s != "gpus"])
def test_rows_are_sorted_and_keys_unique(stem, table):
    rows = M.table(stem, table)
    keys = [_sort_key(stem, table, r) for r in rows]
    assert keys == sorted(keys), f"{stem}.{table} is not sorted"
    assert len({row_key(stem, table, r) for r in rows}) == len(rows)


@pytest.mark.parametrize("stem", ["jax", "cudnn"])
def test_version_ranges_do_not_overlap(stem):
    rows = M.table(stem, "release")
    for a, b in zip(rows, rows[1:]):
        assert a.version_to is not None and Version(a.version_to) < Version(b.version_from), (a.version_from, b.version_from)


def test_onnxruntime_ranges_do_not_overlap_within_a_cuda_major():
    for major in {row.cuda_major for row in M.onnxruntime_releases}:
        rows = sorted((r for r in M.onnxruntime_releases if r.cuda_major == major), key=lambda r: Version(r.version_from))
        for a, b in zip(rows, rows[1:]):
            assert Version(a.version_to) < Version(b.version_from), (major, a.version_from, b.version_from)


@pytest.mark.parametrize("version, majors", [("1.16.2", [11]), ("1.13", [11]), ("1.2.0", [10]), ("1.17.1", [11, 12]),
                                             ("1.19.2", [11, 12]), ("1.30.0", []), ("junk", [])])
def test_onnxruntime_builds_of_a_release(version, majors):
    assert sorted(r.cuda_major for r in M.onnxruntime_builds(version)) == majors


def test_onnxruntime_pypi_build_moves_to_cuda_12_at_1_19():
    # The requirements page: "starting with version 1.19, CUDA 12.x becomes the default version" on PyPI.
    def pypi(v):
        return [r.cuda_major for r in M.onnxruntime_builds(v) if r.on_pypi]
    assert pypi("1.18.1") == [11] and pypi("1.19.0") == [12]


TORCH_BUILDS = list(M.torch_builds)
BUILD_IDS = [_id(("torch", "build", b)) for b in TORCH_BUILDS]


@pytest.mark.parametrize("build", TORCH_BUILDS, ids=BUILD_IDS)
def test_torch_build_references_resolve(build):
    assert any(torch_series(r.version) == build.series for r in M.torch_releases), "series without a release"
    assert build.pypi_default == (build.index_url == PYPI_SIMPLE)
    assert build.index_url == PYPI_SIMPLE or build.index_url.endswith("/" + build.variant)
    if build.variant.startswith("cu"):
        assert cuda_version(build.variant) == cuda_version(build.cuda)
        assert M.toolkit_min_driver(build.cuda), f"CUDA {build.cuda} has no toolkit row"
        compilable = set(M.arch_support(build.cuda))
        sass = [a for a in build.arch_list if a.startswith("sm_")]
        assert set(sass) <= compilable, f"{sass} not compilable by CUDA {build.cuda}"
        if build.cudnn:
            assert M.cudnn_release(build.cudnn) is not None, f"cuDNN {build.cudnn} not in cudnn.toml"
    else:
        assert build.cuda is None and not build.arch_list


@pytest.mark.parametrize("rel", M.torch_releases, ids=[r.version for r in M.torch_releases])
def test_each_torch_release_has_a_pypi_build_per_platform(rel):
    # Every platform the data covers for a series has its PyPI row; series before 1.13 are
    # recorded for Linux x86_64 and Windows only, and before 1.7 PyPI had no Windows wheels
    # (their release rows say so).
    for platform in ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64"):
        if platform != "linux-x86_64" and not M.torch_builds_of(rel.version, platform):
            assert Version(rel.version) < Version("1.13") and "Windows builds are in gpudoctor's data" in rel.note
            continue
        b = M.torch_pypi_build(rel.version, platform)
        if b is None and platform == "windows-x86_64":
            assert Version(rel.version) < Version("1.7") and "No Windows wheels on PyPI" in rel.note
            continue
        assert b is not None and b.pypi_default, platform
    assert Version(rel.python_min) <= Version(rel.python_max)


@pytest.mark.parametrize("rel", M.tensorflow_releases, ids=[r.version for r in M.tensorflow_releases])
def test_tensorflow_rows_resolve(rel):
    assert M.toolkit_min_driver(rel.cuda), f"CUDA {rel.cuda} has no toolkit row"
    assert set(a for a in rel.arch_list if a.startswith("sm_")) <= set(M.arch_support(rel.cuda))
    assert all(torch_series(v) == rel.version for v in rel.releases)
    assert rel.and_cuda_extra == bool(rel.and_cuda_cudnn)
    assert not (rel.windows_native_gpu and Version(rel.version) > Version("2.10"))


@pytest.mark.parametrize("row", M.cupy_packages, ids=[r.package for r in M.cupy_packages])
def test_cupy_packages_name_their_cuda_major(row):
    # cupy-cuda12x for a whole major; cupy-cuda110 for one CUDA version (before the unified 11.2+ wheel).
    per_version = f"cupy-cuda{row.cuda_min.replace('.', '')}" if row.cuda_min else None
    assert row.package in (f"cupy-cuda{row.cuda_major}x", per_version)
    assert M.minor_compat_floor(row.cuda_major) is not None or M.toolkit_min_driver(row.cuda_min)


def test_parsed_toml_is_cached_and_revalidated(tmp_path, monkeypatch):
    import os

    from gpudoctor.matrices import loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    data = tmp_path / "data"
    data.mkdir()
    (data / "cupy.toml").write_text((Path(SHIPPED_DIR) / "cupy.toml").read_text())
    first = loader.load_file(data, "cupy")
    cached = list((tmp_path / "cache" / "gpudoctor" / "parsed").glob("*.json"))
    assert len(cached) == 1
    assert loader.load_file(data, "cupy") == first
    # A corrupt cache entry is ignored, and an edited file is parsed again and re-checked.
    cached[0].write_text("{broken")
    assert loader.load_file(data, "cupy") == first
    (data / "cupy.toml").write_text((Path(SHIPPED_DIR) / "cupy.toml").read_text().replace("cuda_major", "cuda_majr", 1))
    os.utime(data / "cupy.toml", ns=(1, 1))
    with pytest.raises(MatrixError, match="cuda_majr"):
        loader.load_file(data, "cupy")


def _torch_copy(tmp_path, edit=lambda text: text):
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (data / "torch.toml").write_text(edit((Path(SHIPPED_DIR) / "torch.toml").read_text()))
    return data


def test_a_table_is_built_when_first_read_and_a_broken_one_raises_then(tmp_path, monkeypatch):
    from gpudoctor.matrices import loader

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # A build row with a misspelt key: the releases still load; the builds refuse.
    data = _torch_copy(tmp_path, lambda t: t.replace("[[build]]\nseries", "[[build]]\nseriez", 1))
    m = load_matrices(str(data), overlay=None)
    assert m.torch_releases and m.torch_release(m.torch_releases[0].version) is not None
    with pytest.raises(MatrixError, match=r"build\[0\].*seriez"):
        m.torch_builds
    with pytest.raises(MatrixError, match="seriez"):
        loader.load_file(data, "torch")  # a whole file asked for is checked whole


def test_a_broken_overlay_table_leaves_the_shipped_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    overlay = _torch_copy(tmp_path, lambda t: t.replace("[[build]]\nseries", "[[build]]\nseriez", 1))
    merged = load_matrices(str(SHIPPED_DIR), overlay=str(overlay))
    assert merged.torch_builds == M.torch_builds and merged.torch_releases == M.torch_releases
