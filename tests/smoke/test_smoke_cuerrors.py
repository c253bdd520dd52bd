"""The CUDA error table: numbers and names agree with the toolkit's headers,
and framework messages are recognised."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gpudoctor import cuerrors

BRIEF_CODES = (100, 802, 804, 999, 3, 35, 34, 209, 222)


def _header(name: str) -> str:
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "include" / name).is_file():
            return (Path(root) / "include" / name).read_text(errors="replace")
    pytest.skip(f"no CUDA toolkit header {name} (set CUDA_HOME)")


def _enum(text: str, prefix: str) -> dict[int, str]:
    return {int(v): n for n, v in re.findall(rf"\b({prefix}\w+)\s*=\s*(\d+)", text)}


def test_driver_api_names_and_numbers_match_cuda_h():
    enum = _enum(_header("cuda.h"), "CUDA_ERROR_")
    for e in cuerrors.BY_CODE.values():
        if e.name.startswith("cudaError"):  # runtime only (35, 98): the driver API has no such code
            assert e.code not in enum, e.code
            continue
        assert enum.get(e.code) == e.name, e.code


def test_runtime_names_match_driver_types_h():
    enum = _enum(_header("driver_types.h"), "cudaError")
    for e in cuerrors.BY_CODE.values():
        if e.code in enum:  # a few runtime names are aliases (cudaErrorCudartUnloading = 4)
            assert enum[e.code] == e.runtime_name, e.code


@pytest.mark.parametrize("code", BRIEF_CODES)
def test_every_named_code_has_a_meaning_and_a_fix(code):
    e = cuerrors.describe(code)
    assert e.code == code and e.meaning and e.fix and e.source.startswith("https://")


def test_unknown_code_is_still_named_by_number():
    e = cuerrors.describe(4242)
    assert "4242" in e.name and e.fix


@pytest.mark.parametrize("text, code", [
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on "
     "non supported HW", 804),
    ("CUDA error: no kernel image is available for execution on the device", 209),
    ("RuntimeError: The NVIDIA driver on your system is too old ... CUDA driver version is insufficient for CUDA "
     "runtime version", 35),
    ("CUDA initialization: Error 802: system not yet initialized", 802),
    ("cudaErrorUnsupportedPtxVersion", 222),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", 2),
])
def test_framework_messages_are_recognised(text, code):
    found = cuerrors.find_in_text(text)
    assert found is not None and found.code == code


def test_text_without_a_cuda_error_is_not_matched():
    assert cuerrors.find_in_text("ModuleNotFoundError: No module named 'torch'") is None
    assert cuerrors.find_in_text("") is None
