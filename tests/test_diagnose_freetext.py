"""The free-text reader: facts as people write them in sentences, each kept
with its source line and ranked below any tool output."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)


def snap(text: str):
    return read_paste(text, matrices=M, debug=True).snapshot


def torch_of(s):
    return next(fw for fw in s.frameworks if fw.name == "torch")


def test_versions_inside_one_sentence():
    s = snap("I have torch 1.13 with cuda 11.7 and driver 515 on a 3080ti, cuDNN-8.9")
    t = torch_of(s)
    assert (t.version.value, t.cuda.value, t.build.value) == ("1.13", "11.7", "cuda")
    assert s.driver.version.value == "515"
    assert [lib.version for lib in s.cudnn] == ["8.9"]
    assert [(g.name, g.compute_capability) for g in s.gpus] == [("RTX 3080ti", "8.6")]
    assert "free text line 1" in t.cuda.source


@pytest.mark.parametrize("text, version", [
    ("cuDNN 11.4-windows-x64-v8.2.2.26 (downloaded from NVIDIA)", "8.2.2.26"),  # the CUDA first, the cuDNN after v
    ("tar -xf cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz", "8.9.7.29"),
    ("cuDNN 8.9.2 with CUDA 12.1", "8.9.2"),
])
def test_cudnn_versions_as_written_and_as_archive_names(text, version):
    assert [lib.version for lib in snap(text).cudnn or ()] == [version]


def test_a_wheel_tags_cudnn_digits_are_no_cudnn_release():
    # jaxlib's "+cuda12.cudnn88" means cuDNN 8.8, not a cuDNN 88
    assert not snap("jaxlib==0.4.29+cuda12.cudnn88").cudnn


def test_a_yolo_checks_like_list_line_keeps_the_whole_version():
    s = snap("python 3.12.8\ntorch 2.5.0\n")
    assert torch_of(s).version.value == "2.5.0"


@pytest.mark.parametrize("text,version,cuda", [
    ("pytorch1.13.1", "1.13.1", None),
    ("torch==2.0.1+cu118 installed", "2.0.1+cu118", "11.8"),
    ("PyTorch v2.1 (cu121)", "2.1", "12.1"),
    ("torch 2.3.0 / cuda 12.1", "2.3.0", "12.1"),
    ("GTX 970 + pytorch 2.8.0 cu128: CUDA error", "2.8.0", "12.8"),
    ("torch 2.1 and CUDA 12.1 toolkit", "2.1", None),  # "and" does not tie the toolkit to the build
    ("- Windows 10\n- 2.8.0+cu128\n", "2.8.0+cu128", "12.8"),  # PyTorch's wheel tag on a line of its own
    ("Version: 2.1.0+cpu", "2.1.0+cpu", None),
    # the tag quoted as copied from an app's System Info or a print of torch.__version__
    ('in the "System Info" section it says "2.0.0+cpu Autocast half"', "2.0.0+cpu", None),
    ("it prints `2.1.0+cu121` for the version", "2.1.0+cu121", "12.1"),
    ("pytorch version is: 1.10.1 and torchvision version is: 0.11.2+cu102", "1.10.1", None),
])
def test_torch_forms(text, version, cuda):
    t = torch_of(snap(text))
    assert t.version.value == version
    assert t.cuda.value == cuda


@pytest.mark.parametrize("text", [
    "torchvision 0.23.0+cu128",  # another package's version, named on its line
    "I upgraded to 2.8.0+cu128 yesterday",  # inside a sentence nothing says which package
    'intel_extension_for_pytorch is "2.1.0+cpu"',  # Intel's extension carries the tag too
])
def test_a_bare_wheel_tag_needs_a_line_of_its_own(text):
    assert not any(fw.name == "torch" for fw in snap(text).frameworks or ())


@pytest.mark.parametrize("text,name,cc", [
    ("training on a100-80g nodes", "a100-80g", "8.0"),
    ("my GPU is a RTX3060 laptop", "RTX3060 laptop", "8.6"),
    ("I have dual 3090s", "RTX 3090", "8.6"),
    ("NVIDIA GeForce GTX 1080 Ti", "NVIDIA GeForce GTX 1080 Ti", "6.1"),
    ("gpu: Quadro P1000", "Quadro P1000", "6.1"),
    ("on my 2080S", "RTX 2080 SUPER", "7.5"),
    ("Jetson AGX Orin with JetPack 6", "Jetson AGX Orin", "8.7"),
    ("新版本能不能支持下 tesla k40m的显卡", "tesla k40m", "3.5"),  # no word boundary before 的
    ("dual GeForce 780M with a compute capability 3.0", "GeForce 780M", "3.0"),  # the CC the line states
    ("My GPU is Palit nVidia GeForce 9500GT 1GB.", "nVidia GeForce 9500GT", "1.1"),
    ("NVIDIA Quadro FX 1800M latest driver installed", "NVIDIA Quadro FX 1800M", "1.2"),
    ("my running platform:5070ti  Torch: 2.0.1+cu117", "RTX 5070ti", "12.0"),  # Ti after a colon: not a port
    ("Would a 750 ti be suitable for this?", "GTX 750 ti", "5.0"),  # with its Ti, a number is a GPU anywhere
    ("I use a 4090 for this", "RTX 4090", "8.9"),
    ("my 980ti crashes", "GTX 980ti", "5.2"),
    ("on a system with a NVidia 8400 GS. But catkin fails", "NVidia 8400 GS", "1.1"),  # no GeForce, GS
    ("I have a GeForce 9600M GT", "GeForce 9600M GT", "1.1"),
    ("GPU: GeForce 8800 GTX", "GeForce 8800 GTX", "1.0"),  # one GPU, not a second "GTX 8800"
    ("I have an old K2000 in my desktop PC", "Quadro K2000", "3.0"),  # a Quadro typed without its line
    ("GPU:3090", "RTX 3090", "8.6"),  # a form's answer after the colon, not a port
    ("CUDA error，是目前还不支持5090吗？", "RTX 5090", "12.0"),  # no ASCII boundary after the number
    ("The computing power of 3090 is 8.6. Does it no longer support FP8?", "RTX 3090", "8.6"),
    ("Tesla K-80", "Tesla K-80", "3.7"),  # a data-center model typed with a hyphen
    ("training on a V-100 node", "V-100", "7.0"),
])
def test_gpu_names_as_typed(text, name, cc):
    s = snap(text)
    assert [(g.name, g.compute_capability) for g in s.gpus] == [(name, cc)]


@pytest.mark.parametrize("text", [
    'error "Sorry, need at least compute capability 7.0+!" My GPU is an NVIDIA GeForce GTX 1080 Ti',
    "it requires compute capability 7.0 or higher, my GTX 1080 Ti fails",
])
def test_a_compute_capability_floor_in_a_message_is_not_the_gpus(text):
    assert [(g.name, g.compute_capability) for g in snap(text + "\n").gpus][0][1] == "6.1"


@pytest.mark.parametrize("text, names", [
    ("It works fine for 4090 but for 5090 it has the following error.", ["RTX 4090", "RTX 5090"]),
    ("ports 3080 and 5050 are open", []),  # numbers compared on a line about the network are ports
])
def test_two_model_numbers_compared_on_a_line_are_gpus(text, names):
    assert [g.name for g in snap(text + "\n").gpus or ()] == names


@pytest.mark.parametrize("text,names", [
    ("Failed to run with a P100 GPU\nCompute 6.0 CUDA device: [Tesla P100-PCIE-16GB]", ["Tesla P100-PCIE-16GB"]),
    ("A100 GPU generates 11 tokens/s\n  Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0",
     ["NVIDIA A100-SXM4-80GB"]),
    # another model, not the same board named in full
    ("it works on my RTX 3090\nbut my GPU is an RTX 3090 Ti", ["RTX 3090", "RTX 3090 Ti"]),
])
def test_a_model_typed_short_and_its_full_board_name_are_one_gpu(text, names):
    assert [g.name for g in snap(text).gpus] == names


@pytest.mark.parametrize("text", ["listening on port 3080", "in 2080 we will", "my server at localhost:3080", "AMD MI300X here",
                                  "version 1060 of the file", "my Radeon RX 7900 XTX",
                                  "my 960 photos", "timeout after 750 ms", "port:5090 is free",
                                  "supported since 2050 releases"])
def test_no_gpu_where_there_is_none(text):
    s = snap(text)
    assert not s.gpus or all(g.compute_capability is None for g in s.gpus)


def test_unknown_gpu_name_keeps_compute_capability_unknown():
    s = snap("GPU: RTX 6000")  # Quadro RTX 6000 (7.5) or RTX 6000 Ada (8.9)
    assert [g.compute_capability for g in s.gpus] == [None]


@pytest.mark.parametrize("text,os_name", [
    (r'File "C:\Users\me\miniconda3\lib\site-packages\torch\cuda\__init__.py", line 239', "windows"),
    (r"PS C:\> python -c 'import torch'", "windows"),
    ("some output\n(myenv) H:\\RVC-beta>python infer-web.py", "windows"),  # a cmd.exe prompt in an env
    ("D:\\stable>pip list", "windows"),
    # the interpreter's banner names its platform
    ("Python 3.10.9 (tags/v3.10.9:1dd9be6, Dec  6 2022) [MSC v.1934 64 bit (AMD64)] on win32", "windows"),
    ("Python 3.7.5 (default, Oct 25 2019, 15:51:11) \n[GCC 7.3.0] :: Anaconda, Inc. on linux\n", "linux"),
    ('File "/Users/me/venv/lib/python3.11/site-packages/torch/__init__.py"', "darwin"),
    ('File "/home/u/venv/lib/python3.10/site-packages/torch/__init__.py"', "linux"),
])
def test_os_from_paths(text, os_name):
    assert snap(text).system.os.value == os_name


@pytest.mark.parametrize("text", ["ratio 3:\\ 4 > 2 by far", "the path a:\\b is not a prompt"])
def test_no_windows_from_text_that_is_not_a_prompt(text):
    assert snap(text).system.os.value != "windows"


@pytest.mark.parametrize("text,kind", [
    ("docker run -it --rm nvcr.io/nvidia/pytorch:24.01-py3", "docker"),
    ("FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04", "docker"),
    ("    image: nvidia/cuda:10.2-base", "docker"),  # a compose service
    ("root@3f2a9c1b7d4e:/workspace# nvidia-smi", "docker"),
    ("kubectl logs trainer-0", "kubernetes"),
    ("I am trying to deploy TensorFlow on kubernetes with this device plugin", "kubernetes"),
    ("singularity exec --nv image.sif python train.py", "singularity"),
    ("**Environment:** kubernetes k0s 1.29.4 on ubuntu 22.04", "kubernetes"),
    ("running the image inside a pod on a gpu node", "kubernetes"),
    ("I pulled the official docker image but torch.cuda.is_available() = False", "docker"),
    ('In the container, "nvidia-smi, nvcc -V" worked.', "docker"),
    ("Creating vqgan-clip-docker_generate_run ... done", "docker"),
    ("a reproducible way to have CUDA installed with the docker images", "docker"),  # docker-compose v1's progress line
    (" \u2714 Container fauxpilot-triton-1  Started", "docker"),  # and v2's
    ("I'm deploying ollama in a self-hosted kubernetes cluster using a helm chart", "kubernetes"),
    ("predictor = model.deploy(initial_instance_count=1, instance_type='ml.g4dn.xlarge')", "docker"),  # SageMaker
    ("但使用docker容器（root）时，不能使用nvidia-smi", "docker"),  # "but in the docker container"
    ("在容器内运行 nvidia-smi 报错", "docker"),  # "running nvidia-smi inside the container"
    ("nvidia-smi works just fine outside the container, and even within the container at runtime", "docker"),
    ("763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:1.5.1-gpu-py36-cu101-ubuntu16.04", "docker"),
    ("image: ghcr.io/example/app:cuda12.4", "docker"),  # a GPU image named with its registry
])
def test_container_clues(text, kind):
    s = snap(text)
    assert s.system.container.value == kind
    assert "container clue line 1" in s.system.container.source


@pytest.mark.parametrize("text", ["pip install torch --index-url https://download.pytorch.org/whl/cu121", "see https://github.com/org/repo:main"])
def test_a_url_or_a_package_is_no_gpu_image(text):
    assert not snap(text).system.container.known


@pytest.mark.parametrize("text", ["instance_type = 'p3.2xlarge'", "the instance_type ml.m5 is too small"])
def test_an_instance_type_that_is_no_sagemaker_argument_is_no_container(text):
    assert not snap(text).system.container.known


def test_tool_output_outranks_a_sentence():
    s = snap("driver 470\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |")
    assert s.driver.version.value == "535.104.05"


@pytest.mark.parametrize("text,fw,version", [
    ("tf2.4 on windows", "tensorflow", "2.4"), ("jaxlib==0.4.13 and jax 0.4.13", "jax", "0.4.13"),
    ("cupy 12.3 fails", "cupy", "12.3"), ("tensorflow-gpu 2.10.0", "tensorflow", "2.10.0"),
])
def test_other_frameworks_in_prose(text, fw, version):
    s = snap(text)
    assert next(f for f in s.frameworks if f.name == fw).version.value == version


def test_the_report_nearest_the_failure_wins():
    before = "PyTorch version: 2.1.0+cu121\nIs CUDA available: True\n"
    after = "PyTorch version: 2.6.0+cu126\nIs CUDA available: False\n"
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    d = read_paste("old env:\n" + before + "\nafter upgrading:\n" + after + error, matrices=M, debug=True)
    assert torch_of(d.snapshot).version.value == "2.6.0+cu126"
    assert any("nearest the failure" in c for c in d.conflicts)
    # without an error line, the report that itself shows the failure wins ...
    assert torch_of(snap(before + after)).version.value == "2.6.0+cu126"
    assert torch_of(snap(after + before)).version.value == "2.6.0+cu126"
    # ... and when neither does, the first stays
    working = "PyTorch version: 2.6.0+cu126\nIs CUDA available: True\n"
    assert torch_of(snap(before + working)).version.value == "2.1.0+cu121"


def test_wrapped_messages_are_read_and_cite_the_pasted_line():
    soft = ("noise\nNVIDIA H100 PCIe with CUDA capability\nsm_90 is not compatible with the current PyTorch installation.\n"
            "The current PyTorch\ninstall supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.\n")
    d = read_paste(soft, matrices=M, debug=True)
    assert [(g.compute_capability, g.source) for g in d.snapshot.gpus] == [("9.0", "PyTorch warning line 2")]
    head = "2022-12-16 18:31:30.311235: W external/org_tensorflow/tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:497]"
    hard = f"{head} The NVIDIA driver's CUDA version is 11.\n0 which is older than the ptxas CUDA version (11.6.124)."
    assert len(hard.split("\n")[0]) >= 120
    d = read_paste(hard, matrices=M, debug=True)
    assert d.snapshot.driver.cuda_api.value == "11.0"
    assert d.snapshot.driver.cuda_api.source == "XLA error line 1"


@pytest.mark.parametrize("text,driver", [
    ("显卡驱动版本 470.82", "470.82"), ("ドライバーバージョン: 536.23", "536.23"), ("드라이버 버전 551.86", "551.86"),
    ("драйвер 535.104", "535.104"), ("controlador 560.94", "560.94"),
])
def test_driver_in_other_languages(text, driver):
    assert snap(text).driver.version.value == driver


@pytest.mark.parametrize("text", [
    "only Nvidia driver 546.33 and later is supported", "it requires driver 550 or newer", "needs at least driver 470",
    "minimum driver 525", "NVIDIA driver 550+ is required",
])
def test_a_driver_something_needs_is_not_the_installed_one(text):
    assert snap(text + "\n").driver.version.value is None


@pytest.mark.parametrize("text, fact, value", [
    ("CUDA版本：11.8", "cuda", "11.8"), ("cudnn版本: 8.9", "cudnn", "8.9"), ("pytorch的版本是1.13.1", "torch", "1.13.1"),
    ("torch版本为1.12.0", "torch", "1.12.0"), ("Pythonバージョン：3.10", "python", "3.10"),
    ("python版本为 3.9.21", "python", "3.9.21"),
])
def test_version_words_in_chinese_and_japanese(text, fact, value):
    s = snap(text + "\n")
    got = {"cuda": [rt.version for rt in s.cuda_runtimes or ()], "cudnn": [lib.version for lib in s.cudnn or ()],
           "torch": [fw.version.value for fw in s.frameworks or () if fw.name == "torch"],
           "python": [s.system.python.value]}[fact]
    assert got == [value]


@pytest.mark.parametrize("text, driver_cuda, installed", [
    ("我电脑是win11，自带的cuda是11.6，我安装了cuda10.2", "11.6", ["10.2"]),  # the one it came with
    ("the driver's CUDA 12.2 and I installed CUDA 11.8", "12.2", ["11.8"]),
    ("nvidia-smi shows CUDA 12.4", "12.4", []),
])
def test_the_drivers_cuda_said_in_words_is_not_an_installed_one(text, driver_cuda, installed):
    s = snap(text + "\n")
    assert s.driver.cuda_api.value == driver_cuda
    assert [rt.version for rt in s.cuda_runtimes or ()] == installed


def test_versions_glued_to_chinese_or_japanese_text():
    # no Unicode word boundary between 和 and cudnn: the names are matched on ASCII boundaries
    s = snap("按照说明装的是cudn10.1和cudnn-7.6.5，我安装了cuda11.8和torch2.1.0\n使用tf2.4版本\nPython3.10を使っています\n")
    assert [lib.version for lib in s.cudnn] == ["7.6.5"]
    assert [rt.version for rt in s.cuda_runtimes] == ["11.8"]
    assert {fw.name: fw.version.value for fw in s.frameworks} == {"torch": "2.1.0", "tensorflow": "2.4"}
    assert s.system.python.value == "3.10"


@pytest.mark.parametrize("text", ["我的显卡是 3090", "我的显卡是3090", "显卡：RTX3060", "我的显卡是RTX3060"])
def test_gpu_in_chinese_prose(text):
    assert [g.compute_capability for g in snap(text).gpus] == ["8.6"]


@pytest.mark.parametrize("text,nodes", [
    ("singularity exec image.sif python train.py", ()),  # no --nv: no /dev/nvidia*, no driver libraries
    ("singularity exec --nv image.sif python train.py", None),
    ("SINGULARITY_NV=1 singularity run image.sif", None),
    ("singularity build image.sif docker://ufoym/deepo", None),  # building asks for nothing
])
def test_singularity_without_nv_passes_no_gpu(text, nodes):
    assert snap(text).system.gpu_device_nodes.value == nodes


@pytest.mark.parametrize("text,wsl", [
    (" - OS: Arch Linux\n - WSL version (if applicable):\n - Docker Version: 20.10.18", None),
    ("WSL: N/A", None),
    ("#### Ubuntu app WSL: \nnvidia-smi fails", True),  # a heading, not an empty field
    ("WSL version: 2.0.9.0", True),
    ("Running on Windows 11 (not using WSL) and without a dedicated GPU.", None),  # said the other way round
    ('msg="gpu library search" globs="[/usr/lib/*-linux-gnu/libcuda.so* /usr/lib/wsl/lib/libcuda.so*]"', None),
    ("export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH", True),
])
def test_an_empty_template_field_says_nothing_about_wsl(text, wsl):
    assert snap(text).system.wsl.value is wsl


def test_conda_install_plan_says_which_build():
    plan = ("The following NEW packages will be INSTALLED:\n\n"
            "  jax                conda-forge/noarch::jax-0.4.4-pyhd8ed1ab_0\n"
            "  jaxlib             conda-forge/linux-64::jaxlib-0.4.4-cpu_py311h7146453_1\n")
    jax = next(fw for fw in snap(plan).frameworks if fw.name == "jax")
    assert (jax.version.value, jax.build.value) == ("0.4.4", "cpu")
    assert jax.build.source == "conda install plan line 4"
    cuda = plan.replace("cpu_py311h7146453_1", "cuda120py311h5e3a1b7_201")
    assert next(fw for fw in snap(cuda).frameworks if fw.name == "jax").build.value == "cuda"


@pytest.mark.parametrize("text", [
    "Download and install CUDA 10.0 from this URL: https://developer.nvidia.com/cuda",
    "Should i install cuda 8.0 for resolving this problem?",
    "TensorFlow requires CUDA 11.2",
    "is there any way to get it working without downgrading to CUDA v10.2?",  # where one would go, not what is
])
def test_a_cuda_asked_for_is_not_a_cuda_installed(text):
    assert not snap(text).cuda_runtimes


def test_nvcc_with_its_version_on_the_next_line_is_the_toolkit():
    s = snap("my system CUDA is newer:\n$ nvcc --version\n>>> 11.0\n")
    assert [(rt.kind, rt.version) for rt in s.cuda_runtimes] == [("toolkit", "11.0")]


def test_a_cuda_installed_is_read():
    assert [rt.version for rt in snap("I installed CUDA 11.8 yesterday").cuda_runtimes] == ["11.8"]


@pytest.mark.parametrize("text, driver", [
    ("Install DaemonSet v1.11 on k8s cluster. `nvidia-smi` shows 396.26, which doesn't support CUDA 10.", "396.26"),
    ("nvidia-smi says 535.104.05", "535.104.05"),
    ("nvidia-smi shows 100% utilization on GPU 0", None),  # a load, not a release
])
def test_a_driver_release_nvidia_smi_is_said_to_show(text, driver):
    s = snap(text)
    assert (s.driver.version.value if s.driver.version.known else None) == driver


@pytest.mark.parametrize("text, cudas", [
    ('I am using "xmrig-6.6.2" with "xmrig-cuda-6.5.0-cuda11_1-win64.zip"', []),  # the plugin's own release
    ("docker pull paddlepaddle/paddle:2.0.0-gpu-cuda10.2-cudnn7.6-trt7.0", ["10.2"]),  # an image tag's CUDA
    ("conda install pytorch pytorch-cuda=11.8 -c pytorch -c nvidia", ["11.8"]),
])
def test_a_package_named_name_cuda_version_is_not_a_cuda(text, cudas):
    assert [rt.version for rt in snap(text).cuda_runtimes or () if rt.kind != "driver"] == cudas


@pytest.mark.parametrize("text, build", [
    # Google's CUDA wheels before 0.1.60 had the CUDA in the index path, not in the file name
    ("pip install https://storage.googleapis.com/jax-releases/cuda101/jaxlib-0.1.42-cp36-none-linux_x86_64.whl", "cuda"),
    ("pip install --upgrade $BASE_URL/$CUDA_VERSION/jaxlib-0.1.42-$PYTHON_VERSION-none-$PLATFORM.whl\n"
     "pip install --upgrade jax", None),  # the file is named through shell variables: unknown
    ("pip install https://storage.googleapis.com/jax-releases/cuda11/jaxlib-0.1.74+cuda11.cudnn82-cp38-none-"
     "manylinux2010_x86_64.whl", "cuda"),
    ("pip install jaxlib==0.1.42", "cpu"),  # PyPI's plain jaxlib
])
def test_a_jaxlib_wheel_named_by_file_or_variable_is_no_cpu_build(text, build):
    jax = next((fw for fw in snap(text).frameworks or () if fw.name == "jax"), None)
    assert (jax.build.value if jax is not None and jax.build.known else None) == build


@pytest.mark.parametrize("text, os_value, release", [
    ("### OS\n\nWindows\n\n### GPU\n\ncuda\n", "windows", None),  # GitHub issue form: the answer under its label
    ("### OS\n\nLinux\n\n### GPU\n\nNvidia\n", "linux", None),
    ("**OS**\n- Ubuntu 22.04\n", "linux", "Ubuntu 22.04"),
    ("### Operating system\n\nWindows 11\n", "windows", "Windows 11"),
    ("### OS version\n\nnot sure\n", None, None),  # another label, no OS in the answer
])
def test_an_issue_forms_os_answer(text, os_value, release):
    s = snap(text)
    assert (s.system.os.value if s.system.os.known else None) == os_value
    assert (s.system.os_release.value if s.system.os_release.known else None) == release
