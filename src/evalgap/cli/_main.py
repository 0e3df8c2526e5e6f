"""The ``evalgap`` group and ``main``: the one place an InputError becomes one line, exit 2."""

from __future__ import annotations

import sys

import click

from evalgap import __version__
from evalgap.cli.audit import audit
from evalgap.cli.compare import compare
from evalgap.cli.degrade import degrade, trim
from evalgap.cli.inspect_data import inspect_data_command
from evalgap.cli.plan import plan
from evalgap.cli.ranks import ranks
from evalgap.cli.simulate import simulate
from evalgap.cli.store import store
from evalgap.cli.watch import watch
from evalgap.errors import InputError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="evalgap")
@click.option(
    "--width",
    type=click.IntRange(min=20),
    help="Width of terminal reports in characters (default: the terminal's width; "
    "unbounded when output is not a terminal).",
)
@click.pass_context
def cli(ctx, width):
    """evalgap: is a gap between two models real, and could this benchmark have shown it?

    Paired tests, required sample sizes (N*), minimum detectable effects and the resolution
    ratio q = N/N* for LLM evaluations scored on shared items.
    """
    ctx.ensure_object(dict)["width"] = width


for command in (
    audit,
    compare,
    degrade,
    inspect_data_command,
    plan,
    ranks,
    simulate,
    store,
    trim,
    watch,
):
    cli.add_command(command)

# Python keywords of the jobs and loaders whose flag is not the click parameter of the same
# name; every other ``name=`` is looked up in the commands' own options.
PYTHON_NAME_FLAGS = {
    "paths": "--scores",
    "horizon_factor": "--horizon",
    "chain_procedure": "--procedure",
    "output": "--output",
    "n_trials": "--trials",
    "n_experiments": "--experiments",
    "n_simulations": "--simulations",
    "n_models": "--models",
}

# ``name=`` starting a word, then a quoted value, a pair of quoted values, a number, an
# UPPER-case placeholder, True, or nothing (the parameter itself).
PYTHON_NAME_PATTERN = (
    r"(?<![\w'\"./=\\-])(?P<name>[a-z][a-z0-9_]*)="
    r"(?:'(?P<quoted>[^'\s]*)'"
    r"|\((?P<pair>'[^'\s]*'(?:, '[^'\s]*')+)\)"
    r"|(?P<word>True|[-+]?\d[\d.eE+-]*|[-+]?(?:inf|nan)|[A-Z][A-Z_]*(?:=[A-Z][A-Z_]*)?)"
    r"(?=[\s,;:)\]]|\.(?:\s|$)|$)"
    r"|(?=[\s,;:)\]]|\.(?:\s|$)|$))"
)


def flags_for_python_names(message: str, argv=None) -> str:
    """Return an error message with each Python keyword (``model_column=``) as its CLI flag.

    Jobs and loaders name the Python parameter a user passed (``model_column=``,
    ``delta=0.5``, ``on_error='skip'``, ``strict=True``); on the command line the same
    parameter is a flag (``--model-column``, ``--delta 0.5``, ``--on-error skip``,
    ``--strict``). Flags come from the invoked command's click options (``param.name ->
    param.opts[0]``), then ``PYTHON_NAME_FLAGS`` (the loaders' keywords), then every other
    command's; a name that is no parameter is left as written.
    """
    import re

    chain: list[click.Command] = [cli]
    for word in sys.argv[1:] if argv is None else argv:
        if isinstance(chain[-1], click.Group) and word in chain[-1].commands:
            chain.append(chain[-1].commands[word])
    everything, pending = [], [cli]
    while pending:
        command = pending.pop()
        everything.append(command)
        if isinstance(command, click.Group):
            pending.extend(command.commands.values())
    flags: dict[str, tuple[str, bool]] = {}

    def add(commands) -> None:
        for command in commands:
            for param in command.params:
                if isinstance(param, click.Option) and param.name:
                    flags.setdefault(param.name, (param.opts[0], bool(param.is_flag)))

    add(reversed(chain))  # the invoked command's options win, then the library's own names
    for name, flag in PYTHON_NAME_FLAGS.items():
        flags.setdefault(name, (flag, False))
    add(everything)

    def to_flag(match: re.Match) -> str:
        if match["name"] not in flags:
            return match[0]
        flag, is_flag = flags[match["name"]]
        if match["quoted"] is not None:
            return f"{flag} {match['quoted']}"
        if match["pair"] is not None:
            return " ".join([flag, *(v.strip("'") for v in match["pair"].split(", "))])
        if match["word"] is not None:
            return flag if is_flag and match["word"] == "True" else f"{flag} {match['word']}"
        return flag

    # the entry checks open with the parameter itself: "alpha must be a finite number ..."
    lead = re.match(r"(?P<name>[a-z][a-z0-9_]*)(?= must be )", message)
    if lead and lead["name"] in flags:
        message = flags[lead["name"]][0] + message[lead.end() :]
    return re.sub(PYTHON_NAME_PATTERN, to_flag, message)


def main(argv=None) -> int:
    """Run the CLI; return the exit code (0 ok, 2 bad input)."""
    try:
        code = cli.main(args=argv, prog_name="evalgap", standalone_mode=False)
        if isinstance(code, int):  # click hands back an Exit's code when not standalone
            return code
    except InputError as exc:
        from evalgap.report.text import clean

        message = flags_for_python_names(str(exc), argv)
        click.echo(f"evalgap: error: {clean(message)}", err=True)
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
