"""What the rest of a paste says about a message or a fact: the reporter's words that
the machine has no GPU, that a release dropped the GPU, that an install took the GPU away;
a precision the program uses; where the program runs (a Jetson); a whole GPU series."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.diagnose.findings import diagnose_report
from gpudoctor.findings import Severity
from gpudoctor.matrices import load_matrices


def _report(paste: str):
    m = load_matrices(overlay=None)
    d = read_paste(paste, matrices=m, debug=True)
    return d, diagnose_report(d, m, debug=True)


def _outcomes(paste: str) -> set[tuple[str, str, Severity]]:
    return {(f.code, f.category, f.severity) for f in _report(paste)[1].findings}


CUINIT_UNKNOWN = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)\n"
                  "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be "
                  "running on this host (tfexecutor-7b): /proc/driver/nvidia/version does not exist\n")


def test_no_driver_is_a_warning_where_the_reporter_says_the_machine_has_no_gpu():
    said = CUINIT_UNKNOWN + "We deploy on a vanilla cluster, so we don't have GPU.\n"
    assert ("GD816", "no-driver", Severity.WARNING) in _outcomes(said)
    fix = next(f.fix for f in _report(said)[1].findings if f.code == "GD816")
    assert "without an NVIDIA GPU" in fix.text and "gpudoctor install torch --cpu" in fix.commands
    assert ("GD816", "no-driver", Severity.ERROR) in _outcomes(CUINIT_UNKNOWN)


@pytest.mark.parametrize("words", [
    "I'm using a integrated Intel GPU(iris xe graphics). os is win 11",
    "A卡 amd是不是用不了啊",  # "can an AMD card not be used?"
    "This is correct since I don't have NVIDIA GPU.",
])
def test_insufficient_driver_on_a_machine_with_only_another_makers_gpu_is_no_nvidia_driver(words):
    paste = "Error CUDA driver version is insufficient for CUDA runtime version\n" + words + "\n"
    assert ("GD802", "no-driver", Severity.WARNING) in _outcomes(paste)
    assert ("GD802", "driver-too-old-for-runtime", Severity.ERROR) in _outcomes(
        "Error CUDA driver version is insufficient for CUDA runtime version\nMy RTX 3060 laptop\n" + words + "\n")


JAX_NO_GPU_BACKEND = ('  File "xla_bridge.py", line 234, in get_backend\n'
                      '    raise RuntimeError(f"Unknown backend {platform}")\nRuntimeError: Unknown backend GPU\n')


@pytest.mark.parametrize("words", [
    "Graphics: Intel UHD Graphics 630 1536 MB",  # a specs list's field
    '  File "/Users/me/af2/conda/lib/python3.7/site-packages/jax/api.py", line 9',  # macOS: no NVIDIA CUDA there
])
def test_a_cpu_build_on_a_machine_without_an_nvidia_gpu_is_no_error(words):
    assert ("GD808", "cpu-only-build", Severity.ERROR) in _outcomes(JAX_NO_GPU_BACKEND)
    assert ("GD808", "no-driver", Severity.WARNING) in _outcomes(words + "\n" + JAX_NO_GPU_BACKEND)
    # an NVIDIA GPU beside it keeps the error: a hybrid laptop has both
    assert ("GD808", "cpu-only-build", Severity.ERROR) in _outcomes(
        words + "\nGPU 0: NVIDIA GeForce RTX 3060 Laptop GPU (UUID: GPU-1)\n" + JAX_NO_GPU_BACKEND)


@pytest.mark.parametrize("words", [
    "Inside the docker container I don't have GPU.",  # the container's boundary, not the machine
    "We don't have GPU drivers installed yet.",
])
def test_words_about_a_container_or_a_driver_keep_the_error(words):
    assert any(code == "GD816" and sev is Severity.ERROR for code, _, sev in _outcomes(CUINIT_UNKNOWN + words + "\n"))


def test_a_listed_gpu_outweighs_the_words():
    paste = CUINIT_UNKNOWN + "I have no GPU problems usually.\nGPU 0: Tesla T4 (UUID: GPU-1)\n"
    assert not any(sev is Severity.INFO for code, _, sev in _outcomes(paste) if code == "GD816")


NO_KERNEL = "RuntimeError: parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for " \
            "execution on the device\nI have a GTX 960M.\n"


def test_a_request_to_bring_back_an_architecture_makes_no_kernel_image_a_dropped_one():
    assert ("GD801", "arch-not-in-build", Severity.ERROR) in _outcomes(NO_KERNEL)
    asked = "Reintroduce support for Compute Capability 5.0\n" + NO_KERNEL
    assert ("GD801", "arch-dropped", Severity.ERROR) in _outcomes(asked)


def test_an_older_release_that_works_makes_no_kernel_image_a_dropped_one():
    assert ("GD801", "arch-dropped", Severity.ERROR) in _outcomes(NO_KERNEL + "The previous version 1.2.3 still works.\n")


def test_a_gpu_lost_after_an_install_is_the_framework_replaced_by_a_cpu_build():
    paste = "My model was running fine on GPU, but after installing this package now it runs on CPU only.\n"
    assert ("GD820", "cpu-only-build", Severity.WARNING) in _outcomes(paste)
    driver = _outcomes("After updating the NVIDIA driver, the GPU is no longer detected and it runs on CPU only.\n")
    assert not any(category == "cpu-only-build" for _, category, _ in driver)  # the driver's, not a build's
    in_docker = _outcomes("docker run -it myimage python train.py\n" + paste)  # started without --gpus
    assert ("GD607", "container-no-gpu", Severity.ERROR) in in_docker
    assert not any(category == "cpu-only-build" for _, category, _ in in_docker)


def test_cuda_unavailable_on_a_jetson_is_a_wheel_not_built_for_it():
    paste = "I installed torch on my jetson nano (Jetpack 4.4), but cuda.is_available() returns false\n"
    assert ("GD820", "cpu-only-build", Severity.WARNING) in _outcomes(paste)
    assert not any(code == "GD820" for code, _, _ in _outcomes("My RTX 3060 works, torch.cuda.is_available() is True\n"))


@pytest.mark.parametrize("paste, hosted", [
    ("Bug report for Colab: http://colab.research.google.com/.\nassert torch.cuda.is_available() is returning False\n",
     True),
    ("On Kaggle notebook torch.cuda.is_available() returns False\n", True),
    ("File /kaggle/working/train.py, line 3\nRuntimeError: No CUDA GPUs are available\n", True),
    # another machine: the failing one is the reporter's own
    ("It works on Colab, but on my server torch.cuda.is_available() returns False\n", False),
    # a GPU is shown, so the session has one
    ("In Colab with a Tesla T4, torch.cuda.is_available() returns False\n", False),
])
def test_cuda_unavailable_in_a_hosted_notebook_is_a_session_without_a_gpu(paste, hosted):
    outcomes = _outcomes(paste)
    assert any(code in ("GD820", "GD809") and category == "container-no-gpu" for code, category, _ in outcomes) is hosted


def test_a_precision_the_program_uses_is_a_warning_where_the_gpu_lacks_it():
    asked = "I tested FP8 quantization on the RTX 3090 and it is slower\n"
    assert ("GD612", "precision-unsupported", Severity.WARNING) in _outcomes(asked)
    assert ("GD612", "precision-unsupported", Severity.WARNING) in _outcomes("python train.py --bf16 on a Tesla T4\n")
    plain = "I tested quantization on the RTX 3090 and it is slower\n"
    assert ("GD612", "precision-unsupported", Severity.WARNING) not in _outcomes(plain)
    assert ("GD612", "precision-unsupported", Severity.INFO) in _outcomes(plain)


@pytest.mark.parametrize("text, warned", [
    ("Can GTX1080 support FP16? The CUDA Compute Capability of GTX1080 is 6.1\n", True),
    ("python main.py --fp16 on a Tesla K40, and it is not faster\n", True),
    ("python main.py --fp16 on a Tesla P100, and it is not faster\n", False),  # twice FP32's rate there
    ("python main.py on a GTX 1080, and it is not faster\n", False),  # FP16 not named
    ("deepspeed train.py --fp16 on 2x GTX 1080 Ti\n", True),
    # Turing without tensor cores: FP16 is fast but its cuDNN convolutions have returned NaN
    ("GPU: 1660 Super 6GB\nexpected scalar type Half but found Float\n", True),
    ("generating plain green images. 1650 gpu, half precision\n", True),
    ("generating plain green images on my RTX 2080, half precision\n", False),  # the same CC, a correct FP16
    ("GPU: 1660 Super 6GB, it is slow\n", False),  # FP16 not named
])
def test_fp16_named_on_a_gpu_without_fast_fp16_is_a_warning(text, warned):
    findings = _report(text)[1].findings
    fp16 = [f for f in findings if f.code == "GD612" and f.subject.endswith(" fp16")]
    assert any(f.severity is Severity.WARNING for f in fp16) is warned


@pytest.mark.parametrize("text, cc", [
    ("it is incompatible with 50XX cards with CUDA capability sm_120", "12.0"),
    ("I have an RTX 30-series laptop", "8.6"),
    ("does it run on GTX 10xx GPUs?", "6.1"),
])
def test_a_whole_series_is_read_as_its_compute_capability(text, cc):
    d, _ = _report(text + "\n")
    assert [g.compute_capability for g in d.snapshot.gpus] == [cc]


def test_a_series_adds_no_gpu_where_a_model_is_named():
    d, _ = _report("NVIDIA GeForce RTX 5080 Laptop GPU\nAre RTX 50-series laptop GPUs supported?\n")
    assert [g.name for g in d.snapshot.gpus] == ["NVIDIA GeForce RTX 5080 Laptop GPU"]


def test_a_line_anchor_is_no_gpu():
    d, _ = _report("The image sets it, see https://github.com/o/r/blob/abc/Dockerfile.amd64#L4 on my GPU server\n")
    assert not d.snapshot.gpus


def test_a_cuda_variant_without_wheels_for_the_python():
    paste = "pip install torch --index-url https://download.pytorch.org/whl/cu102\nPython 3.11.4\n"
    assert ("GD503", "python-version-unsupported", Severity.WARNING) in _outcomes(paste)
    fits = "pip install torch --index-url https://download.pytorch.org/whl/cu102\nPython 3.9.7\n"
    assert not any(code == "GD503" for code, _, _ in _outcomes(fits))


@pytest.mark.parametrize("version, broken", [("1.3.0", False), ("1.3.1", True)])
def test_a_series_whose_patch_releases_differ_is_judged_by_the_release(version, broken):
    # torch 1.3.0 carries sm_35 (a K40); 1.3.1 starts at sm_37.
    paste = (f"PyTorch version: {version}\nIs debug build: No\nCUDA used to build PyTorch: 10.1.243\n\nOS: Ubuntu 18.04\n"
             "Python version: 3.7\nIs CUDA available: Yes\nGPU models and configuration:\nGPU 0: Tesla K40c\n"
             "Nvidia driver version: 418.43\n")
    assert any(code == "GD303" for code, _, _ in _outcomes(paste)) is broken


TORCH_NO_DRIVER = ("UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you "
                   "have an NVIDIA GPU and installed a driver\n")


def test_torch_carrying_on_without_a_driver_is_a_warning_where_no_gpu_is_shown():
    assert ("GD803", "no-driver", Severity.WARNING) in _outcomes(TORCH_NO_DRIVER)
    with_gpu = TORCH_NO_DRIVER + "GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-5f1c)\n"
    assert ("GD803", "no-driver", Severity.ERROR) in _outcomes(with_gpu)


def test_a_message_wrapped_before_a_capitalised_word_is_matched():
    wrapped = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different\n"
               "CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA\n"
               "Version=11.8. Please reinstall the torchvision that matches your PyTorch\n")
    assert ("GD810", "library-conflict", Severity.ERROR) in _outcomes(wrapped)


def test_a_cuda_library_missing_where_the_reporter_says_no_toolkit_is_installed():
    error = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
             "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    assert ("GD818", "framework-cuda-mismatch", Severity.WARNING) in _outcomes(error)
    assert ("GD818", "cudnn-missing", Severity.WARNING) in _outcomes(error + "Cuda Kit - Is NOT installed\n")


def test_the_container_toolkits_variables_place_the_program_in_a_container():
    d, _ = _report("I set NVIDIA_VISIBLE_DEVICES=all as the documentation says\nCannot load libnvidia-encode.so.1\n")
    assert d.snapshot.system.container.value == "docker"


def test_the_results_carry_the_findings_as_the_context_judged_them():
    _, report = _report(TORCH_NO_DRIVER)
    in_results = [f.severity for r in report.results for f in r.findings if f.code == "GD803"]
    assert in_results == [f.severity for f in report.findings if f.code == "GD803"] == [Severity.WARNING]


@pytest.mark.parametrize("paste, driver", [
    ("# cat /sys/module/nvidia/version\n470.103.01\n", "470.103.01"),
    ("torch.cuda.is_available() is False\n\n410.48,,\nneed higher ??\n", "410.48"),
    ("it took 512.00 seconds\n", None),  # a number in a sentence is no driver
])
def test_a_line_that_is_only_a_driver_version_is_the_driver(paste, driver):
    d, _ = _report(paste)
    assert d.snapshot.driver.version.value == driver


NGC_BANNER = ("ERROR: This container was built for NVIDIA Driver Release {floor} or later, but\n"
              "{prefix}       version {driver} was detected and compatibility mode is UNAVAILABLE.\n")


@pytest.mark.parametrize("floor, driver, prefix, outcome", [
    # CUDA 12.2's driver on a CUDA 11.6 one: another major, no forward compatibility
    ("535.86", "510.85.02", "", ("GD802", "driver-too-old-for-runtime", Severity.ERROR)),
    # both drivers run CUDA 13: minor-version compatibility runs the image's libraries
    ("595.58", "580.126.09", "", ("GD802", "driver-too-old-for-runtime", Severity.WARNING)),
    # the entrypoint found no driver in the container (a compose log's service prefix on the line)
    ("515.48", "", "fauxpilot-triton-1  |", ("GD802", "container-no-gpu", Severity.ERROR)),
])
def test_an_ngc_banner_is_judged_by_the_driver_it_detected(floor, driver, prefix, outcome):
    d, report = _report(NGC_BANNER.format(floor=floor, driver=driver, prefix=prefix))
    assert outcome in {(f.code, f.category, f.severity) for f in report.findings}
    assert d.snapshot.system.container.value == "docker"


@pytest.mark.parametrize("paste, cpu_wheel", [
    ("GPU is not visible to tensorflow 2.0.0-beta1 even when the notebook is set to use it.\n", True),
    ("GPU is not visible to tensorflow 1.14.0 on Ubuntu 18.04.\n", True),
    # the GPU wheel named: the plain wheel is not what runs
    ("I installed tensorflow-gpu and the GPU is not visible to tensorflow 1.14.0.\n", False),
    ("GPU is not visible to tensorflow 2.4.0 on Ubuntu 18.04.\n", False),  # from 2.1 `tensorflow` has the GPU
])
def test_cuda_unavailable_to_a_tensorflow_whose_plain_wheel_is_cpu_only(paste, cpu_wheel):
    assert (("GD820", "cpu-only-build", Severity.WARNING) in _outcomes(paste)) is cpu_wheel


def test_the_container_toolkits_cuda_requirement_is_the_hosts_driver_even_in_a_container():
    # nvidia-container-cli checks the host's driver before the container exists: the paste's
    # "I am running cuda 12.4" is what that driver runs, and the image asks for more.
    paste = ("docker run --rm -it --gpus all ghcr.io/org/image:tag /bin/bash\n"
             "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver "
             "to a newer version, or use an earlier cuda container\n"
             "I am running cuda 12.4 - is that too old?\n"
             "| NVIDIA-SMI 551.78                 Driver Version: 551.78         CUDA Version: 12.4     |\n")
    assert ("GD802", "driver-too-old-for-runtime", Severity.ERROR) in _outcomes(paste)


@pytest.mark.parametrize("start, with_nv", [
    # a program logging its argument list
    ("RuntimeError: Command ['singularity', '--silent', 'run', '/jobstore/cactus.img', 'segalign', '--num_gpu', '1'] "
     "exited 1", "RuntimeError: Command ['singularity', '--silent', 'run', '--nv', '/jobstore/cactus.img'] exited 1"),
    ("singularity exec image.sif python train.py", "singularity exec --nv image.sif python train.py"),
])
def test_a_singularity_start_without_nv_is_a_container_given_no_gpu(start, with_nv):
    outcomes = _outcomes(start + "\nError: No GPU device found!\n")
    assert ("GD809", "container-no-gpu", Severity.ERROR) in outcomes
    assert any(code == "GD607" for code, _, _ in outcomes)  # started without --nv: no /dev/nvidia* inside
    assert not any(code == "GD607" for code, _, _ in _outcomes(with_nv + "\nError: No GPU device found!\n"))


def test_a_pulled_gpu_image_places_the_paste_in_a_container():
    paste = ("使用的是官方镜像nvidia-docker pull registry.baidubce.com/paddlepaddle/paddle:2.1.3-gpu-cuda11.2-cudnn8\n"
             "UserWarning: You are using GPU version Paddle, but your CUDA device is not set properly. CPU device will "
             "be used by default.\n")
    assert any(cat == "container-no-gpu" for _, cat, _ in _outcomes(paste))


def test_an_install_command_the_failing_environment_never_got_does_not_make_the_build():
    # cu128 builds carry sm_120, so the warning means the command went into another environment:
    # the one that failed has a build older than the GPU
    paste = ("RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
             "pip3 install torch torchvision --index-url https://download.pytorch.org/whl/cu128\nbut still got error\n")
    assert ("GD801", "arch-too-new-for-cuda", Severity.ERROR) in _outcomes(paste)


def test_no_kernel_image_beside_an_older_gpu_is_the_newer_ones_missing_cuda():
    paste = ("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
             "It ran on my RTX 4070 before; with the RTX 5090 it does not.\n")
    assert ("GD801", "arch-too-new-for-cuda", Severity.ERROR) in _outcomes(paste)


def test_onnxruntime_naming_a_cuda_major_the_machine_lacks_is_a_build_for_another_cuda():
    line = ("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 onnxruntime::python::CreateExecutionProviderInstance]"
            " Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.\n")
    assert ("GD805", "framework-cuda-mismatch", Severity.ERROR) in _outcomes("My CUDA is 11.7.\n" + line)
    assert ("GD805", "framework-cuda-mismatch", Severity.ERROR) not in _outcomes("My CUDA is 12.4.\n" + line)


def test_several_cudas_that_all_predate_the_gpu_agree_although_each_reaches_another_sm():
    paste = "I tried CUDA 8.0 and CUDA 9.0 on my RTX 3090, the model does not run\n"
    assert ("GD817", "arch-too-new-for-cuda", Severity.WARNING) in _outcomes(paste)
    assert not any(code == "GD817" for code, _, _ in _outcomes("I tried CUDA 9.0 and CUDA 11.1 on my RTX 3090\n"))


def test_a_container_given_the_gpu_that_still_runs_on_the_cpu_has_a_cpu_build():
    started = "- Container was started using `docker run -i -t --runtime=nvidia --gpus all app`\n"
    seen = "- `nvidia-smi` within container will show that I have GPU available\n"
    symptom = "However, any example will run on CPU only.\n"
    assert ("GD820", "cpu-only-build", Severity.WARNING) in _outcomes(started + seen + symptom)
    # without the reporter seeing the GPU inside, the start may not have passed it (a toolkit misconfigured)
    assert ("GD820", "container-no-gpu", Severity.WARNING) in _outcomes(started + symptom)
    # and without the GPU flags, the start asked for no GPU
    assert ("GD820", "cpu-only-build", Severity.WARNING) not in _outcomes("docker run -it app\n" + seen + symptom)


def test_a_cuda_the_reporter_names_beside_another_tensorflow_build_is_a_warning():
    said = "Tensorflow 2.3.1 training does not use GPU but CPU with CUDA 11.2\nUbuntu 18.04, GPU K80\n"
    assert ("GD208", "framework-cuda-mismatch", Severity.WARNING) in _outcomes(said)
    # the driver's CUDA in nvidia-smi's banner is no installed toolkit
    banner = ("tensorflow==2.3.1\nUbuntu 18.04, GPU K80\n"
              "| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |\n")
    assert not any(code == "GD208" for code, _, _ in _outcomes(banner))
    # the CUDA TensorFlow 2.3 was built for (10.1) is no mismatch
    built_for = "Tensorflow 2.3.1 with CUDA 10.1 does not use GPU\nUbuntu 18.04, GPU K80\n"
    assert not any(code == "GD208" for code, _, _ in _outcomes(built_for))
    # what nvcc reports outweighs the CUDA the reporter names: it is the installed one, an error
    nvcc = "Cuda compilation tools, release 11.2, V11.2.152\n"
    assert ("GD208", "framework-cuda-mismatch", Severity.ERROR) in _outcomes(built_for + nvcc)


def test_a_source_build_of_torch_is_no_pypi_wheel():
    jetson = "- **OS:** NVIDIA JetPack 6.2 (Linux for Tegra, aarch64)\n"
    # NVIDIA's JetPack wheel: a pre-release with a commit as its local version, built with CUDA
    assert not any(code == "GD501" for code, _, _ in _outcomes(jetson + "- **torch:** 2.5.0a0+872d972e41.nv24.08\n"))
    # PyPI's own torch 2.5.0 for aarch64 is the CPU build
    assert any(code == "GD501" for code, _, _ in _outcomes(jetson + "- **torch:** 2.5.0\n"))


@pytest.mark.parametrize("pin, named", [
    ("cumm<0.5.0,>=0.4.5 (from spconv) (from versions: 0.1.0, 0.5.0, 0.5.1)", True),  # a gap: 0.4.x has no file here
    ("somepkg==1.2.0 (from versions: 2.0.0, 2.1.0)", True),  # older than every listed version
    ("requests==9.0 (from versions: 2.31.0, 2.32.0)", False),  # above them: not out yet, or a typo
    ("somepkg>=3.0 (from versions: 1.0, 2.0)", False),
])
def test_pip_refusing_an_older_pin_is_a_python_without_its_files(pin, named):
    paste = f"ERROR: Could not find a version that satisfies the requirement {pin}\n"
    assert (("GD814", "python-version-unsupported", Severity.ERROR) in _outcomes(paste)) is named


@pytest.mark.parametrize("python, severity", [
    ("3.6.13", Severity.WARNING),  # past its end of life: newer releases build no wheels for it
    ("3.11.4", None),  # a current Python: the pin may be a release not out yet
    (None, None),
])
def test_a_pin_above_every_listed_release_on_an_old_python(python, severity):
    paste = ("ERROR: Could not find a version that satisfies the requirement taichi>=1.2.0 (from versions: 0.8.0, "
             "0.9.2, 1.0.4)\n" + (f"My python version is {python}\n" if python else ""))
    found = [s for code, _, s in _outcomes(paste) if code == "GD814"]
    assert found == ([severity] if severity else [])


def test_a_paging_file_too_small_is_no_missing_cudnn():
    line = ('OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading '
            '"C:\\env\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.\n')
    assert not any(code == "GD805" for code, _, _ in _outcomes(line))


def test_an_overclock_beside_a_crashed_kernel_is_a_hardware_warning():
    crash = "CUDA error 'unspecified launch failure' in func 'cuda_daggerhashimoto::run'\n"
    clocks = "Overclock: 100% power, +125 MHz core, +600 memory\n"
    assert ("GD850", "hardware-health", Severity.WARNING) in _outcomes(crash + clocks)
    assert not any(category == "hardware-health" for _, category, _ in _outcomes(crash))
    # the settings alone, without a failed kernel, say nothing
    assert not any(category == "hardware-health" for _, category, _ in _outcomes(clocks + "RuntimeError: CUDA out of memory.\n"))


MESHROOM = "[error] This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).\n"


def test_meshroom_finding_no_cuda_gpu_on_an_nvidia_gpu_is_a_driver_too_old():
    found = _outcomes("I'm running on Windows 10, GeForce GTX 1080, driver 385.54\n" + MESHROOM)
    assert ("GD802", "driver-too-old-for-runtime", Severity.ERROR) in found
    # on a machine the reporter says has no NVIDIA GPU it is only that
    found = _outcomes("I have an Intel HD Graphics 620 laptop, no nvidia card.\n" + MESHROOM)
    assert not any(severity is Severity.ERROR for _, _, severity in found)


CT2_CONVERTED = ("[ctranslate2] [warning] The compute type inferred from the saved model is float16, but the target "
                 "device or backend do not support efficient float16 computation.\n")


@pytest.mark.parametrize("gpu, category", [
    ("", "info"),  # the device not shown: converted on the CPU, as expected there
    ("GPU: GeForce GTX 1080\n", "precision-unsupported"),  # Pascal: no efficient float16
    ("GPU: GeForce RTX 3090\n", "cpu-only-build"),  # the GPU has it: the model ran on the CPU
])
def test_ctranslate2_converting_float16_weights_is_judged_by_the_gpu(gpu, category):
    assert ("GD850", category, Severity.WARNING) in _outcomes(gpu + CT2_CONVERTED)


def test_ctranslate2_int8_float16_needs_the_float16_floor():
    refusal = ("what():  Requested int8_float16 compute type, but the target device or backend do not support "
               "efficient int8_float16 computation.\n")
    assert ("GD812", "precision-unsupported", Severity.ERROR) in _outcomes("GPU: GeForce GTX 1080 Ti\n" + refusal)
    assert ("GD812", "cpu-only-build", Severity.ERROR) in _outcomes("GPU: GeForce RTX 3090\n" + refusal)


@pytest.mark.parametrize("gpu, category", [
    ("Tesla P100", "precision-unsupported"),  # sm_60: no fast INT8
    ("Jetson TX2", "precision-unsupported"),  # sm_62
    ("GeForce RTX 3090", "arch-too-new-for-cuda"),  # it has INT8: a TensorRT that does not know the GPU
])
def test_tensorrt_refusing_int8_is_judged_by_the_gpu(gpu, category):
    paste = (f"GPU: {gpu}\nError Code 9: Internal Error (Networks with QuantizeLayer/DequantizeLayer layers require "
             "hardware with Int8 support.)\n")
    assert ("GD812", category, Severity.ERROR) in _outcomes(paste)


GGML_NO_ARCH = "ggml-cuda/common.cuh:106: ggml was not compiled with any CUDA arch <= {}\n"


@pytest.mark.parametrize("gpu, arch, category", [
    ("GPU: GeForce GTX 1080 Ti\n", 610, "arch-dropped"),  # the GPU's own: every compiled arch is newer
    ("", 610, "arch-dropped"),
    ("GPU: NVIDIA A100-SXM4-80GB\n", 750, "info"),  # not the GPU's: ggml asked for a fixed one (its bug)
])
def test_ggml_without_an_arch_as_old_as_the_gpu(gpu, arch, category):
    found = _outcomes(gpu + GGML_NO_ARCH.format(arch))
    assert any(code == "GD801" and cat == category for code, cat, _ in found), found


def test_nvrtc_without_its_builtins_is_a_missing_library_and_the_invalid_image_its_consequence():
    found = _outcomes("Program compile log: nvrtc: error: failed to load builtins\n"
                      "[CUDA] Error gpu 0: _cryptonight_gpu_hash_:878 _device kernel image is invalid_\n")
    assert ("GD807", "cudnn-missing", Severity.ERROR) in found
    assert not any(code == "GD801" for code, _, _ in found)


def test_ggml_finding_no_cuda_device():
    line = "ggml_init_cublas: no CUDA devices found, CUDA will be disabled\n"
    assert ("GD803", "no-driver", Severity.ERROR) in _outcomes(line)
    # where the GPU works for other programs: the driver is older than the CUDA ggml was built with
    found = _outcomes(line + "I have a NVIDIA GeForce RTX 3090 Ti. `nvidia-smi` works correctly\n")
    assert ("GD850", "driver-too-old-for-runtime", Severity.WARNING) in found


DNN_NOT_FOUND = "jaxlib.xla_extension.XlaRuntimeError: UNIMPLEMENTED: DNN library is not found.\n"


def test_dnn_library_not_found_is_cudnn_support_that_did_not_start():
    assert ("GD806", "cudnn-version-mismatch", Severity.ERROR) in _outcomes(DNN_NOT_FOUND)
    # cuDNN that ran a kernel and failed was found: the failure, not a missing library, is what happened
    found = _outcomes(DNN_NOT_FOUND + "jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: CUDNN_STATUS_EXECUTION_FAILED\n")
    assert not any(severity is Severity.ERROR for _, _, severity in found), found
    # an earlier line that says why (the library did not load) names the cause instead
    found = _outcomes("Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
                      "object file: No such file or directory\n" + DNN_NOT_FOUND)
    assert not any(code == "GD806" for code, _, _ in found) and any(cat == "cudnn-missing" for _, cat, _ in found)


def test_autocast_without_cuda_beside_an_nvidia_gpu_is_a_torch_that_did_not_get_it():
    line = ("UserWarning: User provided device_type of 'cuda', but CUDA is not available. Disabling\n")
    assert any(cat == "cpu-only-build" and sev is Severity.WARNING
               for _, cat, sev in _outcomes("I am running this on an Nvidia V100 node\n" + line))
    assert not any(cat == "cpu-only-build" for _, cat, _ in _outcomes(line))


def test_pip_listing_cuda_jaxlibs_is_no_platform_without_them():
    line = ("ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.29+cuda12.cudnn88 (from "
            "versions: 0.1.75+cuda11.cudnn805, 0.1.76+cuda11.cudnn82)\n")
    assert not any(code == "GD814" for code, _, _ in _outcomes(line))
    assert any(code == "GD814" for code, _, _ in _outcomes(
        "ERROR: No matching distribution found for jaxlib==0.4.29+cuda12.cudnn88\n"))
