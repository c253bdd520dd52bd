"""What `gpudoctor matrix <subject> [QUERY]` shows: rows as plain dicts (the
JSON contract) plus the columns the text table prints.

A query that matches nothing raises NoMatch with the closest known values, so
the command can say "unknown version" and suggest what exists.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

from packaging.version import InvalidVersion, Version

from gpudoctor.matrices import Matrices, cudnn_text, torch_series
from gpudoctor.serde import to_data
from gpudoctor.versions import cuda_version, parse_numeric

PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64")


class NoMatch(LookupError):
    def __init__(self, what: str, query: str, close: list[str]) -> None:
        super().__init__(f"unknown {what} {query!r}")
        self.what, self.query, self.close = what, query, close


@dataclass(frozen=True)
class View:
    """One `gpudoctor matrix` answer: a title, its rows and the columns the text table prints."""

    stem: str  # the matrix file whose data_as_of applies
    title: str
    columns: tuple[str, ...]  # keys of `rows` shown as text columns
    rows: list[dict[str, Any]]


def _close(query: str, known: list[str], n: int = 5) -> list[str]:
    hits = difflib.get_close_matches(query, known, n=n, cutoff=0.4)
    # Versions of the same series first ("2.14" -> 2.14.0, 2.14.1).
    prefix = [k for k in known if k.startswith(query.rsplit(".", 1)[0] + ".")]
    # Past everything known: the newest known first (and `matrix refresh` may help).
    newest = max(known, key=_vk) if known else None
    first = [newest] if newest and _vk(query) > _vk(newest) else []
    return list(dict.fromkeys(first + prefix[-n:] + hits))[:n]


def _py(lo: str | None, hi: str | None) -> dict[str, str | None]:
    return {"min": lo, "max": hi}


def torch_view(m: Matrices, query: str | None, platform: str | None = None) -> View:
    release = None
    if query:
        public = query.split("+", 1)[0]
        if len(parse_numeric(public) or ()) >= 3:
            release = m.torch_release(public)
            if release is None:
                raise NoMatch("PyTorch version", query, _close(public, [r.version for r in m.torch_releases]))
        series = torch_series(public)
        builds = m.torch_builds_of(public, platform)
        if not builds:
            raise NoMatch("PyTorch version", query, _close(public, sorted({b.series for b in m.torch_builds}, key=_vk)))
    else:
        builds = [b for b in m.torch_builds if platform is None or b.platform == platform]
        series = None
    newest = {}  # series -> newest release row, for the Python range
    for rel in sorted(m.torch_releases, key=lambda r: _vk(r.version)):
        newest[torch_series(rel.version)] = rel
    rows = []
    for b in builds:
        rel = release or newest.get(b.series)
        rows.append({
            "version": release.version if release else b.series, "variant": b.variant, "platform": b.platform,
            "cuda": b.cuda, "cudnn": b.cudnn, "nccl": b.nccl, "arch_list": list(b.arch_list),
            "python": _py(rel.python_min, rel.python_max) if rel else _py(None, None),
            "pypi_default": b.pypi_default, "index_url": b.index_url,
            "torchvision": rel.torchvision if rel else None, "torchaudio": rel.torchaudio if rel else None,
            "source": b.source, "note": b.note})
    title = f"PyTorch {release.version if release else series or 'releases'} builds"
    return View("torch", title, ("version", "platform", "variant", "pypi_default", "cuda", "cudnn", "arch_list", "python"),
                rows)


def _vk(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def cuda_view(m: Matrices, query: str | None) -> View:
    toolkits = list(m.toolkits)
    if query:
        nums = parse_numeric(query) or ()
        if len(nums) >= 3:
            toolkits = [t for t in toolkits if parse_numeric(t.version) == nums[:3]]
        elif len(nums) == 2:
            toolkits = [t for t in toolkits if cuda_version(t.version) == cuda_version(query)]
        elif len(nums) == 1:
            toolkits = [t for t in toolkits if (parse_numeric(t.version) or ())[:1] == nums]
        else:
            toolkits = []
        if not toolkits:
            raise NoMatch("CUDA version", query, _close(query, [t.version for t in m.toolkits]))
    rows = []
    for t in toolkits:
        major = (parse_numeric(t.version) or (0,))[0]
        rows.append({
            "version": t.version, "label": t.label, "min_driver_linux": t.min_driver_linux,
            "min_driver_windows": t.min_driver_windows,
            "minor_compat_min_driver_linux": m.minor_compat_floor(major, "linux"),
            "minor_compat_min_driver_windows": m.minor_compat_floor(major, "windows"),
            "sm": list(m.arch_support(t.version)), "cudart": t.cudart, "source": t.source, "note": t.note})
    return View("cuda", f"CUDA toolkits{' ' + query if query else ''}",
                ("version", "min_driver_linux", "min_driver_windows", "minor_compat_min_driver_linux", "sm"), rows)


def gpu_view(m: Matrices, query: str | None) -> View:
    gpus = list(m.gpus)
    if query:
        # A name matches word for word or not at all: a close spelling is offered
        # as a hint ("Tesla P40" is not an L40), never shown as the answer.
        exact = m.gpu(query)
        gpus = [exact] if exact else m.gpu_matches(query)[:8]
        if not gpus:
            family = m.gpu_family(query)
            hint = [f"no model row (its family: compute capability {family.compute_capability}, "
                    f"{family.arch}); similar names"] if family else []
            raise NoMatch("GPU", query, hint + [g.name for g in m.gpu_candidates(query, limit=5)])
    rows = []
    for g in gpus:
        row = to_data(g)
        rows.append({k: row[k] for k in (
            "name", "compute_capability", "arch", "memory_gb", "memory_bandwidth_gbs", "fp32_tflops", "tf32_tflops",
            "fp16_tflops", "bf16_tflops", "fp8_tflops", "fp4_tflops", "tdp_w", "interconnect", "segment",
            "nvml_names", "source", "note")})
    return View("gpus", f"GPUs{' matching ' + repr(query) if query else ''} (dense TFLOPS)",
                ("name", "compute_capability", "arch", "memory_gb", "memory_bandwidth_gbs", "fp32_tflops",
                 "tf32_tflops", "fp16_tflops", "bf16_tflops", "fp8_tflops", "fp4_tflops"), rows)


def tensorflow_view(m: Matrices, query: str | None) -> View:
    rels = list(m.tensorflow_releases)
    if query:
        hit = m.tensorflow_release(query)
        patch = len(parse_numeric(query) or ()) >= 3
        if hit is None or (patch and hit.releases and query not in hit.releases):
            known = [v for r in rels for v in (r.releases or (r.version,))]
            raise NoMatch("TensorFlow version", query, _close(query, known))
        rels = [hit]
    rows = [{"version": r.version, "releases": list(r.releases), "python": _py(r.python_min, r.python_max),
             "cuda": r.cuda, "cudnn": r.cudnn, "and_cuda_extra": r.and_cuda_extra,
             "and_cuda_runtime": r.and_cuda_runtime, "and_cuda_cudnn": r.and_cuda_cudnn,
             "windows_native_gpu": r.windows_native_gpu, "arch_list": list(r.arch_list),
             "source": r.source, "note": r.note} for r in rels]
    return View("tensorflow", "TensorFlow tested build configurations",
                ("version", "python", "cuda", "cudnn", "and_cuda_extra", "windows_native_gpu", "arch_list"), rows)


def jax_view(m: Matrices, query: str | None) -> View:
    rows_in = list(m.jax_releases)
    if query:
        hit = m.jax_requirements(query)
        if hit is None:
            known = [v for r in rows_in for v in (r.version_from, r.version_to) if v]
            raise NoMatch("JAX version", query, _close(query, known))
        rows_in = [hit]
    rows = [{"version_from": r.version_from, "version_to": r.version_to, "extras": list(r.extras),
             "python": _py(r.python_min, None), "cuda12_min": r.cuda12_min, "cuda13_min": r.cuda13_min,
             "cudnn_min": r.cudnn_min, "cudnn13_min": r.cudnn13_min, "min_driver_cuda12": r.min_driver_cuda12,
             "min_driver_cuda13": r.min_driver_cuda13, "min_sm_cuda12": r.min_sm_cuda12,
             "min_sm_cuda13": r.min_sm_cuda13, "source": r.source, "note": r.note} for r in rows_in]
    return View("jax", "JAX / jaxlib requirements by version range",
                ("version_from", "version_to", "extras", "python", "cudnn_min", "cudnn13_min", "min_sm_cuda12",
                 "min_sm_cuda13"), rows)


def cudnn_view(m: Matrices, query: str | None) -> View:
    rows_in = list(m.cudnn_releases)
    if query and query.isdigit() and int(query) < 100:  # a major ("9"): its ranges, not CUDNN_VERSION 9 = 0.0.9
        rows_in = [r for r in rows_in if r.version_from.split(".")[0] == query]
        if not rows_in:
            raise NoMatch("cuDNN major", query, sorted({r.version_from.split(".")[0] for r in m.cudnn_releases}))
    elif query:
        # "9.11" means 9.11.0, the way a person writes a release (the range lookup wants three parts)
        padded = query if query.isdigit() or query.count(".") >= 2 else query + ".0" * (2 - query.count("."))
        hit = m.cudnn_release(int(query) if query.isdigit() else padded)
        if hit is None:
            known = [v for r in rows_in for v in (r.version_from, r.version_to) if v]
            raise NoMatch("cuDNN version", cudnn_text(query), _close(cudnn_text(query), known))
        rows_in = [hit]
    rows = [{"version_from": r.version_from, "version_to": r.version_to, "cuda_majors": list(r.cuda_majors),
             "min_sm": r.min_sm, "max_sm": r.max_sm, "min_driver_linux": r.min_driver_linux,
             "min_driver_windows": r.min_driver_windows, "source": r.source, "note": r.note} for r in rows_in]
    return View("cudnn", "cuDNN support by release range",
                ("version_from", "version_to", "cuda_majors", "min_sm", "max_sm", "min_driver_linux"), rows)


def cupy_view(m: Matrices, query: str | None) -> View:
    rows_in = list(m.cupy_packages)
    if query:
        hit = m.cupy_package(int(query)) if query.isdigit() else m.cupy_package_named(query)
        if hit is None:
            raise NoMatch("CuPy package or CUDA major", query, [r.package for r in rows_in])
        rows_in = [hit]
    rows = [{"package": r.package, "cuda_major": r.cuda_major, "cuda_min": r.cuda_min,
             "version_from": r.version_from, "version_to": r.version_to, "source": r.source, "note": r.note}
            for r in rows_in]
    return View("cupy", "CuPy wheels by CUDA major", ("package", "cuda_major", "cuda_min", "version_from", "version_to"),
                rows)


def onnxruntime_view(m: Matrices, query: str | None) -> View:
    rows_in = list(m.onnxruntime_releases)
    if query:
        rows_in = m.onnxruntime_builds(query)
        if not rows_in:
            known = [v for r in m.onnxruntime_releases for v in (r.version_from, r.version_to)]
            raise NoMatch("ONNX Runtime version", query, _close(query, known))
    rows = [{"version_from": r.version_from, "version_to": r.version_to, "cuda_major": r.cuda_major, "cuda": r.cuda,
             "cudnn": r.cudnn, "on_pypi": r.on_pypi, "source": r.source, "note": r.note} for r in rows_in]
    return View("onnxruntime", "ONNX Runtime GPU builds by release range",
                ("version_from", "version_to", "cuda_major", "cuda", "cudnn", "on_pypi"), rows)


VIEWS: dict[str, Callable[..., View]] = {
    "torch": torch_view, "cuda": cuda_view, "gpu": gpu_view, "tensorflow": tensorflow_view,
    "jax": jax_view, "cudnn": cudnn_view, "cupy": cupy_view, "onnxruntime": onnxruntime_view,
}
