"""Import one framework in the TARGET interpreter and report what CUDA gives it.

Run by `gpudoctor check --deep` in a time-limited subprocess:
    python deep_framework.py torch|tensorflow|jax|cupy
Prints lines "GPUDOCTOR_DEEP <json>" after each stage, so a crash or a hang
still tells how far it got; the last line is the answer. stdlib plus the
framework only; Python 3.8+.
"""

import json
import os
import sys
import time
import warnings

MARKER = "GPUDOCTOR_DEEP "
# CUDA libraries worth reporting when mapped into the process.
LIB_PREFIXES = ("libcuda.so", "libcudart", "libcudnn", "libcublas", "libnccl", "libnvrtc", "libnvJitLink",
                "libcufft", "libcurand", "libcusolver", "libcusparse", "libnvidia-ml", "libtorch_cuda",
                "libtensorflow_framework", "xla_cuda_plugin")
MAX_TEXT = 1500

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _here:
    sys.path.pop(0)  # our directory is not part of the environment under test


def text_of(exc):
    message = str(exc).strip()
    return (type(exc).__name__ + (": " + message if message else ""))[:MAX_TEXT]


def emit(result, stage):
    result["stage"] = stage
    sys.stdout.write(MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()


def loaded_libraries():
    found = []
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) < 6:
                    continue
                path = parts[5].strip()
                if os.path.basename(path).startswith(LIB_PREFIXES) and path not in found:
                    found.append(path)
    except OSError:
        pass
    return found


def cudnn_text(number):
    """CUDNN_VERSION integer -> '9.13.0' (9.x: major*10000; <= 8: major*1000)."""
    if not number:
        return None
    number = int(number)
    if number >= 10000:
        return f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    return f"{number // 1000}.{number // 100 % 10}.{number % 100}"


def run_ops(result, count, op):
    results = []
    for index in range(count):
        try:
            value = op(index)
            results.append("ok" if abs(value - 8.0) < 1e-6 else f"wrong result {value!r} (expected 8.0)")
        except Exception as exc:  # noqa: BLE001 - every failure is the answer
            results.append(text_of(exc))
    result["op_results"] = results


def deep_torch(result):
    import torch

    result["imported"] = True
    emit(result, "imported")
    result["is_available"] = bool(torch.cuda.is_available())
    result["device_count"] = int(torch.cuda.device_count())
    if not result["is_available"]:
        try:
            torch.cuda.init()
        except Exception as exc:  # noqa: BLE001
            result["error"] = text_of(exc)
    try:
        result["arch_list"] = list(torch.cuda.get_arch_list())
    except Exception as exc:  # noqa: BLE001
        result.setdefault("error", text_of(exc))
    try:
        result["cudnn_runtime"] = cudnn_text(torch.backends.cudnn.version())
    except Exception:  # noqa: BLE001 - a missing cuDNN shows in loaded_libraries
        pass
    emit(result, "cuda-init")
    if result["is_available"]:
        result["devices"] = [torch.cuda.get_device_name(i) for i in range(result["device_count"])]

        def op(i):
            x = torch.ones(4, device=f"cuda:{i}") * 2
            torch.cuda.synchronize(i)
            return float(x.sum().item())

        run_ops(result, result["device_count"], op)


def deep_tensorflow(result):
    import tensorflow as tf

    result["imported"] = True
    emit(result, "imported")
    gpus = tf.config.list_physical_devices("GPU")
    result["device_count"] = len(gpus)
    result["is_available"] = bool(gpus)
    info = tf.sysconfig.get_build_info()
    if info.get("cuda_compute_capabilities"):
        result["arch_list"] = list(info["cuda_compute_capabilities"])
    if not gpus:
        result["error"] = "TensorFlow lists no GPU device"
    emit(result, "cuda-init")
    names = []
    for gpu in gpus:
        try:
            names.append(tf.config.experimental.get_device_details(gpu).get("device_name", gpu.name))
        except Exception:  # noqa: BLE001
            names.append(gpu.name)
    result["devices"] = names

    def op(i):
        with tf.device(f"/GPU:{i}"):
            return float(tf.reduce_sum(tf.ones([4]) * 2).numpy())

    run_ops(result, len(gpus), op)


def deep_jax(result):
    import jax

    result["imported"] = True
    emit(result, "imported")
    try:
        gpus = jax.devices("gpu")
    except Exception as exc:  # noqa: BLE001 - "Unknown backend: 'gpu' requested..."
        gpus = []
        result["error"] = text_of(exc)
    result["device_count"] = len(gpus)
    result["is_available"] = bool(gpus)
    result["devices"] = [getattr(d, "device_kind", str(d)) for d in gpus]
    try:
        from jax._src.lib import cuda_versions  # internal; absent without the CUDA plugin

        result["cudnn_runtime"] = cudnn_text(cuda_versions.cudnn_get_version())
    except Exception:  # noqa: BLE001
        pass
    emit(result, "cuda-init")
    import jax.numpy as jnp

    run_ops(result, len(gpus), lambda i: float((jax.device_put(jnp.ones(4), gpus[i]) * 2).sum()))


def deep_cupy(result):
    import cupy

    result["imported"] = True
    emit(result, "imported")
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # noqa: BLE001
        count = 0
        result["error"] = text_of(exc)
    result["device_count"] = count
    result["is_available"] = count > 0
    names = []
    for i in range(count):
        name = cupy.cuda.runtime.getDeviceProperties(i).get("name", b"")
        names.append(name.decode() if isinstance(name, bytes) else str(name))
    result["devices"] = names
    try:
        from cupy_backends.cuda.libs import cudnn

        result["cudnn_runtime"] = cudnn_text(cudnn.getVersion())
    except Exception:  # noqa: BLE001
        pass
    emit(result, "cuda-init")

    def op(i):
        with cupy.cuda.Device(i):
            return float((cupy.ones(4) * 2).sum())

    run_ops(result, count, op)


PROBES = {"torch": deep_torch, "tensorflow": deep_tensorflow, "jax": deep_jax, "cupy": deep_cupy}


def main(name):
    result = {"framework": name, "imported": False}
    start = time.time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            PROBES[name](result)
        except Exception as exc:  # noqa: BLE001 - an import error is the answer
            result["error"] = text_of(exc)
    seen = []
    for w in caught:
        line = f"{w.category.__name__}: {str(w.message).strip()}"[:MAX_TEXT]
        if line not in seen:
            seen.append(line)
    result["warnings"] = seen[:20]
    result["loaded_libraries"] = loaded_libraries()
    result["duration_s"] = round(time.time() - start, 3)
    emit(result, "done")


if __name__ == "__main__":
    main(sys.argv[1])
