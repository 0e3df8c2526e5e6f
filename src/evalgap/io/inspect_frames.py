"""Read inspect_ai's own data frames (``inspect_ai.analysis.samples_df`` / ``evals_df``).

``samples_df(logs)`` gives one row per sample and epoch: ``eval_id``, ``id``, ``epoch`` and
one ``score_<scorer>`` column per scorer (the raw values: ``C``/``I``/``P``/``N``, numbers,
yes/no); ``evals_df(logs)`` one row per log, with ``model`` and ``task_name``. Joined on
``eval_id`` they are the long layout: model, task, item (the sample id), run (the epoch) and
score, each value mapped to a number as inspect's own metrics map it
(:func:`evalgap.io.inspect_logs.value_to_float`). Epochs are runs, averaged per item by the
jobs. Samples without a score (errored, or not scored) are left out and counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalgap._lazy import LazyModule
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io.inspect_logs import value_to_float

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")

KEYS = ("eval_id", "id")


def read_inspect_frames(
    samples: pd.DataFrame, evals: pd.DataFrame | None = None, *, scorer: str | None = None
) -> LongScores:
    """Return inspect_ai's ``samples_df`` (joined with ``evals_df`` on ``eval_id``) in the
    long layout.

    Parameters
    ----------
    samples : DataFrame
        ``inspect_ai.analysis.samples_df(...)``: ``eval_id``, ``id``, ``epoch`` and the
        ``score_<scorer>`` columns (and ``model``, ``task_name`` when asked for).
    evals : DataFrame, optional
        ``inspect_ai.analysis.evals_df(...)`` of the same logs, for each log's ``model``
        and ``task_name`` (needed unless ``samples`` has them).
    scorer : str, optional
        The scorer (``match`` or ``score_match``); needed when there are several.

    Returns
    -------
    LongScores
        ``model, task, item_id, run, score``, with notes on what was left out.

    Examples
    --------
    Frames laid out as inspect_ai.analysis gives them (two logs, one of them with a sample
    that errored):

    >>> import pandas as pd, evalgap
    >>> samples = pd.DataFrame({"eval_id": ["e1"] * 3 + ["e2"] * 3,
    ...     "id": ["q1", "q2", "q3"] * 2, "epoch": [1] * 6,
    ...     "score_match": ["C", "I", "C", "C", "C", None]})
    >>> evals = pd.DataFrame({"eval_id": ["e1", "e2"], "model": ["mockllm/a", "mockllm/b"],
    ...     "task_name": ["arith", "arith"]})
    >>> long = evalgap.read_inspect_frames(samples, evals)
    >>> long.frame.groupby("model")["score"].mean().round(3).to_dict()
    {'mockllm/a': 0.667, 'mockllm/b': 1.0}
    >>> long.notes
    ('1 sample(s) have no score_match value (errored or not scored) and are left out',)
    """
    if not hasattr(samples, "columns"):
        raise InputError(
            "{samples} must be the DataFrame inspect_ai.analysis.samples_df returns; got "
            + escape(type(samples).__name__),
            param="samples",
        )
    missing = [c for c in (*KEYS, "epoch") if c not in samples.columns]
    if missing:
        raise InputError(
            "{samples} "
            + escape(f"has no column {', '.join(missing)}; ")
            + "give the DataFrame inspect_ai.analysis.samples_df returns",
            param="samples",
        )
    frame = samples
    if not {"model", "task_name"} <= set(samples.columns):
        if evals is None or not hasattr(evals, "columns"):
            raise InputError(
                "{samples} has no model or task_name: give {evals} too "
                "(inspect_ai.analysis.evals_df of the same logs)",
                param="evals",
            )
        need = [c for c in ("eval_id", "model", "task_name") if c not in evals.columns]
        if need:
            raise InputError(
                "{evals} "
                + escape(f"has no column {', '.join(need)}; ")
                + "give the DataFrame inspect_ai.analysis.evals_df returns",
                param="evals",
            )
        logs = evals[["eval_id", "model", "task_name"]].drop_duplicates("eval_id")
        extra = [c for c in ("model", "task_name") if c in samples.columns]
        frame = samples.drop(columns=extra).merge(logs, on="eval_id", how="left")
        unknown = frame["model"].isna()
        if unknown.any():
            first = frame.loc[unknown, "eval_id"].iloc[0]
            raise InputError(
                escape(
                    f"{int(unknown.sum()):,} sample(s) are of a log not in the evals frame "
                    f"(first eval_id {first!r}); "
                )
                + "give {evals} of the same logs as {samples}",
                param="evals",
            )
    column = _score_column(frame, scorer)
    raw = frame[column]
    values = [None if _missing(v) else value_to_float(v) for v in raw.tolist()]
    bad = [i for i, (v, r) in enumerate(zip(values, raw.tolist(), strict=True))
           if v is None and not _missing(r)]  # fmt: skip
    if bad:
        raise InputError(
            escape(
                f"{column}: row {bad[0] + 1:,} has value {raw.iloc[bad[0]]!r}, which inspect's "
                "metrics do not map to a number; "
            )
            + "choose another {scorer}",
            param="scorer",
        )
    kept = [v is not None for v in values]
    notes = []
    left = len(values) - sum(kept)
    if left:
        notes.append(
            f"{left:,} sample(s) have no {column} value (errored or not scored) and are left out"
        )
    out = pd.DataFrame(
        {
            "model": frame["model"].astype(str).to_numpy(),
            "task": frame["task_name"].astype(str).to_numpy(),
            "item_id": frame["id"].astype(str).to_numpy(),
            "run": frame["epoch"].astype(str).to_numpy(),
            "score": [v for v in values],
        }
    )[kept].reset_index(drop=True)
    return LongScores(
        frame=out,
        source="inspect_ai samples_df",
        columns={
            "item_id": "id",
            "run": "epoch",
            "score": column,
            "model": "model",
            "task": "task_name",
        },
        notes=tuple(notes),
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value is pd.NA


def _score_column(frame: pd.DataFrame, scorer: str | None) -> str:
    """The ``score_<scorer>`` column to read."""
    found = [c for c in frame.columns if str(c).startswith("score_")]
    if scorer is not None:
        name = scorer if scorer.startswith("score_") else f"score_{scorer}"
        if name not in frame.columns:
            raise InputError(
                "{scorer} "
                + escape(f"{scorer!r} is not a scorer of these samples; scorers: ")
                + escape(", ".join(c.removeprefix("score_") for c in found) or "none"),
                param="scorer",
            )
        return name
    if len(found) != 1:
        raise InputError(
            escape(
                f"the samples have {len(found)} scorers ("
                + (", ".join(c.removeprefix("score_") for c in found) or "none")
                + "); "
            )
            + "choose one with {scorer}",
            param="scorer",
        )
    return found[0]
