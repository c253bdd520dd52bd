"""What a paste's driver cannot run, judged from a CUDA the reporter names only by its major.

"vllm 0.7.3 will install cuda 12" beside a driver 510 (CUDA 11.6): whatever brings that
CUDA 12 (a wheel, an image, a toolkit), a driver below the major's minor-version
compatibility floor runs none of its code. GD204 judges the CUDAs a paste gives with a
minor version; this judges the bare majors only it does not already cover.
"""

from __future__ import annotations

from gpudoctor.compat import DriverSupport, driver_supports
from gpudoctor.diagnose import Diagnosis
from gpudoctor.diagnose.arch_verdict import driver_top_cuda
from gpudoctor.findings import Evidence, Finding, Fix, Severity
from gpudoctor.matrices import Matrices
from gpudoctor.rules.common import driver_install_commands
from gpudoctor.rules.cuda import branch_for, toolkit_too_new


def stated_major_beyond_driver(d: Diagnosis, m: Matrices, findings: list[Finding]) -> list[Finding]:
    s = d.snapshot
    if any(f.category == "driver-too-old-for-runtime" for f in findings):
        return []
    if not (s.driver.version.known or s.driver.cuda_api.known):
        return []
    top = driver_top_cuda(s, m)
    if top is None:
        return []
    os_name = str(s.system.os.value) if s.system.os.known else "linux"
    majors = {int(r.value): r for r in reversed(d.reads) if r.fact == "cuda.stated_major"}
    above = [(major, read) for major, read in sorted(majors.items()) if major > top.major]
    if not above:
        return []
    major, read = above[-1]
    v = driver_supports(f"{major}.0", s.driver.version.value, s.driver.cuda_api.value, m, os_name)
    if v.support is not DriverSupport.TOO_OLD:
        return []
    floor = v.needed_compat or v.needed_full
    shown = s.driver.version if s.driver.version.known else s.driver.cuda_api
    return [toolkit_too_new.finding(
        f"the paste names CUDA {major}, which needs driver >= {floor}; this driver supports CUDA {top}",
        severity=Severity.WARNING,
        evidence=[Evidence("cuda.stated_major", str(major), read.source),
                  Evidence("driver.version" if s.driver.version.known else "driver.cuda_api", str(shown.value),
                           shown.source)],
        fix=Fix(f"Code built for CUDA {major} (a framework's wheel, an image, a program built with its toolkit) "
                "fails on this driver with 'CUDA driver version is insufficient' or finds no GPU. Upgrade the "
                f"driver, or use builds for a CUDA no newer than {top}.",
                driver_install_commands(s, branch_for(floor))))]
