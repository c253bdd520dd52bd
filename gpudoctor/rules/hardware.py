"""GD6xx: hardware health and configuration, containers, WSL, visibility, precision."""

from __future__ import annotations

from gpudoctor.findings import Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.matrices.records.gpus import PRECISIONS
from gpudoctor.rules.common import (
    ev,
    ev_value,
    gpu_cc,
    gpu_evidence,
    gpu_label,
    need_gpus,
)
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Gpu, Snapshot

FAMILY = "hardware"


def _all_gpus(s: Snapshot) -> tuple[Gpu, ...]:
    if s.gpus is None:
        raise Unknown("the GPUs are unknown")
    return s.gpus


@rule("GD601", "mig-enabled", "info", Severity.INFO,
      "MIG mode is on: CUDA programs see MIG instances, not the whole GPU.", FAMILY, since="0.1.0")
def mig(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        if g.mig_mode:
            yield mig.finding(
                f"{gpu_label(g)} has MIG enabled", subject=f"GPU {g.index}",
                evidence=[ev_value(f"gpus[{g.index}].mig_mode", True, g.source)],
                fix=Fix("Select a MIG instance by its UUID (one per process for most frameworks); disable MIG to use "
                        "the whole GPU.", ("nvidia-smi -L", "export CUDA_VISIBLE_DEVICES=MIG-<uuid from nvidia-smi -L>",
                                           f"sudo nvidia-smi -i {g.index} -mig 0   # disable, needs a GPU reset")),
            )


@rule("GD602", "persistence-mode-off", "performance", Severity.INFO,
      "Persistence mode is off on a data-center GPU: every CUDA start pays the driver's initialisation.", FAMILY, since="0.1.0")
def persistence(s: Snapshot, m: Matrices) -> Findings:
    if s.system.os.value not in (None, "linux"):
        return
    for g in _all_gpus(s):
        model = m.gpu(g.name, memory_gb=g.memory_total_mib / 1024 if g.memory_total_mib else None)
        if g.persistence_mode is False and model is not None and model.segment == "data-center":
            yield persistence.finding(
                f"{gpu_label(g)}: persistence mode is off", subject=f"GPU {g.index}",
                evidence=[ev_value(f"gpus[{g.index}].persistence_mode", False, g.source)],
                fix=Fix("Without a persistence daemon the driver tears the GPU state down when the last client "
                        "exits; each CUDA start then takes seconds longer.",
                        ("sudo systemctl enable --now nvidia-persistenced",)),
            )


@rule("GD603", "pcie-link-width-degraded", "hardware-health", Severity.WARNING,
      "A GPU's PCIe link runs narrower than it can (x8 instead of x16): a seating, riser or slot problem.", FAMILY, since="0.1.0")
def pcie_width(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        if g.pcie_width_current and g.pcie_width_max and g.pcie_width_current < g.pcie_width_max:
            yield pcie_width.finding(
                f"{gpu_label(g)}: PCIe link x{g.pcie_width_current} of x{g.pcie_width_max}", subject=f"GPU {g.index}",
                evidence=[ev_value(f"gpus[{g.index}].pcie_width", f"x{g.pcie_width_current} of x{g.pcie_width_max}",
                                   g.source)],
                fix=Fix("Host-device copies run at a fraction of their speed. Reseat the card, check risers and "
                        "the slot's wiring (some x16 slots are x8 electrically), BIOS lane settings.",
                        (f"nvidia-smi -i {g.index} -q -d PCIE", "sudo lspci -vv -d 10de: | grep -E 'LnkCap|LnkSta'")),
            )


@rule("GD604", "pcie-link-generation-low", "performance", Severity.INFO,
      "A GPU's PCIe link runs at a lower generation than it can (normal at idle, a problem under load).", FAMILY, since="0.1.0")
def pcie_gen(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        if g.pcie_gen_current and g.pcie_gen_max and g.pcie_gen_current < g.pcie_gen_max:
            yield pcie_gen.finding(
                f"{gpu_label(g)}: PCIe Gen{g.pcie_gen_current} of Gen{g.pcie_gen_max}", subject=f"GPU {g.index}",
                evidence=[ev_value(f"gpus[{g.index}].pcie_gen", f"{g.pcie_gen_current} of {g.pcie_gen_max}", g.source)],
                fix=Fix("GPUs lower the link generation when idle to save power; this matters only if it stays low "
                        "under load. `gpudoctor smoke` measures copies under load.",
                        ("gpudoctor smoke", f"nvidia-smi -i {g.index} --query-gpu=pcie.link.gen.current --format=csv")),
            )


@rule("GD605", "ecc-errors", "hardware-health", Severity.WARNING,
      "Uncorrectable ECC errors, or retired pages / remapped rows pending a reset.", FAMILY, since="0.1.0")
def ecc(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        problems = []
        if g.ecc_uncorrected_volatile:
            problems.append(f"{g.ecc_uncorrected_volatile} uncorrectable ECC errors since the last reset")
        if g.retired_pages_pending:
            problems.append("retired pages pending a reset")
        if g.remapped_rows_pending:
            problems.append("remapped rows pending a reset")
        if g.remapped_rows_failure:
            problems.append("a row remapping failed")
        if not problems:
            continue
        yield ecc.finding(
            f"{gpu_label(g)}: " + "; ".join(problems), subject=f"GPU {g.index}",
            severity=Severity.ERROR if g.remapped_rows_failure else Severity.WARNING,
            evidence=[ev_value(f"gpus[{g.index}].ecc", "; ".join(problems), g.source)],
            fix=Fix("Reset the GPU (or reboot) so pending retirements/remappings take effect. A failed remapping or "
                    "recurring uncorrectable errors mean the board should be replaced (RMA).",
                    (f"nvidia-smi -i {g.index} -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER",
                     f"sudo nvidia-smi -i {g.index} -r   # reset; needs no process on the GPU")),
        )


# Throttle reasons that mean the GPU is being held back, not merely idle.
BAD_THROTTLE = {"hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown",
                "sw_power_cap"}


@rule("GD606", "clocks-throttled", "performance", Severity.WARNING,
      "A GPU's clocks are held down by heat, power limits or a hardware slowdown signal.", FAMILY, since="0.1.0")
def throttled(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        bad = sorted(set(g.throttle_reasons or ()) & BAD_THROTTLE)
        if not bad:
            continue
        # A power cap while idle is harmless; at load it is what the user should know about.
        if bad == ["sw_power_cap"] and (g.memory_used_mib or 0) < 1024:
            continue
        yield throttled.finding(
            f"{gpu_label(g)} is throttled: {', '.join(bad)}", subject=f"GPU {g.index}",
            evidence=[ev_value(f"gpus[{g.index}].throttle_reasons", ", ".join(bad), g.source)],
            fix=Fix("Thermal: check airflow, fans and inlet temperature. Power: check the power limit and PSU "
                    "cabling. HW slowdown/power brake: a board or system signal; see the BMC logs.",
                    (f"nvidia-smi -i {g.index} -q -d PERFORMANCE,TEMPERATURE,POWER",)),
        )


@rule("GD607", "container-without-gpu", "container-no-gpu", Severity.ERROR,
      "Inside a container with no NVIDIA device passed in.", FAMILY, since="0.1.0")
def container(s: Snapshot, m: Matrices) -> Findings:
    kind = s.system.container.value
    if kind is None:
        raise Unknown("container detection did not run")
    if kind == "none" or s.system.wsl.value:
        return
    nodes = s.system.gpu_device_nodes.value
    # NVML needs /dev/nvidiactl: with the device nodes known to be absent, an NVML that
    # works is the host's (a paste that shows the host's nvidia-smi beside the container).
    if nodes or (nodes is None and s.driver.nvml.value == "ok"):
        return
    yield container.finding(
        f"No NVIDIA driver or GPU visible: this {kind} container was started without GPU access",
        evidence=[ev("system.container", s.system.container), ev("system.gpu_device_nodes", s.system.gpu_device_nodes),
                  ev("driver.nvml", s.driver.nvml)],
        fix=Fix("The NVIDIA driver belongs on the host, never in the container. On the host: make sure "
                "`nvidia-smi` works (install the driver there if not), install the NVIDIA Container Toolkit, "
                "then start the container with GPU access.",
                ("# on the host:", "nvidia-smi",
                 "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker",
                 "docker run --gpus all IMAGE ...   # podman: --device nvidia.com/gpu=all",
                 "# Kubernetes: resources.limits: nvidia.com/gpu: 1 (needs the NVIDIA device plugin)")),
    )


@rule("GD608", "wsl-linux-driver-installed", "wsl", Severity.ERROR,
      "A Linux NVIDIA driver is installed inside WSL2, where only the Windows driver may provide libcuda.", FAMILY, since="0.1.0")
def wsl_linux_driver(s: Snapshot, m: Matrices) -> Findings:
    if s.system.wsl.value is None:
        raise Unknown("WSL detection did not run")
    if not s.system.wsl.value:
        return
    lib = s.driver.libcuda.value or ""
    if s.driver.kernel_module.value in ("open", "proprietary", "loaded") or (lib and not lib.startswith("/usr/lib/wsl/")):
        yield wsl_linux_driver.finding(
            "A Linux NVIDIA driver is installed inside WSL2", evidence=[
                ev("driver.libcuda", s.driver.libcuda), ev("driver.kernel_module", s.driver.kernel_module)],
            fix=Fix("Under WSL2 the Windows driver provides /usr/lib/wsl/lib/libcuda.so.1; a Linux driver inside "
                    "WSL breaks it. Remove the Linux driver packages (keep only the CUDA toolkit, e.g. "
                    "cuda-toolkit-12-x, never cuda-drivers).",
                    ("sudo apt-get remove --purge '^nvidia-.*' '^libnvidia-.*'", "wsl --shutdown   # from Windows")),
        )


@rule("GD609", "wsl-without-libcuda", "wsl", Severity.ERROR,
      "WSL2 without the Windows driver's libcuda: the Windows NVIDIA driver is missing or too old.", FAMILY, since="0.1.0")
def wsl_no_libcuda(s: Snapshot, m: Matrices) -> Findings:
    if s.system.wsl.value is None:
        raise Unknown("WSL detection did not run")
    if s.system.wsl.value and not s.system.wsl_libcuda.known:
        yield wsl_no_libcuda.finding(
            "WSL2 has no /usr/lib/wsl/lib/libcuda.so.1", evidence=[ev("system.wsl_libcuda", s.system.wsl_libcuda)],
            fix=Fix("Install a current NVIDIA driver on Windows (not inside WSL), then restart WSL.",
                    ("# Windows: https://www.nvidia.com/Download/index.aspx", "wsl --shutdown", "wsl --update")),
        )


@rule("GD610", "cuda-visible-devices-hides-all", "info", Severity.WARNING,
      "CUDA_VISIBLE_DEVICES hides every GPU from CUDA programs.", FAMILY, since="0.1.0")
def hides_all(s: Snapshot, m: Matrices) -> Findings:
    gpus = _all_gpus(s)
    if gpus and s.visibility.visible == ():
        yield hides_all.finding(
            f"CUDA_VISIBLE_DEVICES={s.visibility.cuda_visible_devices!r} hides all {len(gpus)} GPUs",
            evidence=[ev_value("env.CUDA_VISIBLE_DEVICES", s.visibility.cuda_visible_devices, "environment")],
            fix=Fix("Unset it, or list GPU indices / UUIDs that exist (an invalid entry ends the list).",
                    ("unset CUDA_VISIBLE_DEVICES", "nvidia-smi -L")),
        )


@rule("GD611", "device-order-differs", "info", Severity.INFO,
      "Different GPU models without CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA's device 0 may not be nvidia-smi's GPU 0.",
      FAMILY, since="0.1.0")
def device_order(s: Snapshot, m: Matrices) -> Findings:
    gpus = need_gpus(s)
    if len({g.name for g in gpus}) > 1 and (s.visibility.cuda_device_order or "FASTEST_FIRST") != "PCI_BUS_ID":
        yield device_order.finding(
            "Mixed GPU models and CUDA_DEVICE_ORDER is not PCI_BUS_ID: CUDA numbers the fastest GPU first",
            evidence=[ev_value("gpus", ", ".join(f"{g.index}: {g.name}" for g in gpus), "nvml"),
                      ev_value("env.CUDA_DEVICE_ORDER", s.visibility.cuda_device_order or "(unset: FASTEST_FIRST)",
                               "environment")],
            fix=Fix("Make CUDA's numbering match nvidia-smi's.", ("export CUDA_DEVICE_ORDER=PCI_BUS_ID",)),
        )




@rule("GD612", "precision-unsupported", "precision-unsupported", Severity.INFO,
      "A GPU lacks a precision (fast FP16, TF32, BF16, FP8) in hardware; --require-precision makes it an error.",
      FAMILY, since="0.1.0")
def precision(s: Snapshot, m: Matrices) -> Findings:
    for g in need_gpus(s):
        cc = gpu_cc(g)
        row = m.precision(cc) if cc else None
        if row is None:
            continue
        quirks = {q.precision: q for q in m.precision_quirks(g.name or "", row.compute_capability)}
        for p in PRECISIONS:
            quirk = quirks.get(p) if getattr(row, p) else None
            if quirk is not None:  # the architecture has it, this board does not do it right
                yield precision.finding(
                    f"{gpu_label(g)}: {p.upper()} is unreliable on this board", subject=f"GPU {g.index} {p}",
                    evidence=[gpu_evidence(g), ev_value(f"precision.{p}", "unreliable", quirk.source)],
                    fix=Fix(f"{quirk.effect}."),
                )
            elif not getattr(row, p):
                yield precision.finding(
                    f"{gpu_label(g)} has no {'fast' if p == 'fp16' else 'hardware'} {p.upper()}",
                    subject=f"GPU {g.index} {p}",
                    evidence=[gpu_evidence(g), ev_value(f"precision.{p}", False, row.source)],
                    fix=Fix(_PRECISION_ADVICE[p]),
                )


_PRECISION_ADVICE = {
    "fp16": "FP16 runs no faster than FP32 here (no native FP16 arithmetic before sm_53, 1/64 of the FP32 rate on "
            "sm_61: GTX 10xx, P4/P40; tensor cores from sm_70): mixed precision saves memory but not time, and "
            "FP16 engines (TensorRT, CTranslate2) refuse or fall back. Train and infer in FP32 here.",
    "tf32": "TF32 needs sm_80 (Ampere) or newer; FP32 matmuls run at full FP32 cost here.",
    "bf16": "BF16 needs sm_80 (Ampere) or newer: use FP16 autocast with a GradScaler (torch.amp) instead; "
            "BF16 may be emulated slowly or rejected (e.g. torch_dtype=torch.bfloat16 on a T4).",
    "fp8": "FP8 tensor cores need sm_89 (Ada) or sm_90 (Hopper) or newer; use BF16/FP16 here.",
}


@rule("GD613", "gpu-memory-in-use", "info", Severity.INFO,
      "Other processes already hold most of a GPU's memory.", FAMILY, since="0.1.0")
def memory_in_use(s: Snapshot, m: Matrices) -> Findings:
    for g in _all_gpus(s):
        if g.memory_total_mib and g.memory_used_mib and g.memory_used_mib > 0.5 * g.memory_total_mib:
            procs = ", ".join(f"{p.pid} ({p.name or '?'}, {p.used_memory_mib or '?'} MiB)" for p in g.processes or ())
            yield memory_in_use.finding(
                f"{gpu_label(g)}: {g.memory_used_mib} of {g.memory_total_mib} MiB already in use",
                subject=f"GPU {g.index}",
                evidence=[ev_value(f"gpus[{g.index}].memory_used_mib", g.memory_used_mib, g.source)]
                + ([ev_value(f"gpus[{g.index}].processes", procs, g.source)] if procs else []),
                fix=Fix("Your job gets only what is left; stop stale processes (a crashed notebook kernel often "
                        "keeps its memory) or pick another GPU.",
                        (f"nvidia-smi -i {g.index} --query-compute-apps=pid,process_name,used_memory --format=csv",)),
            )


RULES: tuple[Rule, ...] = (
    mig,
    persistence,
    pcie_width,
    pcie_gen,
    ecc,
    throttled,
    container,
    wsl_linux_driver,
    wsl_no_libcuda,
    hides_all,
    device_order,
    precision,
    memory_in_use,
)
