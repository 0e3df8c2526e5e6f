"""JSON output: results as plain JSON, with NaN and infinities written as null.

Written compactly by default (the standard library's C encoder, which an indent would turn
off); ``indent`` is for people reading it (``--json-indent``). A result's ``to_dict()`` is
already plain data, so it is encoded as it is; only data that still holds NumPy numbers or
non-finite floats is cleaned first.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


def to_json(result: Any, indent: int | None = None) -> str:
    """Return ``result.to_dict()`` (or a dict) as JSON; non-finite numbers become null."""
    data = result.to_dict() if hasattr(result, "to_dict") else result
    try:
        return json.dumps(data, indent=indent, allow_nan=False)
    except (TypeError, ValueError):  # NumPy numbers, NaN or infinities somewhere inside
        return json.dumps(_clean(data), indent=indent, allow_nan=False)


def _clean(value: object) -> Any:
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
