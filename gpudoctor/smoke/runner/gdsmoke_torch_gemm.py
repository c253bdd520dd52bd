"""GEMM smoke tests with PyTorch: numerics vs FP64 and throughput.

Numerics: a small product whose inputs are first rounded to the precision
under test, compared with the FP64 product of those same rounded inputs, so
only the kernel's own error (accumulation, output rounding, or silent TF32) is
measured. Throughput: a large product timed with CUDA events after a timed
warm-up (the clocks ramp up under load), with NVML sampled while it runs. FP8 is
timed with the fast-accumulation path where torch has it (`use_fast_accum=True`,
what FP8 training uses) and checked for numbers with the default accumulation.
"""

import time

import gdsmoke_common as common

# (small M=N, small K) for numerics; large square size for throughput.
SMALL_MN, SMALL_K = 256, 512
LARGE = {"fp32": 4096, "tf32": 8192, "fp16": 8192, "bf16": 8192, "fp8": 8192}
CPU_LARGE = 256
TIME_TARGET_S = {"quick": 0.2, "full": 0.6, "cpu": 0.05}  # the CPU rate only exercises the parsing
# Continuous GEMM before timing, so the clocks have settled where a sustained GEMM runs
# (boost first, then the power or thermal limit).
WARMUP_S = {"quick": 0.1, "full": 0.5, "cpu": 0.0}
CLOCK_WARMUP_S = {"quick": 0.3, "full": 1.0}
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
FP8_UNSUPPORTED_HINTS = ("not supported", "only supported", "unsupported")


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


def scaled_mm(torch, a, b, one, fast=False):
    kwargs = {"use_fast_accum": True} if fast else {}
    out = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, **kwargs)
    return out[0] if isinstance(out, tuple) else out  # torch < 2.4 also returned amax


class Operands(object):
    """Inputs of one precision: `run()` computes the product in that precision."""

    def __init__(self, torch, prec, m, n, k, device, seed):
        self.torch, self.prec = torch, prec
        self.fast = False  # FP8: use the fast-accumulation path
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
            return scaled_mm(self.torch, self.a, self.b, self.one, self.fast)
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


def fast_accumulation(ops):
    """Switch FP8 to fast accumulation if this torch accepts it: "fast" or why "default"."""
    ops.fast = True
    try:
        ops.run()
        return "fast", None
    except (TypeError, RuntimeError) as exc:  # torch without the keyword, or a build that refuses it
        ops.fast = False
        return "default", str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


def throughput(torch, prec, device, is_cpu, mode, sampler=None):
    size = CPU_LARGE if is_cpu else LARGE[prec]
    if not is_cpu:
        free = torch.cuda.mem_get_info(device)[0]
        while size > 1024 and 3 * size * size * 4 > free // 2:
            size //= 2
    ops = Operands(torch, prec, size, size, size, device, seed=None)
    out = {}
    if prec == "fp8":
        out["accumulate"], why = fast_accumulation(ops)
        if why:
            out["fast_accum_error"] = why
    else:
        out["accumulate"] = "fp32"
    key = "cpu" if is_cpu else mode
    timer = Timer(torch, device, is_cpu)
    first = timer.measure(ops.run, 1)  # the first call also pays for kernel selection
    if sampler is not None:
        sampler.start("warmup")
    try:
        warm = common.timed_iterations(first, WARMUP_S[key], lo=1, hi=400)
        first = timer.measure(ops.run, warm) / warm if WARMUP_S[key] else timer.measure(ops.run, 1)
        iters = common.timed_iterations(first, TIME_TARGET_S[key])
        if sampler is not None:
            sampler.mark("timed")
        seconds = timer.measure(ops.run, iters) / iters
    finally:
        if sampler is not None:
            out["samples"] = sampler.stop()
    out.update(tflops=2.0 * size ** 3 / seconds / 1e12, shape=[size, size, size], iters=iters,
               seconds_per_iter=seconds)
    return out


def clock_warmup(torch, device, cc, mode, sampler=None):
    """Continuous GEMM on a fresh GPU before the first timed test: a GPU idles in a low
    power state and a GeForce card can take a while to leave it."""
    seconds = CLOCK_WARMUP_S[mode]
    prec = "fp16" if common.cc_at_least(cc, common.MIN_CC["tensor_cores"]) else "fp32"
    ops = Operands(torch, prec, 4096, 4096, 4096, device, seed=None)
    timer = Timer(torch, device, False)
    first = timer.measure(ops.run, 1)
    if sampler is not None:
        sampler.start("clock_warmup")
    try:
        spent = timer.measure(ops.run, common.timed_iterations(first, seconds, lo=1, hi=2000))
    finally:
        samples = sampler.stop() if sampler is not None else None
    out = {"precision": prec, "seconds": round(spent, 4)}
    if samples is not None:
        out["samples"] = samples
    return out


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


def gemm_test(torch, prec, device, cc, is_cpu, mode, sampler=None):
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
            out.update(throughput(torch, prec, device, is_cpu, mode, sampler))
    except RuntimeError as exc:
        text = str(exc).lower()
        if prec == "fp8" and any(h in text for h in FP8_UNSUPPORTED_HINTS) and "cuda error" not in text:
            return common.skip(name, "torch %s cannot run FP8 here: %s" % (
                torch.__version__, str(exc).strip().splitlines()[0][:300]))
        raise
    return out
