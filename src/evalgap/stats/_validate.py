"""Argument checks shared by the statistics core.

Each check names the argument and the allowed range in its message, like ``scipy.stats``.
"""

from __future__ import annotations

import numpy as np

from evalgap.errors import InputError

ALTERNATIVES = ("two-sided", "greater", "less")


def probability(value, name: str, *, open_interval: bool = True) -> np.ndarray:
    """Return ``value`` as a float array after checking it lies in (0, 1) (or [0, 1])."""
    arr = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(arr)):
        raise InputError(f"{name} must be a finite number in (0, 1); got {value!r}")
    bad = (arr <= 0) | (arr >= 1) if open_interval else (arr < 0) | (arr > 1)
    if np.any(bad):
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise InputError(f"{name} must lie in {bounds}; got {_first(arr[bad])}")
    return arr


def counts(value, name: str) -> np.ndarray:
    """Return ``value`` as a float array of non-negative whole numbers, or raise."""
    arr = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.floor(arr)):
        bad = arr[~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr))]
        raise InputError(f"{name} must be a non-negative whole number; got {_first(bad)}")
    return arr


def positive(value, name: str) -> np.ndarray:
    """Return ``value`` as a float array after checking it is finite and > 0."""
    arr = np.asarray(value, dtype=float)
    if np.any(~np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError(f"{name} must be a positive finite number; got {value!r}")
    return arr


def alternative(value: str) -> str:
    """Check the ``alternative`` keyword."""
    if value not in ALTERNATIVES:
        raise InputError(f"alternative must be one of {', '.join(ALTERNATIVES)}; got {value!r}")
    return value


def resamples(value, name: str = "n_resamples") -> int:
    """Check a resample count: a whole number >= 1."""
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise InputError(f"{name} must be a whole number >= 1; got {value!r}")
    return int(value)


def scalar_or_array(arr: np.ndarray):
    """Return a 0-d array as a NumPy scalar and anything else unchanged."""
    arr = np.asarray(arr)
    return arr[()] if arr.ndim == 0 else arr


def _first(arr: np.ndarray):
    flat = np.asarray(arr).ravel()
    return flat[0].item() if flat.size else arr
