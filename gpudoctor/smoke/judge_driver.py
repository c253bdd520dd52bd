"""Findings from the driver-level check and from the runner process itself.

Pure: documents in, Findings out. The test-level verdicts are in judge.py.
"""

from __future__ import annotations

from gpudoctor import cuerrors
from gpudoctor.findings import Evidence, Finding, Fix
from gpudoctor.rules import smoke_codes as codes
from gpudoctor.smoke.process import ProcessOutcome

DRIVER_SOURCE = "smoke driver check (ctypes on libcuda)"
INSTALL_DRIVER = Fix(
    "Install the NVIDIA driver (it provides libcuda.so.1). In a container, start it with the NVIDIA "
    "Container Toolkit so the host's driver libraries are mounted in.",
    ("nvidia-smi", "ldconfig -p | grep libcuda", "docker run --gpus all ..."))


def cuda_fix(code: int, lead: str = "") -> Fix:
    err = cuerrors.describe(code)
    return Fix((lead + " " if lead else "") + err.fix, err.commands)


def _ev(fact: str, value: object, source: str = DRIVER_SOURCE) -> Evidence:
    return Evidence(fact, str(value), source)


def driver_findings(doc: dict | None) -> tuple[list[Finding], bool]:
    """(findings, usable): usable is False when no GPU can run the framework tests."""
    if doc is None:
        return [], True
    outcome = doc.get("outcome", "ok")
    tail = doc.get("stderr_tail") or []
    if outcome == "timeout":
        running = doc.get("running") or {}
        step = running.get("step") or "cuInit"
        where = f"{step} on GPU {running['device']}" if running.get("device") is not None else step
        done = [f"{d.get('step')}" + (f" GPU {d['device']}" if d.get("device") is not None else "")
                + f" {d.get('seconds', 0):.1f} s" for d in doc.get("steps_done") or []]
        return [codes.DRIVER_INIT_FAILED.finding(
            f"{where} did not return within {doc.get('limit_s', doc.get('seconds', 0)):.0f} s: the CUDA driver hangs",
            evidence=[_ev("driver_check", f"killed after {doc.get('seconds', 0):.0f} s while in {where}"),
                      _ev("limit", doc.get("limit_why") or f"{doc.get('limit_s', 0):.0f} s",
                          "gpudoctor smoke (scaled with the GPU count unless persistence mode is on)"),
                      *([_ev("finished steps", ", ".join(done))] if done else [])],
            fix=Fix("A GPU that fell off the bus or a wedged driver makes cuInit hang: check the kernel log, "
                    "then reset the GPU or reboot. If the node is only slow to initialise (many GPUs without "
                    "persistence mode), enable persistence mode and rerun.",
                    (cuerrors.XID, "nvidia-smi", "sudo nvidia-smi -pm 1")))], False
    if outcome != "ok":
        return [codes.DRIVER_INIT_FAILED.finding(
            "the driver check crashed while loading or initialising libcuda",
            evidence=[_ev("driver_check", doc.get("error") or f"exit status {doc.get('returncode')}"),
                      *(_ev("stderr", line) for line in tail[-5:])],
            fix=Fix("libcuda itself crashed: reinstall the driver (its user-space libraries may not match the "
                    "kernel module).", ("cat /proc/driver/nvidia/version", cuerrors.XID)))], False
    lib = doc.get("library") or {}
    if not lib.get("loaded"):
        return [codes.DRIVER_INIT_FAILED.finding(
            "no CUDA driver: libcuda cannot be loaded",
            evidence=[_ev("libcuda", "; ".join(lib.get("tried") or ["not found"]), "dlopen")],
            fix=INSTALL_DRIVER)], False
    lib_source = f"libcuda at {lib.get('path') or lib.get('name')}"
    init = doc.get("cuinit")
    if init:
        err = cuerrors.describe(init)
        return [codes.DRIVER_INIT_FAILED.finding(
            f"cuInit failed: {cuerrors.label(init)}",
            evidence=[_ev("cuInit", cuerrors.label(init), lib_source),
                      _ev("meaning", err.meaning, err.source),
                      *([_ev("driver_cuda_api", _cuda_api(doc["driver_version"]), lib_source)]
                        if doc.get("driver_version") else [])],
            fix=cuda_fix(init))], False
    count = doc.get("device_count")
    if count == 0 or doc.get("count_result"):
        rc = doc.get("count_result") or 100
        return [codes.DRIVER_INIT_FAILED.finding(
            "the driver initialised but sees no GPU",
            evidence=[_ev("cuDeviceGetCount", count if not doc.get("count_result") else cuerrors.label(rc),
                          lib_source),
                      _ev("CUDA_VISIBLE_DEVICES", doc.get("cuda_visible_devices"), "environment")],
            fix=cuda_fix(100))], False
    findings = [_device_finding(dev, lib_source) for dev in doc.get("devices") or [] if dev.get("failed_step")]
    usable = any(not dev.get("failed_step") for dev in doc.get("devices") or [])
    slow = _slow_init(doc, lib_source)
    return findings + ([slow] if slow else []), usable


SLOW_INIT_S = 5.0  # with persistence mode cuInit takes well under a second


def _slow_init(doc: dict, source: str) -> Finding | None:
    """GD717: initialisation that finished, but slowly: a cost, not a hang."""
    init = doc.get("cuinit_seconds") or 0.0
    contexts = [(d.get("index"), d.get("context_seconds") or 0.0) for d in doc.get("devices") or []]
    total = init + sum(s for _, s in contexts)
    if total < SLOW_INIT_S:
        return None
    count = len(contexts)
    return codes.DRIVER_INIT_SLOW.finding(
        f"CUDA initialisation took {total:.1f} s on {count} GPU(s) (cuInit {init:.1f} s): slow, not hung; "
        "every CUDA process start pays it",
        evidence=[_ev("cuInit", f"{init:.2f} s", source),
                  *(_ev(f"GPU {i}: cuDevicePrimaryCtxRetain", f"{s:.2f} s", source) for i, s in contexts if s >= 1.0)],
        fix=Fix("Without persistence mode the driver sets every GPU up again for each process. Enable it "
                "(nvidia-persistenced, or persistence mode with nvidia-smi) and rerun.",
                ("nvidia-smi --query-gpu=index,persistence_mode --format=csv", "sudo nvidia-smi -pm 1",
                 "sudo systemctl enable --now nvidia-persistenced")))


def _device_finding(dev: dict, source: str) -> Finding:
    subject = f"GPU {dev.get('index')}"
    step, code = dev.get("failed_step"), dev.get("result") or 0
    evidence = [_ev("device", f"{dev.get('name')} (cc {dev.get('cc')}, bus {dev.get('pci_bus_id')})", source)]
    if step == "verify":
        return codes.DRIVER_INIT_FAILED.finding(
            f"{subject}: 1 MiB written with cuMemsetD8 read back different bytes",
            evidence=evidence, subject=subject,
            fix=Fix("The GPU returns wrong data from a plain memset: a hardware or driver fault. Drain it and "
                    "check ECC and the kernel log.", ("nvidia-smi -q -d ECC,ROW_REMAPPER", cuerrors.XID)))
    return codes.DRIVER_INIT_FAILED.finding(
        f"{subject}: {step} failed with {cuerrors.label(code)}",
        evidence=[*evidence, _ev(step, cuerrors.label(code), source)], subject=subject, fix=cuda_fix(code))


def _cuda_api(version: int) -> str:
    return f"{version // 1000}.{version % 1000 // 10}"


def process_finding(proc: ProcessOutcome, in_flight: tuple[int | None, str] | None, source: str) -> Finding:
    """GD703/GD704 for a runner that died or hung; `in_flight` is (gpu, test) it was running."""
    where = "while starting (import or CUDA initialisation)"
    subject = "runner"
    if in_flight:
        gpu, test = in_flight
        subject = f"GPU {gpu}" if gpu is not None else "node"
        where = f"in {test}" + (f" on GPU {gpu}" if gpu is not None else "")
    evidence = [Evidence("runner", proc.describe(), source),
                *(Evidence("stderr", line, source) for line in proc.stderr_tail[-8:])]
    named = cuerrors.find_in_text("\n".join(proc.stderr_tail))
    if proc.status == "timeout":
        fix = Fix("A kernel that never finishes points at the driver or the GPU (or a PTX JIT compile that "
                  "takes minutes on first use): check the kernel log, then rerun with a longer --timeout to "
                  "tell a slow first compile from a hang.", (cuerrors.XID, "gpudoctor smoke --timeout 600"))
        return codes.SMOKE_TIMEOUT.finding(f"the runner hung {where}", evidence=evidence, fix=fix,
                                           subject=subject)
    if named:
        fix = cuda_fix(named.code, f"The last output names {cuerrors.label(named.code)}.")
    else:
        fix = Fix("A native crash inside the framework or driver. Rerun that test alone under the same "
                  "interpreter to get a core dump, and check the kernel log for Xid errors.", (cuerrors.XID,))
    return codes.SMOKE_CRASHED.finding(f"the runner {proc.describe()} {where}", evidence=evidence, fix=fix,
                                       subject=subject)


def runner_error_finding(error: dict, framework: str, source: str) -> Finding:
    """GD702: the runner ran but the framework cannot use the GPU."""
    stage, message = error.get("stage", ""), error.get("message", "")
    evidence = [Evidence("runner." + stage, message[:500], source)]
    named = cuerrors.find_in_text("\n".join([message, *(error.get("messages") or [])]))
    if stage == "import":
        title, fix = f"{framework or 'the framework'} cannot be imported by the target Python", Fix(
            "Install the framework into that environment, or point --python at the environment that has it.",
            ("gpudoctor install torch",))
    elif stage == "cpu-only-build":
        title, fix = f"{framework} is a CPU-only build", Fix(
            "Install a CUDA build of the framework that this driver and GPU support.", ("gpudoctor install torch",))
    elif named:
        title, fix = (f"{framework} cannot initialise CUDA: {cuerrors.label(named.code)}",
                      cuda_fix(named.code))
    else:
        title, fix = f"{framework} cannot use the GPU ({stage})", Fix(
            "Run gpudoctor check for the reason (driver, CUDA runtime, architecture).", ("gpudoctor check",))
    if error.get("traceback"):
        evidence.append(Evidence("traceback", error["traceback"].strip().splitlines()[-1][:300], source))
    return codes.FRAMEWORK_CANNOT_USE_GPU.finding(title, evidence=evidence, fix=fix, subject="runner")
