"""PyTorch backend of the smoke runner: every test on every selected GPU."""

import platform
import warnings

import gdsmoke_common as common
import gdsmoke_nvml
from gdsmoke_torch_gemm import PRECISIONS, clock_warmup, gemm_test, numerics
from gdsmoke_torch_mem import copy_d2d_test, copy_h2d_test, memtest
from gdsmoke_torch_multi import nccl_allreduce_test, p2p_test
from gdsmoke_torch_nn import conv_test, sdpa_test
from gdsmoke_torch_precision import default_fp32_error, precision_defaults

MIB = 1 << 20


def framework_info(torch):
    info = {"name": "torch", "version": torch.__version__, "cuda": getattr(torch.version, "cuda", None),
            "hip": getattr(torch.version, "hip", None), "cudnn": None, "arch_list": None,
            "precision": precision_defaults(torch)}
    try:
        info["cudnn"] = torch.backends.cudnn.version()
    except Exception:  # a broken cuDNN install: the conv test reports it
        pass
    return info


def cuda_status(torch):
    """(available, device count, messages). torch turns a failed cuInit into a
    warning ("CUDA initialization: ... Error 804: ..."); keep its text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
        count = torch.cuda.device_count() if available else 0
    messages = [str(w.message) for w in caught]
    if not available and getattr(torch.version, "cuda", None):
        try:
            torch.cuda.init()
        except Exception as exc:  # the reason CUDA is unavailable, in torch's words
            messages.append(str(exc).strip())
    return available, count, messages


def device_info(torch, index):
    p = torch.cuda.get_device_properties(index)
    info = {"index": index, "name": p.name, "cc": "%d.%d" % (p.major, p.minor),
            "memory_total_mib": p.total_memory // MIB, "multiprocessors": p.multi_processor_count}
    if hasattr(p, "pci_bus_id"):
        info["pci_bus_id"] = "%04x:%02x:%02x.0" % (getattr(p, "pci_domain_id", 0), p.pci_bus_id,
                                                  getattr(p, "pci_device_id", 0))
    return info


def device_tests(torch, device, index, cc, is_cpu, mode, sampler=None):
    results = []
    for prec in PRECISIONS:
        common.run_test(index, "gemm_" + prec,
                        lambda p=prec: gemm_test(torch, p, device, cc, is_cpu, mode, sampler), results)
    for prec in ("fp16", "bf16"):
        common.run_test(index, "conv_" + prec, lambda p=prec: conv_test(torch, p, device, cc, is_cpu), results)
    for prec in ("fp16", "bf16"):
        common.run_test(index, "sdpa_" + prec, lambda p=prec: sdpa_test(torch, p, device, cc, is_cpu), results)
    common.run_test(index, "copy_d2d", lambda: copy_d2d_test(torch, device, is_cpu, mode), results)
    common.run_test(index, "copy_h2d", lambda: copy_h2d_test(torch, device, is_cpu, mode), results)
    if mode == "full":
        common.run_test(index, "memtest", lambda: memtest(torch, device, is_cpu), results)
    return results


def run_cpu(torch, fw, args, started):
    """--allow-cpu: the same numerics through torch's CPU kernels (for tests)."""
    info = {"index": 0, "name": "cpu (%s)" % (platform.processor() or platform.machine()), "cc": None}
    common.emit("gpu", **info)
    info["tests"] = device_tests(torch, torch.device("cpu"), 0, None, True, args.mode)
    return common.document("torch", fw, "cpu", args.mode, [info], started=started)


def run(args, started):
    import torch

    fw = framework_info(torch)
    available, count, messages = cuda_status(torch)
    if not available:
        if args.allow_cpu:
            return run_cpu(torch, fw, args, started)
        stage = "cuda-unavailable" if fw["cuda"] or fw["hip"] else "cpu-only-build"
        message = messages[-1] if messages else "torch.cuda.is_available() is False"
        return common.document("torch", fw, "cuda", args.mode, [], started=started,
                               error={"stage": stage, "message": message, "messages": messages})
    fw["arch_list"] = torch.cuda.get_arch_list()
    wanted = common.parse_gpus(args.gpus)
    indices = list(range(count)) if wanted is None else wanted
    missing = [i for i in indices if i < 0 or i >= count]
    if missing:
        return common.document("torch", fw, "cuda", args.mode, [], started=started, error={
            "stage": "bad-gpu-index",
            "message": "GPU %s not visible: torch sees %d device(s)" % (missing, count)})
    infos = [device_info(torch, index) for index in indices]
    nvml, samplers, nvml_error = gdsmoke_nvml.open_samplers([i.get("pci_bus_id") for i in infos])
    gpus = []
    try:
        for info in infos:
            index = info["index"]
            sampler = samplers.get(info.get("pci_bus_id"))
            if sampler is None:
                info["nvml_error"] = nvml_error or "no NVML handle for bus %s" % info.get("pci_bus_id")
            common.emit("gpu", **info)
            torch.cuda.set_device(index)
            device = torch.device("cuda", index)
            cc = tuple(int(x) for x in info["cc"].split("."))
            info["fp32_default_max_rel_error"], why = default_fp32_error(torch, device, numerics)
            if why:
                info["fp32_default_error"] = why
            try:
                info["clock_warmup"] = clock_warmup(torch, device, cc, args.mode, sampler)
            except Exception as exc:  # the tests that follow report a broken GPU in detail
                info["clock_warmup"] = {"error": str(exc).strip().splitlines()[0][:300] if str(exc).strip() else
                                        type(exc).__name__}
            info["tests"] = device_tests(torch, device, index, cc, False, args.mode, sampler)
            gpus.append(info)
    finally:
        if nvml is not None:
            nvml.close()
    node = []
    if len(indices) > 1:
        common.run_test(None, "p2p", lambda: p2p_test(torch, indices), node)
        common.run_test(None, "nccl_allreduce", lambda: nccl_allreduce_test(torch, indices, args.mode), node)
    return common.document("torch", fw, "cuda", args.mode, gpus, node, started=started)
