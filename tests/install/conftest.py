"""Small, hand-made matrices for the install engine's unit tests: the real
shipped CUDA/cuDNN tables plus a few framework rows written here, so each
test states the facts it depends on."""

from __future__ import annotations

import pytest

from gpudoctor.matrices import Matrices, load_matrices
from gpudoctor.matrices import records as r

SRC = "test"
X86 = "linux-x86_64"
ARCH_126 = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
ARCH_128 = ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
ARCH_128_NO_VOLTA = ARCH_128[1:]
ARCH_129 = ARCH_128 + ("compute_120",)
ARCH_130 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120")


def rel(version, py=("3.10", "3.14"), tv=None, ta=None):
    return r.TorchRelease(version=version, python_min=py[0], python_max=py[1], source=SRC, torchvision=tv,
                          torchaudio=ta)


def build(series, variant, arch, cudnn, platform=X86, default=False, cuda=None, index_url=None):
    cuda = cuda or (None if variant == "cpu" else f"{variant[2:-1]}.{variant[-1]}")
    return r.TorchBuild(series=series, variant=variant, platform=platform, source=SRC, cuda=cuda, cudnn=cudnn,
                        arch_list=tuple(arch), pypi_default=default, index_url=index_url)


def make(torch_releases=(), torch_builds=(), tensorflow=(), jax=(), cupy=(), cudnn=None) -> Matrices:
    shipped = load_matrices(overlay=None)
    tables = {stem: {name: shipped.table(stem, name) for name in names}
              for stem, names in {"cuda": ("toolkit", "minor_compat", "arch_support", "driver_branch"),
                                  "gpus": ("gpu", "precision")}.items()}
    tables["cudnn"] = {"release": tuple(cudnn) if cudnn is not None else (
        r.CudnnRelease(version_from="9.0.0", version_to="9.10.2", cuda_majors=(11, 12), min_sm="5.0",
                       max_sm="12.0", source=SRC),
        r.CudnnRelease(version_from="9.11.0", cuda_majors=(12, 13), min_sm="7.5", max_sm="12.1", source=SRC))}
    tables["torch"] = {"release": tuple(torch_releases), "build": tuple(torch_builds)}
    tables["tensorflow"] = {"release": tuple(tensorflow)}
    tables["jax"] = {"release": tuple(jax)}
    tables["cupy"] = {"package": tuple(cupy)}
    return Matrices(tables, {})


@pytest.fixture
def torch_mini() -> Matrices:
    """2.8 (cu126/cu128 default/cu129) and 2.11 (cu126/cu128 without Volta/cu130 default)."""
    return make(
        torch_releases=[rel("2.8.0", ("3.9", "3.13"), "0.23.0", "2.8.0"), rel("2.11.0", tv="0.26.0", ta="2.11.0")],
        torch_builds=[
            build("2.8", "cu126", ARCH_126, "9.10.2.21"),
            build("2.8", "cu128", ARCH_128, "9.10.2.21", default=True),
            build("2.8", "cu129", ARCH_129, "9.10.2.21"),
            build("2.11", "cu126", ARCH_126, "9.10.2.21"),
            build("2.11", "cu128", ARCH_128_NO_VOLTA, "9.17.1.4"),
            build("2.11", "cu130", ARCH_130, "9.17.1.4", default=True),
            build("2.11", "cu130", ("sm_80", "sm_90", "sm_100", "sm_110", "sm_120", "compute_120"), "9.17.1.4",
                  platform="linux-aarch64", default=True),
        ])
