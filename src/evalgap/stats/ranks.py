"""Confidence sets for ranks: which rank can each of K models claim?

The method of Mogstad, Romano, Shaikh and Wilhelm (2024, *Review of Economic Studies* 91,
"Inference for ranks with applications to mobility across neighbourhoods and academic
achievement across countries"). With ``theta_j`` model j's expected score, the rank of j is
``1 + #{k : theta_k > theta_j}``. Every pair is compared on the items both models scored:
``gap_jk`` is the mean of ``x_j - x_k`` there and ``se_jk`` its standard error (paired; see
:func:`pair_gaps`), the same estimand for the bootstrap, the Holm tests and the audit. The
hypotheses are ``H_jk: theta_j <= theta_k`` for every ordered pair (Algorithm 3.1), with
``t_jk = gap_jk / se_jk``; ``c`` is the (1 - alpha) quantile of the bootstrap distribution of
``max t*_jk = ((gap*_jk - gap_jk) / se_jk)`` over the hypotheses still standing, and those
with ``t_jk > c`` are rejected (``j`` shown better than ``k``). The stepdown repeats with the
hypotheses left, until none is rejected; a rejected ``H_jk`` leaves, its reverse ``H_kj``
stays (as in the authors' R package csranks). Then, for every model at once,

    rank_low_j = 1 + #{k : k shown better than j},   rank_high_j = K - #{k : j shown better}.

*Marginal* sets do the same with the 2 (K - 1) hypotheses of one model only (valid for that model
alone; contained in the simultaneous sets, since each stepdown threshold over a subset of
pairs is no larger). The *top-k set* holds the models whose simultaneous lower rank is at
most k: with probability >= 1 - alpha it contains every model truly among the best k.
*Tiers* cut the ranking (by the paired gaps) where every model above is shown better than
every model below.

Bootstrap. The multiplier bootstrap (Gaussian weights on the items' centred scores, or on
the clusters' sums with cluster labels) gives ``m* - m`` for all K models; given the data
that is exactly a normal vector with the covariance of the weighted sums, so with fewer
models than items (clusters) it is drawn from that law, K normals per replicate times a
(K, K) factor, instead of weighting the N items (:func:`_multiplier_draws`). The maximum over
the K(K-1) ordered pairs is taken per tile of replicates and models, from broadcast
differences of the models' draws, never gathered pair by pair: the first step needs each
row's largest and smallest statistic, the later steps only the statistics with ``|t|`` at
most the critical value, near the diagonal in the models' order by score (:func:`_max_t`).
With missing scores the replicates' shared-item gaps are drawn pair by pair
(:func:`_pair_draws`). The empirical (multinomial) bootstrap is an option.

Small samples. The bootstrap holds each pair's standard error fixed, while the observed
``t_jk`` divides by an estimated one and has heavier tails (exactly ``t_(n - 1)`` for normal
scores). At the quantile of a maximum over many pairs that costs coverage where it is least
favourable, with models tied: below 0.95 with 5 to 20 tied models on 200 to 400 items, in an
independent implementation of the published procedure too (``simulate rank-coverage``, its
tied rows; the figures before and after are in the simulation docs). So
:func:`rank_sets` compares each ``t_jk`` on the bootstrap's scale, as its normal score
``Phi^-1(F_(n - 1)(t_jk))`` (n the pair's shared items, or the clusters): the stepdown on
p-values from the t law (as in the Holm fallback) with the bootstrap's dependence, a min-p
stepdown (Westfall and Young 1993); and it reads the critical value as the
``ceil((B + 1)(1 - alpha))``-th smallest of the B replicates' maxima, not an interpolated
quantile, which loses a share of alpha to the noise of B replicates. Without them
(:func:`rank_sets_from_draws`, and :func:`_max_t` on its own inputs) the procedure is the
published one.

Many models for few items. The max-t bootstrap approximates the law of a maximum over
K(K-1)/2 statistics by a Gaussian one; with K large against the items its coverage falls
below 1 - alpha (the rank-coverage simulation shows where). There, ``method="auto"``
switches to Holm-adjusted pairwise tests (exact McNemar for binary scores without
clusters, a t test on the paired difference otherwise), valid for any K and N.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Literal

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape, fields
from evalgap.stats import _validate
from evalgap.stats import tests as _tests
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, IntArray, Seed
from evalgap.stats.board import BoardScores, board_notes, board_scores, paired_rank
from evalgap.stats.clusters import cluster_stats
from evalgap.stats.multiplicity import holm_rows
from evalgap.stats.paired import summarize_pairs
from evalgap.stats.resample import seed_sequence

METHODS = ("auto", "bootstrap", "holm")
BOOTSTRAPS = ("multiplier", "empirical")
# method="auto" uses Holm when K / (items or clusters) reaches MAX_MODELS_PER_UNIT, or with
# fewer than MIN_UNITS items (clusters). Evidence (rank-coverage study, all models tied, the
# least favourable case; 300 replicates, SE ~0.015; the published stepdown, before each t was
# read on the bootstrap's scale): the bootstrap covers 0.92 with 5 models
# on 50 items, 0.917 with 20 on 100, 0.927 with 50 on 200 and 0.92 with 100 on 500, against
# 0.95 with 5 on 200, 0.957 with 20 on 1,000 and 0.967 with 100 on 3,000.
MAX_MODELS_PER_UNIT = 0.1
MIN_UNITS = 200
# Replicates drawn per matrix product.
REPLICATE_BLOCK = 256
# The (1 - alpha) quantile of the bootstrap maximum is read from the replicates' upper tail:
# with fewer than MIN_TAIL_REPLICATES replicates above it the quantile is the sample maximum
# or close to it, far too noisy to be called a (1 - alpha) critical value (with B = 1 it is
# that one replicate, and the sets come out narrower than at B = 1,000). So B >= 10 / alpha:
# 200 at alpha = 0.05, 1,000 at alpha = 0.01.
MIN_TAIL_REPLICATES = 10
PAIR_BLOCK_ELEMENTS = 2**24
# The stepdown's statistics are made per tile of TILE_REPLICATES replicates by rows x columns
# of at most TILE_ELEMENTS (float32: 2 MiB, about a core's cache); the bootstrap's deviations
# are kept for the later steps up to KEPT_BYTES, drawn again beyond.
TILE_REPLICATES = 64
TILE_ELEMENTS = 2**13
BAND_ELEMENTS = 2**11  # a band's tiles: narrower, less of their area is outside the band
KEPT_BYTES = 2**28
THREADED_ELEMENTS = 2**24


@dataclass(frozen=True)
class RankSets:
    """Rank confidence sets of K models (arrays of length K unless stated).

    Attributes
    ----------
    score, se : numpy.ndarray
        The board score (:func:`evalgap.stats.board.board_scores`: the mean on complete data,
        the additive fit model + item when items are missing; a Bradley-Terry strength for
        battles) and its standard error (sd/sqrt(n), or cluster-robust).
    n : numpy.ndarray
        Items each model scored.
    rank : numpy.ndarray
        Rank by score (1 = best; equal scores share the best rank).
    rank_low, rank_high : numpy.ndarray
        The simultaneous (1 - alpha) rank sets.
    marginal_low, marginal_high : numpy.ndarray or None
        The marginal sets (None when not asked for).
    tier : numpy.ndarray
        Tier of each model (1 = top).
    shown_better : numpy.ndarray
        (K, K) booleans: ``[i, j]`` when model i is shown better than model j.
    top_k : numpy.ndarray or None
        Booleans: the models that could be among the best k.
    method : str
        ``"max-t stepdown bootstrap"`` or ``"Holm pairwise"``.
    critical_value : float
        The final stepdown critical value, on the scale of the pairs' t statistics (for
        :func:`rank_sets`, the t scale of the fewest shared items or clusters; NaN for Holm).
    n_steps : int
        Stepdown steps.
    notes : tuple of str
        Why a fallback was taken, and similar.
    score_low, score_high : numpy.ndarray or None
        The score's (1 - alpha) interval, that model alone (None for battles).
    own_items_mean : numpy.ndarray or None
        The mean over each model's own items (None for battles).
    """

    score: FloatArray
    se: FloatArray
    n: IntArray
    rank: IntArray
    rank_low: IntArray
    rank_high: IntArray
    marginal_low: IntArray | None
    marginal_high: IntArray | None
    tier: IntArray
    shown_better: BoolArray
    top_k: BoolArray | None
    method: str
    critical_value: float
    n_steps: int
    notes: tuple[str, ...] = ()
    score_low: FloatArray | None = None
    score_high: FloatArray | None = None
    own_items_mean: FloatArray | None = None


def minimum_replicates(alpha: float) -> int:
    """Return the fewest bootstrap replicates that put ``MIN_TAIL_REPLICATES`` beyond the
    (1 - alpha) quantile: ``ceil(MIN_TAIL_REPLICATES / alpha)``.

    >>> minimum_replicates(0.05), minimum_replicates(0.01)
    (200, 1000)
    """
    return int(np.ceil(MIN_TAIL_REPLICATES / float(alpha) - 1e-9))


def check_replicates(count: int, alpha: float, name: str = "n_bootstrap") -> None:
    """Refuse a bootstrap too small to determine the (1 - alpha) quantile of the maximum."""
    need = minimum_replicates(alpha)
    if count < need:
        level = f"{100 * (1 - alpha):g}%"
        raise InputError(
            fields(name)
            + escape(
                f": {count:,} bootstrap replicates cannot determine the {level} critical value "
                "of the rank sets; give "
            )
            + "{" + f"{name}={need}" + "}"
            + escape(f" or more (at least {MIN_TAIL_REPLICATES} / alpha)"),
            param=name,
            **{name: count},
        )


def score_interval(
    score: ArrayLike, se: ArrayLike, alpha: float = 0.05
) -> tuple[FloatArray, FloatArray]:
    """Return the (1 - alpha) normal interval of each score alone: ``score -/+ z se`` with
    ``z`` the (1 - alpha/2) standard normal quantile (marginal: one model at a time).

    Examples
    --------
    >>> [round(float(v), 4) for v in score_interval(np.array([0.5]), np.array([0.01]))[1]]
    [0.5196]
    """
    z = special.ndtri(1 - float(alpha) / 2)
    score, se = np.asarray(score, dtype=float), np.asarray(se, dtype=float)
    return score - z * se, score + z * se


def mean_covariance(
    x: ArrayLike, clusters: ArrayLike | None = None
) -> tuple[FloatArray, IntArray, FloatArray]:
    """Return each model's mean over its own items, its item count and the (K, K) covariance
    of the means.

    ``x`` is (items, models) with NaN where a model has no score. With ``c`` the centred
    scores (0 where missing), ``cov_jk = sum_i c_ij c_ik / sqrt(n_j (n_j - 1) n_k (n_k - 1))``:
    on the diagonal the usual ``sd_j^2 / n_j`` (ddof 1), off it the items both models
    scored. With integer ``clusters`` (one label per item; -1 leaves an item out) the
    centred scores are summed per cluster first and ``G/(G - 1)`` corrects for G clusters
    (the cluster-robust variance).

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, np.nan]])
    >>> mean, n, cov = mean_covariance(x)
    >>> mean.round(3).tolist(), n.tolist(), round(float(cov[0, 0]), 4)
    ([0.75, 0.333], [4, 3], 0.0625)
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2:
        raise InputError(f"scores must be (items, models) with at least 2 models; got {x.shape}")
    observed = ~np.isnan(x)
    n = observed.sum(axis=0)
    if (n < 2).any():
        raise InputError("every model needs scores on at least 2 items to rank it")
    mean = np.where(observed, x, 0.0).sum(axis=0) / n
    centred = np.where(observed, x - mean, 0.0)
    if clusters is None:
        scale = np.sqrt(n * (n - 1.0))
        return mean, n, (centred.T @ centred) / np.outer(scale, scale)
    sums, groups = _cluster_sums(centred, clusters)
    cov = (sums.T @ sums) / np.outer(n, n) * (groups / (groups - 1.0))
    return mean, n, cov


def pair_gaps(
    x: ArrayLike,
    clusters: ArrayLike | None = None,
    *,
    mean: np.ndarray | None = None,
    covariance: np.ndarray | None = None,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Return every pair's paired gap on the items both models scored, its squared standard
    error and the shared items: three (K, K) arrays ``gap, variance, shared``.

    ``gap[j, k]`` is the mean of ``x_j - x_k`` over the items both j and k scored (the
    estimand of every method here, as of the audit's pairs), ``variance[j, k]`` the squared
    standard error of that mean: ``sum (D_i - gap)^2 / (n (n - 1))`` over the n shared items,
    or with integer ``clusters`` ``sum_g (sum_{i in g} (D_i - gap))^2 / n^2 x G/(G - 1)``.
    Without missing scores these are the differences of the models' means and
    ``cov_jj + cov_kk - 2 cov_jk`` of :func:`mean_covariance` (pass ``mean`` and
    ``covariance`` to reuse them). A pair with fewer than 2 shared items has a NaN gap.

    Examples
    --------
    >>> x = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [np.nan, 1.0], [np.nan, 1.0]])
    >>> gap, variance, shared = pair_gaps(x)
    >>> round(float(gap[0, 1]), 4), round(float(variance[0, 1]), 4), int(shared[0, 1])
    (0.6667, 0.1111, 3)
    """
    x = np.asarray(x, dtype=float)
    observed = ~np.isnan(x)
    if mean is None or covariance is None:
        mean, _, covariance = mean_covariance(x, clusters)
    k = x.shape[1]
    if observed.all():
        return _complete_gaps(mean, covariance, x.shape[0])
    # centre each column on its own mean: the gaps' residuals are unchanged, the sums small
    ones = observed.astype(float)
    centred = np.where(observed, x - mean, 0.0)
    shared = ones.T @ ones
    sums = centred.T @ ones  # [j, k]: sum over shared items of the centred x_j
    with np.errstate(divide="ignore", invalid="ignore"):
        gap_centred = np.where(shared > 0, (sums - sums.T) / shared, np.nan)
        if clusters is None:
            squares = (centred**2).T @ ones
            total = squares + squares.T - 2 * centred.T @ centred
            residual = total - shared * np.nan_to_num(gap_centred) ** 2
            variance = np.maximum(residual, 0.0) / (shared * (shared - 1))
        else:
            codes = np.asarray(clusters)
            labels = np.unique(codes[codes >= 0])
            if labels.size < 2:
                raise InputError("cluster-robust ranks need at least 2 clusters")
            accumulated = np.zeros((k, k))
            fill = np.nan_to_num(gap_centred)
            for label in labels:
                rows = codes == label
                part = centred[rows].T @ ones[rows]
                residual = (part - part.T) - fill * (ones[rows].T @ ones[rows])
                accumulated += residual**2
            variance = accumulated / shared**2 * (labels.size / (labels.size - 1.0))
    # the gaps themselves from the plain sums: equal sums give a gap of exactly 0 (two
    # models tied on their shared items are not ahead of each other), where the centred
    # sums plus the means' difference left a rounding error of either sign
    plain = np.where(observed, x, 0.0).T @ ones
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.where(shared > 0, (plain - plain.T) / shared, np.nan)
    thin = shared < 2
    gap[thin] = np.nan
    variance[thin] = np.nan
    np.fill_diagonal(gap, 0.0)
    np.fill_diagonal(variance, 0.0)
    return gap, variance, shared.astype(np.int64)


def _complete_gaps(
    mean: np.ndarray, covariance: np.ndarray, n_items: int
) -> tuple[FloatArray, FloatArray, IntArray]:
    """:func:`pair_gaps` of a board where every model scored every item: the means'
    differences and ``cov_jj + cov_kk - 2 cov_jk``."""
    diagonal = np.diag(covariance)
    variance = diagonal[:, None] + diagonal[None, :] - 2 * covariance
    shared = np.full((mean.size, mean.size), n_items, dtype=np.int64)
    return mean[:, None] - mean[None, :], np.maximum(variance, 0.0), shared


def rank_sets(
    x: ArrayLike,
    *,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: Seed = 0,
    clusters: ArrayLike | None = None,
    method: Literal["auto", "bootstrap", "holm"] = "auto",
    bootstrap: Literal["multiplier", "empirical"] = "multiplier",
    top_k: int | None = None,
    replicates_name: str = "n_bootstrap",
    marginal: bool = True,
) -> RankSets:
    """Simultaneous and marginal rank sets, tiers and a top-k set from per-item scores.

    Parameters
    ----------
    x : array_like
        Scores (items, models), binary or graded; NaN where a model has no score (each
        model's mean is over its own items; covariances use the items both scored).
    alpha : float
        One minus the confidence level.
    n_bootstrap : int
        Bootstrap replicates.
    seed : int, SeedSequence or None
        Seed of the bootstrap.
    clusters : array_like of int, optional
        Cluster label per item (-1: none); clusters are resampled instead of items.
    method : {"auto", "bootstrap", "holm"}
        ``auto``: the bootstrap unless K >= MAX_MODELS_PER_UNIT x the items (clusters) or
        there are fewer than MIN_UNITS, where Holm-adjusted pairwise tests are used.
    bootstrap : {"multiplier", "empirical"}
        Gaussian multiplier weights, or multinomial resampling of items (clusters).
    top_k : int, optional
        Also return the top-k set.
    replicates_name : str
        The caller's name of ``n_bootstrap``, for the error when it is too small.
    marginal : bool
        Also the marginal sets (``False``: the simultaneous sets alone, ``marginal_low``
        and ``marginal_high`` None; the bootstrap's later steps then test one family).

    Returns
    -------
    RankSets

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((2000, 3)) < [0.8, 0.6, 0.59]).astype(float)
    >>> r = rank_sets(x, n_bootstrap=500)
    >>> r.rank_low.tolist(), r.rank_high.tolist(), r.tier.tolist()
    ([1, 2, 2], [1, 3, 3], [1, 2, 2])
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    if method not in METHODS:
        raise InputError(
            "{method!b}" + escape(f" must be one of {', '.join(METHODS)}; got {method!r}"),
            param="method",
        )
    if bootstrap not in BOOTSTRAPS:
        raise InputError(
            "{bootstrap!b}"
            + escape(
                f" must be one of {', '.join(BOOTSTRAPS)}; got {bootstrap!r}"
            ),
            param="bootstrap",
        )
    _check_top_k(top_k)
    x = np.asarray(x, dtype=float)
    if np.isinf(x).any():
        raise InputError("scores contain infinite values; drop or fix those items")
    codes = None if clusters is None else np.asarray(clusters)
    if codes is not None and codes.shape != (x.shape[0],):
        raise InputError(f"clusters must hold one label per item ({x.shape[0]}); got {codes.shape}")
    mean, n, cov = mean_covariance(x, codes)
    gap, variance, shared = pair_gaps(x, codes, mean=mean, covariance=cov)
    board = board_scores(x, gap=gap, clusters=codes, alpha=alpha)
    k = mean.size
    off = ~np.eye(k, dtype=bool)
    units = int(np.unique(codes[codes >= 0]).size) if codes is not None else int(shared[off].min())
    notes = []
    thin = int(np.isnan(gap[off]).sum() // 2)
    if thin:
        notes.append(
            f"{thin:,} pair{'s' if thin != 1 else ''} of models share fewer than 2 scored "
            "items and cannot be ordered"
        )
    if np.isnan(x).any():
        notes.append(
            "some models lack scores on some items: ranks, rank sets and tiers compare each "
            "pair on the items both scored; each score is the additive fit model + item over "
            "the scores there are (on complete data the mean), which charges a model with the "
            "difficulty of the items it lacks; own_items_mean is the mean over its own items"
        )
    notes.extend(board_notes(board))
    use_holm = method == "holm"
    if method == "auto" and (k >= MAX_MODELS_PER_UNIT * units or units < MIN_UNITS):
        use_holm = True
        what = "clusters" if codes is not None else "items"
        notes.append(
            f"{k} models on {units:,} {what}: too many models for the max-t bootstrap's "
            "coverage, so the sets come from Holm-adjusted pairwise tests (valid, wider)"
        )
    if use_holm:
        better, holm_marginal = _holm(x, gap, variance, shared, codes, alpha)
        better_marginal = holm_marginal if marginal else None
        critical, steps, name = np.nan, 0, "Holm pairwise"
    else:
        n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
        check_replicates(n_bootstrap, alpha, replicates_name)
        draws = _multiplier_draws if bootstrap == "multiplier" else _empirical_draws
        if np.isnan(x).any():

            def deviations() -> Iterator[np.ndarray]:
                return _pair_draws(x, mean, gap, shared, codes, n_bootstrap, seed, bootstrap)
        else:

            def deviations() -> Iterator[np.ndarray]:
                return draws(x, mean, n, codes, n_bootstrap, seed, cov)

        # each pair's t is a studentized mean of its shared items (clusters): its degrees
        # of freedom for the small-sample calibration of the stepdown (see _max_t)
        df = np.full((k, k), units - 1.0) if codes is not None else shared - 1.0
        better, better_marginal, critical, steps = _bootstrap_sets(
            gap, variance, deviations, alpha, marginal, df
        )
        name = "max-t stepdown bootstrap"
    return _assemble(
        board.score,
        board.se,
        n,
        gap,
        better,
        better_marginal,
        top_k,
        name,
        critical,
        steps,
        notes,
        board=board,
    )


def _bootstrap_sets(
    gap: np.ndarray,
    variance: np.ndarray,
    deviations: Callable[[], Iterator[np.ndarray]],
    alpha: float,
    marginal: bool,
    df: np.ndarray,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None, float, int]:
    """The max-t stepdown's shown-better pairs (simultaneous, and marginal when asked for),
    its critical value on the t scale of the fewest degrees of freedom, and its steps."""
    better, better_marginal, critical, steps = _max_t(
        gap, variance, deviations, alpha, marginal, df=df
    )
    off = ~np.eye(gap.shape[0], dtype=bool)
    fewest = float(df[off][np.isfinite(gap[off])].min(initial=np.inf))
    return better, better_marginal, t_critical_value(critical, fewest), steps


def rank_sets_from_sums(
    n_items: int,
    right: ArrayLike,
    both_correct: ArrayLike,
    projection: ArrayLike,
    *,
    names: ArrayLike | None = None,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: Seed = 0,
    top_k: int | None = None,
    replicates_name: str = "n_bootstrap",
    marginal: bool = True,
) -> RankSets:
    """Rank sets of a complete binary board from its sums over items: what
    :func:`rank_sets` gives for the scores with the multiplier bootstrap.

    Every model scored all ``n_items`` items; ``right`` are the models' right answers,
    ``both_correct`` the (K, K) items both got right (``X'X``) and ``projection`` the
    models' sums of :func:`canonical_probe` over their right answers (``X'p``), which fix
    the order the bootstrap's factor is taken in. From them the means ``right / N``, the
    covariance of the means ``(X'X - right right' / N) / (N (N - 1))`` and the board
    (:func:`evalgap.stats.board.board_scores_from_counts`); the same stepdown and the same
    draws for ``seed`` as :func:`rank_sets`, so the sets are the same as the single
    machine's (the covariance from integer sums differs from the centred product's by
    rounding). Sums over blocks of items are exact integers, so an engine can compute them.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x = (rng.random((2000, 3)) < [0.8, 0.6, 0.59]).astype(float)
    >>> r = rank_sets_from_sums(2000, x.sum(axis=0), x.T @ x, x.T @ canonical_probe(2000),
    ...                         n_bootstrap=500)
    >>> r.rank_low.tolist(), r.rank_high.tolist(), r.tier.tolist()
    ([1, 2, 2], [1, 3, 3], [1, 2, 2])
    """
    from evalgap.stats.board import board_scores_from_counts

    alpha = float(_validate.probability(alpha, "alpha"))
    _check_top_k(top_k)
    right = np.asarray(right, dtype=float)
    k = right.size
    n = np.full(k, int(n_items), dtype=np.int64)
    mean = right / n
    cross = np.asarray(both_correct, dtype=float) - np.outer(right, right) / n_items
    scale = np.sqrt(n * (n - 1.0))
    cov = cross / np.outer(scale, scale)
    gap, variance, shared = _complete_gaps(mean, cov, int(n_items))
    board = board_scores_from_counts(right, int(n_items), names, gap=gap, alpha=alpha)
    notes = list(board_notes(board))
    if k >= MAX_MODELS_PER_UNIT * n_items or n_items < MIN_UNITS:
        raise InputError(
            escape(
                f"{k} models on {n_items:,} items: too many models for the max-t bootstrap's "
                "coverage, where the sets come from Holm-adjusted pairwise tests on the "
                "items; rank them on one machine"
            )
        )
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    check_replicates(n_bootstrap, alpha, replicates_name)
    root = np.sqrt((n - 1.0) / n)
    law = cov * np.outer(root, root)
    order = np.argsort(np.asarray(projection, dtype=float), kind="stable")

    def deviations() -> Iterator[np.ndarray]:
        return _law_draws(law, order, n_bootstrap, seed)

    better, better_marginal, critical, steps = _bootstrap_sets(
        gap, variance, deviations, alpha, marginal, shared - 1.0
    )
    return _assemble(
        board.score, board.se, n, gap, better, better_marginal, top_k,
        "max-t stepdown bootstrap", critical, steps, notes, board=board,
    )  # fmt: skip


def rank_sets_from_draws(
    estimate: np.ndarray,
    covariance: np.ndarray | None,
    draws: Iterable[np.ndarray],
    *,
    alpha: float = 0.05,
    top_k: int | None = None,
    n: np.ndarray | None = None,
    marginal: bool = True,
) -> RankSets:
    """Rank sets from an estimate, its covariance and bootstrap draws of it (Bradley-Terry).

    ``draws`` is (B, K): bootstrap replicates of the estimate (centred here). The same
    max-t stepdown as :func:`rank_sets`; ``n`` (per model, e.g. battles) is carried along;
    ``marginal=False`` leaves the marginal sets out.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> est = np.array([1.0, 0.0, -1.0]); cov = np.eye(3) * 0.01
    >>> draws = est + rng.normal(0, 0.1, (1000, 3))
    >>> rank_sets_from_draws(est, cov, draws).rank_high.tolist()
    [1, 2, 3]
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    _check_top_k(top_k)
    estimate = np.asarray(estimate, dtype=float)
    cov = np.asarray(covariance, dtype=float)
    draws = np.asarray(draws, dtype=float)
    k = estimate.size
    if cov.shape != (k, k) or draws.ndim != 2 or draws.shape[1] != k:
        raise InputError(f"covariance must be ({k}, {k}) and draws (B, {k})")
    check_replicates(draws.shape[0], alpha)
    if not np.isfinite(draws).all():
        raise InputError("draws contain NaN or infinite values; leave those replicates out")
    centred = draws - estimate
    diagonal = np.diag(cov)
    gap = estimate[:, None] - estimate[None, :]
    variance = np.maximum(diagonal[:, None] + diagonal[None, :] - 2 * cov, 0.0)
    better, better_marginal, critical, steps = _max_t(
        gap, variance, lambda: [centred], alpha, marginal
    )
    counts = np.zeros(k, dtype=np.int64) if n is None else np.asarray(n, dtype=np.int64)
    return _assemble(
        estimate,
        np.sqrt(np.diag(cov)),
        counts,
        gap,
        better,
        better_marginal,
        top_k,
        "max-t stepdown bootstrap",
        critical,
        steps,
        [],
    )


def normal_scores(t: ArrayLike, df: ArrayLike) -> FloatArray:
    """Return each t statistic as the standard normal quantile of its Student t probability,
    ``z = Phi^-1(F_df(t))`` (sign kept; 0 stays 0, infinite stays infinite).

    ``F_df`` is the Student t distribution with ``df`` degrees of freedom (1 at least). A t
    statistic is a mean over its own estimated standard error: under normal scores exactly
    ``t_(n - 1)``, heavier-tailed than the Gaussian laws the bootstrap draws with the standard
    error held fixed, so ``z`` is the statistic on the bootstrap's scale. The transform is
    odd and increasing, so the order of the statistics is kept. Where ``F_df``'s tail
    underflows (``|t|`` in the tens), ``|t|`` itself is kept: far beyond any critical value.

    Examples
    --------
    >>> normal_scores(np.array([0.0, 2.0, -2.0, np.inf]), 9).round(4).tolist()
    [0.0, 1.771, -1.771, inf]
    """
    t = np.asarray(t, dtype=float)
    df = np.maximum(np.asarray(df, dtype=float), 1.0)
    with np.errstate(invalid="ignore"):
        tail = special.stdtr(df, -np.abs(t))
        z = np.where(tail > 0, -special.ndtri(np.where(tail > 0, tail, 0.5)), np.abs(t))
    return np.copysign(z, t)


def t_critical_value(critical: float, df: float) -> float:
    """Return a critical value on the normal scale of :func:`normal_scores` on the t scale
    of ``df`` degrees of freedom: ``F_df^-1(Phi(c))`` (unchanged when ``df`` is infinite).

    >>> round(t_critical_value(float(normal_scores(2.0, 9)), 9), 6)
    2.0
    """
    if not np.isfinite(critical) or not np.isfinite(df):
        return float(critical)
    return float(-special.stdtrit(max(df, 1.0), special.ndtr(-critical)))


def tiers(shown_better: np.ndarray, order: np.ndarray) -> IntArray:
    """Tier of each model: a new tier starts at position i of ``order`` (best first) when
    every model before it is shown better than every model from it on.

    Examples
    --------
    >>> better = np.array([[0, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=bool)
    >>> tiers(better, np.array([0, 1, 2])).tolist()
    [1, 2, 2]
    """
    b = np.asarray(shown_better, dtype=bool)[np.ix_(order, order)]
    k = b.shape[0]
    rows = np.arange(k)
    # first row (position) above the diagonal whose model is not shown better than column c
    not_better = ~b & (rows[:, None] < rows[None, :])
    first_gap = np.where(not_better.any(axis=0), not_better.argmax(axis=0), k)
    # a boundary before position i: no column from i on has such a row above i
    suffix = np.minimum.accumulate(first_gap[::-1])[::-1]
    boundary = np.zeros(k, dtype=bool)
    boundary[1:] = suffix[1:] >= rows[1:]
    out = np.empty(k, dtype=np.int64)
    out[order] = np.cumsum(boundary) + 1
    return out


# --- the bootstrap ----------------------------------------------------------------------------


def _cluster_sums(values: np.ndarray, clusters: ArrayLike | None) -> tuple[np.ndarray, int]:
    """Sums of ``values`` (items, K) per cluster (items labelled -1 belong to none), and the
    number of clusters."""
    codes = np.asarray(clusters)
    keep = codes >= 0
    if np.unique(codes[keep]).size < 2:
        raise InputError("cluster-robust ranks need at least 2 clusters")
    stats = cluster_stats(values[keep], codes[keep])
    return stats.sums, stats.labels.size


def _multiplier_draws(
    x: np.ndarray,
    mean: np.ndarray,
    n: np.ndarray,
    clusters: np.ndarray | None,
    n_bootstrap: int,
    seed: Seed,
    covariance: np.ndarray,
) -> Iterator[np.ndarray]:
    """Blocks of ``m* - m`` (B_block, K) float32: Gaussian weights on the centred items
    (clusters).

    ``m* - m = w F`` with ``F`` the centred scores (or cluster sums) over ``n`` and ``w``
    standard normal, so given the data it is exactly ``N(0, F'F)``, with ``F'F`` the
    covariance of :func:`mean_covariance` times ``sqrt((n_j - 1)/n_j (n_k - 1)/n_k)``
    (with G clusters, times ``(G - 1)/G``). With fewer models than items (clusters) the
    blocks are drawn from that law directly, ``Z L'`` with ``Z`` (B_block, K) standard
    normal and ``L L' = F'F`` (:func:`gaussian_factor`): the same distribution as the
    weights': at K instead of N normals and products per replicate. The factor is taken in
    an order of the models fixed by their scores (:func:`_canonical_order`), so that
    reordering the columns of ``x`` reorders the draws and nothing else.
    """
    units = x.shape[0] if clusters is None else int(np.unique(clusters[clusters >= 0]).size)
    if mean.size < units:
        if clusters is None:
            root = np.sqrt((n - 1.0) / n)
            law = covariance * np.outer(root, root)
        else:
            law = covariance * ((units - 1.0) / units)
        return _law_draws(law, _canonical_order(x), n_bootstrap, seed)
    centred = x - mean
    sums = centred if clusters is None else _cluster_sums(centred, clusters)[0]
    return _factor_draws((sums / n).astype(np.float32), n_bootstrap, seed)


def _law_draws(
    law: np.ndarray, order: np.ndarray, n_bootstrap: int, seed: Seed
) -> Iterator[np.ndarray]:
    """Blocks of ``Z L'`` with ``L L' = law``, the factor taken in ``order`` of the models
    (see :func:`_multiplier_draws`)."""
    factor = np.empty_like(law)
    factor[:, order] = gaussian_factor(law[np.ix_(order, order)]).T
    return _factor_draws(factor.astype(np.float32), n_bootstrap, seed)


def _factor_draws(factor: np.ndarray, n_bootstrap: int, seed: Seed) -> Iterator[np.ndarray]:
    """Blocks of standard normal rows times ``factor`` (float32), from ``seed``."""
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    for start in range(0, n_bootstrap, REPLICATE_BLOCK):
        rows = min(REPLICATE_BLOCK, n_bootstrap - start)
        yield rng.standard_normal((rows, factor.shape[0]), dtype=np.float32) @ factor


def _canonical_order(x: np.ndarray) -> IntArray:
    """Return an order of the models (columns of ``x``, NaN where missing) that depends on
    their scores alone, not on the columns' order: by a fixed random projection of the
    scores, then of the scored items (models alike in both are interchangeable)."""
    observed = ~np.isnan(x)
    probe = canonical_probe(x.shape[0])
    if observed.all():
        return np.argsort(x.T @ probe, kind="stable")
    return np.lexsort((observed.T @ probe, np.where(observed, x, 0.0).T @ probe))


def canonical_probe(n_items: int) -> FloatArray:
    """Return the fixed random weights of the items whose sums order the models
    (:func:`_canonical_order`): the same for every board of ``n_items`` items, so an engine
    summing blocks of items orders the models as one machine does."""
    return np.random.default_rng(0).random(n_items)


def gaussian_factor(covariance: np.ndarray) -> np.ndarray:
    """Return ``L`` with ``L L' = covariance`` (positive semi-definite): its Cholesky factor,
    or when that fails (a singular covariance, as of a model scoring every item alike) its
    eigenvectors times the roots of its eigenvalues (negative rounding clipped to 0)."""
    try:
        return np.linalg.cholesky(covariance)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(covariance)
        return vectors * np.sqrt(np.clip(values, 0.0, None))


def _empirical_draws(
    x: np.ndarray,
    mean: np.ndarray,
    n: np.ndarray,
    clusters: np.ndarray | None,
    n_bootstrap: int,
    seed: Seed,
    covariance: np.ndarray,
) -> Iterator[np.ndarray]:
    """Blocks of ``m* - m``: items (clusters) resampled with replacement (multinomial)."""
    observed = ~np.isnan(x)
    filled = np.where(observed, x, 0.0)
    counts = observed.astype(float)
    if clusters is not None:
        filled = _cluster_sums(filled, clusters)[0]
        counts = _cluster_sums(counts, clusters)[0]
    units = filled.shape[0]
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    for start in range(0, n_bootstrap, REPLICATE_BLOCK):
        rows = min(REPLICATE_BLOCK, n_bootstrap - start)
        weights = rng.multinomial(units, np.full(units, 1.0 / units), size=rows).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (weights @ filled) / (weights @ counts)
        # a model left with no item in a replicate keeps its mean (no information)
        yield np.where(np.isfinite(resampled), resampled - mean, 0.0)


def _pair_draws(
    x: np.ndarray,
    mean: np.ndarray,
    gap: np.ndarray,
    shared: np.ndarray,
    clusters: np.ndarray | None,
    n_bootstrap: int,
    seed: Seed,
    kind: str,
) -> Iterator[np.ndarray]:
    """Blocks of every pair's bootstrap gap deviation (b, K, K) when some scores are missing:
    ``gap*_jk - gap_jk`` on the items both j and k scored, so the bootstrap bounds the same
    paired gaps as the tests.

    Items every model scored enter through the models' weighted sums (a (b, N) by (N, K)
    product); only the items some model lacks need the (K, K) sums of each replicate.
    Multiplier: ``sum_i w_i r_ijk / n_jk`` with ``r`` the centred paired differences;
    empirical: the mean of the resampled shared items' differences minus ``gap``.

    With few missingness patterns, every sum a replicate needs is ``w F``, ``F`` holding per
    item (cluster) the complete items' centred scores and count and each pattern's: with
    Gaussian weights that is exactly ``N(0, F'F)`` given the data, drawn as ``Z L'`` with
    ``L L' = F'F`` when ``F`` has fewer columns than rows (see :func:`_multiplier_draws`),
    with the models in :func:`_canonical_order` (the draws then follow the models).
    """
    restore = None
    if kind == "multiplier":
        order = _canonical_order(x)
        restore = np.argsort(order)
        x, mean = x[:, order], mean[order]
        gap, shared = gap[np.ix_(order, order)], shared[np.ix_(order, order)]
    observed = ~np.isnan(x)
    centred = np.where(observed, x - mean, 0.0)
    gap_centred = np.nan_to_num(gap - (mean[:, None] - mean[None, :]))
    codes = None if clusters is None else np.asarray(clusters)
    sums = _pair_sums(centred, observed, codes)
    # a model missing from a pattern has zero columns there: they draw 0, left out of the law
    used = np.flatnonzero(sums.features.any(axis=0))
    gaussian = kind == "multiplier" and sums.by_pattern and used.size < sums.n_units
    factor = _pair_factor(sums, centred, used, codes is not None) if gaussian else None
    k = x.shape[1]
    groups = sums.pattern_ones.shape[0] if sums.by_pattern else sums.part_unit.size
    per_replicate = max(k * k, groups * k, 1)
    block = max(1, min(REPLICATE_BLOCK, PAIR_BLOCK_ELEMENTS // per_replicate))
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, n_bootstrap, block):
            rows = min(block, n_bootstrap - start)
            weights = None
            if factor is not None:
                normal = rng.standard_normal((rows, used.size), dtype=np.float32)
                totals = np.zeros((rows, sums.features.shape[1]))
                totals[:, used] = normal.astype(float) @ factor
            else:
                weights = _unit_weights(rng, rows, sums.n_units, kind)
                totals = weights @ sums.features
            deviation = _pair_deviation(totals, weights, sums, gap_centred, shared, kind)
            if restore is not None:
                deviation = deviation[:, restore[:, None], restore[None, :]]
            yield deviation


@dataclass(frozen=True)
class _PairSums:
    """What a replicate of :func:`_pair_draws` weights, per unit (item or cluster): the
    ``features`` (the complete items' centred scores and count, then with ``by_pattern``
    each missingness pattern's), and the items some model lacks."""

    features: np.ndarray  # (units, K + 1), or (units, (1 + G) (K + 1)) by pattern
    n_units: int
    part: IntArray  # the items some model lacks
    part_unit: IntArray  # their units
    part_centred: np.ndarray  # their centred scores, 0 where missing
    part_ones: np.ndarray  # 1 where scored
    pattern_of: IntArray  # their missingness pattern
    pattern_ones: np.ndarray  # (G, K): 1 where the pattern's items are scored
    by_pattern: bool


def _item_units(codes: np.ndarray | None, n_items: int) -> tuple[IntArray, int]:
    """Each item's unit (itself, or its cluster's index; -1: none) and the number of units."""
    if codes is None:
        return np.arange(n_items), n_items
    labels, unit_of = np.unique(codes, return_inverse=True)
    unit_of = np.where(codes >= 0, unit_of - int((labels < 0).any()), -1)
    return unit_of, int((labels >= 0).sum())


def _pair_sums(centred: np.ndarray, observed: np.ndarray, codes: np.ndarray | None) -> _PairSums:
    """Return the units' features and incomplete items that :func:`_pair_draws` weights."""
    unit_of, n_units = _item_units(codes, centred.shape[0])
    ones = observed.astype(float)
    complete = observed.all(axis=1)
    full = (unit_of >= 0) & complete
    k = centred.shape[1]
    # per unit: the complete items' centred sums and their count (K + 1 columns)
    features = np.zeros((n_units, k + 1))
    values = np.column_stack([centred[full], ones[full, :1]])
    if codes is None:  # each item its own unit
        features[unit_of[full]] = values
    else:
        np.add.at(features, unit_of[full], values)
    part = np.flatnonzero((unit_of >= 0) & ~complete)
    part_unit = unit_of[part]
    # the incomplete items' missingness patterns (which models scored them): the (K, K) sums
    # of a replicate need only each pattern's weighted sums, B x (items x K + patterns x K^2)
    patterns, pattern_of = np.unique(observed[part], axis=0, return_inverse=True)
    pattern_of = pattern_of.reshape(-1)
    by_pattern = 2 * patterns.shape[0] <= part.size
    if by_pattern:
        grouped = np.zeros((n_units, patterns.shape[0], k + 1))
        values = np.column_stack([centred[part], np.ones(part.size)])
        if codes is None:
            grouped[part_unit, pattern_of] = values
        else:
            np.add.at(grouped, (part_unit, pattern_of), values)
        features = np.concatenate([features, grouped.reshape(n_units, -1)], axis=1)
    return _PairSums(
        features=features,
        n_units=n_units,
        part=part,
        part_unit=part_unit,
        part_centred=centred[part],
        part_ones=ones[part],
        pattern_of=pattern_of,
        pattern_ones=patterns.astype(float),
        by_pattern=by_pattern,
    )


def _pair_factor(
    sums: _PairSums, centred: np.ndarray, used: IntArray, clustered: bool
) -> np.ndarray:
    """Return ``L'`` with ``L L' = F'F``, ``F`` the features' ``used`` columns: the law of
    their Gaussian-weighted sums (:func:`gaussian_factor`)."""
    if clustered:
        chosen = sums.features[:, used]
        return gaussian_factor(chosen.T @ chosen).T
    # each item is a unit of the complete items or of one pattern: F'F is block-diagonal
    k = centred.shape[1]
    width = sums.features.shape[1]
    law = np.zeros((width, width))
    values = np.column_stack([centred, np.ones(centred.shape[0])])
    group_of = np.zeros(centred.shape[0], dtype=np.int64)
    group_of[sums.part] = 1 + sums.pattern_of
    for g in range(1 + sums.pattern_ones.shape[0]):
        own = values[group_of == g]
        span = slice(g * (k + 1), (g + 1) * (k + 1))
        law[span, span] = own.T @ own
    return gaussian_factor(law[np.ix_(used, used)]).T


def _unit_weights(rng: np.random.Generator, rows: int, n_units: int, kind: str) -> np.ndarray:
    """Return the replicates' weights per unit (rows, units): standard normal (multiplier) or
    multinomial counts of a resample (empirical)."""
    if kind == "multiplier":
        weights = rng.standard_normal((rows, n_units), dtype=np.float32)
        return weights.astype(float)
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=rows).astype(float)


def _pair_deviation(
    totals: np.ndarray,
    weights: np.ndarray | None,
    sums: _PairSums,
    gap_centred: np.ndarray,
    shared: np.ndarray,
    kind: str,
) -> np.ndarray:
    """Return the replicates' paired gap deviations (b, K, K) from their weighted sums of the
    features (``totals``) and, without patterns, their weights of the incomplete items."""
    k = gap_centred.shape[0]
    rows = totals.shape[0]
    model_sums, count = totals[:, :k], totals[:, k]  # (b, K), (b,)
    if sums.by_pattern:
        pattern_ones = sums.pattern_ones
        per_pattern = totals[:, k + 1 :].reshape(rows, pattern_ones.shape[0], k + 1)
        per_total = per_pattern[:, :, k]  # (b, G)
        cross = np.matmul(per_pattern[:, :, :k].transpose(0, 2, 1), pattern_ones)
        weighted = per_total[:, :, None] * pattern_ones  # (b, G, K)
        both = np.matmul(weighted.transpose(0, 2, 1), pattern_ones)
    else:
        assert weights is not None  # drawn per unit when not by pattern
        w = weights[:, sums.part_unit]  # (b, items with a missing score)
        part_centred, part_ones = sums.part_centred, sums.part_ones
        cross = np.matmul((w[:, :, None] * part_centred).transpose(0, 2, 1), part_ones)
        both = np.matmul((w[:, :, None] * part_ones).transpose(0, 2, 1), part_ones)
    difference = model_sums[:, :, None] - model_sums[:, None, :] + cross
    difference -= cross.transpose(0, 2, 1)
    if kind == "multiplier":
        deviation = (difference - gap_centred * (count[:, None, None] + both)) / shared
    else:
        denominator = count[:, None, None] + both
        deviation = difference / denominator - gap_centred
    # a pair with no shared item in a replicate (or none at all) keeps its gap
    return np.where(np.isfinite(deviation) & (shared >= 2), deviation, 0.0)


def _max_t(
    gap: np.ndarray,
    variance: np.ndarray,
    deviations: Callable[[], Iterable[np.ndarray]],
    alpha: float,
    marginal: bool = True,
    df: np.ndarray | None = None,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None, float, int]:
    """Stepdown max-t over the ordered pairs, all at once and per model: the rejections.

    The hypotheses are ``H_jk: theta_j <= theta_k`` for every ordered pair (Mogstad, Romano,
    Shaikh and Wilhelm 2024, Algorithm 3.1), with ``t_jk = gap_jk / se_jk``. Each step
    takes the (1 - alpha) quantile ``c`` of the replicates' maximum of ``t*_jk`` over the
    hypotheses still standing and rejects those with ``t_jk > c``; a rejected ``H_jk`` (j
    shown better than k) leaves, its reverse ``H_kj`` stays. Each pair has one orientation
    with ``t >= 0`` (the only one that can be rejected, as ``c >= 0``) and one with
    ``t <= 0``, which stands throughout: the hypotheses standing at a step are those with
    ``t`` at most the last critical value.

    The statistics are the (K, K) matrix ``U_jo = (d_j - d_o) s_jo`` of each replicate, with
    ``s_jo`` the inverse standard error signed as ``t_jo`` (the row's orientation with
    ``t >= 0`` carries the statistic), never gathered pair by pair: the first step needs
    every row's largest and smallest entry (the reverse orientations' maximum is minus the
    smallest), one pass of broadcast differences over the models; later steps only the rows'
    entries with ``|t|`` at most the critical value, which in the models' order by score lie
    near the diagonal, each step a pass over that band. The values are float32 products
    exactly as a pair-by-pair computation makes them, so the sets and critical values do not
    depend on the order of the work. ``deviations`` returns an iterable of blocks of model
    deviations (b, K), whose pair deviations are their differences, or of pair deviations
    (b, K, K); it is called again for a later step when the blocks are too large to keep.
    With ``marginal=False`` only the simultaneous family is tested (marginal sets: None).

    Without ``df`` this is Algorithm 3.1 as published. With ``df`` ((K, K) degrees of
    freedom of each pair's t), each ``t_jk`` is first replaced by its normal score
    ``Phi^-1(F_df(t_jk))`` (:func:`normal_scores`), the critical value (returned on that
    normal scale) then the bootstrap's, read as the order statistic of
    :func:`_upper_quantile`. The bootstrap's statistics keep the standard error
    fixed, so their law is that of ``gap / se`` with the true ``se``, lighter-tailed than the
    observed t's, whose standard errors are estimated: at the (1 - alpha) quantile of a
    maximum over many pairs (3 to 4) that difference is a share of alpha, and the sets of
    tied models cover less than 1 - alpha (``simulate rank-coverage``).
    The normal scores match each statistic's marginal law to the bootstrap's while the
    bootstrap supplies their dependence: a min-p stepdown (Westfall and Young 1993) on
    p-values from ``t_df``, as the Holm fallback takes them. The change is O(1/n): it
    vanishes as the items grow.
    """
    k = gap.shape[0]
    t, inverse_se = _t_statistics(gap, variance)
    if df is not None:
        t = normal_scores(t, df)
    # every pair by its orientation with t >= 0 (the first model of the pair on a tie):
    # H_{ahead, behind}, its statistic scaled by inverse_se[ahead, behind]
    first, second = np.triu_indices(k, 1)
    up = t[first, second] >= 0
    ahead, behind = np.where(up, first, second), np.where(up, second, first)
    pair_t = t[ahead, behind]
    frame = _stepdown_frame(gap, t, inverse_se, ahead, behind)
    source = _Blocks(deviations, frame.order)
    start = _first_maxima(source, frame, marginal)
    threshold, critical, steps, row_threshold = _step_down(
        source, frame, pair_t, start, alpha, marginal, calibrated=df is not None
    )
    better = np.zeros((k, k), dtype=bool)
    rejected = pair_t > threshold
    better[ahead[rejected], behind[rejected]] = True
    if not marginal:
        return better, None, critical, steps
    return better, _marginal_shown(frame, row_threshold), critical, steps


def _t_statistics(gap: np.ndarray, variance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``t_jk = gap_jk / se_jk`` (infinite for a gap without variation, 0 where it is
    undefined and on the diagonal) and the inverse standard errors (0 where unusable)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        usable = np.isfinite(gap) & (variance > 0)
        inverse_se = np.where(usable, 1.0 / np.sqrt(np.where(usable, variance, 1.0)), 0.0)
        t = np.where(usable, gap * inverse_se, 0.0)
        exact = np.isfinite(gap) & (variance == 0) & (gap != 0)  # no variation, a gap
        t = np.where(exact, np.copysign(np.inf, gap), t)
    np.fill_diagonal(t, 0.0)
    return t, inverse_se


@dataclass(frozen=True)
class _Frame:
    """The stepdown's (K, K) scales and keys in the models' order by score (``order``;
    ``place`` takes a matrix into it): ``row_scale`` for the marginal families and
    ``pair_scale`` for the simultaneous one (float32, NaN on the diagonal), ``key`` the
    entries' ``|t|``, ``pair_key`` each pair's ``t >= 0`` on both orientations, ``positive``
    where ``t >= 0``; ``symmetric`` when the two families' statistics coincide."""

    order: IntArray
    place: tuple[np.ndarray, ...]
    row_scale: np.ndarray
    pair_scale: np.ndarray
    key: np.ndarray
    pair_key: np.ndarray
    positive: np.ndarray
    symmetric: bool


def _stepdown_frame(
    gap: np.ndarray, t: np.ndarray, inverse_se: np.ndarray, ahead: IntArray, behind: IntArray
) -> _Frame:
    """Return the scales and keys of :func:`_max_t`'s two families, in the models' order."""
    k = gap.shape[0]
    pair_t = t[ahead, behind]
    # the marginal family of model j: H_jo and H_oj, scaled by inverse_se[j, o] and
    # signed so that the orientation with t >= 0 carries the statistic
    row_scale = inverse_se * np.where(t >= 0, 1.0, -1.0)
    key = np.abs(t)
    positive = t >= 0
    symmetric = np.array_equal(inverse_se, inverse_se.T) and np.array_equal(t, -t.T)
    if symmetric:
        # then U is symmetric but for pairs with t = 0, whose orientations both stand at
        # every step: each step's maximum over all entries equals the pairs' maximum
        pair_scale, pair_key = row_scale, key
    else:
        pair_scale = np.zeros((k, k))
        pair_scale[ahead, behind] = inverse_se[ahead, behind]
        pair_scale[behind, ahead] = -inverse_se[ahead, behind]
        pair_key = np.zeros((k, k))
        pair_key[ahead, behind] = pair_key[behind, ahead] = pair_t
    # models by score, so that the rows' entries with small |t| lie near the diagonal
    order = np.argsort(-np.nan_to_num(gap).sum(axis=1), kind="stable")
    place = np.ix_(order, order)
    scales = []
    for matrix in (row_scale, pair_scale):
        matrix = matrix[place].astype(np.float32)
        np.fill_diagonal(matrix, np.nan)  # fmax and fmin pass over the diagonal
        scales.append(matrix)
    return _Frame(
        order=order,
        place=place,
        row_scale=scales[0],
        pair_scale=scales[1],
        key=key[place],
        pair_key=pair_key[place],
        positive=positive[place],
        symmetric=symmetric,
    )


_Maxima = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _first_maxima(source: _Blocks, frame: _Frame, marginal: bool) -> _Maxima:
    """Return the first step's replicate maxima over every pair and their floor (minus the
    smallest entry: the reverse orientations' maximum), then the same per model (B, K),
    empty (0, K) without the marginal families."""
    k = frame.order.size
    rows = np.arange(k)
    upper = rows[:, None] < rows[None, :]
    share = frame.symmetric and marginal
    requests = [(frame.pair_scale, upper, True)] if not share else []
    if marginal:
        requests.append((frame.row_scale, np.ones((k, k), dtype=bool), True))
    results = source.row_extremes(requests)
    row_maxima = row_floor = np.empty((0, k))
    if marginal:
        row_max, row_min = results[-1]
        row_floor = -row_min.astype(float)
        row_maxima = np.fmax(row_max, row_floor)
    pair_max, pair_min = results[-1] if share else results[0]
    floor = -np.fmin.reduce(pair_min, axis=1).astype(float)
    maxima = np.fmax(np.fmax.reduce(pair_max, axis=1), floor)
    return maxima, floor, row_maxima, row_floor


def _step_down(
    source: _Blocks,
    frame: _Frame,
    pair_t: np.ndarray,
    start: _Maxima,
    alpha: float,
    marginal: bool,
    calibrated: bool = False,
) -> tuple[float, float, int, np.ndarray]:
    """Step both families down from the first maxima until neither rejects more: return
    the simultaneous family's last threshold, its last critical value and its steps, and
    each model's marginal threshold (infinite where nothing was rejected)."""
    maxima, floor, row_maxima, row_floor = start
    k = frame.order.size
    rows = np.arange(k)
    upper = rows[:, None] < rows[None, :]
    # the simultaneous family: its standing hypotheses, the last critical value
    standing, threshold, critical, steps, testing = pair_t.size, np.inf, np.inf, 0, True
    # the marginal families: rows still stepping, each row's standing count and threshold
    row_standing = np.full(k, k - 1)
    row_threshold = np.full(k, np.inf)
    stepping = np.ones(k, dtype=bool) if marginal else np.zeros(k, dtype=bool)
    while testing or stepping.any():
        requests = []
        if testing:
            steps += 1
            critical = max(float(_upper_quantile(maxima, alpha, calibrated)), 0.0)
            count = min(int(np.count_nonzero(pair_t <= critical)), standing)
            testing = 0 < count < standing
            if count < standing:
                standing, threshold = count, critical
            if testing:
                requests.append((frame.pair_scale, upper & (frame.pair_key <= threshold), False))
        if stepping.any():
            _row_step(row_maxima, frame.key, row_standing, row_threshold, stepping, alpha,
                      calibrated)  # fmt: skip
            if stepping.any():
                within = (frame.key <= row_threshold[:, None]) & stepping[:, None]
                requests.append((frame.row_scale, within, False))
        if not requests:
            break
        results = source.row_extremes(requests)
        if testing:
            maxima = np.fmax(np.fmax.reduce(results[0][0], axis=1), floor)
        if stepping.any():
            row_maxima[:, stepping] = np.fmax(results[-1][0][:, stepping], row_floor[:, stepping])
    return threshold, critical, steps, row_threshold


def _row_step(
    row_maxima: np.ndarray,
    key: np.ndarray,
    row_standing: np.ndarray,
    row_threshold: np.ndarray,
    stepping: np.ndarray,
    alpha: float,
    calibrated: bool = False,
) -> None:
    """One step of the marginal families still ``stepping``, in place: each one's critical
    value from its replicate maxima, its standing count and threshold where it rejected
    more, and ``stepping`` left true only for those (with hypotheses still standing)."""
    k = key.shape[0]
    off = ~np.eye(k, dtype=bool)
    live = np.flatnonzero(stepping)
    quantile = _upper_quantile(row_maxima[:, live], alpha, calibrated)
    level = np.maximum(quantile, 0.0)
    count = np.minimum(((key[live] <= level[:, None]) & off[live]).sum(axis=1),
                       row_standing[live])  # fmt: skip
    changed = count != row_standing[live]
    row_standing[live] = count
    row_threshold[live[changed]] = level[changed]
    stepping[:] = False
    stepping[live[changed & (count > 0)]] = True


def _upper_quantile(maxima: np.ndarray, alpha: float, calibrated: bool) -> np.ndarray:
    """The (1 - alpha) quantile of the replicates' maxima (along the first axis): as the
    published procedure reads it (``numpy.quantile``, interpolated), or calibrated, the
    ``ceil((B + 1)(1 - alpha))``-th smallest of the B maxima, the order statistic that a
    statistic exchangeable with the replicates stays at or below with probability at least
    1 - alpha (Davison and Hinkley 1997, section 2.4); interpolation loses some of alpha
    to the noise of B replicates."""
    if not calibrated:
        return np.asarray(np.quantile(maxima, 1 - alpha, axis=0))
    count = maxima.shape[0]
    rank = min(int(np.ceil((count + 1) * (1 - alpha) - 1e-9)), count)
    return np.partition(maxima, rank - 1, axis=0)[rank - 1]


def _marginal_shown(frame: _Frame, row_threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``[j, o]``: model j shown better than o, and shown worse, by j's marginal
    family (in the input's order of the models)."""
    k = frame.order.size
    shown = frame.key > row_threshold[:, None]
    ahead_of = np.zeros((k, k), dtype=bool)  # [j, o]: j shown better than o (by the order)
    ahead_of[frame.place] = shown & frame.positive
    behind_of = np.zeros((k, k), dtype=bool)
    behind_of[frame.place] = shown & ~frame.positive
    return ahead_of, behind_of


class _Blocks:
    """The bootstrap's deviation blocks as float32 in the models' order, kept in memory when
    they fit in ``KEPT_BYTES`` (else drawn again, the same, for each later step)."""

    def __init__(self, deviations: Callable[[], Iterable[np.ndarray]], order: np.ndarray):
        self._draw = deviations
        self._order = order
        self._kept: list[np.ndarray] | None = None

    def _blocks(self) -> Iterator[np.ndarray]:
        if self._kept is not None:
            yield from self._kept
            return
        kept: list[np.ndarray] | None = []
        size = 0
        order = self._order
        for block in self._draw():
            block = np.asarray(block, dtype=np.float32)
            # rows contiguous: the tiles' differences run along them
            if block.ndim == 2:
                block = np.ascontiguousarray(block.take(order, axis=1))
            else:
                block = np.ascontiguousarray(block[:, order[:, None], order[None, :]])
            size += block.nbytes
            if kept is not None:
                kept = [*kept, block] if size <= KEPT_BYTES else None
            yield block
        self._kept = kept

    def row_extremes(
        self, requests: Sequence[tuple[np.ndarray, np.ndarray, bool]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per request ``(scale, mask, smallest)``: each replicate's largest (and smallest)
        ``U_jo = (d_j - d_o) scale_jo`` over each row's entries in ``mask`` (B, K), the scale
        NaN on the diagonal; NaN (or -inf) for a row with none. The work covers, per tile of
        rows, the columns from the first to the last entry in the mask: with both extremes
        (the first step, every entry) the others are NaN, passed over by fmax and fmin; with
        the largest alone (a band) they are -inf, added, as plain maxima run faster."""
        plans = []
        for scale, mask, smallest in requests:
            present = np.asarray(mask.any(axis=1))
            first = np.argmax(mask, axis=1)
            last = mask.shape[1] - np.argmax(mask[:, ::-1], axis=1)
            if smallest:
                masked, offset = np.where(mask, scale, np.float32(np.nan)), None
            else:
                inside = mask & ~np.isnan(scale)
                masked = np.where(inside, scale, np.float32(0.0))
                offset = np.where(inside, np.float32(0.0), np.float32(-np.inf))
            budget = TILE_ELEMENTS if smallest else BAND_ELEMENTS
            plans.append((masked, offset, _tiles(first, last, present, budget), smallest))
        size = max(
            (
                TILE_REPLICATES * (r1 - r0) * (c1 - c0)
                for _, _, tiles, _ in plans
                for r0, r1, c0, c1 in tiles
            ),
            default=0,
        )
        parts: list[list[np.ndarray]] = [[] for _ in range(2 * len(plans))]
        workers = min(os.cpu_count() or 1, 8)
        for block in self._blocks():
            for p, (masked, offset, tiles, smallest) in enumerate(plans):
                high = np.full(block.shape[:2], np.nan, dtype=np.float32)
                low = np.full(block.shape[:2], np.nan, dtype=np.float32) if smallest else high
                run = partial(_tile_extremes, block, tiles, masked, offset, high, low, size)
                starts = range(0, block.shape[0], TILE_REPLICATES)
                area = sum((r1 - r0) * (c1 - c0) for r0, r1, c0, c1 in tiles)
                # the maxima are exact whichever thread takes which replicates; threads pay
                # off from some milliseconds of work
                if workers > 1 and block.shape[0] * area >= THREADED_ELEMENTS:
                    with ThreadPoolExecutor(max_workers=workers) as pool:
                        list(pool.map(run, starts))
                else:
                    for s in starts:
                        run(s)
                parts[2 * p].append(high)
                parts[2 * p + 1].append(low)
        stacked = [np.concatenate(p) for p in parts]
        return [(stacked[2 * p], stacked[2 * p + 1]) for p in range(len(plans))]


def _tile_extremes(
    block: np.ndarray,
    tiles: list[tuple[int, int, int, int]],
    masked: np.ndarray,
    offset: np.ndarray | None,
    high: np.ndarray,
    low: np.ndarray,
    size: int,
    start: int,
) -> None:
    """Fill ``high`` (and ``low`` without ``offset``) for the replicates ``start`` to
    ``start + TILE_REPLICATES`` of ``block``, tile by tile (see :meth:`_Blocks.row_extremes`)."""
    part = block[start : start + TILE_REPLICATES]
    buffer = np.empty(size, dtype=np.float32)
    for r0, r1, c0, c1 in tiles:
        shape = (part.shape[0], r1 - r0, c1 - c0)
        u = buffer[: shape[0] * shape[1] * shape[2]].reshape(shape)
        if part.ndim == 2:
            np.subtract(part[:, r0:r1, None], part[:, None, c0:c1], out=u)
            np.multiply(u, masked[r0:r1, c0:c1], out=u)
        else:
            np.multiply(part[:, r0:r1, c0:c1], masked[r0:r1, c0:c1], out=u)
        rows = (slice(start, start + shape[0]), slice(r0, r1))
        if offset is not None:
            np.add(u, offset[r0:r1, c0:c1], out=u)
            np.maximum.reduce(u, axis=2, out=high[rows])
        else:
            np.fmax.reduce(u, axis=2, out=high[rows])
            np.fmin.reduce(u, axis=2, out=low[rows])


def _tiles(
    first: np.ndarray, last: np.ndarray, present: np.ndarray, budget: int
) -> list[tuple[int, int, int, int]]:
    """Runs of consecutive rows ``[r0, r1)`` with the columns ``[c0, c1)`` spanning their
    entries (row j's from ``first[j]`` to ``last[j]``), of at most ``budget`` elements per
    replicate unless a single row is wider."""
    tiles = []
    k = first.size
    r0 = 0
    while r0 < k:
        if not present[r0]:
            r0 += 1
            continue
        c0, c1, r1 = int(first[r0]), int(last[r0]), r0 + 1
        while r1 < k and present[r1]:
            lo, hi = min(c0, int(first[r1])), max(c1, int(last[r1]))
            if (r1 + 1 - r0) * (hi - lo) > budget:
                break
            c0, c1, r1 = lo, hi, r1 + 1
        tiles.append((r0, r1, c0, c1))
        r0 = r1
    return tiles


# --- Holm fallback ----------------------------------------------------------------------------


def _holm(
    x: np.ndarray,
    gap: np.ndarray,
    variance: np.ndarray,
    shared: np.ndarray,
    clusters: np.ndarray | None,
    alpha: float,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Ordered pairs by Holm-adjusted two-sided tests of the paired gaps on shared items:
    all pairs, and each model's own."""
    k = gap.shape[0]
    first, second = np.triu_indices(k, 1)
    observed = ~np.isnan(x)
    binary = bool(np.all((x[observed] == 0) | (x[observed] == 1)))
    if binary and clusters is None:
        counts = summarize_pairs(x, first, second)  # the one home of the pairs' 2x2 counts
        a_only, b_only = counts.a_only, counts.b_only
        p = np.asarray(_tests.mcnemar_exact(a_only, b_only), dtype=float)
        sign = np.sign(a_only - b_only)
    else:
        pair_variance = variance[first, second]
        pair_gap = gap[first, second]
        df = (
            np.unique(clusters[clusters >= 0]).size - 1
            if clusters is not None
            else shared[first, second] - 1
        )
        usable = np.isfinite(pair_gap) & (pair_variance > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(usable, pair_gap / np.sqrt(np.where(usable, pair_variance, 1.0)), 0.0)
        exact = np.isfinite(pair_gap) & (pair_variance == 0) & (pair_gap != 0)
        t = np.where(exact, np.copysign(np.inf, pair_gap), t)
        p = np.where(np.isinf(t), 0.0, 2 * special.stdtr(np.maximum(df, 1), -np.abs(t)))
        p = np.where(np.isfinite(pair_gap), p, 1.0)
        sign = np.sign(np.nan_to_num(pair_gap))
    p_all = holm_rows(p)[0]
    ordered = np.zeros((k, k))
    ordered[first, second] = np.where(p_all <= alpha, sign, 0)
    ordered[second, first] = -ordered[first, second]
    better = ordered > 0
    # marginal: Holm over each model's K - 1 pairs
    signed_p = np.ones((k, k))
    signed_p[first, second] = signed_p[second, first] = p
    np.fill_diagonal(signed_p, np.nan)
    rows = signed_p[~np.eye(k, dtype=bool)].reshape(k, k - 1)
    adjusted = np.full((k, k), np.inf)
    adjusted[~np.eye(k, dtype=bool)] = holm_rows(rows).ravel()
    direction = np.zeros((k, k))
    direction[first, second] = sign
    direction[second, first] = -sign
    shown = adjusted <= alpha
    return better, (shown & (direction > 0), shown & (direction < 0))


def _check_top_k(top_k: int | None) -> None:
    if top_k is None:
        return
    try:
        whole = float(top_k) == int(top_k)
    except (TypeError, ValueError, OverflowError):
        whole = False
    if isinstance(top_k, bool) or not whole or int(top_k) < 1:
        raise InputError(
            "{top_k!b}" + escape(f" must be a whole number >= 1; got {top_k!r}"),
            param="top_k",
        )


# --- assembly --------------------------------------------------------------------------------


def _assemble(
    mean: np.ndarray,
    se: np.ndarray,
    n: np.ndarray,
    gap: np.ndarray,
    better: np.ndarray,
    marginal: tuple[np.ndarray, np.ndarray] | None,
    top_k: int | None,
    method: str,
    critical: float,
    steps: int,
    notes: Sequence[str],
    board: BoardScores | None = None,
) -> RankSets:
    k = mean.size
    # the rank by the same paired gaps as the sets: 1 + the models ahead on shared items
    # (without missing scores, the rank by mean); stats.board orders every view by it
    rank = paired_rank(gap)
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    marginal_low = marginal_high = None
    if marginal is not None:
        marginal_better, marginal_worse = marginal
        marginal_low = 1 + marginal_worse.sum(axis=1)
        marginal_high = k - marginal_better.sum(axis=1)
    order = np.lexsort((np.arange(k), -mean, rank)) if board is None else board.order
    top = None
    if top_k is not None:
        top = rank_low <= int(top_k)
    return RankSets(
        score=mean,
        se=se,
        score_low=None if board is None else board.score_low,
        score_high=None if board is None else board.score_high,
        own_items_mean=None if board is None else board.own_items_mean,
        n=np.asarray(n),
        rank=rank,
        rank_low=rank_low,
        rank_high=rank_high,
        marginal_low=marginal_low,
        marginal_high=marginal_high,
        tier=tiers(better, order),
        shown_better=better,
        top_k=top,
        method=method,
        critical_value=critical,
        n_steps=int(steps),
        notes=tuple(notes),
    )
