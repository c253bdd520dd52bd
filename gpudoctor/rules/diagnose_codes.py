"""GD8xx: findings read from error and warning messages.

`gpudoctor diagnose` raises these when a pasted (or --error) line matches the
error catalogue (gpudoctor/data/errors.toml): the message itself is the
evidence. They have no snapshot check; the snapshot rules (GD1xx-GD6xx) still
judge whatever facts the paste contained, and usually say more precisely why.
"""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.rules.rule import Rule

FAMILY = "diagnose"

RULES: tuple[Rule, ...] = (
    Rule("GD801", "gpu-architecture-unsupported-error", "arch-not-in-build", Severity.ERROR,
         "An error says the build has no kernels for the GPU's architecture (no kernel image, sm_XX not compatible).",
         FAMILY, since="0.1.0"),
    Rule("GD802", "driver-too-old-error", "driver-too-old-for-runtime", Severity.ERROR,
         "An error says the NVIDIA driver is too old for the CUDA the program uses.", FAMILY, since="0.1.0"),
    Rule("GD803", "no-driver-error", "no-driver", Severity.ERROR,
         "An error says no NVIDIA driver is installed or loaded.", FAMILY, since="0.1.0"),
    Rule("GD804", "driver-library-mismatch-error", "driver-library-mismatch", Severity.ERROR,
         "nvidia-smi/NVML reports 'Driver/library version mismatch'.", FAMILY, since="0.1.0"),
    Rule("GD805", "cudnn-not-found-error", "cudnn-missing", Severity.ERROR,
         "An error says cuDNN cannot be found or loaded.", FAMILY, since="0.1.0"),
    Rule("GD806", "cudnn-version-mismatch-error", "cudnn-version-mismatch", Severity.ERROR,
         "An error says the loaded cuDNN differs from the one the framework was built with.", FAMILY, since="0.1.0"),
    Rule("GD807", "cuda-library-not-found-error", "framework-cuda-mismatch", Severity.ERROR,
         "An error says CUDA libraries the framework needs (cudart, cublas, cusolver...) cannot be loaded.",
         FAMILY, since="0.1.0"),
    Rule("GD808", "cpu-only-build-error", "cpu-only-build", Severity.ERROR,
         "An error says the framework was built without CUDA ('Torch not compiled with CUDA enabled').",
         FAMILY, since="0.1.0"),
    Rule("GD809", "no-cuda-device-error", "container-no-gpu", Severity.ERROR,
         "An error says no CUDA device is visible (container without GPUs, CUDA_VISIBLE_DEVICES).",
         FAMILY, since="0.1.0"),
    Rule("GD810", "library-symbol-conflict-error", "library-conflict", Severity.ERROR,
         "An error shows mixed library versions: an undefined symbol or a missing GLIBCXX/GLIBC version.",
         FAMILY, since="0.1.0"),
    Rule("GD811", "toolkit-mismatch-error", "framework-cuda-mismatch", Severity.ERROR,
         "An error says the CUDA toolkit (nvcc, CUDA_HOME) does not match the CUDA the framework was built with.",
         FAMILY, since="0.1.0"),
    Rule("GD812", "precision-unsupported-error", "precision-unsupported", Severity.ERROR,
         "An error says the GPU lacks a precision the program asked for (BF16, FP8, FlashAttention).",
         FAMILY, since="0.1.0"),
    Rule("GD813", "libcuda-not-found-error", "no-driver", Severity.ERROR,
         "An error says libcuda.so cannot be loaded (under WSL2: /usr/lib/wsl/lib is not on the library path).",
         FAMILY, since="0.1.0"),
    Rule("GD814", "framework-wheel-unavailable-error", "python-version-unsupported", Severity.ERROR,
         "pip finds no wheel of the package for this Python.", FAMILY, since="0.1.0"),
    Rule("GD815", "gpu-hardware-error", "hardware-health", Severity.ERROR,
         "An error or kernel log line reports a GPU hardware fault (Xid 79, uncorrectable ECC).",
         FAMILY, since="0.1.0"),
    Rule("GD816", "cuda-init-failed-error", "hardware-health", Severity.ERROR,
         "CUDA initialisation fails with an unknown error (suspend/resume, driver upgraded without reboot, WSL).",
         FAMILY, since="0.1.0"),
    Rule("GD817", "toolkit-cannot-target-arch-error", "arch-too-new-for-cuda", Severity.ERROR,
         "nvcc cannot compile for the requested GPU architecture.", FAMILY, since="0.1.0"),
    Rule("GD818", "gpu-libraries-not-loaded-warning", "framework-cuda-mismatch", Severity.WARNING,
         "A framework warns it could not load its CUDA libraries and runs on the CPU (harmless on a machine without a GPU).",
         FAMILY, since="0.1.0"),
    Rule("GD819", "driver-older-than-toolkit-warning", "driver-too-old-for-runtime", Severity.WARNING,
         "A warning says the driver is older than the CUDA toolkit in use: it runs, with features off.",
         FAMILY, since="0.1.0"),
    Rule("GD820", "cuda-unavailable-likely-cause", "cpu-only-build", Severity.WARNING,
         "The framework runs without CUDA and nothing else in the paste says why: the likely cause where it runs "
         "(a container without GPU access, WSL, PyPI's CPU-only wheel on Windows).", FAMILY, since="0.1.0"),
    Rule("GD821", "cpu-fallback-warning", "cpu-only-build", Severity.WARNING,
         "A framework warns that it has no CUDA support and carries on on the CPU (JAX's 'CUDA-enabled jaxlib is not "
         "installed', OpenCV DNN's 'switching to CPU').", FAMILY, since="0.1.0"),
    Rule("GD850", "runtime-error-recognised", "info", Severity.WARNING,
         "A known runtime error that is not an environment fault (out of memory, illegal address, NCCL, ...).",
         FAMILY, since="0.1.0"),
)

