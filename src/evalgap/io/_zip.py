"""Read members of a zip archive, including zstd-compressed ones (zip method 93).

inspect_ai writes its ``.eval`` logs as zip archives whose members are compressed with
Zstandard (method 93). Python's :mod:`zipfile` lists such archives but cannot decompress
their members before Python 3.14. Here :mod:`zipfile` still parses the central directory
(names, offsets, sizes, CRCs, zip64), and only the decompression of a method-93 member is
done by the ``zstandard`` package: the member's local header is skipped, its compressed
bytes are read and decompressed, and the CRC-32 recorded in the archive is checked.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

ZSTD = 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_MAGIC = b"PK\003\004"


class ZipReadError(Exception):
    """A member cannot be read (damaged archive, unsupported compression)."""


class Archive:
    """A zip archive open for reading members by name."""

    def __init__(self, path):
        self._zip = zipfile.ZipFile(path)
        self._infos = {i.filename: i for i in self._zip.infolist()}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._zip.close()
        return False

    def namelist(self) -> list[str]:
        """Names of the archive's members, in archive order."""
        return list(self._infos)

    def read(self, name: str) -> bytes:
        """Return the uncompressed bytes of member ``name``."""
        info = self._infos[name]
        if info.compress_type != ZSTD:
            return self._zip.read(info)
        raw = self._raw(info)
        try:
            import zstandard
        except ImportError:  # a core dependency; only a broken install lacks it
            raise ZipReadError(
                "the archive is zstd-compressed and the zstandard package is missing: "
                "pip install zstandard"
            ) from None
        try:
            data = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        except zstandard.ZstdError as exc:
            raise ZipReadError(f"member {name}: damaged zstd data ({exc})") from None
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise ZipReadError(f"member {name}: size or CRC-32 does not match the archive")
        return data

    def _raw(self, info: zipfile.ZipInfo) -> bytes:
        handle = self._zip.fp
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
