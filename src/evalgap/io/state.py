"""State files a job keeps between calls (``watch --state``, ``adaptive --state``): versioned
JSON, read with a bound and checked before use, written atomically.

A state file is as untrusted as any input: it is read to at most ``limit`` bytes, must be a
JSON object naming its format and an integer version, and the job checks every field it
uses (:func:`read` checks only the envelope).
"""

from __future__ import annotations

import json
import os
from typing import Any

from evalgap.errors import InputError
from evalgap.io._write import atomic_write


def read(path: str | os.PathLike, *, what: str, fmt: str, version: int, limit: int) -> dict:
    """Return the JSON object of the state file ``path``, refused in one line naming it
    when it cannot be read, is larger than ``limit`` bytes, is not JSON, names another
    format, or another (or a non-integer) version.

    ``what`` names the kind of file in messages ("watch state").

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.json")
    >>> write(path, {"format": "demo", "version": 1, "n": 3}, what="demo state")
    >>> read(path, what="demo state", fmt="demo", version=1, limit=1000)["n"]
    3
    """
    where = str(path)
    a = "an" if what[:1] in "aeiou" else "a"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{where}: cannot read the {what} ({exc.strerror})") from None
    if len(raw) > limit:
        raise InputError(f"{where}: larger than {a} {what} file can be; not one")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InputError(
            f"{where}: not {a} {what} file (not JSON); delete it or give another path"
        ) from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise InputError(f"{where}: not {a} {what} file; delete it or give another path")
    found = data.get("version")
    if type(found) is not int or found != version:
        raise InputError(
            f"{where}: {a} {what} file of another evalgap version ({found!r}, this one reads "
            f"{version}); delete it"
        )
    return data


def write(path: str | os.PathLike, data: dict[str, Any], *, what: str) -> None:
    """Write ``data`` to the state file ``path`` as compact JSON (no NaN), atomically."""
    atomic_write(
        path,
        lambda handle: json.dump(data, handle, separators=(",", ":"), allow_nan=False),
        option="",
        what=f"the {what}",
        stdout=False,  # a state is read back: never a file named '-', nor standard output
    )
