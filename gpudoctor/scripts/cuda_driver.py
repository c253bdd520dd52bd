"""Ask libcuda for the driver's CUDA API version and the result of cuInit(0).

Run by gpudoctor in a time-limited subprocess (a broken driver can hang in
cuInit); prints one JSON object. stdlib only, Python 3.8+.
Usage: python cuda_driver.py LIBNAME   (normally "libcuda.so.1")
"""

import ctypes
import json
import sys


def loaded_path(fragment):
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) == 6 and fragment in parts[5]:
                    return parts[5].strip()
    except OSError:
        pass
    return None


def error_name(lib, code):
    name = ctypes.c_char_p()
    try:
        if lib.cuGetErrorName(ctypes.c_int(code), ctypes.byref(name)) == 0 and name.value:
            return name.value.decode("ascii", "replace")
    except AttributeError:
        pass
    return None


def main(libname):
    out = {}
    try:
        lib = ctypes.CDLL(libname)
    except OSError as exc:
        out["load_error"] = str(exc)
        return out
    out["path"] = loaded_path("libcuda.so")
    version = ctypes.c_int(0)
    out["get_version_rc"] = lib.cuDriverGetVersion(ctypes.byref(version))
    out["version"] = version.value
    rc = lib.cuInit(ctypes.c_uint(0))
    out["cuinit"] = rc
    out["cuinit_name"] = error_name(lib, rc)
    return out


if __name__ == "__main__":
    sys.stdout.write(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "libcuda.so.1")) + "\n")
