"""Finding a source's files under the paths a user gave."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from evalgap.errors import InputError


def expand(
    paths,
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
