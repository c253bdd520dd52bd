"""Probes: facts about a machine and a Python environment, never judgements.

`collect(host)` runs every probe and returns a frozen Snapshot. Each probe is
guarded: an exception inside one becomes a ProbeError ("Type: message") and
the others still run. Every external command has a timeout; frameworks are
never imported into gpudoctor's process (only `deep=True` imports them, in
subprocesses of the target interpreter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from gpudoctor.probes.target import Interrogation, TargetInfo, TargetPythonError, interrogate

if TYPE_CHECKING:
    from gpudoctor.host import Host
    from gpudoctor.snapshot import Snapshot

__all__ = ["collect", "TargetPythonError", "TargetInfo"]

T = TypeVar("T")


def collect(host: Host, python: str | None = None, deep: bool = False,
            progress: Callable[[str], None] | None = None, started: Interrogation | None = None) -> Snapshot:
    """Probe `host` and the environment of the interpreter `python` (default:
    gpudoctor's own). Raises TargetPythonError, with a one-line message for
    the user, when `python` is missing or cannot run; nothing else escapes.
    `started`: the same interrogation of `python`, begun earlier."""
    # Imported here, not above: gpudoctor.probes.target (the target interpreter,
    # started first) must not wait for every probe module and the snapshot types.
    import time

    from gpudoctor.probes import companions as companion_probe
    from gpudoctor.probes import cuda_runtime, deep as deep_probe, driver, frameworks, gpus, libraries, system
    from gpudoctor.probes import visibility
    from gpudoctor.probes.context import Context
    from gpudoctor.snapshot import Driver, ProbeError, Snapshot, System, Visibility

    target = started.result() if started is not None else interrogate(host, python)
    ctx = Context(host, target)
    errors: list[ProbeError] = []

    def guarded(name: str, run: Callable[[], T], fallback: T) -> T:
        if progress is not None:
            progress(name)
        try:
            return run()
        except Exception as exc:  # noqa: BLE001 - a probe bug is reported, never fatal
            errors.append(ProbeError(name, f"{type(exc).__name__}: {exc}"))
            return fallback

    try:
        sys_facts = guarded("system", lambda: system.probe(ctx), System())
        drv = guarded("driver", lambda: driver.probe(ctx), Driver())
        gpu_list = guarded("gpus", lambda: gpus.probe(ctx, drv.nvml.value), None)
        vis = guarded("visibility", lambda: visibility.probe(ctx, gpu_list), Visibility())
        runtimes = guarded("cuda_runtime", lambda: cuda_runtime.probe(ctx), None)
        cudnn = guarded("cudnn", lambda: libraries.probe_cudnn(ctx), None)
        nccl = guarded("nccl", lambda: libraries.probe_nccl(ctx), None)
        fws = guarded("frameworks", lambda: frameworks.probe(ctx), None)
        comps = guarded("companions", lambda: companion_probe.probe(ctx), None)
        if deep and comps:
            comps = guarded("deep companions", lambda: companion_probe.deep(ctx, comps), comps)
        if deep and fws:
            fws = guarded("deep", lambda: deep_probe.probe(ctx, fws), fws)
    finally:
        ctx.close()
    return Snapshot(
        origin="live",
        created=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),  # datetime's isoformat, without datetime
        system=sys_facts, driver=drv, gpus=gpu_list, visibility=vis,
        cuda_runtimes=runtimes, cudnn=cudnn, nccl=nccl, frameworks=fws, companions=comps,
        probe_errors=tuple(errors),
    )
