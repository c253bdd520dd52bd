"""Exact-mode memory measurement, run by the TARGET interpreter in a subprocess.

Standard library and torch only; Python 3.8+. Never imported by gpudoctor.

Reads one JSON request from stdin, builds the model (a built-in preset from
torch_presets.py next to this file, or the user's `module:factory`), and runs
training steps (forward, backward, optimizer step; peaks are taken from the
second step, which starts with optimizer states allocated as a real run does) under a
dispatch-level tracker of live tensor storage. By default everything runs on
fake tensors (torch._subclasses.FakeTensorMode): shapes and dtypes are real,
memory is not allocated, so a 70B model is "run" on a laptop. With
"measure_real", the same steps also run for real on the CPU under the
profiler, whose allocation events give the real peak to compare against.

Writes one JSON object to stdout: {"ok": true, ...} or {"ok": false, "error": ...}.
"""

import contextlib
import importlib
import inspect
import json
import os
import sys
import traceback
import warnings

warnings.filterwarnings("ignore")

def _fail(message):
    sys.stdout.write(json.dumps({"ok": False, "error": message}) + "\n")
    sys.exit(0)


try:
    import torch
    import torch.nn as nn
    from torch.utils._pytree import tree_flatten
except Exception as exc:  # noqa: BLE001 - any import failure is the answer
    _fail("cannot import torch in %s: %s: %s" % (sys.executable, type(exc).__name__, exc))

# The sibling modules (live_tracker, torch_presets) sit next to this file; put
# its folder first even where the interpreter did not (-P, PYTHONSAFEPATH).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from live_tracker import LiveTracker  # noqa: E402 - needs torch, imported above


def _to_tuple(inputs):
    if isinstance(inputs, (list, tuple)):
        return tuple(inputs)
    return (inputs,)


def _call(model, inputs):
    if isinstance(inputs, dict):
        return model(**inputs)
    return model(*_to_tuple(inputs))


def _default_loss(out, inputs):
    loss = getattr(out, "loss", None)
    if loss is None and isinstance(out, dict):
        loss = out.get("loss")
    if loss is not None:
        return loss
    leaves = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor) and t.is_floating_point()]
    return sum(t.float().sum() for t in leaves)


def load_factory(spec, request):
    """`module:factory` or `path/to/file.py:factory` -> (model, inputs, loss_fn)."""
    if ":" not in spec:
        raise ValueError("--torch needs MODULE:FACTORY, e.g. mymodels:build")
    mod_name, attr = spec.rsplit(":", 1)
    if mod_name.endswith(".py") or os.sep in mod_name:
        path = os.path.abspath(mod_name)
        sys.path.insert(0, os.path.dirname(path))
        mod_name = os.path.splitext(os.path.basename(path))[0]
    else:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(mod_name)
    factory = getattr(module, attr)
    wanted = {"batch_size": request["batch"], "seq_len": request.get("seq"),
              "image_size": request.get("image_size")}
    params = inspect.signature(factory).parameters
    kwargs = dict((k, v) for k, v in wanted.items() if k in params and v is not None)
    made = factory(**kwargs)
    if isinstance(made, dict):
        return made["model"], made.get("inputs"), made.get("loss")
    if isinstance(made, (list, tuple)):
        made = tuple(made) + (None, None)
        return made[0], made[1], made[2]
    return made, None, None


def default_inputs(model, request):
    """Inputs when the factory gave none: tokens for a model with an embedding, else images."""
    batch = request["batch"]
    emb = next((m for m in model.modules() if isinstance(m, nn.Embedding)), None)
    if request.get("seq") and emb is not None:
        return (torch.randint(0, emb.num_embeddings, (batch, request["seq"])),)
    if request.get("image_size"):
        s = request["image_size"]
        return (torch.randn(batch, 3, s, s),)
    raise ValueError("the factory returned only a model: return (model, inputs[, loss_fn]) from it, "
                     "or pass --seq (token models) or --image-size (image models)")


def make_optimizer(name, params):
    if name in ("adamw", "adam"):
        cls = torch.optim.AdamW if name == "adamw" else torch.optim.Adam
        return cls(params, lr=1e-4, foreach=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-2, momentum=0.9, foreach=True)
    if name == "adafactor":
        if not hasattr(torch.optim, "Adafactor"):
            raise ValueError("this torch has no torch.optim.Adafactor (added in 2.5)")
        return torch.optim.Adafactor(params, lr=1e-2, foreach=True)
    raise ValueError("exact mode cannot run optimizer %r (bitsandbytes kernels have no fake implementation)"
                     % name)


def checkpoint_layers(model):
    """Wrap each element of every nn.ModuleList in non-reentrant activation checkpointing."""
    from torch.utils.checkpoint import checkpoint

    wrapped = 0
    for mod in model.modules():
        if isinstance(mod, nn.ModuleList):
            for block in mod:
                fwd = block.forward

                def run(*a, _fwd=fwd, **k):
                    return checkpoint(_fwd, *a, use_reentrant=False, **k)

                block.forward = run
                wrapped += 1
    return wrapped


def use_cuda_dropout():
    """Make F.dropout keep a 1-byte mask on the CPU, as CUDA's fused kernel does.

    The CPU path multiplies by a float noise tensor (4 bytes per element); a
    simulation of a GPU run must keep what the GPU keeps.
    """
    import torch.nn.functional as F

    if getattr(F.dropout, "_gpudoctor", False):
        return
    plain = F.dropout

    def dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0.0 or input.numel() == 0 or not input.is_floating_point():
            return plain(input, p, training, inplace)
        return torch.native_dropout(input, p, True)[0]

    dropout._gpudoctor = True
    F.dropout = dropout


def build(request):
    if request.get("builtin"):
        import torch_presets

        torch_presets.SDPA_DROPOUT = request.get("device") == "cuda"
        return torch_presets.build(request["builtin"], request["batch"], request.get("seq"),
                                   request.get("image_size"), {"attention": request.get("attention")})
    return load_factory(request["factory"], request)


def run_steps(request, tracker, fake_mode):
    """Build and train for `steps` steps; return facts about the model."""
    precision = request.get("precision", "fp32")
    device = request.get("device", "cpu")
    ctx = fake_mode if fake_mode is not None else contextlib.nullcontext()
    # Build on the target device and, for pure bf16, in the target dtype (a
    # default-device context and the default dtype): fake parameters cannot be
    # moved or converted afterwards.
    dtype = torch.get_default_dtype()
    try:
        if precision == "bf16":
            torch.set_default_dtype(torch.bfloat16)
        with ctx, torch.device(device):
            model, inputs, loss_fn = build(request)
            if inputs is None:
                inputs = default_inputs(model, request)
    finally:
        torch.set_default_dtype(dtype)
    loss_fn = loss_fn or _default_loss
    with ctx:
        model.train()
        wrapped = checkpoint_layers(model) if request.get("grad_checkpointing") else 0
        trainable = [p for p in model.parameters() if p.requires_grad]
        opt = make_optimizer(request.get("optimizer", "adamw"), trainable) if trainable else None
    facts = {
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in trainable),
        "checkpointed_blocks": wrapped,
    }
    if tracker is None:
        return model, inputs, loss_fn, opt, facts
    for p in model.parameters():
        tracker.track(p, "parameters")
    for b in model.buffers():
        tracker.track(b, "buffers")
    for t in tree_flatten(inputs)[0]:
        tracker.track(t, "inputs")
    for p in trainable:
        if hasattr(p, "register_post_accumulate_grad_hook"):
            p.register_post_accumulate_grad_hook(lambda q: tracker.track(q.grad, "gradients"))
    return model, inputs, loss_fn, opt, facts


def autocast_ctx(precision, device):
    if precision not in ("amp-fp16", "amp-bf16"):
        return contextlib.nullcontext()
    dtype = torch.float16 if precision == "amp-fp16" and device == "cuda" else torch.bfloat16
    if device != "cuda":
        return torch.autocast(device_type=device, dtype=dtype)
    # torch.autocast turns itself off when no GPU is usable; on fake CUDA tensors
    # its CUDA policy (16-bit matmuls, fp32 softmax and norms) is exactly what we
    # want to simulate, so let it see a GPU while it is being created.
    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: True
    try:
        return torch.autocast(device_type="cuda", dtype=dtype)
    finally:
        torch.cuda.is_available = real


def train(model, inputs, loss_fn, opt, request, tracker=None):
    steps = int(request.get("steps", 1))
    accum = max(1, int(request.get("grad_accum", 1)))
    precision = request.get("precision", "fp32")
    device = request.get("device", "cpu")
    mark = (lambda t: tracker.track(t, "activations") or t) if tracker is not None else (lambda t: t)
    for _ in range(steps):
        for _micro in range(min(accum, 2)):
            if tracker is not None:
                tracker.phase = "forward"
            with torch.autograd.graph.saved_tensors_hooks(mark, lambda t: t):
                with autocast_ctx(precision, device):
                    out = _call(model, inputs)
                    loss = loss_fn(out, inputs)
                if tracker is not None:
                    tracker.phase = "backward"
                loss.backward()
            del out, loss
        if opt is not None:
            if tracker is not None:
                tracker.phase = "optimizer"
            opt.step()
            if tracker is not None:
                for state in opt.state.values():
                    for v in state.values():
                        tracker.track(v, "optimizer")
            opt.zero_grad(set_to_none=True)


def measure_real_cpu(request):
    """Peak bytes the CPU allocator really handed out, from the profiler's memory events."""
    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(0)
    model, inputs, loss_fn, opt, _ = run_steps(dict(request, device="cpu"), None, None)
    baseline = 0
    seen = set()
    for t in list(model.parameters()) + list(model.buffers()) + list(tree_flatten(inputs)[0]):
        if isinstance(t, torch.Tensor) and id(t.untyped_storage()) not in seen:
            seen.add(id(t.untyped_storage()))
            baseline += t.untyped_storage().nbytes()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        train(model, inputs, loss_fn, opt, dict(request, steps=2))
    # Every allocation and free is an instant event carrying the allocator's running
    # total since profiling began; its maximum is the real peak above the baseline.
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as fh:
            trace = json.load(fh)
    finally:
        os.unlink(path)
    events = sorted((e for e in trace.get("traceEvents", [])
                     if e.get("name") == "[memory]" and e.get("args", {}).get("Device Type", 0) == 0),
                    key=lambda e: e.get("ts", 0))
    if not events:
        return baseline, baseline
    # The running total is kept per process, not per profiling session: start from
    # where this session's first event found it.
    first = events[0]["args"]
    offset = first.get("Total Allocated", 0) - first.get("Bytes", 0)
    return baseline + max(e["args"].get("Total Allocated", 0) for e in events) - offset, baseline


def simulated_device(wanted):
    """"cuda" when this torch can make fake CUDA tensors (CUDA kernels' memory behaviour), else "cpu"."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    if wanted in ("auto", "cuda") and torch.backends.cuda.is_built():
        try:
            with FakeTensorMode():
                w = torch.ones(2, 2, device="cuda", requires_grad=True)
                (w * 2).sum().backward()  # the autograd engine wants a real device for CUDA tensors
            return "cuda"
        except Exception:  # noqa: BLE001 - a CUDA build without a driver cannot run fake CUDA backward
            pass
    return "cpu"


def measure(request):
    """One request -> one result dict."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    if request.get("precision") == "fp8":
        raise ValueError("exact mode does not simulate fp8 (Transformer Engine kernels have no fake implementation)")
    torch.manual_seed(0)
    device = simulated_device(request.get("device", "auto"))
    request["device"] = device
    if device == "cpu":
        use_cuda_dropout()
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    tracker = LiveTracker(round_to=512 if device == "cuda" else 1)
    model, inputs, loss_fn, opt, facts = run_steps(request, tracker, fake)
    flops = None
    with fake:
        with tracker:
            try:
                from torch.utils.flop_counter import FlopCounterMode

                counter = FlopCounterMode(display=False)
            except Exception:  # noqa: BLE001 - older torch
                counter = None
            first = dict(request, steps=1, grad_accum=1)
            if counter is not None:
                with counter:
                    train(model, inputs, loss_fn, opt, first, tracker)
                flops = counter.get_total_flops()
            else:
                train(model, inputs, loss_fn, opt, first, tracker)
            # The first step created the optimizer states; peaks count from the
            # steady state on, as a real run's would.
            tracker.reset_peaks()
            train(model, inputs, loss_fn, opt, dict(request, steps=max(1, int(request.get("steps", 1)))),
                  tracker)
    phase, peak, at_peak = tracker.peak()
    result = {
        "ok": True,
        "torch": torch.__version__,
        "python": sys.version.split()[0],
        "device_simulated": device,
        "autocast_policy": device if request.get("precision", "").startswith("amp") else None,
        "peak_bytes": peak,
        "peak_phase": phase,
        "at_peak": at_peak,
        "phase_peaks": dict((k, {"bytes": v[0], "at": v[1]}) for k, v in tracker.phase_peaks.items()),
        "flops_per_step": flops,
    }
    result.update(facts)
    if request.get("measure_real"):
        result["real_peak_bytes"], result["real_baseline_bytes"] = measure_real_cpu(request)
    return result


def main():
    """stdin: one request object, or a list of them (one torch import for all); one JSON line each."""
    data = json.loads(sys.stdin.read() or "{}")
    for request in data if isinstance(data, list) else [data]:
        try:
            result = measure(request)
        except Exception as exc:  # noqa: BLE001 - the parent wants one JSON line, not a traceback
            tail = traceback.format_exc().strip().splitlines()[-3:]
            result = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc), "trace": tail}
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
