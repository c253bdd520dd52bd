"""NumPy-side helpers shared by the CuPy and JAX backends (both need NumPy)."""

import gdsmoke_common as common

SMALL_MN, SMALL_K = 256, 512
LARGE = {"fp32": 4096, "tf32": 8192, "fp16": 8192, "bf16": 8192}
CPU_LARGE = 256
TIME_TARGET_S = {"quick": 0.15, "full": 0.6}


def uniform(np, shape, seed):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape).astype(np.float32)


def rounded_inputs(np, m, n, k, dtype, seed):
    """Host inputs already rounded to the tested dtype, and their FP64 product."""
    a = uniform(np, (m, k), seed).astype(dtype)
    b = uniform(np, (k, n), seed + 1).astype(dtype)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    return a, b, ref


def rel_error(np, out, ref):
    out = np.asarray(out, dtype=np.float64)
    finite = bool(np.isfinite(out).all())
    diff = float(np.abs(out - ref).max()) if finite else float("inf")
    return common.norm_rel_error(diff, float(np.abs(ref).max()), finite), finite


def gemm_result(name, err, finite, tflops, size, iters, seconds):
    res = common.result(name, max_rel_error=err, small_shape=[SMALL_MN, SMALL_MN, SMALL_K], tflops=tflops,
                        shape=[size, size, size], iters=iters, seconds_per_iter=seconds)
    if not finite:
        res["detail"] = "the output has NaN or Inf values"
    return res
