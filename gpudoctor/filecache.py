"""Results computed from one file, kept in the user cache until the file changes.

Parsing torch.toml costs ~0.1 s, and walking the fatbin of a CUDA build's
libtorch_cuda.so some 5 ms of every `check`; both depend only on the file's
bytes. A result is kept as JSON in $XDG_CACHE_HOME/gpudoctor/parsed (default
~/.cache): one file per kind and path, holding the key it was computed for
(the real path, size, mtime and gpudoctor's version) and rewritten when any of
them changes, so the folder never grows past one file per kind and path. A
changed file, another gpudoctor, a corrupt entry or a read-only home: the
result is computed again, and the answer is the same.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable
from typing import Any, TypeVar

from gpudoctor import __version__

T = TypeVar("T")

# The kinds of entry, each a file-name prefix; anything else in the folder is
# stale (files of older schemes) and pruned.
KINDS = ("m-",  # a data file's parsed TOML (matrices, install channels)
         "f-")  # a CUDA library's fatbin architectures
STALE_TMP_S = 3600.0


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpudoctor", "parsed")


def cached(kind: str, path: str, size: int, mtime_ns: int, compute: Callable[[], T],
           encode: Callable[[T], Any], decode: Callable[[Any], T]) -> T:
    """compute()'s result for the file at `path` (of `size` bytes, modified at
    `mtime_ns`), from the cache when an entry for exactly that file is there.
    encode/decode turn the result into JSON values and back; an entry decode
    refuses (ValueError, TypeError, KeyError) is computed again. An exception
    from compute() is not cached: it propagates."""
    resolved = os.path.realpath(path)
    key = f"{resolved}|{size}|{mtime_ns}|{__version__}"
    directory = cache_dir()
    # Named by the file and a checksum of its path (zlib is loaded already;
    # hashlib would load OpenSSL): two paths that share one only take turns in
    # the file, since the key inside must match.
    stem = os.path.splitext(os.path.basename(path))[0]
    entry_path = os.path.join(directory, f"{kind}{stem}-{zlib.crc32(resolved.encode()):08x}.json")
    try:
        with open(entry_path, encoding="utf-8") as f:
            entry = json.load(f)
        if isinstance(entry, dict) and entry.get("key") == key:
            return decode(entry["value"])
    except (OSError, ValueError, TypeError, KeyError):
        pass
    value = compute()
    try:
        text = json.dumps({"key": key, "value": encode(value)})
        os.makedirs(directory, exist_ok=True)
        tmp = f"{entry_path[:-len('.json')]}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, entry_path)
        prune(directory)
    except (OSError, TypeError, ValueError):
        pass  # a read-only home, or a value JSON cannot hold: computed again next time
    return value


def prune(directory: str) -> None:
    """Remove what other schemes left and temporary files of interrupted writes."""
    now = time.time()
    with os.scandir(directory) as items:
        for item in items:
            name = item.name
            try:
                stale = (not name.startswith(KINDS) and name.endswith(".json")) or (
                    name.endswith(".tmp") and now - item.stat().st_mtime > STALE_TMP_S)
                if stale and item.is_file():
                    os.unlink(item.path)
            except OSError:
                pass
