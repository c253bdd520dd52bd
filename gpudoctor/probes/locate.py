"""Where libraries and packages live: shared look-ups for the probes.

The dynamic loader's view (LD_LIBRARY_PATH, /etc/ld.so.cache, default dirs),
dist-info directories of the target environment, library file names and the
version numbers hidden in them, and C header #defines.
"""

from __future__ import annotations

import posixpath
import re

from gpudoctor.frozen import frozen, mutable
from gpudoctor.host import Host
from gpudoctor.probes.context import Context

LD_SO_CACHE = "/etc/ld.so.cache"
# Searched by the loader after LD_LIBRARY_PATH and the cache.
DEFAULT_LIB_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
# Where drivers and their user-space libraries are commonly found even when
# the cache does not list them (WSL, containers, Kubernetes device plugins).
EXTRA_LIB_DIRS = (
    "/usr/lib/wsl/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
)


def normalize(name: str) -> str:
    """PEP 503 name: 'nvidia_cudnn_cu12' -> 'nvidia-cudnn-cu12'."""
    return re.sub(r"[-_.]+", "-", name).lower()


@frozen
class Dist:
    """An installed distribution, from its .dist-info or .egg-info directory."""

    name: str  # normalized
    version: str
    path: str  # the .dist-info / .egg-info directory
    site_dir: str

    @property
    def label(self) -> str:
        return posixpath.basename(self.path)


_DIST_DIR = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(?:-py[\d.]+)?\.(?:dist|egg)-info$")


def dists_in(ctx: Context, site_dir: str) -> dict[str, Dist]:
    """The distributions installed in one directory, read from dir names only."""

    def compute() -> dict[str, Dist]:
        out: dict[str, Dist] = {}
        for entry in ctx.listdir(site_dir):
            m = _DIST_DIR.match(entry)
            if m:
                name = normalize(m.group("name"))
                out.setdefault(name, Dist(name, m.group("version"), posixpath.join(site_dir, entry), site_dir))
        return out

    return ctx.cached(f"dists:{site_dir}", compute)


def find_dist(ctx: Context, *names: str) -> Dist | None:
    """The first of `names` installed on the target's sys.path (first dir wins,
    as for importlib)."""
    wanted = [normalize(n) for n in names]
    for site_dir in ctx.search_dirs():
        found = dists_in(ctx, site_dir)
        for name in wanted:
            if name in found:
                return found[name]
    return None


class Metadata:
    """Core metadata headers (METADATA / PKG-INFO): repeated keys kept in order."""

    def __init__(self, headers: list[tuple[str, str]] | None = None) -> None:
        self.headers = headers or []

    def get(self, key: str, default: str | None = None) -> str | None:
        return next((v for k, v in self.headers if k.lower() == key.lower()), default)

    def get_all(self, key: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == key.lower()]


def parse_metadata(text: str) -> Metadata:
    """RFC 822-style headers up to the first blank line (the long description
    follows it); a line starting with whitespace continues the previous one."""
    headers: list[tuple[str, str]] = []
    for line in text.split("\n\n", 1)[0].splitlines():
        if line[:1] in (" ", "\t") and headers:
            key, value = headers[-1]
            headers[-1] = (key, value + " " + line.strip())
        elif ":" in line:
            key, value = line.split(":", 1)
            headers.append((key.strip(), value.strip()))
    return Metadata(headers)


def read_metadata(host: Host, dist: Dist) -> Metadata:
    """The core metadata of an installed distribution (empty when unreadable)."""
    for name in ("METADATA", "PKG-INFO"):
        text = host.read_text(posixpath.join(dist.path, name), limit=256 * 1024)
        if text is not None:
            return parse_metadata(text)
    return Metadata()


def ld_library_path_dirs(ctx: Context) -> tuple[str, ...]:
    raw = ctx.env.get("LD_LIBRARY_PATH", "")
    return tuple(d for d in raw.split(":") if d and posixpath.isabs(d))


def ld_cache_paths(ctx: Context, stem: str) -> tuple[str, ...]:
    """Library paths in /etc/ld.so.cache whose file name starts with `stem`
    ("libcudnn.so"). The cache's string table holds each full path once, so
    the paths are read from it directly, without parsing the entry records."""
    entries = ctx.cached("ld.so.cache", lambda: _ld_cache_strings(ctx.host))
    return tuple(p for p in entries if posixpath.basename(p).startswith(stem))


def _ld_cache_strings(host: Host) -> tuple[str, ...]:
    raw = host.read_bytes(LD_SO_CACHE)
    if not raw:
        return ()
    seen: dict[str, None] = {}
    for chunk in raw.split(b"\0"):
        if chunk.startswith(b"/") and b"/lib" in chunk:
            seen.setdefault(chunk.decode("utf-8", "replace"), None)
    return tuple(seen)


def lib_files(ctx: Context, directory: str, stem: str) -> list[str]:
    """Files in `directory` named `stem` or `stem.<version>` ("libcudart.so.13")."""
    return [posixpath.join(directory, n) for n in ctx.listdir(directory)
            if n == stem or n.startswith(stem + ".")]


def find_library(ctx: Context, soname: str) -> list[tuple[str, str]]:
    """Candidate paths of `soname` in the dynamic loader's search order, each
    with where it was found; extra well-known dirs come last."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str, how: str) -> None:
        if path not in seen and ctx.host.exists(path):
            seen.add(path)
            out.append((path, how))

    for d in ld_library_path_dirs(ctx):
        add(posixpath.join(d, soname), "LD_LIBRARY_PATH")
    for p in ld_cache_paths(ctx, soname):
        if posixpath.basename(p) == soname:
            add(p, LD_SO_CACHE)
    for d in DEFAULT_LIB_DIRS + EXTRA_LIB_DIRS:
        add(posixpath.join(d, soname), d)
    return out


def soname_version(filename: str, stem: str) -> str | None:
    """'libcudnn.so.9.13.0' with stem 'libcudnn.so' -> '9.13.0'; 'libcudart.so' -> None."""
    base = posixpath.basename(filename)
    if not base.startswith(stem + "."):
        return None
    tail = base[len(stem) + 1:]
    return tail if re.fullmatch(r"\d+(?:\.\d+)*", tail) else None


def best_version(ctx: Context, files: list[str], stem: str) -> tuple[str | None, str]:
    """The most precise version among library files and their link targets:
    ('9.13.0', 'libcudnn.so.9.13.0'); (None, '') when no name carries one."""
    best: tuple[str | None, str] = (None, "")
    for f in files:
        for name in (posixpath.basename(f), posixpath.basename(ctx.host.realpath(f))):
            v = soname_version(name, stem)
            if v and (best[0] is None or v.count(".") > best[0].count(".")):
                best = (v, name)
    return best


_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(\(?[^\n/]*?\)?)\s*(?://.*|/\*.*)?$", re.MULTILINE)


def header_defines(text: str) -> dict[str, str]:
    """`#define NAME value` lines of a C header."""
    return {m.group(1): m.group(2).strip() for m in _DEFINE.finditer(text)}


def define_int(defines: dict[str, str], name: str) -> int | None:
    value = defines.get(name, "").strip("() ")
    return int(value) if value.isdigit() else None


def wrapper_target(host: Host, path: str, tool: str) -> str | None:
    """For a small shell wrapper (`exec /usr/local/cuda-13.0/bin/nvcc "$@"`),
    the absolute path of `tool` it runs; None for a real binary."""
    head = host.read_bytes(path, 0, 4096)
    if not head or not head.startswith(b"#!"):
        return None
    m = re.search(rb"(/[^\s'\"]+/" + re.escape(tool.encode()) + rb")(?=[\s'\"]|$)", head)
    return m.group(1).decode("utf-8", "replace") if m else None


@mutable
class Entry:
    """One installation of a library, while the probes are still finding it."""

    path: str  # its directory, or a toolkit's root
    kind: str
    version: str | None
    source: str
    lib_dirs: set[str]  # real paths of the directories holding its files
    nvcc: str | None = None


class Registry:
    """Installations keyed by the real path of their library files, so one
    library reached through several links, caches and variables is one entry."""

    def __init__(self, ctx: Context, stem: str) -> None:
        self.ctx, self.stem = ctx, stem
        self.entries: list[Entry] = []
        self._by_key: dict[str, Entry] = {}

    def files(self, directory: str) -> list[str]:
        return lib_files(self.ctx, directory, self.stem)

    def keys(self, directories: list[str]) -> set[str]:
        return {self.ctx.host.realpath(f) for d in directories for f in self.files(d)}

    def known(self, directories: list[str]) -> Entry | None:
        for key in self.keys(directories):
            if key in self._by_key:
                return self._by_key[key]
        return None

    def add(self, entry: Entry, directories: list[str], extra_keys: tuple[str, ...] = ()) -> Entry:
        """Register `entry` unless one of its files is already known; the
        entry that was first (the more specific discovery) is kept."""
        keys = self.keys(directories) | set(extra_keys)
        for key in keys:
            if key in self._by_key:
                return self._by_key[key]
        entry.lib_dirs |= {self.ctx.host.realpath(d) for d in directories if self.files(d)}
        self.entries.append(entry)
        for key in keys:
            self._by_key[key] = entry
        return entry

    def on_ld_library_path(self, entry: Entry) -> bool:
        ld = {self.ctx.host.realpath(d) for d in ld_library_path_dirs(self.ctx)}
        return bool(entry.lib_dirs & ld)


def conda_prefixes(ctx: Context) -> list[tuple[str, str]]:
    """Conda environments whose lib/ the target can load from: the target's
    own prefix (or its venv's base) and the activated CONDA_PREFIX."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    t = ctx.target
    for prefix, how in ((t.prefix, "target prefix"), (t.base_prefix, "target base prefix"),
                        (t.conda_prefix, "CONDA_PREFIX")):
        if not prefix or not ctx.host.is_dir(posixpath.join(prefix, "conda-meta")):
            continue
        real = ctx.host.realpath(prefix)
        if real not in seen:
            seen.add(real)
            out.append((prefix, how))
    return out


def conda_package(ctx: Context, prefix: str, *names: str) -> tuple[str, str] | None:
    """(version, record file) of the first of `names` installed in a conda env,
    from conda-meta/<name>-<version>-<build>.json."""
    meta = posixpath.join(prefix, "conda-meta")
    for name in names:
        for entry in ctx.listdir(meta):
            if not entry.endswith(".json") or not entry.startswith(name + "-"):
                continue
            parts = entry[:-5].rsplit("-", 2)
            if len(parts) == 3 and parts[0] == name and parts[1][:1].isdigit():
                return parts[1], f"conda-meta/{entry}"
    return None


def relative_to_site(path: str, site_dir: str) -> str:
    """'…/lib/python3.11/site-packages/nvidia/cu13/lib' -> 'site-packages/nvidia/cu13/lib'."""
    if path.startswith(site_dir.rstrip("/") + "/"):
        return posixpath.basename(site_dir.rstrip("/")) + path[len(site_dir.rstrip("/")):]
    return path
