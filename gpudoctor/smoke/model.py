"""What `gpudoctor smoke` reports: per-GPU test results and findings.

The JSON form (schema gpudoctor/schema/smoke.v1.json) is built here and
nowhere else, so the CLI, `check --smoke` and the tests see one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudoctor.findings import ExitCode, Finding, exit_code_for, sort_findings
from gpudoctor.serde import to_data

SCHEMA_VERSION = 1
STATUSES = ("pass", "fail", "skip", "crashed", "timeout")
FAILED = frozenset({"fail", "crashed", "timeout"})


@dataclass(frozen=True)
class TestResult:
    """One test on one GPU (or on the node, for NCCL and peer access).

    `unit` says which rate was measured ("tflops" or "gbps"); `peak` is the datasheet
    figure (scaled to a MIG slice's share); `expected` is what a healthy GPU of this
    class reaches (rates.toml for GEMMs; the peak for copies); `perf` is "ok", "low"
    or None (no verdict); `cause` names why a rate is low, or a normal limit it ran
    at ("power-cap"); `samples` summarises NVML during the timed GEMM."""

    name: str
    status: str
    unit: str | None = None
    value: float | None = None
    expected: float | None = None
    fraction_of_peak: float | None = None
    max_rel_error: float | None = None
    tolerance: float | None = None
    perf: str | None = None
    kernel: str | None = None  # SDPA: the fused kernel the dispatcher selected
    detail: str = ""
    seconds: float | None = None
    peak: float | None = None
    cause: str | None = None
    samples: dict | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"{self.name}: bad status {self.status!r}")

    def to_json(self) -> dict:
        out: dict = {"name": self.name, "status": self.status}
        if self.unit:
            out[self.unit] = _round(self.value)
        out.update(expected=_round(self.expected), fraction_of_peak=_round(self.fraction_of_peak, 4),
                   max_rel_error=self.max_rel_error, tolerance=self.tolerance, perf=self.perf)
        if self.kernel is not None:
            out["kernel"] = self.kernel
        if self.detail:
            out["detail"] = self.detail
        if self.seconds is not None:
            out["seconds"] = round(self.seconds, 4)
        if self.peak is not None:
            out["peak"] = _round(self.peak)
        if self.cause is not None:
            out["cause"] = self.cause
        if self.samples is not None:
            out["samples"] = self.samples
        return out


@dataclass(frozen=True)
class GpuResult:
    """One GPU's smoke tests, with the gpus.toml row its expected rates come from."""

    index: int  # CUDA device ordinal, as the framework numbers it
    name: str
    compute_capability: str | None = None
    model: str | None = None  # gpus.toml row the expected peaks come from
    pci_bus_id: str | None = None
    tests: tuple[TestResult, ...] = ()
    mig_profile: str | None = None  # "1g.5gb": rates are judged against the slice's share
    clock_warmup: dict | None = field(default=None, compare=False)  # NVML summary of the warm-up

    def to_json(self) -> dict:
        out = {"index": self.index, "name": self.name, "compute_capability": self.compute_capability,
               "model": self.model, "pci_bus_id": self.pci_bus_id, "tests": [t.to_json() for t in self.tests]}
        if self.mig_profile:
            out["mig_profile"] = self.mig_profile
        if self.clock_warmup is not None:
            out["clock_warmup"] = self.clock_warmup
        return out


@dataclass(frozen=True)
class SmokeReport:
    """What `gpudoctor smoke` found: per-GPU and node tests, findings, and the run's settings."""

    backend: str | None
    framework: str | None  # "torch 2.14.1+cu130"
    python: str | None  # the target interpreter's path
    device_type: str | None  # "cuda" | "cpu" | None (never got that far)
    mode: str
    gpus: tuple[GpuResult, ...] = ()
    node_tests: tuple[TestResult, ...] = ()
    findings: tuple[Finding, ...] = ()
    wall_s: float = 0.0
    strict: bool = False
    driver: dict | None = field(default=None, compare=False)  # the driver check's raw document
    precision: dict | None = field(default=None, compare=False)  # TF32 facts of the target process

    @property
    def failed_tests(self) -> list[tuple[str, TestResult]]:
        out = [(f"GPU {g.index}", t) for g in self.gpus for t in g.tests if t.status in FAILED]
        return out + [("node", t) for t in self.node_tests if t.status in FAILED]

    @property
    def exit_code(self) -> ExitCode:
        if self.failed_tests:
            return ExitCode.FINDINGS
        return exit_code_for(self.findings, strict=self.strict)

    def to_json(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "backend": self.backend,
            "framework": self.framework,
            "python": self.python,
            "device_type": self.device_type,
            "mode": self.mode,
            "exit_code": int(self.exit_code),
            "wall_s": round(self.wall_s, 3),
            "gpus": [g.to_json() for g in self.gpus],
            "node_tests": [t.to_json() for t in self.node_tests],
            "findings": [finding_json(f) for f in sort_findings(list(self.findings))],
            **({"precision": self.precision} if self.precision is not None else {}),
        }


def finding_json(f: Finding) -> dict:
    data = to_data(f)
    data["fix"] = data["fix"] or {"text": "", "commands": []}
    return data


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)
