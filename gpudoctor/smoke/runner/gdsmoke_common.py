"""Shared helpers of the framework runner (standard library only, Python 3.8+).

The runner reports measurements, never verdicts: tolerances and expected
peaks live in gpudoctor's judge. Progress and per-test results also go to
stderr as lines starting with EVENT_PREFIX, so that gpudoctor can tell which
test was running when the process crashed or hung.
"""

import json
import math
import sys
import time
import traceback

FORMAT = "gpudoctor-smoke-runner"
VERSION = 1
EVENT_PREFIX = "@@gdsmoke "

# Hardware precision floors by compute capability (major, minor), copied from
# gpudoctor's gpus.toml (tests/smoke/test_runner_constants.py pins them): the
# runner cannot import gpudoctor, and needs them to avoid launching kernels the
# GPU cannot run.
MIN_CC = {
    "tensor_cores": (7, 0),
    "tf32": (8, 0),
    "bf16": (8, 0),
    "fp8": (8, 9),
}


def emit(event, **fields):
    """One progress/result event on stderr (flushed: the process may die next)."""
    fields["ev"] = event
    sys.stderr.write(EVENT_PREFIX + json.dumps(clean(fields)) + "\n")
    sys.stderr.flush()


def clean(value):
    """Strict JSON: NaN and infinities become None (the caller records why)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return dict((k, clean(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def cc_at_least(cc, floor):
    return cc is not None and tuple(cc) >= tuple(floor)


def cc_text(cc):
    return "sm_%d%d" % tuple(cc) if cc else "unknown"


def result(name, status="ok", **fields):
    """A test result. status: ok (measured) | skip (with reason) | error."""
    out = {"name": name, "status": status}
    out.update(fields)
    return out


def skip(name, reason):
    return result(name, "skip", reason=reason)


def error_result(name, exc):
    tb = traceback.extract_tb(exc.__traceback__)
    where = "%s:%d" % (tb[-1].filename.rsplit("/", 1)[-1], tb[-1].lineno) if tb else ""
    message = str(exc).strip()
    # Framework errors can be pages long; the first lines carry the CUDA/cuDNN error.
    lines = [ln for ln in message.splitlines() if ln.strip()][:6]
    return result(name, "error", error_type=type(exc).__name__, error="\n".join(lines)[:2000], where=where)


def run_test(gpu_index, name, fn, results):
    """Run one test, announcing it first so a crash inside it is attributed."""
    emit("start", gpu=gpu_index, test=name)
    started = time.monotonic()
    try:
        out = fn()
    except Exception as exc:  # a failed test is a result, never the end of the run
        out = error_result(name, exc)
    out.setdefault("name", name)
    out["seconds"] = round(time.monotonic() - started, 4)
    results.append(out)
    emit("done", gpu=gpu_index, test=out)
    return out


def run_or_skip(gpu_index, names, fn, unsupported, results):
    """Run `fn(name)` for each test name, or record the backend's reason to skip it."""
    for name in names:
        if name in unsupported:
            run_test(gpu_index, name, lambda n=name: skip(n, unsupported[n]), results)
        else:
            run_test(gpu_index, name, lambda n=name: fn(n), results)


GEMM_TESTS = ("gemm_fp32", "gemm_tf32", "gemm_fp16", "gemm_bf16", "gemm_fp8")
NN_TESTS = ("conv_fp16", "conv_bf16", "sdpa_fp16", "sdpa_bf16")


def norm_rel_error(max_abs_diff, max_abs_ref, finite=True):
    """Normwise relative error: max |out - ref| / max |ref|. Elementwise
    relative error explodes near zero entries; this does not."""
    if not finite:
        return None
    if max_abs_ref <= 0.0:
        return 0.0 if max_abs_diff <= 0.0 else float("inf")
    return max_abs_diff / max_abs_ref


def timed_iterations(first_s, target_s, lo=3, hi=50):
    """How many timed iterations fit in target_s after a first run took first_s."""
    if first_s <= 0:
        return hi
    return int(max(lo, min(hi, target_s / first_s)))


def parse_gpus(text):
    if text in (None, "", "all"):
        return None
    return [int(part) for part in text.split(",") if part.strip() != ""]


def document(backend, framework, device_type, mode, gpus, node_tests=(), error=None, started=None):
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "backend": backend,
        "framework": framework,
        "python": "%d.%d.%d" % sys.version_info[:3],
        "device_type": device_type,
        "mode": mode,
        "gpus": list(gpus),
        "node_tests": list(node_tests),
        "error": error,
    }
    if started is not None:
        doc["wall_s"] = round(time.monotonic() - started, 3)
    return clean(doc)
