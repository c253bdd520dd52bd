"""cuDNN convolution and scaled-dot-product attention smoke tests (PyTorch)."""

import warnings

import gdsmoke_common as common

CONV_GPU = (8, 32, 32, 32, 64)  # N, C, H, W, K (3x3, padding 1)
CONV_CPU = (2, 16, 16, 16, 32)
SDPA_GPU = (2, 8, 512, 64)  # batch, heads, sequence, head dim
SDPA_CPU = (1, 4, 128, 64)
# torch's default order before torch._C._get_sdp_priority_order existed.
ASSUMED_ORDER = ("flash", "efficient", "math")


def dtype_of(torch, prec):
    return torch.float16 if prec == "fp16" else torch.bfloat16


def rel(torch, out, ref):
    out, ref = out.detach().to(torch.float64), ref.detach().to(torch.float64)
    finite = bool(torch.isfinite(out).all())
    diff = float((out - ref).abs().max()) if finite else float("inf")
    return common.norm_rel_error(diff, float(ref.abs().max()), finite)


def bf16_skip(prec, cc, is_cpu):
    if prec == "bf16" and not is_cpu and not common.cc_at_least(cc, common.MIN_CC["bf16"]):
        return "BF16 needs sm_80 or newer; this GPU is %s" % common.cc_text(cc)
    return None


class CudnnFp32Reference(object):
    """The FP32 reference must really be FP32: cuDNN allows TF32 by default.
    torch >= 2.9 has a new switch (conv.fp32_precision) and refuses to mix
    the old one with it, so use the new one where it exists."""

    def __init__(self, torch):
        conv = getattr(torch.backends.cudnn, "conv", None)
        if conv is not None and hasattr(conv, "fp32_precision"):
            self.target, self.attr, self.value = conv, "fp32_precision", "ieee"
        else:
            self.target, self.attr, self.value = torch.backends.cudnn, "allow_tf32", False

    def __enter__(self):
        self.saved = getattr(self.target, self.attr)
        setattr(self.target, self.attr, self.value)

    def __exit__(self, *exc):
        setattr(self.target, self.attr, self.saved)
        return False


def conv_test(torch, prec, device, cc, is_cpu):
    """Forward and backward (data and weight gradients) vs an FP32 reference."""
    name = "conv_" + prec
    reason = bf16_skip(prec, cc, is_cpu)
    if reason:
        return common.skip(name, reason)
    if not is_cpu and not torch.backends.cudnn.is_available():
        raise RuntimeError("cuDNN is not available to this torch build (torch.backends.cudnn.is_available() "
                           "is False)")
    F = torch.nn.functional
    n, c, h, w, k = CONV_CPU if is_cpu else CONV_GPU
    gen = torch.Generator().manual_seed(7)
    dtype = dtype_of(torch, prec)
    x = (torch.rand((n, c, h, w), generator=gen) * 2 - 1).to(device=device, dtype=dtype)
    wt = ((torch.rand((k, c, 3, 3), generator=gen) * 2 - 1) / (c * 9) ** 0.5).to(device=device, dtype=dtype)
    x.requires_grad_(True)
    wt.requires_grad_(True)
    out = F.conv2d(x, wt, padding=1)
    grad = (torch.rand(out.shape, generator=gen) * 2 - 1).to(device=device, dtype=dtype)
    out.backward(grad)
    xr = x.detach().float().requires_grad_(True)
    wr = wt.detach().float().requires_grad_(True)
    with CudnnFp32Reference(torch):
        ref = F.conv2d(xr, wr, padding=1)
        ref.backward(grad.float())
    errors = {"forward": rel(torch, out, ref), "grad_input": rel(torch, x.grad, xr.grad),
              "grad_weight": rel(torch, wt.grad, wr.grad)}
    known = [e for e in errors.values() if e is not None]
    res = common.result(name, max_rel_error=max(known) if len(known) == len(errors) else None,
                        errors=errors, shape=[n, c, h, w, k])
    if not is_cpu:
        res["cudnn"] = torch.backends.cudnn.version()
    if len(known) != len(errors):
        res["detail"] = "NaN or Inf in: " + ", ".join(key for key, e in errors.items() if e is None)
    return res


def backends(torch):
    """{name: SDPBackend} for the backends this torch knows."""
    try:
        from torch.nn.attention import SDPBackend
    except ImportError:
        return {}
    table = {"flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION", "cudnn": "CUDNN_ATTENTION",
             "math": "MATH"}
    return dict((k, getattr(SDPBackend, v)) for k, v in table.items() if hasattr(SDPBackend, v))


def only(torch, name, table):
    """A context manager that allows just one SDPA backend."""
    if table:
        from torch.nn.attention import sdpa_kernel
        return sdpa_kernel([table[name]])
    flags = {"enable_flash": name == "flash", "enable_mem_efficient": name == "efficient",
             "enable_math": name == "math"}
    return torch.backends.cuda.sdp_kernel(**flags)  # torch < 2.3


def priority(torch, table):
    """Backend names in the order torch's dispatcher tries them."""
    order_fn = getattr(torch._C, "_get_sdp_priority_order", None)
    if table and order_fn is not None:
        by_value = dict((int(be.value), name) for name, be in table.items())
        try:
            return [by_value[i] for i in order_fn() if i in by_value], "torch._C._get_sdp_priority_order"
        except (TypeError, ValueError, AttributeError):
            pass
    return [n for n in ASSUMED_ORDER if not table or n in table], "assumed order " + "/".join(ASSUMED_ORDER)


def sdpa_test(torch, prec, device, cc, is_cpu):
    """Which kernel SDPA selects: try each backend alone; the selected one is
    the first, in the dispatcher's priority order, that can run this input."""
    name = "sdpa_" + prec
    reason = bf16_skip(prec, cc, is_cpu)
    if reason:
        return common.skip(name, reason)
    F = torch.nn.functional
    b, h, s, d = SDPA_CPU if is_cpu else SDPA_GPU
    gen = torch.Generator().manual_seed(11)
    q, k, v = [(torch.rand((b, h, s, d), generator=gen) * 2 - 1).to(device=device, dtype=dtype_of(torch, prec))
               for _ in range(3)]
    table = backends(torch)
    with only(torch, "math", table):
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
    order, order_source = priority(torch, table)
    available, errors, reasons = {}, {}, {}
    for backend in (table or dict.fromkeys(ASSUMED_ORDER)):
        # A refused backend warns why ("Flash attention requires ...") and then raises
        # "No available kernel": the warning is the useful reason.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with only(torch, backend, table):
                    out = F.scaled_dot_product_attention(q, k, v)
                available[backend] = True
                errors[backend] = rel(torch, out, ref)
            except RuntimeError as exc:
                available[backend] = False
                why = [str(w.message).strip() for w in caught if str(w.message).strip()] or [str(exc).strip()]
                reasons[backend] = (why[0].splitlines() or [type(exc).__name__])[0][:300]
    selected = next((n for n in order if available.get(n)), None)
    default_out = F.scaled_dot_product_attention(q, k, v)
    res = common.result(name, kernel=selected, available=available, priority=order,
                        priority_source=order_source, max_rel_error=rel(torch, default_out, ref),
                        backend_errors=errors, shape=[b, h, s, d])
    if reasons:
        res["unavailable_reasons"] = reasons
    return res
