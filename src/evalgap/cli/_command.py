"""The command and group classes of the CLI: an error remembers the command it came from.

A library error names a Python parameter (``InputError.param`` and the fields of its
message); ``main`` shows the flag of the *invoked* command's parameter of that name. The
context records the command on the error as it passes, so no message is ever rewritten.
"""

from __future__ import annotations

import functools

import click

from evalgap.errors import InputError


class BadInput(click.ClickException):
    """An InputError as the invoked command shows it: one line naming its flags, exit code 2."""

    exit_code = 2

    def __init__(self, error: InputError, command: click.Command | None) -> None:
        super().__init__(error.render(flag_finder(command)))
        self.error = error

    def show(self, file=None) -> None:
        from evalgap.report.text import clean

        click.echo(f"evalgap: error: {clean(self.message)}", err=True)


class Context(click.Context):
    """A context that turns an InputError into a BadInput naming the innermost command's
    flags (so ``main`` and click's own runner, ``CliRunner``, print the same line)."""

    def invoke(self, callback, /, *args, **kwargs):
        try:
            return super().invoke(callback, *args, **kwargs)
        except InputError as exc:
            raise BadInput(exc, self.command) from exc


class _ParsesOptions:
    """An InputError raised while an option's value is read (an output file, a figure's
    format) names this command's flag, as one raised by the job does."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)  # type: ignore[misc]
        except InputError as exc:
            raise BadInput(exc, self) from exc  # type: ignore[arg-type]


class Command(_ParsesOptions, click.Command):
    context_class = Context


class Group(_ParsesOptions, click.Group):
    context_class = Context
    command_class = Command


Group.group_class = Group

command = functools.partial(click.command, cls=Command)
group = functools.partial(click.group, cls=Group)


def flag_finder(command: click.Command | None):
    """Return ``flag_of(name)``: the command's own option named ``name`` as (flag, is_switch).

    The first long flag of the option whose Python name is ``name`` (``--pair`` for
    ``pairs``); None when the command has no such option, so the message keeps the keyword.
    """
    params = {p.name: p for p in (command.params if command is not None else ())}

    def flag_of(name: str):
        param = params.get(name)
        if not isinstance(param, click.Option):
            return None
        long = [o for o in param.opts if o.startswith("--")] or list(param.opts)
        return long[0], bool(param.is_flag)

    return flag_of
