"""Host needs in the forms schedulers take: Kubernetes nodeAffinity on GPU
Feature Discovery labels, a Slurm constraint, NVIDIA_REQUIRE_CUDA."""

from __future__ import annotations

from collections import defaultdict

from gpudoctor.requires import HostNeeds
from gpudoctor.versions import driver_tuple

# GPU Feature Discovery node labels.
DRIVER_MAJOR, DRIVER_MINOR = "nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor"
CC_MAJOR, CC_MINOR = "nvidia.com/gpu.compute.major", "nvidia.com/gpu.compute.minor"


def _cc_terms(needs: HostNeeds) -> list[list[tuple[str, str, list[str]]]]:
    """One term per compute-capability major: (label, operator, values)."""
    by_major: dict[str, list[str]] = defaultdict(list)
    for cc, _ in needs.compute:
        major, minor = cc.split(".")
        by_major[major].append(minor)
    return [[(CC_MAJOR, "In", [major]), (CC_MINOR, "In", sorted(minors, key=int))]
            for major, minors in sorted(by_major.items(), key=lambda kv: int(kv[0]))]


def _driver_terms(needs: HostNeeds) -> list[list[tuple[str, str, list[str]]]]:
    floor = needs.driver.get("linux")
    parts = driver_tuple(floor.value) if floor else None
    if not parts:
        return [[]]
    major = parts[0]
    minor = parts[1] if len(parts) > 1 else 0
    terms = [[(DRIVER_MAJOR, "Gt", [str(major)])]]
    terms.append([(DRIVER_MAJOR, "In", [str(major)])] + ([(DRIVER_MINOR, "Gt", [str(minor - 1)])] if minor else []))
    return terms


def kubernetes_affinity(needs: HostNeeds) -> dict:
    """nodeSelectorTerms are ORed and expressions inside one are ANDed: the
    product of the driver terms and the compute-capability terms."""
    cc_terms = _cc_terms(needs) or [[]]
    terms = []
    for d in _driver_terms(needs):
        for c in cc_terms:
            exprs = [{"key": k, "operator": op, "values": v} for k, op, v in d + c]
            if exprs:
                terms.append({"matchExpressions": exprs})
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                          {"nodeSelectorTerms": terms}}}}


def kubernetes_yaml(needs: HostNeeds) -> str:
    if not needs.compute and not needs.driver:
        return "# no GPU requirement: no nodeAffinity needed\n"
    lines = ["affinity:", "  nodeAffinity:", "    requiredDuringSchedulingIgnoredDuringExecution:",
             "      nodeSelectorTerms:"]
    for term in kubernetes_affinity(needs)["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]:
        lines.append("      - matchExpressions:")
        for e in term["matchExpressions"]:
            values = ", ".join(f'"{v}"' for v in e["values"])
            lines.append(f'        - {{key: {e["key"]}, operator: {e["operator"]}, values: [{values}]}}')
    return "\n".join(lines) + "\n"


def slurm_constraint(needs: HostNeeds) -> str | None:
    """A --constraint over node features named after the GPU architecture
    (sm_80): Slurm features are site-defined, so the names are a convention."""
    feats = [f"sm_{cc.replace('.', '')}" for cc, _ in needs.compute]
    return "|".join(feats) if feats else None


def nvidia_require_cuda(needs: HostNeeds) -> str | None:
    return f"cuda>={needs.driver_cuda.value}" if needs.driver_cuda else None


def scheduler_forms(needs: HostNeeds) -> dict:
    return {"kubernetes": kubernetes_affinity(needs), "slurm_constraint": slurm_constraint(needs),
            "nvidia_require_cuda": nvidia_require_cuda(needs)}
