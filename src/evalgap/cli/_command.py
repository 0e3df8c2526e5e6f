"""The command and group classes of the CLI: an error remembers the command it came from.

A library error names a Python parameter (``InputError.param`` and the fields of its
message); ``main`` shows the flag of the *invoked* command's parameter of that name. The
context records the command on the error as it passes, so no message is ever rewritten.
"""

from __future__ import annotations

import functools

import click

from evalgap.errors import InputError


class Context(click.Context):
    """A context that marks an InputError with the innermost command it was raised under."""

    def invoke(self, callback, /, *args, **kwargs):
        try:
            return super().invoke(callback, *args, **kwargs)
        except InputError as exc:
            if getattr(exc, "command", None) is None:
                exc.command = self.command
            raise


class Command(click.Command):
    context_class = Context


class Group(click.Group):
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
