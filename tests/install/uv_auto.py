"""uv's `--torch-backend=auto` rule, as documented (uv 0.12.5,
crates/uv-torch/src/backend.rs; see docs/install.md): keep every CUDA backend
whose minimum driver is <= the detected driver, newest CUDA first, then cpu;
the first index that publishes a matching torch wins (UnsafeFirstMatch).

It looks at the driver version only: no compute capability, no cuDNN floor.
Used by the machine-table tests and bench/install_vs_uv.py to compare rules.
"""

from __future__ import annotations

from gpudoctor.versions import driver_at_least

# backend -> (Linux minimum driver, Windows minimum driver), newest CUDA first.
UV_DRIVER_FLOORS = (
    ("cu132", "580", "580"), ("cu130", "580", "580"),
    ("cu129", "525.60.13", "528.33"), ("cu128", "525.60.13", "528.33"), ("cu126", "525.60.13", "528.33"),
    ("cu125", "525.60.13", "528.33"), ("cu124", "525.60.13", "528.33"), ("cu123", "525.60.13", "528.33"),
    ("cu122", "525.60.13", "528.33"), ("cu121", "525.60.13", "528.33"), ("cu120", "525.60.13", "528.33"),
    ("cu118", "450.80.02", "452.39"), ("cu117", "450.80.02", "452.39"), ("cu116", "450.80.02", "452.39"),
    ("cu115", "450.80.02", "452.39"), ("cu114", "450.80.02", "452.39"), ("cu113", "450.80.02", "452.39"),
    ("cu112", "450.80.02", "452.39"), ("cu111", "450.80.02", "452.39"), ("cu110", "450.36.06", "451.22"),
    ("cu102", "440.33", "441.22"), ("cu101", "418.39", "418.96"), ("cu100", "410.48", "411.31"),
    ("cu92", "396.26", "398.26"), ("cu91", "390.46", "391.29"), ("cu90", "384.81", "385.54"),
    ("cu80", "375.26", "376.51"),
)
PYTORCH_INDEX = "https://download.pytorch.org/whl/"


def uv_auto_backends(driver: str | None, os_name: str) -> list[str]:
    """The indexes uv searches, in order, for an NVIDIA driver (or none)."""
    if not driver or os_name not in ("linux", "windows"):
        return ["cpu"]
    col = 1 if os_name == "linux" else 2
    return [row[0] for row in UV_DRIVER_FLOORS if driver_at_least(driver, row[col])] + ["cpu"]


def _on_index(backend: str, version: str, platform: str, matrices, channels) -> bool:
    if any(b.variant == backend and (b.index_url or "").startswith(PYTORCH_INDEX)
           for b in matrices.torch_builds_of(version, platform)):
        return True
    return backend == "cpu" and channels.cpu_index_for("torch", platform) is not None


def uv_auto_choice(target, request, matrices) -> tuple[str, str] | None:
    """(torch version, backend) that `uv pip install torch --torch-backend=auto`
    resolves to: the newest matching torch on the first index that has one."""
    from gpudoctor.install.candidates import version_key
    from gpudoctor.install.channels import load_channels

    channels = load_channels()
    for backend in uv_auto_backends(target.driver, target.os):
        versions = [rel.version for rel in matrices.torch_releases
                    if request.allows(rel.version) and _python_ok(rel, target.python)
                    and _on_index(backend, rel.version, target.platform, matrices, channels)]
        if versions:
            return max(versions, key=version_key), backend
    return None


def judge_uv(target, request, matrices) -> tuple[tuple[str, str] | None, bool, str]:
    """uv's pick, and whether it works on `target` by gpudoctor's checks
    (kernels for every GPU, driver, cuDNN floor). A CPU wheel on a GPU machine
    does not count as working."""
    from gpudoctor.install.channels import load_channels
    from gpudoctor.install.checks import assess
    from gpudoctor.install.torch import candidates

    pick = uv_auto_choice(target, request, matrices)
    if pick is None:
        return None, False, "no torch on any index uv searches"
    version, backend = pick
    if backend == "cpu" and not target.cpu_only:
        return pick, False, "a CPU wheel on a machine with an NVIDIA GPU"
    if backend == "cpu":
        return pick, True, "CPU wheel"
    cands = [c for c in candidates(target, matrices, load_channels(), request)
             if c.version == version and c.variant == backend and not (c.index_url or "").startswith("https://pypi")]
    if not cands:
        return pick, False, "no such build in gpudoctor's data"
    a = assess(cands[0], target, request, matrices)
    return pick, a.works, a.blocker_text() or "works"


def _python_ok(rel, python) -> bool:
    from gpudoctor.versions import python_version

    if python is None:
        return True
    lo, hi = python_version(rel.python_min), python_version(rel.python_max)
    return (lo is None or python >= lo) and (hi is None or python <= hi)
