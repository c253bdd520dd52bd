"""A message in the other words it is printed in: older releases, other libraries with the
same meaning, the way reporters retype it. Each must match its entry first."""

import pytest

from gpudoctor.diagnose.catalog import match_text


@pytest.mark.parametrize("entry, message", [
    ("cudf-pascal-required", "you will need a GPU with NVIIDA Pascal or newer architecture"),
    ("gpu-fallen-off-bus", "the gpu randomly falls off the bus"),
    ("nvcc-unsupported-arch", "I meet the error:\"Unsupported gpu architecture 'compute_75'\"."),
    ("nvcc-unsupported-arch", "    Value \u2018sm_75\u2019 is not defined for option \u2018gpu-architecture\u2019"),
    ("kokkos-arch-mismatch", "Kokkos::Cuda::initialize ERROR: likely mismatch of architecture"),
    ("nvenc-api-newer-than-driver", "Required: NVENC API 13.0"),
    ("onnxruntime-cpu-package", "  \u2022 ['AzureExecutionProvider', 'CPUExecutionProvider']"),
    ("onnxruntime-cpu-package", "CUDAExecutionProvider not available \u2014 ONNX will fall back to CPU."),
    ("jax-no-gpu-fallback", 'RuntimeError: Backend \'gpu\' failed to initialize: NOT_FOUND: Could not find registered '
                            'platform with name: "cuda". Available platform names are: Host Interpreter'),
    ("nvidia-smi-no-driver", "NVIDIA kernel module missing"),
    ("driver-insufficient", "ERROR: LoadError: CUDA 10.0 is not supported by your driver (which supports up to 9.0)"),
    ("driver-insufficient", "Cuda error(35),CUDA driver version is insufficient for CUD runtime version"),
    ("driver-insufficient", "I find the error CUDAError InsufficientDriver. My CUDA version is 12.9.41"),
    ("driver-insufficient", "cuda.bindings.driver.CUresult.CUDA_ERROR_INSUFFICIENT_DRIVER"),
    ("driver-insufficient", "    The CUDA driver was found, but it is too old. The CUDA driver on your system supports "
                            "CUDA version 5.5. The required CUDA version"),  # MATLAB
    ("container-cuda-requirement", "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, "
                                   "please update your driver to a newer version"),
    ("container-cuda-requirement", "nvidia-container-cli: requirement error: unsatisfied condition: driver < 385"),
    ("driver-api-symbol-missing", "> The procedure entry point cuDevicePrimaryCtxReset_v2 could not be located in the "
                                  "dynamic link library nvcuda.dll"),
    ("driver-insufficient", "Can't start miner, video driver is too old Please update the video driver or use T-Rex "
                            "Competted with Cuda V11.0 or older."),
    ("jetson-container-empty-library", "/usr/lib/aarch64-linux-gnu/libcublas.so  file not recognized: File truncated"),
    ("jetson-container-empty-library", "**/usr/lib/aarch64-linux-gnu/libcublas.so.10.2.2.89: empty**"),
    ("wsl-dxcore-init-failed", "WSL2 error: dxcore initialization failed, continuing assuming a non-WSL environment"),
    ("jetson-container-empty-library", "./segnet-console: error while loading shared libraries: "
                                       "/usr/lib/aarch64-linux-gnu/libnvinfer.so.7: file too short"),
    ("jetson-container-empty-library", "/usr/lib/aarch64-linux-gnu/tegra/libnvsocsys.so: file too short"),
    ("deepspeed-cuda-mismatch", '    raise Exception(f">- DeepSpeed Op Builder: Installed CUDA version {sys_cuda_version} '
                                'does not match the "'),
    ("cudnn-not-found", '...\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its '
                        'dependencies.'),
    ("onnxruntime-cpu-package", "onnxruntime无法使用CUDAExecutionProvider"),
    ("onnxruntime-cuda-provider-failed", "2023-05-09 18:38:36.929865635 [W:onnxruntime:Default, "
                                         "onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance] Failed to "
                                         "create CUDAExecutionProvider"),
    ("onnxruntime-cuda-provider-dll-not-found",  # a .NET app's path, 130 characters to the DLL
     'OnnxRuntimeException: [ErrorCode:RuntimeException] FAIL : LoadLibrary failed with error 126 "" when trying to '
     'load "D:\\TargetDetectionSystem\\TargetDetectionSystem\\bin\\x64\\Debug\\net8.0-windows\\runtimes\\'
     'win-x64\\native\\onnxruntime_providers_cuda.dll"'),
    ("container-no-gpu-runtime",
     'Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]'),
    ("container-no-gpu-runtime", "Getting `could not select device driver with capabilities: [[gpu]]`"),
    ("numba-nvvm-missing", "        Trying to open library...       ERROR: failed to open nvvm:"),
    ("numba-nvvm-missing", "libnvvm.so: cannot open shared object file: No such file or directory"),
    ("numba-nvvm-missing", "\tsearching for compute_50...\tERROR: can't open libdevice for compute_50"),
    ("cuda-libs-missing", "\ttrying to open library...\tERROR: failed to open cublas:"),
    ("nvml-mismatch", "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch."),
    ("libcuda-missing", "RuntimeError: Failed to dlopen libcuda.so"),
    ("cuda-lib-versioned-symbol-missing", "OSError: /opt/conda/lib/python3.7/lib-dynload/../../libcublas.so.11: symbol "
                                          "free_gemm_select version libcublasLt.so.11 not defined in file "
                                          "libcublasLt.so.11 with link time reference"),
    ("nvml-mismatch", "tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_MISMATCH"),
    ("nvml-mismatch", "I was only getting a message that my CUDA driver was mismatched with my library."),
    ("driver-too-old-torch", "NVIDIA driver on your system is too old (found version 6000)."),  # early torch
    ("no-kernel-image", "CUDA error: no kernel image available"),  # as a reporter retyped it
    ("driver-insufficient", "WARNING: NVIDIA Insufficient driver!"),  # xmr-stak
    ("jax-unknown-backend-gpu", "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances "
                                "of gpu are present. Platforms present are: cpu"),
    ("mxnet-not-compiled-with-cuda", "Compile with USE_CUDA=1 to enable GPU usage"),
    ("flash-attn-ampere-required", "Flash attention doesn't support any GPU lower than ampere."),
    ("no-cuda-device", "what():  #owl: no CUDA capable devices found!"),
    ("no-cuda-device", "Error: No CUDA-capable devices were detected"),
    ("gpu-fails-behind-riser", "But the GC does not seem to be seen by nvidia-smi when using the riser:"),
    ("gpu-fails-behind-riser", "the PCIe riser for card 3 keeps failing after an hour"),
    ("nvrtc-arch-unknown", "[CUDA] Error gpu 0: <src/CudaCryptonightR_gen.cpp>:224 \"NVRTC_ERROR_INVALID_OPTION\""),
    ("kernel-module-missing", "modprobe: FATAL: Module nvidia not found."),  # kmod without the directory part
    ("kernel-module-missing", "modprobe: FATAL: Module nvidia-uvm not found in directory /lib/modules/5.4.0-42-generic"),
    ("nvidia-device-nodes-missing", "nvidia-docker | 2017/01/16 16:55:02 Error: Could not load UVM kernel module"),
    ("opencv-dnn-no-cuda-backend", "DNN module was not built with CUDA backend;switching to CPU"),
    # any GPU package with its variant suffix, not only the frameworks
    ("no-matching-distribution", "ERROR: Could not find a version that satisfies the requirement cupy-cuda13x "
                                 "(from versions: none)"),
    ("no-matching-distribution", "ERROR: No matching distribution found for mxnet-cu112==1.9.1"),
    ("no-matching-distribution", "ERROR: No matching distribution found for cudf-cu12==24.4.*"),
    ("no-matching-distribution", "ERROR: No matching distribution found for nvidia-cutlass-dsl"),
    # any package of which pip saw no version at all
    ("no-matching-distribution", "ERROR: Could not find a version that satisfies the requirement coqui-tts "
                                 "(from versions: none)"),
    ("no-matching-distribution", "  Could not find a version that satisfies the requirement ray (from versions: )"),
    ("no-matching-distribution", "ERROR: Could not find a version that satisfies the requirement tensorrt==8.6.1 "
                                 "(from versions: none)"),
    ("tensorrt-unsupported-sm", "ERROR: ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 "
                                "(Unsupported SM.)"),
    ("tensorrt-unsupported-sm", "Target GPU SM 61 is not supported by this TensorRT release."),
    ("torch-cudnn-incompatible", "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked "
                                 "against 7301"),  # torch 0.4
    ("no-cuda-device", "W0624 14:32:46.220422 23029 init.cc:136] Compiled with WITH_GPU, but no GPU found in runtime."),
    ("xid-hardware-fault", "TREX: Can't find nonce with device [ID=4, GPU: #4], cuda exception: "
                           "CUDA_ERROR_LAUNCH_FAILED, try to reduce overclock to stabilize GPU state"),
    ("nvidia-smi-no-driver", "`nvidia-smi` cannot communicate with drivers."),
    ("container-no-gpu-runtime", 'Error response from daemon : could not select device driver "nvidia" with '
                                 'capabilities : [[gpu]]'),
    ("cuda-libs-missing", "The code execution cannot proceed because cudart64_110.dll was not found. Reinstalling "
                          "the program may fix this problem"),
    ("gpu-not-detected-statement", "After updating host and nvidia driver, transcoding fail cause container cant "
                                   "access GPU"),
    ("no-cuda-device", 'level=INFO source=gpu.go:601 msg="no nvidia devices detected by library '
                       '/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"'),  # Ollama
    ("cuda-unknown-error", 'level=WARN source=gpu.go:604 msg="unknown error initializing cuda driver library '
                           '/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01: cuda driver library init failure: 999"'),
    ("ollama-driver-too-old", 'level=INFO msg="NVIDIA driver too old" required_driver="570 or newer" driver=535'),
    ("libcuda-missing", "AssertionError: libcuda.so cannot found!"),  # Triton's JIT
    # Paddle's CPU build asked for a CUDAPlace / pinned memory (pybind/place.cc)
    ("paddle-not-compiled-with-cuda", "E0901 10:11:12.123 place.cc:80] Cannot use GPU because you have installed CPU "
                                      "version PaddlePaddle."),
    ("paddle-not-compiled-with-cuda", "PermissionDeniedError: Cannot use CUDAPinnedPlace in CPU only version, Please "
                                      "recompile or reinstall Paddle with CUDA support."),
    ("onnxruntime-cuda-provider-failed", "CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt able to be "
                                         "loaded. Please install the correct version of CUDA and cuDNN"),
    ("onnxruntime-cuda-provider-failed", "Failed to create CUDAExecutionProvider. Please reference https://onnxruntime."
                                         "ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"),
    ("kernel-module-missing", "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)"),
    ("nvidia-smi-no-nvml-library", "nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open "
                                   "shared object file: No such file or directory"),
    ("nvidia-probe-not-called", "ERROR: The Nouveau kernel driver is currently in use by your system.  This driver is "
                                "incompatible with the NVIDIA driver"),
    ("gpu-fallen-off-bus", "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system "
                           "to recover this GPU"),
    ("nvcc-unsupported-host-compiler", "RuntimeError: The current installed version of g++ (13.2.0) is greater than "
                                       "the maximum required version by CUDA 11.8. Please make sure to use an adequate "
                                       "version of g++ (>=6.0.0, <12.0)."),
    ("nvidia-smi-not-found", "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi': 'nvidia-smi'"),
    ("nvidia-probe-not-called", "       configuration: driver=nouveau latency=0"),  # lshw -C display
    ("torch-not-compiled-with-cuda", "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'"),
    ("build-info-without-cuda", "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, USE_CUDA=OFF, USE_CUDNN=OFF,"),
    ("build-info-without-cuda", "    NVIDIA CUDA:                   NO"),  # cv2.getBuildInformation()
    ("build-info-without-cuda", "- CUDA backend:  OFF"),  # gpufetch
    ("colmap-built-without-cuda", " (Commit af40e1a on 2020-09-21 without CUDA)"),  # COLMAP's banner
    ("optix-unsupported-abi", "optix_wrapper.cpp:175 Optix Error: 'Unsupported ABI version'"),
    ("xformers-built-for", "    xFormers wasn't build with CUDA support"),
    ("nvidia-smi-not-found", 'runc create failed: unable to start container process: exec: "nvidia-smi": executable '
                             'file not found in $PATH: unknown.'),
    ("blender-cycles-gpu-too-old", "CUDA device supported only compute capability 1.3 or up, found 1.1."),  # 2.5x
    ("launch-timeout", "CUDA error: Launch exceeded timeout in cuCtxSynchronize()"),  # Blender Cycles
    # Ollama's nvmlInit failure by nvmlReturn_t number (gpu_info_nvml.c)
    ("nvml-driver-not-loaded", "Unable to load NVML management library C:\\Windows\\system32\\nvml.dll: nvml vram "
                               "init failure: 9"),
    ("libcuda-missing", "CUDA SETUP ERROR: Missing dependency: libcuda.so.1"),  # bitsandbytes
    ("deepspeed-no-cuda-home", "Unable to run /usr/local/cuda/bin/nvcc, unable to compile CUDA op(s): [Errno 2]"),
    ("gpu-support-missing-statement", "The current version is incompatible with GPUs with cuda compute capability 5.0"),
    ("gpu-support-missing-statement", "Requesting support for sm_61 in the prebuilt wheels"),
    ("cuda-extension-built-without-cuda", "RuntimeError: Not compiled with GPU support"),  # maskrcnn-benchmark
    ("dtype-not-supported-on-device", "ValueError: Type bf16 is not supported on your device."),  # DeepSpeed
    ("dtype-not-supported-on-device", "Your device does not support `torch.bfloat16`. Try edit `torch_dtype`"),
    ("torchvision-ops-not-loaded", "RuntimeError: Couldn't load custom C++ ops."),  # explanation on its own line
    # the family wording, for a library without an entry of its own
    ("library-not-compiled-with-cuda", "torchmcubes was not compiled with CUDA support, use CPU version instead."),
    ("library-not-compiled-with-cuda", "RuntimeError: spconv was not compiled with CUDA support"),
    ("easyocr-defaulting-to-cpu", "Using CPU. Note: This module is much faster with a GPU."),  # older EasyOCR
    ("deepspeed-op-needs-newer-gpu", "RuntimeError: Unable to load ragged_device_ops op due to no compute "
                                     "capabilities remaining after filtering"),
    ("cuda-extension-built-without-cuda", "RuntimeError: DDF operation is not compiled with GPU support"),
    ("detectron2-built-without-cuda", "AssertionError: Detectron2 is not compiled with GPU support!"),
    # the same meaning in the words of libraries read from their source
    ("libcuda-missing", "Warp CUDA warning: Could not find or load the NVIDIA CUDA driver. GPU execution will not be "
                        "available."),
    ("libcuda-missing", "[W 12/01/23 10:00:00.123 1234] [cuda_driver.cpp:load_lib@36] libcuda.so lib not found."),
    ("libcuda-missing", "[W 12/01/23 10:00:00.124 1234] [llvm_runtime_executor.cpp:LlvmRuntimeExecutor@42] No CUDA "
                        "driver API detected."),
    ("driver-insufficient", "Warp CUDA error: Warp requires CUDA driver 12.0 or higher, but the current driver only "
                            "supports CUDA 11.4"),
    ("driver-insufficient", "The minimum required CUDA driver version is 12.0, but the installed CUDA driver version is "
                            "11.8."),
    ("no-cuda-device", "[W 12/01/23 10:00:00.124 1234] [llvm_runtime_executor.cpp:LlvmRuntimeExecutor@45] No CUDA "
                       "device detected."),
    ("no-cuda-device", 'RuntimeError: "cuda" device requested but CUDA is not supported by the hardware or driver'),
    ("library-not-compiled-with-cuda", 'RuntimeError: "cuda" device requested but this build of Warp does not support '
                                       'CUDA'),
    ("library-not-compiled-with-cuda", "RuntimeError: Not compiled with CUDA support"),  # torch_scatter
    ("bnb-no-library-for-cuda", "bitsandbytes library load error: No compatible CUDA binary found at "
                                "/opt/venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cuda131.so"),
    ("cuda-home-missing", "UserWarning: flash_attn was requested, but nvcc was not found.  Are you sure your environment "
                          "has nvcc available?"),
    ("cuda-home-missing", "RuntimeError: --cuda_ext was requested, but nvcc was not found."),  # apex
    ("cuda-home-missing", "gsplat: No CUDA toolkit found. gsplat will be disabled."),
    ("jax-cuda-lib-missing", "RuntimeError: Unable to load CUDA. Is it installed?"),
    ("nccl-library-missing", "ImportError: libnccl.so.2: cannot open shared object file: No such file or directory"),
    ("marlin-needs-ampere", "ValueError: Can not use Marlin int4*fp16 kernel with a device of compute capability (7, 5), "
                            "the minimum compute capability is 8.0 for Marlin kernel."),
    ("flash-attn-cute-capability", "AssertionError: Unsupported compute capability. Supported: 9.x, 10.x, 11.x, 12.x"),
    ("flash-attn-nvcc-too-old", "RuntimeError: FlashAttention-3 is only supported on CUDA 12.3 and above"),
    ("tgi-sharded-needs-flash", "NotImplementedError: Mixtral requires Flash Attention enabled models."),
    ("transformer-engine-block-scaling-capability", "AssertionError: Device compute capability 10.0 or higher required "
                                                    "for NVFP4 execution."),
    ("transformer-engine-block-scaling-capability", "AssertionError: MXFP8 (for all gemm layouts) is not supported on "
                                                    "12.0+ architectures yet."),
    ("jax-cudnn-910-checks", "RuntimeError: cuDNN < 9.10.0 (90800 found) had an issue that caused some multi-GPU "
                             "matmuls"),
    ("unsloth-no-accelerator", "NotImplementedError: Unsloth currently only works on NVIDIA, AMD and Intel GPUs."),
    ("lightning-cuda-accelerator-unavailable", "MisconfigurationException: No supported gpu backend found!"),
    ("autoawq-kernels-missing", "Skipping fusing modules because AWQ extension is not installed."),
    ("faiss-gpu-cuda-wheels-missing", "faiss-gpu: failed to load libcublas.so.12 from /venv/lib/nvidia/cublas/lib — "
                                      "corrupt or incomplete nvidia CUDA wheel?"),
    ("quantization-needs-gpu", "RuntimeError: No GPU or Intel XPU found. A GPU or Intel XPU is needed for quantization."),
    ("ggml-no-device-code", "ERROR: ggml-cuda was compiled without support for the current GPU architecture."),
    ("nvrm-api-mismatch", "[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)"),  # newer drivers
    ("lightning-gpus-requested-none-available", "            But your machine only has: []"),
    ("tgi-flash-models-capability", "ImportError: GPU with CUDA capability 7 0 is not supported"),
    ("tgi-flash-models-capability", "` GPU with CUDA is capability 7 0 is not supported`"),  # as retyped
    ("no-cuda-device", "Error: No GPU device found!"),  # SegAlign
    ("ctranslate2-compute-type-unsupported", "yet it still says that it doesn't support efficient float16 computation"),
    ("tensorrt-engine-version-mismatch", "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::40] Error Code 1: "
                                         "Serialization (Serialization assertion stdVersionRead == serializationVersion "
                                         "failed.Version tag does not match. Note: Current Version: 205, Serialized "
                                         "Engine Version: 213)"),  # TensorRT 8.2 and newer
    # the same meaning in other frameworks' or newer releases' words
    ("xla-driver-older-than-ptxas", "W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA version "
                                    "is 12.4 which is older than the PTX compiler version 12.6.77."),
    ("cupy-not-correctly-installed", "Failed to import CuPy."),
    ("torch-autocast-cuda-unavailable", "UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                                        "Disabling."),
    ("nccl-library-missing", "Failed to load NCCL library from libnccl.so.2. It is expected if you are not running on "
                             "NVIDIA/AMD GPUs."),
    ("no-cuda-device", "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!"),
    ("xla-diagnostics-no-driver", "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:163] no NVIDIA GPU device is "
                                  "present: /dev/nvidia0 does not exist"),
    ("llama-cpp-no-gpu-offload", "warning: no usable GPU found, --gpu-layers option will be ignored"),
    ("numba-compute-capability-unsupported", "Device compute capability (3, 5) is less than the minimum supported by NVRTC "
                                             "(12, 4)."),
    ("paddle-not-compiled-with-cuda", "AssertionError: Not compiled with CUDA"),  # fluid's cuda_places()
    ("cpu-build-installed-statement", "\u68c0\u67e5\u4e86pytorch\u7248\u672c\u53d1\u73b0\u662fcpu\u7248\u672c"),
    ("cpu-and-gpu-builds-installed-statement", "\u670d\u52a1\u5668\u4e0a\u5b89\u88c5\u4e86CPU\u548cGPU\u4e24\u4e2a\u7248\u672c"),
    ("cuda-not-available", "2024-12-22 14:40:20 | INFO | CUDA is not available, running on CPU."),
    ("cuda-not-available", "CUDA not available, falling back to CPU"),
    ("gpu-not-detected-statement", "For now, chroma is running using CPU only."),
    ("gpu-not-detected-statement", "everything is running on the CPU"),
    ("gpu-overheating-statement", "my card keeps overheating and the training stops"),
    ("gpu-overclocked-statement", "+125 on Core GPU Boost Clock"),
    ("cpu-build-installed-statement", "[Issue]: Torch cpu installed on nvidia system"),
    ("one-gpu-of-several-fails-statement", "I'm having this cuda error (err_no=30) issue on one of my gpu 2060 super"),
    ("nvcc-unsupported-arch", "\"nvcc fatal : Unsupported gpu architechture 'compute_89'\" with docker image"),  # retyped
    ("nvcc-unsupported-arch", "nvcc fatal : Value 'sm_61' is not defined for option 'cpu-architecture'"),
    ("gpu-not-detected-statement", "it's really slow and I checked the option and I saw that it was using CPU."),
    ("machine-crashes-under-gpu-load", "但是一运行train.py过一会电脑就会重启。。求解答。。"),
    ("torch-not-compiled-with-cuda", "Exception: Could not run 'aten::empty_strided' with arguments from the 'CUDA' "
                                     "backend. This could be because th..."),
    ("torch-not-compiled-with-cuda", "NotImplementedError: Could not run 'aten::empty.memory_format' with arguments "
                                     "from the 'CUDA' backend."),
    ("tensorrt-no-fast-int8", "Your platform support int8: false"),  # tensorrtx prints platformHasFastInt8()
    ("tensorrt-no-fast-int8", "yolov5: yolov5.cpp:106: build_engine: Assertion `builder->platformHasFastInt8()' failed."),
    ("alicevision-needs-cuda-gpu", "windows 10, This program needs a CUDA-Enabled GPU (with at least compute "
                                   "capablility 2.0)"),  # AliceVision's older spelling
    ("gpu-overclocked-statement", "the card is overclocked a bit for mining"),
    ("illegal-memory-access", "I get Cuda Error 77 Illegal Memory access line 300 on my Nvidia rig all the time."),
    ("gpu-overheating-statement", "the GPU temperature reaches 95 degrees C"),
    ("gpu-support-dropped-statement", "Feature Request: Add support for Pascal architecture (sm_61 / GTX 1060) in "
                                      "official prebuilt binaries"),
    ("gpu-support-dropped-statement", "the official Windows CUDA prebuilt packages do not include sm_61."),
    ("gpu-support-dropped-statement", "I found only the option that my video card is outdated, is that so?"),
    ("one-gpu-of-several-fails-statement", "it is always the same card that drops out"),
    ("one-gpu-of-several-fails-statement", "only GPU 2 crashes after a few hours"),
    ("cuda-symbol-not-found", "SetKernelsGpuData copy to cData failed invalid device symbol"),
    ("cuda-libs-missing", "        cublas64_13.dll => not found"),
    ("cuda-libs-missing", "\u9047\u5230\u7ec8\u7aef\u663e\u793acublasxx.dll\u4e0d\u5b58\u5728\u7684\u9519\u8bef"),
    ("tensorrt-library-missing", "FileNotFoundError: Could not find: nvinfer_10.dll. Is it on your PATH?"),
    ("cpu-and-gpu-builds-installed-statement", "both the GPU and CPU packages were installed"),
    ("deepspeed-no-cuda-home", "[WARNING]  cpu_adam cuda is missing or is incompatible with installed torch, only cpu "
                               "ops can be compiled!"),  # only a missing toolkit reaches this line
    ("onnxruntime-tensorrt-provider-not-loaded", "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:526 "
                                                 "CreateExecutionProviderInstance] Failed to create TensorrtExecutionProvider. "
                                                 "Please reference https://onnxruntime.ai/docs/execution-providers/"
                                                 "TensorRT-ExecutionProvider.html#requirements"),
    # uv's resolver, where pip says "No matching distribution"
    ("no-matching-distribution", "  ╰─▶ Because all versions of tensorflow have no wheels with a matching Python ABI tag "
                                 "(e.g., `cp313`) and you require tensorflow"),
    ("no-matching-distribution", "      have no wheels with a matching Python version tag, we can conclude that all of:"),
    # a reporter's words for a Python the package has no build for
    ("python-support-missing-statement", "cutedsl only support python3.12 + ? I cannot pip install in my py311 env"),
    ("python-support-missing-statement", "pip install open3d does not resolve when using a python 3.11 environment."),
    ("python-support-missing-statement", "TensorRT `pip` installation fails for Python > 3.12."),
    ("python-support-missing-statement", "It seems like there's no build of tensorrt available for python 3.11 on pypi."),
    ("python-support-missing-statement", "Not available for install for python 3.11"),
    ("python-support-missing-statement", "the RAPIDS official website only supports commands above python3.9."),
    ("python-support-missing-statement", "python3.12.5 \u5b89\u88c5paddlex\u6a21\u5757\u62a5\u9519"),  # "installing fails"
])
def test_wording_variants_match(entry, message):
    matches = match_text(message)
    assert matches and matches[0].entry.id == entry


@pytest.mark.parametrize("message", [
    # versions were listed: pip found the package, only not the one asked for
    "ERROR: Could not find a version that satisfies the requirement kaolin==0.18.0 (from versions: 0.1)",
    "ERROR: Could not find a version that satisfies the requirement requests==9.0 (from versions: 2.31.0, 2.32.0)",
])
def test_pip_listing_versions_is_not_no_wheel_for_any_package(message):
    assert not any(m.entry.id == "no-matching-distribution" for m in match_text(message))



@pytest.mark.parametrize("message", [
    "I'm using python 3.11 with torch 2.1 and the install works",
    "pip install torch worked fine on python 3.12",
    "It only supports GPUs with compute capability 7.0",
    "There is no wheel cache for this build.",
])
def test_a_python_named_beside_a_working_install_is_no_support_statement(message):
    assert not any(m.entry.id == "python-support-missing-statement" for m in match_text(message))


@pytest.mark.parametrize("message", [
    "  - Is the CPU or GPU overclocked?",  # an issue template's question
    "I have lowered my overclocks to 0 on all cards",
    "boost clock 1950 MHz",  # a clock, not an offset
])
def test_a_question_or_stock_clocks_are_no_overclock_statement(message):
    assert not any(m.entry.id == "gpu-overclocked-statement" for m in match_text(message))


def test_the_cpu_used_for_a_part_of_the_work_is_no_statement_of_a_missing_gpu():
    assert not any(m.entry.id == "gpu-not-detected-statement"
                   for m in match_text("it is using the CPU for the data loading, which is fine"))


def test_an_operator_without_a_cuda_kernel_in_any_build_is_no_cpu_build():
    # CUDA builds lack kernels for some operators (this one runs on the CPU only): the code, not the build
    message = "Could not run 'aten::slow_conv3d_forward' with arguments from the 'CUDA' backend."
    assert not any(m.entry.id == "torch-not-compiled-with-cuda" for m in match_text(message))


@pytest.mark.parametrize("message", [
    "GPU is at 99% utilization the whole time",  # a load, not a temperature
    "the card hits 95 FPS in the benchmark",
    "GPU temperature is 65 C under load",
])
def test_a_gpu_that_is_busy_or_warm_is_no_overheating_statement(message):
    assert not any(m.entry.id == "gpu-overheating-statement" for m in match_text(message))


@pytest.mark.parametrize("message", [
    "undefined symbol: cublasLtMatmulAlgoGetHeuristic",  # cuBLAS: a library, not the driver
    "undefined symbol: cudaGetDriverEntryPointByVersion",  # the runtime, bundled with the program
    "undefined symbol: cudnnGetVersion",
])
def test_a_library_or_runtime_symbol_is_no_missing_driver_function(message):
    assert not any(m.entry.id == "driver-api-symbol-missing" for m in match_text(message))


@pytest.mark.parametrize("message", [
    "Please add support for sm_120 (RTX 5090)",  # a GPU newer than the release, not one it dropped
    "the wheels do not include sm_90a kernels for FP8",
])
def test_asking_for_a_newer_architecture_is_no_dropped_support(message):
    assert not any(m.entry.id == "gpu-support-dropped-statement" for m in match_text(message))


@pytest.mark.parametrize("message", [
    "I have one GPU and the program fails with out of memory",  # a machine with one GPU, not one of several
    "only one GPU is used by the trainer",
])
def test_a_single_gpu_machine_is_no_one_of_several_statement(message):
    assert not any(m.entry.id == "one-gpu-of-several-fails-statement" for m in match_text(message))
