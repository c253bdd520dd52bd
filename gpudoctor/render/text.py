"""Human output: grouped facts, a verdict per GPU × framework, findings with fixes.

Only display: everything shown was computed by the doctor. Colour only on a
terminal; plain text when piped.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gpudoctor import __version__
from gpudoctor.doctor import Report
from gpudoctor.findings import Finding, Outcome, Severity
from gpudoctor.snapshot import Fact, Snapshot

MARK = {Severity.ERROR: ("✖", "bold red"), Severity.WARNING: ("!", "yellow"), Severity.INFO: ("i", "cyan")}
STATUS = {"ok": "green", "broken": "bold red", "cpu-only": "yellow", "unknown": "dim"}


def _v(f: Fact, default: str = "unknown") -> str:
    if f.value is None:
        return default
    if isinstance(f.value, (tuple, list)):
        return ", ".join(map(str, f.value)) or "none"
    return str(f.value)


def render(report: Report, console: Console, verbose: bool = False) -> None:
    s = report.snapshot
    counts = report.summary()
    head = ", ".join(f"{counts[k]} {k}{'s' if counts[k] != 1 and k != 'info' else ''}"
                     for k in ("error", "warning", "info") if counts[k])
    verdict = "[bold red]problems found[/]" if counts["error"] else (
        "[yellow]works, with warnings[/]" if counts["warning"] else "[green]no problems found[/]")
    console.print(f"[bold]gpudoctor {__version__}[/] — {verdict}" + (f" ({head})" if head else ""))
    console.print()
    _facts(s, console, verbose)
    if report.verdicts:
        console.print()
        _verdicts(report, console)
    if report.findings:
        console.print()
        console.print("[bold]Findings[/]")
        for f in report.findings:
            _finding(f, console, verbose)
    _footer(report, console, verbose)


LABEL = 11  # width of the facts' label column: wrapped text continues under the text, not at column 0


def _hanging(console: Console, lead: str, text: str, indent: int) -> None:
    """`lead` (markup) in the first `indent` columns, then `text` (markup) that
    wraps under itself: a hanging indent at any width."""
    grid = Table.grid(padding=0)
    grid.add_column(width=indent, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(lead, text)
    console.print(grid)


def _row(console: Console, label: str, text: str) -> None:
    _hanging(console, f"[bold]{label}[/]", text, LABEL)


def _facts(s: Snapshot, console: Console, verbose: bool) -> None:
    sy = s.system
    env = f" ({escape(_v(sy.environment))})" if sy.environment.known else ""
    extra = []
    if sy.container.value not in (None, "none"):
        extra.append(f"container: {sy.container.value}")
    if sy.wsl.value:
        extra.append("WSL2")
    _row(console, "System", escape(" · ".join(x for x in (
        _v(sy.os_release, _v(sy.os)), f"kernel {_v(sy.kernel)}", _v(sy.machine), f"glibc {_v(sy.glibc)}",
        f"Python {_v(sy.python)}") if x)) + env + (f" · {', '.join(extra)}" if extra else ""))
    d = s.driver
    if d.version.known:
        flavor = f", {d.kernel_module.value} kernel module" if d.kernel_module.value in ("open", "proprietary") else ""
        cuda = f", CUDA {d.cuda_api.value}" if d.cuda_api.known else ""
        init = "" if d.cuinit.value in (None, 0) else f", cuInit → {d.cuinit.value}"
        _row(console, "Driver", escape(f"{d.version.value}{cuda}{flavor}{init}") + _src(d.version, verbose))
    else:
        bits = [f"kernel module: {_v(d.kernel_module)}", f"NVML: {_v(d.nvml)}", f"libcuda: {_v(d.libcuda, 'not found')}"]
        _row(console, "Driver", "[red]not found[/] (" + escape("; ".join(bits)) + ")")
    if s.gpus is None:
        _row(console, "GPUs", "unknown")
    elif not s.gpus:
        _row(console, "GPUs", "none found")
    else:
        visible = {g.index for g in s.visible_gpus() or ()}
        for i, g in enumerate(s.gpus):
            mem = f", {g.memory_total_mib / 1024:.0f} GiB" if g.memory_total_mib else ""
            cc = f", sm_{g.compute_capability.replace('.', '')}" if g.compute_capability else ""
            hidden = "" if g.index in visible else " [dim](hidden by CUDA_VISIBLE_DEVICES)[/]"
            _row(console, "GPUs" if i == 0 else "", escape(f"{g.index}: {g.name}{cc}{mem}") + hidden)
    _list(console, "CUDA", s.cuda_runtimes, lambda rt: f"{rt.kind} {rt.version or '?'}{_at(rt.path)}"
          + (f" (nvcc {rt.nvcc})" if rt.nvcc else ""), verbose)
    _list(console, "cuDNN", s.cudnn, lambda lib: f"{lib.kind} {lib.version or '?'}{_at(lib.path)}", verbose)
    _list(console, "NCCL", s.nccl, lambda lib: f"{lib.kind} {lib.version or '?'}{_at(lib.path)}", verbose)
    if s.frameworks is None:
        _row(console, "Frameworks", "unknown")
    elif not s.frameworks:
        _row(console, "Frameworks", "none installed in the target environment")
    for i, fw in enumerate(s.frameworks or ()):
        parts = [f"{fw.name} {_v(fw.version)}", f"{_v(fw.build)} build"]
        if fw.cuda.known:
            parts.append(f"CUDA {fw.cuda.value}")
        if fw.cudnn.known:
            parts.append(f"cuDNN {fw.cudnn.value}")
        if fw.arch_list.known:
            parts.append(f"archs {_v(fw.arch_list)}")
        _row(console, "Frameworks" if i == 0 else "", escape(" · ".join(parts)) + _src(fw.arch_list, verbose))
        if fw.deep is not None:
            for line in deep_lines(fw.deep, verbose):
                _row(console, "", "  " + escape(line))
    for pe in s.probe_errors:
        _row(console, "Probe", f"[red]{escape(pe.probe)} failed[/]: {escape(pe.error)}")


def deep_lines(deep, verbose: bool = False) -> list[str]:
    """What importing the framework showed (--deep), as lines: its own error, CUDA
    availability, devices, the cuDNN and libraries it loaded, the tiny GPU op."""
    if not deep.imported:
        return [f"--deep: import failed: {deep.error or 'no message'}" + (" (timed out)" if deep.timed_out else "")]
    head = "--deep: imported"
    if deep.is_available is not None:
        head += f", CUDA available: {'yes' if deep.is_available else 'no'}"
    if deep.device_count is not None:
        head += f", {deep.device_count} device{'s' if deep.device_count != 1 else ''}"
    if deep.duration_s is not None:
        head += f" ({deep.duration_s:.1f} s)"
    out = [head]
    if deep.error:
        out.append(f"  its message: {deep.error}")
    if deep.devices:
        out.append("  devices: " + ", ".join(deep.devices))
    if deep.cudnn_runtime:
        out.append(f"  cuDNN loaded: {deep.cudnn_runtime}")
    if deep.loaded_libraries:
        shown = deep.loaded_libraries if verbose else deep.loaded_libraries[:3]
        more = "" if verbose or len(deep.loaded_libraries) <= 3 else f" (+{len(deep.loaded_libraries) - 3} more; -v)"
        out.append("  libraries loaded: " + ", ".join(shown) + more)
    for i, result in enumerate(deep.op_results):
        out.append(f"  tiny GPU op on device {i}: {result}")
    for w in deep.warnings[:5 if verbose else 2]:
        out.append(f"  warning: {w}")
    return out


def _at(path: str) -> str:
    """' at /usr/local/cuda', or the paste's description of where as it is: '(nvcc on PATH, ...)'."""
    return f" {path}" if path.startswith("(") else f" at {path}"


def _list(console: Console, label: str, items, fmt, verbose: bool) -> None:
    if items is None:
        _row(console, label, "unknown")
    elif not items:
        _row(console, label, "none found")
    for i, item in enumerate(items or ()):
        src = f" [dim]← {escape(item.source)}[/]" if verbose else ""
        _row(console, label if i == 0 else "", escape(fmt(item)) + src)


def _src(f: Fact, verbose: bool) -> str:
    return f" [dim]← {escape(f.source)}[/]" if verbose and f.source else ""


def _verdicts(report: Report, console: Console) -> None:
    table = Table(title=None, show_edge=False, box=None, pad_edge=False, header_style="bold")
    table.add_column("GPU")
    table.add_column("Framework")
    table.add_column("Verdict")
    table.add_column("Why")
    for v in report.verdicts:
        gpu = f"{v.gpu}: {v.gpu_name}" if v.gpu is not None else "—"
        table.add_row(escape(gpu), escape(v.framework), f"[{STATUS.get(v.status, '')}]{v.status}[/]", escape(v.reason))
    console.print("[bold]Will each framework use each GPU?[/]")
    console.print(table)


def _finding(f: Finding, console: Console, verbose: bool) -> None:
    mark, style = MARK[f.severity]
    _hanging(console, f" [{style}]{mark}[/]", f"[{style}]{f.code}[/] [{style}]{f.severity.value}[/] "
             f"{escape(f.title)} [dim]({escape(f.category)})[/]", 3)
    for e in f.evidence if verbose or f.severity is not Severity.INFO else ():
        _hanging(console, "     [dim]evidence:[/]", f"{escape(e.fact)} = {escape(e.value)} [dim]← {escape(e.source)}[/]",
                 15)
    if f.fix and (verbose or f.severity is not Severity.INFO):
        _hanging(console, "     [bold]fix:[/]", escape(f.fix.text), 10)
        for cmd in f.fix.commands:  # never wrapped by us: a command is copied whole
            console.print(f"       [green]$[/] {escape(cmd)}", soft_wrap=True)


def _footer(report: Report, console: Console, verbose: bool) -> None:
    counts = report.summary()
    notes = []
    unknown = [r for r in report.results if r.outcome is Outcome.UNKNOWN]
    if unknown and verbose:
        console.print()
        console.print(f"[bold]{len(unknown)} check{'s' if len(unknown) != 1 else ''} could not tell[/]")
        for r in unknown:
            _hanging(console, f"   [dim]{r.code}[/]", escape(r.detail or "facts unknown"), 9)
    elif unknown:
        notes.append(f"{len(unknown)} check{'s' if len(unknown) != 1 else ''} could not tell (facts unknown; -v lists them)")
    if counts["crashed"]:
        n = counts["crashed"]
        notes.append(f"[red]{n} check{'s' if n != 1 else ''} crashed[/] (a gpudoctor bug; see --json 'results')")
    if any(f.severity is Severity.INFO for f in report.findings) and not verbose:
        notes.append("-v shows evidence and fixes for info findings")
    if notes:
        console.print()
        console.print("[dim]" + "; ".join(notes) + "[/]")
