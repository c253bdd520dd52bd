"""CUDA toolkit output: `nvcc --version`, an nvcc compile command, and the deviceQuery sample."""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.diagnose.collect import Facts, Read
from gpudoctor.diagnose.paste import Paste

_NVCC = re.compile(r"Cuda compilation tools, release (\d{1,2}\.\d{1,2}), V(\d{1,2}\.\d{1,2}\.\d{1,4})")
# The reporter compiled a .cu file with nvcc: a "no kernel image" then is the build's own arch
# flags (nvcc without -arch compiles for its default architecture only), when the toolkit
# could target the GPU.
_NVCC_COMPILE = re.compile(r"(?:^|[\s$#>`!])nvcc(?:\.exe)?\s[^\n]{0,200}?\S+\.cu\b", re.M)
# A source build of a CUDA extension: setup.py, pip building a wheel from source, torch's cpp_extension.
_EXTENSION_BUILD = re.compile(r"\bsetup\.py[ \t]+(?:build|build_ext|install|develop|bdist_wheel)\b|"
                              r"\bBuilding wheels? for \S+ \(setup\.py|\bcpp_extension\b|\bTORCH_CUDA_ARCH_LIST\b")
_DQ_DEVICE = re.compile(r'^Device (\d{1,2}): "([^"\n]{1,100})"', re.M)
_DQ_DRIVER = re.compile(r"CUDA Driver Version / Runtime Version\s{1,40}(\d{1,2}\.\d{1,2}) / (\d{1,2}\.\d{1,2})")
_DQ_CC = re.compile(r"CUDA Capability Major/Minor version number:\s{1,40}(\d{1,2}\.\d)")
_DQ_MEM = re.compile(r"Total amount of global memory:\s{1,40}(\d{1,7}) MBytes")


def parse(p: Paste, f: Facts) -> None:
    for m in _NVCC.finditer(p.text):
        f.saw("nvcc --version")
        f.runtime(version=m.group(2), path="(nvcc on PATH)", kind="toolkit", source=p.where("nvcc --version", m.start()),
                  nvcc=m.group(2))
    for m in p.scan(_NVCC_COMPILE, "nvcc"):
        f.extra_reads.append(Read("nvcc.compiles_cu", m.group(0).strip()[:120], p.where("nvcc command", m.start())))
        break
    for m in p.scan(_EXTENSION_BUILD, "setup.py", "building wheel", "cpp_extension", "torch_cuda_arch_list"):
        f.extra_reads.append(Read("build.extension", m.group(0).strip()[:120], p.where("extension build", m.start())))
        break
    for m in _DQ_DEVICE.finditer(p.text):
        f.saw("deviceQuery")
        src = p.where("deviceQuery", m.start())
        end = p.text.find('\nDevice ', m.end())
        body = p.text[m.end():end if end > 0 else m.end() + 3000]
        values: dict[str, Any] = {}
        cc = _DQ_CC.search(body)
        if cc:
            values["compute_capability"] = cc.group(1)
        mem = _DQ_MEM.search(body)
        if mem:
            values["memory_total_mib"] = int(mem.group(1))
        f.gpu(src, index=int(m.group(1)), name=m.group(2), **values)
        drv = _DQ_DRIVER.search(body)
        if drv:
            f.put("driver.cuda_api", drv.group(1), p.where("deviceQuery", m.end() + drv.start()))
