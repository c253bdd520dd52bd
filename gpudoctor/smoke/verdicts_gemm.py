"""GEMM rates of one GPU: the cause of a slow one (GD708), named from what was measured.

Causes come only from measurements of this run: the NVML samples taken while the GEMM
ran (samples.clock_cause), or the 16-bit rate against the FP32 rate measured on the same
GPU (Tensor Cores not used). An idle snapshot's throttle reasons are not evidence (an
idle GPU reports GpuIdle), nor is a PCIe link width (a GEMM does not use the link).
With neither, the cause is "unknown" and the fix says what to watch.
"""

from __future__ import annotations

from dataclasses import replace

from gpudoctor.findings import Evidence, Finding, Fix
from gpudoctor.rules import smoke_codes as codes
from gpudoctor.smoke import rates, samples
from gpudoctor.smoke.model import TestResult

SIXTEEN_BIT = ("gemm_fp16", "gemm_bf16")
# A 16-bit GEMM no faster than this times the SGEMM rate measured on the same GPU ran
# on the FP32 units (non-tensor FP16 runs at 1-2x the FP32 rate) ...
TENSOR_VS_FP32 = 1.3
# ... judged only where a healthy GPU's 16-bit rate is at least this times its SGEMM rate
# (every rates.toml pair is 1.4x (GeForce Ampere) or more; 2.0 keeps a margin both ways).
TENSOR_RATIO_NEEDED = 2.0
WATCH_CLOCKS = ("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,"
                "clocks_event_reasons.active --format=csv -l 1")
PERF_STATE = "nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE"
CAUSE_FIX = {
    "thermal": Fix("Cool the GPU: check fans, airflow and the inlet temperature (a passively cooled board needs "
                   "server airflow); clocks come back once it runs below its slowdown temperature.",
                   (PERF_STATE, WATCH_CLOCKS)),
    "power-cap": Fix("The board ran at its power limit. That is normal for a sustained GEMM on some boards, but "
                     "here it cost more than on healthy ones: a hot chip draws more power at the same clock, so "
                     "check cooling first, then the power delivery.", (PERF_STATE, WATCH_CLOCKS)),
    "power-limit-lowered": Fix("Someone set the power limit below the board's default: restore it (needs root).",
                               ("nvidia-smi -q -d POWER", "sudo nvidia-smi -pl <default limit in W>")),
    "power-cap-below-limit": Fix("The GPU is power-capped below its own limit: the server grants it less power "
                                 "(BMC/iDRAC power policy, a missing thermal-table entry for this GPU, or too few "
                                 "power supplies). Check the chassis power budget and the BMC's GPU settings.",
                                 (PERF_STATE, "ipmitool dcmi power reading")),
    "power-brake": Fix("An external power-brake signal slows the GPU: check the chassis power supplies and the "
                       "BMC's power policy.", (PERF_STATE, "ipmitool sdr")),
    "hw-slowdown": Fix("The GPU slows itself to protect the hardware (temperature or power delivery): check the "
                       "power cables, the supplies and the cooling, and the kernel log.",
                       (PERF_STATE, "dmesg | grep -i xid")),
    "application-clocks": Fix("Application clocks are set below the maximum: reset them.",
                              ("nvidia-smi -q -d CLOCK", "sudo nvidia-smi -rac")),
    "sync-boost": Fix("Sync boost ties this GPU to the slowest GPU of its group: check the others' clocks.",
                      ("nvidia-smi -q -d PERFORMANCE",)),
    "clocks-low": Fix("The SM clock stayed low without a reason NVML names: check for clock locks and other "
                      "processes on the GPU.", ("nvidia-smi -q -d CLOCK", WATCH_CLOCKS)),
    "tensor-cores-not-used": Fix("The 16-bit GEMM ran no faster than FP32: it did not use Tensor Cores. Install a "
                                 "framework build with native code for this GPU, and check that a vGPU profile "
                                 "gives Tensor Core access.", ("gpudoctor check", "gpudoctor install torch")),
    "unknown": Fix("Nothing measured explains the rate. Watch clocks and power while the GPU is busy, rerun with "
                   "--full for longer timings, and compare with another GPU of the same model.",
                   (WATCH_CLOCKS, "gpudoctor smoke --full")),
}


def _tensor_cores_unused(name: str, by_name: dict[str, TestResult]) -> str | None:
    fp32 = by_name.get("gemm_fp32")
    test = by_name[name]
    if name not in SIXTEEN_BIT or fp32 is None or not fp32.value or fp32.status != "pass" or test.value is None:
        return None
    if not (test.expected and fp32.expected and test.expected >= TENSOR_RATIO_NEEDED * fp32.expected):
        return None
    if test.value > TENSOR_VS_FP32 * fp32.value:
        return None
    return (f"{test.value:.1f} TFLOPS is no faster than {TENSOR_VS_FP32:g}x the {fp32.value:.1f} TFLOPS FP32 "
            "GEMM measured on this GPU: the GEMM did not run on Tensor Cores")


def cause_of(name: str, by_name: dict[str, TestResult], summary: samples.Summary | None,
             nvml_error: str | None) -> tuple[str, str]:
    """(cause key, explanation) for a slow GEMM."""
    why = _tensor_cores_unused(name, by_name)
    if why:
        return "tensor-cores-not-used", why
    if summary is None:
        return "unknown", "NVML was not sampled during the GEMM" + (f" ({nvml_error})" if nvml_error else "") + \
            ", so no cause can be named"
    named = samples.clock_cause(summary)
    if named:
        return named
    return "unknown", "the clocks were not held down during the GEMM (no throttle reason, SM clock near its maximum)"


def _normal_limit(summary: samples.Summary | None, board: str | None) -> str:
    """A note for a GEMM at its expected rate that still ran at the power cap."""
    named = samples.clock_cause(summary) if summary is not None else None
    if summary is None or named is None or named[0] != "power-cap":
        return ""
    limit = f"{summary.power_limit_w:.0f} W " if summary.power_limit_w else ""
    tail = f"normal for this {limit}board" if board == "power-capped" else "normal for a sustained GEMM"
    return f"power-capped during the GEMM ({tail})"


def judge_gemms(tests: list[TestResult], raw_by_name: dict[str, dict], rate_sources: dict[str, str],
                board: str | None, env: dict, nvml_error: str | None, subject: str,
                source: str) -> tuple[list[TestResult], list[Finding]]:
    """Attach sample summaries and causes to the GEMM results; GD708 per GPU and cause."""
    by_name = {t.name: t for t in tests}
    out: list[TestResult] = []
    slow: dict[str, list[tuple[TestResult, samples.Summary | None, str]]] = {}
    for t in tests:
        raw = raw_by_name.get(t.name) or {}
        if not t.name.startswith("gemm_") or t.unit != "tflops":
            out.append(t)
            continue
        summary = samples.summarise(raw.get("samples"))
        t = replace(t, samples=summary.to_json() if summary else None)
        if t.name == "gemm_tf32" and env.get("NVIDIA_TF32_OVERRIDE") == "0":
            t = replace(t, perf=None, detail="TF32 disabled by NVIDIA_TF32_OVERRIDE=0: this ran as FP32")
        elif t.perf == "low":
            cause, why = cause_of(t.name, by_name, summary, nvml_error)
            t = replace(t, cause=cause)
            slow.setdefault(cause, []).append((t, summary, why))
        elif t.perf == "ok":
            note = _normal_limit(summary, board)
            if note:
                t = replace(t, cause="power-cap", detail=note)
        out.append(t)
    return out, [_finding(cause, items, rate_sources, subject, source) for cause, items in slow.items()]


def _rate(t: TestResult) -> str:
    return (f"{t.value:.1f} TFLOPS; a healthy GPU of this class reaches {t.expected:.1f} (low below "
            f"{rates.RATE_MARGIN * (t.expected or 0):.1f}); peak {t.peak:g}")


def _finding(cause: str, items: list[tuple[TestResult, samples.Summary | None, str]], rate_sources: dict[str, str],
             subject: str, source: str) -> Finding:
    names = ", ".join(t.name.removeprefix("gemm_").upper() for t, _, _ in items)
    evidence = [Evidence("cause", cause, "gpudoctor smoke")]
    for t, summary, _ in items:
        evidence.append(Evidence(f"{t.name}.tflops", _rate(t), f"{source}; expected: {rate_sources.get(t.name, '')}"))
        if summary is not None:
            evidence.append(summary.evidence(t.name))
    return codes.GEMM_BELOW_PEAK.finding(f"{subject}: {names} GEMM below the rate healthy GPUs reach: {items[0][2]}",
                                         subject=subject, evidence=evidence, fix=CAUSE_FIX[cause])
