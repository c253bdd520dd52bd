"""Import companion libraries in the TARGET interpreter (check --deep).

    python deep_companions.py NAME=MODULE [NAME=MODULE ...]
imports torch first, then each module, and prints "GPUDOCTOR_COMPANIONS <json>"
after each one ({name: "ok" | error text}), so a crash (a segfault in an
extension's static initialiser) still tells which import did it. stdlib plus
the libraries under test; Python 3.8+.
"""

import json
import os
import sys

MARKER = "GPUDOCTOR_COMPANIONS "
MAX_TEXT = 1500

_here = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _here:
    sys.path.pop(0)  # our directory is not part of the environment under test


def main(pairs):
    results = {}
    try:
        import torch  # noqa: F401 - companions load against it
    except BaseException as exc:  # noqa: BLE001 - any failure is the answer
        results["torch"] = (type(exc).__name__ + ": " + str(exc))[:MAX_TEXT]
    for pair in pairs:
        name, _, module = pair.partition("=")
        results[name] = "started"
        sys.stdout.write(MARKER + json.dumps(results) + "\n")
        sys.stdout.flush()
        try:
            __import__(module)
            results[name] = "ok"
        except BaseException as exc:  # noqa: BLE001 - undefined symbol, missing op, CUDA setup
            message = str(exc).strip().splitlines()
            results[name] = (type(exc).__name__ + (": " + message[-1] if message else ""))[:MAX_TEXT]
    sys.stdout.write(MARKER + json.dumps(results) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
