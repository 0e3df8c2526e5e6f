"""The rank table: :class:`RanksResult` and the rows every rank set fills.

The plain rank sets (:func:`evalgap.jobs.ranks.ranks_scores`), the arena's
(:func:`evalgap.jobs.ranks.ranks_battles`) and the gold scale's
(:func:`evalgap.jobs.gold.ranks_gold`) all return one :class:`RanksResult`, built from the
same rows (:func:`rank_frame`); this module sits below the three, so the ``ranks`` front door
in :mod:`evalgap.jobs.ranks` may dispatch to the gold scale without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result, RowResult, TableResult
from evalgap._scores import AlignmentReport
from evalgap.errors import InputError, escape
from evalgap.jobs._pages import HtmlPage, MarkdownPage
from evalgap.jobs.fragility import RankClaimFragility

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

    from evalgap.stats.ranks import RankSets

RANK_COLUMNS = (
    "task",
    "model",
    "score",
    "se",
    "score_low",
    "score_high",
    "own_items_mean",
    "n_items",
    "rank",
    "rank_low",
    "rank_high",
    "tier",
)


@dataclass(frozen=True, repr=False)
class OverTasksModel(RowResult):
    """One model's aggregate over tasks (``RanksResult.over_tasks``).

    Attributes
    ----------
    model : str
        The model.
    score : float
        The mean of its task scores.
    rank_low_items, rank_high_items : int
        Its simultaneous rank set with the tasks fixed (their items resampled).
    rank_low, rank_high : int
        Its simultaneous rank set with the tasks drawn from a population (tasks and items
        resampled: the claim about the benchmark's kind of task).
    se_items, se : float
        The aggregate's standard error under each.
    """

    model: str
    score: float
    rank_low_items: int
    rank_high_items: int
    rank_low: int
    rank_high: int
    se_items: float
    se: float
    _headline = ("model", "score")


@dataclass(frozen=True, repr=False)
class OverTasks(TableResult):
    """The aggregate over tasks (mean of task scores) with both kinds of rank sets.

    Attributes
    ----------
    n_tasks : int
        Tasks averaged.
    models : tuple of OverTasksModel
        Best first.
    widening : float
        The mean size of the two-way sets over that of the items-only sets.
    """

    n_tasks: int
    models: tuple[OverTasksModel, ...]
    widening: float
    _rows = "models"  # to_frame(): the models, one row each


@dataclass(frozen=True, repr=False)
class RanksResult(HtmlPage, MarkdownPage, Result):
    """Everything ``evalgap ranks`` reports (the documented ``--json`` contract).

    Attributes
    ----------
    method : str
        How the sets were made: ``"max-t stepdown bootstrap"`` or, where the ratio of
        models to items is too large for the bootstrap's coverage, ``"Holm pairwise"``
        (per task in ``methods`` when tasks differ).
    alpha : float
        One minus the simultaneous confidence level.
    n_bootstrap : int
        Bootstrap replicates (0 when no task used the bootstrap).
    ranks : pandas.DataFrame
        One row per task and model, best first: ``task, model, score, se, score_low,
        score_high, own_items_mean, n_items, rank, rank_low, rank_high, tier``. ``score``
        is the board score (:func:`evalgap.stats.board.board_scores`: the mean on complete
        data, the additive fit model + item when items are missing; Bradley-Terry: the
        log-strength), ``se`` its standard error, ``score_low``-``score_high`` its
        (1 - alpha) interval (that model alone; Wilson's for binary scores),
        ``own_items_mean`` the mean over the model's own items, ``rank`` one plus the models
        ahead on the items both scored (on complete data, the rank by score; equal ranks are
        shared and listed by score), ``rank_low``-``rank_high`` the simultaneous set.
        ``audit`` and ``card`` list the models in this order.
    marginal : pandas.DataFrame
        The same keys, with each model's marginal set (valid for that model alone).
    methods : dict
        Per task: the method used.
    top_k : dict or None
        ``{"k": k, "models": {task: [models that could be among the best k]}}``.
    shown_better : dict
        Per task: a (K, K) boolean array, ``[i, j]`` true when model i is shown better than
        model j (models in ``models_of(task)`` order). Not in the JSON.
    notes : tuple of str
        What the result needs said beside the numbers (fallbacks, items left out).
    alignment : AlignmentReport or None
        What the alignment kept and left out.
    bradley_terry : dict or None
        Battles only: ``ties``, ``tie_parameter`` (Davidson's nu), ``n_battles``,
        ``models`` and ``win_probability`` (``[i][j]``: model i beats model j).
    critical_values : dict
        Per task: the final stepdown critical value of the studentized gaps (NaN for Holm).
    over_tasks : OverTasks or None
        With several tasks that every model scored: the mean of the task scores and its
        simultaneous rank sets with the tasks fixed and with the tasks drawn from a
        population (see :mod:`evalgap.stats.task_ranks`), and how much the second widen.
    fragility : tuple of RankClaimFragility or None
        Items (battles) to flip of the rank claims: each task's top claim (a single rank 1)
        and each rank-adjacent pair's, with the critical value held fixed (see
        :func:`evalgap.jobs.fragility.rank_fragility`); arenas: the top score and adjacent
        scores, by influence and refits.
    gold : pandas.DataFrame or None
        With gold labels (``gold_column=`` or ``gold=``): the scores are on the gold scale
        (PPI++) and this table gives, per task and model, the judge against the gold:
        ``score`` (PPI++) with its t interval ``score_low``-``score_high``,
        ``judge_score``, ``n_gold``, ``lam``, ``effective_n``, ``bias`` (the judge's mean
        minus the gold's on the labelled items) with its t interval ``bias_low``-``bias_high``
        and test ``bias_p_value``, ``agreement`` (binary scores: the share of labelled
        items where judge and gold agree), ``correlation``, and ``bias_flagged`` (the bias
        significant under Holm over every row of the table). An interval whose SE is 0
        (a few labels that all agree) has NaN ends: it is not given.
    """

    method: str
    alpha: float
    n_bootstrap: int
    ranks: pd.DataFrame
    marginal: pd.DataFrame
    methods: dict[str, str]
    top_k: dict[str, Any] | None = None
    shown_better: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    alignment: AlignmentReport | None = None
    bradley_terry: dict[str, Any] | None = None
    critical_values: dict[str, float] = field(default_factory=dict)
    fragility: tuple[RankClaimFragility, ...] | None = None
    over_tasks: OverTasks | None = None
    gold: pd.DataFrame | None = None
    _omit: ClassVar[tuple[str, ...]] = ("shown_better",)
    _derived: ClassVar[tuple[str, ...]] = ("separated", "verdict")
    _headline: ClassVar[tuple[str, ...]] = ("method",)

    @property
    def verdict(self) -> str:
        """One plain sentence: tiers, models with a rank of their own, the method."""
        from evalgap.report.sentences import ranks_verdict

        return ranks_verdict(self)

    @property
    def separated(self) -> dict[str, int]:
        """Per task: the adjacent rows of the rank table (each model and the next) whose
        upper model the simultaneous sets show better than the lower (the card's and the
        pages' count of separated pairs)."""
        return {
            task: int(np.diagonal(np.asarray(better, dtype=bool), offset=1).sum())
            for task, better in self.shown_better.items()
        }

    def to_frame(self) -> pd.DataFrame:
        """Return ``ranks`` with the marginal sets as ``marginal_low``/``marginal_high``."""
        out = self.ranks.copy()
        if len(self.marginal):
            m = self.marginal.set_index(["task", "model"])
            keys = pd.MultiIndex.from_frame(out[["task", "model"]])
            out["marginal_low"] = m["rank_low"].reindex(keys).to_numpy()
            out["marginal_high"] = m["rank_high"].reindex(keys).to_numpy()
        return out

    def models_of(self, task: str) -> list[str]:
        """The models of ``task`` in the order of ``shown_better``'s rows."""
        return self.ranks.loc[self.ranks["task"] == task, "model"].tolist()

    def tiers(self) -> dict:
        """Per task: the models of each tier, best tier first (the audit's ``tiers`` layout)."""
        out = {}
        for task, sub in self.ranks.groupby("task", sort=False):
            sub = sub.sort_values("rank", kind="stable")  # rows are in board order
            out[task] = [g["model"].tolist() for _, g in sub.groupby("tier", sort=True)]
        return out

    _heading: ClassVar[str] = "evalgap ranks"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_ranks

        render_ranks(self, console)

    def _page(self, title: str | None, provenance: dict[str, Any] | None) -> str:
        from evalgap.report.html import ranks_report

        return ranks_report(self, title=title or "evalgap ranks", provenance=provenance)

    def _figure(self) -> Figure:
        return self.plot()

    def plot(self, task: str | None = None) -> Figure:
        """Return a task's rank-set chart (the first task's when ``task`` is None): each
        model's simultaneous set, its marginal set inside it, its rank and the tiers, in the
        order of the rank table."""
        from evalgap.report.plots import rank_sets_figure

        names = list(dict.fromkeys(self.ranks["task"]))
        chosen = names[0] if task is None else task
        if chosen not in names:
            raise InputError(
                "{task}" + escape(f" {chosen!r} is not a task of the ranks ({', '.join(names)})"),
                param="task",
            )
        frame = self.to_frame()
        level = f"{100 * (1 - self.alpha):g}%"
        return rank_sets_figure(frame[frame["task"] == chosen], f"{chosen}: rank sets", level=level)


def rank_frame(
    task: str, models: np.ndarray, sets: RankSets, order: np.ndarray, alpha: float
) -> pd.DataFrame:
    """The rank table's rows of one task (``RANK_COLUMNS``), its models in ``order``."""
    from evalgap.stats.ranks import score_interval

    if sets.score_low is not None and sets.score_high is not None:
        low, high = sets.score_low, sets.score_high
    else:  # battles: a strength's normal interval
        low, high = score_interval(sets.score, sets.se, alpha)
    own = sets.own_items_mean if sets.own_items_mean is not None else sets.score
    return pd.DataFrame(
        {
            "task": task,
            "model": models[order],
            "score": np.asarray(sets.score, dtype=float)[order],
            "se": np.asarray(sets.se, dtype=float)[order],
            "score_low": np.asarray(low, dtype=float)[order],
            "score_high": np.asarray(high, dtype=float)[order],
            "own_items_mean": np.asarray(own, dtype=float)[order],
            "n_items": np.asarray(sets.n, dtype=np.int64)[order],
            "rank": np.asarray(sets.rank, dtype=np.int64)[order],
            "rank_low": np.asarray(sets.rank_low, dtype=np.int64)[order],
            "rank_high": np.asarray(sets.rank_high, dtype=np.int64)[order],
            "tier": np.asarray(sets.tier, dtype=np.int64)[order],
        }
    )


def top_models(models: np.ndarray, sets: RankSets) -> list[str]:
    """The models of the top-k set, best first."""
    inside = np.flatnonzero(np.asarray(sets.top_k, dtype=bool))
    order = np.lexsort((models[inside], np.asarray(sets.rank)[inside]))
    return models[inside][order].tolist()


def one_method(methods: dict) -> str:
    """The method of every task, or each task's in turn when they differ."""
    distinct = list(dict.fromkeys(methods.values()))
    return distinct[0] if len(distinct) == 1 else " / ".join(distinct) + " (per task)"
