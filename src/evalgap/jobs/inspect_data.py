"""The ``inspect-data`` job: what was read, before any test is run.

The first command to run on new files: which models and tasks were found, how many items
each model has and its mean score over its own items (the number a leaderboard shows), which
metric and columns were used, and what the alignment keeps and leaves out.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap._scores import AlignmentReport, LongScores, ScoreSet, align
from evalgap.errors import InputError
from evalgap.jobs._pages import Views

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions


@dataclass(frozen=True, repr=False)
class ModelSummary(Result):
    """One model over all tasks: its own items, its mean score on them, what pairing keeps."""

    model: str
    items_scored: int
    items_kept: int
    mean_score: float
    max_runs: int
    _headline = ("model", "items_scored", "mean_score")


@dataclass(frozen=True, repr=False)
class DataSummary(Views, Result):
    """What ``inspect-data`` reports.

    Attributes
    ----------
    source : str
        What was read.
    columns : dict
        Role -> the source column it came from.
    notes : tuple of str
        What the loader chose or detected, and left out.
    models : tuple of ModelSummary
        Per model: items scored and kept, mean score, runs.
    tasks : tuple of (task, items in the input, items kept)
        Per task.
    binary : bool
        Whether every score is 0 or 1.
    clusters : int or None
        Distinct cluster labels, when there are any.
    alignment : AlignmentReport
        The alignment report.
    """

    source: str
    columns: dict[str, Any]
    notes: tuple[str, ...]
    models: tuple[ModelSummary, ...]
    tasks: tuple[tuple[str, int, int], ...]  # (task, items in the input, items kept)
    binary: bool
    clusters: int | None
    alignment: AlignmentReport
    _headline = ("source", "models", "binary")

    def to_frame(self) -> pd.DataFrame:
        """Return one row per (model, task): items scored, kept, missing and mean score."""
        return pd.DataFrame([e.to_dict() for e in self.alignment.entries])

    def to_dict(self) -> dict:
        """Return the JSON-ready dict of ``inspect-data --json`` (tasks as named records)."""
        out = super().to_dict()
        out["tasks"] = [{"task": t, "items": n, "items_kept": k} for t, n, k in self.tasks]
        return out

    _heading: ClassVar[str] = "evalgap inspect-data"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_data

        render_data(self, console)


def inspect_data(
    scores: ScoresInput | None = None,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    score_set: ScoreSet | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> DataSummary:
    """Summarise a long score table and its alignment (see the module docstring).

    Parameters
    ----------
    scores : LongScores, DataFrame, str, Path or list
        What a loader read (:func:`evalgap.load_scores`), a long DataFrame, or result
        files (``inspect-data --scores``), as the other jobs take them.
    models, tasks : list of str, optional
        Select models and tasks (``models`` defaults to ``options.model_columns``).
    strict, complete_case : bool
        Treat any left-out row as an error; keep only the items every model scored.
    score_set : ScoreSet, optional
        The alignment, when already done.
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        Column names of a DataFrame or table file (``model_column=``...).

    Returns
    -------
    DataSummary
        Models, tasks, items, the metric and the alignment report.

    Examples
    --------
    >>> import evalgap
    >>> summary = inspect_data(evalgap.load_scores("examples/two_models.csv"))
    >>> [m.model for m in summary.models], summary.binary
    (['model-x', 'model-y'], True)
    """
    from evalgap.jobs._inputs import _check_columns, _models, _stored, long_scores

    if scores is None and not _stored(options):
        raise InputError("nothing to inspect: give {scores=FILE} (repeatable)", param="scores")
    if not isinstance(scores, LongScores):
        _check_columns(columns, "inspect_data")
        scores = long_scores(scores, options=options, **columns)
    elif columns or options is not None:
        raise InputError(
            "{options} and column names are for paths or a DataFrame; these scores are "
            "already read",
            param="options",
        )
    aligned = score_set or align(
        scores.frame,
        models=_models(models, options),
        tasks=list(tasks) if tasks is not None else None,
        strict=strict,
        complete_case=complete_case,
        source=scores.source,
        notes=scores.notes,
    )
    summaries = []
    for model in aligned.models:
        entries = [e for e in aligned.report.entries if e.model == model]
        scored = sum(e.items_scored for e in entries)
        total = sum(e.mean_score * e.items_scored for e in entries if e.items_scored)
        summaries.append(
            ModelSummary(
                model=model,
                items_scored=scored,
                items_kept=sum(e.items_kept for e in entries),
                mean_score=total / scored if scored else math.nan,
                max_runs=max((e.max_runs for e in entries), default=0),
            )
        )
    binary = all(bool(np.isin(t.scores[t.observed], (0.0, 1.0)).all()) for t in aligned.tasks)
    clusters = None
    if any(t.clusters is not None for t in aligned.tasks):
        clusters = len({c for t in aligned.tasks if t.clusters is not None for c in t.clusters})
    return DataSummary(
        source=scores.source,
        columns=dict(scores.columns),
        notes=tuple(scores.notes),  # shown here, so not repeated in the alignment report
        models=tuple(summaries),
        tasks=tuple(
            (t, aligned.report.items_union[t], aligned.report.items_common[t])
            for t in aligned.report.items_union
        ),
        binary=binary,
        clusters=clusters,
        alignment=dataclasses.replace(aligned.report, loader_notes=()),
    )
