"""Queries over companions.toml: companion pins, framework pins, extension
wheel tags, GPU-library needs and container images. Functions of a Matrices,
kept apart so the main query module stays small."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from gpudoctor.matrices import records as r
from gpudoctor.versions import compute_capability, driver_at_least

# Dist names that mean one RAPIDS library (pip: cudf-cu12; conda: cudf).
RAPIDS_DIST = re.compile(r"^(cudf|cuml|cugraph)(?:-cu(\d+))?$")


def _v(text: str | None) -> Version | None:
    try:
        return Version(str(text).split("+", 1)[0]) if text else None
    except InvalidVersion:
        return None


def spec_allows(spec: str, version: str) -> bool | None:
    """Whether `version` (local label ignored) meets `spec`; None when either is junk."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # only when a companion is judged

    v = _v(version)
    try:
        s = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    return None if v is None else s.contains(v, prereleases=True)


def pin(m, package: str, version: str) -> r.CompanionPin | None:
    want = _v(version)
    for row in m.table("companions", "pin"):
        if row.package == package and _v(row.version) == want:
            return row
    return None


def pins_for_framework(m, package: str, framework_version: str) -> list[r.CompanionPin]:
    """Releases of `package` whose pin admits `framework_version`, newest first."""
    rows = [row for row in m.table("companions", "pin")
            if row.package == package and spec_allows(row.requires, framework_version)]
    return sorted(rows, key=lambda row: _v(row.version) or Version("0"), reverse=True)


def framework_pin(m, framework: str, framework_version: str, package: str) -> r.FrameworkPin | None:
    want = _v(framework_version)
    for row in m.table("companions", "framework_pin"):
        if row.framework == framework and row.package == package and _v(row.framework_version) == want:
            return row
    return None


def extension_wheel(m, package: str) -> r.ExtensionWheel | None:
    for row in m.table("companions", "extension_wheel"):
        if row.package == package:
            return row
    return None


def gpu_library_rows(m, package: str, version: str | None, cuda_major: int | None) -> list[r.GpuLibrary]:
    """Rows covering `version` (and the CUDA major, or rows for any major), most specific first."""
    v = _v(version)
    if v is None:
        return []
    out = []
    for row in m.table("companions", "gpu_library"):
        lo, hi = _v(row.version_from), _v(row.version_to)
        if row.package != package or lo is None or v < lo or (hi is not None and v > hi):
            continue
        if row.cuda_major is not None and cuda_major is not None and row.cuda_major != cuda_major:
            continue
        out.append(row)
    out.sort(key=lambda row: _v(row.version_from) or Version("0"), reverse=True)
    return sorted(out, key=lambda row: row.cuda_major is None)


def gpu_library_need(m, package: str, version: str | None, cuda_major: int | None, field: str):
    """(value, source) of the first row that knows `field`, or None."""
    for row in gpu_library_rows(m, package, version, cuda_major):
        value = getattr(row, field)
        if value is not None:
            return value, row.source
    return None


def gpu_library_releases_with(m, package: str, field: str, value) -> str | None:
    """The pip specifier of the newest release range whose rows give `field` that value
    (ctranslate2 with cudnn_major 9: ">=4.5.0"); None without such a row."""
    rows = [row for row in m.table("companions", "gpu_library") if row.package == package and getattr(row, field) == value]
    newest = max(rows, key=lambda row: _v(row.version_from) or Version("0"), default=None)
    if newest is None:
        return None
    return f">={newest.version_from}" + (f",<={newest.version_to}" if newest.version_to else "")


def gpu_library_floor(m, package: str, cuda_major: int | None):
    """(lowest min_sm of any release, its source) for a library whose release is
    unknown: a GPU below it is below every release's floor. None without rows."""
    rows = [row for row in m.table("companions", "gpu_library") if row.package == package and row.min_sm
            and (row.cuda_major is None or cuda_major is None or row.cuda_major == cuda_major)]
    low = min(rows, key=lambda row: compute_capability(row.min_sm) or (99, 9), default=None)
    return (low.min_sm, low.source) if low else None


def image(m, repository: str, tag: str) -> r.Image | None:
    for row in m.table("companions", "image"):
        if row.repository == repository and row.tag == tag:
            return row
    return None


def image_driver_ok(row: r.Image, driver: str, datacenter: bool) -> bool | None:
    """Whether a driver release meets a tag's release notes: their floor, or on a data-center
    GPU the oldest release of its own branch they list. None: the notes state no floor."""
    if not row.min_driver_linux:
        return None
    if driver_at_least(driver, row.min_driver_linux):
        return True
    branch = driver.split(".", 1)[0]
    return datacenter and any(a.split(".", 1)[0] == branch and driver_at_least(driver, a)
                              for a in row.datacenter_drivers)


def image_tags_for(m, repository: str, *, driver: str | None = None, datacenter: bool = False,
                   sm: str | None = None) -> list[r.Image]:
    """Tags of `repository` whose release notes' floors a host meets (a driver release, a
    compute capability), newest first; only rows that state the floor count."""
    out = []
    for row in m.table("companions", "image"):
        if row.repository != repository:
            continue
        if driver is not None and not image_driver_ok(row, driver, datacenter):
            continue
        if sm is not None and not (row.min_sm and sm_at_least(sm, row.min_sm)):
            continue
        out.append(row)
    return sorted(out, key=lambda row: tuple(int(p) for p in row.tag.split(".")), reverse=True)


def sm_at_least(cc_text: str | None, floor: str) -> bool | None:
    cc, lo = compute_capability(cc_text), compute_capability(floor)
    if cc is None or lo is None:
        return None
    return (cc.major, cc.minor) >= (lo.major, lo.minor)
