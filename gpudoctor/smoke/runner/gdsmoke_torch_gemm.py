"""GEMM smoke tests with PyTorch: numerics vs FP64 and throughput.

Numerics: a small product whose inputs are first rounded to the precision
under test, compared with the FP64 product of those same rounded inputs, so
only the kernel's own error (accumulation, output rounding, or silent TF32) is
measured. Throughput: a large product timed with CUDA events after warm-up.
"""

import time

import gdsmoke_common as common

# (small M=N, small K) for numerics; large square size for throughput.
SMALL_MN, SMALL_K = 256, 512
LARGE = {"fp32": 4096, "tf32": 8192, "fp16": 8192, "bf16": 8192, "fp8": 8192}
CPU_LARGE = 256
TIME_TARGET_S = {"quick": 0.15, "full": 0.6, "cpu": 0.05}  # the CPU rate only exercises the parsing
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
FP8_UNSUPPORTED_HINTS = ("not supported", "only supported", "requires", "unsupported")


class Fp32Precision(object):
    """Pin FP32 matmul to IEEE FP32 or allow TF32, and restore on exit."""

    def __init__(self, torch, tf32):
        self.torch, self.tf32 = torch, tf32

    def __enter__(self):
        self.saved = self.torch.get_float32_matmul_precision()
        self.torch.set_float32_matmul_precision("high" if self.tf32 else "highest")
        return self

    def __exit__(self, *exc):
        self.torch.set_float32_matmul_precision(self.saved)
        return False


def skip_reason(torch, prec, cc, is_cpu):
    if prec == "tf32":
        if is_cpu:
            return "TF32 is a GPU Tensor Core format; the CPU has none"
        if not common.cc_at_least(cc, common.MIN_CC["tf32"]):
            return "TF32 needs sm_80 or newer; this GPU is %s" % common.cc_text(cc)
    if prec == "bf16" and not is_cpu and not common.cc_at_least(cc, common.MIN_CC["bf16"]):
        return "BF16 needs sm_80 or newer; this GPU is %s" % common.cc_text(cc)
    if prec == "fp8":
        if not is_cpu and not common.cc_at_least(cc, common.MIN_CC["fp8"]):
            return "FP8 (e4m3) needs sm_89 or newer; this GPU is %s" % common.cc_text(cc)
        if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
            return "torch %s has no float8_e4m3fn/_scaled_mm" % torch.__version__
    return None


def uniform(torch, shape, seed, device):
    """Uniform in [-1, 1). Seeded (on the CPU) for numerics; drawn on the device
    when seed is None: the large throughput operands need no reproducibility,
    and drawing 8192x8192 on the CPU would cost seconds of the --quick budget."""
    if seed is None:
        return torch.rand(shape, device=device) * 2 - 1
    gen = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=gen) * 2 - 1).to(device)


def scaled_mm(torch, a, b, one):
    out = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return out[0] if isinstance(out, tuple) else out  # torch < 2.4 also returned amax


class Operands(object):
    """Inputs of one precision: `run()` computes the product in that precision."""

    def __init__(self, torch, prec, m, n, k, device, seed):
        self.torch, self.prec = torch, prec
        a32 = uniform(torch, (m, k), seed, device)
        b32 = uniform(torch, (n, k), None if seed is None else seed + 1, device)
        if prec in ("fp32", "tf32"):
            self.a, self.b = a32, b32.t()
        elif prec == "fp8":
            self.a = a32.to(torch.float8_e4m3fn)
            self.b = b32.to(torch.float8_e4m3fn).t()  # _scaled_mm wants B column-major
            self.one = torch.tensor(1.0, device=device)
        else:
            dtype = torch.float16 if prec == "fp16" else torch.bfloat16
            self.a, self.b = a32.to(dtype), b32.to(dtype).t().contiguous()

    def run(self):
        if self.prec == "fp8":
            return scaled_mm(self.torch, self.a, self.b, self.one)
        return self.torch.matmul(self.a, self.b)

    def reference(self):
        """FP64 product of the already-rounded inputs."""
        a = self.a.to(self.torch.float32).to(self.torch.float64)
        b = self.b.to(self.torch.float32).to(self.torch.float64)
        return a @ b


def numerics(torch, prec, device):
    ops = Operands(torch, prec, SMALL_MN, SMALL_MN, SMALL_K, device, seed=1234)
    out = ops.run().to(torch.float64)
    ref = ops.reference()
    finite = bool(torch.isfinite(out).all())
    diff = float((out - ref).abs().max()) if finite else float("inf")
    return common.norm_rel_error(diff, float(ref.abs().max()), finite), finite


def throughput(torch, prec, device, is_cpu, mode):
    size = CPU_LARGE if is_cpu else LARGE[prec]
    if not is_cpu:
        free = torch.cuda.mem_get_info(device)[0]
        while size > 1024 and 3 * size * size * 4 > free // 2:
            size //= 2
    ops = Operands(torch, prec, size, size, size, device, seed=None)
    timer = Timer(torch, device, is_cpu)
    timer.measure(ops.run, 1)  # warm-up: the first call also pays for kernel selection
    first = timer.measure(ops.run, 1)
    iters = common.timed_iterations(first, TIME_TARGET_S["cpu" if is_cpu else mode])
    seconds = timer.measure(ops.run, iters) / iters
    return {"tflops": 2.0 * size ** 3 / seconds / 1e12, "shape": [size, size, size],
            "iters": iters, "seconds_per_iter": seconds}


class Timer(object):
    """Seconds for `iters` calls: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, torch, device, is_cpu):
        self.torch, self.device, self.is_cpu = torch, device, is_cpu

    def measure(self, fn, iters):
        if self.is_cpu:
            start = time.perf_counter()
            for _ in range(iters):
                fn()
            return time.perf_counter() - start
        cuda = self.torch.cuda
        begin, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        cuda.synchronize(self.device)
        begin.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        return begin.elapsed_time(end) / 1000.0


def gemm_test(torch, prec, device, cc, is_cpu, mode):
    name = "gemm_" + prec
    reason = skip_reason(torch, prec, cc, is_cpu)
    if reason:
        return common.skip(name, reason)
    try:
        with Fp32Precision(torch, tf32=(prec == "tf32")):
            err, finite = numerics(torch, prec, device)
            out = common.result(name, max_rel_error=err, small_shape=[SMALL_MN, SMALL_MN, SMALL_K])
            if not finite:
                out["detail"] = "the output has NaN or Inf values"
            out.update(throughput(torch, prec, device, is_cpu, mode))
    except RuntimeError as exc:
        text = str(exc).lower()
        if prec == "fp8" and any(h in text for h in FP8_UNSUPPORTED_HINTS) and "cuda error" not in text:
            return common.skip(name, "torch %s cannot run FP8 here: %s" % (
                torch.__version__, str(exc).strip().splitlines()[0][:300]))
        raise
    return out
