"""Read one JSON document and find the keys an object names twice.

``json.loads`` keeps the last of two values of one key without a word, so a result file
with ``"main_score"`` written twice reads as whichever came last. The readers of whole JSON
documents (mteb results, SWE-bench reports) read through :func:`read_json_checked`: a key
named twice with different values is refused, naming the file and the key; the same value
twice is harmless and becomes a note.
"""

from __future__ import annotations

import json
import os
from typing import Any

from evalgap.errors import InputError, escape
from evalgap.io._limits import MAX_JSON_BYTES, read_bounded

SHOWN = 40  # characters of a value shown in a message


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def loads_checked(raw: bytes, where: object, param: str | None = None) -> tuple[Any, list[str]]:
    """Return a JSON document and the notes on its harmless duplicate keys.

    A key named twice in one object with different values raises :class:`InputError`
    naming ``where`` and the key; with the same value both times it is a note. Text that
    is not UTF-8, not JSON or nested too deeply is an error naming ``where``. ``param`` is
    the option that gave the file (it leads each message).
    """
    repeated: dict[str, int] = {}
    conflict: list[tuple[str, Any, Any]] = []

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                if obj[key] != value and not conflict:
                    conflict.append((key, obj[key], value))
                repeated[key] = repeated.get(key, 0) + 1
            obj[key] = value
        return obj

    try:
        data = json.loads(raw, object_pairs_hook=unique)
    except UnicodeDecodeError:
        raise InputError(escape(f"{where}: not UTF-8 text"), param=param) from None
    except ValueError as exc:
        raise InputError(escape(f"{where}: not valid JSON ({exc})"), param=param) from None
    except RecursionError:
        raise InputError(
            escape(f"{where}: not valid JSON (nested too deeply)"), param=param
        ) from None
    if conflict:
        key, first, last = conflict[0]
        raise InputError(
            escape(
                f"{where}: key {key!r} is given twice in one object, as {_shown(first)} and "
                f"{_shown(last)}; a JSON reader would keep the last without a word, so the file "
                f"is refused: keep the right {key!r} and delete the other"
            ),
            param=param,
        )
    notes = [
        f"{where}: key {key!r} is repeated with the same value ({count:,} extra "
        f"time{'s' if count > 1 else ''}); read once"
        for key, count in repeated.items()
    ]
    return data, notes


def read_json_checked(
    path: str | os.PathLike[str],
    limit: int = MAX_JSON_BYTES,
    what: str = "a JSON file",
    param: str | None = None,
) -> tuple[Any, list[str]]:
    """One JSON file read whole within ``limit`` bytes, with :func:`loads_checked`'s check
    of duplicate keys: ``(document, notes)``."""
    return loads_checked(read_bounded(path, limit, what), path, param)
