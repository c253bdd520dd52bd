"""Print, as one JSON object, what the interpreter running this file is.

Run by gpudoctor as `<target python> target_info.py`; stdlib only, Python 3.8+.
Also imported in-process when the target is gpudoctor's own interpreter.
"""

import json
import os
import platform
import site
import sys


def describe():
    here = os.path.dirname(os.path.abspath(__file__))
    # Running a file puts its directory first on sys.path; that entry is ours,
    # not part of the environment being judged.
    path = [p for p in sys.path if p and os.path.abspath(p) != here]
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
    except (AttributeError, ValueError, OSError):
        libc = None
    user_site = None
    if getattr(site, "ENABLE_USER_SITE", False):
        try:
            user_site = site.getusersitepackages()
        except Exception:  # noqa: BLE001 - a broken site module is a fact, not a crash
            user_site = None
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "path": path,
        "user_site": user_site,
        "system": platform.system(),
        "machine": platform.machine(),
        "release": platform.release(),
        "libc": libc,
        "conda_prefix": os.environ.get("CONDA_PREFIX"),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(describe()) + "\n")
