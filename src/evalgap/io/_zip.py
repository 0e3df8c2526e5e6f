"""Read members of a zip archive, including zstd-compressed ones (zip method 93).

inspect_ai writes its ``.eval`` logs as zip archives whose members are compressed with
Zstandard (method 93). Python's :mod:`zipfile` lists such archives but cannot decompress
their members before Python 3.14. Here :mod:`zipfile` still parses the central directory
(names, offsets, sizes, CRCs, zip64), and only the decompression of a method-93 member is
done by the ``zstandard`` package: the member's local header is skipped, its compressed
bytes are read and decompressed, and the CRC-32 recorded in the archive is checked.

Every member, whatever its compression, is decompressed within the bounds of
:mod:`evalgap.io._limits` (a member at most ``MAX_MEMBER_BYTES``, the archive's members
together at most its expansion limit): a zstd or deflate bomb stops with an ``InputError``
naming the archive and the member, never exhausts memory. Members are only read into
memory, never extracted to disk, so a member name such as ``../x`` is only a name.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from typing import IO, Literal

from evalgap.io._limits import MAX_MEMBER_BYTES, expansion_limit, too_large

ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_MAGIC = b"PK\003\004"


class ZipReadError(Exception):
    """A member cannot be read (damaged archive, unsupported compression)."""


class Archive:
    """A zip archive open for reading members by name."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = path
        self._zip = zipfile.ZipFile(path)
        self._infos = {i.filename: i for i in self._zip.infolist()}
        self._size = os.path.getsize(path)
        self._left = expansion_limit(self._size)  # all members together

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self._zip.close()
        return False

    def namelist(self) -> list[str]:
        """Names of the archive's members, in archive order."""
        return list(self._infos)

    def read(self, name: str) -> bytes:
        """Return the uncompressed bytes of member ``name``."""
        info = self._infos[name]
        limit = min(MAX_MEMBER_BYTES, self._left)
        hint = (
            "if the log is genuine, convert it with 'inspect log convert --to json' and pass "
            "the JSON log"
        )
        where = f"{self._path}: member {name}"
        if limit == MAX_MEMBER_BYTES:
            error = too_large(where, limit, info.compress_size, hint)
        else:  # the members read before used up the archive's bound
            total = expansion_limit(self._size)
            subject = "with the members read before it, the archive decompresses"
            error = too_large(where, total, self._size, hint, subject)
        if info.file_size > limit:  # the recorded size already says so
            raise error
        if info.compress_type != ZSTD:
            with self._zip.open(info) as member:
                data = member.read(limit + 1)
            if len(data) > limit:
                raise error
            self._left -= len(data)
            return data
        raw = self._raw(info)
        try:
            import zstandard
        except ImportError:  # a core dependency; only a broken install lacks it
            raise ZipReadError(
                "the archive is zstd-compressed and the zstandard package is missing: "
                "pip install zstandard"
            ) from None
        try:
            # read_across_frames: a member may hold several frames; read at most one byte
            # past the limit, so a bomb stops there
            with zstandard.ZstdDecompressor().stream_reader(
                io.BytesIO(raw), read_across_frames=True
            ) as reader:
                data = _read_upto(reader, limit + 1)
        except zstandard.ZstdError as exc:
            raise ZipReadError(f"member {name}: damaged zstd data ({exc})") from None
        if len(data) > limit:
            raise error
        self._left -= len(data)
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise ZipReadError(f"member {name}: size or CRC-32 does not match the archive")
        return data

    def _raw(self, info: zipfile.ZipInfo) -> bytes:
        handle = self._zip.fp
        assert handle is not None  # the archive is open while it is read
        handle.seek(info.header_offset)
        header = handle.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_MAGIC:
            raise ZipReadError(f"member {info.filename}: bad local file header")
        fields = _LOCAL_HEADER.unpack(header)
        name_length, extra_length = fields[10], fields[11]
        handle.seek(name_length + extra_length, 1)
        raw = handle.read(info.compress_size)
        if len(raw) != info.compress_size:
            raise ZipReadError(f"member {info.filename}: truncated")
        return raw


def _read_upto(reader: IO[bytes], n: int) -> bytes:
    """Read up to ``n`` bytes from ``reader`` (which may return short reads)."""
    parts, got = [], 0
    while got < n:
        chunk = reader.read(min(n - got, 2**20))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)
