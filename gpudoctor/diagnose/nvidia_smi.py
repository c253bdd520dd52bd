"""nvidia-smi in all its shapes: the banner table, -L, -q, -q -x (XML),
--query-gpu CSV, /proc/driver/nvidia/version, and its failure messages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gpudoctor.diagnose.collect import Facts
from gpudoctor.diagnose.paste import Paste

_BANNER = re.compile(r"NVIDIA-SMI {1,40}([\d.]{1,20}) {1,40}Driver Version: {0,10}([\d.]{1,20})"
                     r"(?: {1,40}CUDA Version: {0,10}([\d.]{1,10}))?")
_BUS = r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]"
# |   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |                  Off |
# Quantifiers are bounded so that no input line can make a match quadratic.
_ROW = re.compile(rf"^[ \t]{{0,8}}\| {{1,10}}(\d{{1,3}}) {{1,10}}(\S[^|\n]{{0,100}}?) {{1,40}}(On|Off|WDDM|TCC) {{1,10}}\|"
                  rf" {{1,10}}({_BUS}) {{1,10}}(?:On|Off|N/A) {{0,10}}\| {{0,40}}([^| \n]{{0,20}}) {{0,10}}\|", re.M)
_MEM = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_MIG_CELL = re.compile(r"^[ \t]{0,8}\|[^|\n]{0,80}\|[^|\n]{0,80}\| {0,40}(Enabled|Disabled) {0,10}\|")
_LIST = re.compile(r"^GPU (\d{1,3}): ([^\n(]{1,120}?)(?: \(UUID: ((?:GPU|MIG)-[0-9A-Fa-f-]{1,60})\))?[ \t]{0,20}$", re.M)
_MIG = re.compile(r"^[ \t]{1,10}MIG \S{1,20} {1,10}Device {1,10}\d{1,3}: \(UUID: MIG-", re.M)
_PROC = re.compile(r"NVRM version: NVIDIA UNIX (Open Kernel Module for \S{1,20}|\S{1,20} Kernel Module) {1,10}"
                   r"(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)")
_MISMATCH = re.compile(r"Failed to initialize NVML: Driver/library version mismatch", re.I)
_NO_COMM = re.compile(r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver", re.I)
_NO_DEVICES = re.compile(r"^No devices were found\s*$", re.M)
_QUERY_CMD = re.compile(r"--query-gpu[= ]([\w.,]{1,500})", re.I)
_XML_GPU = re.compile(r"<gpu id=\"([^\"<>]{1,40})\">(.{0,100000}?)</gpu>", re.S)


def parse(p: Paste, f: Facts) -> None:
    _banner(p, f)
    _listing(p, f)
    _query_csv(p, f)
    _detail(p, f)
    _xml(p, f)
    for m in _PROC.finditer(p.text):
        src = p.where("/proc/driver/nvidia/version", m.start())
        f.saw("/proc/driver/nvidia/version")
        f.put("driver.version", m.group(2), src)
        f.put("driver.kernel_module", "open" if m.group(1).startswith("Open") else "proprietary", src)
    for m in _MISMATCH.finditer(p.text):
        f.put("driver.nvml", "LibRmVersionMismatch", p.where("nvidia-smi", m.start()))
    for m in _NO_COMM.finditer(p.text):
        src = p.where("nvidia-smi", m.start())
        f.put("driver.nvml", "DriverNotLoaded", src)
        f.put("driver.kernel_module", "not-loaded", src)


def _banner(p: Paste, f: Facts) -> None:
    for m in _BANNER.finditer(p.text):
        src = p.where("nvidia-smi banner", m.start())
        f.saw("nvidia-smi banner")
        f.put("driver.version", m.group(2), src)
        f.put("driver.cuda_api", m.group(3), src)
        f.put("driver.nvml", "ok", src)
    for m in _ROW.finditer(p.text):
        src = p.where("nvidia-smi banner", m.start())
        values: dict = {"pci_bus_id": m.group(4)}
        if m.group(3) in ("On", "Off"):
            values["persistence_mode"] = m.group(3) == "On"
        if m.group(5).isdigit():
            values["ecc_uncorrected_volatile"] = int(m.group(5))
        following = p.text[m.end():m.end() + 400].split("\n")[1:3]
        mem = _MEM.search(following[0]) if following else None
        if mem:
            values["memory_used_mib"], values["memory_total_mib"] = int(mem.group(1)), int(mem.group(2))
        mig = _MIG_CELL.match(following[1]) if len(following) > 1 else None
        if mig:
            values["mig_mode"] = mig.group(1) == "Enabled"
        f.gpu(src, index=int(m.group(1)), name=m.group(2), **values)
    for m in _NO_DEVICES.finditer(p.text):
        f.no_gpus = p.where("nvidia-smi", m.start())
        f.put("driver.nvml", "ok", f.no_gpus)


def _listing(p: Paste, f: Facts) -> None:
    last: int | None = None
    for m in _LIST.finditer(p.text):
        if not re.search("[A-Za-z]", m.group(2)):
            continue
        f.saw("nvidia-smi -L")
        last = int(m.group(1))
        values: dict[str, Any] = {"uuid": m.group(3)} if m.group(3) and m.group(3).startswith("GPU-") else {}
        f.gpu(p.where("nvidia-smi -L", m.start()), index=last, name=m.group(2).strip(), **values)
    for m in _MIG.finditer(p.text):
        gpu = p.text.rfind("\nGPU ", 0, m.start())
        hit = _LIST.match(p.text, gpu + 1) if gpu >= 0 else None
        if hit:
            f.gpu(p.where("nvidia-smi -L", m.start()), index=int(hit.group(1)), mig_mode=True)


# --query-gpu field -> (gpu field | driver fact, converter)
def _int(text: str) -> int | None:
    m = re.match(r"\s*(\d+)", text)
    return int(m.group(1)) if m else None


def _flag(text: str) -> bool | None:
    t = text.strip().lower()
    return True if t in ("enabled", "yes", "on", "active") else False if t in ("disabled", "no", "off") else None


_QUERY_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "name": ("name", str.strip), "gpu_name": ("name", str.strip), "index": ("index", _int),
    "uuid": ("uuid", str.strip), "gpu_uuid": ("uuid", str.strip),
    "pci.bus_id": ("pci_bus_id", str.strip), "gpu_bus_id": ("pci_bus_id", str.strip),
    "compute_cap": ("compute_capability", str.strip),
    "memory.total": ("memory_total_mib", _int), "memory.used": ("memory_used_mib", _int),
    "persistence_mode": ("persistence_mode", _flag), "mig.mode.current": ("mig_mode", _flag),
    "ecc.mode.current": ("ecc_enabled", _flag),
    "pcie.link.gen.current": ("pcie_gen_current", _int), "pcie.link.gen.max": ("pcie_gen_max", _int),
    "pcie.link.width.current": ("pcie_width_current", _int), "pcie.link.width.max": ("pcie_width_max", _int),
    "driver_version": ("driver.version", str.strip),
}


def _query_key(header: str) -> str:
    return re.sub(r"\s*\[.*?\]\s*$", "", header.strip()).lower()


# A header line names at least two of these fields.
_HEADER_NEEDLES = ("--query-gpu", "driver_version", "compute_cap", "memory.total", "pci.bus_id", "gpu_name",
                   "name, ")


def _query_csv(p: Paste, f: Facts) -> None:
    heads = sorted({start for needle in _HEADER_NEEDLES for start, _ in p.lines_with(needle)})
    lines = p.text.split("\n") if heads else []
    done = -1
    for start in heads:
        i = p.line_no(start) - 1
        if i <= done:
            continue
        keys: list[str] | None = None
        cmd = _QUERY_CMD.search(lines[i])
        if cmd:
            keys = [k.strip().lower() for k in cmd.group(1).split(",") if k.strip()]
            i += 1
            if "noheader" not in lines[i - 1].lower() and i < len(lines) and "," in lines[i]:
                i += 1  # the header the command printed
        else:
            cells = [_query_key(c) for c in lines[i].split(",")]
            if len(cells) >= 2 and cells[0] in _QUERY_FIELDS and sum(c in _QUERY_FIELDS for c in cells) >= 2:
                keys = cells
                i += 1
        if not keys or not any(k in _QUERY_FIELDS for k in keys):
            continue
        f.saw("nvidia-smi --query-gpu")
        row_no = 0
        while i < len(lines) and lines[i].count(",") == len(keys) - 1 and lines[i].strip():
            _query_row(p, f, keys, lines[i].split(","), i + 1, row_no)
            row_no += 1
            i += 1
        done = i


def _query_row(p: Paste, f: Facts, keys: list[str], cells: list[str], line_no: int, row_no: int) -> None:
    src = f"{p.label + ': ' if p.label else ''}nvidia-smi --query-gpu line {line_no}"
    values: dict[str, Any] = {}
    for key, cell in zip(keys, cells):
        target = _QUERY_FIELDS.get(key)
        if target is None or cell.strip() in ("", "[N/A]", "N/A", "[Not Supported]"):
            continue
        name, conv = target
        value = conv(cell)
        if name == "driver.version":
            f.put("driver.version", value, src)
            f.put("driver.nvml", "ok", src)
        elif value is not None:
            values[name] = value
    index = values.pop("index", row_no)
    name = values.pop("name", None)
    if name or len(values) > 0:
        f.gpu(src, index=index, name=name, **values)


# nvidia-smi -q: indentation gives the section path of each "Key : value" line.
_Q_GPU = re.compile(rf"^GPU ({_BUS})\s*$")
_THROTTLE = {"sw power cap": "sw_power_cap", "hw slowdown": "hw_slowdown", "hw thermal slowdown": "hw_thermal_slowdown",
             "hw power brake slowdown": "hw_power_brake_slowdown", "sw thermal slowdown": "sw_thermal_slowdown",
             "idle": "gpu_idle", "sync boost": "sync_boost", "applications clocks setting": "applications_clocks_setting",
             "display clock setting": "display_clock_setting"}


def _detail(p: Paste, f: Facts) -> None:
    if not re.search(r"^ {0,20}Product Name {0,40}:", p.text, re.M):
        return
    f.saw("nvidia-smi -q")
    start = p.text.find("NVSMI LOG")
    offset = p.text.rfind("\n", 0, start) + 1 if start >= 0 else 0
    gpu: dict | None = None
    gpu_src = ""
    count = 0
    stack: list[tuple[int, str]] = []
    pos = offset
    strangers = 0
    for line in p.text[offset:].split("\n"):
        here, pos = pos, pos + len(line) + 1
        # -q output is one block of "Key   : value" lines and section headers; stop where it ends.
        strangers = 0 if _q_shaped(line) else strangers + 1
        if strangers > 20:
            break
        bus = _Q_GPU.match(line) if line.startswith("GPU ") else None
        if bus:
            _flush_q(f, gpu, gpu_src, count)
            count += gpu is not None
            gpu, gpu_src, stack = {"pci_bus_id": bus.group(1), "throttle": []}, p.where("nvidia-smi -q", here), []
            continue
        body = line.lstrip()
        if not body or not body[0].isalpha():
            continue
        indent = len(line) - len(body)
        key, colon, value = body.partition(":")
        key = key.strip().lower()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if not colon:
            stack.append((indent, key))
            continue
        value = value.strip()
        path = "/".join([s for _, s in stack] + [key])
        if gpu is None:
            if path == "driver version":
                f.put("driver.version", value, p.where("nvidia-smi -q", here))
                f.put("driver.nvml", "ok", p.where("nvidia-smi -q", here))
            elif path in ("cuda version", "cuda driver version"):
                f.put("driver.cuda_api", value, p.where("nvidia-smi -q", here))
            continue
        _q_field(gpu, path, value)
    _flush_q(f, gpu, gpu_src, count)


_Q_SHAPE = re.compile(r"[ \t]*(?:[A-Za-z][\w ./()+-]{0,60}?[ \t]+:|[A-Za-z][\w ./()+-]{0,60}$)|GPU [0-9A-Fa-f]|=+NVSMI")


def _q_shaped(line: str) -> bool:
    """A line -q prints: blank, "Key    : value", a section header, a GPU header."""
    return not line.strip() or bool(_Q_SHAPE.match(line))


def _q_field(gpu: dict, path: str, value: str) -> None:
    simple: dict[str, tuple[str, Callable[[str], Any]]] = {"product name": ("name", str.strip), "gpu uuid": ("uuid", str.strip),
              "persistence mode": ("persistence_mode", _flag), "mig mode/current": ("mig_mode", _flag),
              "fb memory usage/total": ("memory_total_mib", _int), "fb memory usage/used": ("memory_used_mib", _int),
              "ecc mode/current": ("ecc_enabled", _flag),
              "pci/gpu link info/pcie generation/max": ("pcie_gen_max", _int),
              "pci/gpu link info/pcie generation/current": ("pcie_gen_current", _int),
              "pci/gpu link info/link width/max": ("pcie_width_max", _int),
              "pci/gpu link info/link width/current": ("pcie_width_current", _int),
              "retired pages/pending page blacklist": ("retired_pages_pending", _flag),
              "retired pages/pending page retirement": ("retired_pages_pending", _flag),
              "remapped rows/pending": ("remapped_rows_pending", _flag),
              "remapped rows/remapping failure occurred": ("remapped_rows_failure", _flag)}
    if path in simple:
        name, conv = simple[path]
        converted = conv(value)
        if converted is not None and converted != "":
            gpu[name] = converted
        return
    if path.startswith("ecc errors/volatile/") and ("uncorrectable" in path or path.endswith("double bit/total")):
        n = _int(value)
        if n is not None:
            gpu["ecc_uncorrected_volatile"] = gpu.get("ecc_uncorrected_volatile", 0) + n
        return
    section, _, reason = path.partition("/")
    if section in ("clocks throttle reasons", "clocks event reasons") and value.strip().lower() == "active":
        gpu["throttle"].append(_THROTTLE.get(reason.rsplit("/", 1)[-1], reason.replace(" ", "_")))


def _flush_q(f: Facts, gpu: dict | None, src: str, index: int) -> None:
    if gpu is None:
        return
    throttle = tuple(gpu.pop("throttle"))
    name = gpu.pop("name", None)
    f.gpu(src, index=index, name=name, throttle_reasons=throttle, **gpu)


def _xml(p: Paste, f: Facts) -> None:
    if "<nvidia_smi_log" not in p.text:
        return
    f.saw("nvidia-smi -q -x")
    for tag, key in (("driver_version", "driver.version"), ("cuda_version", "driver.cuda_api")):
        m = re.search(rf"<{tag}>([\d.]+)</{tag}>", p.text)
        if m:
            f.put(key, m.group(1), p.where("nvidia-smi -q -x", m.start()))
    for i, m in enumerate(_XML_GPU.finditer(p.text)):
        body = m.group(2)
        name = re.search(r"<product_name>([^<]+)</product_name>", body)
        uuid = re.search(r"<uuid>([^<]+)</uuid>", body)
        extra: dict[str, Any] = {"uuid": uuid.group(1)} if uuid else {}
        f.gpu(p.where("nvidia-smi -q -x", m.start()), index=i, name=name.group(1) if name else None,
              pci_bus_id=m.group(1), **extra)
