"""One real message per catalogue entry, as the tools print them, for the explain tests."""

# One real message per catalogue entry (as the tools print them) -> the entry it must match.
MESSAGES = {
    "blender-cycles-no-kernel-for-gpu": "CUDA binary kernel for this graphics card compute capability (8.6) not found.",
    "blender-cycles-gpu-too-old": "CUDA backend requires compute capability 5.0 or up, but found 3.5. Your GPU is not "
                                  "supported.",
    "spconv-cpu-only-build": "RuntimeError: /io/build/temp.linux-x86_64-cpython-37/spconv/build/core_cc/src/csrc/sparse/all/"
                             "SpconvOps/SpconvOps_get_indice_pairs.cc(65) not implemented for CPU ONLY build.",
    "lightgbm-gpu-learner-not-built": "lightgbm.basic.LightGBMError: GPU Tree Learner was not enabled in this build.",
    "ctranslate2-not-compiled-with-cuda": "ValueError: This CTranslate2 package was not compiled with CUDA support",
    "colmap-built-without-cuda": "ERROR: Dense stereo reconstruction requires CUDA, which is not available on your "
                                 "system.",
    "optix-unsupported-abi": "optixInit() failed: OPTIX_ERROR_UNSUPPORTED_ABI_VERSION (7801)",
    "omniverse-driver-unsupported": "[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is "
                                    "unsupported or has known issues.",
    "build-info-without-cuda": "--   USE_CUDA              : OFF",
    "detectron2-built-without-cuda": "RuntimeError: Detectron2 is not compiled with GPU support!",
    "cuda-extension-built-without-cuda": "RuntimeError: nms is not compiled with GPU support",
    "xla-ptxas-too-old": "W external/xla/xla/stream_executor/gpu/asm_compiler.cc:111] *** WARNING *** You are using "
                         "ptxas 11.0.194, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code",
    "gpu-not-supported-by-driver-release": "NVRM: installed in this system is not supported by the",
    "nvidia-probe-failed": "NVRM: The NVIDIA probe routine failed for 2 device(s).",
    "gpu-lost-after-install-statement": "My model was running fine on GPU, but after installing this package as "
                                        "mentioned in the README, now my model started running on CPU only.",
    "torch-placeholder-sdist": "  Downloading torch-0.1.2.post2.tar.gz (128 kB)",
    "nvidia-video-libraries-missing": "[h264_cuvid @ 0x55d0] Cannot load libnvcuvid.so.1",
    "docker-desktop-linux-no-gpu": "I installed nvidia-container-toolkit on Ubuntu 22 with the latest Docker-Desktop for "
                                   "Ubuntu, but it did not work.",
    "cudnn-dll-crash-windows": "Faulting module name: cudnn_cnn_infer64_8.dll, version: 6.14.11.11080",
    "gpu-support-dropped-statement": "Reintroduce support for Compute Capability 5.0",
    "gpu-support-missing-statement": "Add support for GPUs with cuda compute capability 5.0",
    "container-toolkit-missing-statement": "I checked and I was missing the nvidia-container-toolkit.",
    "driver-not-loading-statement": "Fedora 31 - nvidia driver not loading - kernel 5.3.12",
    "ptx-jit-hang": "index_cpu_to_gpu() hangs, spinning a CPU at 100% seemingly forever, mostly in "
                    "`libnvidia-ptxjitcompiler.so.510.54`.",
    "paddle-no-gpu-detected": "E1210 12:48:08.426810  4204 pybind.cc:1261] Cannot use GPU because there is no GPU "
                              "detected on your machine.",
    "ngc-container-driver-floor": "ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but",
    "tei-compute-cap-mismatch": "Could not start backend: Runtime compute cap 75 is not compatible with compile "
                                "time compute cap 80",
    "physx-cuda-driver-too-old": "CudaContextManager.cpp (635) : warning : CUDA driver version is 11020, expected at "
                                 "least 11040.",
    "physx-min-compute-capability": "[Render thread/ERROR]: eDEBUG_WARNING: Minimum GPU compute capability 6.0 is "
                                    "required",
    "vllm-no-platform": "RuntimeError: Failed to infer device type, please set the environment variable "
                        "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.",
    "vllm-attention-backend-capability": "ValueError: No valid attention backend found for cuda with head_size: 256, "
                                         "dtype: torch.float16, kv_cache_dtype: auto, block_size: 16. Reasons: "
                                         "{FLASH_ATTN: [compute capability not supported]}.",
    "sglang-min-capability": "RuntimeError: SGLang only supports sm75 and above.",
    "bnb-missing-dependency": "\U0001f6a8 CUDA SETUP ERROR: Missing dependency: libcusparse.so.12 \U0001f6a8",
    "triton-no-active-driver": "RuntimeError: 0 active drivers ([]). There should only be one.",
    "deepspeed-jit-no-cuda-devices": "DeepSpeed JIT builder for 'fused_adam' found no CUDA devices. Set "
                                     "TORCH_CUDA_ARCH_LIST or make GPUs visible.",
    "deepspeed-op-needs-newer-gpu": "Unable to JIT load the fp_quantizer op due to it not being compatible due to "
                                    "hardware/software issue. FP Quantizer requires compute capability >= 8.0",
    "vllm-quantization-min-capability": "ValueError: The quantization method fp8 is not supported for the current GPU. "
                                        "Minimum capability: 89. Current capability: 86.",
    "bnb-no-library-for-cuda": "\U0001f6a8 CUDA VERSION MISMATCH \U0001f6a8",
    "bnb-cpu-only-library": "RuntimeError: Method 'cdequantize_blockwise_fp32' not available in CPU-only version of "
                            "bitsandbytes.",
    "deepspeed-ops-cuda-mismatch": "CUDA version mismatch! DeepSpeed ops were compiled and installed with a different "
                                   "version than what is being used at runtime.",
    "ollama-gpu-too-old": 'level=INFO source=gpu.go:303 msg="[0] CUDA GPU is too old. Compute Capability detected: 3.5"',
    "ollama-driver-library-mismatch": "level=WARN source=gpu.go:598 msg=\"version mismatch between driver and cuda "
                                      "driver library - reboot or upgrade may be required: library "
                                      "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07\"",
    "ollama-driver-too-old": 'level=WARN source=cuda_common.go:65 msg="old CUDA driver detected - please upgrade to a '
                             'newer driver" version=11.4',
    "ollama-arch-not-compiled": 'level=INFO msg="skipping CUDA device \u2014 compute capability not in compiled '
                                'architectures" cc=61 archs="75,80,86,89,90,120"',
    "ollama-incompatible-library-on-path": 'level=WARN source=runner.go:739 msg="potentially incompatible library '
                                           'detected in PATH" location=C:\\llama.cpp\\ggml-base.dll',
    "cuda-operating-system-error": "ggml_cuda_init: failed to initialize CUDA: OS call failed or operation not "
                                   "supported on this OS",
    "ollama-no-compatible-gpu": 'level=INFO source=gpu.go:377 msg="no compatible GPUs were discovered"',
    "xid-hardware-fault": "kernel: NVRM: Xid (PCI:0000:01:00): 62, pid=24349, 0000(0000) 00000000 00000000",
    "nvml-driver-not-loaded": "ERROR: NVIDIA driver is not loaded",
    "nvhpc-rebuild-for-gpu": "Rebuild the application with -gpu=cc86 to use NVIDIA Tesla GPU 0",
    "conda-python-unsatisfiable": "to be incompatible with the existing python installation in your environment:",
    "cudnn-sublibrary-mismatch": "RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
    "tensorrt-unsupported-sm": "[01/04/2023-17:36:59] [F] [TRT] Assertion failed: Unsupported SM: 0x809",
    "ggml-no-device-code": "ggml-cuda.cu:3211: ERROR: CUDA kernel vec_dot_q5_K_q8_1_impl_vmmq has no device code "
                           "compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
    "cudart-symbol-missing-at-link": "libtorch_cuda.so: undefined reference to `cudaLaunchKernelExC@libcudart.so.11.0'",
    "paddle-trt-no-fast-fp16": "I0623 15:40:04.192951 25583 engine.cc:80] You specify FP16 mode, but the hardware do "
                               "not support FP16 speed up, use FP32 instead.",
    "sm-not-compatible": "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
                         "PyTorch installation.",
    "gpu-too-old-for-pytorch": "Found GPU0 GeForce GT 720 which is of cuda capability 3.5.",
    "gpu-cc-outside-pytorch-build": "UserWarning: Found GPU0 NVIDIA GeForce RTX 5090 which is of compute capability "
                                    "(CC) 12.0.",
    "tf-ignoring-gpu": "Ignoring visible gpu device (device: 0, name: Quadro K4200, pci bus id: 0000:03:00.0, compute "
                       "capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
    "code-needs-newer-arch": '/usr/local/cuda/targets/x86_64-linux/include/cuda/std/barrier(15): catastrophic error: '
                             '#error directive: "CUDA synchronization primitives are only supported for sm_70 and up."',
    "vllm-min-capability": "RuntimeError: GPUs with compute capability below 7.0 are not supported.",
    "no-kernel-image": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "tf-no-kernel-binaries": "TensorFlow was not built with CUDA kernel binaries compatible with compute capability "
                             "12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
    "cuda-system-not-ready": "failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized",
    "nvidia-device-nodes-missing": 'docker: Error response from daemon: error gathering device information while adding '
                                   'custom device "/dev/nvidia-uvm": no such file or directory.',
    "nvidia-docker1-driver-older-than-image": "nvidia-docker | 2016/09/23 23:21:01 Error: unsupported CUDA version: "
                                              "driver 7.0 < image 8.0.61",
    "opencv-dnn-no-cuda-backend": "[ WARN:0@2.5] global net_impl.cpp:174 setUpNet DNN module was not built with CUDA "
                                  "backend; switching to CPU",
    "jax-python-version-guard": "ERROR: JAX requires Python 3.9 or newer, found  (3, 8)",
    "gpu-fails-behind-riser": "It works in the motherboard slot, but the GPU is not detected when using the riser.",
    "xla-cudart-stub-symbol-missing": "INTERNAL: CustomCall failed: jaxlib/gpu/prng_kernels.cc:33: operation "
                                      "gpuGetLastError() failed: cudaGetErrorString symbol not found.",
    "jax-cuda-lib-outdated": "RuntimeError: Outdated cuBLAS installation found.",
    "jax-unknown-backend-gpu": "RuntimeError: Unknown backend gpu",
    "mxnet-not-compiled-with-cuda": "mxnet.base.MXNetError: [16:53:11] src/storage/storage.cc:43: Please compile with "
                                    "CUDA enabled",
    "nvidia-smi-no-nvml-library": "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure "
                                  "that the NVIDIA Display Driver is properly installed and present in your system.",
    "xformers-bf16-needs-ampere": "    bf16 is only supported on A100+ GPUs",
    "dtype-not-supported-on-device": "2024-04-06 01:12:36,466 - lmdeploy - ERROR - AssertionError: bf16 is not supported "
                                     "on your device",
    "ctranslate2-compute-type-unsupported": "ValueError: Requested float16 compute type, but the target device or "
                                            "backend do not support efficient float16 computation.",
    "tensor-cores-capability-required": "Turing Tensor Core operations must be run on a machine with compute "
                                        "capability at least 75",
    "transformers-tf32-unsupported": "ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7",
    "alicevision-gpu-not-enough": "[02:06:25.958896][error] CUDA-Enabled GPU detected, but the compute capabilities is "
                                  "not enough.",
    "cudnn-zlib-missing": "Could not locate zlibwapi.dll. Please make sure it is in your library path!",
    "invalid-kernel-image": "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit "
                            "initialization on GPU:0 failed. Status: device kernel image is invalid",
    "ptx-jit-failed": "Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:238): a PTX JIT compilation "
                      "failed",
    "call-requires-newer-driver": "RuntimeError: CUDA error: API call is not supported in the installed CUDA driver",
    "error-contained": "torch.AcceleratorError: CUDA error: Invalid access of peer GPU memory over nvlink or a "
                       "hardware error",
    "cuda-system-driver-mismatch": "failed call to cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
    "nvcc-unsupported-arch": "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
    "kokkos-arch-mismatch": "Kokkos::Cuda::initialize ERROR: running kernels compiled for compute capability 8.0 on "
                            "device with compute capability 7.0 is not supported by CUDA!",
    "driver-too-old-torch": "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
    "driver-insufficient": "CUDA driver version is insufficient for CUDA runtime version",
    "nvenc-api-newer-than-driver": "[hevc_nvenc @ 0x55defbb87c00] Driver does not support the required nvenc API "
                                   "version. Required: 13.0 Found: 12.2",
    "ptx-unsupported": "CUDA error: the provided PTX was compiled with an unsupported toolchain.",
    "no-driver-torch": "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
    "nvidia-smi-no-driver": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    "nvml-mismatch": "Failed to initialize NVML: Driver/library version mismatch",
    "a1111-torch-cuda-test-failed": "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to "
                                    "COMMANDLINE_ARGS variable to disable this check",
    "libcuda-missing": "OSError: libcuda.so: cannot open shared object file: No such file or directory",
    "cuda-unknown-error": "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly "
                          "set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.",
    "nvml-unknown-error-container": "Failed to initialize NVML: Unknown Error",
    "container-cli-driver-not-loaded": "stderr: nvidia-container-cli: initialization error: nvml error: driver not "
                                       "loaded: unknown",
    "container-no-gpu-runtime": 'docker: Error response from daemon: could not select device driver "" with '
                                'capabilities: [[gpu]].',
    "slurm-invalid-gres": "srun: error: Unable to create step for job 53054263: Invalid generic resource (gres) "
                          "specification",
    "no-cuda-device": "RuntimeError: No CUDA GPUs are available",
    "invalid-device-ordinal": "RuntimeError: CUDA error: invalid device ordinal",
    "devices-busy": "CUDA error: all CUDA-capable devices are busy or unavailable",
    "nvrm-rminitadapter-failed": "[    8.600582] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x25:0x65:1468)",
    "gpu-fallen-off-bus": "NVRM: Xid (PCI:0000:41:00): 79, pid=0, GPU has fallen off the bus.",
    "machine-crashes-under-gpu-load": "It runs for a few iterations until it crashes and reboots the server.",
    "ecc-uncorrectable": "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    "cudnn-version-mismatch-tf": "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.",
    "cudnn-version-mismatch-jax": "Found cuDNN version 8600, but JAX was built against version 8906, which is newer.",
    "cudnn-sublibrary-wrong-dependency": "Could not load library libcudnn_cnn_infer.so.8. Error: "
                                         "/opt/cuda/8.0/lib64/libnvrtc.so: undefined symbol: nvrtcGetCUBIN",
    "nvcuda-dll-missing": "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
                          "library 'nvcuda.dll'; dlerror: nvcuda.dll not found",
    "windows-dll-procedure-not-found": "OSError: [WinError 127] The specified procedure could not be found. Error "
                                       "loading \"C:\\venv\\Lib\\site-packages\\torch\\lib\\cudnn_adv64_9.dll\" or one of "
                                       "its dependencies.",
    "cudnn-not-found": "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
                       "object file",
    "cudnn-not-initialized": "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
    "cuda-libs-missing": "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. "
                         "Please make sure the missing libraries mentioned above are installed properly",
    "nvjitlink-symbol": "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12",
    "cuda-lib-symbol-version-not-found": "OSError: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: version "
                                         "`libcudnn_ops_infer.so.8' not found (required by /venv/lib/python3.10/"
                                         "site-packages/torch/lib/libtorch_cuda.so)",
    "cuda-lib-versioned-symbol-missing": "libcublas.so.12: undefined symbol: cublasLtGetStatusString, version "
                                         "libcublasLt.so.12",
    "torch-nccl-symbol-missing": "ImportError: /venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: "
                                 "undefined symbol: ncclCommRegister",
    "glibcxx-version": "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found",
    "undefined-symbol": "ImportError: apex/fused_layer_norm_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
                        "_ZN3c104cuda9SetDeviceEi",
    "torch-extension-cuda-mismatch": "The detected CUDA version (12.1) mismatches the version that was used to "
                                     "compile PyTorch (11.8).",
    "deepspeed-cuda-mismatch": "Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, "
                               "unable to compile cuda/cpp extensions",
    "cuda-home-missing": "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
    "torch-not-compiled-with-cuda": "AssertionError: Torch not compiled with CUDA enabled",
    "assert-torch-cuda-available-failed": '    assert torch.cuda.is_available(), "CPU training is not allowed."\n'
                                          "AssertionError: CPU training is not allowed",
    "jax-cpu-fallback": "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed.",
    "cuda-not-available": "torch.cuda.is_available() returns False",
    "bnb-no-binary-for-torch-cuda": "Could not find the bitsandbytes CUDA binary at PosixPath('/usr/local/lib/python3.10/"
                                    "dist-packages/bitsandbytes/libbitsandbytes_cuda124.so')",
    "jax-no-supported-devices": "CUDA backend failed to initialize: INTERNAL: no supported devices found for platform CUDA.",
    "xla-diagnostics-no-driver": "I tensorflow/compiler/xla/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does "
                                 "not appear to be running on this host (46149c4e2299): /proc/driver/nvidia/version does "
                                 "not exist",
    "cublas-arch-mismatch": "RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasGemmEx( handle, opa, "
                            "opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, CUDA_R_16BF, ldc, "
                            "CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
    "torch-extension-unknown-arch": "ValueError: Unknown CUDA arch (8.9) or GPU not supported",
    "xla-unknown-compute-capability": "Unknown compute capability 10.3. Defaulting to telling LLVM that we're compiling for "
                                      "sm_101",
    "numba-compute-capability-unsupported": "numba.cuda.cudadrv.error.CCSupportError: GPU compute capability 3.7 is not "
                                            "supported(requires >=5.0)",
    "xformers-op-gpu-too-old": "`flshattF@v2.3.6` is not supported because: requires device with capability >= (8, 0) but "
                               "your GPU has capability (7, 5) (too old)",
    "ngc-gpu-not-yet-supported": "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this "
                                 "version of the container",
    "llama-cpp-no-gpu-offload": "warning: not compiled with GPU offload support, --n-gpu-layers option will be ignored",
    "torch-no-flash-attention-compiled": "UserWarning: 1Torch was not compiled with flash attention. (Triggered internally "
                                         "at ..\\aten\\src\\ATen\\native\\transformers\\cuda\\sdp_utils.cpp:455.)",
    "gpu-no-fp16-statement-of-program": "terminate called after throwing an instance of 'lczero::Exception'\n  what():  "
                                        "Your GPU doesn't support FP16",
    "vllm-no-platform-detected": "INFO 05-20 20:12:25 [__init__.py:252] No platform detected, vLLM is running on "
                                 "UnspecifiedPlatform",
    "torch-compile-python-unsupported": "RuntimeError: Python 3.12+ not yet supported for torch.compile",
    "torch-sdpa-arch-range": "UserWarning: Flash attention only supports gpu architectures in the range [sm80, sm90]. "
                             "Attempting to run on a sm 7.5 gpu.",
    "tensorrt-engine-other-gpu": "[07/25/2024-08:30:40] [TRT] [E] 6: The engine plan file is generated on an incompatible "
                                 "device, expecting compute 6.1 got compute 8.6, please rebuild.",
    "onnxruntime-tensorrt-provider-not-loaded": "[E:onnxruntime:Default, provider_bridge_ort.cc:1480 "
                                                "TryGetProviderInfo_TensorRT] Failed to load library "
                                                "libonnxruntime_providers_tensorrt.so with error: libnvinfer.so.10: cannot "
                                                "open shared object file: No such file or directory",
    "tensorrt-engine-version-mismatch": "ERROR: 6: The engine plan file is not compatible with this version of "
                                        "TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.",
    "no-matching-distribution": "ERROR: No matching distribution found for torch==1.13.1",
    "bf16-unsupported": "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
                        "has compute capability 7.5.",
    "fp8-unsupported": "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
    "cuda-oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "illegal-memory-access": "RuntimeError: CUDA error: an illegal memory access was encountered",
    "device-side-assert": "RuntimeError: CUDA error: device-side assert triggered",
    "tensors-different-devices": "RuntimeError: Expected all tensors to be on the same device, but found at least "
                                 "two devices, cuda:0 and cpu!",
    "launch-timeout": "CUDA error: the launch timed out and was terminated",
    "cublas-status": "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm(...)`",
    "shm-too-small": "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Bus error. It is possible that "
                     "dataloader's workers are out of shared memory.",
    "nccl-timeout": "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "nccl-system-error": "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled "
                         "system error, NCCL version 2.19.3",
    "gpu-utilization-low": "GPU utilization is very low during training",
    # Added with the catalogue's second round: messages as the frameworks print them (prefixes, paths, numbers).
    "cudf-pascal-required": "UserWarning: You will need a GPU with NVIDIA Pascal\u2122 or newer architecture",
    "rapids-missing-ptx": "RuntimeError: This cuDF installation is missing the necessary PTX files that are <=50.",
    "triton-gpu-too-old": "RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU "
                          "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0",
    "invalid-device-function": "RuntimeError: CUDA error: invalid device function",
    "cudnn-arch-mismatch": "RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH",
    "nvrtc-arch-unknown": "cupy.cuda.compiler.CompileException: nvrtc: error: invalid value for --gpu-architecture "
                          "(-arch)",
    "ptxas-unknown-arch": "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'",
    "container-cuda-requirement": "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please "
                                  "update your driver to a newer version, or use an earlier cuda container: unknown.",
    "xla-driver-older-than-ptxas": "2024-05-28 04:48:02.870689: W external/xla/xla/service/gpu/nvptx_compiler.cc:760] "
                                   "The NVIDIA driver's CUDA version is 12.4 which is older than the ptxas CUDA version "
                                   "(12.5.40). Because the driver is older than the ptxas version, XLA is disabling "
                                   "parallel compilation, which may slow down compilation.",
    "ptx-version-unsupported": "ptxas application ptx input, line 9; fatal   : Unsupported .version 8.1; current version "
                               "is '8.0'",
    "numba-linker-error": "numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in "
                          "UNKNOWN_CUDA_ERROR",
    "compat-not-supported-on-device": "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
                                      "compatibility was attempted on non supported HW",
    "cuda-stub-library": "RuntimeError: CUDA error: CUDA driver is a stub library",
    "jit-compiler-not-found": "CUDA_ERROR_JIT_COMPILER_NOT_FOUND: PTX JIT compiler library not found",
    "cuda-initialization-error": "RuntimeError: CUDA error: initialization error",
    "cuda-forked-subprocess": "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                              "multiprocessing, you must use the 'spawn' start method",
    "nvrm-api-mismatch": "Aug 26 14:08:07 host kernel: NVRM: API mismatch: the client has the version 367.44, but",
    "nvml-function-not-found": "Failed to initialize NVML: Function Not Found",
    "tf-kernel-dso-mismatch": "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:303] kernel version 384.111.0 does "
                              "not match DSO version 384.130.0 -- cannot find working devices in this configuration",
    "secure-boot-key-rejected": "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    "kernel-module-missing": "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-40-generic",
    "nvidia-probe-not-called": "[    3.541230] NVRM: The NVIDIA probe routine was not called for 1 device(s).",
    "gpu-needs-legacy-driver": "NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please",
    "tf-cudart-stub": "2024-02-15 17:38:56.694239: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers "
                      "on your machine, GPU will not be used.",
    "nvml-gpu-access-blocked": "Failed to initialize NVML: GPU access blocked by the operating system",
    "gpu-in-tcc-mode": "|   0  NVIDIA L40S                  TCC   |   00000000:61:00.0 Off |                    0 |",
    "wsl-linux-driver-installed": "I installed the NVIDIA driver in WSL too, and now nvidia-smi fails there.",
    "wsl-libcuda-not-symlink": "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link",
    "wsl-libcuda-readlink": "OSError: [Errno 22] Invalid argument: '/usr/lib/wsl/lib/libcuda.so.1'",
    "containerd-no-nvidia-runtime": 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox '
                                    'runtime: no runtime for "nvidia" is configured',
    "wsl-dxcore-init-failed": "WSL2 error: dxcore initialization failed, continuing assuming a non-WSL environment",
    "jetson-container-empty-library": "./imagenet: error while loading shared libraries: "
                                      "/usr/lib/aarch64-linux-gnu/libnvinfer.so.8: file too short",
    "docker-unknown-runtime": "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
    "cdi-unresolvable": "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
    "singularity-nv-after-image": "/.singularity.d/actions/exec: 9: exec: --nv: not found",
    "container-driver-libs-in-image": "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
                                      "x/merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown",
    "wsl-container-driver-error": "nvidia-container-cli: driver error: failed to process request: unknown.",
    "k8s-nvml-not-loaded": "Failed to start nvml with error:  could not load NVML library",
    "k8s-insufficient-gpu": "Warning  FailedScheduling  0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
    "cuda-not-supported": "RuntimeError: CUDA error encountered at: /workspace/cpp/src/bitmask/null_mask.cu:93: 801 "
                          "cudaErrorNotSupported operation not supported.",
    "peer-access-unsupported": "RuntimeError: CUDA error: peer access is not supported between these two devices",
    "xid-application-error": "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, Graphics Exception: ESR 0x405840=0x0",
    "xid-gsp-timeout": "NVRM: Xid (PCI:0000:c1:00): 119, pid=1582, name=nvidia-smi, Timeout waiting for RPC from GSP!",
    "nvlink-uncorrectable": "RuntimeError: CUDA error: uncorrectable NVLink error was detected during the execution",
    "torch-cudnn-incompatible": "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) "
                                "but found runtime version (8, 3, 3).",
    "cudnn-not-supported": "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed "
                           "in a non-contiguous input.",
    "cudnn-execution-failed": "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
    "cudnn-status-other": "RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR",
    "tf-conv-algorithm-failed": "tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution "
                                "algorithm. This is probably because cuDNN failed to initialize",
    "tf-factory-already-registered": "E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:9342] Unable to "
                                     "register cuDNN factory: Attempting to register factory for plugin cuDNN when "
                                     "one has already been registered",
    "tf-tensorrt-missing": "2024-05-10 11:33:15.185131: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT "
                           "Warning: Could not find TensorRT",
    "tf-cpu-feature-guard": "I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized "
                            "to use available CPU instructions in performance-critical operations.",
    "tf-numa-node": "I tensorflow/compiler/xla/stream_executor/cuda/cuda_gpu_executor.cc:894] successful NUMA node read "
                    "from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA "
                    "node zero",
    "tf-dso-cuda-lib": "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
                       "'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    "xla-libdevice-missing": "W external/xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:102] Can't find "
                             "libdevice directory ${CUDA_DIR}/nvvm/libdevice.",
    "jax-cuda-lib-missing": "RuntimeError: Unable to load cuSPARSE. Is it installed?",
    "nvrtc-missing": "OSError: libnvrtc.so.12: cannot open shared object file: No such file or directory",
    "ctranslate2-cuda-lib": "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded",
    "r-torch-cuda-unsupported": "Cuda 11.0 detected but torch only supports: cpu, 10.1, 10.2, 9.2",
    "paddle-cuda-lib-not-loaded": "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cublas64_11.dll) "
                                  "that Paddle depends on is not configured correctly. (error code is 126)",
    "onnxruntime-cuda-provider-dll-not-found": "[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" "
                                               "when trying to load \"C:\\Python310\\lib\\site-packages\\onnxruntime"
                                               "\\capi\\onnxruntime_providers_cuda.dll\"",
    "onnxruntime-cuda-provider-failed": "[E:onnxruntime:Default, provider_bridge_ort.cc:1744 TryGetProviderInfo_CUDA] "
                                        "Failed to load library libonnxruntime_providers_cuda.so with error: "
                                        "libcudnn.so.9: cannot open",
    "onnxruntime-cpu-package": "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider "
                               "names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
    "numba-no-libcuda": "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: CUDA driver library cannot "
                        "be found.",
    "numba-nvvm-missing": "numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install "
                          "cudatoolkit`:",
    "cupy-not-correctly-installed": "ImportError: CuPy is not correctly installed.",
    "bnb-cuda-setup-failed": "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following "
                             "command to get more information: python -m bitsandbytes",
    "bnb-no-gpu-support": "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
                          "optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
    "dgl-cuda-device-api-missing": "dgl._ffi.base.DGLError: [14:00:04] /opt/dgl/src/runtime/c_runtime_api.cc:82: "
                                   "Check failed: allow_missing: Device API cuda is not enabled. Please install the "
                                   "cuda version of dgl.",
    "flash-attn-undefined-symbol": "`flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined",
    "xformers-built-for-cpu-torch": "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)",
    "horovod-framework-version-mismatch": "horovod.common.exceptions.HorovodVersionMismatchError: Framework "
                                          "tensorflow installed with version 2.3.0 but found version 2.4.1.",
    "xformers-built-for": "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
    "windows-entry-point-not-found": "The procedure entry point ?dtype@TensorOptions@c10 could not be located in the "
                                     "dynamic link library xformers\\_C.pyd",
    "windows-dll-load-failed": 'OSError: [WinError 126] The specified module could not be found. Error loading '
                               '"C:\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
    "torchvision-cuda-mismatch": "RuntimeError: operator torchvision::nms does not exist",
    "jaxlib-too-old": "RuntimeError: jaxlib is version 0.4.7, but this version of jax requires version >= 0.4.14.",
    "jax-plugin-version-mismatch": "/usr/local/lib/python3.12/dist-packages/jaxlib/plugin_support.py:71: RuntimeWarning: "
                                   "JAX plugin jax_cuda12_plugin version 0.7.2 is installed, but it is not compatible "
                                   "with the installed jaxlib version 0.7.1, so it will not be used.",
    "jax-plugin-init-error": "Jax plugin configuration error: Exception when calling "
                             "jax_plugins.xla_cuda12.initialize()",
    "apex-cuda-mismatch": "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match "
                          "the version used to compile Pytorch binaries.",
    "deepspeed-no-cuda-home": "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable "
                              "to compile CUDA op(s)",
    "deepspeed-async-io-warning": " [WARNING]  async_io requires the dev libaio .so object and headers but these were "
                                  "not found.",
    "nvcc-unsupported-host-compiler": "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU "
                                      "version! gcc versions later than 11 are not supported!",
    "paddle-not-compiled-with-cuda": "ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled "
                                     "with CUDA",
    "jax-backend-cuda-failed": "I0808 20:59:00.842178 139857030612800 xla_bridge.py:328] Unable to initialize backend "
                               "'cuda': INTERNAL: an unexpected error while creating the client",
    "jax-other-backend-info": "I0808 20:59:00.964296 139857030612800 xla_bridge.py:328] Unable to initialize backend "
                              "'tpu': module 'jaxlib.xla_extension' has no attribute 'get_tpu_client'",
    "jax-no-gpu-fallback": "2022-11-30 12:50:08,211 - jax._src.lib.xla_bridge - WARNING - No GPU/TPU found, falling "
                           "back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    "gpu-not-detected-statement": "when the pod starts, it is not able to find the GPUs",
    "torch-autocast-cuda-unavailable": "/usr/local/lib/python3.10/site-packages/torch/amp/autocast_mode.py:250: UserWarning: "
                                       "User provided device_type of 'cuda', but CUDA is not available. Disabling",
    "jaxlib-cuda-wheel-missing": "ERROR: No matching distribution found for jaxlib==0.4.9+cuda12.cudnn88",
    "pip-requires-python": "ERROR: Package 'torch' requires a different Python: 3.8.10 not in '>=3.9.0'",
    "flash-attn-ampere-required": "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    "miner-not-compiled-for-arch": "WARNING: NVIDIA GPU 0: miner not compiled for the gpu architecture 21.",
    "cmake-cuda-too-old": '-- Could NOT find CUDA: Found unsuitable version "6.5", but required is at least "7.5" '
                          '(found /usr/local/cuda-6.5)',
    "xla-device-count-not-initialized": "E tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:1278] could not "
                                        "retrieve CUDA device count: CUDA_ERROR_NOT_INITIALIZED: initialization error",
    "opencv-built-without-cuda": "cv2.error: OpenCV(4.4.0) C:\\opencv\\modules\\core\\include\\opencv2/core/private.cuda.hpp"
                                 ":106: error: (-216:No CUDA support) The library is compiled without CUDA support in "
                                 "function 'throw_no_cuda'",
    "opencv-cuda-device-count-zero": "int count = Cv2Gpu.GetCudaEnabledDeviceCount(); it always returns 0.",
    "opencv-not-built-for-device": "cv2.error: OpenCV(4.5.3) /tmp/opencv/modules/dnn/src/dnn.cpp:2385: error: (-216:No "
                                   "CUDA support) OpenCV was not built to work with the selected device. Please check "
                                   "CUDA_ARCH_PTX or CUDA_ARCH_BIN in your build configuration. in function "
                                   "'initCUDABackend'",
    "torch-extension-build-no-cuda-runtime": "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
    "paddle-arch-mismatch": "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61 70 75 "
                            "80 86 ,but your current GPU is 120 Solution: Install the correct wheel package",
    "xla-ptxas-too-old-for-gpu": "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0",
    "numba-python-version-guard": "RuntimeError: Cannot install on Python version 3.12.0; only versions >=3.8,<3.12 are "
                                  "supported.",
    "triton-fp8-arch-below-89": "AssertionError: fp8e4nv data type is not supported on CUDA arch < 89",
    "transformers-bf16-unsupported": "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using "
                                     "Ampere GPU with cuda>=11.0",
    "ptxas-dtype-needs-newer-arch": "ptxas /tmp/compile-ptx-src-ac38de, line 521; error   : Feature 'cvt.bf16.f32' requires "
                                    ".target sm_80 or higher",
    "torch-half-op-on-cpu": "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
    "triton-cannot-select": "LLVM ERROR: Cannot select: 0x55d5c8a8e1d0: bf16 = fp_round 0x55d5c8a8e0a0",
    "whisper-fp16-on-cpu": "UserWarning: FP16 is not supported on CPU; using FP32 instead",
    "cuda-error-oom": "RuntimeError: CUDA error: out of memory",
    "cupy-oom": "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes (allocated so far: "
                "536,870,912 bytes).",
    "nccl-cuda-oom": "node1:1234:1290 [0] include/alloc.h:103 NCCL WARN Cuda failure 2 'out of memory'",
    "cublas-handle-failed": "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
                            "`cublasCreate(handle)`",
    "unspecified-launch-failure": "RuntimeError: CUDA error: unspecified launch failure",
    "illegal-instruction": "RuntimeError: CUDA error: an illegal instruction was encountered",
    "launch-out-of-resources": "RuntimeError: CUDA error: too many resources requested for launch",
    "cuda-invalid-argument": "RuntimeError: CUDA error: invalid configuration argument",
    "stream-capture-unsupported": "RuntimeError: CUDA error: operation not permitted when stream is capturing",
    "vllm-kv-cache-memory": "ValueError: No available memory for the cache blocks. Try increasing "
                            "`gpu_memory_utilization` when initializing the engine.",
    "torch-deserialize-cuda": "RuntimeError: Attempting to deserialize object on a CUDA device but "
                              "torch.cuda.is_available() is False.",
    "nccl-duplicate-gpu": "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
    "nccl-invalid-usage": "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                          "NCCLUtils.hpp:219, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.14.3",
    "nccl-unhandled-cuda-error": "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                                 "ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for "
                                 "details), NCCL version 2.19.3",
    "nccl-internal-error": "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:825, internal error, "
                           "NCCL version 2.7.8",
    "nccl-remote-error": "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
                         "prematurely.",
    "nccl-ib-no-device": "3767c65d25c4:880:887 [0] NCCL INFO NET/IB : No device found.",
    "dist-backend-error": "torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving "
                          "ncclUniqueId from [0] via c10d key-value store",
    "torchvision-ops-not-loaded": "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and "
                                  "torchvision versions are incompatible, or if you had errors while compiling",
    "companion-cuda-differs": "RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA "
                              "versions. PyTorch has CUDA version 11.8 whereas TorchAudio has CUDA version 11.7.",
    "yolo-cuda-unavailable": "AssertionError: CUDA unavailable, invalid device 0 requested",
    "bnb-int8-matmul-unsupported": "Exception: Your GPU does not support Int8 Matmul!",
    "windows-paging-file-too-small": "OSError: [WinError 1455] The paging file is too small for this operation to "
                                     "complete.",
    "jax-cuda-lib-older-than-built": "CUDA backend failed to initialize: Found cuBLAS version 120103, but JAX was "
                                     "built against version 120205, which is newer.",
    "onnxruntime-provider-requires": "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 "
                                     "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. "
                                     "Require cuDNN 8.* and CUDA 12.*. Please install all dependencies",
    "paddle-cudnn-not-loaded": "Error: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion at "
                               "(/paddle/paddle/fluid/platform/dynload/cudnn.cc:63)",
    "lightning-gpus-requested-none-available": "pytorch_lightning.utilities.exceptions.MisconfigurationException: "
                                               "GPUs requested but none are available.",
    "cupy-several-packages": "  CuPy may not function correctly because multiple CuPy packages are installed",
    "fp8-scaled-mm-unsupported": "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute "
                                 "capability >= 9.0 or 8.9, or ROCm MI300+",
    "triton-fp8-type-unsupported": "ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 "
                                   "dtypes are ('fp8e4b15', 'fp8e5')\")",
    "rapids-needs-newer-gpu": "UserWarning: A GPU with NVIDIA Pascal™ (Compute Capability 6.0) or newer architecture is "
                              "required.",
    "numba-toolkit-unsupported": "UserWarning: CUDA Toolkit 10.1 is unsupported by Numba - 11.0 is the minimum "
                                 "required version.",
    "python-32-bit-on-windows": "Python 3.10.7 (tags/v3.10.7:6cc6b13, Sep  5 2022, 13:51:36) [MSC v.1933 32 bit "
                                "(Intel)]",
    "app-fp8-needs-newer-gpu": "ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX "
                               "4090). Your GPU's capability is 8.6. Please select a non-FP8 model.",
    "paddle-cudnn-version-differs": "WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN "
                                    "version in your machine is 7.3, which may cause serious incompatible bug.",
    "paddle-cudnn-header-library-unmatched": "Check failed: (cudnn_cuh_major < 4 && cudnn_dso_major < 4) || "
                                             "(cudnn_cuh_major == cudnn_dso_major) [cudnn init] libcudnn v7 "
                                             "with header v6 unmatched!",
    "paddle-gpu-arch-not-in-wheel": "W0312 10:01:02.123 gpu_resources.cc:96] The GPU architecture in your current "
                                    "machine is Maxwell, which is not compatible with Paddle installation with arch: "
                                    "60 61 70 75 80 86 , it is recommended to install the corresponding wheel package",
    "paddle-cuda-version-differs": "WARNING: device: 0. The installed Paddle is compiled with CUDA 10.2, but CUDA "
                                   "runtime version in your machine is 10.0, which may cause serious incompatible bug.",
    "uv-no-wheel-for-platform": "hint: torch==2.4.1 @ registry+https://pypi.org/simple can't be installed because "
                                "it doesn't have a source distribution or wheel for the current platform",
    "invokeai-device-type-cpu": ">> Using device_type cpu",
    "rvc-no-nvidia-gpu-found": "没有发现支持的N卡, 使用CPU进行推理",
    "nvidia-smi-not-found": "/aio/entrypoint.sh: line 52: nvidia-smi: command not found",
    "a1111-incompatible-python": "INCOMPATIBLE PYTHON VERSION",
    "torch-library-missing-for-extension": "OSError: libtorch_cuda_cpp.so: cannot open shared object file: No such "
                                           "file or directory",
    "pip-resolver-gpu-conflict": "torch 2.1.1 requires nvidia-cudnn-cu12==8.9.2.26; platform_system == \"Linux\" "
                                 "and platform_machine == \"x86_64\", but you have nvidia-cudnn-cu12 9.5.1.17 which "
                                 "is incompatible.",
    "library-not-compiled-with-cuda": "RuntimeError: MOPS was not compiled with CUDA support",
    "easyocr-defaulting-to-cpu": "Neither CUDA nor MPS are available - defaulting to CPU. Note: This module is much "
                                 "faster with a GPU.",
    "cpu-build-installed-statement": "It defaults to the [cpu] version even when having cuda installed.",
    "tensorrt-library-missing": "ImportError: libnvinfer.so.8: cannot open shared object file: No such file or directory",
    "tensorrt-half2-not-native": "[TensorRT] WARNING: Half2 support requested on hardware without native FP16 support, "
                                 "performance will be negatively affected.",
    "alicevision-needs-cuda-gpu": "[error] This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).",
    "cudnn-versioned-symbol-missing": "ImportError: .../jaxlib/xla_extension.so: symbol cudnnSetCTCLossDescriptorEx version "
                                      "libcudnn.so.7 not defined in file libcudnn.so.7 with link time reference",
    "optix-init-failed": "Uncaught exception: Optix call 'optixInit()' failed.",
    "xla-dnn-not-initialised": "jaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: DNN library is not found.",
    "ggml-no-arch-at-or-below-gpu": "/build/ollama/src/ollama/ml/backend/ggml/ggml/src/ggml-cuda/common.cuh:106: "
                                    "ggml was not compiled with any CUDA arch <= 610",
    "ggml-no-cuda-devices": "ggml_init_cublas: no CUDA devices found, CUDA will be disabled",
    "ctranslate2-compute-type-converted": "[ctranslate2] [thread 28968] [warning] The compute type inferred from the saved "
                                          "model is float16, but the target device or backend do not support efficient "
                                          "float16 computation.",
    "tensorrt-no-fast-int8": "[standardEngineBuilder.cpp::buildEngine::2072] Error Code 9: Internal Error (Networks with "
                             "QuantizeLayer/DequantizeLayer layers require hardware with Int8 support.)",
    "int8-mode-sm-floor": "[ERROR][BertEncoderTransformer] int8 mode only works with sm >= 75.",
    "gpu-overclocked-statement": "Overclock: 100% power, +125 MHz core, +600 memory",
    "gpu-overheating-statement": "hashcat quits after a few minutes because the GPU exceeds 90º C, even with fans at 100%.",
    "driver-api-symbol-missing": "ImportError: /usr/lib/python3/dist-packages/sgl_kernel/common_ops.abi3.so: undefined "
                                 "symbol: cuGreenCtxDestroy",
    "cuda-symbol-not-found": "RuntimeError: Error named symbol not found at line 233 in file /src/csrc/ops.cu",
    "one-gpu-of-several-fails-statement": "One GPU frequently shows CUDA Error: unspecified launch failure and then the "
                                          "miner restarts",
    "pip-old-release-no-file-here": "ERROR: Could not find a version that satisfies the requirement cumm<0.5.0,>=0.4.5 "
                                    "(from spconv) (from versions: 0.1.0, 0.5.0, 0.5.1, 0.6.0)",
    "cpu-and-gpu-builds-installed-statement": "I have installed both the CPU and GPU versions of onnxruntime.",
    "python-support-missing-statement": "I found that the gym only supports up to 3.8, while you're using Python 3.9 "
                                        "in Conda.",
    "linker-cuda-library-not-found": "/usr/bin/ld: cannot find -lcurand",
    "bnb-old-libcuda-not-found": "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If "
                                 "you are on a cluster, make sure you are on a CUDA machine!",
    "torch-nccl-not-built": "RuntimeError: Distributed package doesn't have NCCL built in",
    "nvenc-driver-minimum": "22:45:40.550: error:   The minimum required Nvidia driver for nvenc is 471.41 or newer",
    "cli-device-cuda-not-offered": "error: invalid value 'cuda' for '--device <DEVICE>'",
    # read from the libraries' own source (LLM stacks, data science, 3D and training libraries)
    "bnb-nearest-cuda-binary": "No prebuilt binary for CUDA 12.9, loading CUDA 12.8 instead. Set BNB_CUDA_VERSION to "
                               "override.",
    "bnb-slow-int8-below-turing": "WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is supported "
                                  "for your GPU!",
    "flash-attn3-fp8-needs-hopper": "RuntimeError: FlashAttention on Ampere/Ada cards only supports fp16 and bf16 "
                                    "data type",
    "flash-attn-cute-capability": "ValueError: Unsupported compute capability: 75. Supported: 8.x, 9.x, 10.x, 11.x, "
                                  "12.x",
    "flash-attn-nvcc-too-old": "RuntimeError: FlashAttention is only supported on CUDA 11.7 and above.  Note: make "
                               "sure nvcc has a supported version by running nvcc -V.",
    "mamba-cuda-kernels-missing": "RuntimeError: selective_scan_cuda is not installed. To use Mamba-1, reinstall with:",
    "tgi-flash-models-capability": "WARN text_generation_launcher: Could not import Flash Attention enabled models: "
                                   "GPU with CUDA capability 7 0 is not supported",
    "tgi-sharded-needs-flash": "NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
    "marlin-needs-ampere": "NotImplementedError: Using quantized Marlin models requires a GPU with CUDA capability "
                           "8.0 or later.",
    "tgi-quantize-on-cpu": "ValueError: quantization is not available on CPU",
    "exllamav2-flash-attn-unsupported-gpu": " ## Warning: Flash Attention is installed but unsupported GPUs were "
                                            "detected.",
    "unsloth-no-accelerator": "NotImplementedError: Unsloth cannot find any torch accelerator? You need a GPU.",
    "unsloth-cuda-not-linked": "Unsloth: CUDA is not linked properly.",
    "unsloth-vllm-other-cuda-major": "Unsloth: vLLM was built for CUDA 12 but this system has CUDA 13.0. Please "
                                     "reinstall vLLM with the correct CUDA version:",
    "bf16-downgraded-to-fp16": "Device does not support bfloat16. Will change to float16.",
    "accelerate-rtx40-p2p-driver": "NotImplementedError: Using RTX 4000 series doesn't support faster communication "
                                   "broadband via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"`",
    "quantization-needs-gpu": "RuntimeError: No GPU found. A GPU is needed for quantization.",
    "autogptq-cuda-extension-missing": "CUDA extension not installed.",
    "autoawq-kernels-missing": "ModuleNotFoundError: External AWQ kernels are not properly installed.No module named "
                               "'awq_ext'",
    "mlc-device-not-found": "ValueError: Device is not found on your local environment: cuda",
    "mlc-flashinfer-below-sm80": "flashinfer is not supported on CUDA arch < 80",
    "deepspeed-blocked-attention-capability": "RuntimeError: Blocked attention requires CUDA compute capability >= 8.0",
    "deepspeed-no-accelerator": "SystemError: Accelerator is not detected, cannot perform low precision training "
                                "(e.g., fp16, bf16).",
    "xgboost-no-visible-gpu": "[10:22:33] WARNING: /workspace/src/context.cc:55: No visible GPU is found, setting "
                              "device to CPU.",
    "xgboost-cpu-build-device-changed": "[10:22:33] WARNING: /workspace/src/context.cc:218: Device is changed from "
                                        "GPU to CPU as we couldn't find any available GPU on the system.",
    "nccl-library-missing": "Failed to load NCCL from path: `libnccl.so.2`. Error:",
    "xgboost-nccl-too-old": "NCCL version too old: (2.21.5). Install NCCL >= 2.23.4 .",
    "rmm-async-unsupported": "RMM failure at: /rmm/cpp/src/mr/detail/cuda_async_memory_resource_impl.cpp:33: "
                             "cudaMallocAsync not supported with this CUDA driver/runtime version",
    "faiss-bf16-below-ampere": "Error in void faiss::gpu::bfKnn(faiss::gpu::GpuResourcesProvider*, const "
                               "faiss::gpu::GpuDistanceParams&) at /project/faiss/faiss/gpu/GpuDistance.cu:412: not "
                               "compiled with bfloat16 support",
    "faiss-gpu-cuda-wheels-missing": "RuntimeError: faiss-gpu installed but nvidia-cuda-runtime-cu12 is missing — "
                                     "pip install 'nvidia-cuda-runtime-cu12>=12.6,<13'",
    "pyg-extension-cuda-differs": "RuntimeError: Detected that PyTorch and torch_scatter were compiled with "
                                  "different CUDA versions. PyTorch has CUDA version 12.1 and torch_scatter has CUDA "
                                  "version 11.8.",
    "apex-built-without-cuda-ext": "RuntimeError: ('Attempted to call MultiTensorApply method, but MultiTensorApply "
                                   "is not available, possibly because Apex was installed without --cpp_ext "
                                   "--cuda_ext.  Original import error message:', ModuleNotFoundError(\"No module "
                                   "named 'amp_C'\"))",
    "transformer-engine-library-not-found": "RuntimeError: cudnn shared object not found.",
    "transformer-engine-block-scaling-capability": "AssertionError: Device compute capability 10.0 or higher "
                                                   "required for MXFP8 execution.",
    "transformer-engine-version-mismatch": "AssertionError: Transformer Engine package version mismatch. Found "
                                           "transformer_engine_torch v2.4.0, transformer-engine v2.5.0, and "
                                           "transformer-engine-cu12 v2.5.0.",
    "mmcv-op-no-cuda-implementation": "RuntimeError: nms_impl: implementation for device cuda:0 not found.",
    "tcnn-torch-without-cuda": "OSError: Unknown compute capability. Ensure PyTorch with CUDA support is installed.",
    "tcnn-no-binding-for-capability": "OSError: Could not find compatible tinycudann extension for compute "
                                      "capability 86.",
    "tcnn-build-no-gpu-visible": "OSError: Unknown compute capability. Specify the target compute capabilities in "
                                 "the TCNN_CUDA_ARCHITECTURES environment variable or install PyTorch with the CUDA "
                                 "backend to detect it automatically.",
    "tcnn-toolkit-too-old-for-arch": "WARNING: Compute capabilities [120] are not all supported by the installed "
                                     "CUDA version 12.4. Targeting [90] instead.",
    "jax-cudnn-910-checks": "RuntimeError: cuDNN 9.10.0 had a binary backward-compatibility issue due to reordered "
                            "enum values affecting block-scale datatypes. Found runtime version 91000 and build "
                            "version 90800.",
    "jax-cublas-tmem-warning": "cuBLAS < 13.2 (120804 found) has a known issue where many kernels free TMEM buffers "
                               "multiple times.",
    "lightning-cuda-accelerator-unavailable": "lightning.fabric.utilities.exceptions.MisconfigurationException: "
                                              "`CUDAAccelerator` can not run on your system since the accelerator is "
                                              "not available.",
}
