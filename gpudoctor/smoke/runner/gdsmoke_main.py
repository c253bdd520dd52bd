"""gpudoctor smoke runner: run by the TARGET interpreter, needs only the framework.

    python gdsmoke_main.py --backend auto|torch|cupy|jax [--gpus 0,2]
                           [--mode quick|full] [--allow-cpu]

Prints one JSON document on stdout: measurements per GPU and test, never
verdicts (gpudoctor judges them). Anything the framework itself prints goes
to stderr, so stdout stays one clean document. Progress events go to stderr
as lines starting with "@@gdsmoke ".
"""

import argparse
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback

import gdsmoke_common as common

BACKENDS = ("torch", "cupy", "jax")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="gdsmoke_main.py")
    parser.add_argument("--backend", choices=("auto",) + BACKENDS, default="auto")
    parser.add_argument("--gpus", default="all")
    parser.add_argument("--mode", choices=("quick", "full"), default="quick")
    parser.add_argument("--allow-cpu", action="store_true")
    return parser.parse_args(argv)


def pick_backend(requested):
    if requested != "auto":
        return requested
    for name in BACKENDS:
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def main(argv):
    started = time.monotonic()
    args = parse_args(argv)
    # Keep the real stdout for our document; everything else printed goes to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    backend = pick_backend(args.backend)
    if backend is None:
        doc = common.document(None, None, None, args.mode, [], started=started, error={
            "stage": "import", "message": "none of %s is importable by %s" % (", ".join(BACKENDS), sys.executable)})
    else:
        common.emit("backend", name=backend)
        try:
            module = importlib.import_module("gdsmoke_" + backend)
            doc = module.run(args, started)
        except ImportError as exc:
            doc = common.document(backend, None, None, args.mode, [], started=started, error={
                "stage": "import", "message": "import %s failed: %s: %s" % (backend, type(exc).__name__, exc)})
        except Exception as exc:  # a bug or an unexpected framework failure: still one document
            doc = common.document(backend, None, None, args.mode, [], started=started, error={
                "stage": "runner", "message": "%s: %s" % (type(exc).__name__, exc),
                "traceback": traceback.format_exc()[-4000:]})
    with os.fdopen(out_fd, "w") as out:
        out.write(json.dumps(common.clean(doc)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
