"""The smoke judge: runner measurements + matrices (+ snapshot) -> verdicts.

Pure: no process, no I/O. The runner reports what it measured (status ok,
skip or error, errors, rates); every verdict is made here: pass/fail by
tolerance, expected peaks, performance causes, and GD7xx findings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpudoctor import cuerrors
from gpudoctor.findings import Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices, load_matrices
from gpudoctor.rules import smoke_codes as codes
from gpudoctor.serde import from_data
from gpudoctor.smoke import expect, rates, samples
from gpudoctor.smoke.judge_driver import (
    cuda_fix,
    driver_findings,
    process_finding,
    runner_error_finding,
)
from gpudoctor.smoke.model import GpuResult, SmokeReport, TestResult
from gpudoctor.smoke.process import ProcessOutcome
from gpudoctor.smoke.verdicts import gpu_findings, node_findings
from gpudoctor.smoke.verdicts_gemm import judge_gemms
from gpudoctor.smoke.verdicts_precision import precision_findings
from gpudoctor.snapshot import Snapshot


@dataclass(frozen=True)
class SmokeInput:
    """Everything the judge looks at. Fixtures under tests/rules/GD7xx/ are its JSON form
    (plus a "_note" naming the situation, ignored here)."""

    driver: dict | None = None  # gdsmoke_driver.py's document (+ "outcome")
    runner: dict | None = None  # gdsmoke_main.py's document
    process: ProcessOutcome | None = None  # how the runner process ended
    snapshot: Snapshot | None = None  # NVML facts: throttle reasons, PCIe link
    python: str | None = None

    @classmethod
    def from_dict(cls, data: dict) -> SmokeInput:
        proc = data.get("process")
        snap = data.get("snapshot")
        return cls(driver=data.get("driver"), runner=data.get("runner"),
                   process=from_data(ProcessOutcome, proc, "process") if proc is not None else None,
                   snapshot=Snapshot.from_dict(snap) if snap is not None else None, python=data.get("python"))


def framework_label(doc: dict | None) -> str | None:
    fw = (doc or {}).get("framework") or {}
    return f"{fw['name']} {fw.get('version')}" if fw.get("name") else (doc or {}).get("backend")


def judge(inp: SmokeInput, matrices: Matrices | None = None, *, mode: str = "quick", strict: bool = False,
          wall_s: float = 0.0) -> SmokeReport:
    """Verdicts for one smoke run. `matrices` defaults to the shipped ones,
    loaded only when there are runner results to compare with them."""
    findings, usable = driver_findings(inp.driver)
    doc = inp.runner or {}
    framework = framework_label(inp.runner)
    about = ", ".join(x for x in (framework, inp.python) if x)
    source = f"smoke runner ({about})" if about else "smoke runner"
    facts = ((doc.get("framework") or {}) if isinstance(doc.get("framework"), dict) else {}).get("precision")
    env = (facts.get("env") if isinstance(facts, dict) else None) or {}
    base = dict(backend=doc.get("backend"), framework=framework, python=inp.python,
                device_type=doc.get("device_type"), mode=doc.get("mode") or mode, strict=strict, wall_s=wall_s,
                driver=inp.driver, precision=facts if isinstance(facts, dict) else None)
    if not usable and inp.runner is None and inp.process is None:
        return SmokeReport(findings=tuple(findings), gpus=_driver_only_gpus(inp.driver), **base)
    matrices = matrices or load_matrices()

    raw_gpus, raw_node = _raw_results(inp)
    proc = inp.process
    if proc is not None and proc.status in ("crashed", "timeout", "not-started") and not _complete(inp.runner):
        if proc.status == "not-started":
            findings.append(runner_error_finding({"stage": "start", "message": proc.error or ""}, framework,
                                                 source))
        else:
            in_flight = _in_flight(proc.events)
            findings.append(process_finding(proc, in_flight, source))
            _mark_in_flight(raw_gpus, raw_node, in_flight, proc.status, proc)
    elif proc is not None and proc.status in ("crashed", "timeout"):
        # Every test reported, then the process died on the way out (CUDA/NCCL teardown).
        late = process_finding(proc, None, source)
        findings.append(replace(late, severity=Severity.WARNING,
                                title=f"the runner {proc.describe()} after reporting every test"))
    elif inp.runner is None and proc is not None:
        findings.append(runner_error_finding({"stage": "output", "message": "the runner printed no JSON "
                                              "document; last stderr: " + " | ".join(proc.stderr_tail[-3:])},
                                             framework, source))
    if doc.get("error"):
        findings.append(runner_error_finding(doc["error"], framework, source))
    if doc.get("device_type") == "cpu":
        findings.append(codes.RAN_ON_CPU.finding(
            "ran on the CPU (--allow-cpu): numerics checked, no GPU tested",
            evidence=[Evidence("device_type", "cpu", source)],
            fix=Fix("Run gpudoctor smoke without --allow-cpu on a machine with a GPU.", ("gpudoctor smoke",))))

    on_gpu = doc.get("device_type", "cuda") != "cpu"
    gpus = []
    for raw in raw_gpus:
        gpu, found = _judge_gpu(raw, matrices, inp.snapshot, on_gpu, source, env)
        gpus.append(gpu)
        findings.extend(found)
    if on_gpu:
        findings.extend(precision_findings(facts, raw_gpus, gpus, matrices, source))
    node = [_judge_test(t, None, False) for t in raw_node]
    for t, result in zip(raw_node, node):
        findings.extend(_error_findings(t, result, None, source))
    findings.extend(node_findings(raw_node, gpus, matrices, source))
    if on_gpu:
        gpus = _with_driver_tests(gpus, inp.driver) if gpus else list(_driver_only_gpus(inp.driver))
    return SmokeReport(gpus=tuple(gpus), node_tests=tuple(node), findings=tuple(findings), **base)


def _complete(doc: dict | None) -> bool:
    return bool(doc) and doc.get("format") == "gpudoctor-smoke-runner"


def _driver_test(dev: dict) -> TestResult:
    """The driver-level check of one device, as a test row."""
    failed = dev.get("failed_step")
    detail = f"{failed}: {cuerrors.label(dev.get('result') or 0)}" if failed else \
        "cuInit, primary context, 1 MiB allocation, memset and read-back ok"
    return TestResult("cuda_driver", "fail" if failed else "pass", detail=detail, seconds=dev.get("seconds"))


def _driver_only_gpus(driver: dict | None) -> tuple[GpuResult, ...]:
    """GPUs as the driver check saw them, each with its driver-level result."""
    return tuple(GpuResult(dev.get("index", 0), dev.get("name") or "unknown", dev.get("cc"),
                           pci_bus_id=dev.get("pci_bus_id"), tests=(_driver_test(dev),))
                 for dev in (driver or {}).get("devices") or [])


def _with_driver_tests(gpus: list[GpuResult], driver: dict | None) -> list[GpuResult]:
    devices = {d.get("index"): d for d in (driver or {}).get("devices") or []}
    return [replace(g, tests=(_driver_test(devices[g.index]), *g.tests)) if g.index in devices else g
            for g in gpus]


def _raw_results(inp: SmokeInput) -> tuple[list[dict], list[dict]]:
    """Per-GPU raw results from the runner's document, or rebuilt from its
    progress events when it died before printing one."""
    if _complete(inp.runner):
        return [dict(g) for g in inp.runner.get("gpus") or []], list(inp.runner.get("node_tests") or [])
    gpus: dict[int, dict] = {}
    node: list[dict] = []
    for ev in (inp.process.events if inp.process else ()):
        if ev.get("ev") == "gpu":
            gpus[ev.get("index", 0)] = {k: v for k, v in ev.items() if k != "ev"} | {"tests": []}
        elif ev.get("ev") == "done" and isinstance(ev.get("test"), dict):
            target = node if ev.get("gpu") is None else gpus.setdefault(ev["gpu"], {
                "index": ev["gpu"], "name": "unknown", "tests": []})["tests"]
            target.append(ev["test"])
    return list(gpus.values()), node


def _in_flight(events: tuple[dict, ...]) -> tuple[int | None, str] | None:
    started: tuple[int | None, str] | None = None
    for ev in events:
        if ev.get("ev") == "start":
            started = (ev.get("gpu"), ev.get("test", "?"))
        elif ev.get("ev") == "done" and started and started[0] == ev.get("gpu"):
            started = None
    return started


def _mark_in_flight(gpus: list[dict], node: list[dict], in_flight, status: str, proc: ProcessOutcome) -> None:
    if not in_flight:
        return
    gpu_index, test = in_flight
    detail = proc.describe() + (": " + proc.stderr_tail[-1] if proc.stderr_tail else "")
    entry = {"name": test, "status": status, "error": detail}
    if gpu_index is None:
        node.append(entry)
        return
    for g in gpus:
        if g.get("index") == gpu_index:
            g["tests"].append(entry)
            return
    gpus.append({"index": gpu_index, "name": "unknown", "tests": [entry]})


def _judge_gpu(raw: dict, matrices: Matrices, snapshot: Snapshot | None, on_gpu: bool, source: str,
               env: dict) -> tuple[GpuResult, list[Finding]]:
    index, name, cc = raw.get("index", 0), raw.get("name") or "unknown", raw.get("cc")
    model = expect.match_model(matrices, name, cc) if on_gpu else None
    snap_gpu = expect.snapshot_gpu(snapshot, raw.get("pci_bus_id"), index) if on_gpu else None
    share = rates.mig_share(matrices, name, model) if on_gpu else None
    subject = f"GPU {index}"
    tests, findings, sources = [], [], {}
    for t in raw.get("tests") or []:
        test_name = t.get("name", "?")
        if not on_gpu:
            exp = rates.Expected()
        elif test_name.startswith("gemm_"):
            # A runner document without "accumulate" timed FP8 with torch's default accumulation.
            accumulate = t.get("accumulate") or ("default" if test_name == "gemm_fp8" else "fp32")
            exp = rates.gemm_expected(matrices, test_name, model, share, accumulate)
        else:
            exp = rates.copy_expected(test_name, model, share, snap_gpu)
        sources[test_name] = exp.source
        result = _judge_test(t, exp, on_gpu and model is not None)
        tests.append(result)
        findings.extend(_error_findings(t, result, subject, source))
    board = rates.board_class(model) if model else None
    tests, gemm = judge_gemms(tests, {t.get("name"): t for t in raw.get("tests") or []}, sources, board, env,
                              raw.get("nvml_error"), subject, source)
    findings.extend(gemm)
    support = matrices.precision(cc) if cc and on_gpu else None
    findings.extend(gpu_findings(raw, tests, model, support, snap_gpu, subject, source, on_gpu))
    warm = samples.summarise((raw.get("clock_warmup") or {}).get("samples"), phase="clock_warmup")
    return GpuResult(index, name, cc, model.name if model else None, raw.get("pci_bus_id"), tuple(tests),
                     share.profile if isinstance(share, rates.Share) else None,
                     warm.to_json() if warm else None), findings


def _judge_test(t: dict, exp: rates.Expected | None, rated: bool) -> TestResult:
    """Numerics against the tolerance; the rate against `exp` (copied into the result)."""
    name, status = t.get("name", "?"), t.get("status")
    seconds = t.get("seconds")
    if status in ("crashed", "timeout"):
        return TestResult(name, status, detail=t.get("error", ""), seconds=seconds)
    if status == "skip":
        return TestResult(name, "skip", detail=t.get("reason", ""), seconds=seconds)
    if status != "ok":
        return TestResult(name, "fail", detail=(t.get("error") or "").splitlines()[0][:300] if t.get("error")
                          else "error", kernel=t.get("kernel"), seconds=seconds)
    unit = "tflops" if t.get("tflops") is not None else ("gbps" if t.get("gbps") is not None else None)
    value = t.get(unit) if unit else None
    exp = exp if exp is not None and unit else rates.Expected()
    fraction = value / exp.peak if value is not None and exp.peak else None
    perf = None if value is None or exp.floor is None else ("ok" if value >= exp.floor else "low")
    tol = expect.TOLERANCE.get(name)
    err = t.get("max_rel_error")
    ok = tol is None or (err is not None and err <= tol)
    detail = t.get("detail", "")
    if name == "memtest" and t.get("mismatches"):
        ok, detail = False, f"{t['mismatches']} words read back wrong in {t.get('bytes', 0) >> 20} MiB"
    if not ok and not detail:
        detail = f"max relative error {err:.3g} > tolerance {tol:g}" if err is not None else "NaN or Inf"
    if ok and not detail and rated and exp.why and value is not None:
        detail = f"no rate verdict: {exp.why}"
    return TestResult(name, "pass" if ok else "fail", unit, value, exp.expected, fraction, err, tol, perf,
                      t.get("kernel"), detail, seconds, peak=exp.peak)


def _error_findings(t: dict, result: TestResult, subject: str | None, source: str) -> list[Finding]:
    """GD705/706/707/714/715 for one failed test (GD710 for NCCL is in verdicts)."""
    if result.status != "fail" or t.get("name") == "nccl_allreduce":
        return []
    name = result.name
    where = f"{subject}: {name}" if subject else name
    if t.get("status") == "ok":
        if name == "memtest":
            return [codes.MEMORY_PATTERN_ERRORS.finding(
                f"{where}: {result.detail}", subject=subject,
                evidence=[Evidence(name + ".mismatches", str(t.get("mismatches")), source)],
                fix=Fix("GPU memory returns wrong values: drain the GPU, check ECC and row remapping, reset it, "
                        "and replace it if errors recur.", ("nvidia-smi -q -d ECC,ROW_REMAPPER", cuerrors.XID)))]
        return [codes.WRONG_NUMERICS.finding(
            f"{where} gives wrong numbers: {result.detail}", subject=subject,
            evidence=[Evidence(name + ".max_rel_error", f"{result.max_rel_error}", source),
                      Evidence(name + ".tolerance", f"{result.tolerance:g}", "gpudoctor smoke tolerances")],
            fix=Fix("A kernel that returns wrong numbers on a healthy stack points at the GPU (memory or compute "
                    "faults) or at a broken library build. Check the kernel log and ECC, and rerun; "
                    + ("a failing FP32 GEMM with a TF32-sized error means TF32 was used although it was "
                       "disabled." if name == "gemm_fp32" else ""),
                    (cuerrors.XID, "nvidia-smi -q -d ECC")))]
    text = t.get("error") or ""
    named = cuerrors.find_in_text(text)
    evidence = [Evidence(name + ".error", text[:400], source)]
    if named and named.code == 209:
        return [codes.NO_KERNEL_IMAGE.finding(
            f"{where}: no kernel image for this GPU", subject=subject, evidence=evidence, fix=cuda_fix(209))]
    if name.startswith("conv_") or "cudnn" in text.lower():
        fix = cuda_fix(named.code) if named else Fix(
            "cuDNN is missing, mismatched or cannot run on this GPU: check which libcudnn the framework "
            "loads and that it matches its build.", ("gpudoctor check --deep",))
        return [codes.CUDNN_FAILURE.finding(f"{where}: cuDNN failed", subject=subject, evidence=evidence,
                                            fix=fix)]
    fix = cuda_fix(named.code) if named else Fix(
        "Run the failing operation alone in the target Python for the full error, and check the kernel log.",
        ("gpudoctor check --deep", cuerrors.XID))
    label = f" ({cuerrors.label(named.code)})" if named else ""
    return [codes.KERNEL_ERROR.finding(f"{where} raised {t.get('error_type', 'an error')}{label}",
                                       subject=subject, evidence=evidence, fix=fix)]
