"""How a run ends: the one mapping from errors, Ctrl-C and SIGTERM to exit codes
and one-line messages, shared by the click CLI (gpudoctor.cli.main) and the
click-free path of `check` (gpudoctor/__main__.py). Importing it imports no click:
click's exceptions are recognised when click is loaded, and only it raises them.
"""

from __future__ import annotations

import codecs
import signal
import sys
from collections.abc import Callable

from gpudoctor.findings import ExitCode


class Terminated(BaseException):
    """SIGTERM arrived. A BaseException, like KeyboardInterrupt, so no
    `except Exception` swallows it on its way out, and every running child's
    process group is killed on the way (gpudoctor.child.run_child)."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated


def echo(message: str, err: bool = False, nl: bool = True) -> None:
    """click.echo(message, err=err, nl=nl) without importing click where that
    writes the same bytes: a UTF-8 stream and a message without escape sequences
    (which click strips from piped output). Anything else goes through click.echo."""
    stream = sys.stderr if err else sys.stdout
    if stream is None or "\x1b" in message or not _utf8(stream):
        import click  # noqa: PLC0415 - only where it would write differently

        click.echo(message, err=err, nl=nl)
        return
    stream.write(message + "\n" if nl else message)
    stream.flush()


def _utf8(stream) -> bool:
    try:
        return codecs.lookup(stream.encoding).name == "utf-8"
    except (AttributeError, TypeError, LookupError):
        return False


def guarded(call: Callable[[], object], debug: bool) -> int:
    """Run `call` and return its exit code: an int it returns, else 0. Errors
    and interrupts end as one line on stderr and their exit code (130 Ctrl-C,
    143 SIGTERM, 2 usage, 3 internal, with the traceback under --debug);
    SystemExit passes through."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if _main_thread() else None
    try:
        rc = call()
    except KeyboardInterrupt:
        return _aborted()
    except Terminated:
        stop_children()
        echo("Terminated.", err=True)
        return 143
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:  # noqa: BLE001 - last line of defence: no tracebacks for users
        interrupt = _interrupt_inside(exc)
        if interrupt is not None:  # a signal during an import: Python wraps it ("Error calling __set_name__")
            if isinstance(interrupt, Terminated):
                stop_children()
                echo("Terminated.", err=True)
                return 143
            return _aborted()
        click = sys.modules.get("click")
        if click is not None:  # only code that imported click raises its exceptions
            if isinstance(exc, click.exceptions.Abort):
                return _aborted()
            if isinstance(exc, click.ClickException):
                from gpudoctor.cli import show_error  # noqa: PLC0415 - click is loaded already

                return show_error(exc)
            if isinstance(exc, click.exceptions.Exit):
                return exc.exit_code
        if debug:
            import traceback  # only for a bug report

            traceback.print_exc()
        else:
            echo(f"gpudoctor: internal error: {type(exc).__name__}: {str(exc)[:300]}", err=True)
            echo("This is a bug in gpudoctor; rerun with --debug for the traceback.", err=True)
        return ExitCode.INTERNAL
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return int(rc) if isinstance(rc, int) else 0


def _interrupt_inside(exc: BaseException) -> BaseException | None:
    """The Ctrl-C or SIGTERM an error was raised from, if any: Python re-raises what a
    class body's __set_name__ raised as a RuntimeError, so a signal that lands while a
    module defines its classes arrives as that error's cause."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen and len(seen) < 20:
        if isinstance(link, (KeyboardInterrupt, Terminated)):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


def _aborted() -> int:
    stop_children()
    echo("Aborted.", err=True)
    return 130


def stop_children() -> None:
    """Interrupted wherever it was (an import, a wait): kill the process group of every
    command still running, in any thread, before leaving."""
    from gpudoctor.child import kill_running_commands

    kill_running_commands()


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
