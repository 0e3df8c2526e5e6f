"""Bounds on what an untrusted file may expand to when evalgap decompresses or reads it.

A few hundred kilobytes of zstd or deflate data can expand to gigabytes (a decompression
bomb). Every decompression evalgap does (gzip tables and JSON Lines, lm-eval ``.jsonl.gz``
samples, zip members of inspect ``.eval`` logs, deflate or zstd) goes through this module,
and stops with a one-line :class:`~evalgap.errors.InputError` naming the file (and member)
once the output passes its bound:

* a compressed stream may expand to at most ``max(EXPANSION_FLOOR, EXPANSION_RATIO x its
  compressed size)``: 256 MiB, or 200 times the compressed bytes when that is more. Real
  score tables and logs compress 4 to 20 times; gzip cannot exceed about 1,030 times and a
  bomb is refused after at most 200 times its size;
* a zip member read whole into memory (an inspect sample, header or reductions) may
  expand to at most ``MAX_MEMBER_BYTES`` (256 MiB), and all members of one archive together
  to the stream bound of the archive's size;
* one line of a JSON Lines file (compressed or not) may be at most ``MAX_LINE_BYTES``
  (64 MiB).

* a Parquet file (compressed and run-length encoded columns) may hold at most
  ``max(PARQUET_ROWS_FLOOR, PARQUET_ROWS_PER_BYTE x its size)`` rows: 4,194,304, or 20 rows
  per byte of file when that is more. Real score tables hold under one row per byte; a
  440 KB file claiming 20 million identical rows is refused before it is read.

Plain (uncompressed) files are not bounded: their size is the size the user gave.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import nullcontext
from pathlib import Path
from typing import IO, Any, Protocol

from evalgap.errors import InputError

EXPANSION_RATIO = 200
EXPANSION_FLOOR = 256 * 2**20
MAX_MEMBER_BYTES = 256 * 2**20
MAX_LINE_BYTES = 64 * 2**20
MAX_JSON_BYTES = 256 * 2**20  # one JSON document read whole
PARQUET_ROWS_FLOOR = 2**22
PARQUET_ROWS_PER_BYTE = 20
_CHUNK = 2**20


def expansion_limit(compressed_bytes: int) -> int:
    """Return the most bytes a stream of ``compressed_bytes`` compressed bytes may expand to."""
    return max(EXPANSION_FLOOR, EXPANSION_RATIO * int(compressed_bytes))


def mib(n: int) -> str:
    """``n`` bytes for a message: ``256 MiB``, or ``4,096 bytes`` below a MiB."""
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def too_large(
    where: object,
    limit: int,
    compressed_bytes: int | None = None,
    hint: str = "",
    subject: str = "",
) -> InputError:
    """The one-line refusal of a stream that expands past ``limit`` bytes.

    ``subject`` replaces "decompresses" ("with the members before it, the archive
    decompresses") when the bound is not the stream's own.
    """
    ratio = (
        f" ({limit / compressed_bytes:,.0f} times its {compressed_bytes:,} compressed bytes)"
        if compressed_bytes
        else ""
    )
    return InputError(
        f"{where}: {subject or 'decompresses'} to more than {mib(limit)}{ratio}; refused as a "
        f"likely decompression bomb{'; ' + hint if hint else ''}"
    )


def check_parquet_rows(path: str | os.PathLike[str], rows: int) -> None:
    """Refuse a Parquet file whose row count is out of proportion to its size."""
    size = Path(path).stat().st_size
    limit = max(PARQUET_ROWS_FLOOR, PARQUET_ROWS_PER_BYTE * size)
    if rows > limit:
        raise InputError(
            f"{path}: {rows:,} rows in {size:,} bytes (more than {PARQUET_ROWS_PER_BYTE} rows "
            "per byte); refused as a likely decompression bomb; if the table is genuine, "
            "write it as CSV"
        )


class _Readable(Protocol):
    """A binary stream as the bound reads it (a file, a GzipFile, a zip member)."""

    def read(self, size: int = ..., /) -> bytes: ...

    def close(self) -> None: ...


class _Bounded(io.RawIOBase):
    """A binary stream that raises once more than ``limit`` bytes have been read from it."""

    def __init__(self, inner: _Readable, limit: int, error: InputError) -> None:
        self._inner, self._limit, self._error, self._count = inner, limit, error, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._inner.read(min(len(buffer), _CHUNK))
        self._count += len(data)
        if self._count > self._limit:
            raise self._error
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


def bounded(inner: _Readable, limit: int, error: InputError) -> io.BufferedReader:
    """Wrap the binary stream ``inner`` so reading past ``limit`` bytes raises ``error``."""
    return io.BufferedReader(_Bounded(inner, limit, error), buffer_size=_CHUNK)


def is_gzip(path: str | os.PathLike[str]) -> bool:
    """True when the file starts with the gzip magic bytes."""
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def open_maybe_gzip(
    path: str | os.PathLike[str], *, gzipped: bool | None = None, raw: IO[bytes] | None = None
) -> ContextManager[IO[bytes]]:
    """Open ``path`` for binary reading, decompressing gzip within the expansion bound.

    ``gzipped`` says whether to decompress (default: from the file's magic bytes); ``raw``
    is the file already open (binary), to read from instead of opening it again (it stays
    open when the returned stream is closed). The caller closes the stream.
    """
    path = Path(path)
    if gzipped is None:
        gzipped = is_gzip(path)
    if not gzipped:
        return open(path, "rb") if raw is None else nullcontext(raw)
    size = path.stat().st_size
    limit = expansion_limit(size)
    hint = "if the file is genuine, decompress it (gunzip) and pass the plain file"
    inner = gzip.open(path, "rb") if raw is None else gzip.GzipFile(fileobj=raw)
    return bounded(inner, limit, too_large(path, limit, size, hint))


def read_bounded(path: str | os.PathLike[str], limit: int, what: str = "this file") -> bytes:
    """Return a file's bytes, refusing one larger than ``limit`` (``what`` says what it
    should be, in the one-line error) before reading it whole."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise InputError(f"{path}: larger than {what} holds ({mib(limit)}); not read")
    return raw


def parse_json(raw: bytes, where: object) -> Any:
    """Decode one JSON document, or a one-line error naming ``where``: not UTF-8, not valid
    JSON (with the decoder's line and column), or nested too deeply."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    except ValueError as exc:
        raise InputError(f"{where}: not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{where}: not valid JSON (nested too deeply)") from None


def read_json(
    path: str | os.PathLike[str], limit: int = MAX_JSON_BYTES, what: str = "a JSON file"
) -> Any:
    """One JSON file, read whole within ``limit`` bytes (:func:`read_bounded`,
    :func:`parse_json`)."""
    return parse_json(read_bounded(path, limit, what), path)


def read_lines(
    handle: IO[bytes],
    where: object,
    *,
    limit: int | None = None,
    what: str = "a JSON Lines file",
) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, bytes)`` of a binary stream, each line at most ``limit`` bytes
    (default ``MAX_LINE_BYTES``).

    A longer line is an error naming ``where`` and the line: the line is never held whole.
    A stream that cannot be read on (a truncated or damaged gzip file) is an error naming
    ``where`` and the last line read.
    """
    limit = MAX_LINE_BYTES if limit is None else limit
    number = 0
    while True:
        try:
            line = handle.readline(limit + 1)
        except (OSError, EOFError) as exc:
            raise InputError(
                f"{where}: cannot be read after line {number} ({exc or type(exc).__name__}); "
                "the file may be truncated or damaged"
            ) from None
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            raise InputError(
                f"{where}: line {number} is longer than {mib(limit)}; {what} has one "
                "short record per line"
            )
        yield number, line
