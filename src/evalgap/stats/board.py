"""One score per model of a board, one rank by the paired comparisons, and one order.

Every view of a leaderboard (``ranks``, ``audit``, ``card``; terminal, JSON, HTML, Markdown)
lists its models by :func:`board_scores`, so none contradicts another.

**The rank** is the paired estimand's, as the rank sets' (:mod:`evalgap.stats.ranks`): one
plus the models ahead of the model on the items both scored. It always lies in the model's
simultaneous rank set, and on complete data it is the rank by mean. The models are listed by
rank, equal ranks by score, then by name.

When every model was scored on every item, a model's score is its mean. When some models
lack items, the mean over a model's own items is not comparable across models (a model that
skipped the hard items looks better than it is), while every pair is compared on the items
both scored. The board score is then the **additive two-way fit** ``x_ij = a_j + b_i + e_ij``
(model ``j``, item ``i``) by least squares over the observed cells, reported on the scale of
a mean over all the task's items: ``score_j = a_j + mean_i b_i``. It equals the mean on
complete data, and it credits a model for the difficulty (the item effects, estimated from
the models that did score them) of the items it lacks. The mean over a model's own items is
kept beside it as ``own_items_mean``. On real boards the score and the rank agree; where
models skip items in a way that makes the paired gaps intransitive (A ahead of B on their
shared items, B ahead of C by more than A), no score can agree with every pair, and
``against`` counts the listed rows whose score is below the next row's.

The fit is a linear function of the observed scores, ``score_j = sum_i g_ij``, so its
standard error follows from the per-item terms ``g_ij`` with items (or clusters of items) as
the sampling units: ``se_j^2 = N/(N - 1) sum_i (g_ij - score_j/N)^2``, which on complete data
is the usual ``sd_j^2 / n`` (ddof 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats._types import ArrayLike, FloatArray, IntArray
from evalgap.stats.intervals import wilson_interval

__all__ = [
    "BoardScores",
    "additive_scores",
    "additive_scores_from_sums",
    "board_notes",
    "board_scores",
    "board_scores_from_counts",
    "listed_order",
    "paired_rank",
]


@dataclass(frozen=True)
class BoardScores:
    """The scores, intervals and order of K models on one task (arrays of length K).

    Attributes
    ----------
    score : numpy.ndarray
        The board score: the mean on complete data, the additive two-way fit otherwise.
    se : numpy.ndarray
        Its standard error (items, or clusters of items, as sampling units).
    score_low, score_high : numpy.ndarray
        Its (1 - alpha) interval, that model alone: Wilson's interval at the effective
        number of items ``score (1 - score) / v`` for binary scores (``v`` the variance
        without the small-sample factor, so ``n`` on complete data: Wilson's interval of the
        proportion); for graded scores in [0, 1] Wilson's at ``score (1 - score) / se^2``
        (``score -/+ z se`` away from 0 and 1, inside [0, 1] near them); ``score -/+ z se``
        for scores outside [0, 1].
    own_items_mean : numpy.ndarray
        The mean over the items the model was scored on.
    n : numpy.ndarray
        Items the model was scored on.
    rank : numpy.ndarray
        1 + the models ahead of it on the items both scored (the rank by score on complete
        data; equal ranks are shared).
    order : numpy.ndarray
        The models' indices best first: by rank, then score, then name.
    interval : str
        ``"wilson"`` (scores in [0, 1]) or ``"normal"``.
    against : int
        Listed rows (each model and the next) whose score is below the next row's.
    reversed : int
        Listed rows whose gap on the items both scored is negative.
    """

    score: FloatArray
    se: FloatArray
    score_low: FloatArray
    score_high: FloatArray
    own_items_mean: FloatArray
    n: IntArray
    rank: IntArray
    order: IntArray
    interval: str
    against: int = 0
    reversed: int = 0

    def listed(self) -> BoardScores:
        """The same board with every per-model array in the listed order (``order`` becomes
        ``0..K-1``)."""
        keep = self.order
        return BoardScores(
            score=self.score[keep],
            se=self.se[keep],
            score_low=self.score_low[keep],
            score_high=self.score_high[keep],
            own_items_mean=self.own_items_mean[keep],
            n=self.n[keep],
            rank=self.rank[keep],
            order=np.arange(keep.size, dtype=np.int64),
            interval=self.interval,
            against=self.against,
            reversed=self.reversed,
        )


def additive_scores(x: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Return each model's board score and the per-item terms that sum to it.

    ``x`` is (items, models) with NaN where a model has no score; items no model scored are
    left out. On complete data the score is the mean and the terms are ``x / N``. Otherwise,
    with ``R`` the observed cells, ``m_i`` the models scoring item ``i``, ``xbar_i`` their
    mean and ``c = R (x - xbar)``, the model effects solve the normal equations after the
    item effects are profiled out, ``(diag(n) - R' diag(1/m) R) a = c' 1`` (a graph
    Laplacian: one free constant per connected set of models), and
    ``score_j = a_j - u'a + mean_i xbar_i`` with ``u = R' (1/m) / N``, which the constant
    does not move. The per-item terms are ``g_i = Q P c_i + xbar_i / N`` (``P`` the
    pseudo-inverse, ``Q = I - 1 u'``).

    Returns
    -------
    score : numpy.ndarray
        (K,) board scores.
    terms : numpy.ndarray
        (N, K) per-item terms; ``terms.sum(axis=0) == score``.

    Examples
    --------
    Model 1 skipped the item the others fail: its own items' mean is 1.0, its board score is
    charged with that item's difficulty:

    >>> x = np.array([[1.0, 1.0, 1.0], [0.0, np.nan, 0.0], [1.0, 1.0, 0.0]])
    >>> [round(float(s), 4) for s in additive_scores(x)[0]]
    [0.6667, 0.75, 0.3333]
    """
    values = np.asarray(x, dtype=float)
    if values.ndim != 2:
        raise InputError(
            "{x!b}" + escape(f" must be (items, models); got shape {values.shape}"), param="x"
        )
    observed = ~np.isnan(values)
    scored = values[observed.any(axis=1)]
    observed = observed[observed.any(axis=1)]
    items = scored.shape[0]
    if items == 0:
        raise InputError("no item has a score")
    if observed.all():
        return scored.sum(axis=0) / items, scored / items
    cells = observed.astype(float)
    per_item = cells.sum(axis=1)
    filled = np.where(observed, scored, 0.0)
    item_mean = filled.sum(axis=1) / per_item
    centred = np.where(observed, scored - item_mean[:, None], 0.0)
    laplacian = np.diag(cells.sum(axis=0)) - (cells / per_item[:, None]).T @ cells
    u = (cells / per_item[:, None]).sum(axis=0) / items
    # (N, K): item i's share of the model effects, the least-norm solution of L a_i = c_i
    effect = centred @ _laplacian_inverse(laplacian)
    terms = effect - (effect @ u)[:, None] + (item_mean / items)[:, None]
    return terms.sum(axis=0), terms


def additive_scores_from_sums(
    scored: ArrayLike,
    weighted: ArrayLike,
    share: ArrayLike,
    right: ArrayLike,
    item_mean_share: ArrayLike,
    item_mean_total: float,
    n_items: int,
) -> FloatArray:
    """Return :func:`additive_scores`' board scores from sums over the items, which an
    engine adds block by block of items.

    With ``R`` the observed cells, ``m_i`` the models scoring item ``i`` and ``xbar_i``
    their mean, the sums are ``scored = R'1`` (each model's items), ``weighted =
    R' diag(1/m) R``, ``share = R' (1/m)``, ``right = (R x)'1``, ``item_mean_share =
    R' xbar``, ``item_mean_total = sum_i xbar_i`` and ``n_items``, the items some model
    scored. The score is ``a - (u'a) 1 + item_mean_total / N`` with ``a`` the least-norm
    solution of ``(diag(scored) - weighted) a = right - item_mean_share`` and ``u = share /
    N``: the same figures as :func:`additive_scores` to rounding.

    Examples
    --------
    >>> x = np.array([[1.0, 1.0, 1.0], [0.0, np.nan, 0.0], [1.0, 1.0, 0.0]])
    >>> r = (~np.isnan(x)).astype(float)
    >>> m, xbar = r.sum(axis=1), np.nanmean(x, axis=1)
    >>> s = additive_scores_from_sums(r.sum(axis=0), (r / m[:, None]).T @ r, r.T @ (1 / m),
    ...     np.nansum(x, axis=0), r.T @ xbar, xbar.sum(), 3)
    >>> [round(float(v), 4) for v in s]
    [0.6667, 0.75, 0.3333]
    """
    laplacian = np.diag(np.asarray(scored, dtype=float)) - np.asarray(weighted, dtype=float)
    centred = np.asarray(right, dtype=float) - np.asarray(item_mean_share, dtype=float)
    effect = centred @ _laplacian_inverse(laplacian)
    u = np.asarray(share, dtype=float) / n_items
    return np.asarray(effect - effect @ u + item_mean_total / n_items)


def _laplacian_inverse(laplacian: FloatArray) -> FloatArray:
    """The pseudo-inverse of the fit's (K, K) Laplacian from its SVD: singular values below
    K eps of the largest are the free constants (one per connected set of models; an
    eigen-decomposition kept the zero eigenvalue's rounding error, 1e-13, as a huge
    1/lambda)."""
    u_l, singular, v_l = np.linalg.svd(laplacian)
    keep = singular > singular[0] * laplacian.shape[0] * np.finfo(float).eps
    return np.asarray((v_l[keep].T / singular[keep]) @ u_l[:, keep].T)


def board_scores(
    x: ArrayLike,
    names: ArrayLike | None = None,
    *,
    gap: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
    alpha: float = 0.05,
) -> BoardScores:
    """Return the board's scores, their intervals, ranks and order (see the module).

    Parameters
    ----------
    x : array_like
        (items, models) scores, NaN where a model has no score; every model needs one.
    names : array_like, optional
        The models' names: ties in rank and score are ordered by name (without names, by
        position).
    gap : array_like, optional
        (K, K) paired gaps, ``gap[j, k]`` the mean of ``x_j - x_k`` over the items both
        scored (NaN where they cannot be compared): :func:`evalgap.stats.ranks.pair_gaps`.
        Needed where scores are missing; on complete data they are the means' differences.
    clusters : array_like, optional
        Integer cluster labels, one per item (-1 leaves an item out of the variance): the
        standard error then sums the per-item terms per cluster, times ``G/(G - 1)``.
    alpha : float
        The interval is at level 1 - alpha.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    >>> b = board_scores(x, ["a", "b"])
    >>> b.score.tolist(), b.rank.tolist(), [round(float(v), 4) for v in b.score_low]
    ([0.75, 0.25], [1, 2], [0.3006, 0.0456])
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise InputError(
            "{x!b}" + escape(f" must be (items, models); got shape {x.shape}"), param="x"
        )
    keys = np.arange(x.shape[1]) if names is None else np.asarray(names).astype(str)
    if keys.shape != (x.shape[1],):
        raise InputError(f"{keys.size} names for scores of shape {x.shape}")
    if x.shape[1] == 0:  # no model: an empty board
        empty = np.zeros(0)
        order = np.zeros(0, dtype=np.int64)
        return BoardScores(empty, empty, empty, empty, empty, order, order, order, "normal")
    complete = _complete_board(x) if clusters is None else None
    if complete is not None:  # every item scored by every model: no (N, K) temporaries
        score, variance, binary, bounded = complete
        n = np.full(x.shape[1], x.shape[0], dtype=np.int64)
        own, units = score, x.shape[0]
    else:
        observed = ~np.isnan(x)
        n = observed.sum(axis=0).astype(np.int64)
        if (n == 0).any():
            raise InputError("every model needs a score on at least one item")
        own = np.where(observed, x, 0.0).sum(axis=0) / n
        score, terms = additive_scores(x)
        kept = observed.any(axis=1)
        variance = _variance(terms, score, None if clusters is None else np.asarray(clusters)[kept])
        units = terms.shape[0] if clusters is None else _units(np.asarray(clusters)[kept])
        binary = bool(np.isin(x[observed], (0.0, 1.0)).all())
        bounded = bool(((x[observed] >= 0) & (x[observed] <= 1)).all())
    if gap is None and complete is None and np.isnan(x).any():
        raise InputError(
            "{gap!b}" + escape(" is needed where scores are missing (the gaps on the items "
            "both models scored)"),
            param="gap",
        )
    return _listed_board(score, variance, n, units, own, binary, bounded, gap, keys, alpha)


def board_scores_from_counts(
    right: ArrayLike,
    n_items: int,
    names: ArrayLike | None = None,
    *,
    gap: ArrayLike | None = None,
    alpha: float = 0.05,
) -> BoardScores:
    """Return :func:`board_scores` of a complete binary board from its counts: each model's
    right answers out of the ``n_items`` items every model scored.

    The score is ``right / N`` and the sum of squared centred per-item terms is
    ``p (1 - p) / N``, which :func:`board_scores` sums item by item (the same to rounding):
    an engine summing blocks of items needs no more.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    >>> b = board_scores_from_counts(x.sum(axis=0), 4, ["a", "b"])
    >>> b.score.tolist(), b.rank.tolist(), [round(float(v), 4) for v in b.score_low]
    ([0.75, 0.25], [1, 2], [0.3006, 0.0456])
    """
    right = np.asarray(right, dtype=float)
    keys = np.arange(right.size) if names is None else np.asarray(names).astype(str)
    score = right / n_items
    n = np.full(right.size, int(n_items), dtype=np.int64)
    variance = score * (1.0 - score) / n_items
    return _listed_board(score, variance, n, int(n_items), score, True, True, gap, keys, alpha)


def _listed_board(
    score: FloatArray, variance: FloatArray, n: IntArray, units: int, own: FloatArray,
    binary: bool, bounded: bool, gap: ArrayLike | None, keys: np.ndarray, alpha: float,
) -> BoardScores:  # fmt: skip
    """The board from its scores and their summed squared per-unit terms: standard errors,
    intervals, the paired rank and the listed order."""
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(variance * units / (units - 1.0)) if units > 1 else np.full_like(score, np.nan)
    low, high = _interval(score, se, variance, n, binary, alpha, bounded=bounded)
    if gap is None:
        gap = score[:, None] - score[None, :]
    gap = np.asarray(gap, dtype=float)
    if gap.shape != (score.size, score.size):
        raise InputError(
            "{gap!b}" + escape(f" must be ({score.size}, {score.size}); got {gap.shape}"),
            param="gap",
        )
    rank = paired_rank(gap)
    order, against = listed_order(score, rank, keys)
    upper, lower = order[:-1], order[1:]
    return BoardScores(
        score=score,
        se=se,
        score_low=low,
        score_high=high,
        own_items_mean=own,
        n=n,
        rank=rank.astype(np.int64),
        order=order.astype(np.int64),
        interval="wilson" if bounded else "normal",
        against=against,
        reversed=int((gap[upper, lower] < 0).sum()),
    )


def listed_order(score: ArrayLike, rank: ArrayLike, names: ArrayLike) -> tuple[IntArray, int]:
    """Return the models' listed order (by rank, equal ranks by score, then by name) and
    the listed rows whose score is below the next row's.

    Scores equal to 12 significant digits of the largest are ties, ordered by name: the
    additive fit gives two models with the same scores on the same items values apart in
    the last bits, whose order would otherwise follow the rounding (and differ between a
    fit from the items and one from their sums).

    Examples
    --------
    >>> order, against = listed_order([0.5, 0.5 + 1e-16, 0.7], [2, 2, 1], ["b", "a", "c"])
    >>> order.tolist(), against
    ([2, 1, 0], 0)
    """
    score = np.asarray(score, dtype=float)
    scale = float(np.nanmax(np.abs(score), initial=0.0)) or 1.0
    tied = np.round(score / scale, 12)
    order = np.lexsort((np.asarray(names), -tied, np.asarray(rank)))
    return order.astype(np.int64), int((tied[order[:-1]] < tied[order[1:]]).sum())


def paired_rank(gap: ArrayLike) -> IntArray:
    """Return one plus the models ahead of each model on the items both scored: the count of
    positive entries in each column of the (K, K) paired gaps (NaN: not compared).

    Examples
    --------
    >>> paired_rank(np.array([[0.0, 0.1, np.nan], [-0.1, 0.0, 0.2], [np.nan, -0.2, 0.0]]))
    array([1, 2, 2])
    """
    return np.asarray(1 + (np.nan_to_num(np.asarray(gap, dtype=float)) > 0).sum(axis=0))


def paired_rank_from_means(means: ArrayLike) -> IntArray:
    """Return :func:`paired_rank` of a complete board from its models' means: one plus the
    models with a higher mean (every item shared, a pair's gap is the means' difference, so
    equal means share a rank), without the (K, K) gaps.

    Examples
    --------
    >>> paired_rank_from_means([0.9, 0.7, 0.5, 0.7]).tolist()
    [1, 2, 4, 2]
    """
    means = np.asarray(means, dtype=float)
    ahead = means.size - np.searchsorted(np.sort(means), means, side="right")
    return np.asarray(1 + ahead, dtype=np.int64)


def board_notes(board: BoardScores) -> tuple[str, ...]:
    """What a board's listing needs said beside it: rows whose score or paired gap runs
    against the listed order (only where models skipped items)."""
    notes = []
    if board.score.size > 1 and np.ptp(board.score) == 0 and not np.any(board.se > 0):
        notes.append(
            f"every model has the same score ({board.score[0]:g}) on every item: no item "
            "separates them, so they share one tier and every rank"
        )
    if board.against:
        notes.append(
            f"{board.against} listed row{'s have' if board.against != 1 else ' has'} a lower "
            "score than the next row: the models are listed by their paired rank, and where "
            "models skipped different items the paired gaps are not transitive, so no score "
            "agrees with every pair"
        )
    if board.reversed:
        notes.append(
            f"{board.reversed} rank-adjacent pair{'s have' if board.reversed != 1 else ' has'} "
            "a negative gap on the items both scored: the paired gaps are not transitive there"
        )
    return tuple(notes)


def _complete_board(
    x: FloatArray, block: int = 2048
) -> tuple[FloatArray, FloatArray, bool, bool] | None:
    """The board of a matrix with no missing score, read a block of items at a time: the
    means, the sums of squared centred per-item terms ``sum_i (x_ij/N - score_j/N)^2`` (as
    :func:`_variance` sums them, row after row, so the figures are the same to the last
    bit), and whether the scores are 0/1 and within [0, 1]; None when a score is missing.

    The general path holds several (N, K) temporaries (the observed mask, the per-item
    terms, their squares), each as large as the scores; here one block of rows is."""
    items = x.shape[0]
    if items == 0:
        return None
    # Each sum runs from the running total over a block of rows: the block goes under the
    # total in one buffer, laid out as NumPy lays out their concatenation (which sets the
    # order of the sum down the columns: row after row on a C-ordered x, the order of
    # x.sum(axis=0)), reused from block to block.
    buffer = np.concatenate([np.zeros((1, x.shape[1])), x[:block]])
    buffer[0] = 0.0
    binary = bounded = True
    for start in range(0, items, block):
        rows = buffer[1 : min(start + block, items) - start + 1]
        rows[...] = x[start : start + block]
        if binary:
            binary = bool(np.logical_or(rows == 0, rows == 1).all())
        if not binary:  # 0/1 scores are within [0, 1]
            bounded = bounded and bool(np.logical_and(rows >= 0, rows <= 1).all())
        buffer[0] = buffer[: rows.shape[0] + 1].sum(axis=0)
    total = buffer[0].copy()
    if np.isnan(total).any() and np.isnan(x).any():  # a missing score sums to NaN
        return None
    score = total / items
    share = score / items
    buffer[0] = 0.0
    for start in range(0, items, block):
        terms = buffer[1 : min(start + block, items) - start + 1]
        np.divide(x[start : start + block], items, out=terms)
        terms -= share
        terms *= terms
        buffer[0] = buffer[: terms.shape[0] + 1].sum(axis=0)
    return score, buffer[0].copy(), binary, bounded


def _units(clusters: np.ndarray) -> int:
    return int(np.unique(clusters[clusters >= 0]).size)


def _variance(terms: FloatArray, score: FloatArray, clusters: np.ndarray | None) -> FloatArray:
    """The sum of squared centred per-unit terms (no small-sample factor)."""
    centred = terms - score / terms.shape[0]
    if clusters is not None:
        keep = clusters >= 0
        codes, index = np.unique(clusters[keep], return_inverse=True)
        sums = np.zeros((codes.size, terms.shape[1]))
        np.add.at(sums, index, centred[keep])
        centred = sums
    return np.asarray((centred * centred).sum(axis=0), dtype=float)


def _interval(
    score: FloatArray,
    se: FloatArray,
    variance: FloatArray,
    n: IntArray,
    binary: bool,
    alpha: float,
    *,
    bounded: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """A score's interval: Wilson's at the effective number of items ``p (1 - p) / v``
    for scores in [0, 1] (``v`` the variance without the small-sample factor for binary
    scores, so ``n`` on complete data; the squared SE for graded ones, so that away from 0
    and 1 it is ``score -/+ z se`` and near them it stays inside [0, 1], where the normal
    interval of a win rate of 0.025 reached -0.0003); ``score -/+ z se`` for scores outside
    [0, 1]."""
    if not (binary or bounded):
        z = special.ndtri(1 - float(alpha) / 2)
        return score - z * se, score + z * se
    # Wilson at the effective number of items; at a score of 0 or 1 (no variance) the
    # model's own items
    p = np.clip(score, 0.0, 1.0)
    spread = variance if binary else se * se
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where(spread > 0, p * (1 - p) / spread, n.astype(float))
    effective = np.where(np.isfinite(effective) & (effective > 0), effective, n.astype(float))
    return wilson_interval(p * effective, effective, alpha)
