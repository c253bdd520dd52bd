"""CuPy backend of the smoke runner: GEMM FP32/FP16, copy bandwidth, peer access.

CuPy has no bfloat16 or float8 dtype, no convolution or attention of its own
(cuDNN bindings were removed in CuPy 13), and turns TF32 on only through the
CUPY_TF32 environment variable read at import, so those tests are skipped
with that reason rather than approximated.
"""

import os

import gdsmoke_arrays as arrays
import gdsmoke_common as common

MIB = 1 << 20
NOT_IN_CUPY = {
    "gemm_tf32": "CuPy enables TF32 only through CUPY_TF32=1 at import; use --backend torch",
    "gemm_bf16": "CuPy has no bfloat16 dtype",
    "gemm_fp8": "CuPy has no float8 dtype",
    "conv_fp16": "the CuPy backend has no cuDNN convolution test; use --backend torch",
    "conv_bf16": "the CuPy backend has no cuDNN convolution test; use --backend torch",
    "sdpa_fp16": "attention kernels are framework-specific; use --backend torch",
    "sdpa_bf16": "attention kernels are framework-specific; use --backend torch",
}


def elapsed(cp, fn, iters):
    begin, end = cp.cuda.Event(), cp.cuda.Event()
    begin.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(begin, end) / 1000.0


def gemm(cp, np, prec, mode):
    dtype = np.float32 if prec == "fp32" else np.float16
    a, b, ref = arrays.rounded_inputs(np, arrays.SMALL_MN, arrays.SMALL_MN, arrays.SMALL_K, dtype, 1234)
    err, finite = arrays.rel_error(np, cp.asnumpy(cp.matmul(cp.asarray(a), cp.asarray(b))), ref)
    size = arrays.LARGE[prec]
    x = cp.random.uniform(-1, 1, (size, size), dtype=np.float32).astype(dtype)
    y = cp.random.uniform(-1, 1, (size, size), dtype=np.float32).astype(dtype)
    out = cp.empty((size, size), dtype=dtype)

    def run():
        cp.matmul(x, y, out=out)

    elapsed(cp, run, 1)
    iters = common.timed_iterations(elapsed(cp, run, 1), arrays.TIME_TARGET_S[mode])
    seconds = elapsed(cp, run, iters) / iters
    return arrays.gemm_result("gemm_" + prec, err, finite, 2.0 * size ** 3 / seconds / 1e12, size, iters, seconds)


def copy_d2d(cp, np, mode):
    nbytes = 256 * MIB if mode == "quick" else 1024 * MIB
    src = cp.full(nbytes, 0x5A, dtype=np.uint8)
    dst = cp.empty_like(src)

    def run():
        cp.copyto(dst, src)

    elapsed(cp, run, 2)
    iters = common.timed_iterations(elapsed(cp, run, 1), arrays.TIME_TARGET_S[mode], lo=5, hi=100)
    seconds = elapsed(cp, run, iters)
    res = common.result("copy_d2d", gbps=2.0 * nbytes * iters / seconds / 1e9, bytes=nbytes, iters=iters)
    if not bool((dst == 0x5A).all()):
        res["status"] = "error"
        res["error"] = res["detail"] = "the copy's destination differs from its source"
    return res


def device_info(cp, index):
    props = cp.cuda.runtime.getDeviceProperties(index)
    name = props["name"]
    info = {"index": index, "name": name.decode() if isinstance(name, bytes) else name,
            "cc": "%d.%d" % (props["major"], props["minor"]),
            "memory_total_mib": props["totalGlobalMem"] // MIB,
            "multiprocessors": props["multiProcessorCount"]}
    if "pciBusID" in props:
        info["pci_bus_id"] = "%04x:%02x:%02x.0" % (props.get("pciDomainID", 0), props["pciBusID"],
                                                  props.get("pciDeviceID", 0))
    return info


def run(args, started):
    os.environ.setdefault("CUPY_TF32", "0")  # FP32 must mean FP32 (read at import)
    import cupy as cp
    import numpy as np

    runtime = cp.cuda.runtime
    fw = {"name": "cupy", "version": cp.__version__, "cuda": None, "cudnn": None}
    try:
        version = runtime.runtimeGetVersion()
        fw["cuda"] = "%d.%d" % (version // 1000, version % 1000 // 10)
        count = runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError carries the cudaError name
        return common.document("cupy", fw, "cuda", args.mode, [], started=started, error={
            "stage": "cuda-unavailable", "message": "%s: %s" % (type(exc).__name__, exc)})
    wanted = common.parse_gpus(args.gpus)
    indices = list(range(count)) if wanted is None else wanted
    if count == 0 or any(i < 0 or i >= count for i in indices):
        return common.document("cupy", fw, "cuda", args.mode, [], started=started, error={
            "stage": "bad-gpu-index" if count else "cuda-unavailable",
            "message": "CuPy sees %d device(s); asked for %s" % (count, args.gpus)})
    gpus = []
    for index in indices:
        info = device_info(cp, index)
        common.emit("gpu", **info)
        tests = []
        with cp.cuda.Device(index):
            common.run_or_skip(index, common.GEMM_TESTS + common.NN_TESTS,
                               lambda name: gemm(cp, np, name[len("gemm_"):], args.mode), NOT_IN_CUPY, tests)
            common.run_test(index, "copy_d2d", lambda: copy_d2d(cp, np, args.mode), tests)
        info["tests"] = tests
        gpus.append(info)
    node = []
    if len(indices) > 1:
        common.run_test(None, "p2p", lambda: common.result("p2p", devices=indices, matrix=[
            [None if a == b else bool(runtime.deviceCanAccessPeer(a, b)) for b in indices] for a in indices]),
            node)
    return common.document("cupy", fw, "cuda", args.mode, gpus, node, started=started)
