"""Print, as one JSON object, what the interpreter running this file is.

Run by gpudoctor as `<target python> target_info.py`; stdlib only, Python 3.8+.
Also imported in-process when the target is gpudoctor's own interpreter.
"""

import json
import os
import site
import sys


def _uname():
    # os.uname() answers without importing `platform`, whose import alone costs
    # this short-lived process more than everything else it does.
    if hasattr(os, "uname"):
        u = os.uname()
        return u.sysname, u.machine, u.release
    import platform  # Windows

    return platform.system(), platform.machine(), platform.release()


def describe():
    system, machine, release = _uname()
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
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": {"cpython": "CPython", "pypy": "PyPy"}.get(sys.implementation.name,
                                                                    sys.implementation.name),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "path": path,
        "user_site": user_site,
        "system": system,
        "machine": machine,
        "release": release,
        "libc": libc,
        "conda_prefix": os.environ.get("CONDA_PREFIX"),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(describe()) + "\n")
