"""The command and group classes of the CLI: an error remembers the command it came from.

A library error names a Python parameter (``InputError.param`` and the fields of its
message); ``main`` shows the flag of the *invoked* command's parameter of that name. The
context records the command on the error as it passes, so no message is ever rewritten.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import IO, Any, TypeVar

import click

from evalgap.errors import FlagOf, InputError

# The context's record of the output given as '-' (its parameter's name), if any.
STDOUT_OUTPUT = "evalgap.stdout_output"


class BadInput(click.ClickException):
    """An InputError as the invoked command shows it: one line naming its flags, exit code 2."""

    exit_code = 2

    def __init__(self, error: InputError, command: click.Command | None) -> None:
        super().__init__(error.render(flag_finder(command)))
        self.error = error

    def show(self, file: IO[Any] | None = None) -> None:
        from evalgap.report.text import clean

        click.echo(f"evalgap: error: {clean(self.message)}", err=True)


class Context(click.Context):
    """A context that turns an InputError into a BadInput naming the innermost command's
    flags (so ``main`` and click's own runner, ``CliRunner``, print the same line)."""

    def invoke(
        self, callback: click.Command | Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> Any:
        try:
            return super().invoke(callback, *args, **kwargs)
        except InputError as exc:
            raise BadInput(exc, self.command) from exc


class _ParsesOptions(click.Command):
    """An InputError raised while an option's value is read (an output file, a figure's
    format) names this command's flag, as one raised by the job does.

    A flag renamed in this release is read through ``renamed_flags`` (old -> new: read as the
    new flag, with a deprecation line on stderr) or refused through ``refused_flags`` (old ->
    the one-line reason naming the new flag, where the old spelling would be ambiguous); see
    :func:`renamed`. Neither appears in ``--help``.
    """

    renamed_flags: Mapping[str, str] = {}
    refused_flags: Mapping[str, str] = {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from evalgap.io._write import claim_stdout, refuse_clobbering

        args = self._rename(ctx, args)
        try:
            rest = super().parse_args(ctx, args)
            # an output named like an input (or another output) would replace it
            outputs: dict[str, object] = {}
            inputs: dict[str, object] = {}
            for p in self.params:  # options (STORE, an argument, has its own check)
                if (
                    isinstance(p, click.Option)
                    and isinstance(p.type, click.Path)
                    and ctx.params.get(p.name or "")
                ):
                    side = outputs if getattr(p.type, "writes", False) else inputs
                    side[p.name or ""] = ctx.params[p.name or ""]
            refuse_clobbering(outputs, inputs)
            # '-': the one output that replaces the report on standard output (cli._render)
            ctx.meta[STDOUT_OUTPUT] = claim_stdout(outputs, json=bool(ctx.params.get("json")))
            return rest
        except InputError as exc:
            raise BadInput(exc, self) from exc

    def _rename(self, ctx: click.Context, args: list[str]) -> list[str]:
        """``args`` with each old spelling of a renamed flag as its new one."""
        if not (self.renamed_flags or self.refused_flags):
            return args
        out: list[str] = []
        for k, arg in enumerate(args):
            if arg == "--":  # what follows is an argument, never a flag
                return out + args[k:]
            flag, eq, value = arg.partition("=")
            if flag in self.refused_flags:
                raise click.UsageError(self.refused_flags[flag], ctx)
            if flag in self.renamed_flags:
                new = self.renamed_flags[flag]
                if not ctx.resilient_parsing:
                    click.echo(
                        f"evalgap: warning: {flag} is now {new}; the old spelling will be "
                        "removed in a later release",
                        err=True,
                    )
                arg = new + eq + value
            out.append(arg)
        return out


_C = TypeVar("_C", bound=click.Command)


def renamed(
    kept: Mapping[str, str] | None = None, refused: Mapping[str, str] | None = None
) -> Callable[[_C], _C]:
    """Mark a command's flags renamed in this release (apply above the command decorator).

    ``kept`` maps an old spelling to its new flag: still read for one release, with a
    deprecation line on stderr. ``refused`` maps an old spelling to a one-line message naming
    the new flag, for an old spelling that would be ambiguous (it means something else in
    other commands and takes the same values). Neither is listed by ``--help``.
    """

    def mark(command: _C) -> _C:
        command.renamed_flags = dict(kept or {})  # type: ignore[attr-defined]
        command.refused_flags = dict(refused or {})  # type: ignore[attr-defined]
        return command

    return mark


class Command(_ParsesOptions, click.Command):
    context_class = Context


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's commands, each imported from its module when first looked up.

    ``table`` maps a command's name to (module, function, the first paragraph of its
    docstring); listing the names, or their short helps, imports nothing. A command added
    with ``add_command`` is held as it is.
    """

    def __init__(self, table: Mapping[str, tuple[str, str, str]]) -> None:
        self.table = dict(table)
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded:
            if name not in self.table:
                raise KeyError(name)
            module, function, _ = self.table[name]
            self.loaded[name] = getattr(importlib.import_module(module), function)
        return self.loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        self.loaded.pop(name, None)
        self.table.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self.table, *self.loaded]))

    def __len__(self) -> int:
        return len(set(self.table) | set(self.loaded))

    def short_help(self, name: str, limit: int) -> str:
        """The command's line in its group's ``--help``, as click shortens it, unimported."""
        if name in self.loaded or name not in self.table:
            return self[name].get_short_help_str(limit)
        # a stand-in command shortens the text as click's own listing does
        return click.Command(name, help=self.table[name][2]).get_short_help_str(limit)


class Group(_ParsesOptions, click.Group):
    context_class = Context
    command_class = Command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands with their short helps (a lazy group's from its table)."""
        commands = self.commands
        if not isinstance(commands, LazyCommands):
            return super().format_commands(ctx, formatter)
        names = self.list_commands(ctx)
        if not names:
            return None
        limit = formatter.width - 6 - max(map(len, names))
        with formatter.section("Commands"):
            formatter.write_dl([(name, commands.short_help(name, limit)) for name in names])
        return None


Group.group_class = Group


def command(name: str | None = None, **attrs: Any) -> Callable[[Callable[..., Any]], Command]:
    """``click.command`` making one of these commands."""
    return click.command(name, cls=Command, **attrs)


def group(name: str | None = None, **attrs: Any) -> Callable[[Callable[..., Any]], Group]:
    """``click.group`` making one of these groups (its subcommands are these commands)."""
    return click.group(name, cls=Group, **attrs)


def flag_finder(command: click.Command | None) -> FlagOf:
    """Return ``flag_of(name)``: the command's own option named ``name`` as (flag, is_switch).

    The first long flag of the option whose Python name is ``name`` (``--pair`` for
    ``pairs``); None when the command has no such option, so the message keeps the keyword.
    """
    params = {p.name: p for p in (command.params if command is not None else ())}

    def flag_of(name: str) -> tuple[str, bool] | None:
        param = params.get(name)
        if not isinstance(param, click.Option):
            return None
        long = [o for o in param.opts if o.startswith("--")] or list(param.opts)
        return long[0], bool(param.is_flag)

    return flag_of
