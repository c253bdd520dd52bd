"""The install command for a companion library that matches the framework
installed now: torchvision/torchaudio through the torch plan itself (same
index, same release train), pinned libraries through their pairing rows,
compiled extensions by rebuilding (or re-fetching) against this torch."""

from __future__ import annotations

import shlex

from packaging.specifiers import SpecifierSet

from gpudoctor.findings import Fix
from gpudoctor.install.plan import plan_install
from gpudoctor.install.request import Request
from gpudoctor.install.target import TargetError, target_from_snapshot
from gpudoctor.matrices import companion_queries as q

# Pins through the torch plan: they come from the same index as torch.
RELEASE_TRAIN = ("torchvision", "torchaudio")


def pip_install(s) -> str:
    """`<target python> -m pip install`, for the snapshot's interpreter when it is known."""
    exe = s.system.python_executable.value if s is not None else None
    return f"{shlex.quote(exe) if exe else 'python'} -m pip install"


def _public(version: str | None) -> str | None:
    return version.split("+", 1)[0] if version else None


def companion_commands(s, m, name: str, framework_version: str | None) -> tuple[tuple[str, ...], str]:
    """(commands, what they install) for `name` paired with `framework_version` of torch."""
    pip = pip_install(s)
    torch_v = _public(framework_version)
    if name in RELEASE_TRAIN and torch_v:
        local = (framework_version or "").partition("+")[2]
        paired = next((getattr(rel, name, None) for rel in m.torch_releases if rel.version == torch_v), None)
        pypi = m.torch_pypi_build(torch_v)
        linux = s is None or (s.system.os.value in (None, "linux") and s.system.machine.value in (None, "x86_64"))
        if local.startswith("cu") and paired and (pypi is None or pypi.variant != local):
            # Keep the CUDA build torch has now (its local label), which is not PyPI's own: a plan
            # that does not know the GPU would pick PyPI's default build instead.
            return ((f'{pip} "torch=={torch_v}+{local}" "{name}=={paired}+{local}" '
                     f"--extra-index-url https://download.pytorch.org/whl/{local}",),
                    f"torch {torch_v} with its paired {name} {paired} ({local}, the build installed now)")
        if linux and paired and pypi is not None and local in ("", pypi.variant):
            # PyPI's own build on Linux: the pair from PyPI, without planning the whole install
            return (f"{pip} torch=={torch_v} {name}=={paired}",), f"torch {torch_v} with its paired {name} ({pypi.variant})"
        try:
            target = target_from_snapshot(s, m)
            plan = plan_install(Request("torch", SpecifierSet(f"=={torch_v}"), (name,)), target, m)
        except (TargetError, ValueError, LookupError):
            plan = None
        if plan is not None and plan.ok:
            cmds = tuple(x for x in (*plan.install.commands.setup, plan.install.commands.pip) if x)
            return cmds, f"torch {plan.choice.candidate.version} with its paired {name} ({plan.choice.candidate.variant})"
    if name in ("triton", "pytorch-triton") and torch_v:
        row = q.framework_pin(m, "torch", torch_v, "triton")
        if row is not None:
            return (f'{pip} "triton{row.requires}"',), f"triton{row.requires}, the release torch {torch_v} pins"
    if name == "flash-attn":
        # setup.py fetches the prebuilt wheel matching the installed torch, CUDA and ABI, else builds.
        return (f"{pip} --force-reinstall --no-deps --no-build-isolation --no-cache-dir flash-attn",
                ), "flash-attn built (or fetched) for the installed torch"
    if name == "deepspeed":
        return (f"{pip} --force-reinstall --no-deps --no-cache-dir deepspeed",
                ), "DeepSpeed reinstalled against the installed torch (ops JIT-build on first use)"
    rows = q.pins_for_framework(m, name, torch_v) if torch_v else []
    if rows:
        return (f'{pip} "{name}=={rows[0].version}"',), f"{name} {rows[0].version}, whose wheels require torch{rows[0].requires}"
    if torch_v:
        # The resolver keeps torch and picks the companion release that pins it.
        return (f'{pip} "torch=={framework_version}" "{name}"',), f"the {name} release that pairs with torch {torch_v}"
    return (f"{pip} {name}",), name


def companion_fix(s, m, name: str, framework_version: str | None, why: str) -> Fix:
    commands, what = companion_commands(s, m, name, framework_version)
    return Fix(f"{why} Install {what}.", commands)
