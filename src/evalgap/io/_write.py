"""Writing files the user asked for: whole or not at all, and CSVs a spreadsheet cannot run.

* :func:`atomic_write` writes to a temporary file beside the target and renames it over the
  target only when writing succeeded, so a failure (a full disk, an exception while
  rendering) leaves no partial file and keeps any previous one.
* :func:`write_csv` is the one CSV writer of the tool. A text cell that starts with ``=``,
  ``+``, ``-``, ``@``, a tab or a carriage return is a formula to a spreadsheet (CSV formula
  injection: a model name or item id such as ``=HYPERLINK(...)`` would run when the file is
  opened), so it is written with a leading ``'``, which spreadsheets show as text.
  **Numbers are data, not formulas**: a numeric column is written as numbers, and a text cell
  that is a plain decimal number (``-0.5``, ``+3``, ``-1e-3``) is left as it is, so negative
  values survive a round trip. ``-inf`` or ``-1+2`` are not plain numbers and are escaped.
  :func:`unescape_cell` removes the prefix again when evalgap reads its own output back.
  Rows end in ``\r\n`` (RFC 4180), so a cell holding a carriage return, a newline, a comma
  or a quote is quoted: the csv module quotes the characters of its line terminator, and
  with a bare ``\n`` terminator a ``\r`` in a cell went out unquoted, which readers take as
  a row break (splitting the row and putting the rest of the cell, unescaped, at the start
  of a row).
"""

from __future__ import annotations

import csv
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from pandas.api import types as ptypes

from evalgap.errors import InputError

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def escape_cell(value):
    """Return a text cell prefixed with ``'`` when a spreadsheet would evaluate it."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    if _PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


def unescape_cell(value):
    """Undo :func:`escape_cell`: drop a ``'`` that precedes a formula character."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def atomic_write(
    path, write: Callable, *, option: str, mode: str = "w", what: str = "the file"
) -> None:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it to ``path``.

    ``option`` names the flag the path came from (``--output``) and ``what`` the thing
    written ("the report") in the error message. The
    temporary file is created with the usual permissions (0666 less the umask) and removed
    when anything fails.
    """
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{option} {target}: is a directory; give a file name")
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        kwargs = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kwargs) as handle:
            write(handle)
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        reason = exc.strerror or (exc.args[0] if exc.args else "") or type(exc).__name__
        raise InputError(f"{option} {target}: cannot write {what} ({reason})") from None
    except BaseException:
        _remove(temporary)
        raise


def write_csv(frame: pd.DataFrame, path, *, option: str = "--output") -> None:
    """Write ``frame`` (no index) as CSV with formula-like text cells escaped, atomically."""
    safe = frame.copy()
    for column in safe.columns:
        values = safe[column]
        if not (ptypes.is_numeric_dtype(values) or ptypes.is_bool_dtype(values)):
            safe[column] = values.map(escape_cell, na_action="ignore")
    safe.columns = [escape_cell(str(c)) for c in safe.columns]
    atomic_write(
        path,
        lambda handle: safe.to_csv(
            handle, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL
        ),
        option=option,
    )


def write_table(frame: pd.DataFrame, path, *, option: str = "--output") -> None:
    """Write ``frame`` as Parquet (a ``.parquet`` path) or else as CSV, atomically.

    Parquet keeps the column types (nullable verdicts stay nullable booleans) and is the
    format for hundreds of thousands of rows; CSV is escaped as by :func:`write_csv`.
    """
    if Path(path).suffix.lower() != ".parquet":
        write_csv(frame, path, option=option)
        return
    atomic_write(
        path,
        lambda handle: frame.to_parquet(handle, index=False),
        option=option,
        mode="wb",
        what="the table",
    )


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
