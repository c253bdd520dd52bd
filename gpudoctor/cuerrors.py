"""CUDA error codes: the driver API's CUresult and the runtime's cudaError_t.

Numbers and names are those of cuda.h (CUresult) and driver_types.h
(cudaError_t) of CUDA 13.0; `message` is what cudaGetErrorString returns in
the CUDA 13.0 runtime (frameworks print it, so it is what we match in their
error text). The two enums share numbers for every code listed here, except
35 and 98, which only the runtime has. The fixes are gpudoctor's advice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DRIVER_API_SOURCE = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html (CUresult, cuda.h of CUDA 13.0)"
RUNTIME_API_SOURCE = "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html (cudaError, CUDA 13.0)"
FABRIC_MANAGER_SOURCE = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/"
COMPAT_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/"

XID = "sudo dmesg | grep -i -E 'NVRM|Xid' | tail -20"


@dataclass(frozen=True)
class CudaError:
    """One CUDA error code: its driver and runtime names, message, meaning and fix."""

    code: int
    name: str  # CUresult name; for the runtime-only 35 and 98, the runtime's
    runtime_name: str
    message: str  # cudaGetErrorString text
    meaning: str
    fix: str
    commands: tuple[str, ...] = ()
    source: str = DRIVER_API_SOURCE


def _e(code, name, runtime_name, message, meaning, fix, commands=(), source=DRIVER_API_SOURCE):
    return CudaError(code, name, runtime_name, message, meaning, fix, tuple(commands), source)


_TABLE = (
    _e(1, "CUDA_ERROR_INVALID_VALUE", "cudaErrorInvalidValue", "invalid argument",
       "an API call got a parameter out of range",
       "A bug in the calling program, not the machine; report it with the failing call."),
    _e(2, "CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation", "out of memory",
       "the GPU has no free memory for the allocation",
       "Other processes hold the GPU memory, or the MIG slice is too small: free it or pick another GPU.",
       ("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",)),
    _e(3, "CUDA_ERROR_NOT_INITIALIZED", "cudaErrorInitializationError", "initialization error",
       "the driver was not initialised, or cuInit failed earlier in this process",
       "Usually a process forked after CUDA was initialised (use the 'spawn' start method), or an earlier "
       "cuInit failure: run gpudoctor smoke to see the first error."),
    _e(4, "CUDA_ERROR_DEINITIALIZED", "cudaErrorCudartUnloading", "driver shutting down",
       "the driver is shutting down", "A call made during process exit; harmless unless it happens at start."),
    _e(34, "CUDA_ERROR_STUB_LIBRARY", "cudaErrorStubLibrary", "CUDA driver is a stub library",
       "the libcuda that was loaded is the toolkit's link-time stub, not the driver",
       "Remove the toolkit's stubs directory (…/lib64/stubs) from LD_LIBRARY_PATH and ld.so.conf so the "
       "driver's libcuda.so.1 is found; in a container, start it with the NVIDIA Container Toolkit.",
       ("ldconfig -p | grep libcuda", "echo \"$LD_LIBRARY_PATH\" | tr : '\\n' | grep -i stub")),
    _e(35, "cudaErrorInsufficientDriver", "cudaErrorInsufficientDriver",
       "CUDA driver version is insufficient for CUDA runtime version",
       "the CUDA runtime is newer than the driver supports, outside minor-version compatibility",
       "Upgrade the NVIDIA driver, or install the framework build for a CUDA the driver supports.",
       ("nvidia-smi", "gpudoctor install torch"), RUNTIME_API_SOURCE),
    _e(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "cudaErrorCallRequiresNewerDriver",
       "API call is not supported in the installed CUDA driver",
       "the program calls an API the installed driver is too old for",
       "Upgrade the NVIDIA driver, or use a build for an older CUDA.", ("nvidia-smi",)),
    _e(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "cudaErrorDevicesUnavailable",
       "CUDA-capable device(s) is/are busy or unavailable",
       "the GPU is in exclusive-process or prohibited compute mode, or another process owns it",
       "Wait for the owning process, or (as an administrator) set the compute mode back to Default.",
       ("nvidia-smi -q -d COMPUTE", "sudo nvidia-smi -c DEFAULT")),
    _e(98, "cudaErrorInvalidDeviceFunction", "cudaErrorInvalidDeviceFunction", "invalid device function",
       "the kernel has no code (SASS or PTX) for this GPU's architecture",
       "Install a build (or rebuild the extension) whose arch list covers the GPU.",
       ("nvidia-smi --query-gpu=compute_cap --format=csv,noheader",), RUNTIME_API_SOURCE),
    _e(100, "CUDA_ERROR_NO_DEVICE", "cudaErrorNoDevice", "no CUDA-capable device is detected",
       "the driver found no GPU this process may use",
       "Check CUDA_VISIBLE_DEVICES (empty or wrong), that the container was started with GPUs "
       "(docker run --gpus all), and that the /dev/nvidia* device nodes exist.",
       ("echo \"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"", "nvidia-smi -L", "ls -l /dev/nvidia*")),
    _e(101, "CUDA_ERROR_INVALID_DEVICE", "cudaErrorInvalidDevice", "invalid device ordinal",
       "a device index beyond the visible devices was used",
       "Use an index below the visible device count; CUDA_VISIBLE_DEVICES renumbers devices from 0.",
       ("nvidia-smi -L",)),
    _e(200, "CUDA_ERROR_INVALID_IMAGE", "cudaErrorInvalidKernelImage", "device kernel image is invalid",
       "a kernel image is corrupt or for another architecture",
       "Reinstall the framework; if it persists, the build does not match this GPU.", ("gpudoctor check",)),
    _e(209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice",
       "no kernel image is available for execution on the device",
       "the program has no SASS for this GPU's architecture and no PTX the driver could compile",
       "Install a framework build whose architecture list covers this GPU.",
       ("gpudoctor check", "gpudoctor install torch")),
    _e(214, "CUDA_ERROR_ECC_UNCORRECTABLE", "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered",
       "the GPU memory reported an uncorrectable ECC error",
       "A hardware fault: drain the GPU, reset it, and replace it if the errors recur.",
       ("nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", XID)),
    _e(217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "cudaErrorPeerAccessUnsupported",
       "peer access is not supported between these two devices",
       "the two GPUs cannot access each other's memory directly",
       "Normal on many PCIe topologies and GeForce cards; NCCL then copies through host memory.",
       ("nvidia-smi topo -m",)),
    _e(218, "CUDA_ERROR_INVALID_PTX", "cudaErrorInvalidPtx", "a PTX JIT compilation failed",
       "the driver could not compile the program's PTX for this GPU",
       "Install a build with SASS for this GPU, or a newer driver.", ("gpudoctor check",)),
    _e(220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "cudaErrorNvlinkUncorrectable",
       "uncorrectable NVLink error detected during the execution",
       "an NVLink link reported an uncorrectable error",
       "A hardware or fabric fault: check the links and the fabric manager, then reset the GPUs.",
       ("nvidia-smi nvlink -s", "nvidia-smi nvlink -e", XID)),
    _e(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "cudaErrorJitCompilerNotFound",
       "PTX JIT compiler library not found",
       "libnvidia-ptxjitcompiler, part of the driver, is missing",
       "Reinstall the driver's user-space libraries; in a container set NVIDIA_DRIVER_CAPABILITIES=compute,utility.",
       ("ldconfig -p | grep -i ptxjit",)),
    _e(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "cudaErrorUnsupportedPtxVersion",
       "the provided PTX was compiled with an unsupported toolchain.",
       "the PTX is from a newer CUDA toolkit than this driver can compile",
       "Upgrade the driver to one that supports the framework's CUDA, or install a build with SASS for this GPU.",
       ("nvidia-smi", "gpudoctor check")),
    _e(223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "cudaErrorJitCompilationDisabled",
       "PTX JIT compilation was disabled", "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT=1)",
       "Unset CUDA_DISABLE_PTX_JIT, or install a build with SASS for this GPU.",
       ("echo \"CUDA_DISABLE_PTX_JIT=$CUDA_DISABLE_PTX_JIT\"",)),
    _e(304, "CUDA_ERROR_OPERATING_SYSTEM", "cudaErrorOperatingSystem",
       "OS call failed or operation not supported on this OS",
       "an operating-system call inside the driver failed",
       "Often /dev/nvidia-uvm is missing or not accessible: load nvidia-uvm and check the device permissions.",
       ("ls -l /dev/nvidia*", "sudo modprobe nvidia-uvm")),
    _e(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "cudaErrorIllegalAddress", "an illegal memory access was encountered",
       "a kernel accessed invalid memory; the CUDA context is unusable",
       "In a smoke kernel this points at the driver or the hardware: look for Xid errors.", (XID,)),
    _e(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "cudaErrorLaunchOutOfResources",
       "too many resources requested for launch", "a launch asked for more registers or shared memory than the GPU has",
       "A kernel built for another GPU; install a build that targets this architecture.", ("gpudoctor check",)),
    _e(702, "CUDA_ERROR_LAUNCH_TIMEOUT", "cudaErrorLaunchTimeout", "the launch timed out and was terminated",
       "the display watchdog killed a long kernel",
       "This GPU drives a display: run compute on another GPU or disable the watchdog (headless X / TCC mode)."),
    _e(710, "CUDA_ERROR_ASSERT", "cudaErrorAssert", "device-side assert triggered",
       "a kernel's own assertion failed", "A bug in the program's inputs or kernels; rerun with CUDA_LAUNCH_BLOCKING=1."),
    _e(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "cudaErrorIllegalInstruction", "an illegal instruction was encountered",
       "a kernel executed an illegal instruction", "Suspect a kernel built for another architecture, or the hardware.",
       (XID,)),
    _e(719, "CUDA_ERROR_LAUNCH_FAILED", "cudaErrorLaunchFailure", "unspecified launch failure",
       "a kernel failed for an unspecified reason; the context is unusable",
       "In a smoke kernel this points at the driver or the hardware: look for Xid errors.", (XID,)),
    _e(800, "CUDA_ERROR_NOT_PERMITTED", "cudaErrorNotPermitted", "operation not permitted",
       "the operation is not permitted", "Check the device permissions and the container's capabilities.",
       ("ls -l /dev/nvidia*",)),
    _e(801, "CUDA_ERROR_NOT_SUPPORTED", "cudaErrorNotSupported", "operation not supported",
       "the operation is not supported on this system or device", "Not a fault of the machine; the feature is absent."),
    _e(802, "CUDA_ERROR_SYSTEM_NOT_READY", "cudaErrorSystemNotReady", "system not yet initialized",
       "the system is not ready for CUDA work: a required driver daemon is not running",
       "On NVSwitch systems (HGX/DGX A100, H100, H200, B200) start the NVIDIA Fabric Manager, of the same "
       "version as the driver, and wait until the fabric state is Completed.",
       ("systemctl status nvidia-fabricmanager", "sudo systemctl enable --now nvidia-fabricmanager",
        "nvidia-smi -q | grep -i -A 2 fabric"), FABRIC_MANAGER_SOURCE),
    _e(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "cudaErrorSystemDriverMismatch",
       "system has unsupported display driver / cuda driver combination",
       "the user-space libcuda and the loaded kernel module are different versions",
       "The driver was upgraded without a reboot, or a container brought its own libcuda: reboot (or reload "
       "the nvidia modules) so both match.",
       ("cat /proc/driver/nvidia/version", "ldconfig -p | grep libcuda.so.1")),
    _e(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "cudaErrorCompatNotSupportedOnDevice",
       "forward compatibility was attempted on non supported HW",
       "a CUDA forward-compatibility libcuda (cuda-compat) is loaded, but this GPU does not support "
       "forward compatibility (it is for data-center GPUs only)",
       "Install a driver that natively supports this CUDA version, or use an image built for an older CUDA; "
       "if the host driver is new enough, keep the compat directory (e.g. /usr/local/cuda/compat) off "
       "LD_LIBRARY_PATH.",
       ("nvidia-smi", "echo \"$LD_LIBRARY_PATH\" | tr : '\\n' | grep -i compat"), COMPAT_SOURCE),
    _e(805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "cudaErrorMpsConnectionFailed",
       "MPS client failed to connect to the MPS control daemon or the MPS server",
       "the process is set up for MPS but cannot reach the MPS daemon",
       "Start the MPS control daemon, or unset CUDA_MPS_PIPE_DIRECTORY to run without MPS.",
       ("echo get_server_list | nvidia-cuda-mps-control",)),
    _e(999, "CUDA_ERROR_UNKNOWN", "cudaErrorUnknown", "unknown error",
       "the driver failed without saying why",
       "Common after suspend/resume (reload nvidia_uvm) or when a GPU fell off the bus (Xid 79): check the "
       "kernel log, reload the module, or reboot.",
       (XID, "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm")),
)

BY_CODE: dict[int, CudaError] = {e.code: e for e in _TABLE}


def describe(code: int) -> CudaError:
    """The table entry, or a generic one naming the number."""
    if code in BY_CODE:
        return BY_CODE[code]
    return CudaError(code, f"CUresult {code}", f"cudaError {code}", "", "an error gpudoctor has no entry for",
                     "Look the number up in the CUDA driver API's CUresult list.")


def label(code: int) -> str:
    """'802 CUDA_ERROR_SYSTEM_NOT_READY (system not yet initialized)'."""
    e = describe(code)
    return f"{code} {e.name}" + (f" ({e.message})" if e.message else "")


_NUMBERED = re.compile(r"\b(?:error|cuda error|cudaerror|curesult)[\s:=]*(\d{1,4})\b", re.IGNORECASE)


def find_in_text(text: str) -> CudaError | None:
    """The CUDA error a framework's message names: by name, by runtime
    message, or as "Error 804"."""
    if not text:
        return None
    low = text.lower()
    for e in _TABLE:
        if e.name.lower() in low or e.runtime_name.lower() in low:
            return e
    for e in _TABLE:
        if e.message and e.message.lower().rstrip(".") in low:
            return e
    for m in _NUMBERED.finditer(text):
        code = int(m.group(1))
        if code in BY_CODE:
            return BY_CODE[code]
    return None


# A CUDA error printed as a bare number ("CUDA error 209 at …", "cuda runtime error (48)",
# "Check failed: error == cudaSuccess (35 vs. 0)") names the same fault as its message.
# Only numbers that name an environment fault are read so. The runtime renumbered
# cudaError_t to CUresult's values in CUDA 10.1; before that its own numbers were these
# (driver_types.h of CUDA 3.x-10.0), none of them a CUresult value. Numbers whose old and
# new meanings differ (4, 36) are read in neither.
_SPELLED = frozenset({35, 46, 98, 100, 200, 209, 214, 218, 221, 222, 802, 803, 804, 999})
_LEGACY = {8: 98, 30: 999, 38: 100, 39: 214, 47: 200, 48: 209}  # old runtime number -> today's

_RUNTIME_NUMBER = re.compile(
    r"\bcuda(?:\s+runtime)?\s+error\s*[:(]?\s*\(?(\d{1,3})\)?(?![\d.])"  # CUDA error 209, cuda runtime error (48)
    r"|\bcudaError(?:_t)?\s*[:=(]?\s*(\d{1,3})\b"  # cudaError 100
    r"|\berror\s*==\s*cudaSuccess\s*\((\d{1,3}) vs\. 0\)"  # glog CHECK_EQ in Caffe and TensorFlow
    r"|\b(?:cudaGetDeviceCount|cudaSetDevice|cudaMalloc|cudaFree|cudaGetDevice\w*|cudaRuntimeGetVersion)\b"
    r"[^\n]{0,80}?\b(?:error|returned|code)\s*[:=(]?\s*(\d{1,3})\b", re.I)
_DRIVER_NUMBER = re.compile(
    r"\bcuda\s+driver\s+error\s*[:(]?\s*\(?(\d{1,3})\)?(?![\d.])|\bCUresult\s*[:=(]?\s*(\d{1,3})\b"
    r"|\bcuInit\b[^\n]{0,30}?\b(?:error|returned|failed)\s*[:=(]?\s*(\d{1,3})\b"
    r"|\bcuda driver library init failure:\s*(\d{1,3})\b", re.I)  # Ollama's cuInit (discover/gpu_info_nvcuda.c)
# CUresult's numbers never changed, so a driver-API number also names the faults whose
# runtime numbers were different before CUDA 10.1: the stub library and an OS call failing.
_DRIVER_SPELLED = _SPELLED | {34, 304}


def spelled_out(text: str) -> list[tuple[int, str]]:
    """(offset, "cudaErrorNoKernelImageForDevice: no kernel image is available for
    execution on the device") for each place in `text` that gives a CUDA error only by
    its number."""
    found = []
    for pattern, runtime in ((_DRIVER_NUMBER, False), (_RUNTIME_NUMBER, True)):
        for m in pattern.finditer(text):
            code = int(next(g for g in m.groups() if g))
            code = _LEGACY.get(code, code) if runtime else code
            if code in (_SPELLED if runtime else _DRIVER_SPELLED):
                e = BY_CODE[code]
                found.append((m.start(), f"{e.runtime_name}: {e.message}"))
    return sorted(found)
