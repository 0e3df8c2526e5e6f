"""Read arena-style battle tables: one row per battle between two models.

Columns ``model_a``, ``model_b`` and ``winner`` (Chatbot Arena's spelling: ``model_a``,
``model_b``, ``tie`` or ``tie (bothbad)``; ``a``/``b`` are accepted too), and optionally
``question_id`` and ``category``. CSV/TSV/Parquet/JSONL, optionally gzipped. A battle of a
model with itself carries no information: such rows are left out and counted in the notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evalgap.errors import InputError
from evalgap.io import tables

REQUIRED = ("model_a", "model_b", "winner")
OUTCOMES = {
    "model_a": 1.0,
    "a": 1.0,
    "model_b": 0.0,
    "b": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
}


@dataclass(frozen=True)
class BattleTable:
    """Battles as integer codes (see the module docstring).

    Attributes
    ----------
    models : tuple of str
        Model names; codes index them.
    model_a, model_b : numpy.ndarray
        The two models of each battle.
    outcome : numpy.ndarray
        1 when model_a won, 0 when model_b won, 0.5 for a tie.
    question, category : numpy.ndarray or None
        The optional columns, as read.
    source : str
        What was read.
    notes : tuple of str
        What was left out and why.
    """

    models: tuple[str, ...]
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    question: np.ndarray | None
    category: np.ndarray | None
    source: str
    notes: tuple[str, ...] = ()


def read_battles(data, *, name: str | None = None) -> BattleTable:
    """Read a battle table from a file path or a DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> t = read_battles(pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "x"],
    ...     "winner": ["model_a", "tie", "model_b"]}))
    >>> t.models, t.outcome.tolist(), t.notes
    (('x', 'y'), [1.0, 0.5], ('1 battle of a model with itself left out (row 4)',))
    """
    if isinstance(data, (str, Path)):
        source = str(data)
        frame = tables.read_frame(data, as_text=True)
    elif isinstance(data, pd.DataFrame):
        source, frame = name or "DataFrame", data
    else:
        raise InputError(f"battles must be a file path or a DataFrame; got {type(data).__name__}")
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source}: missing column{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} (found: {', '.join(map(str, frame.columns[:20]))}); a "
            "battle table needs model_a, model_b and winner"
        )
    for column in ("model_a", "model_b", "winner"):
        blank = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
        if blank.any():
            row = int(np.flatnonzero(blank.to_numpy())[0]) + 2
            raise InputError(f"{source}, row {row}: {column} is empty; every battle needs it")
    winner = frame["winner"].astype(str).str.strip().str.lower()
    outcome = winner.map(OUTCOMES)
    unknown = outcome.isna().to_numpy()
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise InputError(
            f"{source}, row {row + 2}: winner {frame['winner'].iloc[row]!r} is not one of "
            "model_a, model_b, tie, tie (bothbad)"
        )
    a = frame["model_a"].astype(str).to_numpy()
    b = frame["model_b"].astype(str).to_numpy()
    notes = []
    same = a == b
    if same.any():
        rows = np.flatnonzero(same)[:3] + 2
        count = int(same.sum())
        notes.append(
            f"{count:,} battle{'s' if count != 1 else ''} of a model with itself left out "
            f"(row{'s' if len(rows) > 1 else ''} {', '.join(map(str, rows))}"
            f"{', ...' if count > len(rows) else ''})"
        )
    keep = ~same
    if not keep.any():
        raise InputError(f"{source}: no battle between two different models")
    codes, models = pd.factorize(np.concatenate([a[keep], b[keep]]))
    n = int(keep.sum())
    optional = {
        column: frame[column].to_numpy()[keep] if column in frame.columns else None
        for column in ("question_id", "category")
    }
    return BattleTable(
        models=tuple(str(m) for m in models),
        model_a=codes[:n].astype(np.int64),
        model_b=codes[n:].astype(np.int64),
        outcome=outcome.to_numpy(dtype=float)[keep],
        question=optional["question_id"],
        category=optional["category"],
        source=source,
        notes=tuple(notes),
    )
