"""The ranking a board in Parquet shards lists, from its sums: the rows and notes of the
single machine's board (:func:`evalgap.jobs.audit.board_order`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalgap.report.sentences import ranking_exclusions
from evalgap.stats.board import board_notes

if TYPE_CHECKING:
    from evalgap.engine import BoardSums

__all__ = ["shard_rankings"]


def shard_rankings(sums: Sequence[BoardSums], alpha: float) -> tuple[pd.DataFrame, list[str]]:
    """Return every task's ranking rows (``task, rank, model, score, score_low, score_high,
    own_items_mean, n_items, items_missing``, best first) and the notes the single machine
    gives beside them: models left out (fewer than 2 scored items), rows against the order.
    Where scores are missing the score interval sums the fit's per-item terms, which the
    sums do not hold: NaN, said in a note."""
    rows, notes = [], []
    for s in sums:
        counts = np.diag(s.shared)
        notes.extend(ranking_exclusions(s.task, list(s.models), counts.tolist()))
        kept, board = s.board(alpha)
        listed = board.listed()
        rows.append(
            pd.DataFrame(
                {
                    "task": s.task, "rank": listed.rank,
                    "model": np.array(s.models, dtype=object)[kept[board.order]],
                    "score": listed.score, "score_low": listed.score_low,
                    "score_high": listed.score_high, "own_items_mean": listed.own_items_mean,
                    "n_items": listed.n, "items_missing": s.n_items - listed.n,
                }
            )
        )  # fmt: skip
        notes.extend(f"task {s.task}: {note}" for note in board_notes(board))
    if not all(s.complete for s in sums):
        notes.append(
            "with missing scores the board scores are the additive fit from the shards' sums; "
            "their standard errors and intervals sum the fit's per-item terms and are left "
            "out of a board from shards"
        )
    return pd.concat(rows, ignore_index=True), notes
