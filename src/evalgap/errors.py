"""Exception types for user mistakes.

Every mistake a user can make (a bad option, a malformed file, an impossible correlation)
raises one of these with a one-line message that names the argument, file or row and says
what to do. The command line catches them once (``evalgap.cli``) and prints the message as
one line with exit code 2.

A message about a parameter names it the way the caller wrote it: ``delta=0.5`` from Python,
``--delta 0.5`` from the command line. The library writes the parameter as a field of the
message (``InputError("{delta} exceeds {flip_rate}", param="delta", delta=0.5,
flip_rate=0.3)``); ``str(error)`` is the Python form, and the command line asks
:meth:`InputError.render` for the form with its own flags.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

# How the command line spells a parameter: its flag and whether it is an on/off switch;
# None when the invoked command has no option of that name (the keyword is shown instead).
FlagOf = Callable[[str], "tuple[str, bool] | None"]


class InputError(ValueError):
    """Bad input: an argument out of range, a malformed file, data that cannot be paired.

    Parameters
    ----------
    message : str
        The message. With ``param`` or ``values`` it is a template: each ``{name}`` field
        is a parameter, shown as ``name=`` (``name=0.5`` when ``values`` holds its value;
        ``{name!n}`` shows the name alone) from Python and as the command's flag
        (``--name``, ``--name 0.5``) on the command line; a format spec applies to the
        value (``{horizon_factor:g}``); ``{alpha!b}`` is the bare name leading a sentence
        (``alpha must be``, ``--alpha must be``); ``{by=task}`` writes a value in (``by='task'``,
        ``--by task``; an UPPER-case placeholder stays unquoted); ``{name!r}`` and
        ``{name!s}`` show a value of ``values`` alone, as ``str.format`` does; literal braces
        are doubled. A template that names no parameter is prefixed with ``param``
        (``"pairs=: ..."``, ``"--pairs: ..."``).
    param : str, optional
        The Python parameter the message is about.
    **values
        Values of the parameters the template shows.

    Examples
    --------
    >>> e = InputError("{delta} exceeds {flip_rate}", param="delta", delta=0.5, flip_rate=0.3)
    >>> str(e), e.param
    ('delta=0.5 exceeds flip_rate=0.3', 'delta')
    >>> e.render(lambda name: ("--" + name.replace("_", "-"), False))
    '--delta 0.5 exceeds --flip-rate 0.3'
    >>> str(InputError("give two models", param="pairs"))
    'pairs=: give two models'
    """

    def __init__(self, message: str, param: str | None = None, **values: Any) -> None:
        self.template = message
        self.param = param
        self.values = values
        super().__init__(self.render())

    def render(self, flag_of: FlagOf | None = None) -> str:
        """Return the message with each parameter as a keyword, or as ``flag_of`` spells it.

        Parameters
        ----------
        flag_of : callable, optional
            ``flag_of(name)`` gives ``(flag, is_switch)`` for a parameter, or None to keep
            the keyword; without it every parameter is a Python keyword.

        Returns
        -------
        str
            The message.
        """
        if self.param is None and not self.values:
            return self.template
        parts, named = [], False
        for literal, field, spec, conversion in string.Formatter().parse(self.template):
            parts.append(literal)
            if field is None:
                continue
            if "=" in field:  # {name=word}: the parameter with this value written in
                name, word = field.split("=", 1)
                parts.append(_name(name, _Word(word), True, spec or "", flag_of))
                named = True
                continue
            value = self.values.get(field)
            if conversion in ("r", "s"):  # a value shown as it is, not a parameter
                parts.append(format(repr(value) if conversion == "r" else str(value), spec or ""))
                continue
            named = True
            if conversion == "b":  # the name leading a sentence: "alpha must be ..."
                flag = flag_of(field) if flag_of is not None else None
                parts.append(field if flag is None else flag[0])
                continue
            shown = field in self.values and conversion != "n"
            parts.append(_name(field, value, shown, spec or "", flag_of))
        text = "".join(parts)
        if not named and self.param is not None:
            text = f"{_name(self.param, None, False, '', flag_of)}: {text}"
        return text


class _Word(str):
    """A value written into a template (``{by=task}``); a number or an UPPER-case placeholder
    is shown unquoted."""

    def __repr__(self) -> str:
        text = "".join(self)  # a plain str: float() of this one would repr it in its error
        try:
            float(text)
        except ValueError:
            return text if text.isupper() else repr(text)
        return text


def _name(name: str, value: Any, shown: bool, spec: str, flag_of: FlagOf | None) -> str:
    """One parameter as a Python keyword (``name=value``) or as a flag (``--name value``)."""
    flag = flag_of(name) if flag_of is not None else None
    if flag is None:
        if not shown:
            return f"{name}="
        return f"{name}={format(value, spec) if spec else repr(value)}"
    option, is_switch = flag
    if not shown or (is_switch and value is True):
        return option
    if isinstance(value, (tuple, list)):
        return " ".join([option, *(format(v, spec) for v in value)])
    return f"{option} {format(value, spec)}"


def escape(text: str) -> str:
    """``text`` as literal text of a template (its braces doubled)."""
    return str(text).replace("{", "{{").replace("}", "}}")


def named(name: str) -> str:
    """The template field of the parameter ``name`` as it leads a message.

    ``"alpha"`` gives ``{alpha!b}`` (``alpha must be`` / ``--alpha must be``); ``"alpha="``
    gives ``{alpha}`` (``alpha=`` / ``--alpha``); a name that is no identifier (``"the
    counts"``) stays text.
    """
    bare = name[:-1] if name.endswith("=") else name
    if not bare.isidentifier():
        return escape(name)
    return "{" + bare + ("}" if name.endswith("=") else "!b}")


def param_of(name: str) -> str | None:
    """The parameter ``name`` (as :func:`named` takes it) names, or None."""
    bare = name[:-1] if name.endswith("=") else name
    return bare if bare.isidentifier() else None


def fields(*names: str) -> str:
    """The template fields naming these parameters, comma-separated (``"{a}, {b}"``)."""
    return ", ".join("{" + name + "}" for name in names)


def first_line(exc: BaseException) -> str:
    """Return the first line of an exception's message, or its type name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
