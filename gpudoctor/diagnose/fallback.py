"""When a paste says CUDA is unavailable and no finding says why: the one likely
cause that where the program runs implies (a container, WSL 2, native Windows,
a library built at install time, a hosted notebook), and a WSL 2 whose Windows
predates GPU support."""

from __future__ import annotations

from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.gpu_text import JETSON, on_jetson
from gpudoctor.findings import CATEGORIES, Evidence, Finding, Fix, Severity
from gpudoctor.rules.registry import RULES


# Messages that say "CUDA is unavailable to this program" and no more.
CPU_FALLBACK_MESSAGES = {"cuda-not-available", "torch-extension-build-no-cuda-runtime", "whisper-fp16-on-cpu",
                         "torch-deserialize-cuda", "yolo-cuda-unavailable",
                         "lightning-gpus-requested-none-available", "jax-no-gpu-fallback", "rvc-no-nvidia-gpu-found",
                         "torch-half-op-on-cpu", "torch-autocast-cuda-unavailable", "gpu-not-detected-statement",
                         "a1111-torch-cuda-test-failed", "gpu-lost-after-install-statement",
                         "invokeai-device-type-cpu", "easyocr-defaulting-to-cpu", "tgi-quantize-on-cpu",
                         "unsloth-no-accelerator", "quantization-needs-gpu", "mlc-device-not-found",
                         "deepspeed-no-accelerator", "xgboost-no-visible-gpu", "tcnn-torch-without-cuda",
                         "tcnn-build-no-gpu-visible", "lightning-cuda-accelerator-unavailable"}
# Categories of a finding that already says why CUDA is unavailable.
_EXPLAINS = CATEGORIES - {"precision-unsupported", "smoke-failure", "performance", "info", "policy"}


def cpu_fallback_findings(d: Diagnosis, findings: list[Finding]) -> list[Finding]:
    """CUDA is unavailable to the framework and no finding says why: the one
    likely cause that where it runs implies. A container started without GPU
    access shows no GPU; under WSL the Windows driver provides CUDA; on Windows a
    plain `pip install torch` is PyPI's CPU-only wheel. Elsewhere nothing is said."""
    s = d.snapshot
    said = [sig for sig in d.signals if sig.entry in CPU_FALLBACK_MESSAGES]
    off = [fw for fw in s.frameworks or () if fw.deep is not None and fw.deep.is_available is False]
    if not (said or off) or any(f.severity is not Severity.INFO and f.category in _EXPLAINS for f in findings):
        return []
    evidence = [Evidence("said" if sig.reporters_words else "error", sig.text, sig.source) for sig in said[:2]] + \
        [Evidence(f"{fw.name}.is_available", "False", next((r.source for r in d.reads
                                                             if r.fact == f"{fw.name}.is_available"), "the paste"))
         for fw in off[:1]]
    container, wsl, os_name = s.system.container.value, s.system.wsl.value, s.system.os.value
    torch = s.framework("torch")
    rule = RULES["GD820"]
    # A container under WSL2 (Docker Desktop's WSL2 backend) is the inner boundary: with no
    # message that names the WSL2 side, a container not given the GPU is the likelier cause.
    seen = next((r for r in d.reads if r.fact == "container.gpu_seen_inside"), None)
    if container not in (None, "none") and seen is not None and (torch is None or torch.build.value in (None, "cpu")):
        # Started with the GPU (--gpus, the nvidia runtime) and nvidia-smi sees it inside: the device reached
        # the container, so a framework that still finds no CUDA is most often the image's CPU-only build.
        evidence.append(Evidence("container.gpu_seen_inside", seen.value, seen.source))
        return [rule.finding(
            "CUDA is unavailable inside a container started with GPU access: most often the image installed a "
            "CPU-only build of the framework", evidence=evidence, category="cpu-only-build",
            fix=Fix("Check inside the container (`nvidia-smi`, then torch.version.cuda: None is a CPU build) and "
                    "install the CUDA build in the image (pip's --index-url https://download.pytorch.org/whl/cuXXX, "
                    "or a CUDA base image's framework).", ("nvidia-smi", "gpudoctor install torch")))]
    if container not in (None, "none"):
        evidence.append(Evidence("system.container", str(container), s.system.container.source))
        return [rule.finding(
            f"CUDA is unavailable inside this {container} container: it was most likely started without GPU access",
            evidence=evidence, category="container-no-gpu",
            fix=Fix("Start it with GPU access: docker run --gpus all (compose: deploy.resources.reservations.devices "
                    "with capabilities [gpu]); Kubernetes: a nvidia.com/gpu limit, the NVIDIA device plugin and "
                    "runtimeClassName: nvidia; Singularity/Apptainer: --nv. The host needs the NVIDIA Container Toolkit.",
                    ("docker run --rm --gpus all IMAGE nvidia-smi",)))]
    if wsl:
        evidence.append(Evidence("system.wsl", "True", s.system.wsl.source))
        return [rule.finding(
            "CUDA is unavailable under WSL 2: the Windows NVIDIA driver must provide it (/usr/lib/wsl/lib)",
            evidence=evidence, category="wsl",
            fix=Fix("Install or update the NVIDIA driver on Windows (never a Linux driver inside WSL), run "
                    "`wsl --update`, then check `nvidia-smi` inside WSL.", ("ls -l /usr/lib/wsl/lib/libcuda*", "nvidia-smi")))]
    dlib = s.framework("dlib")
    if dlib is not None and dlib.build.value != "cuda":
        # dlib compiles at install time and uses CUDA only if its CMake found CUDA and cuDNN
        # then; built without, it runs on the CPU and says nothing (dlib.DLIB_USE_CUDA tells).
        return [rule.finding(
            "dlib is running on the CPU: most often it was built without CUDA (dlib.DLIB_USE_CUDA is False)",
            evidence=evidence, category="cpu-only-build",
            fix=Fix("Check `python -c \"import dlib; print(dlib.DLIB_USE_CUDA)\"`; if False, rebuild dlib where "
                    "the CUDA toolkit and cuDNN are installed, and read CMake's output for 'DLIB WILL USE CUDA'.",
                    ('python -c "import dlib; print(dlib.DLIB_USE_CUDA)"',
                     "pip install --no-cache-dir --force-reinstall dlib")))]
    plain = torch is None or torch.version.value is None or "+" not in str(torch.version.value)
    if os_name == "windows" and plain and (torch is None or torch.build.value in (None, "cpu")):
        evidence.append(Evidence("system.os", "windows", s.system.os.source))
        return [rule.finding(
            "CUDA is unavailable on Windows: most often PyPI's torch, which is a CPU-only build there",
            evidence=evidence, category="cpu-only-build",
            fix=Fix("Check `torch.version.cuda` (None: a CPU build); install a CUDA build from the PyTorch index "
                    "(`gpudoctor install torch` prints the command for this machine).", ("gpudoctor install torch",)))]
    plain_tf = next((r for r in d.reads if r.fact == "tensorflow.plain_wheel_cpu_only"), None)
    if plain_tf is not None:
        evidence.append(Evidence("tensorflow.plain_wheel_cpu_only", plain_tf.value, plain_tf.source))
        return [rule.finding(
            f"CUDA is unavailable to TensorFlow {plain_tf.value.split()[0]}: that release's `tensorflow` wheel is "
            "CPU-only", evidence=evidence, category="cpu-only-build",
            fix=Fix("Up to 1.14, and in 2.0, the GPU build is the separate tensorflow-gpu package: install it "
                    "(pip install tensorflow-gpu==VERSION) in place of tensorflow, or a release from 1.15 (not 2.0) "
                    "on, whose tensorflow wheel includes GPU support. (source: tensorflow/tensorflow RELEASE.md, "
                    "1.15.0 and 2.1.0)", ("pip uninstall -y tensorflow", "gpudoctor install tensorflow")))]
    lost = next((sig for sig in said if sig.entry == "gpu-lost-after-install-statement"), None)
    if lost is not None:
        return [rule.finding(
            "CUDA became unavailable after installing a package: most often its requirements replaced the "
            "framework's GPU build with a CPU-only one", evidence=evidence, category="cpu-only-build",
            fix=Fix("Check which build is installed now (torch.version.cuda None, tensorflow-cpu, a jaxlib without "
                    "its CUDA plugin) and reinstall the GPU build after the package, or install the package with "
                    "--no-deps.", ("pip list | grep -i -E 'torch|tensorflow|jax'", "gpudoctor install torch")))]
    hosted = next((r for r in d.reads if r.fact == "system.hosted_notebook"), None)
    if hosted is not None and not s.gpus and (torch is None or torch.build.value in (None, "cuda")) \
            and all(f.severity is Severity.INFO for f in findings):
        # No GPU shown, none implied (a GPU's precision limit is), and CUDA unavailable in a hosted
        # notebook: its session got no GPU accelerator.
        evidence.append(Evidence("system.hosted_notebook", hosted.value, hosted.source))
        menu = "Settings > Accelerator > GPU" if hosted.value == "Kaggle" else "Runtime > Change runtime type > GPU"
        return [rule.finding(
            f"CUDA is unavailable in a {hosted.value} notebook: most often its session runs without a GPU accelerator",
            evidence=evidence, category="container-no-gpu",
            fix=Fix(f"Choose a GPU accelerator ({menu}), restart the session, and check `!nvidia-smi` before running "
                    "the code again; a quota that ran out also gives a session without one.", ("nvidia-smi",)))]
    if on_jetson(s) and (torch is None or torch.build.value in (None, "cpu")):
        # PyPI's and conda's aarch64 wheels are CPU-only or SBSA (server) builds: neither drives
        # Tegra's integrated GPU; only NVIDIA's JetPack builds do (install_channels.toml [[jetson]]).
        gpu = next(g for g in s.gpus or () if JETSON.search(g.name or ""))
        evidence.append(Evidence(f"gpus[{gpu.index}].name", str(gpu.name), gpu.source))
        return [rule.finding(
            f"CUDA is unavailable on a Jetson ({gpu.name}): most often a wheel not built for it (PyPI's and "
            "conda's aarch64 builds do not drive the Jetson's GPU)", evidence=evidence, category="cpu-only-build",
            fix=Fix("Install NVIDIA's PyTorch build for your JetPack release (or use its l4t-pytorch container); "
                    "`gpudoctor install torch` on the Jetson names it. (source: https://docs.nvidia.com/deeplearning/"
                    "frameworks/install-pytorch-jetson-platform/index.html)",
                    ("cat /etc/nv_tegra_release", "gpudoctor install torch")))]
    return []


def _wsl_gpu_capable(build: int) -> bool:
    """Windows builds whose WSL 2 offers the GPU: Windows 10 21H2 and 22H2 (19044, 19045), the
    Insider builds from 20145, and Windows 11 (22000 on)."""
    return build in (19044, 19045) or build >= 20145


def wsl_host_findings(d: Diagnosis) -> list[Finding]:
    """Under WSL 2 the GPU comes from Windows: a Windows build older than GPU support in
    WSL 2 gives the Linux side no GPU at all, whatever is installed in it."""
    shown = next((r for r in d.reads if r.fact == "windows.build"), None)
    if not d.snapshot.system.wsl.value or shown is None or _wsl_gpu_capable(int(shown.value)):
        return []
    return [RULES["GD820"].finding(
        f"WSL 2 has no GPU on Windows build {shown.value}: GPU access needs Windows 11, or Windows 10 21H2 "
        "(build 19044) or newer", category="wsl",
        evidence=[Evidence("windows.build", shown.value, shown.source),
                  Evidence("system.wsl", "True", d.snapshot.system.wsl.source)],
        fix=Fix("Update Windows (Windows 11, or Windows 10 21H2/22H2), then the NVIDIA Windows driver and "
                "`wsl --update`. (source: https://learn.microsoft.com/en-us/windows/ai/directml/gpu-cuda-in-wsl)",
                ("winver", "wsl --update")))]
