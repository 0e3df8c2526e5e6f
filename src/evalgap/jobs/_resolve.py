"""One resolved board: the input step every job over per-item scores starts from.

:func:`resolve` takes scores in any form (a DataFrame, a ScoreSet, result files, a store
named in ``options``), the model and task selections, the reading options and the column
names, which go together to the one reader (:func:`evalgap.jobs._inputs.long_scores` merges
them into :class:`~evalgap.io.options.LoadOptions`), and gold labels when given; it applies
the refusals of reading and alignment and returns a :class:`Board`: the aligned scores, the
gold labels with their notes, and the scale the board's gaps are estimated on
(:func:`evalgap.jobs._board.scale_of`).
``audit``, ``ranks``, ``card``, ``fragility``, ``degrade`` and ``trim`` start from it;
``compare`` chooses its scale by the same ``scale_of`` (its arrays and 2x2 counts are no
board).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalgap.jobs._board import scale_of
from evalgap.jobs._inputs import _renamed

if TYPE_CHECKING:
    from evalgap._scores import ScoreSet
    from evalgap.io.options import LoadOptions


@dataclass(frozen=True)
class Board:
    """The resolved input of a job.

    Attributes
    ----------
    scores : ScoreSet
        The aligned scores (the judge's, when gold labels are given), with the alignment
        report: what was kept and left out, and why.
    scale : str
        The scale the gaps are estimated on, a key of
        :data:`evalgap.stats.pair_estimate.SCALES` (``"paired"`` or ``"gold"`` here).
    gold : ScoreSet or None
        Each model's gold labels on the board's items (gold scale only).
    gold_notes : tuple of str
        What reading the gold labels left out.
    """

    scores: ScoreSet
    scale: str = "paired"
    gold: ScoreSet | None = None
    gold_notes: tuple[str, ...] = field(default=())


def resolve(
    scores: Any,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    options: LoadOptions | None = None,
    gold_column: str | None = None,
    gold: Any = None,
    columns: dict[str, Any] | None = None,
) -> Board:
    """Return the board a job reads: ``scores`` aligned by the selections and reading options
    (column names in ``columns``, merged into ``options`` once), with gold labels when given.

    ``columns`` may also carry the deprecated spellings of ``scores`` (``data=``). A scale
    whose input a board job cannot take is refused by that job before it resolves.
    """
    given = dict(columns or {})
    scores = _renamed(given, "data", "scores", scores)
    scale = scale_of(gold=gold_column is not None or gold is not None)
    from evalgap.jobs.gold import read_board

    board, golden = read_board(
        scores, gold_column=gold_column, gold=gold, models=models,
        tasks=tasks, complete_case=complete_case, strict=strict, options=options,
        columns=given,
    )  # fmt: skip
    if golden is None:
        return Board(scores=board, scale=scale)
    return Board(scores=board, scale=scale, gold=golden[0], gold_notes=tuple(golden[1]))
