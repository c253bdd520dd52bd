"""Multi-GPU smoke tests with PyTorch: NCCL all-reduce and the peer-access matrix.

The all-reduce runs one spawned process per GPU (the way torch.distributed
jobs run), rendezvousing through a file in a fresh temporary directory so no
TCP port is needed. The children live in the runner's process group, so
gpudoctor's hard timeout kills them too.
"""

import multiprocessing
import os
import queue
import shutil
import tempfile
import time

import gdsmoke_common as common

MIB = 1 << 20
ALLREDUCE_BYTES = {"quick": 64 * MIB, "full": 256 * MIB}
ALLREDUCE_ITERS = {"quick": 10, "full": 40}
JOIN_TIMEOUT_S = 90.0


def worker(rank, world, device_index, init_method, nbytes, iters, results):
    """One rank: a correctness all-reduce, then `iters` timed ones."""
    out = {"rank": rank, "device": device_index}
    try:
        import datetime

        import torch
        import torch.distributed as dist

        torch.cuda.set_device(device_index)
        dist.init_process_group("nccl", init_method=init_method, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=60))
        x = torch.full((nbytes // 4,), float(rank + 1), device="cuda", dtype=torch.float32)
        dist.all_reduce(x)
        torch.cuda.synchronize()
        want = world * (world + 1) / 2.0
        out["correct"] = bool(x.eq(want).all())
        x.fill_(1.0 / world)  # the sum stays 1.0: no overflow however many iterations
        dist.barrier()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(iters):
            dist.all_reduce(x)
        end.record()
        end.synchronize()
        out["seconds_per_iter"] = begin.elapsed_time(end) / 1000.0 / iters
        version = torch.cuda.nccl.version()  # a tuple since torch 1.x; an int before
        out["nccl"] = ".".join(str(v) for v in version) if isinstance(version, tuple) else str(version)
        dist.destroy_process_group()
    except Exception as exc:  # reported to the parent, which judges nothing itself
        out["error"] = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:500]
                                   if str(exc).strip() else "")
    results.put(out)


def nccl_allreduce_test(torch, indices, mode):
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_nccl_available():
        return common.result("nccl_allreduce", "error", error="this torch build has no NCCL backend",
                             error_type="NcclUnavailable")
    world = len(indices)
    nbytes, iters = ALLREDUCE_BYTES[mode], ALLREDUCE_ITERS[mode]
    ctx = multiprocessing.get_context("spawn")  # fork after CUDA init is unsafe
    tmp = tempfile.mkdtemp(prefix="gdsmoke-nccl-")
    results = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(rank, world, idx, "file://" + os.path.join(tmp, "rendezvous"),
                                              nbytes, iters, results))
             for rank, idx in enumerate(indices)]
    try:
        for p in procs:
            p.start()
        got, deadline = [], time.monotonic() + JOIN_TIMEOUT_S
        while len(got) < world and time.monotonic() < deadline:
            try:
                got.append(results.get(timeout=1.0))
            except queue.Empty:
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summarize(got, procs, world, nbytes, iters)


def summarize(got, procs, world, nbytes, iters):
    errors = [r["error"] for r in got if r.get("error")]
    missing = world - len(got)
    if missing:
        codes = [p.exitcode for p in procs]
        errors.append("%d of %d ranks reported nothing (exit codes %s)" % (missing, world, codes))
    if errors:
        return common.result("nccl_allreduce", "error", error="; ".join(errors)[:2000],
                             error_type="NcclError", world_size=world)
    slowest = max(r["seconds_per_iter"] for r in got)
    algbw = nbytes / slowest / 1e9
    res = common.result("nccl_allreduce", gbps=algbw * 2.0 * (world - 1) / world, algbw_gbps=algbw,
                        bytes=nbytes, iters=iters, world_size=world, nccl=got[0].get("nccl"),
                        correct=all(r.get("correct") for r in got))
    if not res["correct"]:
        res["status"], res["error"] = "error", "the all-reduce returned wrong sums"
        res["error_type"] = "NcclWrongResult"
    return res


def p2p_test(torch, indices):
    """Which pairs can access each other's memory directly (NVLink or PCIe P2P)."""
    matrix = [[None if a == b else bool(torch.cuda.can_device_access_peer(a, b)) for b in indices]
              for a in indices]
    return common.result("p2p", devices=list(indices), matrix=matrix)
