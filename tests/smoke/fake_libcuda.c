/* A stand-in libcuda.so.1 for testing gpudoctor's driver check without a GPU.
 * Its behaviour is set by environment variables:
 *   FAKE_CUINIT=<CUresult>        what cuInit returns (default 0)
 *   FAKE_CUINIT_HANG=<seconds>    cuInit sleeps this long first
 *   FAKE_CUINIT_SEGV=1            cuInit crashes with SIGSEGV
 *   FAKE_DEVICE_COUNT=<n>         visible devices (default 1)
 *   FAKE_NAME=<name>              device name (default "NVIDIA H200"), FAKE_CC=<major*10+minor> (default 90)
 *   FAKE_FAIL_STEP=<function>     this call fails on device FAKE_FAIL_DEVICE (default 0) ...
 *   FAKE_FAIL_CODE=<CUresult>     ... with this code (default 2)
 *   FAKE_CORRUPT=1                device-to-host copies flip a byte
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef uint64_t CUdeviceptr;

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static CUresult maybe_fail(const char *fn, int dev) {
    const char *step = getenv("FAKE_FAIL_STEP");
    if (step && strcmp(step, fn) == 0 && dev == env_int("FAKE_FAIL_DEVICE", 0))
        return env_int("FAKE_FAIL_CODE", 2);
    return 0;
}

static int current_device = 0;

CUresult cuInit(unsigned int flags) {
    (void)flags;
    int hang = env_int("FAKE_CUINIT_HANG", 0);
    if (hang) sleep((unsigned)hang);
    if (env_int("FAKE_CUINIT_SEGV", 0)) raise(SIGSEGV);
    return env_int("FAKE_CUINIT", 0);
}

CUresult cuDriverGetVersion(int *v) { *v = env_int("FAKE_DRIVER_VERSION", 13000); return 0; }
CUresult cuDeviceGetCount(int *n) { *n = env_int("FAKE_DEVICE_COUNT", 1); return 0; }

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal >= env_int("FAKE_DEVICE_COUNT", 1)) return 101;
    *d = ordinal;
    return maybe_fail("cuDeviceGet", ordinal);
}

CUresult cuDeviceGetName(char *buf, int len, CUdevice d) {
    (void)d;
    const char *name = getenv("FAKE_NAME");
    snprintf(buf, (size_t)len, "%s", name && *name ? name : "NVIDIA H200");
    return 0;
}

CUresult cuDeviceGetAttribute(int *out, int attr, CUdevice d) {
    (void)d;
    int cc = env_int("FAKE_CC", 90);
    if (attr == 75) { *out = cc / 10; return 0; }
    if (attr == 76) { *out = cc % 10; return 0; }
    return 1;
}

CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d) {
    snprintf(buf, (size_t)len, "0000:%02X:00.0", 0x18 + d);
    return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { (void)d; *bytes = (size_t)143771 << 20; return 0; }

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) {
    *ctx = (CUcontext)(uintptr_t)(d + 1);
    current_device = d;
    return maybe_fail("cuDevicePrimaryCtxRetain", d);
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    current_device = (int)(uintptr_t)ctx - 1;
    return maybe_fail("cuCtxSetCurrent", current_device);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
    CUresult rc = maybe_fail("cuMemAlloc", current_device);
    if (rc) return rc;
    *p = (CUdeviceptr)(uintptr_t)malloc(size);
    return *p ? 0 : 2;
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char value, size_t n) {
    memset((void *)(uintptr_t)p, value, n);
    return maybe_fail("cuMemsetD8", current_device);
}

CUresult cuCtxSynchronize(void) { return maybe_fail("cuCtxSynchronize", current_device); }

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    memcpy(dst, (void *)(uintptr_t)src, n);
    if (env_int("FAKE_CORRUPT", 0) && n) ((unsigned char *)dst)[n / 2] ^= 0x01;
    return maybe_fail("cuMemcpyDtoH", current_device);
}

CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }

CUresult cuGetErrorName(CUresult rc, const char **out) {
    static char buf[64];
    snprintf(buf, sizeof buf, "FAKE_ERROR_%d", rc);
    *out = buf;
    return 0;
}
