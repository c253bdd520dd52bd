"""Interpreter sessions and install commands in a paste: what the framework
answered, and which build the command asked for."""

import pytest

from gpudoctor.diagnose import read_paste
from gpudoctor.matrices import load_matrices

M = load_matrices(overlay=None)


def fw(text: str, name: str = "torch"):
    s = read_paste(text, matrices=M, debug=True).snapshot
    return next((x for x in s.frameworks or () if x.name == name), None)


def test_repl_answers_are_facts_with_their_line():
    t = fw(">>> import torch\n>>> torch.__version__\n'2.0.1+cpu'\n>>> torch.cuda.is_available()\nFalse\n")
    assert (t.version.value, t.build.value, t.deep.is_available) == ("2.0.1+cpu", "cpu", False)
    assert t.version.source == "interpreter output line 3"


def test_python_c_print_of_several_answers():
    t = fw('$ python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"\n'
           "2.1.0+cu121 12.1 False\n")
    assert (t.version.value, t.cuda.value, t.deep.is_available) == ("2.1.0+cu121", "12.1", False)


@pytest.mark.parametrize("answer", ["11.8", ">>> 11.8"])  # the reporter may mark the output with >>>
def test_python_c_print_of_a_cuda_version_is_a_version_not_a_number(answer):
    t = fw(f'$ python -c "import torch; print(torch.version.cuda)"\n{answer}\n')
    assert (t.cuda.value, t.build.value) == ("11.8", "cuda")


def test_jupyter_and_other_frameworks():
    s = read_paste("In [3]: torch.cuda.get_device_name(0)\nOut[3]: 'NVIDIA GeForce RTX 3090'\n"
                   ">>> tf.__version__\n'2.15.0'\n>>> tf.config.list_physical_devices('GPU')\n[]\n",
                   matrices=M, debug=True).snapshot
    assert [g.name for g in s.gpus] == ["NVIDIA GeForce RTX 3090"]
    tf = next(x for x in s.frameworks if x.name == "tensorflow")
    assert (tf.version.value, tf.deep.is_available) == ("2.15.0", False)


def test_a_session_pasted_without_its_prompts():
    t = fw("import torch\ntorch.cuda.is_available()\nFalse\n")
    assert t.deep.is_available is False and t.deep is not None
    assert fw("torch.__version__\n'2.1.0+cu121'\n").version.value == "2.1.0+cu121"


@pytest.mark.parametrize("text", [
    "torch.cuda.get_device_name(0)\nmodel = Net().cuda()\n",  # a script: its next line is code, not an answer
    "torch.cuda.is_available()\nx = 1\n",
])
def test_a_bare_expression_in_a_script_is_no_answer(text):
    s = read_paste(text, matrices=M, debug=True).snapshot
    t = next((x for x in s.frameworks or () if x.name == "torch"), None)
    assert not s.gpus and (t is None or t.deep is None or t.deep.is_available is None)


@pytest.mark.parametrize("text", [
    ">>> torch.__version__\nTraceback (most recent call last):\n",  # no answer
    ">>> x = torch.__version__; y = 1\n'2.0.1'\n",  # statements print nothing
    ">>> print(torch.__version__, torch.cuda.is_available())\n2.0.1\n",  # two asked, one answered
])
def test_no_fact_without_a_matching_answer(text):
    t = fw(text)
    assert t is None or t.version.value is None


@pytest.mark.parametrize("text,build,cuda", [
    ("Windows 11, RTX 4070\npip install torch torchvision torchaudio\n", "cpu", None),  # PyPI's Windows wheel
    ("Ubuntu 22.04\npip install torch torchvision\n", None, None),  # Linux's default: not a CPU build
    ("pip3 install torch --index-url https://download.pytorch.org/whl/cu118\n", "cuda", "11.8"),
    ("pip install torch==1.7.1+cu110 -f https://download.pytorch.org/whl/torch_stable.html\n", "cuda", "11.0"),
    ("uv pip install torch --extra-index-url https://download.pytorch.org/whl/cpu\n", "cpu", None),
])
def test_install_command_says_which_build(text, build, cuda):
    t = fw(text)
    assert (t.build.value if t else None, t.cuda.value if t else None) == (build, cuda)
    if t is not None and t.build.value:
        assert "line 1" in t.build.source or "install command line" in t.build.source


@pytest.mark.parametrize("text,build,cuda", [
    ("it installs with **pip install llama-cpp-python** and works, but loads to RAM", "cpu", None),  # PyPI's sdist
    ('CMAKE_ARGS="-DGGML_CUDA=on" pip install llama-cpp-python\n', None, None),  # a CUDA backend asked for
    ("set CMAKE_ARGS=-DLLAMA_CUBLAS=on\npip install llama-cpp-python==0.2.20\n", None, None),
    ("pip install llama-cpp-python --extra-index-url https://abetlen.github.io/llama-cpp-python/whl/cu124\n",
     "cuda", "12.4"),
    ("pip install llama-cpp-python --extra-index-url https://abetlen.github.io/llama-cpp-python/whl/cpu\n",
     "cpu", None),
    ("macOS 14.4 on an M2\npip install llama-cpp-python\n", None, None),  # Metal is the default build there
])
def test_llama_cpp_python_install_says_which_build(text, build, cuda):
    t = fw(text, "llama-cpp-python")
    assert (t.build.value if t else None, t.cuda.value if t else None) == (build, cuda)


def test_a_cpu_llama_cpp_python_beside_a_gpu_gets_its_own_rebuild_commands():
    from gpudoctor.diagnose.findings import diagnose_report
    d = read_paste("RTX 2060\npip install llama-cpp-python\n", matrices=M, debug=True)
    f = next(f for f in diagnose_report(d, M).findings if f.code == "GD501")
    assert f.category == "cpu-only-build" and any("GGML_CUDA=on" in c for c in f.fix.commands)


def test_installed_torch_outranks_the_command():
    t = fw("Windows 10\npip install torch\n>>> torch.__version__\n'2.3.1+cu121'\n")
    assert (t.version.value, t.build.value) == ("2.3.1+cu121", "cuda")


def gd820(text: str):
    from gpudoctor.diagnose.findings import diagnose_report

    report = diagnose_report(read_paste(text, matrices=M, debug=True), M, debug=True)
    return [f.category for f in report.findings if f.code == "GD820"]


UNAVAILABLE = '>>> import torch\n>>> torch.cuda.is_available()\nFalse\n'


@pytest.mark.parametrize("where,category", [
    ("root@3f2a9c1b7d4e:/workspace# python\n", "container-no-gpu"),
    ("Ubuntu 22.04 on WSL2\n", "wsl"),
    ("Windows 11, RTX 4070\n", "cpu-only-build"),
    ("Ubuntu 22.04, RTX 4070\n", None),  # on Linux nothing here says which cause it is
    ("Docker Desktop (WSL2 backend): docker compose up -d\n", "container-no-gpu"),  # the inner boundary
])
def test_cuda_unavailable_gets_the_cause_where_it_runs_implies(where, category):
    assert gd820(where + UNAVAILABLE) == ([category] if category else [])


def test_a_cpu_fallback_warning_in_a_container():
    autocast = ("UserWarning: User provided device_type of 'cuda', but CUDA is not available. Disabling\n"
                "How do I get CUDA with the docker images?\n")
    assert gd820("After I pulled the docker image:\n" + autocast) == ["container-no-gpu"]


@pytest.mark.parametrize("where,category", [
    ("I'm deploying ollama in a self-hosted kubernetes cluster.\n", "container-no-gpu"),
    ("Ubuntu 22.04 on WSL2\n", "wsl"),
    ("Ubuntu 22.04\n", None),  # the words alone name no cause
])
def test_a_reporter_saying_the_gpu_is_not_seen(where, category):
    said = "When the pod starts, it is not able to find the GPUs.\n"
    assert gd820(where + said) == ([category] if category else [])


def test_no_guess_where_another_finding_explains_it():
    explained = ("Windows 11\n>>> torch.__version__\n'2.3.1+cpu'\n" + UNAVAILABLE)
    assert gd820(explained) == []  # GD501 says it: a CPU build


_JAX_CPU_ANSWER = ">>> import jax\n>>> jax.devices()\n[CpuDevice(id=0)]\n"


@pytest.mark.parametrize("listing, build", [
    ("$ pip list | grep jax\njax                0.4.30\njaxlib             0.4.30\n", "cpu"),  # no CUDA part at all
    ("$ pip list | grep jax\njax                0.4.30\njaxlib             0.4.30\n"
     "jax-cuda12-plugin  0.4.30\njax-cuda12-pjrt    0.4.30\n", "cuda"),  # the plugin is there: it failed to start
    ("Name: jaxlib\nVersion: 0.4.30\n", None),  # `pip show jaxlib` does not say what else is installed
])
def test_jax_answering_cpu_only_with_no_cuda_part_listed_is_a_cpu_build(listing, build):
    t = fw(_JAX_CPU_ANSWER + "\n" + listing + "GPU: RTX 3090\n", "jax")
    assert t.build.value == build


@pytest.mark.parametrize("text, build", [
    ("pip install jax\n", "cpu"),  # PyPI's jaxlib is the CPU build
    ("pip install -U jax jaxlib==0.4.13\n", "cpu"),
    ('pip install -U "jax[cuda12]"\n', "cuda"),
    ("pip install jax[cuda12_pip] -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html\n", "cuda"),
    ("pip install jaxlib==0.1.67+cuda111 -f https://storage.googleapis.com/jax-releases/jax_releases.html\n", "cuda"),
    ("pip install jax\npip install -U jax-cuda12-plugin\n", "cuda"),  # a later command added the CUDA part
    ("pip install jax\n>>> jax.devices()\n[CudaDevice(id=0)]\n", "cuda"),  # it answered with a GPU: the answer decides
    ("macOS 14 on an M2\npip install jax\n", None),
])
def test_a_jax_install_command_says_which_build(text, build):
    t = fw(text, "jax")
    assert (t.build.value if t else None) == build


@pytest.mark.parametrize("text, build", [
    ("conda install pytorch torchvision torchaudio cpuonly -c pytorch\n", "cpu"),
    ("conda install pytorch torchvision pytorch-cuda=12.1 -c pytorch -c nvidia\n", None),
    ("conda install pytorch cpuonly -c pytorch\n>>> torch.cuda.is_available()\nTrue\n", None),
])
def test_condas_cpuonly_says_a_cpu_build(text, build):
    t = fw(text)
    assert (t.build.value if t else None) == build


@pytest.mark.parametrize("text, answer", [
    ("torch.cuda.is_available() returns False on my RTX 3060\n", False),
    ("I checked and cuda.is_available() gives false.\n", False),
    ("我的显卡是RTX 3060，但是torch.cuda.is_available()返回False\n", False),
    ("torch.cuda.is_available() -> True, but training is slow\n", True),
    ("torch.cuda.is_available() should return True but it does not\n", None),  # what is expected, not the answer
    ("if torch.cuda.is_available() == False: device = 'cpu'\n", None),  # code, not an answer
])
def test_an_answer_quoted_in_a_sentence_is_a_stated_fact(text, answer):
    t = fw(text)
    assert (t.deep.is_available if t and t.deep else None) == answer
    if answer is not None:
        assert "free text line 1" in next(r.source for r in read_paste(text, matrices=M).reads
                                          if r.fact == "torch.is_available")


@pytest.mark.parametrize("text, build, cuda, version", [
    ("my torch.version.cuda is 9.0.176, but my nvcc --version is 10.0\n", "cuda", "9.0", None),
    ("torch.version.cuda returns None here\n", "cpu", None, None),
    ("torch.__version__ is 1.13.1+cu117\n", "cuda", "11.7", "1.13.1+cu117"),  # its wheel tag names the build
    ("torch.version.cuda should be 12.1\n", None, None, None),  # what is expected, not the answer
    ("I expected torch.version.cuda = 12.1 after the install\n", None, None, None),
])
def test_a_version_quoted_in_a_sentence_is_a_stated_fact(text, build, cuda, version):
    t = fw(text)
    assert (t.build.value if t else None, t.cuda.value if t else None, t.version.value if t else None) == \
        (build, cuda, version)


def test_a_pip_pin_glued_to_chinese_text_keeps_its_version_only():
    assert fw("tensorflow-gpu==1.14.0下默认使用cpu进行训练\n", "tensorflow").version.value == "1.14.0"
    assert fw("- TensorFlow==2.3.\n", "tensorflow").version.value == "2.3"  # the sentence's full stop


def test_a_sentence_quoting_false_on_windows_names_the_cpu_wheel():
    assert gd820("I installed torch from pip on windows 10 and torch.cuda.is_available() gives False\n") == \
        ["cpu-only-build"]


@pytest.mark.parametrize("said", [
    "it uses the CPU instead of the GPU", "training still runs on CPU", "the model is not using my GPU",
    "PyTorch не видит видеокарту", "检测不到GPU", "GPUが認識されない", "no detecta la GPU",
])
def test_a_reporter_saying_it_runs_on_the_cpu_in_any_wording(said):
    assert gd820("Windows 11, RTX 4070\n" + said + "\n") == ["cpu-only-build"]


@pytest.mark.parametrize("text, build", [
    ("pip install paddlepaddle==2.6.1 paddleocr\n", "cpu"),  # the CPU build's name; the CUDA one is paddlepaddle-gpu
    ("pip install paddlepaddle-gpu==2.6.1.post120\n", "cuda"),
    (">>> paddle.device.is_compiled_with_cuda()\nFalse\n", "cpu"),
])
def test_paddles_package_name_and_its_answer_say_the_build(text, build):
    assert fw(text, "paddle").build.value == build


@pytest.mark.parametrize("text, category", [
    ("I built dlib with cuda support, but there is no activity on my GPU.\n", ["cpu-only-build"]),
    ("face_recognition: my cpu load goes astronomical and the gpu does nothing\n", ["cpu-only-build"]),
    (">>> dlib.DLIB_USE_CUDA\nTrue\nface_recognition seems to fall back to the CPU\n", []),  # built with CUDA
])
def test_dlib_running_on_the_cpu_is_most_often_a_build_without_cuda(text, category):
    assert gd820(text) == category


@pytest.mark.parametrize("build, category", [
    ("Microsoft Windows [version10.0.19043.1200]", ["wsl"]),  # Windows 10 21H1: no GPU in WSL 2
    ("Microsoft Windows [Version 10.0.19045.3803]", []),  # 22H2
    ("Windows build 22631", []),  # Windows 11
])
def test_wsl_on_a_windows_build_before_gpu_support_has_no_gpu(build, category):
    assert gd820(f"### Windows Build Number\n\n{build}\n\n### WSL Version\n\n- [X] WSL 2\n") == category
