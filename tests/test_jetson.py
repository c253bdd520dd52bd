"""Jetson: the probes read the board and its L4T release, and install never offers the
server (SBSA) aarch64 wheels of PyPI / download.pytorch.org there; it points to NVIDIA's
Jetson wheels for that JetPack (gpudoctor/data/install_channels.toml [[jetson]])."""

from cli_helpers import invoke
from probe_builders import Machine

from gpudoctor.install import parse_request, plan_install, target_from_snapshot
from gpudoctor.matrices import load_matrices
from gpudoctor.probes import collect

# As a Jetson Orin Nano Super on JetPack 6.2 prints them (a public benchmark report's platform
# section: `cat /proc/device-tree/model` and `cat /etc/nv_tegra_release`).
MODEL = "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super\x00"
TEGRA = ("# R36 (release), REVISION: 4.7, GCID: 42132812, BOARD: generic, EABI: aarch64, "
         "DATE: Thu Sep 18 22:54:44 UTC 2025\n# KERNEL_VARIANT: oot\nTARGET_USERSPACE_LIB_DIR=nvidia\n")
M = load_matrices(overlay=None)


def jetson_snapshot():
    m = Machine().file("/proc/device-tree/model", MODEL).file("/etc/nv_tegra_release", TEGRA)
    return collect(m.finish())


def test_the_probe_reads_the_board_and_the_l4t_release():
    s = jetson_snapshot().system
    assert s.jetson_model.value == "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super"
    assert s.jetson_model.source == "/proc/device-tree/model"
    assert s.l4t_release.value == "36.4.7" and s.l4t_release.source == "/etc/nv_tegra_release"


def test_a_non_jetson_has_no_jetson_facts():
    s = collect(Machine().file("/proc/device-tree/model", "Raspberry Pi 4 Model B\x00").finish()).system
    assert not s.jetson_model.known and not s.l4t_release.known
    assert any("not a Jetson" in t for t in s.jetson_model.tried)


def test_install_on_the_jetson_points_to_nvidia_jetson_wheels():
    from dataclasses import replace
    snap = jetson_snapshot()
    snap = replace(snap, system=replace(snap.system, machine=replace(snap.system.machine, value="aarch64")))
    target = target_from_snapshot(snap, M)
    assert target.l4t == "36.4.7"
    plan = plan_install(parse_request("torch"), replace(target, gpus=(), cpu_only=False), M)
    assert not plan.ok  # every PyPI / download.pytorch.org aarch64 wheel is an SBSA build
    text = "\n".join(plan.needs + tuple(a.reason for a in plan.alternatives))
    assert "https://pypi.jetson-ai-lab.dev/jp6/cu126" in text and "JetPack 6.2" in text
    assert "server (SBSA) aarch64 build" in text


def test_a_server_aarch64_machine_is_not_a_jetson():
    from gpudoctor.install.target import Target
    plan = plan_install(parse_request("torch"), Target(arch="aarch64", driver="580.95.05"), M)
    assert plan.ok and "jetson" not in "\n".join(plan.reasons + plan.warnings).lower()


def test_described_jetson_and_bad_l4t():
    res = invoke("install", "torch", "--l4t", "35.4.1", "--sm", "8.7", "--json")
    assert res.exit_code == 1 and "developer.download.nvidia.com/compute/redist/jp/v512/pytorch" in res.output
    bad = invoke("install", "torch", "--l4t", "six")
    assert bad.exit_code == 2 and "bad L4T release" in bad.output and "Traceback" not in bad.output
