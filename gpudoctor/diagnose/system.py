"""Operating-system facts, however a tool spelled them: "Ubuntu 22.04.4 LTS
(x86_64)", "Microsoft Windows 11 Pro", "Linux-5.15.0-91-generic-x86_64-with-glibc2.35",
"Windows-10-10.0.22621-SP0", "uname_result(system='Linux', release='...')"."""

from __future__ import annotations

import re

from gpudoctor.diagnose.collect import STATED, TOOL, Facts
from gpudoctor.diagnose.paste import Paste

_LINUX = re.compile(r"\b(ubuntu|debian|centos|red ?hat|rhel|rocky|alma|fedora|arch linux|linux mint|mint|opensuse|"
                    r"suse|amazon linux|gentoo|manjaro|pop!?_os|linux)\b", re.I)
_WINDOWS = re.compile(r"\b(windows|win32|win64|win ?(?:7|8|10|11))\b|^nt$", re.I)
_MAC = re.compile(r"\b(macos|mac os x|darwin|osx)\b", re.I)
_MACHINE = re.compile(r"\b(x86_64|amd64|aarch64|arm64|ppc64le)\b", re.I)
_PLATFORM = re.compile(r"^Linux-(\S+?)-(x86_64|aarch64|ppc64le)(?:-with-(?:glibc(\d+\.\d+)|\S+))?")


def os_name(text: str) -> str | None:
    if _WINDOWS.search(text):
        return "windows"
    if _MAC.search(text):
        return "darwin"
    if _LINUX.search(text):
        return "linux"
    return None


def note_os(f: Facts, value: str, src: str, rank: int = TOOL) -> None:
    """An OS description: sets system.os, and os_release / machine when they show."""
    name = os_name(value)
    if name is None:
        return
    f.put("system.os", name, src, rank)
    release = re.sub(r"\s*\((x86_64|amd64|aarch64|arm64)\)\s*$", "", value).strip()
    if name == "linux" and not release.lower().startswith("linux-"):
        f.put("system.os_release", release, src, rank)
    elif name == "windows" and re.search(r"windows\s+(1\d|server)", release, re.I):
        f.put("system.os_release", re.sub(r"^microsoft\s+", "", release, flags=re.I).split(" (")[0], src, rank)
    machine = _MACHINE.search(value)
    if machine:
        f.put("system.machine", machine.group(1).lower().replace("amd64", "x86_64").replace("arm64", "aarch64"),
              src, rank)
    if "wsl" in value.lower() or "microsoft-standard" in value.lower():
        f.put("system.wsl", True, src, rank)


def note_kernel(f: Facts, value: str, src: str, rank: int = TOOL) -> None:
    """Python's platform.platform() string, or a kernel release."""
    m = _PLATFORM.match(value.strip())
    if m:
        f.put("system.os", "linux", src, rank)
        f.put("system.kernel", m.group(1), src, rank)
        f.put("system.machine", m.group(2), src, rank)
        if m.group(3):
            f.put("system.glibc", m.group(3), src, rank)
    elif os_name(value):
        f.put("system.os", os_name(value), src, rank)
    if re.search(r"microsoft|wsl2?\b", value, re.I):
        f.put("system.wsl", True, src, rank)


# GitHub issue forms put a dropdown's answer under its label: "### OS\n\nWindows" (InvokeAI's,
# Ollama's, ComfyUI's forms), or "**OS**\n\nLinux" in older templates.
_FORM_OS = re.compile(r"^(?:#{2,4}[ \t]*|\*\*)(?:OS|Operating[ \t]system|OS[ \t]platform|Platform)(?:\*\*)?[ \t]*:?[ \t]*\n"
                      r"(?:[ \t]*\n){0,2}[ \t]*(?:[-*][ \t]*)?([^\n#*]{2,60}?)[ \t]*$", re.M | re.I)


def parse_issue_form(p: Paste, f: Facts) -> None:
    """The OS an issue form's answer gives (read like the reporter's own words)."""
    if "os" not in p.lower and "platform" not in p.lower:
        return
    for m in _FORM_OS.finditer(p.text):
        answer, src = m.group(1), p.where("issue form", m.start(1), claim=False)
        if re.search(r"\d", answer):
            note_os(f, answer, src, STATED)  # "Ubuntu 22.04", "Windows 11": a release too
        elif (name := os_name(answer)) is not None:
            f.put("system.os", name, src, STATED)  # "Linux", "Windows": the OS alone
