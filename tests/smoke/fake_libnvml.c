/* A fake libnvidia-ml.so.1 for the NVML sampler tests, answering from FAKE_NVML_* variables:
 *   FAKE_NVML_INIT=<rc>            nvmlInit_v2's return code (default 0)
 *   FAKE_NVML_BUS=<pci bus id>     the only bus id nvmlDeviceGetHandleByPciBusId_v2 knows
 *   FAKE_NVML_SM_MHZ, FAKE_NVML_MAX_SM_MHZ, FAKE_NVML_POWER_MW, FAKE_NVML_LIMIT_MW,
 *   FAKE_NVML_DEFAULT_LIMIT_MW, FAKE_NVML_TEMP_C, FAKE_NVML_SLOWDOWN_C, FAKE_NVML_REASONS
 *   FAKE_NVML_OLD_NAMES=1          export only the pre-r535 ...ClocksThrottleReasons name
 * Tests set them to values recorded on real GPUs (their sources are in the tests). */
#include <stdlib.h>
#include <string.h>

static unsigned long env(const char *name, unsigned long fallback) {
    const char *v = getenv(name);
    return v && *v ? strtoul(v, NULL, 0) : fallback;
}

static int handle_token;

int nvmlInit_v2(void) { return (int)env("FAKE_NVML_INIT", 0); }
int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **out) {
    const char *want = getenv("FAKE_NVML_BUS");
    if (!want || strcmp(bus, want) != 0) return 4; /* NVML_ERROR_NOT_FOUND */
    *out = &handle_token;
    return 0;
}

int nvmlDeviceGetClockInfo(void *h, int type, unsigned *v) { (void)h; (void)type; *v = env("FAKE_NVML_SM_MHZ", 0); return 0; }
int nvmlDeviceGetMaxClockInfo(void *h, int type, unsigned *v) { (void)h; (void)type; *v = env("FAKE_NVML_MAX_SM_MHZ", 0); return 0; }
int nvmlDeviceGetPowerUsage(void *h, unsigned *v) { (void)h; *v = env("FAKE_NVML_POWER_MW", 0); return 0; }
int nvmlDeviceGetEnforcedPowerLimit(void *h, unsigned *v) { (void)h; *v = env("FAKE_NVML_LIMIT_MW", 0); return 0; }
int nvmlDeviceGetPowerManagementDefaultLimit(void *h, unsigned *v) { (void)h; *v = env("FAKE_NVML_DEFAULT_LIMIT_MW", 0); return 0; }
int nvmlDeviceGetTemperature(void *h, int sensor, unsigned *v) { (void)h; (void)sensor; *v = env("FAKE_NVML_TEMP_C", 0); return 0; }
int nvmlDeviceGetTemperatureThreshold(void *h, int kind, unsigned *v) {
    (void)h; (void)kind;
    if (!getenv("FAKE_NVML_SLOWDOWN_C")) return 3; /* NVML_ERROR_NOT_SUPPORTED */
    *v = env("FAKE_NVML_SLOWDOWN_C", 0);
    return 0;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(void *h, unsigned long long *v) { (void)h; *v = env("FAKE_NVML_REASONS", 0); return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(void *h, unsigned long long *v) {
    if (env("FAKE_NVML_OLD_NAMES", 0)) return 13; /* NVML_ERROR_FUNCTION_NOT_FOUND, as a stand-in */
    (void)h; *v = env("FAKE_NVML_REASONS", 0);
    return 0;
}
