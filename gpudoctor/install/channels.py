"""Installer and channel facts (gpudoctor/data/install_channels.toml): which
backends uv's --torch-backend accepts, where CPU wheels live, which conda
channels carry a framework. Loaded closed-world like the matrices."""

from __future__ import annotations

import functools
import os

from gpudoctor.frozen import frozen
from gpudoctor.serde import DataError, from_data

DATA_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "data", "install_channels.toml")


@frozen
class UvTorchBackends:
    """install_channels.toml [[uv_torch_backend]]: the backends a uv release's --torch-backend accepts."""

    uv_version: str
    backends: tuple[str, ...]
    source: str
    note: str = ""


@frozen
class CpuIndex:
    """install_channels.toml [[cpu_index]]: where a framework's CPU-only wheels live."""

    framework: str
    index_url: str
    platforms: tuple[str, ...]
    source: str
    local_tag_platforms: tuple[str, ...] = ()
    note: str = ""


@frozen
class CondaChannel:
    """install_channels.toml [[conda_channel]]: a conda channel that carries a framework series."""

    framework: str
    channel: str
    package: str
    series_from: str
    series_to: str
    platforms: tuple[str, ...]
    source: str
    extra_channels: tuple[str, ...] = ()
    cuda_package: str | None = None
    cpu_package: str | None = None
    note: str = ""


@frozen
class CondaForgeBuild:
    """install_channels.toml [[conda_forge_build]]: one conda-forge build of a framework."""

    framework: str
    package: str
    version: str
    platform: str
    source: str
    cuda: str | None = None
    arch_list: tuple[str, ...] = ()
    python_min: str | None = None
    python_max: str | None = None
    note: str = ""


@frozen
class PypiGpu:
    """install_channels.toml [[pypi_gpu]]: the platforms where PyPI's default wheel is a GPU build."""

    framework: str
    platforms: tuple[str, ...]
    source: str
    note: str = ""


@frozen
class CondaCommand:
    """install_channels.toml [[conda_command]]: the conda command that installs a framework from a channel."""

    framework: str
    channel: str
    command: str  # a template: "{cuda_major}"
    platforms: tuple[str, ...]
    source: str
    note: str = ""


@frozen
class JetsonRelease:
    """A JetPack release: the L4T it ships, its CUDA, and where frameworks built
    for Jetson's integrated GPU come from (PyPI's aarch64 wheels are SBSA builds)."""

    jetpack: str  # "6.1"
    l4t: tuple[str, ...]  # L4T releases, as /etc/nv_tegra_release says them: ("36.4",)
    cuda: str
    python: str  # the system Python of that JetPack's Ubuntu
    source: str
    torch_index: str | None = None  # a pip index or page with NVIDIA's Jetson wheels
    torch_versions: tuple[str, ...] = ()
    container: str | None = None
    note: str = ""


_TABLES = {
    "uv_torch_backend": UvTorchBackends,
    "cpu_index": CpuIndex,
    "conda_channel": CondaChannel,
    "conda_forge_build": CondaForgeBuild,
    "pypi_gpu": PypiGpu,
    "conda_command": CondaCommand,
    "jetson": JetsonRelease,
}


@frozen
class Channels:
    """Every table of install_channels.toml."""

    uv: tuple[UvTorchBackends, ...] = ()
    cpu_index: tuple[CpuIndex, ...] = ()
    conda: tuple[CondaChannel, ...] = ()
    conda_forge: tuple[CondaForgeBuild, ...] = ()
    pypi_gpu: tuple[PypiGpu, ...] = ()
    conda_commands: tuple[CondaCommand, ...] = ()
    jetson: tuple[JetsonRelease, ...] = ()

    def jetson_release(self, l4t: str | None) -> JetsonRelease | None:
        """The JetPack of an L4T release ("36.4.3" -> JetPack 6.1/6.2 row)."""
        if not l4t:
            return None
        for row in self.jetson:
            if any(l4t == v or l4t.startswith(v + ".") for v in row.l4t):
                return row
        return None

    def uv_backends(self) -> frozenset[str]:
        return frozenset(b for row in self.uv for b in row.backends)

    def uv_version(self) -> str:
        return max((row.uv_version for row in self.uv), default="")

    def cpu_index_for(self, framework: str, platform: str) -> CpuIndex | None:
        return next((r for r in self.cpu_index if r.framework == framework and platform in r.platforms), None)

    def gpu_platforms(self, framework: str) -> tuple[PypiGpu | None, tuple[str, ...]]:
        row = next((r for r in self.pypi_gpu if r.framework == framework), None)
        return row, (row.platforms if row else ())


def channels_from_doc(doc: dict, origin: str) -> Channels:
    """The channels from the parsed TOML of install_channels.toml, closed-world."""
    doc = dict(doc)
    if doc.pop("schema_version", None) != 1:
        raise DataError(f"{origin}: schema_version must be 1")
    doc.pop("data_as_of", None)
    found: dict[str, list] = {}
    for name, rows in doc.items():
        record = _TABLES.get(name)
        if record is None or not isinstance(rows, list):
            raise DataError(f"{origin}: unknown table {name!r}")
        found[name] = [from_data(record, row, f"{origin}: {name}[{i}]") for i, row in enumerate(rows)]
        for i, item in enumerate(found[name]):
            if not item.source.strip():
                raise DataError(f"{origin}: {name}[{i}]: source must not be empty")
    return Channels(
        uv=tuple(found.get("uv_torch_backend", ())),
        cpu_index=tuple(found.get("cpu_index", ())),
        conda=tuple(found.get("conda_channel", ())),
        conda_forge=tuple(found.get("conda_forge_build", ())),
        pypi_gpu=tuple(found.get("pypi_gpu", ())),
        conda_commands=tuple(found.get("conda_command", ())),
        jetson=tuple(found.get("jetson", ())),
    )


@functools.lru_cache(maxsize=1)
def load_channels() -> Channels:
    from gpudoctor.matrices.loader import read_doc  # the matrices' parse cache: TOML parsed once per install

    return channels_from_doc(read_doc(DATA_FILE), os.path.basename(DATA_FILE))
