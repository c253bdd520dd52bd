"""GD52x: companion and extension libraries against the installed framework,
and the GPU libraries judged like frameworks (RAPIDS, numba-cuda)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpudoctor.compat import KernelKind, kernel_for
from gpudoctor.findings import Fix, Severity
from gpudoctor.matrices import Matrices, torch_series
from gpudoctor.matrices import companion_queries as q
from gpudoctor.rules.common import driver_install_commands, ev, ev_value, gpu_cc, gpu_evidence, gpu_label, need_gpus
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Companion, Framework, Snapshot
from gpudoctor.versions import cuda_version, driver_at_least

FAMILY = "companions"


# The install engine is imported when a finding needs its fix, not by every check.
def companion_fix(s: Snapshot, m: Matrices, name: str, framework_version: str | None, why: str) -> Fix:
    from gpudoctor.install.companions import companion_fix as fix

    return fix(s, m, name, framework_version, why)


def pip_install(s: Snapshot) -> str:
    from gpudoctor.install.companions import pip_install as command

    return command(s)


def _pairs(s: Snapshot) -> list[tuple[Companion, Framework]]:
    if s.companions is None:
        raise Unknown("the companion libraries are unknown")
    out = []
    for c in s.companions:
        fw = s.framework(c.framework)
        if fw is not None and fw.version.known:
            out.append((c, fw))
    return out


def _label(c: Companion) -> str:
    return f"{c.name} {c.version.value}" if c.version.known else c.name


def _major(text: str | None) -> int | None:
    cv = cuda_version(text.replace(".x", ".0") if text else None)
    return cv.major if cv else None


@rule("GD520", "companion-pins-other-framework", "library-conflict", Severity.ERROR,
      "A companion library requires a different release of the framework than the one installed "
      "(or the framework pins a companion release that is not installed).", FAMILY, since="0.1.0")
def pin_mismatch(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        checks = []
        if c.requires_framework.known:
            checks.append((c.requires_framework.value, fw.version.value, c.requires_framework,
                           f"{_label(c)} requires {fw.name}{c.requires_framework.value}, but the environment has "
                           f"{fw.name} {fw.version.value}", f"{c.name}.requires_{fw.name}", f"{fw.name}.version", fw.version))
        if c.pinned_by_framework.known and c.version.known:
            checks.append((c.pinned_by_framework.value, c.version.value, c.pinned_by_framework,
                           f"{fw.name} {fw.version.value} requires {c.name}{c.pinned_by_framework.value}; "
                           f"the environment has {c.name} {c.version.value}", f"{fw.name}.requires_{c.name}",
                           f"{c.name}.version", c.version))
        for spec, have, spec_fact, title, spec_name, have_name, have_fact in checks:
            assert spec is not None and have is not None  # appended only when both facts are known
            if q.spec_allows(spec, have) is not False:
                continue
            yield pin_mismatch.finding(
                title, subject=f"{c.name} × {fw.name}",
                evidence=[ev(spec_name, spec_fact), ev(have_name, have_fact)],
                fix=companion_fix(s, m, c.name, fw.version.value,
                                  f"Wheels built against one {fw.name} release fail to import or crash with "
                                  "another (undefined symbols, missing operators)."),
            )


@rule("GD521", "companion-cuda-variant-differs", "framework-cuda-mismatch", Severity.ERROR,
      "torchvision/torchaudio come from another CUDA (or CPU) index than torch.", FAMILY, since="0.1.0")
def variant_mismatch(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        if c.name not in ("torchvision", "torchaudio") or not c.build_tag.known:
            continue
        tag, version = c.build_tag.value, fw.version.value
        assert tag is not None and version is not None  # known, checked above and by _pairs
        fw_tag = version.split("+", 1)[1] if "+" in version else None
        if not re.fullmatch(r"cu\d+|cpu", tag):
            continue
        if fw_tag is None:
            # A PyPI torch wheel carries no label; judge by what it was built with.
            fw_tag = "cpu" if fw.build.value == "cpu" else (f"cu{str(fw.cuda.value).replace('.', '')}"
                                                          if fw.cuda.known else None)
        if fw_tag is None or fw_tag == tag:
            continue
        yield variant_mismatch.finding(
            f"{_label(c)} is the {tag} build; {fw.name} {fw.version.value} is {fw_tag}",
            subject=f"{c.name} × {fw.name}",
            evidence=[ev(f"{c.name}.build_tag", c.build_tag), ev(f"{fw.name}.version", fw.version),
                      ev(f"{fw.name}.cuda", fw.cuda)],
            fix=companion_fix(s, m, c.name, fw.version.value,
                              f"Its C++/CUDA operators are compiled for {tag}: with a {fw_tag} {fw.name} they fail "
                              f"('operator {c.name}::... does not exist') or run without CUDA."),
        )


def _tag_parts(m: Matrices, c: Companion) -> dict[str, str] | None:
    row = q.extension_wheel(m, c.name)
    if row is None or not c.build_tag.known:
        return None
    hit = re.fullmatch(row.local_pattern, str(c.build_tag.value), re.IGNORECASE)  # uv.lock lower-cases local labels
    return dict(hit.groupdict(), source=row.source) if hit else None


@rule("GD522", "extension-built-for-other-framework", "library-conflict", Severity.ERROR,
      "A compiled extension (flash-attn, DeepSpeed ops) was built for another framework release.", FAMILY, since="0.1.0")
def built_for_other(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        parts = _tag_parts(m, c)
        built = (parts or {}).get("torch") or c.built_framework.value
        if not built:
            continue
        if torch_series(built) == torch_series(str(fw.version.value)):  # known: _pairs
            continue
        source = (ev(f"{c.name}.build_tag", c.build_tag) if parts else ev(f"{c.name}.built_{fw.name}", c.built_framework))
        yield built_for_other.finding(
            f"{_label(c)} was built for {fw.name} {built}, but the environment has {fw.name} {fw.version.value}",
            subject=f"{c.name} × {fw.name}",
            evidence=[source, ev(f"{fw.name}.version", fw.version)],
            fix=companion_fix(s, m, c.name, fw.version.value,
                              f"An extension links {fw.name}'s C++ symbols, which change between releases: "
                              "import fails with 'undefined symbol'."),
        )


@rule("GD523", "extension-cxx11-abi-differs", "library-conflict", Severity.ERROR,
      "A compiled extension uses the other C++ ABI (_GLIBCXX_USE_CXX11_ABI) than the framework.", FAMILY, since="0.1.0")
def abi_mismatch(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        if not fw.cxx11_abi.known:
            continue
        parts = _tag_parts(m, c)
        if parts:
            abi, evidence = parts["abi"].upper() == "TRUE", ev(f"{c.name}.build_tag", c.build_tag)
        elif c.cxx11_abi.known:
            abi, evidence = bool(c.cxx11_abi.value), ev(f"{c.name}.cxx11_abi", c.cxx11_abi)
        else:
            continue
        if abi == fw.cxx11_abi.value:
            continue
        yield abi_mismatch.finding(
            f"{_label(c)} uses the {'new' if abi else 'old'} C++ ABI; {fw.name} {fw.version.value} the "
            f"{'new' if fw.cxx11_abi.value else 'old'} one", subject=f"{c.name} × {fw.name}",
            evidence=[evidence, ev(f"{fw.name}.cxx11_abi", fw.cxx11_abi)],
            fix=companion_fix(s, m, c.name, fw.version.value,
                              "std::string symbols differ between the two ABIs: import fails with "
                              "'undefined symbol: ...c10...'."),
        )


@rule("GD524", "extension-cuda-major-differs", "framework-cuda-mismatch", Severity.ERROR,
      "A compiled extension was built for another CUDA major than the framework.", FAMILY, since="0.1.0")
def cuda_major_mismatch(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        if fw.build.value != "cuda" or not fw.cuda.known or c.name in ("torchvision", "torchaudio", "bitsandbytes"):
            continue
        parts = _tag_parts(m, c)
        built = f"{parts['cuda']}.x" if parts else c.built_cuda.value
        evidence = ev(f"{c.name}.build_tag", c.build_tag) if parts else ev(f"{c.name}.built_cuda", c.built_cuda)
        if built is None or _major(built) is None or _major(built) == _major(fw.cuda.value):
            continue
        yield cuda_major_mismatch.finding(
            f"{_label(c)} was built for CUDA {built}; {fw.name} {fw.version.value} uses CUDA {fw.cuda.value}",
            subject=f"{c.name} × {fw.name}", evidence=[evidence, ev(f"{fw.name}.cuda", fw.cuda)],
            fix=companion_fix(s, m, c.name, fw.version.value,
                              "A CUDA major links its own libcudart.so.N: the two cannot share a process."),
        )


@rule("GD525", "bitsandbytes-no-library-for-cuda", "framework-cuda-mismatch", Severity.ERROR,
      "bitsandbytes has no library for the CUDA the framework was built with.", FAMILY, since="0.1.0")
def bnb_library(s: Snapshot, m: Matrices) -> Findings:
    for c, fw in _pairs(s):
        if c.name != "bitsandbytes" or not c.built_cuda.known or fw.build.value != "cuda" or not fw.cuda.known:
            continue
        shipped = str(c.built_cuda.value).split(",")
        want = cuda_version(fw.cuda.value)
        if want is None or any(cuda_version(v) == want for v in shipped):
            continue
        yield bnb_library.finding(
            f"{_label(c)} ships libraries for CUDA {', '.join(shipped)}; {fw.name} uses CUDA {fw.cuda.value}",
            subject=f"{c.name} × {fw.name}",
            evidence=[ev(f"{c.name}.built_cuda", c.built_cuda), ev(f"{fw.name}.cuda", fw.cuda)],
            fix=Fix("bitsandbytes loads libbitsandbytes_cuda<torch CUDA>.so; a newer release covers more CUDA "
                    "versions, or BNB_CUDA_VERSION picks a shipped one of the same major.",
                    (f"{pip_install(s)} -U bitsandbytes",)),
        )


@rule("GD526", "extension-arch-not-in-build", "arch-not-in-build", Severity.ERROR,
      "A compiled extension has neither SASS nor PTX for a GPU.", FAMILY, since="0.1.0")
def ext_arch(s: Snapshot, m: Matrices) -> Findings:
    pairs = [(c, fw) for c, fw in _pairs(s) if c.arch_list.known]
    if not pairs:
        return
    for g in need_gpus(s):
        cc = gpu_cc(g)
        if cc is None:
            continue
        for c, fw in pairs:
            if kernel_for(cc, c.arch_list.value).kind is not KernelKind.NONE:
                continue
            yield ext_arch.finding(
                f"{_label(c)} has no kernels for {gpu_label(g)}", subject=f"GPU {g.index} × {c.name}",
                evidence=[gpu_evidence(g), ev(f"{c.name}.arch_list", c.arch_list)],
                fix=companion_fix(s, m, c.name, fw.version.value,
                                  f"Its kernels were compiled for {', '.join(c.arch_list.value or ())} only."),
            )


@rule("GD527", "deepspeed-ops-need-nvcc", "library-conflict", Severity.WARNING,
      "DeepSpeed has no prebuilt ops and no CUDA compiler to JIT-build them.", FAMILY, since="0.1.0")
def deepspeed_nvcc(s: Snapshot, m: Matrices) -> Findings:
    c = s.companion("deepspeed")
    if c is None or not c.prebuilt_ops.known or c.prebuilt_ops.value:
        return
    if s.cuda_runtimes is None:
        raise Unknown("the CUDA toolkits are unknown")
    if any(rt.nvcc for rt in s.cuda_runtimes):
        return
    yield deepspeed_nvcc.finding(
        f"{_label(c)} builds its C++/CUDA ops at first use, and no nvcc was found", subject="deepspeed",
        evidence=[ev("deepspeed.prebuilt_ops", c.prebuilt_ops),
                  ev_value("cuda_runtimes.nvcc", "none", "toolkit probe")],
        fix=Fix("FusedAdam, the ZeRO-Offload CPU Adam and the inference kernels are JIT-compiled with nvcc "
                "(and ninja); install a toolkit whose major matches torch's CUDA.",
                ("conda install -c nvidia cuda-nvcc  # or the CUDA toolkit from https://developer.nvidia.com/cuda-downloads",
                 f"{pip_install(s)} ninja")),
    )


_GPU_LIBRARY = {"cudf": "rapids", "cuml": "rapids", "cugraph": "rapids", "rapids": "rapids",
                "numba-cuda": "numba-cuda", "vllm": "vllm", "flash-attn": "flash-attn"}


def _gpu_libraries(s: Snapshot, known_version: bool = True) -> Iterator[tuple[Framework, str, int | None]]:
    """(library, package of its floors, CUDA major) for the GPU libraries the snapshot
    holds: judged like frameworks (RAPIDS), or companions of one (vLLM, flash-attn),
    which are given as frameworks of their name and version."""
    libs = [*(s.frameworks or ()), *(Framework(name=c.name, version=c.version) for c in s.companions or ())]
    seen = set()
    for lib in libs:
        if lib.name in _GPU_LIBRARY and lib.name not in seen and (lib.version.known or not known_version):
            seen.add(lib.name)
            yield lib, _GPU_LIBRARY[lib.name], _major(lib.cuda.value)


_FLOOR_FIX = {
    "rapids": "RAPIDS 23.12 is the last release for Pascal (sm_60/61); none runs on Maxwell or older.",
    "numba-cuda": "numba-cuda needs sm_50+ on CUDA 12, sm_75+ on CUDA 13.",
    "vllm": "vLLM's wheels need Volta (sm_70) or newer, Turing (sm_75) from 0.21; on an older GPU use an engine "
            "that still builds for it (llama.cpp, transformers) or a newer GPU.",
    "flash-attn": "FlashAttention 2 needs Ampere (sm_80) or newer, 1.x Turing (sm_75); on this GPU use PyTorch's "
                  "SDPA (attn_implementation=\"sdpa\") or eager attention instead.",
}
# FlashAttention on a GPU without it is a feature the GPU lacks, not a dropped architecture, and
# an installed package that a model may never call: a warning.
_FEATURE_FLOORS = {"flash-attn": "precision-unsupported"}


@rule("GD528", "gpu-library-drops-gpu", "arch-dropped", Severity.ERROR,
      "A GPU library (RAPIDS, numba-cuda, vLLM, flash-attn) no longer supports, or never supported, a GPU's architecture.",
      FAMILY, since="0.1.0")
def library_arch_floor(s: Snapshot, m: Matrices) -> Findings:
    libs = list(_gpu_libraries(s, known_version=False))
    if not libs:
        return
    for g in need_gpus(s):
        for fw, package, major in libs:
            # A release the paste does not show: the lowest floor of any release, so a
            # GPU below it is below all of them (a GTX 750 Ti for any RAPIDS).
            need = q.gpu_library_need(m, package, fw.version.value, major, "min_sm") if fw.version.known \
                else q.gpu_library_floor(m, package, major)
            if need is None or q.sm_at_least(g.compute_capability, need[0]) is not False:
                continue
            release = fw.version.value if fw.version.known else "(every release)"
            commands: tuple[str, ...] = ()
            if package == "rapids" and q.sm_at_least(g.compute_capability, "6.0"):  # 23.12 still runs Pascal
                dist = "cudf" if fw.name == "rapids" else fw.name
                commands = (f'{pip_install(s)} "{dist}-cu12==23.12.*" --extra-index-url=https://pypi.nvidia.com',)
            elif package == "numba-cuda":
                commands = (f'{pip_install(s)} "numba-cuda[cu12]"',)
            yield library_arch_floor.finding(
                f"{fw.name} {release} needs compute capability {need[0]}+; {gpu_label(g)}",
                subject=f"GPU {g.index} × {fw.name}",
                severity=Severity.WARNING if package in _FEATURE_FLOORS or not fw.version.known else None,
                category=_FEATURE_FLOORS.get(package),
                evidence=[gpu_evidence(g), ev_value(f"{fw.name}.min_sm", need[0], need[1])],
                fix=Fix(f"{fw.name} {fw.version.value} has no kernels for this GPU. {_FLOOR_FIX[package]}"
                        if fw.version.known else f"No {fw.name} release has kernels for this GPU. {_FLOOR_FIX[package]}",
                        commands),
            )


@rule("GD529", "gpu-library-driver-too-old", "driver-too-old-for-runtime", Severity.ERROR,
      "The driver is older than a RAPIDS release requires for its CUDA major.", FAMILY, since="0.1.0")
def library_driver(s: Snapshot, m: Matrices) -> Findings:
    libs = list(_gpu_libraries(s))
    if not libs:
        return
    if not s.driver.version.known:
        raise Unknown("the driver version is unknown")
    for fw, package, major in libs:
        need = q.gpu_library_need(m, package, fw.version.value, major, "min_driver_linux")
        if need is None or driver_at_least(s.driver.version.value, need[0]) is not False:
            continue
        branch = int(need[0].split(".")[0])
        yield library_driver.finding(
            f"{fw.name} {fw.version.value} (CUDA {fw.cuda.value}) needs driver {need[0]}+; "
            f"this is {s.driver.version.value}", subject=fw.name,
            evidence=[ev("driver.version", s.driver.version), ev(f"{fw.name}.cuda", fw.cuda),
                      ev_value(f"{fw.name}.min_driver", need[0], need[1])],
            fix=Fix(f"Upgrade the driver to {need[0]} or newer, or use the CUDA 12 packages (-cu12) on an "
                    "older driver.", driver_install_commands(s, branch)),
        )


@rule("GD530", "companion-import-failed", "library-conflict", Severity.ERROR,
      "Importing a companion library after the framework fails (--deep).", FAMILY, since="0.1.0")
def import_failed(s: Snapshot, m: Matrices) -> Findings:
    from gpudoctor.rules.frameworks import _category

    for c in s.companions or ():
        if not c.deep_import.known or c.deep_import.value == "ok":
            continue
        fw = s.framework(c.framework)
        text = str(c.deep_import.value)
        yield import_failed.finding(
            f"import {c.name} fails: {text.splitlines()[-1][:200]}", subject=f"{c.name} × {c.framework}",
            category=_category(text),
            evidence=[ev(f"{c.name}.deep_import", c.deep_import)] + ([ev(f"{fw.name}.version", fw.version)] if fw else []),
            fix=companion_fix(s, m, c.name, fw.version.value if fw and fw.version.known else None,
                              "The other GD52x findings usually say why (pins, ABI, CUDA major);"
                              " `gpudoctor explain` maps the message to its causes."),
        )


RULES: tuple[Rule, ...] = (
    pin_mismatch,
    variant_mismatch,
    built_for_other,
    abi_mismatch,
    cuda_major_mismatch,
    bnb_library,
    ext_arch,
    deepspeed_nvcc,
    library_arch_floor,
    library_driver,
    import_failed,
)
