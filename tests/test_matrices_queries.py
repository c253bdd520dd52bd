"""Queries on Matrices used by rules and install: logic on small synthetic
tables, plus the facts of the shipped data that rules depend on."""

from __future__ import annotations

import pytest

from gpudoctor.matrices import Matrices, cudnn_text, load_matrices
from gpudoctor.matrices import records as r
from gpudoctor.matrices.loader import SHIPPED_DIR

S = "https://example.org/src"


def synthetic() -> Matrices:
    tables = {
        "torch": {
            "release": (r.TorchRelease("2.14.0", "3.10", "3.14", S), r.TorchRelease("2.14.1", "3.10", "3.14", S),
                        r.TorchRelease("2.15.0", "3.11", "3.15", S)),
            "build": (
                r.TorchBuild("2.14", "cu130", "linux-x86_64", S, cuda="13.0", arch_list=("sm_90",),
                             pypi_default=True, index_url="https://pypi.org/simple"),
                r.TorchBuild("2.14", "cu130", "linux-x86_64", S, cuda="13.0", arch_list=("sm_90", "compute_90"),
                             index_url="https://download.pytorch.org/whl/cu130"),
                r.TorchBuild("2.14", "cpu", "windows-x86_64", S, pypi_default=True, index_url="https://pypi.org/simple"),
            ),
        },
        "tensorflow": {"release": (r.TensorflowRelease("2.20", "3.9", "3.13", S, cuda="12.5", releases=("2.20.0",)),
                                   r.TensorflowRelease("2.21", "3.10", "3.13", S, releases=("2.21.0", "2.21.1")))},
        "jax": {"release": (r.JaxRelease("0.4.26", ("cuda12",), S, version_to="0.4.29", cudnn_min="8.9"),
                            r.JaxRelease("0.4.30", ("cuda12",), S, version_to="0.4.30", cudnn_min="9.0"),
                            r.JaxRelease("0.12.0", ("cuda13",), S, version_to="0.12.0.1", cudnn_min="9.10.2.21"))},
        "cudnn": {"release": (r.CudnnRelease("9.0.0", (11, 12), "5.0", S, version_to="9.10.2"),
                              r.CudnnRelease("9.11.0", (12,), "7.5", S, version_to="9.11.1"))},
        "cupy": {"package": (r.CupyPackage("cupy-cuda12x", 12, S, version_to="14.2.0"),
                             r.CupyPackage("cupy-cuda13x", 13, S, version_to="14.2.0"))},
        "cuda": {"toolkit": (r.CudaToolkit("13.0.0", "13.0 GA", "580.65.06", S),)},
    }
    return Matrices(tables, {})


M = synthetic()


def test_torch_build_prefers_the_pypi_row_and_can_pick_either():
    assert M.torch_build("2.14.1+cu130", "cu130").pypi_default
    assert M.torch_build("2.14.1", "cu130", pypi=False).arch_list == ("sm_90", "compute_90")
    assert M.torch_build("2.14.0", "cu126") is None
    assert M.torch_pypi_build("2.14.1", "windows-x86_64").variant == "cpu"
    assert M.torch_pypi_build("2.15.0") is None


@pytest.mark.parametrize("query, series", [("2.21.1", "2.21"), ("2.20", "2.20"), ("2.20.0", "2.20"), ("2.19.0", None)])
def test_tensorflow_release_maps_a_version_to_its_series(query, series):
    hit = M.tensorflow_release(query)
    assert (hit.version if hit else None) == series


@pytest.mark.parametrize("version, cudnn", [("0.4.26", "8.9"), ("0.4.29", "8.9"), ("0.4.30", "9.0"),
                                            ("0.12.0.1", "9.10.2.21"), ("jaxlib-junk", None), ("0.4.31", None),
                                            ("0.13.0", None)])
def test_jax_requirements_finds_the_containing_range(version, cudnn):
    hit = M.jax_requirements(version)
    assert (hit.cudnn_min if hit else None) == cudnn


@pytest.mark.parametrize("version, min_sm", [("9.10.2.21", "5.0"), ("9.10.2", "5.0"), (91002, "5.0"), ("91100", "7.5"),
                                             ("9.11.1.4", "7.5"), ("9.12.0", None), ("8.9.7", None), ("x", None)])
def test_cudnn_min_sm_uses_major_minor_patch(version, min_sm):
    assert M.cudnn_min_sm(version) == min_sm


def test_cudnn_version_integers_decode_both_encodings():
    assert cudnn_text(8902) == "8.9.2" and cudnn_text(90100) == "9.1.0" and cudnn_text("91501") == "9.15.1"
    assert cudnn_text("9.10.2.21") == "9.10.2.21"


def test_cupy_package_by_major_and_name():
    assert M.cupy_package(13).package == "cupy-cuda13x" and M.cupy_package(11) is None
    assert M.cupy_package_named("CUPY_CUDA12X").cuda_major == 12


@pytest.mark.parametrize("framework, newest", [("torch", "2.15.0"), ("tensorflow", "2.21.1"), ("jax", "0.12.0.1"),
                                               ("jaxlib", "0.12.0.1"), ("cudnn", "9.11.1"), ("cupy", "14.2.0"),
                                               ("cuda", "13.0.0"), ("torchvision", None)])
def test_newest_known(framework, newest):
    assert M.newest_known(framework) == newest


def test_newest_known_rejects_an_unknown_framework():
    with pytest.raises(ValueError, match="unknown framework 'mxnet'"):
        M.newest_known("mxnet")


@pytest.mark.parametrize("framework, version, newer", [
    ("torch", "2.15.0", False), ("torch", "2.15.1+cu132", True), ("torch", "2.16.0.dev20261201", True),
    ("jax", "0.12.1", True), ("tensorflow", "2.21.1", False), ("tensorflow", "2.22.0", True),
    ("tensorflow", "2.21.7", False), ("cudnn", "9.11.1.4", False), ("cudnn", "9.12.0.46", True),
    ("cupy", "14.9.0", False), ("cupy", "15.0.0", True), ("torch", "not-a-version", None),
])
def test_is_newer_than_known(framework, version, newer):
    assert M.is_newer_than_known(framework, version) is newer


# --- facts of the shipped data that rules rely on ---------------------------------------------
SHIPPED = load_matrices(str(SHIPPED_DIR), overlay=None)


def test_cudnn_911_drops_pre_turing_and_torch_cu13_builds_inherit_it():
    assert SHIPPED.cudnn_min_sm("9.10.2.21") == "5.0" and SHIPPED.cudnn_min_sm("9.11.0.98") == "7.5"
    for b in SHIPPED.torch_builds:
        if b.cudnn and b.cuda and b.cuda.startswith("13."):
            assert SHIPPED.cudnn_min_sm(b.cudnn) == "7.5", (b.series, b.variant)


def test_pypi_cu13_wheels_carry_no_ptx_but_download_wheels_do():
    pypi = SHIPPED.torch_build("2.14.1", "cu130", pypi=True)
    dl = SHIPPED.torch_build("2.14.1", "cu130", pypi=False)
    assert not any(a.startswith("compute_") for a in pypi.arch_list)
    assert "compute_120" in dl.arch_list


def test_every_framework_has_a_newest_known_release():
    for name in ("torch", "torchvision", "torchaudio", "tensorflow", "jax", "jaxlib", "cudnn", "cupy", "cuda"):
        assert SHIPPED.newest_known(name), name
