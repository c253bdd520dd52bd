"""gpudoctor requires: the host a lockfile, image or environment needs, and
the scheduler forms of it, computed from the same data the rules use."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from cli_helpers import invoke

from gpudoctor.install.target import Target
from gpudoctor.lint.engine import host_from_target, read_source
from gpudoctor.lint.resolve import resolve
from gpudoctor.matrices import load_matrices
from gpudoctor.render.scheduler import kubernetes_affinity, kubernetes_yaml, nvidia_require_cuda, slurm_constraint
from gpudoctor.requires import host_needs
from gpudoctor.snapshot import Fact, Framework, Snapshot

LINT = Path(__file__).parent / "fixtures" / "lint"
M = load_matrices(overlay=None)


def needs_of(path: Path):
    t = Target()
    return host_needs(resolve(read_source(str(path)), host_from_target(t), M, t.platform).snapshot, M)


def test_lockfile_needs_driver_archs_cudnn_floor_and_glibc():
    n = needs_of(LINT / "nemo-rl" / "uv.lock")
    assert n.driver["linux"].value == M.minor_compat_floor(13, "linux")
    assert n.driver_full["linux"].value == M.toolkit_min_driver("13.0", "linux")
    assert n.glibc.value == "2.28" and "manylinux_2_28_x86_64" in n.glibc.why
    assert n.cudnn_min_sm.value == "7.5"
    ccs = dict(n.compute)
    assert "6.1" not in ccs and ccs["9.0"] == "sass" and ccs["8.9"] == "sass-compatible"
    assert nvidia_require_cuda(n) == "cuda>=13.0"


def test_ptx_reaches_newer_gpus_through_jit():
    fw = Framework("torch", version=Fact("2.7.0", "t"), build=Fact("cuda", "t"), cuda=Fact("12.8", "t"),
                   arch_list=Fact(("sm_80", "compute_80"), "t"))
    n = host_needs(Snapshot(frameworks=(fw,)), M)
    ccs = dict(n.compute)
    assert ccs["8.0"] == "sass" and ccs["8.6"] == "sass-compatible" and ccs["9.0"] == "ptx-jit"
    assert "7.5" not in ccs


def test_image_floor_comes_from_the_base_image_tag():
    n = needs_of(LINT / "text-generation-webui" / "Dockerfile")
    assert n.driver_cuda.value == "12.1" and nvidia_require_cuda(n) == "cuda>=12.1"
    assert n.driver["linux"].value == M.toolkit_min_driver("12.1", "linux")


def test_kubernetes_terms_are_driver_times_compute_major():
    n = needs_of(LINT / "nemo-rl" / "uv.lock")
    terms = kubernetes_affinity(n)["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    majors = {cc.split(".")[0] for cc, _ in n.compute}
    floor = n.driver["linux"].value.split(".")
    assert len(terms) == 2 * len(majors)
    first = terms[0]["matchExpressions"]
    assert first[0] == {"key": "nvidia.com/cuda.driver.major", "operator": "Gt", "values": [floor[0]]}
    minor_term = terms[len(majors)]["matchExpressions"]
    assert minor_term[1] == {"key": "nvidia.com/cuda.driver.minor", "operator": "Gt", "values": [str(int(floor[1]) - 1)]}
    assert kubernetes_yaml(n).startswith("affinity:\n  nodeAffinity:\n")
    assert slurm_constraint(n).split("|")[0] == "sm_75"


def test_cli_formats_and_schema():
    out = invoke("requires", str(LINT / "nemo-rl" / "uv.lock"), "--format", "json")
    assert out.exit_code == 0
    data = json.loads(out.output)
    schema = json.loads((Path(__file__).parents[1] / "gpudoctor" / "schema" / "requires.v1.json").read_text())
    jsonschema.validate(data, schema)
    assert data["inputs"][0]["scheduler"]["nvidia_require_cuda"] == "cuda>=13.0"
    docker = invoke("requires", str(LINT / "text-generation-webui" / "Dockerfile"), "--format", "docker")
    assert docker.output.strip() == 'ENV NVIDIA_REQUIRE_CUDA="cuda>=12.1"'
    slurm = invoke("requires", str(LINT / "nemo-rl" / "uv.lock"), "--format", "slurm")
    assert slurm.output.startswith('#SBATCH --constraint="sm_75|')
    text = invoke("requires", str(LINT / "nemo-rl" / "uv.lock")).output
    assert "driver (linux): 580.65.06+" in text and "glibc: 2.28+" in text


def test_cpu_only_and_unknown_inputs_say_so(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("numpy==2.1.0\n")
    n = needs_of(req)
    assert n.driver == {} and any("needs no GPU" in u for u in n.unknown)
    bad = invoke("requires", str(tmp_path / "nope.txt"))
    assert bad.exit_code == 2


def test_this_environment_for_real():
    """gpudoctor's own environment (no CUDA framework in it on the dev/CI machines, or one there is)."""
    out = invoke("requires", "--format", "json")
    assert out.exit_code == 0
    data = json.loads(out.output)
    needs = data["inputs"][0]["needs"]
    assert needs["driver"] or any("needs no GPU" in u or "unknown" in u for u in needs["unknown"])


def test_no_cuda_build_asks_nothing_of_the_host(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.7.0+cpu\n")
    n = needs_of(req)
    assert n.compute == [] and slurm_constraint(n) is None and nvidia_require_cuda(n) is None
    assert kubernetes_yaml(n).startswith("# no GPU requirement")
