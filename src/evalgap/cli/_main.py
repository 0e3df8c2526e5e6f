"""The ``evalgap`` group and ``main``: the one place an InputError becomes one line, exit 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from evalgap import __version__
from evalgap.cli._command import BadInput, group
from evalgap.cli.adaptive import adaptive
from evalgap.cli.audit import audit
from evalgap.cli.card import card
from evalgap.cli.compare import compare
from evalgap.cli.configurations import configurations
from evalgap.cli.degrade import degrade, trim
from evalgap.cli.estimate import estimate
from evalgap.cli.fragility import fragility
from evalgap.cli.inspect_data import inspect_data_command
from evalgap.cli.plan import plan
from evalgap.cli.ranks import ranks
from evalgap.cli.simulate import simulate
from evalgap.cli.store import store
from evalgap.cli.watch import watch
from evalgap.errors import InputError


@group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="evalgap")
@click.option(
    "--width",
    type=click.IntRange(min=20),
    help="Width of terminal reports in characters (default: the terminal's width; "
    "unbounded when output is not a terminal).",
)
@click.pass_context
def cli(ctx: click.Context, width: int | None) -> None:
    """evalgap: is a gap between two models real, and could this benchmark have shown it?

    Paired tests, required sample sizes (N*), minimum detectable effects and the resolution
    ratio q = N/N* for LLM evaluations scored on shared items.
    """
    ctx.ensure_object(dict)["width"] = width


for command in (
    adaptive,
    audit,
    card,
    compare,
    configurations,
    degrade,
    estimate,
    fragility,
    inspect_data_command,
    plan,
    ranks,
    simulate,
    store,
    trim,
    watch,
):
    cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (0 ok, 2 bad input)."""
    try:
        code = cli.main(args=argv, prog_name="evalgap", standalone_mode=False)
        if isinstance(code, int):  # click hands back an Exit's code when not standalone
            return code
    except BadInput as exc:
        exc.show()
        return exc.exit_code
    except InputError as exc:  # raised while reading an option (a file to write, say)
        BadInput(exc, None).show()
        return 2
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare 'evalgap' (click >= 8.2)
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            return 0
        # The command path names a subcommand's group too ('evalgap simulate sequential');
        # the top-level group is 'evalgap' itself, whatever its function is called.
        path = exc.ctx.command_path if exc.ctx is not None else "evalgap"
        from evalgap.report.text import clean

        click.echo(
            f"evalgap: error: {clean(exc.format_message().rstrip('.'))} (see '{path} --help')",
            err=True,
        )
        return 2
    except click.Abort:
        click.echo("evalgap: aborted", err=True)
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
