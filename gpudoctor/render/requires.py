"""`gpudoctor requires`'s views: what each input needs from a host, as text,
as JSON (schema/requires.v1.json), or as one scheduler's constraint (the forms
are render.scheduler's)."""

from __future__ import annotations

from gpudoctor.render import scheduler as sch

REQUIRES_SCHEMA_VERSION = 1


def requires_data(inputs) -> dict:
    """`inputs`: (name, HostNeeds) pairs."""
    from gpudoctor import __version__

    return {"schema_version": REQUIRES_SCHEMA_VERSION, "gpudoctor_version": __version__, "command": "requires",
            "inputs": [{"input": name, "needs": n.to_dict(), "scheduler": sch.scheduler_forms(n)}
                       for name, n in inputs]}


def render(inputs, fmt: str) -> str:
    """text, kubernetes, slurm or docker; with several inputs, each under a `# NAME` line."""
    out: list[str] = []
    for name, n in inputs:
        if len(inputs) > 1:
            out.append(f"# {name}\n")
        if fmt == "kubernetes":
            out.append(sch.kubernetes_yaml(n))
        elif fmt == "slurm":
            c = sch.slurm_constraint(n)
            out.append((f'#SBATCH --constraint="{c}"' if c else "# no GPU architecture constraint") + "\n")
        elif fmt == "docker":
            r = sch.nvidia_require_cuda(n)
            out.append((f'ENV NVIDIA_REQUIRE_CUDA="{r}"' if r else "# no CUDA requirement") + "\n")
        else:
            out += [line + "\n" for line in _text(name, n)]
    return "".join(out)


def _text(name, n) -> list[str]:
    lines = [f"{name} needs:"]
    for os_name, need in n.driver.items():
        full = n.driver_full.get(os_name)
        extra = f" ({full.value}+ where kernels run through PTX JIT)" if full and full.value != need.value else ""
        lines.append(f"  driver ({os_name}): {need.value}+{extra}  <- {need.why}")
    if n.driver_cuda:
        lines.append(f"  driver CUDA: {n.driver_cuda.value}+  (NVIDIA_REQUIRE_CUDA={sch.nvidia_require_cuda(n)})")
    for label, archs in n.archs.items():
        lines.append(f"  {label} carries: {', '.join(archs)}")
    if n.compute:
        shown = ", ".join(f"{cc}{' (PTX JIT)' if k == 'ptx-jit' else ''}" for cc, k in n.compute)
        lines.append(f"  GPUs with compute capability: {shown}")
    for label, need in (("cuDNN SM floor", n.cudnn_min_sm), ("library SM floor", n.min_sm), ("glibc", n.glibc)):
        if need:
            lines.append(f"  {label}: {need.value}+  <- {need.why}")
    if n.glibc is None:
        lines.append("  glibc: unknown (no wheel platform tag in the input)")
    lines += [f"  unknown: {u}" for u in n.unknown]
    c = sch.slurm_constraint(n)
    if c:
        lines.append(f'  slurm: --constraint="{c}"  (features named sm_XY; site-defined)')
    return lines
