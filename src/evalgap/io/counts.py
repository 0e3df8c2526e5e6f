"""Counts files: per-pair 2x2 counts (audit) and per-task discordant counts (degrade)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalgap.errors import InputError

PAIR_COLUMNS = ("model_a", "model_b", "both_correct", "a_only", "b_only", "both_wrong")
TASK_COLUMNS = ("task", "a_only", "b_only")


def require_columns(frame: pd.DataFrame, columns, source: str) -> None:
    """Raise naming the missing columns and the ones found."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(missing)}; columns found: "
            f"{', '.join(map(str, frame.columns))}"
        )
    if frame.empty:
        raise InputError(f"{source}: the table has no rows")


def whole_numbers(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    """Return a column as non-negative integers, or raise naming the first bad row."""
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() | (values < 0) | (values != values.round())
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"{source}: row {row + 1}: {column} must be a non-negative whole "
            f"number; got {frame[column].iloc[row]!r}"
        )
    return values.to_numpy(dtype=np.int64)
