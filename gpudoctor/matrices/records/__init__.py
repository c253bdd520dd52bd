"""The row types of the compatibility matrices.

Each TOML file under gpudoctor/matrices/ holds `schema_version`, `data_as_of`
and one array of tables per fact type; each row becomes one of these frozen
records. Fields are facts only: what to run belongs in a rule's Fix.

Every row has `source` (a URL or "owner/repo path@commit") and may have
`note`, where conflicts between sources are written down.

One module per matrix file, imported when one of its record types is first
named (r.TorchBuild, `from gpudoctor.matrices.records import GpuModel`): a
`check` that never loads gpus.toml never builds its record classes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# record type -> the module (matrix file) that defines it
MODULES = {
    "CudaToolkit": "cuda",
    "MinorCompat": "cuda",
    "ArchSupport": "cuda",
    "DriverBranch": "cuda",
    "ArchDriver": "cuda",
    "GpuModel": "gpus",
    "GpuFamily": "gpus",
    "GpuSharedName": "gpus",
    "PrecisionSupport": "gpus",
    "PrecisionQuirk": "gpus",
    "TorchRelease": "torch",
    "TorchBuild": "torch",
    "TensorflowRelease": "tensorflow",
    "JaxRelease": "jax",
    "CudnnRelease": "cudnn",
    "CupyPackage": "cupy",
    "OnnxruntimeRelease": "onnxruntime",
    "AchievableRate": "rates",
    "MigShare": "rates",
    "CompanionPin": "companions",
    "FrameworkPin": "companions",
    "ExtensionWheel": "companions",
    "GpuLibrary": "companions",
    "Image": "companions",
}

__all__ = [
    "AchievableRate",
    "ArchDriver",
    "ArchSupport",
    "CompanionPin",
    "CudaToolkit",
    "CudnnRelease",
    "CupyPackage",
    "DriverBranch",
    "ExtensionWheel",
    "FrameworkPin",
    "GpuFamily",
    "GpuLibrary",
    "GpuModel",
    "GpuSharedName",
    "Image",
    "JaxRelease",
    "MigShare",
    "MinorCompat",
    "OnnxruntimeRelease",
    "PrecisionQuirk",
    "PrecisionSupport",
    "TensorflowRelease",
    "TorchBuild",
    "TorchRelease",
]

if TYPE_CHECKING:
    from gpudoctor.matrices.records.cuda import ArchDriver, ArchSupport, CudaToolkit, DriverBranch, MinorCompat
    from gpudoctor.matrices.records.gpus import GpuFamily, GpuModel, GpuSharedName, PrecisionQuirk, PrecisionSupport
    from gpudoctor.matrices.records.torch import TorchBuild, TorchRelease
    from gpudoctor.matrices.records.tensorflow import TensorflowRelease
    from gpudoctor.matrices.records.jax import JaxRelease
    from gpudoctor.matrices.records.cudnn import CudnnRelease
    from gpudoctor.matrices.records.cupy import CupyPackage
    from gpudoctor.matrices.records.onnxruntime import OnnxruntimeRelease
    from gpudoctor.matrices.records.rates import AchievableRate, MigShare
    from gpudoctor.matrices.records.companions import CompanionPin, ExtensionWheel, FrameworkPin, GpuLibrary, Image


def __getattr__(name: str) -> type:
    module = MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # named once, then a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(MODULES))
