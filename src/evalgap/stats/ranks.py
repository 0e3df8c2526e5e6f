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
the clusters' sums with cluster labels) draws ``m* - m`` for all K models as one
(replicates x items) by (items x models) matrix product per block of replicates; the
maximum over the K(K-1) ordered pairs is taken per block, and the stepdown needs only each
replicate's running maximum over the hypotheses sorted by observed t (its records), so the
(B, K, K) array never exists. With missing scores the replicates' shared-item gaps are drawn
pair by pair (:func:`_pair_draws`). The empirical (multinomial) bootstrap is an option.

Many models for few items. The max-t bootstrap approximates the law of a maximum over
K(K-1)/2 statistics by a Gaussian one; with K large against the items its coverage falls
below 1 - alpha (the rank-coverage simulation shows where). There, ``method="auto"``
switches to Holm-adjusted pairwise tests (exact McNemar for binary scores without
clusters, a t test on the paired difference otherwise), valid for any K and N.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape, fields
from evalgap.stats import _validate
from evalgap.stats import tests as _tests
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, IntArray, Seed
from evalgap.stats.clusters import cluster_stats
from evalgap.stats.multiplicity import holm_rows
from evalgap.stats.paired import summarize_pairs
from evalgap.stats.resample import seed_sequence

METHODS = ("auto", "bootstrap", "holm")
BOOTSTRAPS = ("multiplier", "empirical")
# method="auto" uses Holm when K / (items or clusters) reaches MAX_MODELS_PER_UNIT, or with
# fewer than MIN_UNITS items (clusters). Evidence (rank-coverage study, all models tied, the
# least favourable case; 300 replicates, SE ~0.015): the bootstrap covers 0.92 with 5 models
# on 50 items, 0.917 with 20 on 100, 0.927 with 50 on 200 and 0.92 with 100 on 500, against
# 0.95 with 5 on 200, 0.957 with 20 on 1,000 and 0.967 with 100 on 3,000.
MAX_MODELS_PER_UNIT = 0.1
MIN_UNITS = 200
# Replicates drawn per matrix product, and bootstrap statistics held at once when taking the
# maximum over pairs (float32: 64 MiB).
REPLICATE_BLOCK = 256
# The (1 - alpha) quantile of the bootstrap maximum is read from the replicates' upper tail:
# with fewer than MIN_TAIL_REPLICATES replicates above it the quantile is the sample maximum
# or close to it, far too noisy to be called a (1 - alpha) critical value (with B = 1 it is
# that one replicate, and the sets come out narrower than at B = 1,000). So B >= 10 / alpha:
# 200 at alpha = 0.05, 1,000 at alpha = 0.01.
MIN_TAIL_REPLICATES = 10
PAIR_BLOCK_ELEMENTS = 2**24


@dataclass(frozen=True)
class RankSets:
    """Rank confidence sets of K models (arrays of length K unless stated).

    Attributes
    ----------
    score, se : numpy.ndarray
        Mean over each model's own items; its standard error (sd/sqrt(n), or cluster-robust).
    n : numpy.ndarray
        Items each model scored.
    rank : numpy.ndarray
        Rank by score (1 = best; equal scores share the best rank).
    rank_low, rank_high : numpy.ndarray
        The simultaneous (1 - alpha) rank sets.
    marginal_low, marginal_high : numpy.ndarray
        The marginal sets.
    tier : numpy.ndarray
        Tier of each model (1 = top).
    shown_better : numpy.ndarray
        (K, K) booleans: ``[i, j]`` when model i is shown better than model j.
    top_k : numpy.ndarray or None
        Booleans: the models that could be among the best k.
    method : str
        ``"max-t stepdown bootstrap"`` or ``"Holm pairwise"``.
    critical_value : float
        The final stepdown critical value (NaN for Holm).
    n_steps : int
        Stepdown steps.
    notes : tuple of str
        Why a fallback was taken, and similar.
    """

    score: FloatArray
    se: FloatArray
    n: IntArray
    rank: IntArray
    rank_low: IntArray
    rank_high: IntArray
    marginal_low: IntArray
    marginal_high: IntArray
    tier: IntArray
    shown_better: BoolArray
    top_k: BoolArray | None
    method: str
    critical_value: float
    n_steps: int
    notes: tuple[str, ...] = ()


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
        diagonal = np.diag(covariance)
        variance = diagonal[:, None] + diagonal[None, :] - 2 * covariance
        shared = np.full((k, k), x.shape[0], dtype=np.int64)
        return mean[:, None] - mean[None, :], np.maximum(variance, 0.0), shared
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
    gap = gap_centred + (mean[:, None] - mean[None, :])
    thin = shared < 2
    gap[thin] = np.nan
    variance[thin] = np.nan
    np.fill_diagonal(gap, 0.0)
    np.fill_diagonal(variance, 0.0)
    return gap, variance, shared.astype(np.int64)


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
            "some models lack scores on some items: each score is the mean over the model's "
            "own items, while ranks, sets and tiers compare each pair on the items both "
            "scored, so the order can differ from the scores"
        )
    use_holm = method == "holm"
    if method == "auto" and (k >= MAX_MODELS_PER_UNIT * units or units < MIN_UNITS):
        use_holm = True
        what = "clusters" if codes is not None else "items"
        notes.append(
            f"{k} models on {units:,} {what}: too many models for the max-t bootstrap's "
            "coverage, so the sets come from Holm-adjusted pairwise tests (valid, wider)"
        )
    if use_holm:
        better, better_marginal = _holm(x, gap, variance, shared, codes, alpha)
        critical, steps, name = np.nan, 0, "Holm pairwise"
    else:
        n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
        check_replicates(n_bootstrap, alpha, replicates_name)
        draws = _multiplier_draws if bootstrap == "multiplier" else _empirical_draws
        if np.isnan(x).any():
            deviations = _pair_draws(x, mean, gap, shared, codes, n_bootstrap, seed, bootstrap)
        else:
            deviations = draws(x, mean, n, codes, n_bootstrap, seed)
        better, better_marginal, critical, steps = _max_t(gap, variance, deviations, alpha)
        name = "max-t stepdown bootstrap"
    return _assemble(
        mean,
        np.sqrt(np.diag(cov)),
        n,
        gap,
        better,
        better_marginal,
        top_k,
        name,
        critical,
        steps,
        notes,
    )


def rank_sets_from_draws(
    estimate: np.ndarray,
    covariance: np.ndarray | None,
    draws: Iterable[np.ndarray],
    *,
    alpha: float = 0.05,
    top_k: int | None = None,
    n: np.ndarray | None = None,
) -> RankSets:
    """Rank sets from an estimate, its covariance and bootstrap draws of it (Bradley-Terry).

    ``draws`` is (B, K): bootstrap replicates of the estimate (centred here). The same
    max-t stepdown as :func:`rank_sets`; ``n`` (per model, e.g. battles) is carried along.

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
    deviations = iter([draws - estimate])
    diagonal = np.diag(cov)
    gap = estimate[:, None] - estimate[None, :]
    variance = np.maximum(diagonal[:, None] + diagonal[None, :] - 2 * cov, 0.0)
    better, better_marginal, critical, steps = _max_t(gap, variance, deviations, alpha)
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
) -> Iterator[np.ndarray]:
    """Blocks of ``m* - m`` (B_block, K): Gaussian weights on the centred items (clusters)."""
    observed = ~np.isnan(x)
    centred = np.where(observed, x - mean, 0.0)
    units = centred if clusters is None else _cluster_sums(centred, clusters)[0]
    scaled = (units / n).astype(np.float32)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    for start in range(0, n_bootstrap, REPLICATE_BLOCK):
        rows = min(REPLICATE_BLOCK, n_bootstrap - start)
        weights = rng.standard_normal((rows, units.shape[0]), dtype=np.float32)
        yield (weights @ scaled).astype(float)


def _empirical_draws(
    x: np.ndarray,
    mean: np.ndarray,
    n: np.ndarray,
    clusters: np.ndarray | None,
    n_bootstrap: int,
    seed: Seed,
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
    """
    observed = ~np.isnan(x)
    ones = observed.astype(float)
    centred = np.where(observed, x - mean, 0.0)
    gap_centred = np.nan_to_num(gap - (mean[:, None] - mean[None, :]))
    complete = observed.all(axis=1)
    codes = None if clusters is None else np.asarray(clusters)
    if codes is None:
        unit_of = np.arange(x.shape[0])
        n_units = x.shape[0]
    else:
        labels, unit_of = np.unique(codes, return_inverse=True)
        unit_of = np.where(codes >= 0, unit_of - int((labels < 0).any()), -1)
        n_units = int((labels >= 0).sum())
    full = (unit_of >= 0) & complete
    # complete items summed per unit: (units, K) and their counts
    full_sums = np.zeros((n_units, x.shape[1]))
    np.add.at(full_sums, unit_of[full], centred[full])
    full_counts = np.bincount(unit_of[full], minlength=n_units).astype(float)
    part = np.flatnonzero((unit_of >= 0) & ~complete)
    part_centred, part_ones, part_unit = centred[part], ones[part], unit_of[part]
    k = x.shape[1]
    # the incomplete items' missingness patterns (which models scored them): the (K, K) sums
    # of a replicate need only each pattern's weighted sums, B x (items x K + patterns x K^2)
    patterns, pattern_of = np.unique(observed[part], axis=0, return_inverse=True)
    pattern_of = pattern_of.reshape(-1)
    by_pattern = 2 * patterns.shape[0] <= part.size
    if by_pattern:
        pattern_ones = patterns.astype(float)  # (G, K)
        members = [np.flatnonzero(pattern_of == g) for g in range(patterns.shape[0])]
    per_replicate = max(k * k, (patterns.shape[0] if by_pattern else part.size) * k, 1)
    block = max(1, min(REPLICATE_BLOCK, PAIR_BLOCK_ELEMENTS // per_replicate))
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, n_bootstrap, block):
            rows = min(block, n_bootstrap - start)
            if kind == "multiplier":
                weights = rng.standard_normal((rows, n_units))
            else:
                weights = rng.multinomial(
                    n_units, np.full(n_units, 1.0 / n_units), size=rows
                ).astype(float)
            model_sums = weights @ full_sums  # (b, K)
            count = weights @ full_counts  # (b,)
            w = weights[:, part_unit]  # (b, items with a missing score)
            if by_pattern:
                sums = np.stack([w[:, m] @ part_centred[m] for m in members], axis=1)
                totals = np.stack([w[:, m].sum(axis=1) for m in members], axis=1)  # (b, G)
                cross = np.matmul(sums.transpose(0, 2, 1), pattern_ones)
                weighted = totals[:, :, None] * pattern_ones  # (b, G, K)
                both = np.matmul(weighted.transpose(0, 2, 1), pattern_ones)
            else:
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
            yield np.where(np.isfinite(deviation) & (shared >= 2), deviation, 0.0)


def _max_t(
    gap: np.ndarray, variance: np.ndarray, deviations: Iterable[np.ndarray], alpha: float
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], float, int]:
    """Stepdown max-t over the ordered pairs, all at once and per model: the rejections.

    The hypotheses are ``H_jk: theta_j <= theta_k`` for every ordered pair (Mogstad, Romano,
    Shaikh and Wilhelm 2024, Algorithm 3.1), with ``t_jk = gap_jk / se_jk``. Each step
    takes the (1 - alpha) quantile ``c`` of the replicates' maximum of ``t*_jk`` over the
    hypotheses still standing and rejects those with ``t_jk > c``; a rejected ``H_jk`` (j
    shown better than k) leaves, its reverse ``H_kj`` stays. Each pair has one orientation
    with ``t >= 0`` (the only one that can be rejected, as ``c >= 0``) and one with
    ``t <= 0``, which stands throughout: the maximum over the standing hypotheses is the
    larger of the replicate's maximum over the second kind (a fixed ``floor``) and its
    running maximum over the first kind, sorted by ``t``, up to the standing prefix (its
    records). ``deviations`` yields blocks of model deviations (b, K), whose pair deviations
    are their differences, or of pair deviations (b, K, K).
    """
    k = gap.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        usable = np.isfinite(gap) & (variance > 0)
        inverse_se = np.where(usable, 1.0 / np.sqrt(np.where(usable, variance, 1.0)), 0.0)
        t = np.where(usable, gap * inverse_se, 0.0)
        exact = np.isfinite(gap) & (variance == 0) & (gap != 0)  # no variation, a gap
        t = np.where(exact, np.copysign(np.inf, gap), t)
    np.fill_diagonal(t, 0.0)
    # every pair by its orientation with t >= 0: H_{ahead, behind}
    first, second = np.triu_indices(k, 1)
    up = t[first, second] >= 0
    ahead, behind = np.where(up, first, second), np.where(up, second, first)
    pair_t = t[ahead, behind]
    order = np.argsort(pair_t, kind="stable")
    pair_i, pair_j = ahead[order], behind[order]
    pair_scale = inverse_se[pair_i, pair_j].astype(np.float32)
    sorted_t = pair_t[order]
    # marginal: model j's pairs, each by its orientation with t >= 0 (sign +1: H_jo, j ahead)
    others = np.array([np.delete(np.arange(k), j) for j in range(k)]).reshape(k, k - 1)
    own = np.repeat(np.arange(k), k - 1).reshape(k, k - 1)
    row_t = t[own, others]
    row_sign = np.where(row_t >= 0, 1.0, -1.0)
    row_abs = np.abs(row_t)
    row_order = np.argsort(row_abs, axis=1, kind="stable")
    row_other = np.take_along_axis(others, row_order, axis=1)
    row_sign = np.take_along_axis(row_sign, row_order, axis=1)
    row_scale = (inverse_se[own, row_other] * row_sign).astype(np.float32)
    row_sorted = np.take_along_axis(row_abs, row_order, axis=1)
    pair_records, pair_floor, row_records, row_floor = [], [], [], []
    for block in deviations:
        block = block.astype(np.float32)
        paired = block.ndim == 3
        rows = max(1, PAIR_BLOCK_ELEMENTS // max(pair_i.size, 1))
        for s in range(0, block.shape[0], rows):
            d = block[s : s + rows]
            diff = d[:, pair_i, pair_j] if paired else d[:, pair_i] - d[:, pair_j]
            stat = diff * pair_scale
            pair_records.append(_records(stat))
            pair_floor.append(-stat.min(axis=-1, initial=np.inf))
        rows = max(1, PAIR_BLOCK_ELEMENTS // max(k * (k - 1), 1))
        for s in range(0, block.shape[0], rows):
            d = block[s : s + rows]
            diff = d[:, own, row_other] if paired else d[:, :, None] - d[:, row_other]
            stat = diff * row_scale
            row_records.append(_records(stat))
            row_floor.append(-stat.min(axis=-1, initial=np.inf))
    positions, values = _stack_records(pair_records)
    floor = np.concatenate(pair_floor)[:, None]
    kept, critical, steps = _stepdown(positions, values, sorted_t[None, :], alpha, floor)
    better = np.zeros((k, k), dtype=bool)
    rejected = order[kept[0] :]  # every hypothesis past the standing prefix is rejected
    better[ahead[rejected], behind[rejected]] = True
    positions, values = _stack_records(row_records)
    kept_rows, _, _ = _stepdown(positions, values, row_sorted, alpha, np.concatenate(row_floor))
    beyond = np.arange(k - 1)[None, :] >= kept_rows[:, None]
    marginal_better = np.zeros((k, k), dtype=bool)  # [j, o]: j shown better than o
    marginal_worse = np.zeros((k, k), dtype=bool)  # [j, o]: o shown better than j
    wins = beyond & (row_sign > 0)
    losses = beyond & (row_sign < 0)
    marginal_better[own[wins], row_other[wins]] = True
    marginal_worse[own[losses], row_other[losses]] = True
    return better, (marginal_better, marginal_worse), float(critical[0]), steps


def _records(stat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running maxima of ``stat`` (..., P) along P: where each new maximum starts, and its value.

    A replicate's maximum over the first m pairs is the value of its last record at a
    position below m; a running maximum of P values has O(log P) records, so all B
    replicates' records take little memory where the (B, P) statistics would not.
    """
    running = np.maximum.accumulate(stat, axis=-1)
    change = np.empty(running.shape, dtype=bool)
    change[..., 0] = True
    change[..., 1:] = running[..., 1:] > running[..., :-1]
    flat = change.reshape(-1, stat.shape[-1])
    rows, cols = np.nonzero(flat)
    count = np.bincount(rows, minlength=flat.shape[0])
    width = int(count.max())
    slot = np.arange(rows.size) - np.repeat(np.cumsum(count) - count, count)
    positions = np.full((flat.shape[0], width), np.iinfo(np.int32).max, dtype=np.int32)
    values = np.zeros((flat.shape[0], width), dtype=np.float32)
    positions[rows, slot] = cols
    values[rows, slot] = running.reshape(flat.shape)[rows, cols]
    lead = change.shape[:-1]
    return positions.reshape(*lead, width), values.reshape(*lead, width)


def _stack_records(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(p.shape[-1] for p, _ in parts)
    positions = np.concatenate(
        [
            np.pad(
                p,
                [(0, 0)] * (p.ndim - 1) + [(0, width - p.shape[-1])],
                constant_values=np.iinfo(np.int32).max,
            )
            for p, _ in parts
        ]
    )
    values = np.concatenate(
        [np.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, width - v.shape[-1])]) for _, v in parts]
    )
    return positions, values


def _stepdown(
    positions: np.ndarray, values: np.ndarray, sorted_t: np.ndarray, alpha: float, floor: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """Stepdown for one or several families of hypotheses at once.

    ``sorted_t`` (F, P) holds each family's rejectable hypotheses' t (>= 0) ascending;
    ``positions``/``values`` (B, [F,] R) the replicates' running-maximum records over the
    same order, ``floor`` (B, F) each replicate's maximum over the hypotheses that stand
    throughout. The rejectable ones still standing are always a prefix: starting from all
    P, the critical value is the (1 - alpha) quantile of the replicates' maxima over the
    prefix and the floor (at least 0), and the prefix shrinks to the t <= it. Returns the
    final prefix lengths, critical values and the number of steps.
    """
    families, p = sorted_t.shape
    if positions.ndim == 2:
        positions, values = positions[:, None, :], values[:, None, :]
    floor = np.asarray(floor, dtype=float).reshape(positions.shape[0], families)
    kept = np.full(families, p)
    critical = np.full(families, np.inf)
    steps = 0
    while True:
        live = kept > 0
        if not live.any():
            break
        steps += 1
        index = (positions < kept[None, :, None]).sum(axis=-1) - 1  # (B, F)
        maxima = np.take_along_axis(values, np.maximum(index, 0)[..., None], axis=-1)[..., 0]
        maxima = np.where(index >= 0, np.maximum(maxima, floor), floor)
        quantile = np.maximum(np.quantile(maxima, 1 - alpha, axis=0), 0.0)
        critical = np.where(live, quantile, critical)
        new = np.array(
            [np.searchsorted(sorted_t[f], critical[f], side="right") for f in range(families)]
        )
        new = np.minimum(new, kept)
        if np.array_equal(new, kept):
            break
        kept = new
    return kept, critical, steps


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
    marginal: tuple[np.ndarray, np.ndarray],
    top_k: int | None,
    method: str,
    critical: float,
    steps: int,
    notes: Sequence[str],
) -> RankSets:
    k = mean.size
    # the rank by the same paired gaps as the sets: 1 + the models ahead on shared items
    # (without missing scores, the rank by mean)
    rank = 1 + (np.nan_to_num(gap) > 0).sum(axis=0)
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    marginal_better, marginal_worse = marginal
    marginal_low = 1 + marginal_worse.sum(axis=1)
    marginal_high = k - marginal_better.sum(axis=1)
    order = np.lexsort((np.arange(k), -mean, rank))
    top = None
    if top_k is not None:
        top = rank_low <= int(top_k)
    return RankSets(
        score=mean,
        se=se,
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
