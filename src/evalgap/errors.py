"""Exception types for user mistakes.

Every mistake a user can make (a bad option, a malformed file, an impossible correlation)
raises one of these with a one-line message that names the argument, file or row and says
what to do. ``cli.py`` catches them once and prints the message with exit code 2.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: an argument out of range, a malformed file, data that cannot be paired."""


def first_line(exc: BaseException) -> str:
    """Return the first line of an exception's message, or its type name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
