"""State shared by the probes of one `collect()` run.

It holds the host and the target interpreter, and caches what several probes
read (directory listings, /etc/ld.so.cache, the one NVML init, the one
nvidia-smi query), so each is read once per run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, TypeVar

from gpudoctor.frozen import mutable
from gpudoctor.host import Host, NvmlError, NvmlPort
from gpudoctor.probes.target import TargetInfo

T = TypeVar("T")


@mutable
class Context:
    """State shared by the probes of one collect() run."""

    host: Host
    target: TargetInfo
    _cache: dict[str, Any] = field(default_factory=dict)
    _nvml: NvmlPort | None = None

    @property
    def env(self) -> Mapping[str, str]:
        return self.host.env()

    def cached(self, key: str, compute: Callable[[], T]) -> T:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def listdir(self, path: str) -> list[str]:
        return self.cached(f"listdir:{path}", lambda: self.host.listdir(path))

    def search_dirs(self) -> tuple[str, ...]:
        """The target's sys.path entries that are directories, in order,
        each once (by real path); where its packages and nvidia wheels live."""

        def compute() -> tuple[str, ...]:
            seen: set[str] = set()
            out = []
            for entry in self.target.path:
                if not posixpath.isabs(entry) or not self.host.is_dir(entry):
                    continue
                real = self.host.realpath(entry)
                if real not in seen:
                    seen.add(real)
                    out.append(entry)
            return tuple(out)

        return self.cached("search_dirs", compute)

    # --- NVML: initialised at most once per run, shut down by close() -----

    def nvml_init(self) -> tuple[NvmlPort | None, NvmlError | None]:
        """The initialised NVML port, or the error nvmlInit gave."""

        def compute() -> tuple[NvmlPort | None, NvmlError | None]:
            port = self.host.nvml()
            try:
                port.init()
            except NvmlError as exc:
                return None, exc
            self._nvml = port
            return port, None

        return self.cached("nvml_init", compute)

    def close(self) -> None:
        if self._nvml is not None:
            self._nvml.shutdown()
            self._nvml = None
