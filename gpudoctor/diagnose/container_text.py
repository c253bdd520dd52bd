"""Where a paste says the program ran: a container (the command that started it, an image, a
prompt inside one, a pod, a Singularity/Apptainer start, a batch job) and whether that start
asked for the GPU. Read by the free-text reader (freetext.py)."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, Facts, Read
from gpudoctor.diagnose.paste import Paste

# A container: the command that started it, a Dockerfile or compose file's image, a shell prompt inside one.
_CONTAINER = re.compile(r"\b(?:docker|podman|nerdctl)[ \t]+(?:run|exec|compose)\b|\bdocker-compose\b|"
                        r"^\s*(?:FROM|image:)[ \t]+\S*(?:nvidia/cuda|pytorch/pytorch|tensorflow/tensorflow|nvcr\.io)\S*|"
                        # any other GPU image a Dockerfile starts from: "FROM jrottenberg/ffmpeg:4.2-nvidia"
                        r"^[ \t]*(?-i:FROM)[ \t]+(?=[\w./:-]*(?i:nvidia|cuda|gpu))[\w.-]+(?:/[\w.-]+)*(?::[\w.-]+)?[ \t]*$|"
                        r"^root@[0-9a-f]{12}:|/\.dockerenv\b|"
                        r"\b(?:inside|within|in) (?:a |the |my |our |this )?(?:docker|container)\b|"
                        # the NVIDIA Container Toolkit's own variables: only a container reads them
                        r"\bNVIDIA_(?:VISIBLE_DEVICES|DRIVER_CAPABILITIES)\b|"
                        # a GPU image named with its registry: "763104351884.dkr.ecr.us-east-1.amazonaws.com/
                        # pytorch-inference:1.5.1-gpu-py36-cu101-ubuntu16.04", "ghcr.io/org/app:cuda12"
                        r"(?<![\w./-])(?:[\w-]+\.)+(?:io|com|net|org|cn|ai)(?::\d+)?/[\w./-]+:[\w.-]*(?:gpu|cuda|cu\d{2,3})[\w.-]*|"
                        # "docker容器", "docker 镜像", "dockerコンテナ", "容器内" (inside the container)
                        r"docker[ \t]*(?:容器|镜像|鏡像|コンテナ|컨테이너)|容器(?:内|中|里|裡)|"
                        # nvidia-docker (v1/v2) exists only to run GPU containers; a pulled GPU image is run next
                        r"\bnvidia-docker2?[ \t]+(?:run|pull|exec)\b|\bdocker[ \t]+pull[ \t]+\S*(?:cuda|gpu)|"
                        # docker-compose v1's and v2's progress lines: "Creating app_web_run ... done",
                        # " ✔ Container app-web-1  Started"
                        r"^(?:Creating|Starting|Recreating)[ \t]+[\w.-]{1,80}[ \t]+\.\.\.[ \t]+done\b|"
                        r"^[ \t]*(?:✔|✓)?[ \t]*Container[ \t]+[\w.-]{1,80}[ \t]{1,10}(?:Created|Started|Recreated|Running)\b|"
                        r"\b(?:pulled|pull|running|run|using|use|started|start|"
                        r"(?:installed|install(?:ation)?|deployed|deploy)[ \t]+(?:with|via|from|using|in))[ \t]+"
                        r"(?:the[ \t]+|an?[ \t]+|our[ \t]+|your[ \t]+)?(?:official[ \t]+)?docker[ \t]+(?:image|container)s?\b",
                        re.I | re.M)
# A `docker run` that asks for no GPU: no --gpus, no nvidia runtime, no device passed in.
_DOCKER_RUN = re.compile(r"\b(?:docker|podman)[ \t]+run\b[^\n]{0,400}", re.I)
_GPU_FLAGS = re.compile(r"--gpus|--runtime[ =]nvidia|--device|--privileged|nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|"
                        r"--nv\b|deploy:|capabilities", re.I)
_K8S = re.compile(r"\bkubectl\b|\bnvidia\.com/gpu\b|\bkind:[ \t]*(?:Pod|Deployment|DaemonSet|Job)\b|"
                  r"\b(?:on|in|with|to) (?:a |my |our |the )?(?:\w{1,12}-[\w-]{1,12} |managed |local |private |GPU |home )?"
                  r"(?:kubernetes|k8s|GKE|EKS|AKS)\b|"
                  r"\b(?:kubernetes|k3s|k0s|microk8s|openshift)[ \t]+v?\d+\.\d+|\b(?:in|inside) (?:a|the|my) pod\b",
                  re.I)
# Its start command, or the reporter saying they use one ("using a singularity container").
# Also as a program logs its argument list: ['singularity', '--silent', 'run', ...].
_SINGULARITY_START = (r"\b(?:singularity|apptainer)['\"]?,?(?:[ \t]+['\"]?-{1,2}(?:silent|quiet|debug|verbose|[sqdv])"
                      r"['\"]?,?)*[ \t]+['\"]?")
_SINGULARITY = re.compile(_SINGULARITY_START + r"(?:exec|run|shell|containers?|images?)\b", re.I)
# A Singularity/Apptainer start that asks for no GPU: without --nv (or --nvccli) the
# container gets neither /dev/nvidia* nor the driver's libraries.
_SINGULARITY_RUN = re.compile(_SINGULARITY_START + r"(?:exec|run|shell)\b[^\n]{0,400}", re.I)
# A batch job: what it sees is what the scheduler granted it.
_SLURM = re.compile(r"^#SBATCH\b|\b(?:srun|sbatch|salloc)[ \t]+-|\bSLURM_(?:JOB_ID|JOBID|NODELIST|STEP_GPUS)\b", re.M)
# The reporter saying nvidia-smi shows the GPU inside the container ("`nvidia-smi` within container will
# show that I have GPU available"): the device reached it.
_SMI_WORKS_INSIDE = re.compile(r"nvidia-smi`?[ \t]+(?:within|inside|in)[ \t]+(?:the[ \t]+|my[ \t]+)?container[^\n]{0,30}?"
                               r"\b(?:shows?|works?|lists?|sees?|displays?|detects?)\b", re.I)
# A SageMaker job or endpoint (the SDK's instance_type="ml.p3.2xlarge"): SageMaker runs every training
# job and endpoint as a Docker container of the image given to it (docs.aws.amazon.com/sagemaker/latest/dg/
# your-algorithms-inference-code.html), so what it sees of a GPU is what the instance passes in.
_SAGEMAKER = re.compile(r"\binstance_type[ \t]*=[ \t]*['\"]ml\.[a-z0-9]{1,6}\.\w{1,12}['\"]", re.I)
# (pattern, kind, needles: every match contains one of them, in lower case), first match wins.
_CONTAINER_CLUES = (
    (_K8S, "kubernetes", ("kubectl", "nvidia.com/gpu", "kind:", "kubernetes", "k8s", "gke", "eks", "aks", "k3s",
                          "k0s", "microk8s", "openshift", " pod")),
    (_CONTAINER, "docker", ("docker", "podman", "nerdctl", "root@", "container", "nvidia/cuda", "pytorch/pytorch",
                            "tensorflow/tensorflow", "nvcr.io", "... done", "from ", "nvidia_visible",
                            "nvidia_driver_cap", "容器", ".io/", ".com/", ".net/", ".org/", ".cn/", ".ai/")),
    (_SINGULARITY, "singularity", ("singularity", "apptainer")),
    (_SAGEMAKER, "docker", ("instance_type",)),
    (_SLURM, "slurm", ("#sbatch", "srun", "sbatch", "salloc", "slurm_")),
)


# An L4T r32 (JetPack 4) image: "dustynv/ros:noetic-pytorch-l4t-r32.5.0", "nvcr.io/nvidia/l4t-base:r32.7.1".
# Up to r32 the NVIDIA runtime mounts CUDA, cuDNN and TensorRT from the Jetson host into the container;
# from r34.1 on the images carry their own (https://catalog.ngc.nvidia.com/orgs/nvidia/containers/l4t-base).
_L4T_R32_IMAGE = re.compile(r"(?<![\w./:-])[\w./-]*(?:l4t[\w.-]*:r32|:[\w.-]*l4t-r32)\.\d+(?:\.\d+)?\b", re.I)


# A hosted notebook: Colab's URL or module, its /content working folder beside its dist-packages, Kaggle's
# /kaggle folders, or the reporter running there ("on Colab", "in a Kaggle notebook"). Its GPU is the
# accelerator chosen for the session: a runtime started without one has no GPU at all. "works on Colab"
# speaks of another machine than the failing one, so it is no clue.
_HOSTED_NOTEBOOK = re.compile(
    r"\bcolab\.research\.google\.com\b|\bgoogle\.colab\b|/kaggle/(?:working|input)\b"
    r"|(?<!works )(?<!worked )(?<!working )(?<!fine )\b(?:on|in|using|with) (?:google |a |the |my )?"
    r"(?:colab|kaggle)(?: (?:notebook|kernel|runtime|pro))?\b", re.I)
_HOSTED_NEEDLES = ("colab", "kaggle")


def container_clues(p: Paste, f: Facts, search) -> None:
    """The first container clue the paste shows, and a container start that asked for no GPU.
    `search(rx, needles)`: the first match of rx on the lines holding one of the needles."""
    for rx, kind, needles in _CONTAINER_CLUES:
        m = search(rx, needles)
        if m:
            f.put("system.container", kind, p.where("container clue", m.start(), claim=False), STATED)
            break
    hosted = search(_HOSTED_NOTEBOOK, _HOSTED_NEEDLES)
    if hosted:
        kind = "Kaggle" if "kaggle" in hosted.group(0).lower() else "Colab"
        f.extra_reads.append(Read("system.hosted_notebook", kind, p.where("hosted notebook", hosted.start(),
                                                                          claim=False)))
    image = search(_L4T_R32_IMAGE, ("l4t",))
    if image:
        f.extra_reads.append(Read("image.l4t_host_mounts_cuda", image.group(0), p.where("image", image.start(),
                                                                                       claim=False)))
    runs = [m for m in _DOCKER_RUN.finditer(p.text) if "nvidia-docker" not in m.group(0).lower()] \
        if "docker" in p.lower or "podman" in p.lower else []
    asked = next((m for m in runs if _GPU_FLAGS.search(m.group(0))), None)
    inside = search(_SMI_WORKS_INSIDE, ("container",)) if asked is not None else None
    if inside is not None:  # started with the GPU, and the reporter saw it inside: the image's framework is left
        f.extra_reads.append(Read("container.gpu_seen_inside", inside.group(0),
                                  p.where("free text", inside.start(), claim=False)))
    if runs and asked is None and not _GPU_FLAGS.search(p.text) \
            and "nvidia-docker" not in p.lower:
        # The container was started without asking for a GPU, so no /dev/nvidia* was passed in.
        f.put("system.gpu_device_nodes", (), p.where("docker run without --gpus", runs[0].start(), claim=False), STATED)
    starts = list(_SINGULARITY_RUN.finditer(p.text)) if "singularity" in p.lower or "apptainer" in p.lower else []
    if starts and not _GPU_FLAGS.search(p.text) and "SINGULARITY_NV" not in p.text and "APPTAINER_NV" not in p.text:
        f.put("system.gpu_device_nodes", (), p.where("singularity without --nv", starts[0].start(), claim=False), STATED)

