"""Command-line entry point: parse options, call the layers, pick the renderer.

Subcommands live in gpudoctor/commands/<name>.py and are imported only when
used, so `gpudoctor check` does not pay for `plan` or `smoke`.
"""

from __future__ import annotations

import importlib
import sys

import click

from gpudoctor import __version__
from gpudoctor.exits import guarded, stop_children
from gpudoctor.findings import ExitCode

# name -> (module, attribute, one-line help shown by --help without importing it)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("gpudoctor.commands.check", "check", "Judge this environment: driver, CUDA, cuDNN, frameworks, GPUs."),
    "snapshot": ("gpudoctor.commands.check", "snapshot", "Print the probed facts as JSON (replay with check --from)."),
    "rules": ("gpudoctor.commands.rules", "rules", "List every finding code gpudoctor can report."),
    "explain": ("gpudoctor.commands.explain", "explain", "Explain a finding code or an error message."),
    "matrix": ("gpudoctor.commands.matrix", "matrix", "Query the compatibility matrices."),
    "install": ("gpudoctor.commands.install", "install", "Exact install commands that work on this machine."),
    "smoke": ("gpudoctor.commands.smoke", "smoke", "Run seconds-long GPU kernels that prove each precision path."),
    "diagnose": ("gpudoctor.commands.diagnose", "diagnose", "Judge a pasted environment report or error."),
    "report": ("gpudoctor.commands.report", "report", "A markdown report worth pasting into an issue."),
    "plan": ("gpudoctor.commands.plan", "plan", "Which GPU a training job needs, how long, what it costs."),
    "lint": ("gpudoctor.commands.lint", "lint", "Judge requirements, lockfiles, environment files and Dockerfiles."),
    "requires": ("gpudoctor.commands.requires", "requires", "What a host needs to run an environment, lockfile or image."),
    "fleet": ("gpudoctor.commands.fleet", "fleet", "Collect a report per node (Slurm) and merge them: drift, groups."),
}


class InputError(click.ClickException):
    """Bad user input (a file, an interpreter, a value): one line, exit 2, no usage dump."""

    exit_code = ExitCode.USAGE

    def show(self, file=None) -> None:
        click.echo(f"gpudoctor: error: {self.format_message()}", err=True)


def show_error(exc: click.ClickException) -> int:
    """Every usage or input error as one line, "gpudoctor: error: ...", never
    click's three-line usage block or its "Error: ..." (one style everywhere).
    Returns the exit code: 2 for usage errors."""
    if isinstance(exc, InputError):
        exc.show()
        return ExitCode.USAGE
    hint = ""
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        hint = f"; see '{ctx.command_path} --help'"
    message = exc.format_message().rstrip(".") if hint else exc.format_message()
    click.echo(f"gpudoctor: error: {message}{hint}", err=True)
    return ExitCode.USAGE if exc.exit_code == 2 else exc.exit_code


DEBUG_HELP = "On an internal error, print the traceback (for a bug report)."


def _with_debug(cmd: click.Command) -> click.Command:
    """Every command takes --debug. Commands that pass it on (check, diagnose,
    install: rule crashes re-raised) declare it; the others get it here, and
    main() reads it from the command line."""
    if isinstance(cmd, click.Group):  # `matrix cuda 12.8 --debug`
        for sub in cmd.commands.values():
            _with_debug(sub)
    existing = next((p for p in cmd.params if p.name == "debug"), None)
    if existing is None:
        cmd.params.append(click.Option(["--debug"], is_flag=True, expose_value=False, help=DEBUG_HELP))
    else:
        existing.hidden = False
        existing.help = existing.help or DEBUG_HELP
    return cmd


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr, _ = entry
        return _with_debug(getattr(importlib.import_module(module_name), attr))

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Standalone runs (the console script through main(), and tests through
        CliRunner) show click's errors in the one-line style of show_error."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            sys.exit(show_error(exc))
        except click.exceptions.Abort:
            stop_children()
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        sys.exit(int(rv) if isinstance(rv, int) else 0)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gpudoctor")
def cli() -> None:
    """gpudoctor: will your framework really use these GPUs? Verdicts, evidence, exact fixes.

    Exit codes: 0 no error findings, 1 error findings (--strict: warnings too),
    2 usage or input error, 3 internal error.
    """


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    sys.exit(guarded(lambda: cli.main(args=args, prog_name="gpudoctor", standalone_mode=False), "--debug" in args))
