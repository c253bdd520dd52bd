"""The rows of torch.toml (see gpudoctor/matrices/records/__init__.py)."""

from __future__ import annotations

from dataclasses import field

from gpudoctor.frozen import frozen


@frozen
class TorchRelease:
    """torch.toml [[release]]: one PyTorch release on PyPI."""

    version: str  # "2.14.1"
    python_min: str  # "3.10"
    python_max: str  # "3.14" (newest supported, experimental ones excluded)
    source: str
    torchvision: str | None = None
    torchaudio: str | None = None
    released: str | None = None  # "2026-10-15"
    python_extra: tuple[str, ...] = ()  # supported outside the range: 2.7 up to torch 1.4 (Linux, macOS)
    note: str = ""


@frozen
class TorchBuild:
    """torch.toml [[build]]: one wheel variant of a release series on one platform."""

    series: str  # "2.14": the minor series; applies to all its patch releases
    variant: str  # "cu130" | "cu126" | "cpu" | "rocm6.4" | "xpu"
    platform: str  # "linux-x86_64" | "linux-aarch64" | "windows-x86_64" | "macos-arm64"
    source: str
    cuda: str | None = None  # "13.0" (None for cpu/rocm/xpu)
    cudnn: str | None = None  # bundled/pinned cuDNN, "9.13.0.50"
    nccl: str | None = None
    # As torch.cuda.get_arch_list() prints it: ("sm_75", ..., "sm_120", "compute_120"); what
    # every patch release of the series carries.
    arch_list: tuple[str, ...] = ()
    # Where patch releases differ (1.3.0 has sm_35, 1.3.1 sm_37): each one's own list.
    patch_arch_lists: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    pypi_default: bool = False  # a plain `pip install torch` gets this variant here
    index_url: str | None = None  # "https://download.pytorch.org/whl/cu130"
    os_min: str | None = None  # oldest OS release the wheels' platform tag allows (macOS "14.0")
    # How pip reaches index_url: "index" (--index-url), "extra-index" (--extra-index-url:
    # the old indexes mirror no dependencies) or "find-links" (-f <index_url>/torch_stable.html, <= 1.10).
    index_kind: str = "index"
    note: str = ""

    def arch_list_of(self, version: str) -> tuple[str, ...]:
        """The arch list of one release of the series ("1.3.0+cu101" reads as 1.3.0)."""
        return self.patch_arch_lists.get(version.split("+")[0], self.arch_list)
