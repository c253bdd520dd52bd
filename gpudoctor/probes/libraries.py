"""cuDNN and NCCL installations the target could load.

Found the same ways as the CUDA runtime: pip wheels in the target's sys.path
(nvidia-cudnn-cu12/-cu13, nvidia-nccl-cu12/-cu13, whose dist-info gives the
exact version and the CUDA major), CUDA toolkits (a tar-installed cuDNN),
conda environments, the system (/etc/ld.so.cache, /usr/include headers incl.
Debian's cudnn_version_v9.h) and LD_LIBRARY_PATH.
"""

from __future__ import annotations

import posixpath
import re

from gpudoctor.frozen import frozen
from gpudoctor.probes.context import Context
from gpudoctor.probes.cuda_runtime import toolkit_lib_dirs, toolkit_roots
from gpudoctor.probes.locate import (
    Entry, Registry, best_version, conda_package, conda_prefixes, define_int, dists_in, header_defines,
    ld_cache_paths, ld_library_path_dirs, relative_to_site,
)
from gpudoctor.snapshot import Library

SYSTEM_INCLUDE_DIRS = ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu",
                       "/usr/local/include")


@frozen
class Spec:
    """How to find one CUDA library (cuDNN, NCCL): file stem, pip directory, distribution, headers."""

    name: str  # "cudnn"
    stem: str  # "libcudnn.so"
    pip_dir: str  # nvidia/<pip_dir>/lib
    dist: str  # dist name before the -cuNN suffix
    headers: tuple[str, ...]  # header names that carry the version, best first
    conda: tuple[str, ...]  # conda package names


CUDNN = Spec("cudnn", "libcudnn.so", "cudnn", "nvidia-cudnn",
             ("cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"), ("cudnn",))
NCCL = Spec("nccl", "libnccl.so", "nccl", "nvidia-nccl", ("nccl.h",), ("nccl",))


def probe_cudnn(ctx: Context) -> tuple[Library, ...]:
    return probe(ctx, CUDNN)


def probe_nccl(ctx: Context) -> tuple[Library, ...]:
    return probe(ctx, NCCL)


def decode_cudnn_version(number: int) -> str:
    """CUDNN_VERSION -> 'major.minor.patch'. cuDNN 9 encodes major*10000 +
    minor*100 + patch (9.1.0 -> 90100); cuDNN <= 8 used major*1000 (8.9.2 -> 8902)."""
    if number >= 10000:
        return f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    return f"{number // 1000}.{number // 100 % 10}.{number % 100}"


def header_version(ctx: Context, spec: Spec, include_dirs: list[str]) -> tuple[str | None, str]:
    """(version, header path) from the first header that carries one."""
    for directory in include_dirs:
        for header in spec.headers:
            path = posixpath.join(directory, header)
            text = ctx.host.read_text(path, limit=64 * 1024)
            if not text:
                continue
            version = _version_from_defines(spec, header_defines(text))
            if version:
                return version, path
    return None, ""


def _version_from_defines(spec: Spec, defines: dict[str, str]) -> str | None:
    if spec is NCCL:
        parts = [define_int(defines, k) for k in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")]
    else:
        parts = [define_int(defines, k) for k in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")]
        if None in parts and define_int(defines, "CUDNN_VERSION"):
            return decode_cudnn_version(define_int(defines, "CUDNN_VERSION") or 0)
    return ".".join(str(p) for p in parts) if None not in parts else None


def probe(ctx: Context, spec: Spec) -> tuple[Library, ...]:
    reg = Registry(ctx, spec.stem)
    majors: dict[int, int | None] = {}  # id(entry) -> CUDA major
    for site_dir in ctx.search_dirs():
        _add_pip(ctx, reg, spec, site_dir, majors)
    for root, _hows in toolkit_roots(ctx):
        dirs = [d for d in toolkit_lib_dirs(ctx, root) if reg.files(d)]
        if dirs:
            version, source = _version(ctx, spec, reg, dirs, [posixpath.join(root, "include")])
            reg.add(Entry(dirs[0], "toolkit", version, f"{source} (toolkit {root})", set()), dirs)
    for prefix, how in conda_prefixes(ctx):
        _add_conda(ctx, reg, spec, prefix, how)
    for path in ld_cache_paths(ctx, spec.stem):
        directory = posixpath.dirname(path)
        if reg.files(directory) and not reg.known([directory]):
            version, source = _version(ctx, spec, reg, [directory], list(SYSTEM_INCLUDE_DIRS))
            reg.add(Entry(directory, "system", version, f"{source} (/etc/ld.so.cache)", set()), [directory])
    for directory in ld_library_path_dirs(ctx):
        if reg.files(directory) and not reg.known([directory]):
            include = posixpath.join(posixpath.dirname(directory), "include")
            version, source = _version(ctx, spec, reg, [directory], [include])
            reg.add(Entry(directory, "ld-library-path", version, f"{source} (LD_LIBRARY_PATH)", set()), [directory])
    return tuple(
        Library(name=spec.name, version=e.version, path=e.path, kind=e.kind, source=e.source,
                cuda_major=majors.get(id(e)), ld_library_path=reg.on_ld_library_path(e))
        for e in reg.entries
    )


def _version(ctx: Context, spec: Spec, reg: Registry, lib_dirs: list[str],
             include_dirs: list[str]) -> tuple[str | None, str]:
    """The most precise of: the library file name (libcudnn.so.9.13.0), a header."""
    files = [f for d in lib_dirs for f in reg.files(d)]
    from_name, name = best_version(ctx, files, spec.stem)
    if from_name and from_name.count(".") >= 2:
        return from_name, name
    from_header, header = header_version(ctx, spec, include_dirs)
    if from_header:
        return from_header, f"{header}"
    return from_name, name or f"{posixpath.basename(files[0]) if files else spec.stem} (no version)"


def _add_pip(ctx: Context, reg: Registry, spec: Spec, site_dir: str, majors: dict[int, int | None]) -> None:
    lib_dir = posixpath.join(site_dir, "nvidia", spec.pip_dir, "lib")
    if not reg.files(lib_dir):
        return
    dists = dists_in(ctx, site_dir)
    candidates = sorted(n for n in dists if re.fullmatch(re.escape(spec.dist) + r"-cu\d+", n))
    where = relative_to_site(posixpath.dirname(lib_dir), site_dir)
    if candidates:
        dist = dists[candidates[-1]]
        major = int(dist.name.rsplit("-cu", 1)[1])
        version, source = dist.version, f"{where} ({dist.name} {dist.version} dist-info)"
    else:
        major = None
        version, source = _version(ctx, spec, reg, [lib_dir], [posixpath.join(posixpath.dirname(lib_dir), "include")])
        source = f"{where} ({source}; no dist-info)"
    entry = reg.add(Entry(lib_dir, "pip", version, source, set()), [lib_dir])
    majors.setdefault(id(entry), major)


def _add_conda(ctx: Context, reg: Registry, spec: Spec, prefix: str, how: str) -> None:
    dirs = [d for d in [posixpath.join(prefix, "lib")] + ctx.host.glob(posixpath.join(prefix, "targets", "*", "lib"))
            if reg.files(d)]
    if not dirs:
        return
    package = conda_package(ctx, prefix, *spec.conda)
    if package:
        version, source = package[0], f"{prefix}/{package[1]} ({how})"
    else:
        version, source = _version(ctx, spec, reg, dirs, [posixpath.join(prefix, "include")])
        source = f"{source} ({how})"
    reg.add(Entry(dirs[0], "conda", version, source, set()), dirs)
