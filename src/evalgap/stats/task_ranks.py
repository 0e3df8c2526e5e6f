"""Rank sets over tasks: the aggregate score when both the items and the tasks are sampled.

A multi-task board's aggregate is the mean over tasks of each model's task score,
``S_k = (1/T) sum_t m_tk``. Read as a claim about *these* tasks, only the items are
sampled, and per-task rank sets (or sets for the items pooled) answer it. Read as a claim
about the benchmark's *kind* of task -- the tasks a draw from a population, as the next
benchmark's tasks would be -- the tasks are sampled too, and a model that wins on these
tasks by luck of the draw may not win on the population. Two-way (two-stage) bootstrap:
each replicate draws T tasks with replacement and, within each drawn copy, resamples the
task's items (Gaussian multipliers on the centred scores, or on cluster sums), so
``S*_k = (1/T) sum_j (m_{tau_j k} + e_{j k})``. The max-t stepdown of
:func:`evalgap.stats.ranks.rank_sets_from_draws` then gives simultaneous and marginal sets,
studentized by the replicates' covariance. The two-stage bootstrap counts the within-task
noise a second time (it is already in the spread of the drawn task scores), so its sets are
slightly conservative; the simulation (``evalgap simulate task-rank-coverage``) measures
their coverage beside the items-only sets.

Within a task without missing scores and with fewer models than items, the multiplier draw
``W X_c / n`` (W: B x n normals) has the law ``N(0, X_c' X_c / n^2)`` given the data, so it
is drawn as B x K normals times a K x K factor of that matrix: the same distribution at a
fraction of the cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats._types import FloatArray, Seed
from evalgap.stats.ranks import RankSets, gaussian_factor, rank_sets_from_draws
from evalgap.stats.resample import seed_sequence


@dataclass(frozen=True)
class TaskRankSets:
    """Rank sets of the aggregate over tasks, sampling items only and items and tasks.

    Attributes
    ----------
    score : numpy.ndarray
        Each model's aggregate: the mean of its task scores.
    items_only : RankSets
        Sets with the tasks fixed (the items of each task resampled).
    two_way : RankSets
        Sets with the tasks and their items resampled.
    se_items_only, se_two_way : numpy.ndarray
        Each model's standard error of the aggregate under the two bootstraps.
    """

    score: FloatArray
    items_only: RankSets
    two_way: RankSets
    se_items_only: FloatArray
    se_two_way: FloatArray

    def widening(self) -> float:
        """Mean width of the two-way simultaneous sets over the items-only ones (ranks)."""
        two = np.asarray(self.two_way.rank_high) - np.asarray(self.two_way.rank_low) + 1
        one = np.asarray(self.items_only.rank_high) - np.asarray(self.items_only.rank_low) + 1
        return float(two.mean() / one.mean())


def task_means(tasks: Sequence[np.ndarray]) -> FloatArray:
    """Return the (T, K) task scores: each model's mean over its own items of each task."""
    out = []
    for x in tasks:
        x = np.asarray(x, dtype=float)
        counts = (~np.isnan(x)).sum(axis=0)
        if np.any(counts == 0):
            raise InputError("every model needs a score on some item of every task")
        out.append(np.nanmean(x, axis=0))
    return np.array(out)


def _within_draws(x: np.ndarray, size: int, rng: np.random.Generator) -> FloatArray:
    """``size`` draws of the deviation of one task's model means (multiplier bootstrap)."""
    observed = ~np.isnan(x)
    n = observed.sum(axis=0).astype(float)
    centred = np.where(observed, x - np.nanmean(x, axis=0), 0.0)
    items, k = centred.shape
    if observed.all() and k < items:
        # The law of W X_c / n given the data: N(0, X_c' X_c / n^2), drawn through its factor
        root = gaussian_factor(centred.T @ centred / (n[:, None] * n[None, :]))
        return rng.standard_normal((size, k)) @ root.T
    return (rng.standard_normal((size, items)) @ centred) / n


def task_rank_sets(
    tasks: Sequence[np.ndarray],
    *,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: Seed = 0,
) -> TaskRankSets:
    """Return rank sets of the aggregate over tasks: items only, and items and tasks.

    Parameters
    ----------
    tasks : sequence of numpy.ndarray
        One (items, K) score matrix per task, the same K models in the same columns (NaN
        where a model has no score for an item).
    alpha : float
        One minus the simultaneous confidence level.
    n_bootstrap : int
        Replicates of each bootstrap.
    seed : int, Generator or None
        Seed of the draws.

    Returns
    -------
    TaskRankSets
        The aggregate scores, both kinds of sets and both standard errors.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> tasks = [(rng.random((300, 3)) < [0.8, 0.6, 0.4]).astype(float) for _ in range(8)]
    >>> r = task_rank_sets(tasks, n_bootstrap=400)
    >>> r.two_way.rank_low.tolist(), r.two_way.rank_high.tolist()
    ([1, 2, 3], [1, 2, 3])
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    if len(tasks) < 2:
        raise InputError("rank sets over tasks need at least 2 tasks")
    widths = {np.shape(x)[1] for x in tasks}
    if len(widths) != 1:
        raise InputError("every task must hold the same models (columns)")
    means = task_means(tasks)
    n_tasks = means.shape[0]
    score = means.mean(axis=0)
    rngs = [np.random.default_rng(s) for s in seed_sequence(seed).spawn(3)]
    # Items only: every task kept, its items resampled.
    within = sum(_within_draws(np.asarray(x, float), n_bootstrap, rngs[0]) for x in tasks)
    items_only = score + within / n_tasks
    # Two-way: T tasks drawn with replacement, each drawn copy's items resampled anew.
    picks = rngs[1].integers(0, n_tasks, (n_bootstrap, n_tasks))
    two_way = means[picks].mean(axis=1)
    for t, x in enumerate(tasks):
        slots = np.argwhere(picks == t)  # (replicate, slot) pairs that drew task t
        if slots.size:
            draws = _within_draws(np.asarray(x, float), len(slots), rngs[2])
            np.add.at(two_way, slots[:, 0], draws / n_tasks)
    sets = {}
    se = {}
    for name, draws in (("items_only", items_only), ("two_way", two_way)):
        cov = np.cov(draws, rowvar=False)
        sets[name] = rank_sets_from_draws(score, cov, draws, alpha=alpha)
        se[name] = np.sqrt(np.diag(cov))
    return TaskRankSets(score, sets["items_only"], sets["two_way"], se["items_only"], se["two_way"])
