"""Aligned per-item scores: the in-memory model every job works on.

A long frame (one row per model, task, item and optionally run; see
:mod:`evalgap.io.tables`) is aligned into, per task, a dense ``(n_items, n_models)`` array
of scores with the item ids beside it, and an :class:`AlignmentReport` saying, per model
and task, what was kept and what was left out and why. Nothing is dropped silently:

* rows whose score is empty or not a finite number are excluded and counted;
* identical duplicate rows are collapsed and counted; duplicates with *different* scores and
  no run column are an error (they are either repeated runs or a broken file);
* several runs of an item (a run column) are averaged into one graded score per item, with
  the run count kept — runs are never counted as items;
* a paired design is defined pair by pair: every item that at least one selected model
  scored is kept, with NaN where a model has no score, and each pair of models is compared
  on the items *both* scored (:meth:`ScoreSet.pair`, :meth:`TaskScores.observed`). Each
  model's missing items are counted against all the items the input has for that task.
  ``complete_case=True`` keeps only the items every selected model scored (one common item
  set, the behaviour of earlier versions) and says how many items that drops.
  ``strict=True`` turns any exclusion into an error.

The interchange layout (:class:`LongScores`): one row per (model, task, item_id[, run]) with a
``score`` and optionally a ``cluster`` label. Every loader in :mod:`evalgap.io` produces it.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeAlias, cast

import numpy as np
from numpy.typing import NDArray

from evalgap._lazy import LazyModule
from evalgap._results import Result
from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, IntArray

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = LazyModule("pandas")


KEYS = ("model", "task", "item_id")


@dataclass(frozen=True)
class LongCodes:
    """The long layout as integer codes: what a table reader hands the alignment without
    building a pandas frame.

    Each id role (``model``, ``item_id`` and optionally ``task``, ``run`` and ``cluster``)
    is a pair (int32 codes numbered in order of first appearance, -1 for an empty cell; the
    labels as an object array). ``score`` holds the rows' scores: float64, or booleans or
    objects as the reader found them. A table without a task column is task ``all``.

    Attributes
    ----------
    ids : dict
        Role -> (codes, labels).
    score : numpy.ndarray
        The scores, one per row.
    """

    ids: dict[str, tuple[NDArray[np.int32], np.ndarray]]
    score: np.ndarray

    def __len__(self) -> int:
        return int(self.score.size)

    @property
    def columns(self) -> list[str]:
        """The layout's column names, as the frame's."""
        return [*KEYS, "score", *(r for r in ("run", "cluster") if r in self.ids)]

    def key(self, role: str) -> tuple[NDArray[np.int32], np.ndarray]:
        """(codes, labels) of an id role; a table without a task column is task 'all'."""
        if role == "task" and "task" not in self.ids:
            return np.zeros(len(self), dtype=np.int32), np.array(["all"], dtype=object)
        return self.ids[role]

    def to_frame(self) -> pd.DataFrame:
        """The long interchange frame: ids as categoricals, as the batch reader builds it."""
        out: dict[str, object] = {role: categorical(*self.key(role)) for role in KEYS}
        out["score"] = self.score
        for role in ("run", "cluster"):
            if role in self.ids:
                out[role] = categorical(*self.ids[role])
        return pd.DataFrame(out, copy=False)


def categorical(codes: np.ndarray, labels: np.ndarray | Sequence[object]) -> pd.Categorical:
    """A categorical of ``labels`` with codes in the smallest integer type that holds them."""
    n = len(labels)
    small = np.int8 if n < 2**7 else np.int16 if n < 2**15 else np.int32
    return pd.Categorical.from_codes(np.asarray(codes).astype(small), list(labels))


class _Frame:
    """``LongScores.frame``: the frame given, or one built from the codes at first read."""

    def __get__(self, obj: LongScores | None, owner: type) -> pd.DataFrame:
        if obj is None:  # no default: the frame (or None with codes) is always given
            raise AttributeError("frame")
        frame = obj.__dict__["_frame"]
        if frame is None and obj.codes is not None:
            frame = obj.__dict__["_frame"] = obj.codes.to_frame()
        return frame

    def __set__(self, obj: LongScores, value: pd.DataFrame | None) -> None:
        obj.__dict__["_frame"] = value


_FRAME = _Frame()


@dataclass(frozen=True)
class LongScores:
    """Per-item scores in the long interchange layout, as every loader returns them.

    ``frame`` has columns ``model, task, item_id, score`` and optionally ``run`` (repeated
    runs of an item) and ``cluster`` (a subject or category label); ``source`` names what
    was read; ``columns`` maps each role to the source field it came from (``None`` when
    absent); ``notes`` say what the loader chose or detected rather than was told, and what
    it left out before alignment. A reader of a small table may give ``codes`` instead
    (``frame=None``): the frame is then built from them when first read, and the alignment
    takes the codes (:attr:`table`) without pandas.

    Attributes
    ----------
    frame : pandas.DataFrame
        ``model, task, item_id, score`` and optionally ``run`` and ``cluster``.
    source : str
        What was read.
    columns : dict
        Role -> the source column it came from (None when absent).
    notes : tuple of str
        What the loader chose or detected, and what it left out before alignment.
    codes : LongCodes or None
        The same rows as integer codes, when the reader kept them so.
    """

    frame: pd.DataFrame = _FRAME  # a descriptor: no default (see _Frame)
    source: str = ""
    columns: dict[str, str | None] = field(default_factory=dict)
    notes: tuple[str, ...] = field(default=())
    codes: LongCodes | None = None

    @property
    def table(self) -> pd.DataFrame | LongCodes:
        """What :func:`align` takes: the codes when the reader kept them, else the frame."""
        return self.codes if self.codes is not None else self.frame


@dataclass(frozen=True, repr=False)
class ModelAlignment(Result):
    """What was read and kept for one model on one task.

    Not a table (no ``to_frame()``): one row of :meth:`AlignmentReport.to_frame`.

    ``mean_score`` is the model's mean over its *own* scored items (the accuracy a leaderboard
    displays), which can differ from its mean over the items kept for pairing.

    Attributes
    ----------
    model, task : str
        The model and the task.
    rows : int
        Rows read.
    items_scored, items_kept, items_missing : int
        Items with a usable score; kept for pairing; without a score among the task's items.
    duplicates_collapsed, non_numeric, empty_scores : int
        Rows collapsed as identical duplicates; excluded as non-numeric; excluded as empty.
    max_runs : int
        The most runs of one item.
    mean_score : float
        The mean over the model's own scored items.
    """

    model: str
    task: str
    rows: int
    items_scored: int
    items_kept: int
    items_missing: int
    duplicates_collapsed: int
    non_numeric: int
    empty_scores: int
    max_runs: int
    mean_score: float
    _headline = ("model", "task", "items_scored", "items_kept", "items_missing")


@dataclass(frozen=True, repr=False)
class AlignmentReport(Result):
    """Per model and task: items kept, missing, duplicated and unusable.

    Attributes
    ----------
    entries : tuple of ModelAlignment
        Per (model, task): rows read, items scored, kept and missing, rows excluded.
    items_union, items_kept, items_common : dict
        Per task: items any selected model scored; items kept; items every model scored.
    rows_without_key : int
        Rows with an empty model, task or item id (left out).
    complete_case : bool
        Whether only the items every model scored were kept.
    loader_notes : tuple of str
        What the loader chose or left out before alignment.
    items_left_out : int
        Items the input has but not every selected model scored (a property).
    """

    entries: tuple[ModelAlignment, ...]
    items_union: dict[str, int]
    items_kept: dict[str, int]
    rows_without_key: int = 0
    items_common: dict[str, int] = field(default_factory=dict)
    complete_case: bool = False
    loader_notes: tuple[str, ...] = ()
    _json_names: ClassVar[dict[str, str]] = {"entries": "models"}
    _derived = ("items_left_out", "messages")
    _omit = ("loader_notes",)
    _headline = ("items_left_out",)

    @property
    def items_left_out(self) -> int:
        """Items (over all tasks) the input has but not every selected model scored.

        For two models, the items their pair does not use; with several models, pairs use
        more of them (each pair its own shared items) unless ``complete_case``.
        """
        return int(sum(self.items_union[t] - self.items_common[t] for t in self.items_union))

    def messages(self) -> list[str]:
        """Return one plain sentence per exclusion or loader choice, empty when there is none.

        The loader's notes (what it chose or left out before alignment) come first, so every
        job shows them alike on the terminal and in ``--json``.
        """
        out = list(self.loader_notes)
        if self.complete_case:
            for task, union in self.items_union.items():
                dropped = union - self.items_kept[task]
                if dropped:
                    where = "" if task == "all" else f" of task {task}"
                    out.append(
                        f"--complete-case: {dropped:,} of {union:,} items{where} are not scored "
                        "by every selected model and are left out of every pair"
                    )
        for e in self.entries:
            where = "" if e.task == "all" else f" on task {e.task}"
            if e.items_missing:
                consequence = (
                    "those items are left out"
                    if self.complete_case
                    else "its pairs use the items both models scored"
                )
                out.append(
                    f"{e.model} has no score for {e.items_missing:,} of "
                    f"{e.items_missing + e.items_scored:,} items{where}; {consequence}"
                )
        return out + self.row_messages()

    def row_messages(self) -> list[str]:
        """Return the sentences on rows left out or collapsed (keyless, unusable, duplicate)."""
        out = []
        if self.rows_without_key:
            out.append(
                f"{self.rows_without_key:,} rows with an empty model, task or item id were left out"
            )
        for e in self.entries:
            where = "" if e.task == "all" else f" on task {e.task}"
            if e.non_numeric:
                out.append(
                    f"{e.model}: {e.non_numeric:,} rows{where} with a non-numeric or "
                    "infinite score were excluded"
                )
            if e.empty_scores:
                out.append(
                    f"{e.model}: {e.empty_scores:,} rows{where} with an empty (NaN) score "
                    "were excluded"
                )
            if e.duplicates_collapsed:
                out.append(
                    f"{e.model}: {e.duplicates_collapsed:,} identical duplicate rows{where} "
                    "were collapsed"
                )
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return one row per (model, task): rows read, items scored, kept and missing."""
        import pandas as pd

        return pd.DataFrame([e.to_dict() for e in self.entries])


@dataclass(frozen=True)
class TaskScores:
    """Aligned scores of one task: ``scores[i, j]`` is model j's score on item i.

    ``scores`` is NaN where model j has no score for item i (its ``run_counts`` entry is 0);
    a pair of models is compared on the rows both observed.

    Attributes
    ----------
    task : str
        The task.
    item_ids : numpy.ndarray
        Item ids, one per row.
    scores : numpy.ndarray
        ``(items, models)`` scores, NaN where a model has no score.
    run_counts : numpy.ndarray
        ``(items, models)`` runs averaged into each score (0: no score).
    clusters : numpy.ndarray or None
        A cluster label per item, when the input has them.
    """

    task: str
    item_ids: np.ndarray
    scores: FloatArray
    run_counts: IntArray
    clusters: np.ndarray | None

    @property
    def observed(self) -> BoolArray:
        """Boolean ``(n_items, n_models)``: True where the model scored the item."""
        return ~np.isnan(self.scores)

    def cluster_codes(self, use_clusters: bool = True) -> IntArray | None:
        """The clusters as integer codes, one per item (-1: no cluster), or None without
        clusters (or with ``use_clusters`` false): what the rank sets and board scores take."""
        if not use_clusters or self.clusters is None:
            return None
        import pandas as pd

        return np.asarray(pd.factorize(pd.Series(self.clusters), use_na_sentinel=True)[0])

    @property
    def complete(self) -> bool:
        """True when every model scored every item of the task."""
        return not np.isnan(self.scores).any()

    def pair_rows(self, i: int, j: int) -> BoolArray:
        """Return the boolean mask of the items models ``i`` and ``j`` both scored."""
        return ~(np.isnan(self.scores[:, i]) | np.isnan(self.scores[:, j]))


@dataclass(frozen=True)
class ScoreSet:
    """Aligned scores of several models on one or more tasks, with the alignment report.

    Attributes
    ----------
    models : tuple of str
        The models, in the order of the score columns.
    tasks : tuple of TaskScores
        Per task: item ids, an (items x models) score array (NaN where a model has no score)
        and run counts.
    report : AlignmentReport
        What was kept and left out, and why.
    source : str
        What was read.
    """

    models: tuple[str, ...]
    tasks: tuple[TaskScores, ...]
    report: AlignmentReport
    source: str = ""

    @property
    def n_items(self) -> int:
        """Total kept items over all tasks."""
        return int(sum(t.scores.shape[0] for t in self.tasks))

    def model_index(self, model: str) -> int:
        """Return the column of ``model``, or raise naming the models available."""
        if model not in self.models:
            raise unknown_model(model, self.models, f" in {self.source or 'the scores'}")
        return self.models.index(model)

    def pair(self, model_a: str, model_b: str) -> tuple[FloatArray, FloatArray]:
        """Return the two models' scores on the items both scored, over every task, aligned."""
        i, j = self.model_index(model_a), self.model_index(model_b)
        rows = [t.pair_rows(i, j) for t in self.tasks]
        a = np.concatenate([t.scores[r, i] for t, r in zip(self.tasks, rows, strict=True)])
        b = np.concatenate([t.scores[r, j] for t, r in zip(self.tasks, rows, strict=True)])
        if a.size == 0:
            raise InputError(
                f"{self.source + ': ' if self.source else ''}{model_a!r} and {model_b!r} "
                "have no item that both scored; nothing to compare"
                + _id_form_hint(self.tasks, self.models, i, j)
            )
        return a, b

    def pair_items(self, model_a: str, model_b: str) -> np.ndarray:
        """Return the ids of the items :meth:`pair` returns, in its order (``task/item`` when
        there are several tasks)."""
        i, j = self.model_index(model_a), self.model_index(model_b)
        several = len(self.tasks) > 1
        parts = []
        for t in self.tasks:
            ids = np.asarray(t.item_ids)[t.pair_rows(i, j)].astype(str)
            parts.append(np.char.add(f"{t.task}/", ids) if several else ids)
        return np.concatenate(parts) if parts else np.array([], dtype=str)


# Each key column's codes (int32, -1 for missing) and its distinct values.
_KeyCodes: TypeAlias = dict[str, tuple[NDArray[np.int32], np.ndarray]]
# What both alignment paths return: the model order, each task's scores, the per-model
# accounts, and per task the items in the union, kept, and scored by every model.
_Aligned: TypeAlias = tuple[
    list[str],
    list["TaskScores"],
    list[ModelAlignment],
    dict[str, int],
    dict[str, int],
    dict[str, int],
]


# What a job's ``data`` argument takes: a long DataFrame, the long layout a loader read, an
# aligned ScoreSet, or result files (one path or a list of them).
ScoresInput: TypeAlias = "pd.DataFrame | LongScores | ScoreSet | str | Path | Sequence[str | Path]"


def align(
    frame: pd.DataFrame | LongCodes,
    *,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    source: str = "",
    complete_case: bool = False,
    notes: Iterable[object] = (),
) -> ScoreSet:
    """Align a long frame into a :class:`ScoreSet` (see the module docstring for the rules).

    ``models``/``tasks`` select and order what is kept (all, in order of appearance, when
    None). Per task, the items kept are those at least one selected model scored (pairs use
    the items both models scored), or with ``complete_case`` those every selected model
    scored. ``notes`` are the loader's notes, carried into the alignment report.

    Two paths give identical arrays and reports: a dense one (models and items factorized to
    integer codes, scores scattered straight into each task's matrix) for the usual input
    with one row per model and item, and a general one (pandas group-by) for repeated runs
    and duplicate rows. The dense path needs no pandas: a small table read as codes
    (:class:`LongCodes`) is aligned without importing it; codes whose rows the dense path
    cannot take (an empty id or cluster label, duplicate rows) are aligned as their frame.
    """
    models, tasks = _check_align_arguments(frame, models, tasks)
    where = f"{source}: " if source else ""
    keyless, key_codes = _keyless(frame)
    rows_without_key = int(keyless.sum())
    if isinstance(frame, LongCodes) and (rows_without_key or _blank_cluster(frame)):
        frame = frame.to_frame()
    if rows_without_key and not isinstance(frame, LongCodes):
        frame = frame[~keyless]
        key_codes = None  # distinct values of the kept rows only: factorized again
    if len(frame) == 0:
        raise InputError(f"{where}no row has a model, a task and an item id")
    aligned = None
    repeated = "run" in frame.columns or "configuration" in frame.columns
    if not repeated and len(set(models or ())) == len(models or ()):
        if not isinstance(frame, LongCodes):
            _refuse_blank_clusters(frame, where)
        aligned = _align_dense(frame, models, tasks, where, complete_case, key_codes)
    if aligned is None:
        if isinstance(frame, LongCodes):
            frame = frame.to_frame()
        _refuse_blank_clusters(frame, where)
        aligned = _align_general(_decategorized(frame), models, tasks, where, complete_case)
    model_order, task_scores, entries, union_counts, kept_counts, common_counts = aligned
    report = AlignmentReport(
        tuple(entries),
        union_counts,
        kept_counts,
        rows_without_key,
        items_common=common_counts,
        complete_case=complete_case,
        loader_notes=tuple(str(n) for n in notes),
    )
    # strict refuses what was left out, not what was detected (a "(detected)" column note)
    problems = [m for m in report.messages() if not m.endswith("(detected)")]
    if strict and problems:
        raise InputError(
            escape(where)
            + "{strict}"
            + escape(
                f": {problems[0]}{f' (and {len(problems) - 1} more)' if len(problems) > 1 else ''}"
            ),
            param="strict",
            strict=True,
        )
    if sum(kept_counts.values()) == 0:
        raise InputError(
            escape(
                f"{where}no item is scored for every selected model "
                f"({_listing(model_order)}); nothing to compare"
                if complete_case
                else f"{where}no item has a usable score for the selected models; "
                "nothing to compare"
            )
            + _no_item_cause(
                frame.to_frame() if isinstance(frame, LongCodes) else frame,
                entries,
                _all_items(frame, model_order, tasks) if complete_case else task_scores,
                model_order,
            ),
            param="score_column",
        )
    return ScoreSet(tuple(str(m) for m in model_order), tuple(task_scores), report, source)


def _blank_cluster(codes: LongCodes) -> bool:
    """Whether a cluster label of the codes is empty (the frame's rules then apply)."""
    return "cluster" in codes.ids and bool(_blank(codes.ids["cluster"][1]).any())


def _blank(labels: np.ndarray) -> BoolArray:
    """Which distinct labels are empty text (blank once stripped)."""
    return np.asarray(np.char.strip(np.asarray(labels, dtype=str)) == "", dtype=bool)


def _refuse_blank_clusters(frame: pd.DataFrame, where: str) -> None:
    """An item whose cluster label is empty in every row is an error naming the first one.

    An item takes its first non-empty label, so a blank in one model's row is no loss.
    """
    if "cluster" not in frame.columns:
        return
    labels = frame["cluster"]
    blank = labels.isna().to_numpy() | (labels.astype(str).str.strip() == "").to_numpy()
    if not blank.any():
        return
    keys = [frame["task"].astype(str), frame["item_id"].astype(str)]
    unlabelled = pd.Series(blank, index=frame.index).groupby(keys, sort=False).all()
    if unlabelled.any():
        task, item = unlabelled[unlabelled].index[0]
        on = "" if task == "all" else f" of task {task}"
        raise InputError(
            f"{where}{int(unlabelled.sum()):,} items have no cluster label in any row (first: "
            f"item {item!r}{on}); give every item a cluster label, or leave the cluster "
            "column out"
        )


def _check_align_arguments(
    frame: pd.DataFrame | LongCodes, models: Sequence[str] | None, tasks: Sequence[str] | None
) -> list[list[str] | None]:
    """Refuse wrong types with an error naming the parameter; return models/tasks as lists."""
    if not isinstance(frame, LongCodes) and not isinstance(frame, pd.DataFrame):
        raise InputError(
            "align({frame}...): expected a pandas DataFrame in the long layout (columns "
            "model, task, item_id, score), got " + escape(type(frame).__name__),
            param="frame",
        )
    missing = [c for c in ("model", "task", "item_id", "score") if c not in frame.columns]
    if missing:
        raise InputError(
            "align({frame}...): "
            + escape(
                f"the frame has no column {', '.join(map(repr, missing))}; "
                f"the long layout has columns model, task, item_id, score "
                f"(found: {_listing(frame.columns)})"
            ),
            param="frame",
        )
    out: list[list[str] | None] = []
    for name, value in (("models", models), ("tasks", tasks)):
        if value is None:
            out.append(None)
            continue
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise InputError(
                "align({"
                + name
                + "}...): "
                + escape(f"expected a list of names, got {type(value).__name__} {value!r:.60}"),
                param=name,
            )
        out.append(list(value) or None)
    return out


def _keyless(
    frame: pd.DataFrame | LongCodes,
) -> tuple[BoolArray, _KeyCodes | None]:
    """Return (rows with an empty model, task or item id, each key column's codes).

    Computed on each column's distinct values, not row by row: a 20-million-row frame
    needs no string copy of every cell. The codes (int32, in order of appearance, with the
    distinct values) serve the dense alignment.
    """
    out = np.zeros(len(frame), dtype=bool)
    codes: _KeyCodes = {}
    for column in KEYS:
        codes[column] = frame.key(column) if isinstance(frame, LongCodes) else _codes(frame[column])
        values, uniques = codes[column]
        blank = _blank(uniques)
        out |= values < 0
        if blank.any():
            out |= blank[np.maximum(values, 0)] & (values >= 0)
    return out, codes


def _decategorized(frame: pd.DataFrame) -> pd.DataFrame:
    """Return the frame with categorical columns as plain values (the general path's input)."""
    cats = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
    if not cats:
        return frame
    return frame.assign(**{c: frame[c].astype(object) for c in cats})


def _plain(values: ArrayLike) -> np.ndarray:
    """Return distinct values as a NumPy array (categoricals as their plain values)."""
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        return np.asarray(values, dtype=object)
    return np.asarray(values)


def _codes(column: pd.Series) -> tuple[NDArray[np.int32], np.ndarray]:
    """Return (int32 codes in order of appearance, plain distinct values) of a column."""
    codes, uniques = pd.factorize(column)
    return codes.astype(np.int32), _plain(uniques)


# The dense alignment's few table operations, in NumPy so that a small table aligns without
# pandas. With pandas loaded (a DataFrame was given: its rows can number tens of millions) its
# hash tables do the same work faster; both give the same codes, in the same order.


def _in_order(codes: np.ndarray, n: int, *, hashed: bool | None = None) -> np.ndarray:
    """The distinct values of ``codes`` (integers in ``[0, n)``) in order of first appearance,
    as ``pandas.unique`` gives them. ``hashed``: use pandas (default: when it is loaded)."""
    if hashed if hashed is not None else "pandas" in sys.modules:
        return np.asarray(pd.unique(codes))
    if n > 4 * codes.size + 1024:  # a sparse range: sort rather than a table of n entries
        values, first = np.unique(codes, return_index=True)
        return values[np.argsort(first, kind="stable")]
    first = np.full(n, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size))
    present = np.flatnonzero(first < codes.size)
    return present[np.argsort(first[present], kind="stable")].astype(codes.dtype)


def _factorize(
    keys: np.ndarray, n: int, *, hashed: bool | None = None
) -> tuple[NDArray[np.int32], np.ndarray]:
    """Codes (int32, in order of first appearance) and distinct values of integer ``keys`` in
    ``[0, n)``, as ``pandas.factorize`` gives them."""
    if hashed if hashed is not None else "pandas" in sys.modules:
        codes, uniques = pd.factorize(keys)
        return codes.astype(np.int32), np.asarray(uniques)
    uniques = _in_order(keys, n, hashed=False)
    if n <= 4 * keys.size + 1024:
        rank = np.zeros(n, dtype=np.int32)
        rank[uniques] = np.arange(uniques.size, dtype=np.int32)
        return rank[keys], uniques
    by_value = np.argsort(uniques)  # a sparse range: look the keys up among the sorted values
    return by_value[np.searchsorted(uniques[by_value], keys)].astype(np.int32), uniques


def _positions(order: Sequence[object], labels: np.ndarray) -> NDArray[np.int32]:
    """Each label's position in ``order`` (-1: not there), as ``Index.get_indexer``."""
    where = {name: k for k, name in enumerate(order)}
    return np.fromiter(
        (where.get(label, -1) for label in labels.tolist()), dtype=np.int32, count=len(labels)
    )


# A cell spelled as a plain decimal number: one that pandas, Arrow and Python read as the same
# number (an item id sorted as a number, a small table's score read without either library).
_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+")
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _natural_order(ids: np.ndarray) -> np.ndarray:
    """Positions sorting item ids as :func:`_natural_key` sorts an index: by their numbers
    when every id is one, else as text (NumPy's quicksort, as pandas sorts an index).

    Ids that are all plain numbers, or of which one is no number at all, are decided here;
    others (numbers spelled ``1_000`` or `` inf``, ids that are not text) by pandas itself.
    """
    texts = ids.tolist()
    if all(isinstance(x, str) for x in texts):
        if all(_PLAIN_INTEGER.fullmatch(x) for x in texts):
            numbers = [int(x) for x in texts]
            if all(-(2**63) <= x < 2**63 for x in numbers):
                return np.argsort(np.array(numbers, dtype=np.int64), kind="quicksort")
        elif all(PLAIN_NUMBER.fullmatch(x) for x in texts):
            return np.argsort(np.array(texts, dtype=float), kind="quicksort")
        elif not all(_maybe_number(x) for x in texts):  # one is no number: text order
            return np.argsort(np.asarray(ids, dtype=object), kind="quicksort")
    index = pd.Index(ids, name="item_id")
    return pd.Series(np.arange(len(ids)), index=index).sort_index(key=_natural_key).to_numpy()


def _maybe_number(text: str) -> bool:
    """Whether Python reads ``text`` as a number (infinite or NaN included)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _score_arrays(raw: pd.Series | np.ndarray) -> tuple[FloatArray, BoolArray, BoolArray]:
    """:func:`_numeric_scores` as arrays: float scores, non-numeric rows, empty rows.

    Scores read as floats (a small table's codes) are judged in NumPy by the rule
    :func:`_numeric_scores` applies to a numeric column: NaN is empty, infinity unusable.
    """
    if isinstance(raw, np.ndarray) and raw.dtype == np.float64:
        return raw, _float_checks(raw), np.isnan(raw)
    values, bad, empty = _numeric_scores(raw if isinstance(raw, pd.Series) else pd.Series(raw))
    return values.to_numpy(dtype=float), bad.to_numpy(dtype=bool), empty.to_numpy(dtype=bool)


def _float_checks(values: FloatArray) -> BoolArray:
    """Infinite scores (unusable); a finite one too large for a variance is refused."""
    beyond = np.abs(values) > _validate.MAX_SCORE  # infinite ones too; NaN is not
    if not beyond.any():  # the usual scores: one pass, no infinity to mark
        return beyond
    huge = beyond & np.isfinite(values)
    if huge.any():  # finite, but a variance of such scores overflows: refused in every job
        raise _validate.score_too_large(float(values[huge][0]))
    return beyond


def _align_dense(
    frame: pd.DataFrame | LongCodes,
    models: Sequence[str] | None,
    tasks: Sequence[str] | None,
    where: str,
    complete_case: bool,
    key_codes: _KeyCodes | None = None,
) -> _Aligned | None:
    """Align by integer codes and a scatter into each task's matrix; None to use the general path.

    Used when there is no run column; returns None (the general path decides) when a
    (model, task, item) has several usable rows, i.e. duplicates or conflicts. Works on
    NumPy code arrays, never on a copy of the frame.
    """
    if key_codes is None:
        key_codes = _keyless(frame)[1] or {}
    # Popped, so the caller's dict no longer holds the code arrays once they are replaced.
    (m_codes, m_plain), (t_codes, t_plain), (i_codes, i_plain) = (
        key_codes.pop(c) for c in ("model", "task", "item_id")
    )
    u_codes, u_task, u_item = _item_universe(t_codes, len(t_plain), i_codes, len(i_plain))
    n_u = u_task.size
    del i_codes, key_codes

    chosen = _dense_selection(m_codes, m_plain, t_codes, t_plain, models, tasks, where)
    score_column = frame.score if isinstance(frame, LongCodes) else frame["score"]
    cluster_codes, cluster_plain = (
        (frame.key("cluster") if isinstance(frame, LongCodes) else _codes(frame["cluster"]))
        if "cluster" in frame.columns
        else (None, None)
    )
    if chosen is not None:
        m_codes, t_codes, u_codes = m_codes[chosen], t_codes[chosen], u_codes[chosen]
        score_column = score_column[chosen]
        if cluster_codes is not None:
            cluster_codes = cluster_codes[chosen]
    # Codes are numbered in order of first appearance (factorized, or by the readers): with
    # every row kept, that order is the codes' own.
    model_order = (
        list(models)
        if models
        else list(m_plain if chosen is None else m_plain[_in_order(m_codes, len(m_plain))])
    )
    task_order = (
        list(tasks)
        if tasks
        else list(t_plain if chosen is None else t_plain[_in_order(t_codes, len(t_plain))])
    )
    n_m, n_t = len(model_order), len(task_order)
    m_pos = _positions(model_order, m_plain)[m_codes]
    t_pos = _positions(task_order, t_plain)[t_codes]
    del m_codes, t_codes

    score, usable, counts = _dense_scores(score_column, m_pos, t_pos, n_m, n_t)
    row_of_u, members_of = _task_members(task_order, t_plain, u_task, u_item, i_plain)
    if not usable.all():
        m_pos, t_pos, u_codes, score = m_pos[usable], t_pos[usable], u_codes[usable], score[usable]
        if cluster_codes is not None:
            cluster_codes = cluster_codes[usable]
    wides = _scatter_tasks(task_order, members_of, row_of_u, u_codes, m_pos, t_pos, score, n_m)
    if wides is None:
        return None  # duplicate rows: collapsed, or refused as conflicts, by the general path
    del m_pos, t_pos, score

    labels = None
    if cluster_codes is not None and cluster_plain is not None:  # both or neither
        labels = _dense_cluster_labels(
            cluster_codes, cluster_plain, u_codes, n_u, where, i_plain[u_item]
        )
    entries, task_scores = [], []
    union_counts, kept_counts, common_counts = {}, {}, {}
    for k, task in enumerate(task_order):
        members, ids = members_of[task]
        wide = cast(FloatArray, wides[k])  # released (None) only after its task is done
        present = ~np.isnan(wide)
        complete = present.all(axis=1)
        keep = cast(BoolArray, complete if complete_case else present.any(axis=1))
        union_counts[task] = int(members.size)
        common_counts[task] = int(complete.sum())
        kept_counts[task] = int(keep.sum())
        cells = [int(c[j * n_t + k]) for c in counts for j in range(n_m)]
        entries.extend(_dense_model_alignments(str(task), model_order, wide, present, keep, cells))
        cl = None if labels is None else _kept_labels(labels, members, keep)
        task_scores.append(
            TaskScores(
                task=str(task),
                item_ids=ids[keep],
                scores=wide[keep] if not keep.all() else wide,
                run_counts=present[keep].astype(np.int64),
                clusters=cl,
            )
        )
        wides[k] = None
    return model_order, task_scores, entries, union_counts, kept_counts, common_counts


def _kept_labels(labels: np.ndarray, members: np.ndarray, keep: BoolArray) -> np.ndarray:
    """Return the cluster labels of a task's kept items (an object array)."""
    kept = np.empty(int(keep.sum()), dtype=object)
    kept[:] = labels[members[keep]]
    return kept


def _item_universe(
    t_codes: np.ndarray, n_tasks: int, i_codes: np.ndarray, n_items: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (task, item) of the input, in order of appearance: the universe that missing
    items are counted against, whichever models are selected. Return each row's entry in it
    and each entry's task and item code."""
    n_i = max(n_items, 1)
    if n_tasks == 1:  # item codes are already numbered in order of appearance
        u_codes, u_pairs = i_codes, np.arange(n_items, dtype=np.int64)
    else:
        u_codes, u_pairs = _factorize(t_codes.astype(np.int64) * n_i + i_codes, n_tasks * n_i)
    return u_codes, u_pairs // n_i, u_pairs % n_i


def _dense_selection(
    m_codes: np.ndarray,
    m_plain: np.ndarray,
    t_codes: np.ndarray,
    t_plain: np.ndarray,
    models: Sequence[str] | None,
    tasks: Sequence[str] | None,
    where: str,
) -> BoolArray | None:
    """Return the rows of the selected models and tasks (None: every row), decided on the
    distinct values as :func:`_select` decides on the rows; a name not there is refused."""
    chosen = None
    if models:
        _refuse_missing("model", models, list(m_plain), where)
        chosen = (_positions(models, m_plain) >= 0)[m_codes]
    if tasks:
        seen = t_codes if chosen is None else t_codes[chosen]
        _refuse_missing("task", tasks, list(t_plain[_in_order(seen, len(t_plain))]), where)
        in_tasks = (_positions(tasks, t_plain) >= 0)[t_codes]
        chosen = in_tasks if chosen is None else chosen & in_tasks
    return chosen


def _dense_scores(
    score_column: pd.Series | FloatArray,
    m_pos: np.ndarray,
    t_pos: np.ndarray,
    n_m: int,
    n_t: int,
) -> tuple[FloatArray, BoolArray, tuple[IntArray, IntArray, IntArray]]:
    """Return the rows' scores as floats, which are usable, and per (model, task) cell
    (``model * n_t + task``) its rows, its non-numeric scores and its empty ones."""
    score, non_numeric, empty = _score_arrays(score_column)
    mt = m_pos.astype(np.int64) * n_t + t_pos
    counts = (
        np.bincount(mt, minlength=n_m * n_t),
        np.bincount(mt[non_numeric], minlength=n_m * n_t),
        np.bincount(mt[empty], minlength=n_m * n_t),
    )
    return score, ~(non_numeric | empty), counts


def _task_members(
    task_order: Sequence[str],
    t_plain: np.ndarray,
    u_task: np.ndarray,
    u_item: np.ndarray,
    i_plain: np.ndarray,
) -> tuple[NDArray[np.int32], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Return each universe entry's row in its task's matrix, and per task its entries and
    item ids in that order: items sorted as the general path does."""
    row_of_u = np.zeros(u_task.size, dtype=np.int32)
    members_of = {}
    position = {label: k for k, label in enumerate(t_plain.tolist())}
    for task in task_order:
        members = np.flatnonzero(u_task == position[task])
        ids = i_plain[u_item[members]]
        order = _natural_order(ids)
        members = members[order]
        row_of_u[members] = np.arange(members.size)
        members_of[task] = (members, ids[order])
    return row_of_u, members_of


def _scatter_tasks(
    task_order: Sequence[str],
    members_of: dict[str, tuple[np.ndarray, np.ndarray]],
    row_of_u: np.ndarray,
    u_codes: np.ndarray,
    m_pos: np.ndarray,
    t_pos: np.ndarray,
    score: FloatArray,
    n_m: int,
) -> list[FloatArray | None] | None:
    """Return each task's (items, models) matrix of the usable rows' scores (the row of
    their universe entry, the column of their model), NaN where unscored; None when a cell
    is filled twice."""
    n_t = len(task_order)
    by_task = np.argsort(t_pos, kind="stable") if n_t > 1 else None
    bounds = np.searchsorted(t_pos[by_task], np.arange(n_t + 1)) if n_t > 1 else [0, t_pos.size]
    wides: list[FloatArray | None] = []
    for k, task in enumerate(task_order):
        members, _ = members_of[task]
        take = by_task[bounds[k] : bounds[k + 1]] if by_task is not None else slice(None)
        wide = np.full((members.size, n_m), np.nan)
        flat = row_of_u[u_codes[take]].astype(np.int64) * n_m + m_pos[take]
        wide.ravel()[flat] = score[take]
        # Usable scores are finite: fewer filled cells than rows means a repeated cell.
        if np.count_nonzero(~np.isnan(wide)) != flat.size:
            return None
        wides.append(wide)
    return wides


def _dense_model_alignments(
    task: str,
    model_order: Sequence[str],
    wide: FloatArray,
    present: BoolArray,
    keep: BoolArray,
    cells: list[int],
    whole: bool = False,
) -> list[ModelAlignment]:
    """Return each model's alignment on one task, from its column of the task's matrix and
    its cell's counts (``cells``: the rows, then the non-numeric, then the empty scores,
    model by model); ``present`` marks the scored cells, ``keep`` the items kept.
    ``whole``: every cell is scored with a whole number, whose sums are exact in any order
    (each mean is then the column sum over the items, with no masked copy)."""
    n_m = len(model_order)
    scored = np.full(wide.shape[1], wide.shape[0]) if whole else present.sum(axis=0)
    kept = scored if keep.all() else (present & keep[:, None]).sum(axis=0)
    means = wide.sum(axis=0) / scored if whole else _column_means(wide, present, scored)
    return [
        ModelAlignment(
            model=str(m),
            task=task,
            rows=cells[j],
            items_scored=int(scored[j]),
            items_kept=int(kept[j]),
            items_missing=int(wide.shape[0] - scored[j]),
            duplicates_collapsed=0,
            non_numeric=cells[n_m + j],
            empty_scores=cells[2 * n_m + j],
            max_runs=1 if scored[j] else 0,
            mean_score=float(means[j]) if scored[j] else float("nan"),
        )
        for j, m in enumerate(model_order)
    ]


def _column_means(
    wide: FloatArray, present: BoolArray, scored: IntArray, block: int = 64
) -> FloatArray:
    """Each column's mean over its scored cells, summed as a column by itself is (NumPy's
    pairwise sum of a contiguous copy, as ``pandas.Series.mean``), a block of columns at a
    time: the same figure as the column's own mean, without an (N, K) temporary."""
    sums = np.zeros(wide.shape[1])
    for start in range(0, wide.shape[1], block):
        part = slice(start, start + block)
        filled = np.where(present[:, part], wide[:, part], 0.0).T.copy()
        sums[part] = filled.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / scored


def _dense_cluster_labels(
    codes: np.ndarray,
    plain: np.ndarray,
    u_codes: np.ndarray,
    n_u: int,
    where: str,
    item_of_u: np.ndarray,
) -> np.ndarray:
    """Each universe entry's cluster label (its first non-empty one), from usable rows.

    An item with two different labels is refused, naming the item the general path names
    (the first such item in order of appearance).
    """
    labelled = codes >= 0
    uu, cc = u_codes[labelled], codes[labelled]
    n_c = max(len(plain), 1)
    distinct = np.unique(uu.astype(np.int64) * n_c + cc)
    clash = np.bincount(distinct // n_c, minlength=n_u) > 1
    if clash.any():
        firsts, where_first = np.unique(u_codes, return_index=True)
        first_row = np.full(n_u, np.iinfo(np.int64).max)
        first_row[firsts] = where_first
        bad = int(np.argmin(np.where(clash, first_row, np.iinfo(np.int64).max)))
        raise InputError(
            f"{where}item {item_of_u[bad]!r} carries different cluster labels in "
            "different rows; each item needs one cluster label"
        )
    labels = np.full(n_u, np.nan, dtype=object)
    entries, first = np.unique(uu, return_index=True)
    labels[entries] = plain[cc[first]]
    return labels


def _align_general(
    frame: pd.DataFrame,
    models: Sequence[str] | None,
    tasks: Sequence[str] | None,
    where: str,
    complete_case: bool,
) -> _Aligned:
    """Align through pandas group-by: runs are averaged, identical duplicates collapsed."""
    # Missing items are counted against every item the file has for a task, whichever models
    # are selected: "lacks 1,681 of 12,032 items", not of the selected models' union.
    universe = frame.groupby("task", sort=False)["item_id"].unique()
    frame = _select(frame, "model", models, where)
    frame = _select(frame, "task", tasks, where)
    model_order = list(models) if models else list(pd.unique(frame["model"]))
    task_order = list(tasks) if tasks else list(pd.unique(frame["task"]))
    has_run = "run" in frame.columns
    has_cluster = "cluster" in frame.columns

    score, non_numeric, empty = _numeric_scores(frame["score"])
    frame = frame.assign(score=score)
    counts = (
        frame.assign(_non_numeric=non_numeric, _empty=empty)
        .groupby(["model", "task"], sort=False)[["_non_numeric", "_empty"]]
        .sum()
    )
    rows = frame.groupby(["model", "task"], sort=False).size()
    usable = frame[~(non_numeric | empty)]

    # a configuration (--config-columns) is one more level of repeats, averaged as runs are
    key = ["model", "task", "item_id", *(c for c in ("configuration", "run") if c in frame)]
    spread = usable.groupby(key, sort=False)["score"].agg(["size", "min", "max"])
    _refuse_conflicts(spread, key, where, has_run)
    duplicates = (spread["size"] - 1).groupby(level=["model", "task"], sort=False).sum()
    deduped = usable.drop_duplicates(subset=key)
    per_item = deduped.groupby(["model", "task", "item_id"], sort=False)["score"].agg(
        ["mean", "size"]
    )
    per_item = per_item.reset_index()

    entries = []
    task_scores = []
    union_counts, kept_counts, common_counts = {}, {}, {}
    clusters_by_item = _cluster_labels(deduped, where) if has_cluster else None
    for task in task_order:
        sub = per_item[per_item["task"] == task]
        wide = sub.pivot(index="item_id", columns="model", values="mean").reindex(
            columns=model_order
        )
        runs = sub.pivot(index="item_id", columns="model", values="size").reindex(
            columns=model_order
        )
        wide = wide.reindex(pd.Index(universe[task], name="item_id")).sort_index(key=_natural_key)
        runs = runs.reindex(wide.index)
        present_any = wide.notna().any(axis=1).to_numpy()
        complete = wide.notna().all(axis=1).to_numpy()
        keep = complete if complete_case else present_any
        union_counts[task] = int(wide.shape[0])
        common_counts[task] = int(complete.sum())
        kept_counts[task] = int(keep.sum())
        for m in model_order:
            present = wide[m].notna().to_numpy()
            entries.append(
                ModelAlignment(
                    model=str(m),
                    task=str(task),
                    rows=int(rows.get((m, task), 0)),
                    items_scored=int(present.sum()),
                    items_kept=int((present & keep).sum()),
                    items_missing=int((~present).sum()),
                    duplicates_collapsed=int(duplicates.get((m, task), 0)),
                    non_numeric=int(counts["_non_numeric"].get((m, task), 0)),
                    empty_scores=int(counts["_empty"].get((m, task), 0)),
                    max_runs=int(np.nanmax(runs[m].to_numpy())) if present.any() else 0,
                    mean_score=float(wide[m].mean()) if present.any() else float("nan"),
                )
            )
        ids = wide.index.to_numpy()[keep]
        cl = None
        if clusters_by_item is not None:
            cl = clusters_by_item.reindex(
                pd.MultiIndex.from_arrays([np.full(ids.size, task, dtype=object), ids])
            ).to_numpy(dtype=object)
        task_scores.append(
            TaskScores(
                task=str(task),
                item_ids=ids,
                scores=wide.to_numpy(dtype=float)[keep],
                run_counts=np.nan_to_num(runs.to_numpy(dtype=float)[keep]).astype(np.int64),
                clusters=cl,
            )
        )
    return model_order, task_scores, entries, union_counts, kept_counts, common_counts


def _refuse_conflicts(spread: pd.DataFrame, key: list[str], where: str, has_run: bool) -> None:
    """Refuse rows of one item (and run, configuration) with different scores, naming the
    first and the count: ``spread`` holds each key's ``size``, ``min`` and ``max``."""
    conflicts = spread[spread["min"] != spread["max"]]
    if not len(conflicts):
        return
    idx = conflicts.index[0]
    model, task, item = idx[0], idx[1], idx[2]
    first = conflicts.iloc[0]
    run = "".join(f" {name} {value!r}" for name, value in zip(key[3:], idx[3:], strict=True))
    conflict = (
        f"{where}item {item!r}{run} of model {model!r}"
        f"{'' if task == 'all' else f' (task {task})'} has conflicting scores "
        f"{first['min']:g} and {first['max']:g} in different rows ({len(conflicts):,} "
        "such items); "
    )
    if has_run:
        raise InputError(conflict + "fix the file")
    raise InputError(
        escape(conflict) + "name the run column with {run_column} if these are repeated "
        "runs, or fix the file",
        param="run_column",
    )


def _select(
    frame: pd.DataFrame, column: str, wanted: Iterable[object] | None, where: str
) -> pd.DataFrame:
    if not wanted:
        return frame
    _refuse_missing(column, wanted, list(pd.unique(frame[column])), where)
    return frame[frame[column].isin(list(wanted))]


def _refuse_missing(
    column: str, wanted: Iterable[object], available: list[object], where: str
) -> None:
    """Raise naming the first wanted value that is not available (with the closest ones)."""
    missing = [w for w in wanted if w not in set(available)]
    if missing:
        if column == "task" and available == ["all"]:
            raise InputError(
                escape(f"{where}no task {missing[0]!r}: ")
                + "the scores have no task column (every row is task 'all'); name the column "
                "that holds the task with {task_column}",
                param="task_column",
            )
        raise InputError(not_found(column, missing[0], available, before=where))


def _numeric_scores(raw: pd.Series) -> tuple[pd.Series, pd.Series, pd.Series]:
    """Return float scores with masks of non-numeric and empty entries."""
    if raw.dtype == bool:
        return (
            raw.astype(float),
            pd.Series(False, index=raw.index),
            pd.Series(False, index=raw.index),
        )
    text = raw if raw.dtype != object else raw.map(_bool_text)
    values = pd.to_numeric(text, errors="coerce").astype(float)
    if pd.api.types.is_numeric_dtype(raw.dtype):
        empty = raw.isna()  # a number is never blank text: no string copy of every cell
    else:
        empty = raw.isna() | (raw.astype(str).str.strip() == "")
    bad = (values.isna() & ~empty) | _float_checks(values.to_numpy(dtype=float))
    return values, bad, empty


def _bool_text(value: object) -> object:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return 1.0 if lowered == "true" else 0.0
    return value


def _cluster_labels(frame: pd.DataFrame, where: str) -> pd.Series:
    labels = frame.groupby(["task", "item_id"], sort=False)["cluster"].agg(["first", "nunique"])
    clash = labels[labels["nunique"] > 1]
    if len(clash):
        _task, item = clash.index[0]
        raise InputError(
            f"{where}item {item!r} carries different cluster labels in different rows; "
            "each item needs one cluster label"
        )
    return labels["first"]


def _natural_key(index: pd.Index) -> pd.Index:
    numeric = pd.to_numeric(pd.Series(index), errors="coerce")
    if numeric.notna().all():
        return pd.Index(numeric)
    return index


def _listing(names: Iterable[object], limit: int = 8) -> str:
    texts = [str(n) for n in names]
    shown = ", ".join(texts[:limit])
    return shown + (f", ... ({len(texts)} in all)" if len(texts) > limit else "")


def not_found(
    column: str, value: object, available: Sequence[object], *, before: str = "", at: str = ""
) -> str:
    """The text for a model (task, ...) the scores lack: ``{before}no {column} 'x'{at}``, the
    ones found, then the closest names (``; did you mean 'y'?``)."""
    return (
        f"{before}no {column} {value!r}{at}; {column}s found: {_listing(available)}"
        f"{_suggestion(value, available)}"
    )


def unknown_model(model: str, available: Sequence[str], where: str = "") -> InputError:
    """The error for a model the scores lack (no parameter: the text is shown as it is)."""
    return InputError(not_found("model", model, available, at=where))


def _suggestion(name: object, available: Iterable[object]) -> str:
    """Return "; did you mean 'x'?" naming the closest available names, or ""."""
    by_folded: dict[str, str] = {}
    for a in available:
        by_folded.setdefault(str(a).casefold(), str(a))
    close = difflib.get_close_matches(str(name).casefold(), list(by_folded), n=3, cutoff=0.6)
    if not close:
        return ""
    return f"; did you mean {' or '.join(repr(by_folded[c]) for c in close)}?"


def number_form(value: object) -> float | None:
    """Return the number an item id spells ('1', '1.0', '01' -> 1.0), or None."""
    try:
        number = float(str(value))
    except ValueError:
        return None
    return number if np.isfinite(number) else None


def _id_form_hint(tasks: Sequence[TaskScores], models: Sequence[str], i: int, j: int) -> str:
    """Say so when two models' item ids differ only in how a number is written ('1', '1.0')."""
    for t in tasks:
        ids_a = t.item_ids[~np.isnan(t.scores[:, i])]
        ids_b = t.item_ids[~np.isnan(t.scores[:, j])]
        forms: dict[float, object] = {}
        for x in ids_b[:100_000]:
            number = number_form(x)
            if number is not None:
                forms.setdefault(number, x)
        for x in ids_a[:100_000]:
            number = number_form(x)
            if number is not None and number in forms and str(forms[number]) != str(x):
                return escape(
                    f"; their item ids differ only in how numbers are written ({x!r} for "
                    f"{models[i]!r}, {forms[number]!r} for {models[j]!r}): write the ids alike "
                    "in every file (an id column read as decimals turns 1 into 1.0)"
                )
    return ""


def _all_items(
    frame: pd.DataFrame, model_order: Sequence[str], tasks: Sequence[str] | None
) -> tuple[TaskScores, ...]:
    """The tasks' scores on every item some model scored (to explain an empty common set)."""
    try:
        return align(frame, models=list(model_order), tasks=tasks).tasks
    except InputError:
        return ()


def _no_item_cause(
    frame: pd.DataFrame,
    entries: Sequence[ModelAlignment],
    task_scores: Sequence[TaskScores],
    model_order: Sequence[str],
) -> str:
    """Name why no item is usable: text scores, or item ids written differently per model."""
    non_numeric = sum(e.non_numeric for e in entries)
    if non_numeric and not any(e.items_scored for e in entries):
        _, bad, _ = _numeric_scores(frame["score"])
        example = frame["score"][bad.to_numpy()].iloc[0] if bad.any() else None
        return (
            escape(f": the scores are not numeric ({non_numeric:,} rows, e.g. {example!r}); ")
            + "map them to numbers (1 for a correct answer, 0 for a wrong one; true/false is "
            "read as 1/0), or name the column that holds the numbers with {score_column}"
        )
    names = [str(m) for m in model_order]
    if task_scores and len(names) <= 50:
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                hint = _id_form_hint(task_scores, names, i, j)
                if hint:
                    return hint.replace("; their", ": the models'", 1)
    return ""
