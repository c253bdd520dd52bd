"""Driver-level smoke check: libcuda through ctypes, no framework.

Run as a script by any Python 3.8+ (standard library only). It loads libcuda,
calls cuInit, counts devices, and on every visible device retains the primary
context, allocates 1 MiB, fills it, copies it back and checks the bytes. It
prints one JSON document on stdout. Every CUresult is reported as a number
(named by gpudoctor, and by cuGetErrorName when the driver offers it).

The primary context is used instead of cuCtxCreate because cuCtxCreate's
signature changed across CUDA releases (cuCtxCreate_v4 in CUDA 13), while
cuDevicePrimaryCtxRetain has been stable since CUDA 7.
"""

import ctypes
import json
import os
import sys
import time

FORMAT = "gpudoctor-smoke-driver"
VERSION = 1
ALLOC_BYTES = 1 << 20
PATTERN = 0xA5
PROGRESS_PREFIX = "@@gddriver "  # one stderr line per step, so a killed check still says where it was
CC_MAJOR, CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR


def progress(step, state, device=None, seconds=None):
    fields = {"step": step, "state": state}
    if device is not None:
        fields["device"] = device
    if seconds is not None:
        fields["seconds"] = round(seconds, 4)
    sys.stderr.write(PROGRESS_PREFIX + json.dumps(fields) + "\n")
    sys.stderr.flush()


def library_names():
    if sys.platform.startswith("win"):
        return ["nvcuda.dll"]
    if sys.platform == "darwin":
        return []
    return ["libcuda.so.1", "libcuda.so"]


def loaded_path(fragment):
    """Which file the dynamic loader really mapped (Linux only)."""
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.split()[-1] if line.strip() else ""
                if fragment in os.path.basename(path):
                    return path
    except OSError:
        pass
    return None


def load_library(report):
    tried = []
    for name in library_names():
        try:
            lib = ctypes.CDLL(name)
        except OSError as exc:
            tried.append("%s: %s" % (name, exc))
            continue
        report["library"] = {"loaded": True, "name": name, "path": loaded_path("libcuda") or name,
                             "tried": tried}
        return lib
    if not library_names():
        tried.append("no CUDA driver exists for %s" % sys.platform)
    report["library"] = {"loaded": False, "name": None, "path": None, "tried": tried}
    return None


class Driver(object):
    def __init__(self, lib):
        self.lib = lib

    def fn(self, *names):
        for name in names:
            f = getattr(self.lib, name, None)
            if f is not None:
                f.restype = ctypes.c_int
                return f
        return None

    def error_name(self, code):
        f = self.fn("cuGetErrorName")
        if f is None:
            return None
        out = ctypes.c_char_p()
        if f(ctypes.c_int(code), ctypes.byref(out)) != 0 or not out.value:
            return None
        return out.value.decode("ascii", "replace")


def check_device(drv, ordinal):
    dev = {"index": ordinal, "name": None, "cc": None, "pci_bus_id": None,
           "memory_total_mib": None, "result": 0, "failed_step": None}
    start = time.monotonic()
    handle = ctypes.c_int()
    ctx = ctypes.c_void_p()
    dptr = ctypes.c_uint64()
    retained = allocated = False

    def step(name, rc):
        if rc != 0 and dev["failed_step"] is None:
            dev["failed_step"], dev["result"] = name, rc
        return rc == 0

    try:
        if not step("cuDeviceGet", drv.fn("cuDeviceGet")(ctypes.byref(handle), ctypes.c_int(ordinal))):
            return dev
        buf = ctypes.create_string_buffer(256)
        if drv.fn("cuDeviceGetName")(buf, ctypes.c_int(256), handle) == 0:
            dev["name"] = buf.value.decode("utf-8", "replace")
        major, minor = ctypes.c_int(), ctypes.c_int()
        attr = drv.fn("cuDeviceGetAttribute")
        if attr(ctypes.byref(major), ctypes.c_int(CC_MAJOR), handle) == 0 and \
                attr(ctypes.byref(minor), ctypes.c_int(CC_MINOR), handle) == 0:
            dev["cc"] = "%d.%d" % (major.value, minor.value)
        bus = ctypes.create_string_buffer(64)
        pci = drv.fn("cuDeviceGetPCIBusId")
        if pci is not None and pci(bus, ctypes.c_int(64), handle) == 0:
            dev["pci_bus_id"] = bus.value.decode("ascii", "replace")
        total = ctypes.c_size_t()
        mem = drv.fn("cuDeviceTotalMem_v2", "cuDeviceTotalMem")
        if mem is not None and mem(ctypes.byref(total), handle) == 0:
            dev["memory_total_mib"] = total.value // (1 << 20)
        progress("cuDevicePrimaryCtxRetain", "start", ordinal)
        began = time.monotonic()
        retained_ok = step("cuDevicePrimaryCtxRetain", drv.fn("cuDevicePrimaryCtxRetain")(ctypes.byref(ctx), handle))
        dev["context_seconds"] = round(time.monotonic() - began, 4)
        progress("cuDevicePrimaryCtxRetain", "done", ordinal, dev["context_seconds"])
        if not retained_ok:
            return dev
        retained = True
        if not step("cuCtxSetCurrent", drv.fn("cuCtxSetCurrent")(ctx)):
            return dev
        if not step("cuMemAlloc", drv.fn("cuMemAlloc_v2", "cuMemAlloc")(ctypes.byref(dptr),
                                                                         ctypes.c_size_t(ALLOC_BYTES))):
            return dev
        allocated = True
        if not step("cuMemsetD8", drv.fn("cuMemsetD8_v2", "cuMemsetD8")(
                dptr, ctypes.c_ubyte(PATTERN), ctypes.c_size_t(ALLOC_BYTES))):
            return dev
        if not step("cuCtxSynchronize", drv.fn("cuCtxSynchronize")()):
            return dev
        host = ctypes.create_string_buffer(ALLOC_BYTES)
        if not step("cuMemcpyDtoH", drv.fn("cuMemcpyDtoH_v2", "cuMemcpyDtoH")(
                host, dptr, ctypes.c_size_t(ALLOC_BYTES))):
            return dev
        if host.raw != bytes([PATTERN]) * ALLOC_BYTES:
            dev["failed_step"] = "verify"  # the bytes read back differ: result stays 0
        return dev
    finally:
        if allocated:
            drv.fn("cuMemFree_v2", "cuMemFree")(dptr)
        if retained:
            release = drv.fn("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
            if release is not None:
                release(handle)
        if dev["result"]:
            dev["result_name"] = drv.error_name(dev["result"])
        dev["seconds"] = round(time.monotonic() - start, 4)


def run():
    start = time.monotonic()
    report = {"format": FORMAT, "version": VERSION, "platform": sys.platform,
              "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
              "cuinit": None, "cuinit_name": None, "driver_version": None,
              "device_count": None, "count_result": None, "devices": []}
    lib = load_library(report)
    if lib is not None:
        drv = Driver(lib)
        version = ctypes.c_int()
        get_version = drv.fn("cuDriverGetVersion")
        if get_version is not None and get_version(ctypes.byref(version)) == 0:
            report["driver_version"] = version.value
        init = drv.fn("cuInit")
        progress("cuInit", "start")
        began = time.monotonic()
        report["cuinit"] = init(ctypes.c_uint(0)) if init is not None else -1
        report["cuinit_seconds"] = round(time.monotonic() - began, 4)
        progress("cuInit", "done", seconds=report["cuinit_seconds"])
        if report["cuinit"] != 0:
            report["cuinit_name"] = drv.error_name(report["cuinit"])
        else:
            count = ctypes.c_int()
            report["count_result"] = drv.fn("cuDeviceGetCount")(ctypes.byref(count))
            if report["count_result"] == 0:
                report["device_count"] = count.value
                report["devices"] = [check_device(drv, i) for i in range(count.value)]
    report["seconds"] = round(time.monotonic() - start, 4)
    return report


if __name__ == "__main__":
    sys.stdout.write(json.dumps(run()) + "\n")
