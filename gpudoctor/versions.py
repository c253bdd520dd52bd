"""Parsing and comparing the version numbers of this field.

Driver releases ("535.104.05") compare numerically field by field, CUDA
versions ("12.8", "13.0.96") by major and minor, compute capabilities
("8.6", "sm_86", "compute_120") by (major, minor). All parsers return None on
junk instead of raising: input often comes from pasted text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# At most 12 digits a field: a longer run is junk (and int() refuses 4,300 digits).
_NUMS = re.compile(r"^\s*v?(\d{1,12}(?:\.\d{1,12})*)(?!\d)")


def parse_numeric(text: str | None) -> tuple[int, ...] | None:
    """'535.104.05' -> (535, 104, 5); '12.8' -> (12, 8); junk -> None."""
    if not text:
        return None
    m = _NUMS.match(str(text))
    if not m:
        return None
    return tuple(int(p) for p in m.group(1).split("."))


def driver_tuple(version: str | None) -> tuple[int, ...] | None:
    return parse_numeric(version)


def driver_at_least(version: str | None, floor: str) -> bool | None:
    """Compare driver releases; None when `version` does not parse, or names only
    the branch of the floor ("410" against 410.48: any 410.xx release)."""
    have, need = driver_tuple(version), driver_tuple(floor)
    if have is None or need is None:
        return None
    if len(have) == 1 and len(need) > 1 and have[0] == need[0] and any(need[1:]):
        return None
    width = max(len(have), len(need))
    return have + (0,) * (width - len(have)) >= need + (0,) * (width - len(need))


class CudaVersion(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def tag(self) -> str:
        """The wheel-index tag: 12.8 -> 'cu128', 13.0 -> 'cu130'."""
        return f"cu{self.major}{self.minor}"


def cuda_version(text: str | int | None) -> CudaVersion | None:
    """'12.8' / '12.8.93' / 12080 (cuDriverGetVersion) / 'cu128' -> CudaVersion(12, 8)."""
    if text is None:
        return None
    if isinstance(text, int):
        if text <= 0:
            return None
        return CudaVersion(text // 1000, (text % 1000) // 10)
    s = str(text).strip().lower()
    m = re.fullmatch(r"cu(\d{2,3})", s)
    if m:
        digits = m.group(1)
        # cu118 -> 11.8, cu128 -> 12.8, cu92 -> 9.2, cu130 -> 13.0
        return CudaVersion(int(digits[:-1]), int(digits[-1]))
    nums = parse_numeric(s)
    if not nums or len(nums) < 2:
        return None
    return CudaVersion(nums[0], nums[1])


class ComputeCapability(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def sm(self) -> str:
        return f"sm_{self.major}{self.minor}"


def compute_capability(text: str | None) -> ComputeCapability | None:
    """'8.6', '86', 'sm_86', 'compute_120', 'sm_90a' -> ComputeCapability."""
    if text is None:
        return None
    s = str(text).strip().lower()
    m = re.fullmatch(r"(\d+)\.(\d)", s)
    if m:
        return ComputeCapability(int(m.group(1)), int(m.group(2)))
    m = re.fullmatch(r"(?:sm_|compute_|sm|compute)?(\d+)(\d)[af]?", s)
    if m:
        return ComputeCapability(int(m.group(1)), int(m.group(2)))
    return None


def python_version(text: str | None) -> tuple[int, int] | None:
    nums = parse_numeric(text)
    if not nums or len(nums) < 2:
        return None
    return nums[0], nums[1]
