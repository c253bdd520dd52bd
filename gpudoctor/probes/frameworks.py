"""Installed deep-learning frameworks, read from files, never imported.

torch: torch/version.py (the variant: '2.14.1+cu130', cuda, hip; a PyPI wheel's
dist-info drops the '+cu130'), the nvidia-cudnn / nccl pins in its METADATA,
and the GPU architectures in lib/libtorch_cuda.so's fatbin. TensorFlow:
tensorflow/python/platform/build_info.py. JAX: jaxlib plus the
jax-cudaNN-plugin / -pjrt wheels. CuPy: the package name (cupy-cuda12x) and
cupy/.data/_wheel.json. A CUDA major known only from a package name is
written "12.x".
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import re

from gpudoctor.probes import fatbin
from gpudoctor.probes.context import Context
from gpudoctor.probes.locate import Dist, Metadata, dists_in, find_dist, read_metadata
from gpudoctor.snapshot import Fact, Framework, fact

TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")
CUPY_DIST = re.compile(r"cupy(?:-cuda(\d+)x?|-rocm-[\d-]+)?$")


def probe(ctx: Context) -> tuple[Framework, ...]:
    from gpudoctor.probes import gpulibs  # noqa: PLC0415 - RAPIDS and Numba live apart

    found = [reader(ctx) for reader in (_torch, _tensorflow, _jax, _cupy)]
    return tuple(fw for fw in found if fw is not None) + gpulibs.probe(ctx)


# --- shared helpers -------------------------------------------------------

def package_dir(dist: Dist, package: str) -> str:
    return posixpath.join(dist.site_dir, package)


def requirement(meta: Metadata, dist_pattern: str) -> tuple[str, str] | None:
    """(dist name, version spec) of the first Requires-Dist matching
    `dist_pattern` ('nvidia-cudnn-cu\\d+'); '==9.13.0.50' gives '9.13.0.50'."""
    for line in meta.get_all("Requires-Dist") or []:
        m = re.match(r"\s*(" + dist_pattern + r")\s*(?:\[[^\]]*\])?\s*\(?([^;()]*)\)?", line, re.IGNORECASE)
        if m:
            spec = m.group(2).strip().replace(" ", "")
            return m.group(1).lower(), spec[2:] if spec.startswith("==") and "," not in spec else spec
    return None


def pinned(meta: Metadata, dist_pattern: str, owner: str) -> Fact[str]:
    req = requirement(meta, dist_pattern)
    if req is None or not req[1]:
        return Fact(None, "", (f"{owner} METADATA: no {dist_pattern} requirement",))
    return Fact(req[1], f"{owner} METADATA Requires-Dist {req[0]}")


def arch_fact(ctx: Context, libraries: list[str], label_root: str) -> Fact[tuple[str, ...]]:
    """The arch list of the first library that carries fatbin entries."""
    tried = []
    for lib in libraries:
        shown = posixpath.relpath(lib, label_root)
        try:
            result = fatbin.scan_cached(ctx.host, lib)
        except fatbin.FatbinError as exc:
            tried.append(f"{shown}: {exc}")
            continue
        if not result.archs:
            tried.append(f"{shown}: no fatbin entries")
            continue
        source = f"{shown} {'+'.join(result.sections)}"
        if result.extra:
            source += f" (some kernels also for {', '.join(result.extra)})"
        return Fact(result.archs, source, tuple(tried))
    return Fact(None, "", tuple(tried) or ("no CUDA library found",))


def _python_assignments(text: str) -> dict[str, object]:
    """Top-level `name = <literal>` (also annotated) assignments of a module."""
    import ast  # noqa: PLC0415 - only needed when a framework is installed

    out: dict[str, object] = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name) and value is not None:
                try:
                    out[target.id] = ast.literal_eval(value)
                except ValueError:
                    # collections.OrderedDict([...]) as TF writes build_info
                    if isinstance(value, ast.Call) and value.args:
                        with contextlib.suppress(ValueError, TypeError):
                            out[target.id] = dict(ast.literal_eval(value.args[0]))
    return out


def _version_fact(ctx: Context, dist: Dist) -> Fact[str]:
    return Fact(dist.version, f"{dist.label}")


# --- torch ----------------------------------------------------------------

def _torch(ctx: Context) -> Framework | None:
    dist = find_dist(ctx, "torch")
    if dist is None:
        return None
    root = package_dir(dist, "torch")
    meta = read_metadata(ctx.host, dist)
    info = _python_assignments(ctx.host.read_text(posixpath.join(root, "version.py")) or "")
    version = (Fact(info["__version__"], "torch/version.py") if isinstance(info.get("__version__"), str)
               else _version_fact(ctx, dist))
    cuda, hip, xpu = (info.get(k) if isinstance(info.get(k), str) else None for k in ("cuda", "hip", "xpu"))
    hip = hip or (info.get("rocm") if isinstance(info.get("rocm"), str) else None)
    if not info:
        build = Fact(None, "", ("torch/version.py: absent or unreadable",))
    else:
        kind = "rocm" if hip else "cuda" if cuda else "xpu" if xpu else "cpu"
        build = Fact(kind, "torch/version.py")
    lib_dir = posixpath.join(root, "lib")
    if cuda:
        libs = [posixpath.join(lib_dir, n) for n in ("libtorch_cuda.so", "libtorch_cuda_cu.so")]
        libs = [p for p in libs if ctx.host.exists(p)] or ctx.host.glob(posixpath.join(lib_dir, "libtorch_cuda*.so"))
        arch = arch_fact(ctx, libs, dist.site_dir)
        cudnn = pinned(meta, r"nvidia-cudnn-cu\d+", "torch")
        if not cudnn.known:
            cudnn = _bundled_cudnn(ctx, lib_dir, cudnn)
        nccl = pinned(meta, r"nvidia-nccl-cu\d+", "torch")
    else:
        why = (f"torch build is {build.value or 'unknown'}: no CUDA libraries",)
        arch = cudnn = nccl = Fact(None, "", why)
    return Framework(
        name="torch", version=version, location=root, build=build, cxx11_abi=_cxx11_abi(ctx, lib_dir),
        wheel_platform=_wheel_platform(ctx, dist),
        cuda=fact(cuda, "torch/version.py",
                  [f"torch/version.py: cuda is None ({build.value} build)" if info
                   else "torch/version.py: absent or unreadable"]),
        cudnn=cudnn, nccl=nccl, arch_list=arch, requires_python=meta.get("Requires-Python"),
    )


def _wheel_platform(ctx: Context, dist: Dist) -> Fact[str]:
    """The platform tag pip recorded in the dist-info WHEEL file ("Tag: cp311-cp311-manylinux_2_28_x86_64")."""
    text = ctx.host.read_text(posixpath.join(dist.path, "WHEEL"), limit=1 << 16) or ""
    tags = re.findall(r"^Tag:\s*\S+?-\S+?-(\S+)\s*$", text, re.M)
    return (Fact(tags[0], f"{dist.label}/WHEEL") if tags
            else Fact(None, "", (f"{dist.label}/WHEEL: no Tag line",)))


def _cxx11_abi(ctx: Context, lib_dir: str) -> Fact[bool]:
    """torch._C._GLIBCXX_USE_CXX11_ABI, read from libc10.so's mangled names."""
    from gpudoctor.probes import elfsyms  # noqa: PLC0415 - only when torch is installed

    path = posixpath.join(lib_dir, "libc10.so")
    if not ctx.host.exists(path):
        return Fact(None, "", ("torch/lib/libc10.so: absent",))
    try:
        info = elfsyms.link_info(ctx.host, path)
    except fatbin.FatbinError as exc:
        return Fact(None, "", (f"torch/lib/libc10.so: {exc}",))
    return fact(info.cxx11_abi, "torch/lib/libc10.so mangled names (.dynstr)",
                ["torch/lib/libc10.so: no c10 symbols"])


def _bundled_cudnn(ctx: Context, lib_dir: str, missing: Fact[str]) -> Fact[str]:
    """Old wheels (<= 1.13) bundled cuDNN in torch/lib as libcudnn*.so.<major>."""
    for path in ctx.host.glob(posixpath.join(lib_dir, "libcudnn*.so.*")):
        m = re.search(r"\.so\.(\d+(?:\.\d+)*)$", path)
        if m:
            return Fact(m.group(1), f"torch/lib/{posixpath.basename(path)} (bundled)")
    return missing


# --- TensorFlow -----------------------------------------------------------

def _tensorflow(ctx: Context) -> Framework | None:
    dist = find_dist(ctx, *TF_DISTS)
    if dist is None:
        return None
    root = package_dir(dist, "tensorflow")
    meta = read_metadata(ctx.host, dist)
    rel = "tensorflow/python/platform/build_info.py"
    values = _python_assignments(ctx.host.read_text(posixpath.join(dist.site_dir, rel)) or "")
    info = values.get("build_info") if isinstance(values.get("build_info"), dict) else values
    assert isinstance(info, dict)
    if not info:
        missing = (f"{rel}: absent or unreadable",)
        return Framework(name="tensorflow", version=_version_fact(ctx, dist), location=root,
                         build=Fact(None, "", missing), cuda=Fact(None, "", missing),
                         cudnn=Fact(None, "", missing), arch_list=Fact(None, "", missing),
                         requires_python=meta.get("Requires-Python"))
    is_cuda = bool(info.get("is_cuda_build"))
    is_rocm = bool(info.get("is_rocm_build"))
    cuda = info.get("cuda_version", info.get("cuda_version_number"))
    cudnn = info.get("cudnn_version", info.get("cudnn_version_number"))
    archs = info.get("cuda_compute_capabilities")
    arch_list = tuple(_tf_arch(a) for a in archs) if isinstance(archs, (list, tuple)) and archs else None
    not_cuda = [f"{rel}: not a CUDA build"] if not is_cuda else []
    return Framework(
        name="tensorflow", version=_version_fact(ctx, dist), location=root,
        build=Fact("rocm" if is_rocm else "cuda" if is_cuda else "cpu", rel),
        cuda=fact(str(cuda) if cuda and is_cuda else None, rel, not_cuda or [f"{rel}: no cuda_version"]),
        cudnn=fact(str(cudnn) if cudnn and is_cuda else None, rel, not_cuda or [f"{rel}: no cudnn_version"]),
        nccl=Fact(None, "", (f"{rel}: does not record NCCL",)),
        arch_list=fact(arch_list, f"{rel} cuda_compute_capabilities", not_cuda or [f"{rel}: no capabilities"]),
        requires_python=meta.get("Requires-Python"),
    )


def _tf_arch(value: object) -> str:
    text = str(value).strip().lower()
    m = re.fullmatch(r"(\d+)\.(\d)", text)  # old builds listed "7.0"
    return f"sm_{m.group(1)}{m.group(2)}" if m else text


# --- JAX ------------------------------------------------------------------

def _jax(ctx: Context) -> Framework | None:
    dist = find_dist(ctx, "jax")
    jaxlib = find_dist(ctx, "jaxlib")
    if dist is None and jaxlib is None:
        return None
    main = dist or jaxlib
    assert main is not None
    meta = read_metadata(ctx.host, main)
    plugins = {}
    for site_dir in ctx.search_dirs():
        for name, d in dists_in(ctx, site_dir).items():
            if re.fullmatch(r"jax-(cuda\d+|rocm\d*)-(plugin|pjrt)", name):
                plugins.setdefault(name, d)
    cuda_plugins = sorted(n for n in plugins if n.startswith("jax-cuda"))
    local = re.search(r"\+cuda(\d+)(?:\.cudnn(\d)(\d+))?", jaxlib.version if jaxlib else "")
    if cuda_plugins:
        major = re.match(r"jax-cuda(\d+)", cuda_plugins[-1]).group(1)  # type: ignore[union-attr]
        build = Fact("cuda", f"{plugins[cuda_plugins[-1]].label}")
        cuda = Fact(f"{major}.x", f"{cuda_plugins[-1]} dist name (CUDA major only)")
        plugin_meta = read_metadata(ctx.host, plugins.get(f"jax-cuda{major}-plugin") or plugins[cuda_plugins[-1]])
        cudnn = pinned(plugin_meta, r"nvidia-cudnn-cu\d+", f"jax-cuda{major}-plugin")
        pjrt = plugins.get(f"jax-cuda{major}-pjrt")
        libs = [posixpath.join(pjrt.site_dir, "jax_plugins", f"xla_cuda{major}", "xla_cuda_plugin.so")] if pjrt else []
        arch = arch_fact(ctx, [p for p in libs if ctx.host.exists(p)], (pjrt or main).site_dir)
    elif local:  # jaxlib 0.4.x monolithic CUDA wheels: 0.4.23+cuda12.cudnn89
        build = Fact("cuda", f"{jaxlib.label} local version")  # type: ignore[union-attr]
        cuda = Fact(f"{local.group(1)}.x", f"{jaxlib.label} local version")  # type: ignore[union-attr]
        cudnn = fact(f"{local.group(2)}.{local.group(3)}" if local.group(2) else None,
                     f"{jaxlib.label} local version")  # type: ignore[union-attr]
        arch = Fact(None, "", ("monolithic jaxlib: arch list not read",))
    else:
        rocm = [n for n in plugins if n.startswith("jax-rocm")]
        build = Fact("rocm" if rocm else "cpu", "installed jax plugins" if rocm else "no jax-cudaNN plugin installed")
        why = ("no jax CUDA plugin installed",)
        cuda, cudnn, arch = Fact(None, "", why), Fact(None, "", why), Fact(None, "", why)
    return Framework(
        name="jax", version=_version_fact(ctx, main), location=package_dir(main, "jax" if dist else "jaxlib"),
        build=build, cuda=cuda, cudnn=cudnn, nccl=Fact(None, "", ("jax: NCCL comes from the plugin's wheels",)),
        arch_list=arch, requires_python=meta.get("Requires-Python"),
    )


# --- CuPy -----------------------------------------------------------------

def _cupy(ctx: Context) -> Framework | None:
    dist = None
    for site_dir in ctx.search_dirs():
        names = sorted(n for n in dists_in(ctx, site_dir) if CUPY_DIST.fullmatch(n))
        if names:
            dist = dists_in(ctx, site_dir)[names[-1]]
            break
    if dist is None:
        return None
    root = package_dir(dist, "cupy")
    meta = read_metadata(ctx.host, dist)
    wheel_json = posixpath.join(root, ".data", "_wheel.json")
    try:
        config = json.loads(ctx.host.read_text(wheel_json) or "null")
    except ValueError:
        config = None
    config = config if isinstance(config, dict) else {}
    m = CUPY_DIST.fullmatch(dist.name)
    digits = m.group(1) if m else None
    rocm = "rocm" in dist.name
    if isinstance(config.get("cuda"), str):
        cuda = Fact(config["cuda"], "cupy/.data/_wheel.json")
    elif digits:
        # cupy-cuda12x: any 12.x; cupy-cuda117 (old): exactly 11.7
        text = f"{digits}.x" if dist.name.endswith("x") else f"{digits[:-1]}.{digits[-1]}"
        cuda = Fact(text, f"{dist.name} dist name")
    else:
        cuda = Fact(None, "", (f"{dist.name}: built from source; no _wheel.json",))
    cudnn_cfg = config.get("cudnn")
    cudnn = (Fact(cudnn_cfg["version"], "cupy/.data/_wheel.json")
             if isinstance(cudnn_cfg, dict) and isinstance(cudnn_cfg.get("version"), str)
             else Fact(None, "", ("cupy/.data/_wheel.json: no cudnn entry",)))
    libs = sorted(ctx.host.glob(posixpath.join(root, "cuda", "thrust*.so")) +
                  ctx.host.glob(posixpath.join(root, "cuda", "cub*.so")))
    arch = arch_fact(ctx, libs, dist.site_dir) if not rocm else Fact(None, "", ("ROCm build",))
    return Framework(
        name="cupy", version=_version_fact(ctx, dist), location=root,
        build=Fact("rocm" if rocm else "cuda", f"{dist.name} dist name"),
        cuda=cuda, cudnn=cudnn, nccl=Fact(None, "", ("cupy: NCCL is loaded from the system at run time",)),
        arch_list=arch, requires_python=meta.get("Requires-Python"),
    )
