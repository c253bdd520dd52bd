"""RAPIDS (cuDF, cuML, cuGraph) and Numba's CUDA target, as frameworks.

pip wheels name the CUDA major (cudf-cu12); conda packages do not, so the
CUDA major then comes from the conda `cuda-version` package when present.
Numba's CUDA target is the numba-cuda package; its CUDA major is the one its
[cu12]/[cu13] extra pulled in (nvidia-cuda-nvcc-cu12 / -cu13), when installed.
Nothing here is imported.
"""

from __future__ import annotations

import re

from gpudoctor.matrices.companion_queries import RAPIDS_DIST
from gpudoctor.probes.context import Context
from gpudoctor.probes.locate import dists_in, find_dist, read_metadata
from gpudoctor.snapshot import Fact, Framework


def probe(ctx: Context) -> tuple[Framework, ...]:
    out = []
    seen: set[str] = set()
    for site_dir in ctx.search_dirs():
        for name, dist in sorted(dists_in(ctx, site_dir).items()):
            m = RAPIDS_DIST.fullmatch(name)
            if not m or m.group(1) in seen:
                continue
            seen.add(m.group(1))
            meta = read_metadata(ctx.host, dist)
            cuda = (Fact(f"{m.group(2)}.x", f"{dist.label} dist name") if m.group(2)
                    else _cuda_major_from_nvidia_wheels(ctx, f"{m.group(1)} (no -cuNN in its name)"))
            out.append(Framework(name=m.group(1), version=Fact(dist.version, dist.label), location=dist.site_dir,
                                 build=Fact("cuda", f"{dist.label} (RAPIDS is CUDA-only)"), cuda=cuda,
                                 requires_python=meta.get("Requires-Python")))
    numba = find_dist(ctx, "numba-cuda")
    if numba is not None:
        meta = read_metadata(ctx.host, numba)
        out.append(Framework(name="numba-cuda", version=Fact(numba.version, numba.label), location=numba.site_dir,
                             build=Fact("cuda", f"{numba.label} (Numba's CUDA target)"),
                             cuda=_cuda_major_from_nvidia_wheels(ctx, "numba-cuda"),
                             requires_python=meta.get("Requires-Python")))
    return tuple(out)


def _cuda_major_from_nvidia_wheels(ctx: Context, owner: str) -> Fact[str]:
    for site_dir in ctx.search_dirs():
        for name in dists_in(ctx, site_dir):
            m = re.fullmatch(r"nvidia-cuda-(?:nvcc|runtime|nvrtc)-cu(\d+)", name)
            if m:
                return Fact(f"{m.group(1)}.x", f"{name} installed next to {owner}")
    return Fact(None, "", (f"{owner}: no nvidia-cuda-*-cuNN wheel names the CUDA major",))
