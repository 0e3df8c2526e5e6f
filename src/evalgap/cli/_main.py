"""The ``evalgap`` group and ``main``: the one place an InputError becomes one line, exit 2.

A command's module is imported when that command runs (or its help is shown), never at start:
``evalgap compare`` does not pay for the simulation studies' or the store's modules. The
group's ``--help`` lists every command from :data:`COMMANDS` without importing any.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from evalgap import __version__
from evalgap.cli._command import BadInput, LazyCommands, group
from evalgap.errors import InputError

# name -> (module, function, the first paragraph of its docstring: the group's --help listing,
# kept equal to the docstring by tests/cli/test_lazy_commands.py).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "adaptive": (
        "evalgap.cli.adaptive",
        "adaptive",
        "Which of two models is better, with as few items as it takes? (batch by batch)",
    ),
    "audit": (
        "evalgap.cli.audit",
        "audit",
        "Which displayed rankings can this benchmark resolve? (a whole leaderboard)",
    ),
    "card": (
        "evalgap.cli.card",
        "card",
        "A leaderboard card: what each model and adjacent pair can claim (Markdown by default)",
    ),
    "compare": (
        "evalgap.cli.compare",
        "compare",
        "Test one paired gap and say whether the benchmark can resolve it.",
    ),
    "configurations": (
        "evalgap.cli.configurations",
        "configurations",
        "Is it the model or the configuration it was run under? (seed, provider, harness...)",
    ),
    "degrade": (
        "evalgap.cli.degrade",
        "degrade",
        "Has the candidate (optimized, quantized...) got significantly worse than the baseline?",
    ),
    "estimate": (
        "evalgap.cli.estimate",
        "estimate",
        "What would a model score on the whole benchmark? (from a few of its items)",
    ),
    "fragility": (
        "evalgap.cli.fragility",
        "fragility",
        "How few items would reverse each verdict? (items to flip, per pair and test)",
    ),
    "inspect-data": (
        "evalgap.cli.inspect_data",
        "inspect_data_command",
        "Show what was read: models, tasks, items, metric, scores and the alignment report.",
    ),
    "plan": (
        "evalgap.cli.plan",
        "plan",
        "How many paired items does a comparison need? (before running it)",
    ),
    "ranks": (
        "evalgap.cli.ranks",
        "ranks",
        "Which rank can each model claim? (simultaneous rank sets and tiers)",
    ),
    "simulate": (
        "evalgap.cli.simulate",
        "simulate",
        "Simulation studies: calibrate every test and check every prescription.",
    ),
    "store": (
        "evalgap.cli.store",
        "store",
        "A results store for a growing leaderboard: one DuckDB file, no server.",
    ),
    "trim": (
        "evalgap.cli.degrade",
        "trim",
        "Keep the items that flip across repeated baseline runs (Section 4.1).",
    ),
    "watch": (
        "evalgap.cli.watch",
        "watch",
        "Watch an evaluation in progress: which pairs are decided, when to stop.",
    ),
}


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


cli.commands = LazyCommands(COMMANDS)


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
