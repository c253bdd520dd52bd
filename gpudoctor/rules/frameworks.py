"""GD5xx: framework builds, Python support, and what --deep imports showed."""

from __future__ import annotations

import re
import shlex

from gpudoctor.findings import Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.common import ev, ev_value, fw_label, need_frameworks
from gpudoctor.rules.fixes import reinstall_fix
from gpudoctor.rules.rule import Findings, Rule, Unknown, rule
from gpudoctor.snapshot import Framework, Snapshot
from gpudoctor.versions import parse_numeric, python_version

FAMILY = "frameworks"


def _gpus_present(s: Snapshot) -> bool | None:
    if s.gpus:
        return True
    if s.driver.nvml.value == "ok" or s.driver.version.known:
        return bool(s.gpus) if s.gpus is not None else None
    if s.gpus is None and not s.driver.kernel_module.known:
        return None
    return False


@rule("GD501", "cpu-only-build", "cpu-only-build", Severity.ERROR,
      "A CPU-only framework build is installed (on a GPU machine it will never use the GPUs).", FAMILY, since="0.1.0")
def cpu_only(s: Snapshot, m: Matrices) -> Findings:
    present = _gpus_present(s)
    for fw in need_frameworks(s):
        if fw.build.value != "cpu":
            continue
        severity = Severity.ERROR if present else Severity.INFO if present is False else Severity.WARNING
        where = ("this machine has NVIDIA GPUs" if present else
                 "no NVIDIA GPU or driver was found, so it is all this machine can use now" if present is False
                 else "whether this machine has GPUs is unknown")
        if present is False:
            # Nothing here can use a CUDA build: the install engine would only pick another CPU build.
            fix = Fix(f"Nothing to change while this machine has no NVIDIA GPU. On a machine with one, "
                      f"`gpudoctor install {fw.name}` prints the command for a CUDA build that works there.",
                      (f"gpudoctor install {fw.name}",))
        else:
            fix = reinstall_fix(s, m, fw, "Install a CUDA build (a CPU wheel came from the CPU index, "
                                          "a pinned '+cpu' version or a platform with CPU-only wheels).")
        yield cpu_only.finding(
            f"{fw_label(fw)} is a CPU-only build; {where}", severity=severity, subject=fw.name,
            evidence=[ev(f"{fw.name}.build", fw.build), ev(f"{fw.name}.version", fw.version)], fix=fix,
        )


@rule("GD502", "rocm-build-on-nvidia", "framework-cuda-mismatch", Severity.ERROR,
      "A ROCm (AMD) framework build is installed on a machine with NVIDIA GPUs.", FAMILY, since="0.1.0")
def rocm_on_nvidia(s: Snapshot, m: Matrices) -> Findings:
    for fw in need_frameworks(s):
        if fw.build.value == "rocm" and s.gpus:
            yield rocm_on_nvidia.finding(
                f"{fw_label(fw)} is a ROCm build; the GPUs here are NVIDIA", subject=fw.name,
                evidence=[ev(f"{fw.name}.build", fw.build), ev_value("gpus[0].name", s.gpus[0].name, s.gpus[0].source)],
                fix=reinstall_fix(s, m, fw, "ROCm builds drive AMD GPUs only."),
            )


_GPU_LIBRARIES = {"cudf": "rapids", "cuml": "rapids", "cugraph": "rapids"}


def _python_range(m: Matrices, fw: Framework) -> tuple[str | None, str | None, str] | None:
    if not fw.version.known:
        return None
    version = str(fw.version.value)  # known, checked above
    if fw.name in _GPU_LIBRARIES:
        from gpudoctor.matrices import companion_queries as q  # noqa: PLC0415 - RAPIDS only

        major = parse_numeric((fw.cuda.value or "").replace(".x", ""))
        lo = q.gpu_library_need(m, _GPU_LIBRARIES[fw.name], version, major[0] if major else None,
                                "python_min")
        hi = q.gpu_library_need(m, _GPU_LIBRARIES[fw.name], version, major[0] if major else None,
                                "python_max")
        return (lo[0], hi[0], lo[1]) if lo and hi else None
    rel = (m.torch_release(version) if fw.name == "torch" else
           m.tensorflow_release(version) if fw.name == "tensorflow" else None)
    return (rel.python_min, rel.python_max, rel.source) if rel else None


def _python_extra(m: Matrices, fw: Framework) -> tuple[str, ...]:
    """Pythons a release supports outside its range (torch up to 1.4: 2.7)."""
    rel = m.torch_release(str(fw.version.value)) if fw.name == "torch" and fw.version.known else None
    return rel.python_extra if rel else ()


@rule("GD503", "python-not-supported-by-release", "python-version-unsupported", Severity.WARNING,
      "The Python version is outside the range the framework release supports.", FAMILY, since="0.1.0")
def python_unsupported(s: Snapshot, m: Matrices) -> Findings:
    py = python_version(s.system.python.value)
    if py is None:
        raise Unknown("the target Python version is unknown")
    for fw in need_frameworks(s):
        rng = _python_range(m, fw)
        if rng is None:
            continue
        lo, hi, source = rng
        lo_py, hi_py = python_version(lo), python_version(hi)
        assert lo_py is not None and hi_py is not None  # required "X.Y" fields of every row that has them
        if lo_py <= py <= hi_py or any(python_version(x) == py[:2] for x in _python_extra(m, fw)):
            continue
        yield python_unsupported.finding(
            f"{fw_label(fw)} supports Python {lo}–{hi}; this is Python {s.system.python.value}",
            subject=fw.name,
            evidence=[ev("system.python", s.system.python), ev_value(f"{fw.name}.python_range", f"{lo}–{hi}", source)],
            fix=Fix("No official wheel targets this Python: expect missing wheels or untested behaviour. "
                    f"Use a Python in {lo}–{hi} (e.g. `uv venv --python {hi}`), or a release that supports yours.",
                    (f"uv venv --python {hi}", f"gpudoctor install {fw.name} --python {s.system.python.value}")),
        )


@rule("GD504", "framework-newer-than-data", "info", Severity.INFO,
      "A framework release is newer than gpudoctor's matrices know.", FAMILY, since="0.1.0")
def newer_than_data(s: Snapshot, m: Matrices) -> Findings:
    for fw in need_frameworks(s):
        if not fw.version.known or fw.name not in ("torch", "tensorflow", "jax", "cupy"):
            continue
        if not m.is_newer_than_known(fw.name, str(fw.version.value).split("+")[0]):  # known
            continue
        newest = m.newest_known(fw.name)
        yield newer_than_data.finding(
            f"{fw_label(fw)} is newer than the newest {fw.name} in gpudoctor's data ({newest}); "
            "its verdicts use what the build itself records",
            subject=fw.name, evidence=[ev(f"{fw.name}.version", fw.version),
                                       ev_value(f"matrices.{fw.name}.newest", newest,
                                                f"gpudoctor/matrices ({m.data_as_of(fw.name) or '?'})")],
            fix=Fix("Refresh the matrices from PyPI (an explicit, online command), or upgrade gpudoctor.",
                    ("gpudoctor matrix refresh",)),
        )


# Error text -> category, for failures seen by --deep.
_ERROR_CATEGORIES = (
    (re.compile(r"no kernel image|not compatible with the current PyTorch|sm_\d+ is not", re.I), "arch-not-in-build"),
    (re.compile(r"driver version is insufficient|too old|NVIDIA driver on your system is too old", re.I),
     "driver-too-old-for-runtime"),
    (re.compile(r"libcudnn|cudnn", re.I), "cudnn-version-mismatch"),
    (re.compile(r"Found no NVIDIA driver|no CUDA-capable device|CUDA driver initialization failed", re.I), "no-driver"),
    (re.compile(r"\.so(\.\d+)*|undefined symbol|cannot open shared object", re.I), "library-conflict"),
)


def _category(text: str | None) -> str:
    for pattern, category in _ERROR_CATEGORIES:
        if text and pattern.search(text):
            return category
    return "framework-cuda-mismatch"


def _deep(s: Snapshot):
    fws = need_frameworks(s)
    deep = [fw for fw in fws if fw.deep is not None]
    if not deep and fws:
        raise Unknown("run `gpudoctor check --deep` to import the frameworks")
    return deep


@rule("GD505", "framework-import-failed", "library-conflict", Severity.ERROR,
      "Importing a framework in the target interpreter fails.", FAMILY, since="0.1.0")
def import_failed(s: Snapshot, m: Matrices) -> Findings:
    for fw in _deep(s):
        if fw.deep.imported:
            continue
        why = "timed out" if fw.deep.timed_out else (fw.deep.error or "failed")
        yield import_failed.finding(
            f"import {fw.name} {why.splitlines()[-1][:200] if why else ''}".rstrip(),
            category=_category(fw.deep.error), subject=fw.name,
            evidence=[ev_value(f"{fw.name}.deep.error", why, "import in the target interpreter")],
            fix=_explain_fix(why, fw.name),
        )


@rule("GD506", "cuda-not-available", "framework-cuda-mismatch", Severity.ERROR,
      "A CUDA build imports but reports CUDA unavailable although GPUs are present.", FAMILY, since="0.1.0")
def not_available(s: Snapshot, m: Matrices) -> Findings:
    for fw in _deep(s):
        if not fw.deep.imported or fw.build.value != "cuda" or fw.deep.is_available is not False:
            continue
        if not s.gpus:
            continue  # no GPU: GD101/GD106 already say why
        yield not_available.finding(
            f"{fw_label(fw)} says CUDA is not available" + (f": {fw.deep.error}" if fw.deep.error else ""),
            category=_category(fw.deep.error), subject=fw.name,
            evidence=[ev_value(f"{fw.name}.deep.is_available", False,
                               "the paste" if s.origin == "diagnose" else "import in the target interpreter")]
            + ([ev_value(f"{fw.name}.deep.error", fw.deep.error, "import in the target interpreter")]
               if fw.deep.error else []),
            fix=Fix("The other findings say why (driver, architecture, libraries); if none does, check "
                    "CUDA_VISIBLE_DEVICES and the device nodes.", ("echo $CUDA_VISIBLE_DEVICES", "ls -l /dev/nvidia*")),
        )


@rule("GD507", "gpu-op-failed", "framework-cuda-mismatch", Severity.ERROR,
      "A tiny operation on a GPU failed when the framework was imported (--deep).", FAMILY, since="0.1.0")
def op_failed(s: Snapshot, m: Matrices) -> Findings:
    for fw in _deep(s):
        for i, result in enumerate(fw.deep.op_results):
            if result == "ok":
                continue
            yield op_failed.finding(
                f"{fw.name} on cuda:{i}: {result.splitlines()[-1][:200] if result else 'failed'}",
                category=_category(result), subject=f"cuda:{i} × {fw.name}",
                evidence=[ev_value(f"{fw.name}.deep.op_results[{i}]", result, "tiny op in the target interpreter")],
                fix=Fix("See the other findings for this GPU; `gpudoctor explain` maps the message to its causes.",
                        (f"gpudoctor explain {_quote(result.splitlines()[-1] if result else fw.name)}",)),
            )


@rule("GD508", "tensorflow-gpu-on-native-windows", "cpu-only-build", Severity.ERROR,
      "TensorFlow 2.11 and newer has no GPU support on native Windows.", FAMILY, since="0.1.0")
def tf_windows(s: Snapshot, m: Matrices) -> Findings:
    tf = s.framework("tensorflow")
    if tf is None or not tf.version.known:
        return
    if s.system.os.value != "windows":
        return
    if (parse_numeric(tf.version.value) or ()) >= (2, 11):
        yield tf_windows.finding(
            f"TensorFlow {tf.version.value} on native Windows runs on the CPU only", subject="tensorflow",
            evidence=[ev("tensorflow.version", tf.version), ev("system.os", s.system.os)],
            fix=Fix("Use WSL2 (pip install tensorflow[and-cuda] inside it), or TensorFlow 2.10 on native Windows.",
                    ("wsl --install", "# inside WSL2: pip install 'tensorflow[and-cuda]'")),
        )


def _explain_fix(why: str, name: str) -> Fix:
    """Suggest `gpudoctor explain` only with a line the catalogue matches; otherwise
    say to read the error itself (an explain that matches nothing helps no one)."""
    from gpudoctor.cuerrors import find_in_text
    from gpudoctor.diagnose.catalog import match_text

    last = why.splitlines()[-1] if why else ""
    if last and (match_text(last) or find_in_text(last)):
        return Fix("Run `gpudoctor explain` with the last line of the error for its usual causes.",
                   (f"gpudoctor explain {_quote(last)}",))
    return Fix("gpudoctor's error catalogue does not know this message: rerun the import to see the whole "
               "traceback (run it with the target interpreter).", (f"python -c {_quote(f'import {name}')}",))


def _quote(text: str) -> str:
    return shlex.quote(text[:200])


RULES: tuple[Rule, ...] = (
    cpu_only,
    rocm_on_nvidia,
    python_unsupported,
    newer_than_data,
    import_failed,
    not_available,
    op_failed,
    tf_windows,
)
