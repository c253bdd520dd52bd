"""JAX backend of the smoke runner: GEMM FP32/TF32/FP16/BF16 and copy bandwidth.

JAX has no device events, so throughput is wall time around a run of
dispatches ended by block_until_ready (after a compile-and-warm-up call).
Precision is pinned per call: Precision.HIGHEST is true FP32, DEFAULT lets
XLA use TF32 on sm_80+. FP8, convolution and attention are not tested with
this backend (skipped with that reason).
"""

import time

import gdsmoke_arrays as arrays
import gdsmoke_common as common

MIB = 1 << 20
NOT_IN_JAX = {
    "gemm_fp8": "the JAX backend has no FP8 GEMM test; use --backend torch",
    "conv_fp16": "the JAX backend has no convolution test; use --backend torch",
    "conv_bf16": "the JAX backend has no convolution test; use --backend torch",
    "sdpa_fp16": "the JAX backend has no attention-kernel test; use --backend torch",
    "sdpa_bf16": "the JAX backend has no attention-kernel test; use --backend torch",
}


def wall(fn, iters):
    start = time.perf_counter()
    out = None
    for _ in range(iters):
        out = fn()
    out.block_until_ready()
    return time.perf_counter() - start


def gemm(jax, np, prec, device, cc, is_cpu, mode):
    name = "gemm_" + prec
    jnp, lax = jax.numpy, jax.lax
    if prec == "tf32" and (is_cpu or not common.cc_at_least(cc, common.MIN_CC["tf32"])):
        return common.skip(name, "TF32 is a GPU Tensor Core format; the CPU has none" if is_cpu else
                           "TF32 needs sm_80 or newer; this GPU is %s" % common.cc_text(cc))
    if prec == "bf16" and not is_cpu and not common.cc_at_least(cc, common.MIN_CC["bf16"]):
        return common.skip(name, "BF16 needs sm_80 or newer; this GPU is %s" % common.cc_text(cc))
    dtype = {"fp32": jnp.float32, "tf32": jnp.float32, "fp16": jnp.float16, "bf16": jnp.bfloat16}[prec]
    precision = lax.Precision.DEFAULT if prec == "tf32" else lax.Precision.HIGHEST
    matmul = jax.jit(lambda x, y: jnp.matmul(x, y, precision=precision))
    a, b, ref = arrays.rounded_inputs(np, arrays.SMALL_MN, arrays.SMALL_MN, arrays.SMALL_K, dtype, 1234)
    out = matmul(jax.device_put(a, device), jax.device_put(b, device))
    err, finite = arrays.rel_error(np, np.asarray(out.astype(jnp.float32)), ref)
    size = arrays.CPU_LARGE if is_cpu else arrays.LARGE[prec]
    x = jax.device_put(arrays.uniform(np, (size, size), 5).astype(dtype), device)
    y = jax.device_put(arrays.uniform(np, (size, size), 6).astype(dtype), device)
    wall(lambda: matmul(x, y), 1)  # compile and warm up
    iters = common.timed_iterations(wall(lambda: matmul(x, y), 1), arrays.TIME_TARGET_S[mode])
    seconds = wall(lambda: matmul(x, y), iters) / iters
    return arrays.gemm_result(name, err, finite, 2.0 * size ** 3 / seconds / 1e12, size, iters, seconds)


def copy_d2d(jax, np, device, is_cpu, mode):
    """An XLA copy kernel (x * 1 into a new buffer): bytes read plus written."""
    nbytes = 32 * MIB if is_cpu else (256 * MIB if mode == "quick" else 1024 * MIB)
    src = jax.device_put(np.full(nbytes, 0x5A, dtype=np.uint8), device)
    copy = jax.jit(lambda x: x * np.uint8(1))
    wall(lambda: copy(src), 2)
    iters = common.timed_iterations(wall(lambda: copy(src), 1), arrays.TIME_TARGET_S[mode], lo=5, hi=100)
    seconds = wall(lambda: copy(src), iters)
    res = common.result("copy_d2d", gbps=2.0 * nbytes * iters / seconds / 1e9, bytes=nbytes, iters=iters)
    if not bool((np.asarray(copy(src)[::4096]) == 0x5A).all()):
        res["status"] = "error"
        res["error"] = res["detail"] = "the copy's destination differs from its source"
    return res


def device_info(device, index, is_cpu):
    cc = getattr(device, "compute_capability", None)
    info = {"index": index, "name": ("cpu (%s)" % device.device_kind) if is_cpu else device.device_kind,
            "cc": None if is_cpu or cc is None else str(cc)}
    bus = getattr(device, "pci_bus_id", None)
    if bus:
        info["pci_bus_id"] = str(bus)
    return info


def gpu_devices(jax):
    try:
        return jax.devices("gpu")
    except RuntimeError:  # "Unknown backend gpu" or a failed CUDA plugin initialisation
        return []


def run(args, started):
    import jax
    import numpy as np

    fw = {"name": "jax", "version": jax.__version__, "cuda": None, "cudnn": None}
    try:
        import jaxlib

        fw["jaxlib"] = getattr(jaxlib, "__version__", None)
    except ImportError:
        pass
    devices, is_cpu = gpu_devices(jax), False
    if not devices:
        if not args.allow_cpu:
            return common.document("jax", fw, "cuda", args.mode, [], started=started, error={
                "stage": "cuda-unavailable", "message": "jax.devices('gpu') is empty (backend: %s)"
                % jax.default_backend()})
        devices, is_cpu = jax.devices("cpu")[:1], True
    wanted = common.parse_gpus(args.gpus)
    indices = list(range(len(devices))) if wanted is None or is_cpu else wanted
    if any(i < 0 or i >= len(devices) for i in indices):
        return common.document("jax", fw, "cuda", args.mode, [], started=started, error={
            "stage": "bad-gpu-index", "message": "JAX sees %d GPU(s); asked for %s" % (len(devices), args.gpus)})
    gpus = []
    for index in indices:
        device = devices[index]
        info = device_info(device, index, is_cpu)
        common.emit("gpu", **info)
        cc = tuple(int(x) for x in info["cc"].split(".")) if info["cc"] else None
        tests = []
        common.run_or_skip(index, common.GEMM_TESTS + common.NN_TESTS,
                           lambda name: gemm(jax, np, name[len("gemm_"):], device, cc, is_cpu, args.mode),
                           NOT_IN_JAX, tests)
        common.run_test(index, "copy_d2d", lambda: copy_d2d(jax, np, device, is_cpu, args.mode), tests)
        info["tests"] = tests
        gpus.append(info)
    return common.document("jax", fw, "cpu" if is_cpu else "cuda", args.mode, gpus, started=started)
