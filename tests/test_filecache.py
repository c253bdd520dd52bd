"""gpudoctor.filecache: a result computed from a file is reused while the file
is the same, and computed again whenever anything about the entry is off."""

from __future__ import annotations

import os

import pytest

from gpudoctor import filecache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "gpudoctor" / "parsed"


def _counted(value):
    calls = []

    def compute():
        calls.append(1)
        return value

    return compute, calls


def _get(path, compute, size=10, mtime=1):
    return filecache.cached("f-", str(path), size, mtime, compute, list, tuple)


def test_kept_while_the_file_is_the_same_and_computed_again_when_it_changes(tmp_path, cache):
    compute, calls = _counted((1, 2))
    data = tmp_path / "lib.so"
    assert _get(data, compute) == (1, 2) and _get(data, compute) == (1, 2) and len(calls) == 1
    assert _get(data, compute, size=11) == (1, 2) and len(calls) == 2  # another size
    assert _get(data, compute, size=11, mtime=2) == (1, 2) and len(calls) == 3  # another mtime
    assert len(list(cache.iterdir())) == 1  # one entry per kind and path, rewritten


def test_a_corrupt_or_foreign_entry_is_computed_again(tmp_path, cache):
    compute, calls = _counted((3,))
    data = tmp_path / "lib.so"
    _get(data, compute)
    (entry,) = cache.iterdir()
    for broken in ("{broken", "[]", '{"key": 1}', entry.read_text().replace('"value"', '"doc"')):
        entry.write_text(broken)
        assert _get(data, compute) == (3,)
    assert len(calls) == 5


def test_an_error_is_not_kept_and_an_unwritable_cache_still_answers(tmp_path, cache, monkeypatch):
    def fails():
        raise ValueError("bad file")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad file"):
            _get(tmp_path / "x", fails)
    (tmp_path / "ro").write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "ro"))
    compute, calls = _counted((4,))
    assert _get(tmp_path / "y", compute) == (4,) and _get(tmp_path / "y", compute) == (4,) and len(calls) == 2


def test_prune_keeps_every_kind_and_drops_other_schemes(tmp_path, cache):
    compute, _ = _counted((5,))
    _get(tmp_path / "a", compute)
    filecache.cached("m-", str(tmp_path / "b.toml"), 1, 1, lambda: {"x": 1}, dict, dict)
    (cache / ("0" * 32 + ".json")).write_text("{}")  # an older scheme's leftover
    old_tmp = cache / "f-a-1.123.tmp"
    old_tmp.write_text("")
    os.utime(old_tmp, (1, 1))
    _get(tmp_path / "c", compute)  # a write prunes
    assert sorted(p.name[:2] for p in cache.iterdir()) == ["f-", "f-", "m-"]
