"""Which verdict a message about a CUDA library takes from the rest of the paste: a
library that does not load (missing, or from another CUDA than the one installed), a
cuDNN of another major or version than the build's, a cuDNN on LD_LIBRARY_PATH shadowing
the one a wheel brings, two packages needing different cuDNN majors in one process."""

from __future__ import annotations

import re

from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.collect import Read, source_line
from gpudoctor.diagnose.collect_env import CUDNN_FILE
from gpudoctor.diagnose.freetext import ASKED, STATED_CUDA
from gpudoctor.findings import Fix
from gpudoctor.matrices import Matrices
from gpudoctor.snapshot import Snapshot
from gpudoctor.versions import parse_numeric

# Codes whose message says "a CUDA library of the framework's could not be loaded".
LIBRARY_NOT_LOADED_CODES = {"GD807", "GD818"}

# The CUDA a missing library belongs to: "libcudart.so.10.2", "libnvrtc.so.12", "cudart64_110.dll".
_SONAME = re.compile(r"\blib(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|cupti)"
                     r"\.so\.(\d+)(?:\.(\d))?\b|"
                     r"\b(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc)64_(\d{2,3})(?:_0)?\.dll", re.I)


def library_not_loaded_category(text: str, frameworks: tuple[str, ...], s: Snapshot,
                                majors: tuple[str, ...] = ()) -> str | None:
    """A CUDA library could not be loaded: which CUDA it belongs to against the
    CUDA the paste shows installed. The same CUDA there means the library is not
    where the framework looks (a venv without the runtime, a conda lib folder
    the loader does not search): a missing library. Only other CUDAs there means
    a framework built for another CUDA. Nothing installed shown: the message alone
    (None, the entry's category). `majors`: CUDA majors the paste states bare ("cuda11"),
    which settle the question when the library names only its major."""
    want = _cuda_it_wants(text, frameworks, s)
    # A CUDA stated on the failing line itself is that machine's ("libnvrtc.so.11.2: cannot open
    # shared object file (in server with cuda 11.1)"), where the paste elsewhere names several.
    # (Not one the message asks for: "Download and install CUDA 10.0 from this URL".)
    have = [v for v in (parse_numeric(m.group(2)) for m in STATED_CUDA.finditer(text)
                        if not ASKED.search(text, max(0, m.start() - 40), m.start())) if v]
    have = have or [v for v in (parse_numeric(rt.version or "") for rt in s.cuda_runtimes or ()) if v]
    if want is not None and not have:
        # A bare major ("on a CUDA 10 system") settles a library named by its major, and one of
        # another major whatever its minor; of the same major it cannot tell 9.0 from 9.2.
        stated: list[tuple[int, ...]] = [(int(v),) for v in majors]
        have = stated if want[1] is None or all(v[0] != want[0] for v in stated) else []
    if want is None or not have:
        return None
    if any(v[0] == want[0] and (want[1] is None or (len(v) > 1 and v[1] == want[1])) for v in have):
        return "cudnn-missing"
    return "framework-cuda-mismatch"


def _cuda_it_wants(text: str, frameworks: tuple[str, ...], s: Snapshot) -> tuple[int, int | None] | None:
    """The CUDA (major, minor or None) the failing library belongs to: the build's
    CUDA where the message is one framework's and the paste shows that build (TF 2.8
    wants 11.2, which "libcudart.so.11.0" does not say), else the library's name."""
    if len(frameworks) == 1:
        fw = s.framework(frameworks[0])
        built = parse_numeric(str(fw.cuda.value)) if fw is not None and fw.cuda.known else None
        if built and len(built) > 1:
            return built[0], built[1]
    m = _SONAME.search(text)
    if m is None:
        return None
    if m.group(3):
        digits = m.group(3)
        major, minor = (int(digits[:-1]), int(digits[-1])) if len(digits) == 3 else (int(digits), None)
    else:
        major, minor = int(m.group(1)), int(m.group(2)) if m.group(2) else None
    # From CUDA 11 on, the runtime libraries keep one name per major (libcudart.so.11.0,
    # cudart64_110.dll serve every 11.x: minor-version compatibility): ".0" names no minor.
    return major, None if major >= 11 and minor == 0 else minor


_REQUIRE_CUDNN = re.compile(r"Require cuDNN (\d+)\.", re.I)


def other_cudnn_major_shown(text: str, source: str, s: Snapshot) -> bool:
    """The message names the cuDNN major its build wants and the paste shows another
    (on another line: the free-text reader also reads the message's own "cuDNN 8")."""
    m = _REQUIRE_CUDNN.search(text)
    if m is None:
        return False
    line = source_line(source)
    majors = {(parse_numeric(lib.version) or (None,))[0] for lib in s.cudnn or ()
              if lib.version and (line is None or source_line(lib.source) != line)}
    return bool(majors) and int(m.group(1)) not in majors


_REQUIRE_CUDA = re.compile(r"Require cuDNN \d+\.\* and CUDA (\d+)\.", re.I)


def other_cuda_major_shown(text: str, source: str, s: Snapshot) -> bool:
    """The message names the CUDA major its build wants (ONNX Runtime's "Require cuDNN 9.*
    and CUDA 12.*") and the CUDA the paste shows installed, on other lines, is only of other
    majors: a build for another CUDA, not a missing library."""
    m = _REQUIRE_CUDA.search(text)
    if m is None:
        return False
    line = source_line(source)
    majors = {(parse_numeric(rt.version or "") or (None,))[0] for rt in s.cuda_runtimes or ()
              if rt.kind != "driver" and rt.version and (line is None or source_line(rt.source) != line)}
    majors.discard(None)
    return bool(majors) and int(m.group(1)) not in majors


def framework_with_another_cudnn_major(text: str, s: Snapshot):
    """A cuDNN library of major N cannot be found while a framework in the same
    environment brings its own cuDNN of another major (torch >= 2.4 wheels carry cuDNN
    9, ctranslate2 4.4 and older load cuDNN 8): not a missing cuDNN but two packages
    that need different majors on one search path. That framework, or None."""
    m = CUDNN_FILE.search(text)
    if m is None:
        return None
    want = int((m.group(1) or m.group(2)).split(".")[0])
    # Only a cuDNN the paste shows (a line of it): the one gpudoctor's matrices give a
    # framework version is the build's, not proof of what this environment holds.
    for fw in s.frameworks or ():
        major = (parse_numeric(str(fw.cudnn.value)) or (None,))[0] if fw.cudnn.known else None
        if major is not None and major != want and source_line(fw.cudnn.source) is not None:
            return fw
    return None


def cudnn_major_without_the_cuda(text: str, s: Snapshot, m: Matrices | None) -> bool:
    """The loader wants cuDNN N (named from the build's cuDNN: cudnn64_7.dll) and no cuDNN N release serves the
    CUDA the paste shows installed, not the driver's (cuDNN 7 ends at CUDA 10): the build is for another CUDA."""
    hit = CUDNN_FILE.search(text)
    want, rows = (int((hit.group(1) or hit.group(2)).split(".")[0]), m.table("cudnn", "release")) if hit and m else (0, ())
    served = {c for r in rows if (parse_numeric(r.version_from) or (0,))[0] == want for c in r.cuda_majors or ()}
    have = {v[0] for v in (parse_numeric(rt.version or "") for rt in s.cuda_runtimes or () if rt.kind != "driver") if v}
    return bool(served and have) and not have & served


# Frameworks whose wheels bring their own cuDNN (torch's and jax's pin nvidia-cudnn; torch
# 1.x carried it in torch/lib): for them a cuDNN on LD_LIBRARY_PATH is a foreign one.
OWN_CUDNN = ("torch", "jax")


def cudnn_loaded_from_library_path(s: Snapshot):
    """The framework loaded a cuDNN other than its build's, and the paste's
    LD_LIBRARY_PATH lists a cuDNN directory of exactly the loaded version: the
    system's cuDNN shadows the one the wheel brings. That directory, or None."""
    for fw in s.frameworks or ():
        loaded = (parse_numeric(fw.deep.cudnn_runtime) or ())[:3] if fw.deep is not None else ()
        built = (parse_numeric(str(fw.cudnn.value)) or ())[:3] if fw.cudnn.known else ()
        if fw.name not in OWN_CUDNN or not loaded or not built or loaded == built:
            continue
        for lib in s.cudnn or ():
            on_path = lib.ld_library_path or lib.kind == "ld-library-path"
            if on_path and (parse_numeric(lib.version or "") or ())[:3] == loaded:
                return lib
    return None


def cuda_dirs_on_library_path(d: Diagnosis) -> Read | None:
    """LD_LIBRARY_PATH's CUDA/cuDNN directories, where none names its cuDNN version: a
    directory that names one is judged by the version it names (the loaded one or not)."""
    if any(lib.kind == "ld-library-path" and lib.version for lib in d.snapshot.cudnn or ()):
        return None
    return next((r for r in d.reads if r.fact == "ld_library_path.cuda_dirs"), None)


def bundles_its_cudnn(text: str, s: Snapshot) -> bool:
    """The message is from a framework whose wheels bring their cuDNN (torch's says
    "PyTorch already comes bundled with cuDNN"), and the paste shows that framework."""
    return "pytorch was compiled" in text.lower() or any(fw.name in OWN_CUDNN and fw.deep is not None
                                                          and fw.deep.cudnn_runtime for fw in s.frameworks or ())


TORCH_CUDNN_FIRST_FIX = Fix(
    "torch in the same process loaded the cuDNN of its own wheels first, and cuDNN is loaded once per process: "
    "import JAX or TensorFlow before torch, give both one cuDNN (install the nvidia-cudnn wheel both accept), or run "
    "them in separate processes. (source: a JAX maintainer, https://github.com/jax-ml/jax/issues/19004)",
    ("pip list | grep -i -E 'torch|jax|tensorflow|nvidia-cudnn'",))


TWO_CUDNN_MAJORS_FIX = Fix(
    "Give the two packages one cuDNN major: install versions whose builds agree (torch 2.3 wheels carry cuDNN 8, "
    "2.4 and later cuDNN 9; ctranslate2 4.4.0 and older load cuDNN 8, later ones cuDNN 9), or put them in separate "
    "environments. (sources: gpudoctor/matrices/torch.toml; https://github.com/SYSTRAN/faster-whisper#gpu)",
    ("pip list | grep -i -E 'torch|ctranslate2|onnxruntime|nvidia-cudnn'",))
