"""The real runner, end to end through run_smoke.

With torch's (or jax's) CPU build (--allow-cpu) the numerics, tolerances and
parsing run for real. A stand-in `torch` package on PYTHONPATH drives the
runner's failure paths (import error, CUDA unavailable, CPU-only build)
without any framework installed.
"""

from __future__ import annotations

import os
import textwrap

import pytest
from smoke_helpers import fake_env, validate

from gpudoctor.host import RealHost
from gpudoctor.smoke import SmokeOptions, run_smoke

GEMMS = ("gemm_fp32", "gemm_fp16", "gemm_bf16")


def by_name(report):
    return {t.name: t for t in report.gpus[0].tests}


@pytest.fixture(scope="module")
def torch_cpu_report(torch_python):
    return run_smoke(RealHost(), torch_python, SmokeOptions(allow_cpu=True, backend="torch"))


def test_torch_cpu_numerics_pass_within_tolerance(torch_cpu_report):
    report = torch_cpu_report
    assert report.backend == "torch" and report.device_type == "cpu"
    tests = by_name(report)
    for name in (*GEMMS, "conv_fp16", "conv_bf16", "sdpa_fp16", "sdpa_bf16"):
        t = tests[name]
        assert t.status == "pass", (name, t.detail)
        assert t.max_rel_error is not None and 0 < t.max_rel_error <= t.tolerance
    # Each precision's error sits near its own rounding level: FP32 far below FP16, FP16 below BF16.
    assert tests["gemm_fp32"].max_rel_error < 1e-5 < tests["gemm_fp16"].max_rel_error
    assert tests["gemm_fp16"].max_rel_error < tests["gemm_bf16"].max_rel_error
    assert tests["gemm_tf32"].status == "skip" and "CPU" in tests["gemm_tf32"].detail
    assert tests["gemm_fp8"].status in ("pass", "skip")
    for name in GEMMS:
        assert tests[name].unit == "tflops" and tests[name].value > 0
        assert tests[name].expected is None and tests[name].perf is None  # no peaks for a CPU
    assert tests["copy_d2d"].unit == "gbps" and tests["copy_d2d"].value > 0
    assert tests["sdpa_fp16"].kernel in ("flash", "math")


def test_torch_cpu_report_is_schema_valid_and_passes(torch_cpu_report):
    data = torch_cpu_report.to_json()
    validate(data)
    assert data["exit_code"] == 0
    assert [f["code"] for f in data["findings"]] == ["GD716"]


def test_torch_cpu_full_mode_runs_the_memory_pattern_test(torch_python):
    report = run_smoke(RealHost(), torch_python, SmokeOptions(allow_cpu=True, mode="full"))
    memtest = by_name(report)["memtest"]
    assert memtest.status == "pass" and memtest.unit == "gbps"
    validate(report.to_json())


def test_jax_cpu_numerics_pass(jax_python):
    report = run_smoke(RealHost(), jax_python, SmokeOptions(allow_cpu=True, backend="jax"))
    tests = by_name(report)
    for name in GEMMS:
        assert tests[name].status == "pass", (name, tests[name].detail)
    assert tests["gemm_fp8"].status == "skip" and "JAX backend" in tests["gemm_fp8"].detail
    validate(report.to_json())
    assert int(report.exit_code) == 0


def test_no_framework_at_all_is_a_finding():
    # gpudoctor's own environment has none of torch, cupy, jax.
    report = run_smoke(RealHost(), None, SmokeOptions(allow_cpu=True))
    errors = [f for f in report.findings if f.severity.value == "error"]
    assert [f.code for f in errors] == ["GD702"]
    assert "none of torch, cupy, jax" in errors[0].evidence[0].value
    validate(report.to_json())


FAKE_TORCH = {
    "import-error": """
        raise ImportError("libcudnn.so.9: cannot open shared object file: No such file or directory")
    """,
    "cuda-804": """
        import types, warnings
        __version__ = "2.14.1+cu130"
        version = types.SimpleNamespace(cuda="13.0", hip=None)
        backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 91300))
        def _available():
            warnings.warn("CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 804: "
                          "forward compatibility was attempted on non supported HW")
            return False
        def _init():
            raise RuntimeError("Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility "
                               "was attempted on non supported HW")
        cuda = types.SimpleNamespace(is_available=_available, device_count=lambda: 0, init=_init)
    """,
    "cpu-only": """
        import types
        __version__ = "2.14.1+cpu"
        version = types.SimpleNamespace(cuda=None, hip=None)
        backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: None))
        cuda = types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)
    """,
}


def fake_torch_env(tmp_path, kind, libdir=None):
    pkg = tmp_path / "site" / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(FAKE_TORCH[kind]))
    env = fake_env(libdir) if libdir else dict(os.environ)
    env["PYTHONPATH"] = str(tmp_path / "site")
    return env


def test_framework_import_error_is_named(tmp_path):
    host = RealHost(environ=fake_torch_env(tmp_path, "import-error"))
    report = run_smoke(host, None, SmokeOptions(allow_cpu=True, backend="torch"))
    f = [f for f in report.findings if f.code == "GD702"][0]
    assert "cannot be imported" in f.title and "libcudnn.so.9" in f.evidence[0].value


def test_cuda_init_failure_in_the_framework_names_the_cuda_error(tmp_path, fake_libcuda):
    host = RealHost(environ=fake_torch_env(tmp_path, "cuda-804", fake_libcuda))
    report = run_smoke(host, None, SmokeOptions(backend="torch"))
    f = [f for f in report.findings if f.code == "GD702"][0]
    assert "804 CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" in f.title
    assert "compat" in f.fix.text
    # The driver check passed for the (fake) GPU: its row is still there.
    assert [t.name for t in report.gpus[0].tests] == ["cuda_driver"]
    assert int(report.exit_code) == 1
    validate(report.to_json())


def test_cpu_only_build_is_named(tmp_path, fake_libcuda):
    host = RealHost(environ=fake_torch_env(tmp_path, "cpu-only", fake_libcuda))
    report = run_smoke(host, None, SmokeOptions(backend="torch"))
    f = [f for f in report.findings if f.code == "GD702"][0]
    assert "CPU-only build" in f.title and "gpudoctor install torch" in f.fix.commands
