"""Every CUDA toolkit and CUDA runtime (libcudart) the target could load.

Looked for in: CUDA_HOME / CUDA_PATH / CUDA_ROOT, /usr/local/cuda and
/usr/local/cuda-*, /opt/cuda, the nvcc on PATH, pip wheels in the target's
sys.path (cu12 per-component `nvidia/cuda_runtime/lib`, cu13 `nvidia/cu13/lib`),
conda environments, /etc/ld.so.cache and LD_LIBRARY_PATH. One library reached
several ways is reported once (by real path).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import TYPE_CHECKING

from gpudoctor.probes.context import Context
from gpudoctor.probes.locate import (
    Entry, Registry, best_version, conda_package, conda_prefixes, define_int, dists_in, header_defines,
    ld_cache_paths, ld_library_path_dirs, lib_files, relative_to_site, wrapper_target,
)
from gpudoctor.snapshot import CudaRuntime

if TYPE_CHECKING:
    from gpudoctor.host import Host

STEM = "libcudart.so"
TOOLKIT_ENV = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")
STANDARD_ROOTS = ("/usr/local/cuda", "/opt/cuda")
NVCC_TIMEOUT_S = 5.0
_NVCC_RELEASE = re.compile(r"release (\d+\.\d+), V(\d+(?:\.\d+)+)")


def probe(ctx: Context) -> tuple[CudaRuntime, ...]:
    reg = Registry(ctx, STEM)
    for root, hows in toolkit_roots(ctx):
        _add_toolkit(ctx, reg, root, hows)
    for site_dir in ctx.search_dirs():
        _add_pip(ctx, reg, site_dir)
    for prefix, how in conda_prefixes(ctx):
        _add_conda(ctx, reg, prefix, how)
    for path in ld_cache_paths(ctx, STEM):
        _add_loose(ctx, reg, posixpath.dirname(path), "system", "/etc/ld.so.cache")
    for directory in ld_library_path_dirs(ctx):
        _add_loose(ctx, reg, directory, "ld-library-path", "LD_LIBRARY_PATH")
    return tuple(
        CudaRuntime(version=e.version, path=e.path, kind=e.kind, source=e.source, nvcc=e.nvcc,
                    ld_library_path=reg.on_ld_library_path(e))
        for e in reg.entries
    )


# --- toolkits -------------------------------------------------------------

def toolkit_lib_dirs(ctx: Context, root: str) -> list[str]:
    dirs = [posixpath.join(root, "lib64"), posixpath.join(root, "lib")]
    dirs += ctx.host.glob(posixpath.join(root, "targets", "*", "lib"))
    return [d for d in dirs if ctx.host.is_dir(d)]


def looks_like_toolkit(host: Host, root: str) -> bool:
    marks = ("bin/nvcc", "version.json", "version.txt", "include/cuda_runtime_api.h")
    return any(host.exists(posixpath.join(root, m)) for m in marks)


def toolkit_roots(ctx: Context) -> list[tuple[str, list[str]]]:
    """Toolkit roots (real paths) with every way each was found, in order."""
    return ctx.cached("toolkit_roots", lambda: host_toolkit_roots(ctx.host))


def host_toolkit_roots(host: Host) -> list[tuple[str, list[str]]]:
    found: dict[str, list[str]] = {}

    def add(root: str | None, how: str) -> None:
        if not root or not posixpath.isabs(root) or not looks_like_toolkit(host, root):
            return
        found.setdefault(host.realpath(root), []).append(how)

    env = host.env()
    for var in TOOLKIT_ENV:
        add(env.get(var), var)
    for root in STANDARD_ROOTS:
        add(root, root)
    for root in host.glob("/usr/local/cuda-*"):
        add(root, "/usr/local/cuda-*")
    nvcc = host.which("nvcc")
    if nvcc:
        real = wrapper_target(host, nvcc, "nvcc") or host.realpath(nvcc)
        add(posixpath.dirname(posixpath.dirname(real)), f"nvcc on PATH ({nvcc})")
    return list(found.items())


def start_nvcc(host: Host) -> None:
    """Start each toolkit's `nvcc --version` now (check calls this as it starts
    the target interpreter); nvcc_version takes the answers later."""
    for root, _ in host_toolkit_roots(host):
        nvcc = posixpath.join(root, "bin", "nvcc")
        if host.exists(nvcc):
            host.start([nvcc, "--version"], timeout=NVCC_TIMEOUT_S)


def _add_toolkit(ctx: Context, reg: Registry, root: str, hows: list[str]) -> None:
    version, source, tried = toolkit_version(ctx, root)
    via = "found via " + ", ".join(dict.fromkeys(hows))
    entry = Entry(path=root, kind="toolkit", version=version,
                  source=f"{source} ({via})" if version else f"{via}; version unknown: {'; '.join(tried)}",
                  lib_dirs=set(), nvcc=nvcc_version(ctx, root))
    reg.add(entry, toolkit_lib_dirs(ctx, root), extra_keys=(f"toolkit:{root}",))


def toolkit_version(ctx: Context, root: str) -> tuple[str | None, str, list[str]]:
    """(version, source, tried): the runtime version of a toolkit, from the most
    precise record it has. version.json's top "cuda" version can be date-stamped
    (11.8.20220929), so cuda_cudart's is preferred."""
    tried: list[str] = []
    vj = posixpath.join(root, "version.json")
    text = ctx.host.read_text(vj)
    data = None
    if text is not None:
        try:
            data = json.loads(text)
        except ValueError:
            tried.append(f"{vj}: not JSON")
        cudart = (data or {}).get("cuda_cudart", {}) if isinstance(data, dict) else {}
        if isinstance(cudart, dict) and isinstance(cudart.get("version"), str):
            return cudart["version"], f"{vj} cuda_cudart", tried
    else:
        tried.append(f"{vj}: absent")
    for entry in ctx.listdir(posixpath.join(root, "dist-info")):
        m = re.match(r"nvidia_cuda_runtime(?:_cu\d+)?-([\d.]+)\.dist-info$", entry)
        if m:
            return m.group(1), f"{root}/dist-info/{entry}", tried
    tried.append(f"{root}/dist-info: no nvidia_cuda_runtime")
    vt = posixpath.join(root, "version.txt")
    m = re.search(r"CUDA Version (\d+(?:\.\d+)+)", ctx.host.read_text(vt, limit=4096) or "")
    if m:
        return m.group(1), vt, tried
    libs = [f for d in toolkit_lib_dirs(ctx, root) for f in lib_files(ctx, d, STEM)]
    version, name = best_version(ctx, libs, STEM)
    if version and version.count(".") >= 2:
        return version, name, tried
    header = posixpath.join(root, "include", "cuda_runtime_api.h")
    number = define_int(header_defines(ctx.host.read_text(header, limit=64 * 1024) or ""), "CUDART_VERSION")
    if number:
        return f"{number // 1000}.{number % 1000 // 10}", f"{header} CUDART_VERSION", tried
    tried.append(f"{header}: no CUDART_VERSION")
    cuda = (data or {}).get("cuda", {}) if isinstance(data, dict) else {}
    m = re.match(r"(\d+\.\d+)", str(cuda.get("version", ""))) if isinstance(cuda, dict) else None
    if m:
        return m.group(1), f"{vj} cuda (major.minor only)", tried
    return None, "", tried


def nvcc_version(ctx: Context, root: str) -> str | None:
    nvcc = posixpath.join(root, "bin", "nvcc")
    if not ctx.host.exists(nvcc):
        return None
    res = ctx.host.run([nvcc, "--version"], timeout=NVCC_TIMEOUT_S)
    m = _NVCC_RELEASE.search(res.stdout) if res.ok else None
    return m.group(2) if m else None


# --- pip, conda, loose libraries --------------------------------------------

def _add_pip(ctx: Context, reg: Registry, site_dir: str) -> None:
    nvidia = posixpath.join(site_dir, "nvidia")
    if not ctx.host.is_dir(nvidia):
        return
    # cu11/cu12: one directory per component; cu13: everything in nvidia/cu13/lib.
    lib_dirs = [posixpath.join(nvidia, "cuda_runtime", "lib")]
    lib_dirs += [posixpath.join(nvidia, d, "lib") for d in ctx.listdir(nvidia) if re.fullmatch(r"cu\d+", d)]
    dists = dists_in(ctx, site_dir)
    for lib_dir in lib_dirs:
        files = reg.files(lib_dir)
        if not files:
            continue
        major = _major(ctx, files)
        dist = next((dists[n] for n in (f"nvidia-cuda-runtime-cu{major}", "nvidia-cuda-runtime")
                     if n in dists and dists[n].version.split(".")[0] == str(major)), None)
        where = relative_to_site(lib_dir, site_dir)
        if dist:
            version, source = dist.version, f"{where} ({dist.name} {dist.version} dist-info)"
        else:
            version, name = best_version(ctx, files, STEM)
            source = f"{where} ({name or 'no dist-info'})"
        reg.add(Entry(lib_dir, "pip", version, source, set()), [lib_dir])


def _major(ctx: Context, files: list[str]) -> str | None:
    version, _ = best_version(ctx, files, STEM)
    return version.split(".")[0] if version else None


def _add_conda(ctx: Context, reg: Registry, prefix: str, how: str) -> None:
    dirs = [posixpath.join(prefix, "lib")] + ctx.host.glob(posixpath.join(prefix, "targets", "*", "lib"))
    dirs = [d for d in dirs if reg.files(d)]
    if not dirs:
        return
    package = conda_package(ctx, prefix, "cuda-cudart", "cudatoolkit")
    if package:
        version, source = package[0], f"{prefix}/{package[1]} ({how})"
    else:
        version, name = best_version(ctx, [f for d in dirs for f in reg.files(d)], STEM)
        source = f"{prefix}/lib ({name or 'no conda-meta record'}; {how})"
    reg.add(Entry(dirs[0], "conda", version, source, set()), dirs)


def _add_loose(ctx: Context, reg: Registry, directory: str, kind: str, how: str) -> None:
    """A library directory from the loader cache or LD_LIBRARY_PATH; when it
    sits inside a toolkit (lib64/, targets/<arch>/lib), the toolkit is reported."""
    if not reg.files(directory) or reg.known([directory]):
        return
    for root in (posixpath.dirname(directory), posixpath.dirname(posixpath.dirname(posixpath.dirname(directory)))):
        if root not in ("", "/") and looks_like_toolkit(ctx.host, root):
            _add_toolkit(ctx, reg, ctx.host.realpath(root), [f"{how} {directory}"])
            if reg.known([directory]):
                return
    version, name = best_version(ctx, reg.files(directory), STEM)
    reg.add(Entry(directory, kind, version, f"{how} {directory} ({name or 'unversioned file name'})", set()),
            [directory])
