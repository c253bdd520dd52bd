"""Companion libraries read from recorded PyPI metadata and synthetic binaries;
RAPIDS and numba-cuda as frameworks; the GD52x rules on what the probes read."""

from __future__ import annotations

import json
import re
from pathlib import Path

from probe_builders import ELF, Machine, elf_with_fatbin, elf_with_sections, fatbin_container
from test_probe_frameworks import TORCH_VERSION_PY
from test_probe_libraries import SITE, venv_machine

from gpudoctor.matrices import load_matrices
from gpudoctor.probes import collect
from gpudoctor.rules.registry import RULES, run_rules

WHEELS = Path(__file__).parent / "fixtures" / "wheels"
# c10::Error::Error(c10::SourceLocation, std::string) under each ABI, as g++ mangles it.
NEW_ABI = b"_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
OLD_ABI = b"_ZN3c105ErrorC2ENS_14SourceLocationESs"


def recorded(m: Machine, fixture: str, dist_version: str | None = None) -> Machine:
    """Install a dist whose METADATA is the recorded one from PyPI."""
    text = (WHEELS / f"{fixture}.METADATA").read_text()
    name = re.search(r"^Name: (.+)$", text, re.M).group(1)
    version = dist_version or re.search(r"^Version: (.+)$", text, re.M).group(1)
    return m.file(f"{SITE}/{name.replace('-', '_')}-{version}.dist-info/METADATA", text)


def with_torch(m: Machine, version: str, fixture: str, abi: bytes | None = None) -> Machine:
    m.file(f"{SITE}/torch/version.py", TORCH_VERSION_PY.format(version=version, cuda=repr("12.6")))
    recorded(m, fixture, version)
    if abi is not None:
        m.file(f"{SITE}/torch/lib/libc10.so", elf_with_sections({".dynstr": b"\0" + abi + b"\0"}))
    return m


def judge(snap, code):
    (res,) = run_rules(snap, load_matrices(overlay=None), [RULES[code]], debug=True)
    return res


def test_xformers_pinned_to_another_torch():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0")
    recorded(m, "xformers-0.0.29.post3")
    snap = collect(m.finish())
    (c,) = snap.companions
    assert (c.name, c.version.value, c.requires_framework.value) == ("xformers", "0.0.29.post3", "==2.6.0")
    res = judge(snap, "GD520")
    (f,) = res.findings
    assert "requires torch==2.6.0" in f.title and "2.7.0" in f.title
    # The pairing rows know the xformers release that requires torch 2.7.0.
    assert any('"xformers==0.0.30"' in c for c in f.fix.commands), f.fix.commands


def test_matching_xformers_and_torch_pin_of_triton():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0")
    recorded(m, "xformers-0.0.30")
    m.dist("triton", "3.2.0")
    snap = collect(m.finish())
    triton = snap.companion("triton")
    assert triton.pinned_by_framework.value == "==3.3.0"
    (f,) = judge(snap, "GD520").findings
    assert f.subject == "triton × torch" and any('triton==3.3.0' in c for c in f.fix.commands)


def test_vllm_pin_read_from_recorded_metadata():
    m = with_torch(venv_machine(), "2.6.0+cu124", "torch-2.6.0")
    recorded(m, "vllm-0.9.0")
    snap = collect(m.finish())
    assert snap.companion("vllm").requires_framework.value == "==2.7.0"
    assert judge(snap, "GD520").findings


def test_flash_attn_release_wheel_from_direct_url():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0", abi=NEW_ABI)
    m.dist("flash-attn", "2.7.4.post1")
    url = ("https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/"
           "flash_attn-2.7.4.post1%2Bcu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl")
    m.file(f"{SITE}/flash_attn-2.7.4.post1.dist-info/direct_url.json", json.dumps({"url": url, "archive_info": {}}))
    snap = collect(m.finish())
    fa = snap.companion("flash-attn")
    assert fa.build_tag.value == "cu12torch2.6cxx11abiFALSE"
    assert snap.framework("torch").cxx11_abi.value is True
    assert "built for torch 2.6" in judge(snap, "GD522").findings[0].title
    assert "old C++ ABI" in judge(snap, "GD523").findings[0].title


def test_extension_abi_cuda_and_archs_from_its_binary():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0", abi=NEW_ABI)
    m.dist("flash-attn", "2.7.4.post1")
    fat = fatbin_container([(ELF, 80, 0), (ELF, 90, 0)])
    lib = elf_with_sections({".dynstr": b"\0libcudart.so.12\0" + OLD_ABI + b"\0", ".nv_fatbin": fat})
    m.file(f"{SITE}/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so", lib)
    snap = collect(m.finish())
    fa = snap.companion("flash-attn")
    assert (fa.cxx11_abi.value, fa.built_cuda.value, fa.arch_list.value) == (False, "12.x", ("sm_80", "sm_90"))
    assert judge(snap, "GD523").findings
    assert not judge(snap, "GD524").findings  # CUDA 12 torch, CUDA 12 extension


def test_deepspeed_installed_ops_and_torch_info():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0")
    m.dist("deepspeed", "0.16.4", "Requires-Dist: torch\n")
    # As deepspeedai/DeepSpeed setup.py writes it (fd.write(f"installed_ops={install_ops}\n") ...).
    m.file(f"{SITE}/deepspeed/git_version_info_installed.py",
           "version='0.16.4'\ngit_hash='unknown'\ngit_branch='unknown'\n"
           "installed_ops={'async_io': False, 'fused_adam': False, 'cpu_adam': False}\n"
           "compatible_ops={'async_io': True, 'fused_adam': True, 'cpu_adam': True}\n"
           "torch_info={'version': '2.6', 'bf16_support': False, 'cuda_version': '12.4', "
           "'nccl_version': '2.21', 'hip_version': '0.0'}\n")
    snap = collect(m.finish())
    ds = snap.companion("deepspeed")
    assert (ds.prebuilt_ops.value, ds.built_framework.value, ds.built_cuda.value) == ((), "2.6", "12.4")
    assert judge(snap, "GD522").findings
    assert judge(snap, "GD527").findings  # no toolkit on this machine


def test_rapids_and_numba_cuda_are_frameworks():
    m = venv_machine()
    recorded(m, "cudf-cu12-26.2.0")
    recorded(m, "numba-cuda-0.11.0")
    m.dist("nvidia-cuda-nvcc-cu12", "12.9.86")
    snap = collect(m.finish())
    cudf, numba = snap.framework("cudf"), snap.framework("numba-cuda")
    assert (cudf.version.value, cudf.build.value, cudf.cuda.value, cudf.requires_python) == (
        "26.2.0", "cuda", "12.x", ">=3.10")
    assert numba.cuda.value == "12.x" and "nvidia-cuda-nvcc-cu12" in numba.cuda.source


def test_no_companions_is_an_empty_tuple_not_unknown():
    snap = collect(venv_machine().finish())
    assert snap.companions == ()
    assert judge(snap, "GD520").findings == ()


def test_corrupt_extension_binary_is_a_tried_reason():
    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0")
    m.dist("flash-attn", "2.7.4.post1")
    m.file(f"{SITE}/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so", b"#" * 64)
    fa = collect(m.finish()).companion("flash-attn")
    assert not fa.cxx11_abi.known and "not an ELF" in fa.cxx11_abi.tried[0]


def test_bitsandbytes_libraries_per_cuda():
    m = with_torch(venv_machine(), "2.7.0+cu126", "torch-2.7.0")
    recorded(m, "bitsandbytes-0.45.5")
    for v in ("118", "124"):
        m.file(f"{SITE}/bitsandbytes/libbitsandbytes_cuda{v}.so", elf_with_fatbin([[(ELF, 75, 0)]]))
    snap = collect(m.finish())
    bnb = snap.companion("bitsandbytes")
    assert bnb.built_cuda.value == "11.8,12.4" and bnb.requires_framework.value == "<3,>=2.0"
    assert "CUDA 11.8, 12.4" in judge(snap, "GD525").findings[0].title


def test_deep_import_of_companions_is_recorded():
    from gpudoctor.scripts import script_path

    m = with_torch(venv_machine(), "2.7.0", "torch-2.7.0")
    recorded(m, "xformers-0.0.30")
    m.dist("flash-attn", "2.7.4.post1")
    report = {"flash-attn": "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs",
              "xformers": "ok"}
    python = m.python
    m.command([python, script_path("deep_companions.py"), "xformers=xformers.ops", "flash-attn=flash_attn"],
              "GPUDOCTOR_COMPANIONS " + json.dumps(report) + "\n")
    host = m.finish()
    from gpudoctor.probes import companions as cp
    from gpudoctor.probes.context import Context
    from gpudoctor.probes.target import interrogate

    ctx = Context(host, interrogate(host, None))
    comps = cp.deep(ctx, cp.probe(ctx))
    by = {c.name: c.deep_import.value for c in comps}
    assert by == {"xformers": "ok", "flash-attn": report["flash-attn"]}


def test_deep_companions_script_runs_for_real():
    """The script itself, run by this interpreter: no torch here, a stdlib module, a missing one."""
    import subprocess
    import sys

    from gpudoctor.scripts import script_path

    out = subprocess.run([sys.executable, script_path("deep_companions.py"), "json=json", "nope=gpudoctor_no_such_mod"],
                         capture_output=True, text=True, timeout=60).stdout
    data = json.loads(out.strip().splitlines()[-1].split(" ", 1)[1])
    assert data["json"] == "ok" and data["nope"].startswith("ModuleNotFoundError")
    assert "torch" not in data or data["torch"].startswith("ModuleNotFoundError")
