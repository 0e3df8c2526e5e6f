"""JSON output: results as plain JSON, with NaN and infinities written as null."""

from __future__ import annotations

import json
import math

import numpy as np


def to_json(result) -> str:
    """Return ``result.to_dict()`` (or a dict) as indented JSON; non-finite numbers become null."""
    data = result.to_dict() if hasattr(result, "to_dict") else result
    return json.dumps(_clean(data), indent=2)


def _clean(value):
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
