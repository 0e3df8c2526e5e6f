"""The input refusals the front doors share, and :func:`align`, the front door of scores.

Each job's public function (``compare`` in ``compare.py``, ``degrade`` in ``degrade.py``...)
checks what it was given and reads it through :mod:`evalgap.jobs._inputs`; what more than one
of them refuses in the same words lives here, once: options a table of counts or of battles
cannot honour, a reference board read from files only, the judge's scores read once beside
gold labels. It imports no job, so every job may use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalgap.errors import InputError
from evalgap.jobs._inputs import _check_columns, _renamed, long_scores, scores_of
from evalgap.stats import _validate

if TYPE_CHECKING:
    from evalgap._scores import ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions


def per_item_options_given(
    models: Sequence[str] | None, tasks: Sequence[str] | None, complete_case: bool,
    strict: bool, options: LoadOptions | None, columns: dict[str, Any], **job_options: bool,
) -> list[str]:  # fmt: skip
    """The per-item score options given (``name=``), which a table of pair counts or of
    battles cannot honour; ``job_options`` flags the job's own such options as given."""
    given = {
        "models": models is not None,
        "tasks": tasks is not None,
        "complete_case": bool(complete_case),
        "strict": bool(strict),
    }
    if options is not None:  # each reading option set away from its default, by its name
        default = type(options)()
        for f in dataclasses.fields(options):
            if getattr(options, f.name) != getattr(default, f.name):
                given[f.name] = True
    given.update(dict.fromkeys(columns, True))
    given.update(job_options)
    return [name for name, used in given.items() if used]


def names(value: object, name: str) -> tuple[str, ...]:
    """A list of names given as a list, or as one comma-separated string."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)  # type: ignore[call-overload]
    given = tuple(str(v).strip() for v in items)
    if any(not n for n in given):
        raise InputError("{" + name + "} holds an empty name", param=name)
    return given


def files_only(options: LoadOptions | None) -> LoadOptions | None:
    """``options`` for reading a reference board: a results store (``--store``) stands for
    the scores being judged, never for the reference, which is always its own files."""
    if options is None or options.store is None:
        return options
    return dataclasses.replace(options, store=None)


def reference_source(reference: Any, options: LoadOptions | None) -> tuple[Any, LoadOptions | None]:
    """What a reference board is read from, and how: a results store (a DuckDB file given
    as the reference) is read as the store; anything else as files, a ``--store`` being the
    scores judged, never the reference (:func:`files_only`)."""
    from evalgap.io.options import LoadOptions
    from evalgap.io.store import is_store_file

    if isinstance(reference, (list, tuple)) and len(reference) == 1:
        reference = reference[0]  # the command line's one --reference
    if isinstance(reference, (str, Path)) and is_store_file(Path(reference)):
        return None, LoadOptions(store=str(reference))  # the whole stored board
    return reference, files_only(options)


def is_paths(value: object) -> bool:
    """Whether a scores argument names files (a path or a list of paths), not a frame."""
    if isinstance(value, (str, Path)):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(v, (str, Path)) for v in value)


def refuse_gold_clusters(columns: dict[str, Any], options: LoadOptions | None) -> None:
    """Clusters are not used on the gold scale (its intervals treat items as independent):
    refused rather than ignored."""
    if columns.get("cluster_column") or (options is not None and options.cluster_column):
        raise InputError(
            "{cluster_column}: the gold-scale intervals treat items as independent and do not "
            "use clusters; leave it out (compare takes labels drawn by stratum with {strata})",
            param="cluster_column",
        )


def scale_of(*, gold: bool = False, weights: bool = False, configurations: bool = False) -> str:
    """Return the scale a board's gaps are estimated on, a key of
    :data:`evalgap.stats.pair_estimate.SCALES`.

    The resolve step's one choice of scale: gold labels put the gap on the gold scale
    (``"gold"``, PPI++), design weights on the full benchmark the sample stands for
    (``"design"``, Horvitz-Thompson), anything else on the scores' own paired differences
    (``"paired"``). A new scale is one function in ``stats/pair_estimate.py``, registered in
    ``SCALES``, and one branch here on what the board was given.

    Parameters
    ----------
    gold : bool
        Whether gold labels were given (a gold column or source).
    weights : bool
        Whether design weights were given.
    configurations : bool
        Whether the configurations are a random factor (``configurations="random"``: the
        gap over configurations like these, ``"configuration"``).

    Returns
    -------
    str

    Examples
    --------
    >>> scale_of(), scale_of(gold=True), scale_of(weights=True)
    ('paired', 'gold', 'design')
    """
    if gold:
        return "gold"
    if weights:
        return "design"
    if configurations:
        return "configuration"
    return "paired"


def judge_source(
    scores: Any, judged: bool, options: LoadOptions | None, columns: dict[str, Any]
) -> tuple[Any, str | None]:
    """With gold labels, the judge's scores read once in the long layout, and the judge's
    score column (a gold column must be another); else ``scores`` as given."""
    from evalgap._scores import LongScores, ScoreSet

    if not judged or scores is None or isinstance(scores, (ScoreSet, LongScores)):
        return scores, columns.get("score_column")
    long = long_scores(scores, options=options, **columns)
    return long, long.columns.get("score")


def align(
    scores: ScoresInput | None = None,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> ScoreSet:
    """Align per-item scores into a :class:`ScoreSet` (models x items, per task).

    Parameters
    ----------
    scores : DataFrame, LongScores, str, Path or list
        A long table of scores (one row per model, item and optionally task and run) with
        its own column names, or result files.
    models, tasks : list of str, optional
        Select and order what is kept (all, in order of appearance, by default).
    strict : bool
        Treat any missing, duplicated or unusable row as an error.
    complete_case : bool
        Keep only the items every selected model scored (pairs otherwise use the items
        both models scored).
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        ``model_column``, ``item_column``, ``score_column``, ``task_column``,
        ``run_column``, ``cluster_column`` (detected when not named).

    Returns
    -------
    ScoreSet
        Scores per task with an :class:`AlignmentReport` saying what was kept and left out.

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> df = pd.DataFrame({"llm": ["a", "a", "b", "b"], "q": [1, 2, 1, 3],
    ...     "ok": [1, 0, 1, 1]})
    >>> s = evalgap.align(df, model_column="llm", item_column="q", score_column="ok")
    >>> s.models, s.report.items_left_out
    (('a', 'b'), 2)
    """
    scores = _renamed(columns, "data", "scores", scores)
    if scores is None:
        raise InputError(
            "align() needs {scores} (per-item scores: a table, a ScoreSet or result files)",
            param="scores",
        )
    _check_columns(columns, "align")
    _validate.arguments(models=models, tasks=tasks, strict=strict, complete_case=complete_case)
    return scores_of(
        scores,
        models=models,
        tasks=tasks,
        strict=strict,
        complete_case=complete_case,
        options=options,
        **columns,
    )
