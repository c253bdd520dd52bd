"""Which side of a build's architectures a GPU is on: below it (the build
dropped the GPU), above it (the build's CUDA predates the GPU) or inside it
(a gap in the build). The verdict behind "no kernel image" and behind a
driver error on a GPU the CUDA no longer compiles for."""

from __future__ import annotations

import re

from gpudoctor.compat import parse_arch_list
from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.build import OS_WHEEL_PLATFORM
from gpudoctor.diagnose.gpu_text import on_jetson
from gpudoctor.findings import Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.registry import RULES
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import compute_capability, cuda_version


def newest_ccs(s: Snapshot, reads: dict[str, str]) -> list | None:
    """Per GPU its compute capability, or for a name sold as boards of several
    (a GT 640) the newest of them: an upper bound, good for "older than" only.
    None where a GPU has neither."""
    out = []
    for g in s.gpus or ():
        cc = compute_capability(g.compute_capability) or compute_capability(reads.get(f"gpu.cc_newest.{g.name}"))
        if cc is None:
            return None
        out.append(cc)
    return out


def gpus_older_than_the_cuda(s: Snapshot, m: Matrices | None, cudas: list | None = None,
                             reads: dict[str, str] | None = None) -> bool:
    """Whether every GPU is older than every architecture the paste's CUDA (a
    toolkit, or a framework build's CUDA) compiles for: that CUDA has no code
    for the GPU, so a newer driver would only trade the driver error for a
    missing-kernel one (a Quadro 600, Fermi, under CUDA 11)."""
    ccs = newest_ccs(s, reads or {}) or []
    if cudas is None:  # the CUDAs the paste shows; a caller may name the one that matters instead
        cudas = named_cudas(s) + [fw.cuda.value for fw in s.frameworks or () if fw.cuda.known]
    supported = [m.arch_support(v) for v in dict.fromkeys(cudas) if v and m is not None]
    floors = [min(c for c in map(compute_capability, sms) if c) for sms in supported if sms]
    return bool(ccs and floors) and all(c is not None and c < min(floors) for c in ccs)


def arch_category(s: Snapshot, reads: dict[str, str], m: Matrices | None) -> str:
    """Whether the GPU is below or above what the build covers: from the
    build's arch list, else PyTorch's stated range, else what the build's CUDA
    can compile for at all (a cu121 build has nothing for sm_120)."""
    ccs = [c for c in (compute_capability(g.compute_capability) for g in s.gpus or ()) if c is not None]
    low = high = reach = None
    for fw in s.frameworks or ():
        entries = parse_arch_list(fw.arch_list.value or ())
        if fw.cuda.known and m is not None:
            can = parse_arch_list(m.arch_support(fw.cuda.value))
            reach = max((e.cc for e in can), default=None)
            entries = entries or can
        if entries and _asked_for_not_installed(fw, entries, ccs):
            reach = None
            continue
        if entries:
            low, high = min(e.cc for e in entries), max(e.cc for e in entries)
            break
    low = compute_capability(reads.get("torch.cc_min")) or low
    high = compute_capability(reads.get("torch.cc_max")) or high
    if ccs and low and all(c < low for c in ccs):
        return "arch-dropped"
    if ccs and high and all(c > high and c.major != high.major for c in ccs):
        # Above the build's arch list: its CUDA predates the GPU, unless that CUDA could compile
        # for it and the build left it out (TensorFlow 2.15, CUDA 12.2, built up to compute_80, on an H100).
        reached = reach is not None and all(c <= reach or c.major == reach.major for c in ccs)
        return "arch-not-in-build" if reached else "arch-too-new-for-cuda"
    if ccs and low and high and reads.get("torch.cc_max") and all(low <= c and c.major == high.major for c in ccs):
        return "arch-in-range"
    if ccs and low is None and high is None and m is not None:
        return _against_stated_cuda(ccs, s, m) or _own_build(ccs, s, reads, m) \
            or _against_the_drivers_builds(ccs, s, m) or _against_the_stated_cudas_builds(ccs, s, m) \
            or _against_current_builds(ccs, m)
    bounds = newest_ccs(s, reads) if not ccs else None
    if bounds and (all(b < low for b in bounds) if low else m is not None and "arch-dropped" in (
            _against_stated_cuda(bounds, s, m), _against_the_drivers_builds(bounds, s, m),
            _against_current_builds(bounds, m))):
        return "arch-dropped"  # every board the name is sold as is older than the build or the CUDA
    return "arch-not-in-build"


def _asked_for_not_installed(fw, entries: list, ccs: list) -> bool:
    """A build known only from the paste's install command ("--index-url .../cu128") whose
    architectures cover the GPU that the error says the build lacks: the command did not
    reach the environment that failed (another Python, a venv the app does not use), so it
    says nothing of the build there."""
    if not ccs or not (fw.cuda.source or "").startswith("install command"):
        return False
    low, high = min(e.cc for e in entries), max(e.cc for e in entries)
    return all(low <= c and (c <= high or c.major == high.major) for c in ccs)


def _against_stated_cuda(ccs: list, s: Snapshot, m: Matrices) -> str | None:
    """With the build unknown, the one CUDA the paste names (a toolkit, "CUDA 10.1")
    bounds what a build for it can carry: CUDA 10.1 compiles nothing for an RTX
    3090's sm_86, CUDA 12 nothing for a K80. None where it does not decide: a
    stated CUDA is as often the driver's, which says nothing of the build."""
    cudas = named_cudas(s)
    verdict = _cannot_target(ccs, m.arch_support(cudas[0])) if len(cudas) == 1 else None
    return verdict[0] if verdict else None


def named_cudas(s: Snapshot) -> list[str]:
    """The CUDAs a paste names other than the driver's (toolkits, "I have CUDA 11.2"), once each."""
    return list(dict.fromkeys(v for rt in s.cuda_runtimes or () if rt.kind != "driver" and (v := rt.nvcc or rt.version)))


def driver_top_cuda(s: Snapshot, m: Matrices | None):
    """The newest CUDA the paste's driver runs: its own answer (nvidia-smi's "CUDA Version"),
    else derived from the driver version; None where neither is shown."""
    if s.driver.cuda_api.known:
        return cuda_version(s.driver.cuda_api.value)
    os_name = s.system.os.value if s.system.os.known else None
    return m.driver_max_cuda(s.driver.version.value, os_name or "linux") if m and s.driver.version.known else None


def _own_build(ccs: list, s: Snapshot, reads: dict[str, str], m: Matrices) -> str | None:
    """The reporter compiled the program with nvcc, and that toolkit can target the GPU:
    the binary lacks the GPU's code because of its arch flags (a CUDA 11 nvcc without
    -arch on a K80). None where the paste shows no such build."""
    if "nvcc.compiles_cu" not in reads:
        return None
    for cuda in named_cudas(s):
        entries = parse_arch_list(m.arch_support(cuda))
        if entries and all(min(e.cc for e in entries) <= c for c in ccs) \
                and all(c.major <= max(e.cc for e in entries).major for c in ccs):
            return "arch-not-in-build"
    return None


def _against_the_drivers_builds(ccs: list, s: Snapshot, m: Matrices) -> str | None:
    """With the build unknown, the newest CUDA the paste's driver runs: installers
    (pip's index choice, an app's own setup) pick a build for it, and when every
    PyTorch build for that CUDA starts above the GPU, the build that failed dropped
    it (a GTX 1060 beside an R580 driver: the cu129 and cu130 builds start at sm_70
    and sm_75). None where it does not decide."""
    return _against_builds_up_to(driver_top_cuda(s, m), ccs, s, m)


def _against_the_stated_cudas_builds(ccs: list, s: Snapshot, m: Matrices) -> str | None:
    """With the build unknown, the one CUDA the paste names stands for the build's as well
    ("CUDA 12.8" beside a GTX 1070): when every PyTorch build for it starts above the GPU,
    a build for that CUDA has dropped it. None where it does not decide."""
    cudas = named_cudas(s)
    return _against_builds_up_to(cuda_version(cudas[0]), ccs, s, m) if len(cudas) == 1 else None


def _against_builds_up_to(top, ccs: list, s: Snapshot, m: Matrices) -> str | None:
    """The verdict "arch-dropped" where every PyTorch build for the newest CUDA up to `top`
    starts above the GPUs; None otherwise."""
    if top is None:
        return None
    platform = OS_WHEEL_PLATFORM.get(s.system.os.value or "")
    builds = [(cv, b) for b in m.torch_builds if b.variant.startswith("cu") and b.arch_list
              and (platform is None or b.platform == platform) and (cv := cuda_version(b.cuda)) and cv <= top]
    newest = max((cv for cv, _ in builds), default=None)
    lists = [parse_arch_list(b.arch_list) for cv, b in builds if cv == newest]
    floors = [min(e.cc for e in entries) for entries in lists if entries]
    return "arch-dropped" if floors and all(c < min(floors) for c in ccs) else None


def _against_current_builds(ccs: list, m: Matrices) -> str:
    """With the build unknown, the GPU against the CUDA builds of the newest
    PyTorch series: below every one of them, the builds dropped it (a K80);
    above the range of some of them, a build for an older CUDA predates it (an
    RTX 50xx on a cu126 build). PyTorch's builds stand in for any framework's:
    their CUDA sets the architectures a build can carry."""
    lists = [parse_arch_list(b.arch_list) for b in m.current_torch_cuda_builds()]
    if not lists:
        return "arch-not-in-build"
    if all(c < min(e.cc for e in entries) for entries in lists for c in ccs):
        return "arch-dropped"
    # Of several GPUs, one newer than a build's CUDA is enough for the error (CUDA numbers the
    # fastest GPU first); an older one among them has a current build that runs it.
    if any(c.major > max(e.cc for e in entries).major for entries in lists for c in ccs):
        return "arch-too-new-for-cuda"
    return "arch-not-in-build"


def stated_cuda_cannot_target_gpu(d: Diagnosis, m: Matrices, findings: list[Finding]) -> list[Finding]:
    """With no framework build shown, the one CUDA a paste names (a toolkit, "I have
    CUDA 10.0") that cannot compile for the GPU at all: whatever runs on it, that CUDA's
    libraries and nvcc have no code for it (an RTX 3090 under CUDA 10.0, a GeForce 8400 GS
    under CUDA 8). A driver's CUDA is never such a CUDA: a driver that runs the GPU
    supports its architecture."""
    s = d.snapshot
    if any(fw.cuda.known for fw in s.frameworks or ()):
        return []
    stated = named_cudas(s)
    ccs = [cc for cc in (compute_capability(g.compute_capability) for g in s.gpus or ()) if cc is not None]
    if not stated or not ccs or len(ccs) != len(s.gpus or ()):
        return []
    # Several CUDAs named ("dropped in CUDA 11.1 … I have 11.2") decide only where they agree
    # on the category (CUDA 8.0, 9.0 and 9.2 all predate an RTX 2080; each reaches another sm).
    verdicts = [v for v in (_cannot_target(ccs, m.arch_support(cuda)) for cuda in stated) if v is not None]
    if len(verdicts) != len(stated) or len({category for category, _ in verdicts}) != 1:
        return []
    category, can = verdicts[0]
    what, bound = ("it predates the GPU's architecture", max(can)) if category == "arch-too-new-for-cuda" \
        else ("it dropped the GPU's architecture", min(can))
    cuda = stated[0]
    source = next(rt.source for rt in s.cuda_runtimes or () if cuda in (rt.nvcc, rt.version))
    if any(f.category == category for f in findings):
        return []
    gpu, sm = next(g for g in s.gpus or ()), ccs[0].sm
    reach = "reaches" if category == "arch-too-new-for-cuda" else "starts at"
    return [RULES["GD817"].finding(
        f"CUDA {cuda} cannot compile for {gpu.name or 'the GPU'} ({sm}): {what}", category=category,
        severity=Severity.WARNING,
        evidence=[Evidence(f"gpus[{gpu.index}].compute_capability", str(gpu.compute_capability), gpu.source),
                  Evidence("cuda", cuda, source)],
        fix=Fix(f"Use a CUDA that compiles for {sm} (and a build for it); CUDA {cuda} {reach} {bound.sm}. "
                "(source: gpudoctor/matrices/cuda.toml)", ("nvidia-smi", "nvcc --version", "gpudoctor install torch")))]


def build_nvcc_lacks_gpu_arch(d: Diagnosis, m: Matrices, findings: list[Finding]) -> list[Finding]:
    """An extension built from source with an nvcc that knows no code for the GPU's own
    architecture (nvcc 11.7 and an RTX 4080, sm_89): torch's cpp_extension targets the visible
    GPU's capability when TORCH_CUDA_ARCH_LIST is unset, and nvcc refuses an architecture newer
    than itself, although code of the same major (sm_86) would run there."""
    s = d.snapshot
    nvccs = list(dict.fromkeys(rt.nvcc for rt in s.cuda_runtimes or () if rt.nvcc))
    ccs = [cc for cc in (compute_capability(g.compute_capability) for g in s.gpus or ()) if cc is not None]
    if len(nvccs) != 1 or not ccs or not any(r.fact == "build.extension" for r in d.reads) \
            or any(f.category == "arch-too-new-for-cuda" for f in findings):
        return []
    can = _targets(m.arch_support(nvccs[0]))
    newer = [c for c in ccs if can and c > max(can)]
    if not newer:
        return []
    gpu = next(g for g in s.gpus or () if compute_capability(g.compute_capability) == newer[0])
    source = next(rt.source for rt in s.cuda_runtimes or () if rt.nvcc == nvccs[0])
    # Same-major code runs on a later minor; the Tegra-only architectures are left out of the advice.
    runs = [c for c in can if c.major == newer[0].major and (c.major, c.minor) not in _TEGRA]
    instead = f", or set TORCH_CUDA_ARCH_LIST={max(runs).major}.{max(runs).minor}, code the GPU runs" if runs else ""
    return [RULES["GD817"].finding(
        f"nvcc {nvccs[0]} cannot compile for {gpu.name or 'the GPU'}'s own {newer[0].sm}, which an extension build "
        "targets", category="arch-too-new-for-cuda", severity=Severity.WARNING,
        evidence=[Evidence(f"gpus[{gpu.index}].compute_capability", str(gpu.compute_capability), gpu.source),
                  Evidence("cuda.nvcc", nvccs[0], source)],
        fix=Fix(f"Build with a CUDA toolkit that knows {newer[0].sm} (nvcc {nvccs[0]} reaches {max(can).sm}){instead}. "
                "(source: gpudoctor/matrices/cuda.toml)", ("nvcc --version", "nvidia-smi")))]


# Jetson and DRIVE architectures: no discrete GPU runs their code.
_TEGRA = {(3, 2), (5, 3), (6, 2), (7, 2), (8, 7), (10, 1), (11, 0)}


def _targets(sms: tuple[str, ...]) -> tuple:
    """The compute capabilities of a toolkit's real targets ("sm_86" -> 8.6)."""
    return tuple(c for c in map(compute_capability, sms) if c)


def _cannot_target(ccs: list, sms: tuple[str, ...]) -> tuple[str, tuple] | None:
    """("arch-too-new-for-cuda" | "arch-dropped", what the CUDA targets) where a CUDA that
    compiles for `sms` can target none of the GPUs; None where it can, or is unknown."""
    can = _targets(sms)
    if can and all(c.major > max(can).major for c in ccs):
        return "arch-too-new-for-cuda", can
    if can and all(c < min(can) for c in ccs):
        return "arch-dropped", can
    return None


# TensorRT names the SM it has no kernels for: "Unsupported SM: 0x809" (8.9), "Target GPU SM 61".
_TRT_SM = re.compile(r"Unsupported SM: 0x([0-9a-f])0?([0-9a-f])\b|Target GPU SM (\d)(\d)\b", re.I)
# ggml names the architecture its device code ran as, __CUDA_ARCH__: "compatible with CUDA arch 520" (5.2).
_GGML_ARCH = re.compile(r"compatible with CUDA arch (\d{2,3})0\b", re.I)
_GGML_AT_OR_BELOW = re.compile(r"compiled with any CUDA arch <= ?(\d{2,3})0\b", re.I)


# PyTorch's fused attention kernels name their range and the GPU: "[sm80, sm90]. Attempting to run on a sm 12.0 gpu".
_SDPA_RANGE = re.compile(r"\[sm\d+, ?sm(\d+)\]\. Attempting to run on a sm (\d+)\.(\d+) gpu", re.I)


def message_arch_category(entry_id: str, text: str, s: Snapshot, matrices: Matrices | None = None) -> str | None:
    """The category a build's own "no code for this GPU" message takes from the
    architecture it names. TensorRT: an SM of 8.0 or newer is a release older than the
    GPU, below 7.0 a GPU the release dropped. ggml: device code run as the GPU's own
    architecture is a kernel ggml does not build for it ("info"), not a build fault.
    None: the entry's category."""
    def ccs() -> list:  # read only by the entries that compare with the GPUs: most signals never need them
        return [c for c in (compute_capability(g.compute_capability) for g in s.gpus or ()) if c is not None]
    if entry_id == "tensorrt-unsupported-sm":
        m = _TRT_SM.search(text)
        sm = compute_capability(".".join(d for d in m.groups() if d)) if m else (ccs()[0] if len(ccs()) == 1 else None)
        if sm is not None and sm.major >= 8:
            return "arch-too-new-for-cuda"
        return "arch-dropped" if sm is not None and sm.major < 7 else None
    if entry_id == "sm-not-compatible" and matrices is not None and not any(
            fw.arch_list.known or fw.cuda.known for fw in s.frameworks or ()):
        # torch's own warning, its build unknown: a GPU that every current CUDA build carries is
        # missing only from a torch older than the GPU (an RTX 3090 under a cu102 build).
        gpus = ccs()
        lists = [parse_arch_list(b.arch_list) for b in matrices.current_torch_cuda_builds()]
        if gpus and lists and all(min(e.cc for e in entries) <= c and any(e.cc.major == c.major for e in entries)
                                  for entries in lists for c in gpus):
            return "arch-too-new-for-cuda"
    if entry_id == "cuda-symbol-not-found" and on_jetson(s):
        return "framework-cuda-mismatch"  # a build for server ARM (SBSA) CUDA, not JetPack's Tegra CUDA
    if entry_id == "tensorrt-half2-not-native":
        # TensorRT reads fast FP16 from its own table of SMs: a GPU that has it (sm_60, sm_62, sm_70 on)
        # and is still refused is one the release does not know, a TensorRT older than the GPU.
        gpus = ccs()
        return "arch-too-new-for-cuda" if gpus and all(c.major >= 7 or (c.major, c.minor) in ((6, 0), (6, 2))
                                                       for c in gpus) else None
    if entry_id == "ollama-arch-not-compiled":
        return ollama_arch_category(text)
    if entry_id == "physx-min-compute-capability":
        return "arch-dropped"  # a floor below which the library serves no GPU, not a build's arch list
    if entry_id == "tei-compute-cap-mismatch":
        # text-embeddings-inference publishes one image per compute capability (turing-, 86-, 89-, hopper-):
        # another capability is an image built for another GPU; the same one is candle's own check.
        m = _TEI_CAPS.search(text)
        return "info" if m and m.group(1) == m.group(2) else "arch-not-in-build"
    if entry_id == "ggml-no-arch-at-or-below-gpu":
        # The number is the architecture ggml asked for, normally the GPU's own; where the paste's
        # GPUs are all another, ggml asked for a fixed one (a release's own bug, 2025's "<= 750").
        m = _GGML_AT_OR_BELOW.search(text)
        asked = compute_capability(f"sm_{m.group(1)}") if m else None
        gpus = ccs()
        return "info" if asked is not None and gpus and asked not in gpus else None
    if entry_id == "ggml-no-device-code":
        m = _GGML_ARCH.search(text)
        ran = compute_capability(f"sm_{m.group(1)}") if m else None
        gpus = ccs()
        return "info" if ran is not None and gpus and all(c == ran for c in gpus) else None
    if entry_id == "torch-sdpa-arch-range":
        m = _SDPA_RANGE.search(text)
        top, gpu = (compute_capability(f"sm_{m.group(1)}"), compute_capability(f"{m.group(2)}.{m.group(3)}")) \
            if m else (None, None)
        return "arch-too-new-for-cuda" if top is not None and gpu is not None and gpu > top else None
    if entry_id in ("ctranslate2-compute-type-unsupported", "ctranslate2-compute-type-converted"):
        # CTranslate2 allows float16 (and int8_float16) on CUDA from 7.0, bfloat16 from 8.0, int8 on 6.1
        # and from 7.0, and never float16/bfloat16 on the CPU (src/types.cc): a GPU the paste shows that
        # has it means the model ran on the CPU, a ctranslate2 or torch that did not get CUDA.
        m = _CT2_TYPE.search(text)
        kind = m.group(1).lower() if m else ""
        floor = _CT2_FLOOR.get(kind)
        gpus = ccs()
        if floor and gpus and all(c >= floor and (kind != "int8" or c.major != 6 or c.minor == 1) for c in gpus):
            return "cpu-only-build"
        if entry_id == "ctranslate2-compute-type-converted" and not gpus:
            return "info"  # the weights converted on a device not shown: on the CPU, as expected
    if entry_id == "tensorrt-no-fast-int8":
        # Fast INT8 (DP4A) is on sm_61 and from sm_70 on: a GPU that has it and is refused is one
        # the TensorRT release does not know.
        gpus = ccs()
        return "arch-too-new-for-cuda" if gpus and all(c.major >= 7 or (c.major, c.minor) == (6, 1)
                                                       for c in gpus) else None
    return None


_CT2_TYPE = re.compile(r"support efficient (int8_float16|int8_bfloat16|int8_float32|float16|bfloat16|int8)\b", re.I)
_CT2_FLOOR = {k: compute_capability(v) for k, v in (("float16", "7.0"), ("int8_float16", "7.0"), ("bfloat16", "8.0"),
                                                    ("int8_bfloat16", "8.0"), ("int8", "6.1"), ("int8_float32", "6.1"))}


_TEI_CAPS = re.compile(r"Runtime compute cap (\d+) is not compatible with compile time compute cap (\d+)", re.I)

# Ollama's "skipping CUDA device — compute capability not in compiled architectures" cc=61 archs=75,80,86
_OLLAMA_ARCHS = re.compile(r"\bcc=\"?(\d{2,3})\b\"?[^\n]*?\barchs=\"?([\d, ;]+)", re.I)


def ollama_arch_category(text: str) -> str | None:
    """Below every architecture Ollama's runner was compiled for: dropped; above all of a
    newer major: a runner older than the GPU; None (the entry's gap) otherwise."""
    m = _OLLAMA_ARCHS.search(text)
    if not m:
        return None
    cc = compute_capability(f"sm_{m.group(1)}")
    built = [c for c in (compute_capability(f"sm_{a}") for a in re.findall(r"\d{2,3}", m.group(2))) if c]
    if cc is None or not built:
        return None
    if cc < min(built):
        return "arch-dropped"
    return "arch-too-new-for-cuda" if cc.major > max(built).major else None


def xla_ptx_newer_than_driver(s: Snapshot, m: Matrices | None) -> bool:
    """JAX and TensorFlow (XLA) compile kernels with the installed toolkit's ptxas and
    the driver loads that code: a stated toolkit newer than every CUDA the driver runs
    makes "no kernel image" the driver's age, not the build's architectures (XLA's own
    warning: "The driver's CUDA version is older than the ptxas CUDA version")."""
    if not any(fw.name in ("jax", "tensorflow") for fw in s.frameworks or ()):
        return False
    top = driver_top_cuda(s, m)
    return top is not None and any(v is not None and v > top for v in map(cuda_version, named_cudas(s)))
