"""What `diagnose` read, and from where: 'driver 550.54.14 ← nvidia-smi banner line 3'.
Only display; the diagnose package decided everything shown."""

from __future__ import annotations

import re

from rich.console import Console
from rich.markup import escape
from rich.padding import Padding

from gpudoctor.render.markdown import _cell as md_cell

_LABELS = {
    "system.os": "OS", "system.os_release": "OS release", "system.kernel": "kernel", "system.machine": "machine",
    "system.glibc": "glibc", "system.python": "Python", "system.wsl": "WSL", "driver.version": "driver",
    "driver.cuda_api": "driver CUDA", "driver.nvml": "NVML", "driver.kernel_module": "kernel module",
    "cuda_runtimes": "CUDA", "cudnn": "cuDNN", "nccl": "NCCL",
    "image.driver_floor": "image built for driver", "image.driver_detected": "driver the image detected",
    "tensorflow.gpu_package_named": "GPU wheel tensorflow-gpu named",
    "tensorflow.plain_wheel_cpu_only": "tensorflow wheel CPU-only in",
}


def _formats(read: dict, none: str) -> str:
    """The formats read; a paste whose facts came from prose alone was read as free text."""
    return ", ".join(read["formats"]) or ("free text" if read["facts"] or read["errors"] else none)


def label(fact: str) -> str:
    if fact in _LABELS:
        return _LABELS[fact]
    m = re.fullmatch(r"gpus\[(\d+)\]\.(\w+)", fact)
    if m:
        return f"GPU {m.group(1)}" if m.group(2) == "name" else f"GPU {m.group(1)} {m.group(2).replace('_', ' ')}"
    return fact.replace(".version", "").replace("_", " ").replace(".", " ")


def render_text(read: dict, console: Console, name: str) -> None:
    """The 'read' section (gpudoctor.diagnose.findings.read_data) as text."""
    formats = _formats(read, "nothing gpudoctor recognises")
    console.print(f"[bold]Read from {escape(name)}[/]: {escape(formats)}")
    for r in read["facts"]:
        _item(console, f"{escape(label(r['fact']))} {escape(r['value'])} [dim]← {escape(r['source'])}[/]")
    for e in read["errors"]:
        code = f"{e['code']} " if e["code"] else ""
        _item(console, f"[yellow]{escape(code)}{escape(e['title'])}[/] [dim]← {escape(e['source'])}[/]")
    for c in read["conflicts"]:
        _item(console, f"[dim]conflict: {escape(c)}[/]")
    console.print()


def _item(console: Console, markup: str) -> None:
    """One read fact, indented by 2, wrapping under itself (a hanging indent)."""
    console.print(Padding(markup, (0, 0, 0, 2)))


def render_markdown(read: dict, name: str) -> str:
    lines = [f"### Read from {name}", "", f"Formats: {_formats(read, 'none recognised')}", ""]
    if read["facts"]:
        lines += ["| Fact | Value | Read from |", "|---|---|---|"]
        lines += [f"| {label(r['fact'])} | `{_cell(r['value'])}` | {_cell(r['source'])} |" for r in read["facts"]]
        lines.append("")
    for e in read["errors"]:
        lines.append(f"- {e['code'] or ''} {e['title']}: `{_cell(e['text'])}` ({e['source']})".replace("-  ", "- "))
    for c in read["conflicts"]:
        lines.append(f"- conflict: {c}")
    return "\n".join(lines).rstrip() + "\n\n"


def _cell(text: str) -> str:
    return md_cell(text).replace("`", "'")
