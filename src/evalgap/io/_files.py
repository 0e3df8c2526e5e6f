"""Finding a source's files under the paths a user gave."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeAlias

from evalgap.errors import InputError, escape, named, param_of

# A file or directory argument, and one or several of them (what every loader takes).
PathArg: TypeAlias = str | os.PathLike[str]
PathsArg: TypeAlias = PathArg | Iterable[PathArg]


def as_paths(paths: object, *, param: str = "paths") -> list[Path]:
    """Return ``paths`` (one path, or a list of them) as a list of Paths, or raise naming
    ``param=`` when one is not a path (None, a number, bytes) or is empty."""
    import os

    items = [paths] if isinstance(paths, (str, os.PathLike)) else paths
    if isinstance(items, (bytes, dict)) or not hasattr(items, "__iter__"):
        raise InputError(
            named(f"{param}=")
            + escape(f": expected a path or a list of paths, got {type(paths).__name__}"),
            param=param_of(f"{param}="),
        )
    out = []
    for p in list(items):
        if not isinstance(p, (str, os.PathLike)):
            raise InputError(
                named(f"{param}=")
                + escape(f": every path must be a string or a Path, got {type(p).__name__}"),
                param=param_of(f"{param}="),
            )
        if not str(p).strip():
            raise InputError(
                named(f"{param}=") + ": an empty path; give a file or folder",
                param=param_of(f"{param}="),
            )
        out.append(Path(p))
    if not out:
        raise InputError(named(f"{param}=") + ": no path given", param=param_of(f"{param}="))
    return out


def expand(
    paths: Iterable[Path],
    *,
    globs: tuple[str, ...],
    what: str,
    hint: str = "",
    accept: Callable[[Path], bool] = lambda p: True,
) -> Iterator[Path]:
    """Yield each file path as given and, for a directory, every accepted file under it.

    Raises ``InputError`` naming the path when it does not exist, or when a directory holds
    no file matching ``globs`` that ``accept`` takes (``what`` says what was looked for,
    ``hint`` what to do about it).
    """
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        if path.is_file():
            yield path
            continue
        found = sorted({p for g in globs for p in path.rglob(g) if p.is_file() and accept(p)})
        if not found:
            raise InputError(
                f"{path}: no {what} found under this directory" + (f"; {hint}" if hint else "")
            )
        yield from found
