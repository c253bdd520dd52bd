"""gpudoctor smoke: seconds-long kernels that prove each precision path runs,
gives correct numbers, and reaches the speed this GPU should reach.

    from gpudoctor.smoke import SmokeOptions, run_smoke
    report = run_smoke(host, python, SmokeOptions(mode="quick"), snapshot)
    report.findings   # gpudoctor Findings (GD7xx)
    report.exit_code  # ExitCode
"""

from __future__ import annotations

from gpudoctor.smoke.model import GpuResult, SmokeReport, TestResult
from gpudoctor.smoke.run import SmokeOptions, SmokeUsageError, parse_gpus, run_smoke

__all__ = ["GpuResult", "SmokeOptions", "SmokeReport", "SmokeUsageError", "TestResult", "parse_gpus", "run_smoke"]
