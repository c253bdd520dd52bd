"""Remove what identifies a machine or a person from text meant for a public
issue: hostnames, user names in paths, GPU UUIDs and serial numbers, IP and
MAC addresses.

Version numbers look like IPv4 addresses ("9.13.0.50" is a cuDNN version), so
every version string the snapshot holds is protected from the IP rule.

User names are removed from any path after a home, homes, Users, users,
scratch or work component (/nfs/home/USER, /data/home/USER, /scratch/USER).
Hostnames come from this machine (a live report) and from the text's own
host positions (uname's node='...', shell prompts user@host:): they are
removed wherever they stand as a word of their own, but never as a JSON key,
a path component or a dotted name, and a hostname that is a word of
gpudoctor's own vocabulary (a host called "cuda", "python" or "gpu") is
removed only in those host positions, so the report's raw snapshot still
replays with `gpudoctor check --from`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from gpudoctor.snapshot import Snapshot

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_SERIAL_LINE = re.compile(r"(?i)(serial(?: number)?[ \t]*[:=][ \t]*)([A-Za-z0-9-]{4,40})")
_SERIAL_JSON = re.compile(r'(?i)("(?:board_)?serial(?:_number)?"\s*:\s*")([^"]{1,80})(")')
_HOME = re.compile(r"(/(?:home|homes|Users|users|scratch|work)/)([^/\s\"'\\<>:;,]{1,64})")
_WIN_HOME = re.compile(r"(?i)\b([A-Z]:(?:\\\\|\\|/)+Users(?:\\\\|\\|/)+)([^\\/\s\"']{1,64})")
_PROMPT = re.compile(r"\b([a-z_][a-z0-9_.-]{0,31})@([A-Za-z0-9][\w.-]{0,62})(?=:)")
_EMAIL = re.compile(r"\b[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+\b")
_NODE = re.compile(r"(node=')([^']{1,255})(')")
_IPV4 = re.compile(r"(?<![\w.])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})"
                   r"(?![\w.])")
_IPV6 = re.compile(r"(?<![\w:])(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|"
                   r"(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,5})?)(?![\w:])")
_MAC = re.compile(r"(?<![\w:-])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![\w:-])")
_PRIVATE_FQDN = re.compile(r"(?<![\w.-])[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63})*"
                           r"\.(?:internal|local|localdomain|lan|corp|intranet|cluster)(?![\w-])")
_HOSTNAME_LINE = re.compile(r"(?im)^[ \t]*(?:hostname|host name|node name)[ \t]*[:=][ \t]*([A-Za-z0-9][\w.-]{0,62})")
_COMMON_NAMES = {"localhost", "root", "user", "ubuntu", "admin", "home", "docker", "linux", "nvidia"}
# Words of gpudoctor's own output and of the environments it describes: a host
# with one of these names is redacted only where the text says it is a host.
VOCABULARY = frozenset({
    "cuda", "cudnn", "nccl", "nvidia", "gpu", "gpus", "python", "python3", "torch", "pytorch", "tensorflow", "jax",
    "jaxlib", "cupy", "driver", "nvml", "smi", "conda", "venv", "pip", "uv", "local", "usr", "lib", "lib64", "bin",
    "include", "opt", "system", "kernel", "linux", "windows", "wsl", "docker", "podman", "container", "none",
    "unknown", "ok", "error", "warning", "info", "host", "version", "source", "value", "path", "snapshot",
    "frameworks", "runtime", "toolkit", "deep", "x86_64", "aarch64", "site-packages", "dist-packages", "true",
    "false", "null", "gpudoctor", "cpu", "cpus", "compute", "memory", "ubuntu", "debian",
})


@dataclass(frozen=True)
class Redactor:
    """Redacts text for a public issue: the hostnames to remove and the strings that must survive."""

    hostnames: tuple[str, ...] = ()
    protected: frozenset[str] = field(default_factory=frozenset)  # strings that must survive (versions)

    vocabulary: frozenset[str] = VOCABULARY  # hostnames only redacted in host positions

    @classmethod
    def for_snapshot(cls, snapshot: Snapshot | None, hostnames: Iterable[str] = ()) -> Redactor:
        """Hostnames: the given ones (this machine's) and those the snapshot's
        own facts name (uname's node=, shell prompts, Hostname: lines)."""
        found = list(hostnames)
        vocabulary = set(VOCABULARY)
        if snapshot is not None:
            import json

            data = snapshot.to_dict()
            found += hostnames_in_text(json.dumps(data))
            vocabulary |= {k.lower() for k in _keys(data)}
        names = {h for h in found if h and len(h) >= 3 and h.lower() not in _COMMON_NAMES}
        names |= {h.split(".")[0] for h in names if len(h.split(".")[0]) >= 3}
        return cls(tuple(sorted(names, key=len, reverse=True)), frozenset(_versions(snapshot)),
                   frozenset(vocabulary))

    def text(self, s: str) -> str:
        s = _UUID.sub(lambda m: f"{m.group(1)}-<redacted>", s)
        s = _SERIAL_JSON.sub(r"\1<redacted>\3", s)
        s = _SERIAL_LINE.sub(r"\1<redacted>", s)
        s = _NODE.sub(r"\1<host>\3", s)
        s = _EMAIL.sub("<email>", s)
        s = _PROMPT.sub("<user>@<host>", s)
        s = _HOSTNAME_LINE.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + "<host>", s)
        for name in self.hostnames:
            if name.lower() in self.vocabulary or name.split(".")[0].lower() in self.vocabulary:
                continue  # a host called "cuda": only its host positions above are redacted
            # A word of its own: not part of a path, a dotted name, an identifier, or a JSON key.
            s = re.sub(rf"(?<![\w./-]){re.escape(name)}(?![\w/-]|\.\w|\"\s*:)", "<host>", s)
        s = _PRIVATE_FQDN.sub("<host>", s)
        s = _HOME.sub(r"\1<user>", s)
        s = _WIN_HOME.sub(r"\1<user>", s)
        s = _MAC.sub("<mac>", s)
        s = _IPV6.sub(lambda m: m.group(0) if _looks_like_time(m.group(0)) else "<ip>", s)
        return _IPV4.sub(lambda m: m.group(0) if m.group(1) in self.protected else "<ip>", s)


def hostnames_in_text(text: str) -> list[str]:
    """Hostnames a text states as such: uname's node='X', prompts user@X:, 'Hostname: X' lines."""
    names = [m.group(2) for m in _NODE.finditer(text)] + [m.group(2) for m in _PROMPT.finditer(text)]
    names += [m.group(1) for m in _HOSTNAME_LINE.finditer(text)]
    return [n for n in names if not n.startswith("<")]


def _keys(data) -> set[str]:
    out: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.update(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _looks_like_time(text: str) -> bool:
    return bool(re.fullmatch(r"\d{1,2}(?::\d{2}){1,3}:?", text))


def _versions(snapshot: Snapshot | None) -> set[str]:
    """The version strings of the snapshot: they must never become '<ip>'."""
    if snapshot is None:
        return set()
    s = snapshot
    values = [s.driver.version.value, s.driver.cuda_api.value, s.system.python.value, s.system.glibc.value,
              s.system.kernel.value]
    for fw in s.frameworks or ():
        values += [fw.version.value, fw.cuda.value, fw.cudnn.value, fw.nccl.value,
                   fw.deep.cudnn_runtime if fw.deep else None]
    for rt in s.cuda_runtimes or ():
        values += [rt.version, rt.nvcc]
    for lib in (*(s.cudnn or ()), *(s.nccl or ())):
        values.append(lib.version)
    return {v for v in values if isinstance(v, str) and v}


def live_hostnames() -> list[str]:
    import platform
    import socket

    names = [platform.node()]
    try:
        names += [socket.gethostname(), socket.getfqdn()]
    except OSError:
        pass
    return [n for n in names if n]
