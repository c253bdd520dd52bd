"""Memory smoke tests with PyTorch: copy bandwidth and a pattern write/verify."""

import gdsmoke_common as common
from gdsmoke_torch_gemm import TIME_TARGET_S, Timer

MIB = 1 << 20
D2D_BYTES = {"quick": 256 * MIB, "full": 1024 * MIB}
H2D_BYTES = {"quick": 64 * MIB, "full": 256 * MIB}
CPU_BYTES = 32 * MIB
MEMTEST_FRACTION = 0.9  # of the free memory: leave room for the allocator and the driver
MEMTEST_CHUNK = 256 * MIB
MEMTEST_CPU_BYTES = 64 * MIB
MEMTEST_CPU_CHUNK = 16 * MIB


def free_bytes(torch, device, is_cpu):
    return None if is_cpu else torch.cuda.mem_get_info(device)[0]


def copy_d2d_test(torch, device, is_cpu, mode):
    """Device-to-device copy; bandwidth counts bytes read plus bytes written."""
    nbytes = CPU_BYTES if is_cpu else D2D_BYTES[mode]
    free = free_bytes(torch, device, is_cpu)
    while free is not None and nbytes > 16 * MIB and 2 * nbytes > free // 2:
        nbytes //= 2
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).fill_(0x5A)
    dst = torch.empty_like(src)
    timer = Timer(torch, device, is_cpu)
    timer.measure(lambda: dst.copy_(src), 2)
    first = timer.measure(lambda: dst.copy_(src), 1)
    iters = common.timed_iterations(first, TIME_TARGET_S["cpu" if is_cpu else mode], lo=5, hi=100)
    seconds = timer.measure(lambda: dst.copy_(src), iters)
    res = common.result("copy_d2d", gbps=2.0 * nbytes * iters / seconds / 1e9, bytes=nbytes, iters=iters)
    if not bool(dst.eq(0x5A).all()):
        res["status"], res["detail"] = "error", "the copy's destination differs from its source"
        res["error"] = res["detail"]
    return res


def copy_h2d_test(torch, device, is_cpu, mode):
    """Pinned host to device: the PCIe (or C2C) link, one direction."""
    if is_cpu:
        return common.skip("copy_h2d", "no host-to-device link when running on the CPU")
    nbytes = H2D_BYTES[mode]
    src = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True).fill_(0x3C)
    dst = torch.empty(nbytes, dtype=torch.uint8, device=device)
    timer = Timer(torch, device, is_cpu)

    def copy():
        dst.copy_(src, non_blocking=True)

    timer.measure(copy, 2)
    first = timer.measure(copy, 1)
    iters = common.timed_iterations(first, TIME_TARGET_S[mode], lo=3, hi=50)
    seconds = timer.measure(copy, iters)
    return common.result("copy_h2d", gbps=1.0 * nbytes * iters / seconds / 1e9, bytes=nbytes, iters=iters)


def memtest(torch, device, is_cpu):
    """Write two patterns over most free memory and count the words that read back wrong."""
    chunk_bytes = MEMTEST_CPU_CHUNK if is_cpu else MEMTEST_CHUNK
    index = torch.arange(chunk_bytes // 4, dtype=torch.int32, device=device)
    if is_cpu:
        target = MEMTEST_CPU_BYTES
    else:
        torch.cuda.empty_cache()
        # Keep two chunks' worth free for the verification's temporaries.
        target = int(torch.cuda.mem_get_info(device)[0] * MEMTEST_FRACTION) - 2 * chunk_bytes
    chunks, allocated = [], 0
    while allocated + chunk_bytes <= target:
        try:
            chunks.append(torch.empty(chunk_bytes // 4, dtype=torch.int32, device=device))
        except RuntimeError:  # out of memory: test what we got
            break
        allocated += chunk_bytes
    if not chunks:
        return common.skip("memtest", "could not allocate a %d MiB chunk" % (chunk_bytes // MIB))
    timer = Timer(torch, device, is_cpu)
    mismatches = [0]

    def one_pass():
        for seed, chunk in enumerate(chunks):
            chunk.fill_(0x5A5A5A5A)
            mismatches[0] += int(chunk.ne(0x5A5A5A5A).sum())
            torch.bitwise_xor(index, seed * 7919 + 0x0F0F0F0F, out=chunk)  # address-dependent pattern
            mismatches[0] += int(chunk.ne(torch.bitwise_xor(index, seed * 7919 + 0x0F0F0F0F)).sum())

    seconds = timer.measure(one_pass, 1)
    chunks.clear()  # free the memory before the next test
    if not is_cpu:
        torch.cuda.empty_cache()
    # Each word: 2 writes and 2 reads (plus the comparison's own traffic).
    return common.result("memtest", bytes=allocated, mismatches=mismatches[0],
                         gbps=4.0 * allocated / seconds / 1e9, seconds_in_pass=seconds)
