"""Companion and extension libraries of the installed framework, read from
files, never imported.

From dist metadata: the version (a local label such as '+cu124' or
'+cu12torch2.6cxx11abiFALSE' when the wheel had one; pip keeps a URL
install's wheel name in direct_url.json) and what its Requires-Dist asks of
torch, and what torch's own METADATA pins of it (triton). From the binaries:
the C++ ABI and the CUDA runtime major an extension links (elfsyms), and
the GPU architectures it carries (fatbin). DeepSpeed records the torch and
CUDA it was installed with, and which ops were prebuilt, in
deepspeed/git_version_info_installed.py.
"""

from __future__ import annotations

import json
import posixpath
import re

from gpudoctor.probes import elfsyms, fatbin
from gpudoctor.probes.context import Context
from gpudoctor.probes.frameworks import _python_assignments, arch_fact, requirement
from gpudoctor.probes.locate import Dist, find_dist, read_metadata
from gpudoctor.snapshot import Companion, Fact

# dist name -> the framework it pairs with
KNOWN = {
    "torchvision": "torch", "torchaudio": "torch", "xformers": "torch", "vllm": "torch", "sglang": "torch",
    "triton": "torch", "pytorch-triton": "torch", "flash-attn": "torch", "bitsandbytes": "torch",
    "deepspeed": "torch",
}
# Where each extension keeps its compiled module (glob under site-packages).
EXTENSION_BINARIES = {
    "flash-attn": ("flash_attn_2_cuda*.so", "flash_attn_3*.so"),
    "xformers": ("xformers/_C*.so",),
    "vllm": ("vllm/_C*.so",),
}
_TORCH_REQ = r"torch(?![\w.-])"
# The module whose import loads each library's compiled code (check --deep).
IMPORT_MODULES = {"torchvision": "torchvision", "torchaudio": "torchaudio", "xformers": "xformers.ops",
                  "vllm": "vllm._C", "sglang": "sglang", "triton": "triton", "pytorch-triton": "triton",
                  "flash-attn": "flash_attn", "bitsandbytes": "bitsandbytes", "deepspeed": "deepspeed"}
DEEP_TIMEOUT_S = 120.0
_DEEP_MARKER = "GPUDOCTOR_COMPANIONS "
_WHEEL_NAME = re.compile(r"/?([A-Za-z0-9_.]+)-([^-/]+)-[^-/]+-[^-/]+-[^-/]+\.whl$")


def probe(ctx: Context) -> tuple[Companion, ...]:
    torch = find_dist(ctx, "torch")
    torch_meta = read_metadata(ctx.host, torch) if torch else None
    out = []
    for name, framework in KNOWN.items():
        dist = find_dist(ctx, name)
        if dist is not None:
            out.append(_companion(ctx, dist, framework, torch_meta))
    return tuple(out)


def _spec(req: tuple[str, str] | None) -> str | None:
    """frameworks.requirement() gives an exact pin as a bare version; keep it a specifier."""
    if not req or not req[1]:
        return None
    return f"=={req[1]}" if req[1][0].isdigit() else req[1]


def _companion(ctx: Context, dist: Dist, framework: str, torch_meta) -> Companion:
    meta = read_metadata(ctx.host, dist)
    version = _version(ctx, dist)
    req = requirement(meta, _TORCH_REQ)
    requires = (Fact(_spec(req), f"{dist.label}/METADATA Requires-Dist {req[0]}") if _spec(req)
                else Fact(None, "", (f"{dist.label}/METADATA: no versioned torch requirement",)))
    pinned = Fact(None, "", ())
    if torch_meta is not None and dist.name in ("triton", "pytorch-triton"):
        treq = requirement(torch_meta, re.escape(dist.name) + r"(?![\w.-])")
        pinned = (Fact(_spec(treq), f"torch METADATA Requires-Dist {treq[0]}") if _spec(treq)
                  else Fact(None, "", (f"torch METADATA: no {dist.name} requirement",)))
    fields: dict = {}
    if dist.name in EXTENSION_BINARIES:
        fields.update(_binary_facts(ctx, dist))
    elif dist.name == "bitsandbytes":
        fields.update(_bitsandbytes(ctx, dist))
    elif dist.name == "deepspeed":
        fields.update(_deepspeed(ctx, dist))
    local = version.value.split("+", 1)[1] if version.value and "+" in version.value else None
    if local is not None:
        fields["build_tag"] = Fact(local, version.source)
    if dist.name in ("torchvision", "torchaudio") and local:
        m = re.fullmatch(r"cu(\d+)(\d)", local)
        fields["built_cuda"] = (Fact(f"{m.group(1)}.{m.group(2)}", f"{version.source} local version")
                                if m else Fact(local, f"{version.source} local version"))
    return Companion(name=dist.name, framework=framework, version=version,
                     location=posixpath.join(dist.site_dir, dist.name.replace("-", "_")),
                     requires_framework=requires, pinned_by_framework=pinned,
                     requires_python=meta.get("Requires-Python"), **fields)


def _version(ctx: Context, dist: Dist) -> Fact[str]:
    """The dist version; a URL install's wheel name restores a local label
    that a renamed wheel (flash-attn's setup.py does this) dropped."""
    text = ctx.host.read_text(posixpath.join(dist.path, "direct_url.json"), limit=1 << 16)
    if text:
        try:
            url = json.loads(text).get("url", "")
        except (ValueError, AttributeError):
            url = ""
        m = _WHEEL_NAME.search(str(url).replace("%2B", "+").replace("%2b", "+"))
        if m and "+" in m.group(2):
            return Fact(m.group(2), f"{dist.label}/direct_url.json (wheel {posixpath.basename(url)})")
    return Fact(dist.version, dist.label)


def _binary_facts(ctx: Context, dist: Dist) -> dict:
    libs = []
    for pattern in EXTENSION_BINARIES[dist.name]:
        libs += sorted(ctx.host.glob(posixpath.join(dist.site_dir, pattern)))
    if not libs:
        why = (f"{dist.name}: no compiled module found",)
        return {"cxx11_abi": Fact(None, "", why), "arch_list": Fact(None, "", why)}
    shown = posixpath.relpath(libs[0], dist.site_dir)
    try:
        info = elfsyms.link_info(ctx.host, libs[0])
    except fatbin.FatbinError as exc:
        return {"cxx11_abi": Fact(None, "", (f"{shown}: {exc}",)), "arch_list": arch_fact(ctx, libs, dist.site_dir)}
    abi = (Fact(info.cxx11_abi, f"{shown} mangled names (.dynstr)") if info.cxx11_abi is not None
           else Fact(None, "", (f"{shown}: no c10 symbols to tell the C++ ABI by",)))
    cuda = (Fact(f"{info.cudart_major}.x", f"{shown} links libcudart.so.{info.cudart_major}")
            if info.cudart_major else Fact(None, "", (f"{shown}: links no libcudart",)))
    return {"cxx11_abi": abi, "built_cuda": cuda, "arch_list": arch_fact(ctx, libs, dist.site_dir)}


def _bitsandbytes(ctx: Context, dist: Dist) -> dict:
    """bitsandbytes ships one library per CUDA runtime (libbitsandbytes_cuda124.so)
    and loads the one matching torch.version.cuda."""
    libs = sorted(ctx.host.glob(posixpath.join(dist.site_dir, "bitsandbytes", "libbitsandbytes_cuda*.so")))
    found = [(m.group(1), p) for p in libs if (m := re.search(r"_cuda(\d+)\.so$", p))]
    if not found:
        return {"built_cuda": Fact(None, "", ("bitsandbytes: no libbitsandbytes_cuda*.so",))}
    versions = ",".join(f"{d[:-1]}.{d[-1]}" for d, _ in found)
    return {"built_cuda": Fact(versions, "bitsandbytes/libbitsandbytes_cuda*.so"),
            "arch_list": arch_fact(ctx, [found[-1][1]], dist.site_dir)}


def _deepspeed(ctx: Context, dist: Dist) -> dict:
    rel = "deepspeed/git_version_info_installed.py"
    info = _python_assignments(ctx.host.read_text(posixpath.join(dist.site_dir, rel)) or "")
    ops, torch_info = info.get("installed_ops"), info.get("torch_info")
    out: dict = {}
    if isinstance(ops, dict):
        out["prebuilt_ops"] = Fact(tuple(sorted(k for k, v in ops.items() if v)), f"{rel} installed_ops")
    else:
        out["prebuilt_ops"] = Fact(None, "", (f"{rel}: absent or without installed_ops",))
    if isinstance(torch_info, dict):
        if torch_info.get("version"):
            out["built_framework"] = Fact(str(torch_info["version"]), f"{rel} torch_info")
        if torch_info.get("cuda_version") not in (None, "0.0"):
            out["built_cuda"] = Fact(str(torch_info["cuda_version"]), f"{rel} torch_info")
    return out


def deep(ctx: Context, companions: tuple[Companion, ...]) -> tuple[Companion, ...]:
    """Import every companion after torch in one time-limited subprocess of the target."""
    import dataclasses

    from gpudoctor.scripts import script_path

    names = [c.name for c in companions if c.name in IMPORT_MODULES]
    if not names:
        return companions
    res = ctx.host.run([ctx.target.python, script_path("deep_companions.py"),
                        *(f"{n}={IMPORT_MODULES[n]}" for n in names)], timeout=DEEP_TIMEOUT_S)
    found: dict = {}
    for line in reversed(res.stdout.splitlines()):
        if line.startswith(_DEEP_MARKER):
            try:
                found = json.loads(line[len(_DEEP_MARKER):])
            except ValueError:
                found = {}
            break
    source = "import after torch in the target interpreter"
    out = []
    for c in companions:
        got = found.get(c.name) if isinstance(found, dict) else None
        if got == "started":
            why = "timed out" if res.timed_out else f"crashed ({res.error or f'exit {res.returncode}'})"
            got = f"{why} while importing {IMPORT_MODULES[c.name]}"
        out.append(dataclasses.replace(c, deep_import=Fact(str(got), source)) if got is not None else c)
    return tuple(out)
