"""PyPI's JSON API, as `gpudoctor matrix refresh` reads it: the client (the only
network access gpudoctor makes) and the readers that turn a project or release
document into versions, Python floors and pinned CUDA/cuDNN/NCCL."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from packaging.markers import InvalidMarker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

PYPI_JSON = "https://pypi.org/pypi"
PACKAGES = ("torch", "tensorflow", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin",
            "cupy-cuda12x", "cupy-cuda13x", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
            "nvidia-cuda-runtime", "nvidia-cuda-runtime-cu12")
# Markers of the platform whose wheel metadata says what the default variant is.
LINUX_X86 = {"platform_system": "Linux", "sys_platform": "linux", "platform_machine": "x86_64",
             "os_name": "posix", "python_version": "3.12", "python_full_version": "3.12.0",
             "implementation_name": "cpython", "platform_python_implementation": "CPython"}


class RefreshError(Exception):
    """PyPI could not be asked, or answered something unusable. One line."""


class Session(Protocol):
    def get(self, url: str, timeout: float) -> Any: ...


@dataclass
class PyPI:
    """Fetches PyPI JSON documents through a requests-like session."""

    session: Session
    timeout: float = 15.0
    fetched: list[str] = field(default_factory=list)

    def _get(self, url: str, missing_ok: bool) -> dict[str, Any] | None:
        self.fetched.append(url)
        try:
            resp = self.session.get(url, timeout=self.timeout)
        except OSError as exc:  # requests' ConnectionError/Timeout derive from OSError
            raise RefreshError(f"cannot reach PyPI ({url}): {type(exc).__name__}: {exc}") from None
        status = getattr(resp, "status_code", None)
        if status == 404 and missing_ok:
            return None
        if status != 200:
            raise RefreshError(f"PyPI answered HTTP {status} for {url}")
        try:
            doc = resp.json()
        except ValueError:
            raise RefreshError(f"PyPI sent something that is not JSON for {url}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("info"), dict):
            raise RefreshError(f"unexpected JSON from {url} (no 'info' object)")
        return doc

    def project(self, name: str) -> dict[str, Any]:
        doc = self._get(f"{PYPI_JSON}/{name}/json", missing_ok=False)
        assert doc is not None
        if not isinstance(doc.get("releases"), dict):
            raise RefreshError(f"unexpected JSON from {PYPI_JSON}/{name}/json (no 'releases' object)")
        return doc

    def release_info(self, name: str, version: str, project: dict[str, Any]) -> dict[str, Any] | None:
        """The metadata of one release: the project document's own info when it
        is that release, else /<name>/<version>/json (None where not served)."""
        if project["info"].get("version") == version:
            return project["info"]
        doc = self._get(f"{PYPI_JSON}/{name}/{version}/json", missing_ok=True)
        return doc["info"] if doc else None


# --- reading PyPI documents ------------------------------------------------------------------
def _v(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def releases_after(project: dict[str, Any], newest: str | None, key=None) -> list[str]:
    """Final, non-yanked releases with files, newer than `newest`, oldest first."""
    key = key or (lambda v: v)
    floor = _v(newest)
    out = []
    for text, files in project["releases"].items():
        v = _v(text)
        if v is None or v.is_prerelease or v.is_devrelease or not isinstance(files, list) or not files:
            continue
        if all(f.get("yanked") for f in files if isinstance(f, dict)):
            continue
        if floor is None or key(v) > key(floor):
            out.append(text)
    return sorted(out, key=Version)


def wheel_pythons(files: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """CPython minors with a (non free-threaded) wheel among `files`."""
    found = set()
    for f in files:
        try:
            _, _, _, tags = parse_wheel_filename(str(f.get("filename", "")))
        except InvalidWheelFilename:
            continue
        for tag in tags:
            m = re.fullmatch(r"cp3(\d+)", tag.interpreter)
            if m and not tag.abi.endswith("t"):
                found.add((3, int(m.group(1))))
    return sorted(found)


def python_floor(requires_python: str | None) -> str | None:
    try:
        spec = SpecifierSet(requires_python or "")
    except InvalidSpecifier:
        return None
    floors = [s.version for s in spec if s.operator in (">=", ">")]
    if not floors:
        return None
    nums = [int(n) for n in re.findall(r"\d+", min(floors, key=Version))[:2]]
    return ".".join(map(str, nums)) if len(nums) == 2 else None


def pins(requires_dist: list[str] | None, env: dict[str, str], extra: str | None = None) -> dict[str, str]:
    """{distribution name: lowest version it allows} for the requirements that
    apply to `env` (and `extra`), e.g. {"nvidia-cudnn-cu13": "9.26.0.51"}."""
    out: dict[str, str] = {}
    for line in requires_dist or ():
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        try:
            applies = req.marker is None or req.marker.evaluate({**env, "extra": extra or ""})
        except InvalidMarker:
            applies = False
        if not applies:
            continue
        floors = [s.version for s in req.specifier if s.operator in ("==", ">=", "~=", "===")]
        if floors:
            out[req.name.lower()] = min(floors, key=lambda t: _v(t.rstrip(".*")) or Version("0"))
    return out


def _major_minor(version: str | None) -> str | None:
    nums = re.findall(r"\d+", version or "")
    return f"{nums[0]}.{nums[1]}" if len(nums) >= 2 else None


def cuda_of(p: dict[str, str]) -> str | None:
    """The CUDA major.minor a set of pins implies (toolkit meta-package or cudart)."""
    for name in ("cuda-toolkit", "nvidia-cuda-runtime", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11"):
        if name in p:
            return _major_minor(p[name])
    return None


def cudnn_of(p: dict[str, str]) -> str | None:
    for name in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"):
        if name in p:
            return p[name]
    return None


def nccl_of(p: dict[str, str]) -> str | None:
    for name in ("nvidia-nccl-cu13", "nvidia-nccl-cu12", "nvidia-nccl-cu11"):
        if name in p:
            return p[name]
    return None


def _date(files: list[dict[str, Any]]) -> str | None:
    times = [str(f.get("upload_time", ""))[:10] for f in files if f.get("upload_time")]
    return min(times) if times else None
