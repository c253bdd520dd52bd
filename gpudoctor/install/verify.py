"""`gpudoctor install --verify`: confirm online that the exact pinned files
exist for the target's Python and platform, through the simple repository
API: PyPI's PEP 691 JSON, or the PyTorch wheel index's PEP 503 HTML.

Opt-in and online: `requests` is imported only here, only when asked. A
network failure is "unknown", never "missing". Tests pass a recorded `fetch`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

PYPI_SIMPLE = "https://pypi.org/simple/{name}/"
ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
_HREF = re.compile(r'href="([^"]+)"', re.I)
TIMEOUT_S = 15.0

Fetch = Callable[[str], "str | None"]  # text, or None for 404; raises VerifyUnavailable otherwise


class VerifyUnavailable(RuntimeError):
    """The index could not be asked (offline, timeout, server error)."""


@dataclass(frozen=True)
class FileCheck:
    """Whether the index serves the file one pinned requirement needs on the target."""

    requirement: str
    url: str
    status: str  # "found" | "missing" | "unknown" | "skipped"
    detail: str = ""
    filename: str | None = None

    def as_dict(self) -> dict:
        return {"requirement": self.requirement, "url": self.url, "status": self.status,
                "detail": self.detail, "filename": self.filename}


def http_fetch(url: str) -> str | None:
    try:
        import requests  # noqa: PLC0415 - online and opt-in only
    except ImportError as exc:
        raise VerifyUnavailable("--verify needs the 'requests' package (pip install 'gpudoctor[online]')") from exc
    try:
        resp = requests.get(url, timeout=TIMEOUT_S, headers={"Accept": ACCEPT})
    except requests.RequestException as exc:
        raise VerifyUnavailable(f"{url}: {type(exc).__name__}") from None
    if resp.status_code == 404:
        return None
    if resp.status_code != 200:
        raise VerifyUnavailable(f"{url}: HTTP {resp.status_code}")
    return resp.text


def _platform_ok(tags, platform: str) -> bool:
    plats = {t.platform for t in tags}
    if "any" in plats:
        return True
    if platform == "linux-x86_64":
        return any("linux" in p and p.endswith("x86_64") for p in plats)
    if platform == "linux-aarch64":
        return any("linux" in p and p.endswith("aarch64") for p in plats)
    if platform == "windows-x86_64":
        return "win_amd64" in plats
    if platform == "macos-arm64":
        return any(p.startswith("macosx") and ("arm64" in p or "universal2" in p) for p in plats)
    return False


def _python_ok(tags, python: tuple[int, int] | None) -> bool:
    if python is None:
        return True
    want = {f"cp{python[0]}{python[1]}", f"py{python[0]}{python[1]}", f"py{python[0]}"}
    abi3 = any(t.abi == "abi3" and t.interpreter.startswith("cp3") and int(t.interpreter[3:] or 0) <= python[1]
               for t in tags)
    return abi3 or any(t.interpreter in want for t in tags)


def matching_wheel(filenames, name: str, version: str, python, platform: str) -> str | None:
    """The first wheel of `name`==`version` (local label included when given)
    that installs on that Python and platform."""
    want = canonicalize_name(name)
    for fn in filenames:
        if not fn.endswith(".whl"):
            continue
        try:
            wname, wver, _, tags = parse_wheel_filename(fn)
        except InvalidWheelFilename:
            continue
        if wname != want:
            continue
        if str(wver) != version and (("+" in version) or wver.public != version):
            continue
        if _platform_ok(tags, platform) and _python_ok(tags, python):
            return fn
    return None


def simple_filenames(text: str) -> list[str]:
    """File names from a simple-API page: PEP 691 JSON or PEP 503 HTML."""
    if text.lstrip().startswith("{"):
        return [f.get("filename", "") for f in json.loads(text).get("files", [])]
    return [unquote(h.split("#", 1)[0].rsplit("/", 1)[-1]) for h in _HREF.findall(text)]


def newest_version(filenames, name: str) -> str | None:
    """The newest final release among a project's wheels."""
    want, best = canonicalize_name(name), None
    for fn in filenames:
        try:
            wname, wver, _, _ = parse_wheel_filename(fn)
        except InvalidWheelFilename:
            continue
        if wname == want and not wver.is_prerelease and (best is None or wver > best):
            best = wver
    return str(best) if best else None


def _requirements(plan) -> list[tuple[str, str | None]]:
    """(name, exact version or None) of every package the plan pins, plus the
    wheels an extra pulls in that must match the platform (JAX's plugin)."""
    out = []
    for text in plan.install.packages:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        pinned = [s.version for s in req.specifier if s.operator == "=="]
        if req.name.startswith("nvidia-") and not pinned:
            continue  # a constraint, not a package the plan chose
        out.append((req.name, pinned[0] if pinned else None))
        if req.name == "jax" and pinned:
            out.append(("jaxlib", pinned[0]))
            for extra in req.extras:
                if extra.startswith("cuda"):
                    out.append((f"jax-{extra.split('-')[0]}-plugin", pinned[0]))
    return out


def verify_plan(plan, fetch: Fetch | None = None) -> list[FileCheck]:
    fetch = fetch or http_fetch
    if not plan.ok:
        return []
    t = plan.target
    index = plan.install.index_url
    checks = []
    for name, version in _requirements(plan):
        label = f"{name}=={version}" if version else name
        url = (f"{index.rstrip('/')}/{canonicalize_name(name)}/" if index
               else PYPI_SIMPLE.format(name=canonicalize_name(name)))
        try:
            text = fetch(url)
        except VerifyUnavailable as exc:
            checks.append(FileCheck(label, url, "unknown", str(exc)))
            continue
        if text is None:
            checks.append(FileCheck(label, url, "missing", "the index has no such project"))
            continue
        try:
            files = simple_filenames(text)
        except (ValueError, AttributeError) as exc:
            checks.append(FileCheck(label, url, "unknown", f"unreadable answer: {exc}"))
            continue
        if version is None:
            version = newest_version(files, name)
            label = f"{name} (newest: {version})" if version else name
        if version is None:
            checks.append(FileCheck(label, url, "missing", f"no wheel of {name} on the index"))
            continue
        hit = matching_wheel(files, name, version, t.python, t.platform)
        py = f"Python {t.python_text}" if t.python else "any Python"
        if hit:
            checks.append(FileCheck(label, url, "found", f"a wheel for {py} on {t.platform}", hit))
        else:
            checks.append(FileCheck(label, url, "missing", f"no wheel of {name} {version} for {py} on {t.platform}"))
    return checks
