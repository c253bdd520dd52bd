"""Command-line entry point: parse options, call the layers, pick the renderer.

Subcommands live in gpudoctor/commands/<name>.py and are imported only when
used, so `gpudoctor check` does not pay for `plan` or `smoke`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from gpudoctor import __version__
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


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (mod, _, _) in COMMANDS.items() if importlib.util.find_spec(mod)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr, _ = entry
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        return getattr(module, attr)

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
    try:
        rc = cli.main(args=argv, prog_name="gpudoctor", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.USAGE if exc.exit_code == 2 else exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # noqa: BLE001 - last line of defence: no tracebacks for users
        if "--debug" in (argv or sys.argv):
            raise
        click.echo(f"gpudoctor: internal error: {type(exc).__name__}: {exc}", err=True)
        click.echo("This is a bug in gpudoctor; rerun with --debug for the traceback.", err=True)
        sys.exit(ExitCode.INTERNAL)
    sys.exit(int(rc) if isinstance(rc, int) else 0)
