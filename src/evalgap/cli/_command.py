"""The command and group classes of the CLI: an error remembers the command it came from.

A library error names a Python parameter (``InputError.param`` and the fields of its
message); ``main`` shows the flag of the *invoked* command's parameter of that name. The
context records the command on the error as it passes, so no message is ever rewritten.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

import click

from evalgap.errors import FlagOf, InputError


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
    format) names this command's flag, as one raised by the job does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        from evalgap.io._write import refuse_clobbering

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
            return rest
        except InputError as exc:
            raise BadInput(exc, self) from exc


class Command(_ParsesOptions, click.Command):
    context_class = Context


class Group(_ParsesOptions, click.Group):
    context_class = Context
    command_class = Command


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
