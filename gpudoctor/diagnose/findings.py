"""Signals (recognised error lines) -> GD8xx findings, and the combined report.

Where the paste says more than the message alone, the finding's category
says it too: a "no kernel image" error on a GPU older than every architecture
in the build is `arch-dropped`, newer is `arch-too-new-for-cuda`; a missing
libcuda.so under WSL2 is `wsl`.
"""

from __future__ import annotations

import dataclasses
import re

from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.arch_verdict import (arch_category, build_nvcc_lacks_gpu_arch, driver_top_cuda,
                                             gpus_older_than_the_cuda, message_arch_category, named_cudas,
                                             stated_cuda_cannot_target_gpu, xla_ptx_newer_than_driver)
from gpudoctor.diagnose.driver_verdict import stated_major_beyond_driver
from gpudoctor.diagnose.fallback import cpu_fallback_findings, wsl_host_findings
from gpudoctor.diagnose.install_verdict import pip_refusal_severity, variant_without_wheels_for_python
from gpudoctor.diagnose.catalog import load_catalog
from gpudoctor.diagnose.library_verdict import (LIBRARY_NOT_LOADED_CODES, TORCH_CUDNN_FIRST_FIX, TWO_CUDNN_MAJORS_FIX,
                                                bundles_its_cudnn, cuda_dirs_on_library_path, cudnn_loaded_from_library_path,
                                                cudnn_major_without_the_cuda, framework_with_another_cudnn_major,
                                                library_not_loaded_category, other_cuda_major_shown,
                                                other_cudnn_major_shown)
from gpudoctor.diagnose.collect import Read
from gpudoctor.doctor import Report, judge, verdicts
from gpudoctor.findings import Evidence, Finding, Fix, Outcome, RuleResult, Severity, sort_findings
from gpudoctor.matrices import Matrices
from gpudoctor.rules.libraries import shadow_fix
from gpudoctor.rules.registry import RULES
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import cuda_version

MAX_EVIDENCE = 3


def signal_findings(d: Diagnosis, m: Matrices | None = None) -> list[Finding]:
    entries = {e.id: e for e in load_catalog()}
    by_key: dict[tuple[str, str], Finding] = {}
    seen = {sig.entry for sig in d.signals}
    judged: dict[tuple[str, str | None], str | None] = {}
    # What the rest of the paste says, looked up once per paste, not once per message line.
    dropped_said = _release_dropped(d)
    majors = tuple(r.value for r in d.reads if r.fact == "cuda.stated_major")
    absent = any(r.fact == "cuda.absent_said" for r in d.reads)  # "CUDA toolkit is not installed"
    toolkit_shown = any(rt.kind != "driver" for rt in d.snapshot.cuda_runtimes or ())
    for sig in d.signals:
        entry = entries.get(sig.entry)
        if entry is None:
            continue
        if entry.with_gpu and d.snapshot.gpus:
            entry = dataclasses.replace(entry, code=FELL_BACK_TO_CPU, category=entry.with_gpu)
        if entry.in_wsl and d.snapshot.system.wsl.value:
            entry = dataclasses.replace(entry, code=entry.code or FELL_BACK_TO_CPU, category=entry.in_wsl)
        elif entry.on_windows and d.snapshot.system.os.value in ("windows", "darwin"):
            entry = dataclasses.replace(entry, category=entry.on_windows)
        if entry.code is None or entry.code not in RULES:
            continue
        if seen.intersection(entry.deferred_by):
            continue  # the paste also shows the message that names the real cause
        if entry.only_with and not seen.intersection(entry.only_with):
            continue  # a statement that means nothing without the message it explains
        pin = pip_refusal_severity(sig.text, d.snapshot.system.python.value) \
            if entry.id == "pip-old-release-no-file-here" else None
        if entry.id == "pip-old-release-no-file-here" and pin is None:
            continue  # a pin above every listed version may be a release not yet out: nothing to say
        if entry.id == "jaxlib-cuda-wheel-missing" and "+cuda" in sig.text.partition("from versions:")[2]:
            continue  # pip lists CUDA jaxlibs here: the platform has them, the pinned one is not in that index
        rule = RULES[entry.code]
        # The same for every line of one message: a log repeating it thousands of times is judged once.
        key = (entry.code, entry.category)
        if key not in judged:
            judged[key] = _category(entry.code, entry.category, d, m)
        category = judged[key]
        if entry.host_side and category == "container-no-gpu":
            category = entry.category  # the host's own fault, whatever ran in a container
        required = next((r.value for r in d.reads if r.fact == "cuda.required"), None) \
            if entry.id == "cmake-cuda-too-old" else None
        if required and gpus_older_than_the_cuda(d.snapshot, m, [required]):
            category = "arch-dropped"  # the CUDA the project needs has no code for the GPU
        if entry.id == "tf-kernel-dso-mismatch" and _image_libcuda_newer_than_host(sig.text, d.snapshot):
            category = "driver-too-old-for-runtime"
        severity = Severity.WARNING if pin is Severity.WARNING else None
        if entry.id == "ngc-container-driver-floor" and _same_cuda_major_as_image(d, m):
            severity = Severity.WARNING  # minor-version compatibility runs most of the image
        if entry.id == "ngc-container-driver-floor" and any(r.fact == "image.driver_detected" and r.value == "none"
                                                           for r in d.reads):
            category = "container-no-gpu"  # the entrypoint found no driver inside the container
        category = message_arch_category(entry.id, sig.text, d.snapshot, m) or category
        on_cpu = next((r for r in d.reads if r.fact == "code.device_cpu"), None) \
            if entry.id == "ctranslate2-compute-type-unsupported" else None
        if on_cpu is not None:
            severity = Severity.WARNING  # the code put the model on the CPU: its arguments, not the GPU, refuse float16
        if entry.code == "GD801" and xla_ptx_newer_than_driver(d.snapshot, m):
            category = "driver-too-old-for-runtime"
        if entry.code in LIBRARY_NOT_LOADED_CODES:
            category = library_not_loaded_category(sig.text, entry.frameworks, d.snapshot, majors) or \
                ("cudnn-missing" if absent and not toolkit_shown else category)
        l4t = next((r for r in d.reads if r.fact == "image.l4t_host_mounts_cuda"), None) \
            if entry.code in LIBRARY_NOT_LOADED_CODES | {"GD805"} else None
        if l4t is not None:
            category = "container-no-gpu"  # only the NVIDIA runtime brings an L4T r32 image its CUDA libraries
        if other_cudnn_major_shown(sig.text, sig.source, d.snapshot):
            category = "cudnn-version-mismatch"
        if other_cuda_major_shown(sig.text, sig.source, d.snapshot):
            category = "framework-cuda-mismatch"
        torch_first = next((r for r in d.reads if r.fact == "torch.imported"), None) \
            if entry.id in ("cudnn-version-mismatch-jax", "cudnn-version-mismatch-tf") else None
        if entry.code == "GD805" and cudnn_major_without_the_cuda(sig.text, d.snapshot, m):
            category = "framework-cuda-mismatch"
        other = framework_with_another_cudnn_major(sig.text, d.snapshot) if entry.code == "GD805" else None
        if other is not None and category != "cudnn-version-mismatch":
            category = "library-conflict"
        if entry.code == NO_DEVICE and (category or rule.category) == rule.category and _boundary(d.snapshot) is None \
                and not any(r.fact == "system.hosted_notebook" for r in d.reads):
            # No device, and no container, WSL or notebook session to hide it: as often CUDA_VISIBLE_DEVICES naming none.
            severity = Severity.WARNING
            category = entry.bare_metal or category
        if category == "arch-in-range" or (entry.code == "GD801" and category == "info"):
            # PyTorch warns for any capability above its highest, but a cubin serves every
            # later minor of its major: GB10 (12.1) runs the sm_120 kernels.
            category, severity = "info", Severity.INFO
        evidence = Evidence("error", sig.text, sig.source)
        fix = Fix(" ".join((entry.fix, *entry.steps)) + f" (source: {entry.source})", entry.commands)
        extra = []
        if category == "library-conflict" and other is not None:
            extra = [Evidence(f"{other.name}.cudnn", str(other.cudnn.value), other.cudnn.source)]
            fix = TWO_CUDNN_MAJORS_FIX
        if torch_first is not None:
            # torch in the same process loads its wheels' cuDNN; JAX/TF then find that one
            category = "library-conflict"
            extra = [Evidence("torch.imported", torch_first.value, torch_first.source)]
            fix = TORCH_CUDNN_FIRST_FIX
        if on_cpu is not None:
            extra = [*extra, Evidence("code.device_cpu", on_cpu.value, on_cpu.source)]
        if l4t is not None and category == "container-no-gpu":
            extra = [*extra, Evidence("image", l4t.value, l4t.source)]
            fix = L4T_RUNTIME_FIX
        dropped = dropped_said if entry.code == "GD801" and category == "arch-dropped" else None
        if dropped is not None:
            extra = [*extra, dropped]
        shadow = cudnn_loaded_from_library_path(d.snapshot) if entry.code == "GD806" else None
        on_path = cuda_dirs_on_library_path(d) if entry.code == "GD806" and shadow is None else None
        if shadow is not None:
            category = "library-conflict"
            extra = [Evidence("cudnn.ld_library_path", f"{shadow.version} at {shadow.path}", shadow.source)]
            fix = shadow_fix()
        elif on_path is not None and bundles_its_cudnn(sig.text, d.snapshot):
            # A wheel that brings its own cuDNN found another one, and LD_LIBRARY_PATH names a
            # CUDA or cuDNN directory: PyTorch's own message concludes the same.
            category = "library-conflict"
            extra = [Evidence("ld_library_path", on_path.value, on_path.source)]
            fix = shadow_fix()
        key = (entry.code, entry.id)
        if key in by_key:
            f = by_key[key]
            if len(f.evidence) < MAX_EVIDENCE:
                by_key[key] = dataclasses.replace(f, evidence=f.evidence + (evidence,))
            continue
        by_key[key] = rule.finding(entry.title, evidence=[evidence, *extra], category=category, severity=severity,
                                   fix=fix)
        if entry.code == DRIVER_INSUFFICIENT and (category or rule.category) == rule.category \
                and _driverless_container(d.snapshot, m):
            by_key[(entry.code, "container")] = rule.finding(
                "In a container, \"insufficient driver\" is also what CUDA says when it finds no driver at all",
                evidence=[evidence], category="container-no-gpu", severity=Severity.WARNING, fix=NO_DRIVER_MOUNTED_FIX)
    return list(by_key.values())


def _driverless_container(s: Snapshot, m: Matrices | None) -> bool:
    """The program ran in a container and the paste shows no driver (no version, no
    nvidia-smi answer): the CUDA runtime reports cudaErrorInsufficientDriver when
    libcuda.so is missing too, as in a container started without GPU access."""
    return _boundary(s) == "container-no-gpu" and driver_top_cuda(s, m) is None


NO_DRIVER_MOUNTED_FIX = Fix(
    "Run nvidia-smi inside the container: if it is missing or fails, the container got no GPU (start it with "
    "--gpus all, singularity/apptainer --nv, or the pod's nvidia.com/gpu limit, with the NVIDIA container toolkit "
    "installed); if it works, its driver is older than the image's CUDA: update the host driver. (source: an NVIDIA "
    "maintainer, https://github.com/NVIDIA/nvidia-docker/issues/24)",
    ("nvidia-smi", "docker run --rm --gpus all IMAGE nvidia-smi", "apptainer exec --nv IMAGE.sif nvidia-smi"))


_KERNEL_DSO = re.compile(r"kernel version (\d+)[\d.]* does not match DSO version (\d+)", re.I)


def _image_libcuda_newer_than_host(text: str, s: Snapshot) -> bool:
    """Inside a container, a libcuda of a newer branch than the host's kernel module is the
    image's CUDA forward-compatibility library: the image needs a newer driver than the host
    has (a reboot cannot help), not a driver upgrade finished by a reboot."""
    m = _KERNEL_DSO.search(text)
    return m is not None and _boundary(s) == "container-no-gpu" and int(m.group(2)) > int(m.group(1))


def _same_cuda_major_as_image(d: Diagnosis, m: Matrices | None) -> bool:
    """The host driver runs a CUDA of the same major as the driver release an NGC image was
    built for (580 and 595 both run CUDA 13): the image's libraries then work through CUDA
    minor-version compatibility, and only PTX newer than the driver fails to load."""
    floor = next((r.value for r in d.reads if r.fact == "image.driver_floor"), None)
    image = m.driver_max_cuda(floor) if m is not None and floor else None
    host = driver_top_cuda(d.snapshot, m)
    return image is not None and host is not None and image.major == host.major


def _release_dropped(d: Diagnosis) -> Evidence | None:
    """The reporter's words that a newer release stopped serving the GPU: "reintroduce support
    for compute capability 5.0", "the older version v0.10.1 still works"."""
    sig = next((s for s in d.signals if s.entry == "gpu-support-dropped-statement"), None)
    if sig is not None:
        return Evidence("said", sig.text, sig.source)
    read = next((r for r in d.reads if r.fact == "release.older_works"), None)
    return Evidence("said", read.value, read.source) if read is not None else None


def _category(code: str, entry_category: str | None, d: Diagnosis, m: Matrices | None) -> str | None:
    if code == "GD801":
        found = arch_category(d.snapshot, {r.fact: r.value for r in d.reads}, m)
        if found == "arch-not-in-build" and _release_dropped(d) is not None:
            found = "arch-dropped"  # inside the build's range, but the reporter says a release stopped carrying it
        return entry_category if found == "arch-not-in-build" and entry_category else found
    if code == CANNOT_TARGET and m is not None:
        # A compiler refuses an architecture it is too old or too new for. Below every architecture of
        # the CUDA the paste names (or, naming none, of the newest CUDA: CUDA 13's NVRTC rejects
        # Pascal), it is a CUDA that dropped the GPU.
        newest = max((v for t in m.toolkits if (v := cuda_version(t.version))), default=None)
        if gpus_older_than_the_cuda(d.snapshot, m, named_cudas(d.snapshot) or [newest]):
            return "arch-dropped"
    if code == DRIVER_INSUFFICIENT and gpus_older_than_the_cuda(d.snapshot, m, reads={r.fact: r.value for r in d.reads}):
        return "arch-dropped"  # the CUDA dropped the GPU: upgrading the driver cannot help
    if code == DRIVER_INSUFFICIENT and _boundary(d.snapshot) == "container-no-gpu" and _driver_runs_what_is_asked(d, m):
        # The host driver runs every CUDA the paste asks for: the runtime inside found no driver at all.
        return "container-no-gpu"
    if code in NO_GPU_CODES or entry_category == "no-driver":
        # "No driver" seen from inside WSL or a container (or a batch job given no GPU)
        # is about the boundary, not the machine: the driver belongs to the host.
        return _boundary(d.snapshot) or entry_category
    return entry_category


def _driver_runs_what_is_asked(d: Diagnosis, m: Matrices | None) -> bool:
    """Whether the driver the paste shows supports every CUDA it names (a toolkit, a
    build's CUDA, "should be fine for CUDA 12"), and it names at least one."""
    s = d.snapshot
    asked = [cuda_version(v) for v in named_cudas(s)] + [cuda_version(fw.cuda.value) for fw in s.frameworks or ()
                                                           if fw.cuda.known]
    top = driver_top_cuda(s, m)
    return top is not None and bool(asked) and all(v is not None and v <= top for v in asked)


# "CUDA driver version is insufficient for CUDA runtime version" and its other wordings.
DRIVER_INSUFFICIENT = "GD802"
# A compiler (nvcc, NVRTC, ptxas) that cannot target the GPU's architecture.
CANNOT_TARGET = "GD817"
# A CUDA library missing inside an L4T r32 container: what the NVIDIA runtime would have mounted.
L4T_RUNTIME_FIX = Fix("Start the container with the NVIDIA runtime (docker run --runtime nvidia, or "
                      "\"default-runtime\": \"nvidia\" in /etc/docker/daemon.json): up to L4T r32 (JetPack 4) it mounts "
                      "CUDA, cuDNN and TensorRT from the Jetson into the container, which has none of its own. (source: "
                      "https://catalog.ngc.nvidia.com/orgs/nvidia/containers/l4t-base)",
                      ("docker run --runtime nvidia -it IMAGE", "cat /etc/docker/daemon.json"))


# The warning a "running on the CPU" message becomes beside an NVIDIA GPU.
FELL_BACK_TO_CPU = "GD850"

# Codes whose message says "no driver / no device / no libcuda".
NO_GPU_CODES = {"GD803", "GD809", "GD813"}
NO_DEVICE = "GD809"  # "no CUDA-capable device is detected", "No CUDA GPUs are available"


def _boundary(s: Snapshot) -> str | None:
    """The category of the boundary the paste shows the program ran behind: WSL2
    ("wsl") or a container ("container-no-gpu"); None for neither."""
    if s.system.wsl.value:
        return "wsl"
    if s.system.container.known and s.system.container.value != "none":
        return "container-no-gpu"
    return None


# A paste shows what is there, rarely what is missing. These rules conclude
# from a missing fact, which on a live machine means "looked, not found" but in
# a paste means "not shown": a finding of theirs stands only when the paste
# showed the facts it needs.
ABSENCE_RULES = {
    # TensorFlow loads the cuDNN on the system (PyTorch and JAX bring theirs as wheels):
    # a paste that shows the system's cuDNN shows what TensorFlow will find.
    "GD404": ("no cuDNN of the needed major",
              lambda s, f: f.subject == "tensorflow" and bool(s.cudnn) and not any(lib.kind == "pip" for lib in s.cudnn)),
    "GD607": ("no GPU device nodes", lambda s, f: s.system.gpu_device_nodes.known),
    "GD609": ("no WSL libcuda", lambda s, f: s.system.wsl_libcuda.known),
}


def diagnose_report(d: Diagnosis, m: Matrices, debug: bool = False) -> Report:
    """The rules' report on the snapshot read, with the GD8xx findings added."""
    report = judge(d.snapshot, m, debug=debug)
    results: list[RuleResult] = []
    findings: list[Finding] = []
    for r in report.results:
        guard = ABSENCE_RULES.get(r.code)
        if guard and r.outcome is Outcome.FINDING:
            kept = tuple(f for f in r.findings if guard[1](d.snapshot, f))
            r = RuleResult(r.code, Outcome.FINDING, r.detail, kept) if kept else \
                RuleResult(r.code, Outcome.UNKNOWN, f"a paste cannot show {guard[0]}")
        results.append(r)
        findings += r.findings
    extra = signal_findings(d, m)
    extra += cpu_fallback_findings(d, findings + extra) + wsl_host_findings(d)
    extra += stated_cuda_cannot_target_gpu(d, m, findings + extra)
    extra += build_nvcc_lacks_gpu_arch(d, m, findings + extra)
    extra += stated_major_beyond_driver(d, m, findings + extra)
    if not any(f.code in ("GD503", "GD814") for f in findings + extra):
        extra += variant_without_wheels_for_python(d, m)
    results += [RuleResult(code, Outcome.FINDING, "", tuple(f for f in extra if f.code == code))
                for code in sorted({f.code for f in extra})]

    no_gpu_said = next((r for r in d.reads if r.fact == "machine.no_gpu_said"), None) or _on_macos(d)
    used = {r.value: r for r in reversed(d.reads) if r.fact == "precision.used"}

    def in_context(f: Finding) -> Finding:  # what the rest of the paste says of a finding's severity
        return _asked_precision(_no_gpu_said(_torch_carries_on(f, d), d, no_gpu_said), used)

    # The results carry the same findings as the list, so every view shows one verdict.
    results = [dataclasses.replace(r, findings=tuple(in_context(f) for f in r.findings)) if r.findings else r
               for r in results]
    findings = sort_findings([in_context(f) for f in findings + extra])
    return dataclasses.replace(report, findings=tuple(findings), results=tuple(results),
                               verdicts=tuple(verdicts(d.snapshot, m, findings, results)))


# Findings that say "no GPU reachable": on a machine the reporter says has none, expected.
_NO_GPU_FINDINGS = NO_GPU_CODES | {"GD816", "GD818", "GD820"}


def _no_gpu_said(f: Finding, d: Diagnosis, said: Read | None) -> Finding:
    """Where the reporter says the machine has no NVIDIA GPU (`said`: none at all, or only an Intel
    or AMD one) and the paste lists none, a GPU build's "no driver", "no device" or "insufficient
    driver" is what it prints there: no NVIDIA driver, because there is no NVIDIA GPU for one. A
    warning, not an error: a program that goes on on the CPU is working as it can there."""
    if said is None or d.snapshot.gpus or f.severity is Severity.INFO \
            or (f.code not in _NO_GPU_FINDINGS | {"GD802"} and f.category != "cpu-only-build"):
        return f
    return dataclasses.replace(f, severity=Severity.WARNING, category="no-driver",
                               evidence=(*f.evidence, Evidence("machine.no_gpu_said", said.value, said.source)),
                               fix=_NO_GPU_FIX)


def _on_macos(d: Diagnosis) -> Read | None:
    """macOS has had no NVIDIA CUDA since CUDA 10.2 (NVIDIA's last macOS release) and no
    framework ships a CUDA build for it: a Mac that lists no NVIDIA GPU has none to use."""
    os_fact = d.snapshot.system.os
    return Read("machine.no_gpu_said", "macOS", os_fact.source or "the paste") if os_fact.value == "darwin" else None


_NO_GPU_FIX = Fix("No NVIDIA GPU, so no NVIDIA driver: a CUDA build looks for the driver, says it found none, and "
                  "stops or runs on the CPU. On a machine without an NVIDIA GPU use the CPU build (or the program's "
                  "CPU, AMD or Intel mode); CUDA code needs an NVIDIA GPU.",
                  ("gpudoctor install torch --cpu", "gpudoctor install tensorflow --cpu"))


def _torch_carries_on(f: Finding, d: Diagnosis) -> Finding:
    """torch's "UserWarning: CUDA initialization: ..." is torch.cuda.is_available() answering
    False and the program going on on the CPU: where the paste shows no GPU, a warning."""
    if d.snapshot.gpus or f.code not in _NO_GPU_FINDINGS or f.severity is not Severity.ERROR:
        return f
    said = [e.value for e in f.evidence if e.fact == "error"]
    if not said or not all("UserWarning: CUDA initialization" in v for v in said):
        return f
    return dataclasses.replace(f, severity=Severity.WARNING)


def _asked_precision(f: Finding, used: dict[str, Read]) -> Finding:
    """A precision the GPU lacks (GD612, information) is a warning where the paste's program
    uses it (`used`, by precision): FP8 quantization on an RTX 3090, bfloat16 on a T4."""
    read = used.get(f.subject.rsplit(" ", 1)[-1]) if f.code == "GD612" and f.subject else None
    if read is None or f.severity is not Severity.INFO:
        return f
    return dataclasses.replace(f, severity=Severity.WARNING,
                               evidence=(*f.evidence, Evidence("precision.used", read.value, read.source)))


def read_data(d: Diagnosis) -> dict:
    """The "read" section of the JSON output: what was read from where."""
    return {
        "formats": list(d.formats),
        "facts": [_read(r) for r in d.reads],
        "errors": [{"entry": s.entry, "title": s.title, "code": s.code, "text": s.text, "source": s.source}
                   for s in d.signals],
        "conflicts": list(d.conflicts),
    }


def _read(r: Read) -> dict:
    return {"fact": r.fact, "value": r.value, "source": r.source}
