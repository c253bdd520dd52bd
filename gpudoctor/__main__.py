"""`python -m gpudoctor` and the `gpudoctor` console script.

The common `check` command lines run without click (commands/check_run.py
recognises them exactly as click would parse them): the verdict should take
little more than the interpreter's own start. Every other command line goes
to the click CLI, gpudoctor.cli.main.

Once the verdict is written, tearing the interpreter down (every module and
object freed, one by one) only delays the exit by about a tenth of the run:
flush what was printed and leave. In-process callers (tests, CliRunner) use
gpudoctor.cli.main, which returns through SystemExit as usual.
"""

from __future__ import annotations

import gc
import os
import sys


# Set by a shell asking click for completions: click answers, whatever the arguments.
COMPLETE_VAR = "_GPUDOCTOR_COMPLETE"


def run() -> None:
    # Importing gpudoctor triggers some thirty garbage collections (~3 ms of a 60 ms
    # check) that find nothing to free; a check allocates a few MB and ends below
    # with os._exit. Every other command gets the collector back before it starts.
    gc.disable()
    from gpudoctor.commands.check_run import fast_options

    options = None if COMPLETE_VAR in os.environ else fast_options(sys.argv[1:])
    try:
        if options is None:
            gc.enable()
            from gpudoctor.cli import main

            main()
            code: object = 0
        else:
            from gpudoctor.commands.check_run import run_fast
            from gpudoctor.exits import guarded

            code = guarded(lambda: run_fast(options), options["debug"])
    except SystemExit as exc:
        code = exc.code
    if isinstance(code, int):
        status = code
    elif code is None:
        status = 0
    else:  # sys.exit("message"): printed, exit 1, as the interpreter would
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a reader that went away (| head) must not turn the verdict's exit code into a crash
    os._exit(status)


if __name__ == "__main__":
    run()
