"""Per-GPU and per-node findings that look at several tests at once:
slow copies, SDPA fallback, skipped precisions,
NCCL and peer access."""

from __future__ import annotations

from gpudoctor import cuerrors
from gpudoctor.findings import Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records import GpuModel, PrecisionSupport
from gpudoctor.rules import smoke_codes as codes
from gpudoctor.smoke import expect
from gpudoctor.smoke.model import GpuResult, TestResult
from gpudoctor.snapshot import Gpu

WATCH_CLOCKS = ("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,"
                "clocks_event_reasons.active --format=csv -l 1")
PCIE_LINK = "nvidia-smi --query-gpu=index,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current," \
            "pcie.link.width.max --format=csv"
PCIE_FIX = Fix("Reseat the card and check the riser and slot: the link should train to its full width. A degraded "
               "link often comes with power delivery problems that cap clocks.",
               (PCIE_LINK, "nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE"))
HARDWARE_SKIP = "needs sm_"
FRAMEWORK_SKIPS = ("cannot run FP8", "has no float8")


def _rate(t: TestResult) -> str:
    unit = "TFLOPS" if t.unit == "tflops" else "GB/s"
    return f"{t.value:.1f} {unit} of {t.expected:g} ({100 * (t.fraction_of_peak or 0):.0f} %)"


def _nvml_evidence(gpu: Gpu | None) -> list[Evidence]:
    if gpu is None:
        return []
    out = []
    if gpu.throttle_reasons is not None:
        out.append(Evidence("clocks_throttle_reasons", ", ".join(gpu.throttle_reasons) or "none", gpu.source))
    if gpu.pcie_width_current and gpu.pcie_width_max:
        out.append(Evidence("pcie_link", f"gen{gpu.pcie_gen_current} x{gpu.pcie_width_current} (max "
                            f"gen{gpu.pcie_gen_max} x{gpu.pcie_width_max})", gpu.source))
    return out


def gpu_findings(raw: dict, tests: list[TestResult], model: GpuModel | None, support: PrecisionSupport | None,
                 snap_gpu: Gpu | None, subject: str, source: str, on_gpu: bool = True) -> list[Finding]:
    by_name = {t.name: t for t in tests}
    raw_by_name = {t.get("name"): t for t in raw.get("tests") or []}
    out: list[Finding] = []
    for name in ("copy_d2d", "copy_h2d"):
        t = by_name.get(name)
        if t is None or t.perf != "low":
            continue
        what = "device memory" if name == "copy_d2d" else "host-to-device (PCIe)"
        width = expect.pcie_degraded(snap_gpu) if name == "copy_h2d" else None
        fix = PCIE_FIX if width else Fix(
            "Check clocks and other processes using the GPU; for host-to-device copies check the PCIe link and "
            "the NUMA placement of the process.", (PCIE_LINK if name == "copy_h2d" else WATCH_CLOCKS,
                                                  "nvidia-smi topo -m"))
        out.append(codes.COPY_BANDWIDTH_LOW.finding(
            f"{subject}: {what} copy bandwidth low" + (f": the PCIe link runs at {width}" if width else ""),
            subject=subject, fix=fix,
            evidence=[Evidence(name + ".gbps", _rate(t), expect.expected_peak(name, model, snap_gpu)[1]
                               + (" (scaled to the MIG slice's memory share)" if t.peak != t.expected else "")),
                      *_nvml_evidence(snap_gpu)]))
    if on_gpu:  # the CPU has no fused attention kernels to miss
        out.extend(_sdpa_findings(by_name, raw_by_name, subject, source))
    out.extend(_skip_findings(by_name, support, subject, source))
    return out


def _sdpa_findings(by_name: dict[str, TestResult], raw_by_name: dict, subject: str, source: str) -> list[Finding]:
    out = []
    for name in ("sdpa_fp16", "sdpa_bf16"):
        t = by_name.get(name)
        if t is None or t.kernel != "math":
            continue
        raw = raw_by_name.get(name, {})
        reasons = raw.get("unavailable_reasons") or {}
        out.append(codes.SDPA_MATH_FALLBACK.finding(
            f"{subject}: {name.split('_')[1].upper()} attention falls back to the unfused math kernel",
            subject=subject,
            evidence=[Evidence(name + ".kernel", "math", source),
                      Evidence(name + ".available", ", ".join(f"{k}={v}" for k, v in
                                                              (raw.get("available") or {}).items()), source),
                      *(Evidence(f"{name}.{k}", v, source) for k, v in reasons.items())],
            fix=Fix("Install a framework build that ships the fused attention kernels for this GPU (flash "
                    "attention needs sm_80+; memory-efficient attention sm_50+), or use a supported dtype and "
                    "head dimension.", ("gpudoctor check", "gpudoctor install torch"))))
    return out


def _skip_findings(by_name: dict[str, TestResult], support: PrecisionSupport | None, subject: str,
                   source: str) -> list[Finding]:
    hardware = [t for t in by_name.values() if t.status == "skip" and HARDWARE_SKIP in t.detail]
    framework = [t for t in by_name.values() if t.status == "skip" and any(s in t.detail for s in FRAMEWORK_SKIPS)]
    out = []
    if hardware:
        evidence = [Evidence(t.name, t.detail, source) for t in hardware]
        if support is not None:
            evidence.append(Evidence(f"precision sm_{support.compute_capability.replace('.', '')}",
                                     f"tf32={support.tf32} bf16={support.bf16} fp8={support.fp8}", support.source))
        out.append(codes.PRECISION_SKIPPED.finding(
            f"{subject}: the GPU has no " + ", ".join(sorted({_precision(t.name) for t in hardware}))
            + " support; those tests were skipped", subject=subject, evidence=evidence,
            fix=Fix("Train in a precision this GPU supports (FP16 with loss scaling instead of BF16), or use a "
                    "newer GPU for that precision.")))
    if framework:
        out.append(codes.PRECISION_SKIPPED.finding(
            f"{subject}: the framework build cannot run " + ", ".join(_precision(t.name) for t in framework),
            subject=subject, evidence=[Evidence(t.name, t.detail, source) for t in framework],
            fix=Fix("Install a newer framework build (FP8 GEMM needs torch >= 2.1 built with CUDA >= 12.1).",
                    ("gpudoctor install torch",))))
    return out


def _precision(test: str) -> str:
    return test.split("_", 1)[1].upper()


def node_findings(raw_node: list[dict], gpus: list[GpuResult], matrices: Matrices, source: str) -> list[Finding]:
    out = []
    for t in raw_node:
        if t.get("name") == "nccl_allreduce" and t.get("status") == "error":
            named = cuerrors.find_in_text(t.get("error") or "")
            out.append(codes.NCCL_FAILURE.finding(
                f"NCCL all-reduce across {t.get('world_size', len(gpus))} GPUs failed", subject="node",
                evidence=[Evidence("nccl_allreduce.error", (t.get("error") or "")[:500], source)],
                fix=Fix("Rerun with NCCL_DEBUG=INFO to see the transport NCCL picks and where it fails; check "
                        "the topology and peer access" + (f" ({cuerrors.label(named.code)})" if named else "") + ".",
                        ("NCCL_DEBUG=INFO gpudoctor smoke", "nvidia-smi topo -m"))))
        if t.get("name") == "p2p" and t.get("status") == "ok":
            out.extend(_p2p_finding(t, gpus, matrices, source))
    return out


def _p2p_finding(t: dict, gpus: list[GpuResult], matrices: Matrices, source: str) -> list[Finding]:
    devices, matrix = t.get("devices") or [], t.get("matrix") or []
    missing = [f"{a}->{b}" for i, a in enumerate(devices) for j, b in enumerate(devices)
               if i != j and i < len(matrix) and j < len(matrix[i]) and matrix[i][j] is False]
    if not missing:
        return []
    models = [matrices.gpu(g.model) if g.model else None for g in gpus]
    nvlink = any(m is not None and "nvlink" in (m.interconnect or "").lower() for m in models)
    return [codes.NO_PEER_ACCESS.finding(
        f"no peer-to-peer access between {len(missing)} GPU pair(s)", subject="node",
        severity=Severity.WARNING if nvlink else None,
        evidence=[Evidence("p2p.missing", ", ".join(missing), source)],
        fix=Fix("Without peer access NCCL and copies between GPUs go through host memory. That is normal for "
                "GeForce cards and some PCIe topologies; on NVLink systems check the links and the fabric "
                "manager.", ("nvidia-smi topo -m", "nvidia-smi nvlink -s")))]
