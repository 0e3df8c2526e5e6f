"""Counts files: per-pair 2x2 counts (audit) and per-task discordant counts (degrade)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from evalgap._lazy import LazyModule
from evalgap.errors import InputError
from evalgap.stats._types import ArrayLike, IntArray

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")

PAIR_COLUMNS = ("model_a", "model_b", "both_correct", "a_only", "b_only", "both_wrong")
TASK_COLUMNS = ("task", "a_only", "b_only")
# Counts are used as floats by the statistics: above 2^53 a float no longer holds every whole
# number, and a sum of int64 counts could wrap around. No evaluation has 9e15 items.
MAX_COUNT = 2**53


def require_columns(frame: pd.DataFrame, columns: Sequence[str], source: str) -> None:
    """Raise naming the missing columns and the ones found."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(missing)}; columns found: "
            f"{', '.join(map(str, frame.columns))}"
        )
    if frame.empty:
        raise InputError(f"{source}: the table has no rows")


def whole_numbers(frame: pd.DataFrame, column: str, source: str) -> IntArray:
    """Return a column as non-negative integers, or raise naming the first bad row.

    Refused: empty or non-numeric cells, negative, fractional or infinite values, and counts
    above ``MAX_COUNT`` (2^53), so that no later sum or float conversion can overflow.
    """
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce").astype(float)
    with np.errstate(invalid="ignore"):
        bad = (
            values.isna()
            | ~np.isfinite(values)
            | (values < 0)
            | (values != np.floor(values))
            | (values > MAX_COUNT)
        )
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        value = values.iloc[row]
        reason = (
            f"at most {MAX_COUNT:,} (2^53)"
            if np.isfinite(value) and value > MAX_COUNT
            else "a non-negative whole number"
        )
        raise InputError(
            f"{source}: row {row + 1}: {column} must be {reason}; got {_cell(raw.iloc[row])}"
        )
    return values.to_numpy().astype(np.int64)


def total_within_range(values: ArrayLike, what: str, source: str) -> None:
    """Raise when a sum of counts (over tasks, or over a row's cells) exceeds ``MAX_COUNT``."""
    total = sum(int(v) for v in np.ravel(values))  # Python ints: exact, cannot wrap around
    if total > MAX_COUNT:
        raise InputError(
            f"{source}: {what} sum to {total:,}, above {MAX_COUNT:,} (2^53); "
            "counts this large cannot be tested exactly"
        )


def unique_rows(frame: pd.DataFrame, key: str | Sequence[str], source: str) -> None:
    """Raise naming the rows that repeat a key (a task, a pair): it would be counted twice."""
    key = [key] if isinstance(key, str) else list(key)
    repeated = frame.duplicated(subset=key, keep=False).to_numpy()
    if repeated.any():
        rows = np.flatnonzero(repeated)
        first = frame.iloc[rows[0]][key]
        same = rows[(frame.iloc[rows][key] == first).all(axis=1).to_numpy()]
        name = ", ".join(str(v) for v in first)
        more = int(repeated.sum()) - same.size
        raise InputError(
            f"{source}: rows {', '.join(str(r + 1) for r in same)} repeat "
            f"{'/'.join(key)} {name!r}; give each {'/'.join(key)} one row (its counts would "
            f"be counted twice)" + (f"; {more} other repeated row(s)" if more else "")
        )


def _cell(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "an empty or NA cell"
    return str(value)
