"""Writing files the user asked for: whole or not at all, and CSVs a spreadsheet cannot run.

* :func:`atomic_write` writes to a temporary file beside the target and renames it over the
  target only when writing succeeded, so a failure (a full disk, an exception while
  rendering) leaves no partial file and keeps any previous one.
* ``-`` is standard output (:data:`STDOUT`): a text (a report, a CSV) goes there instead of
  to a file named ``-``; an output read back or binary refuses it (:func:`check_target`),
  and :func:`claim_stdout` keeps standard output to one thing per command.
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
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap.errors import InputError, escape
from evalgap.io._files import PathArg

if TYPE_CHECKING:
    import pandas as pd
    from pandas.api import types as ptypes
else:
    pd = LazyModule("pandas")
    ptypes = LazyModule("pandas.api.types")

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
STDOUT = "-"  # the path naming standard output, as in every Unix tool
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def escape_cell(value: object) -> object:
    """Return a text cell prefixed with ``'`` when a spreadsheet would evaluate it."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    if _PLAIN_NUMBER.fullmatch(value):
        return value
    return "'" + value


def unescape_cell(value: object) -> object:
    """Undo :func:`escape_cell`: drop a ``'`` that precedes a formula character."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def is_stdout(path: object) -> bool:
    """True for ``-``, the path that names standard output."""
    return isinstance(path, str) and path == STDOUT


def check_target(path: object, *, option: str, stdout: bool = False) -> Path:
    """Return ``path`` as a Path when a file can be written there, else raise ``InputError``.

    Called before any work (a CLI option's type) and again by :func:`atomic_write`: a
    missing or unwritable folder, or a folder given as the file, is one line naming the
    option, the path and the folder, never a traceback after a long computation.
    ``option`` is the flag (``--output``) or the Python keyword (``output=``). ``-`` is
    standard output: accepted with ``stdout=True`` (a text the user reads or pipes on),
    refused otherwise (a file read back, or binary), never a file named ``-``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise _fail(option, None, f"expected a file path, got {type(path).__name__} {path!r:.40}")
    if is_stdout(path):
        if not stdout:
            raise _fail(
                option, Path(STDOUT), "writes a file, not standard output; give a file name"
            )
        return Path(STDOUT)
    target = Path(path)
    if not str(path).strip():
        raise _fail(option, None, "give a file name")
    if target.is_dir():
        raise _fail(option, target, "is a directory; give a file name")
    folder = target.parent
    if not folder.exists():
        raise _fail(
            option,
            target,
            f"the folder {folder} does not exist; create it first or give another path",
        )
    if not folder.is_dir():
        raise _fail(option, target, f"{folder} is not a folder")
    if not _is_special(target) and not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(option, target, f"the folder {folder} is not writable")
    return target


def refuse_clobbering(outputs: dict[str, Any], inputs: dict[str, Any]) -> None:
    """Refuse an output file that is also an input of the same call, or another output.

    ``outputs`` and ``inputs`` map a parameter's name to a path or a list of paths (None
    and empty are skipped). Paths are compared after resolving symbolic links, so
    ``./board.csv`` and a link to it are one file. Writing an output over an input would
    replace the user's data with the result (silently, since the write is atomic); two
    outputs on one file would leave only the last.
    """
    seen: dict[str, tuple[str, str]] = {}
    for kind, given in (("input", inputs), ("output", outputs)):
        for name, value in given.items():
            paths = value if isinstance(value, (list, tuple)) else [value]
            for path in paths:
                if path is None or not str(path).strip() or (kind == "output" and is_stdout(path)):
                    continue  # standard output is no file (two outputs there: claim_stdout)
                key = os.path.realpath(os.fspath(path))
                if kind == "output" and key in seen:
                    other, shown = seen[key]
                    raise InputError(
                        "{" + name + "}: the same file as {" + other + "}; writing there would "
                        "replace it: name another file",
                        param=name,
                        **{name: str(path), other: shown},
                    )
                seen.setdefault(key, (name, str(path)))


def claim_stdout(outputs: dict[str, Any], *, json: bool = False) -> str | None:
    """Return the name of the one output given as ``-`` (standard output), or None.

    ``outputs`` maps a parameter's name to the path it was given. Standard output carries
    one thing: two outputs on ``-``, or one with ``json`` (whose record is printed there),
    are refused naming both, so neither is silently mixed into the other.
    """
    dashed = [name for name, path in outputs.items() if is_stdout(path)]
    if len(dashed) > 1:
        first, second = dashed[:2]
        raise InputError(
            "{" + first + "} and {" + second + "} both write to standard output; give one "
            "of them a file name",
            param=first,
            **{first: STDOUT, second: STDOUT},
        )
    if dashed and json:
        raise InputError(
            "{" + dashed[0] + "} writes to standard output, where {json} prints its record; "
            "give {" + dashed[0] + "!n} a file name or leave out {json!n}",
            param=dashed[0],
            **{dashed[0]: STDOUT},
        )
    return dashed[0] if dashed else None


def atomic_write(
    path: PathArg,
    write: Callable[[IO[Any]], object],
    *,
    option: str,
    mode: str = "w",
    what: str = "the file",
    stdout: bool = True,
) -> None:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it to ``path``.

    The one writer of every output file (``--output``, ``--html``, ``--plot``, state and
    JSON files). ``option`` names the flag the path came from (``--output``, or the Python
    keyword ``output=``) and ``what`` the thing written ("the report") in the error message.
    The temporary file is created with the usual permissions (0666 less the umask), flushed
    to disk, and renamed over the target only when ``write`` returned: on any failure (a
    full disk, an exception while rendering, an interrupt) it is removed, any previous file
    stays as it was, and an ``OSError`` becomes one line naming the path. A target that
    exists and is not a regular file (``/dev/stdout``, a named pipe) is written directly.
    ``-`` writes a text to standard output (refused with ``stdout=False``, for a file that
    is read back, and for binary ``mode``).
    """
    if is_stdout(path):
        check_target(path, option=option, stdout=stdout and "b" not in mode)
        try:
            write(sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:
            raise  # the reader stopped early (| head): as for any report printed there
        except OSError as exc:
            raise _fail(option, Path(STDOUT), f"cannot write {what} ({_reason(exc)})") from None
        except UnicodeEncodeError as exc:
            raise _not_unicode(option, Path(STDOUT), what, exc) from None
        return
    target = check_target(path, option=option)
    kwargs: dict[str, Any] = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
    if _is_special(target):
        try:
            with open(target, mode, **kwargs) as handle:
                write(handle)
        except OSError as exc:
            raise _fail(option, target, f"cannot write {what} ({_reason(exc)})") from None
        except UnicodeEncodeError as exc:
            raise _not_unicode(option, target, what, exc) from None
        return
    # the name is shortened so the temporary name stays within the file system's limit
    temporary = target.with_name(f".{target.name[:120]}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, mode, **kwargs) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise _fail(option, target, f"cannot write {what} ({_reason(exc)})") from None
    except UnicodeEncodeError as exc:
        _remove(temporary)
        raise _not_unicode(option, target, what, exc) from None
    except BaseException:
        _remove(temporary)
        raise


@contextmanager
def atomic_target(path: PathArg, *, option: str, what: str = "the file") -> Iterator[Path]:
    """Yield a temporary path beside ``path``, renamed over ``path`` when the block succeeds.

    For writers that take a path rather than a handle (DuckDB's ``COPY ... TO``, pyarrow's
    ``ParquetWriter``): the same checks, messages and clean-up as :func:`atomic_write`.
    """
    target = check_target(path, option=option)
    temporary = target.with_name(f".{target.name[:120]}.{secrets.token_hex(6)}.tmp")
    try:
        yield temporary
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise _fail(option, target, f"cannot write {what} ({_reason(exc)})") from None
    except BaseException:
        _remove(temporary)
        raise


def _fail(option: str, target: Path | None, text: str) -> InputError:
    """The error of a write to ``target``: ``text`` after the path as the caller gave it
    (after the option alone when ``target`` is None: no usable path was given).

    ``option`` is the flag (``--output``), the Python keyword (``output=``: the error names
    the parameter, so a job that writes its own file says ``--output x`` when run from the
    command line and ``output='x'`` from Python), or empty (the caller names it itself).
    """
    if option.endswith("="):
        name = option[:-1]
        values = {} if target is None else {name: str(target)}
        return InputError("{" + name + "}" + escape(f": {text}"), param=name, **values)
    where = option if target is None else f"{option} {target}" if option else str(target)
    return InputError(f"{where}: {text}")


def _is_special(target: Path) -> bool:
    """True for an existing target that is not a regular file (a device, a named pipe)."""
    return target.exists() and not target.is_file() and not target.is_dir()


def _reason(exc: OSError) -> str:
    return exc.strerror or (exc.args[0] if exc.args else "") or type(exc).__name__


def _not_unicode(option: str, target: Path, what: str, exc: UnicodeEncodeError) -> InputError:
    bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
    return _fail(
        option,
        target,
        f"cannot write {what}: a name holds {bad!r}, which is not valid Unicode text (a lone "
        "surrogate); fix the name",
    )


def _format(path: PathArg, option: str, formats: tuple[str, ...]) -> str:
    """The suffix naming the format to write (``.csv``), checked against ``formats``; a
    device or pipe (``/dev/stdout``), or ``-``, takes the first. A CSV is never written under
    another format's name (``pairs.json``, ``pairs.xlsx``)."""
    if is_stdout(path):
        return formats[0]
    target = check_target(path, option=option)
    if _is_special(target):
        return formats[0]
    suffix = target.suffix.lower()
    if suffix not in formats:
        raise _fail(
            option,
            target,
            f"writes {' or '.join(formats)} files; name the file {target.stem or 'out'}"
            f"{formats[0]}",
        )
    return suffix


def write_csv(frame: pd.DataFrame, path: PathArg, *, option: str = "--output") -> None:
    """Write ``frame`` (no index) as CSV with formula-like text cells escaped, atomically."""
    _format(path, option, (".csv",))
    safe = frame.copy()
    try:
        for column in safe.columns:
            values = safe[column]
            if not (ptypes.is_numeric_dtype(values) or ptypes.is_bool_dtype(values)):
                safe[column] = values.map(escape_cell, na_action="ignore")
    except UnicodeEncodeError as exc:  # pandas stores text as UTF-8 (Arrow)
        raise _not_unicode(option, Path(path), "the file", exc) from None
    safe.columns = [escape_cell(str(c)) for c in safe.columns]
    atomic_write(
        path,
        lambda handle: safe.to_csv(
            handle, index=False, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL
        ),
        option=option,
    )


def write_table(frame: pd.DataFrame | Any, path: PathArg, *, option: str = "--output") -> None:
    """Write ``frame`` (a DataFrame, or a ``pyarrow.Table`` with pandas metadata) as Parquet
    (a ``.parquet`` path) or else as CSV, atomically.

    Parquet keeps the column types (nullable verdicts stay nullable booleans) and is the
    format for hundreds of thousands of rows; an Arrow table is written from its buffers,
    with no DataFrame between. Text columns are dictionary-encoded, numbers plainly (their
    half a million distinct values fill no dictionary; trying cost a third of the write).
    CSV is escaped as by :func:`write_csv`.
    """
    import pyarrow as pa

    if _format(path, option, (".csv", ".parquet")) == ".csv":
        write_csv(frame.to_pandas() if isinstance(frame, pa.Table) else frame, path, option=option)
        return
    table = (
        frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
    )
    text = [
        field.name
        for field in table.schema
        if pa.types.is_string(field.type)
        or pa.types.is_large_string(field.type)
        or pa.types.is_dictionary(field.type)
    ]

    def write(handle: IO[Any]) -> None:
        import pyarrow.parquet as pq

        pq.write_table(table, handle, use_dictionary=text or False)

    atomic_write(path, write, option=option, mode="wb", what="the table")


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
