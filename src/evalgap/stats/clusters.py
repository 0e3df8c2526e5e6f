"""Clustered items: ICC of the paired difference, design effect, cluster bootstrap, LOCO.

Resolution Diagnostics, Section 6.4 and Appendices F-G. Items come in clusters (subjects,
categories, templates) within which the paired difference ``D_i`` is correlated. With the
one-way ANOVA estimator over K clusters of sizes ``n_k`` (N items in all)::

    MSB = sum_k n_k (Dbar_k - Dbar)^2 / (K - 1)      MSW = sum_k sum_i (D_i - Dbar_k)^2 / (N - K)
    n0  = (N - sum_k n_k^2 / N) / (K - 1)
    ICC = (MSB - MSW) / (MSB + (n0 - 1) MSW)
    DE  = 1 + (mbar - 1) max(ICC, 0),  mbar = N / K,    N*_cluster = DE * N*_IID

Everything is computed from per-cluster sufficient statistics (sizes, sums and sums of
squares of D for every pair), so a cluster bootstrap is a matrix product of resampling
counts with those statistics, and leave-one-cluster-out is a subtraction. A NaN difference
(an item one model of the pair did not score) is no item of that pair: sizes are then per
pair, ``(K, P)``, and K counts only the clusters the pair has items in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, FloatArray, FloatOrArray, IntArray, Seed
from evalgap.stats.power import z_sum_squared
from evalgap.stats.resample import seed_sequence


@dataclass(frozen=True)
class ClusterStats:
    """Per-cluster sufficient statistics of D for P pairs: sizes, sums and sumsq (K, P).

    ``sizes`` is (K,) when every pair has every item, (K, P) when pairs have their own items.
    """

    labels: np.ndarray
    sizes: FloatArray
    sums: FloatArray
    sumsq: FloatArray


def cluster_stats(differences: ArrayLike, labels: ArrayLike) -> ClusterStats:
    """Return per-cluster sizes, sums and sums of squares of ``differences`` (N,) or (N, P)."""
    d = np.asarray(differences, dtype=float)
    if d.ndim == 1:
        d = d[:, None]
    labels = np.asarray(labels)
    if labels.shape[0] != d.shape[0]:
        raise InputError(
            f"one cluster label per item is needed: {labels.shape[0]} labels for {d.shape[0]} items"
        )
    names, codes = np.unique(labels, return_inverse=True)
    if names.size < 2:
        raise InputError(
            "clustering needs at least 2 clusters; the cluster column has "
            f"{names.size} distinct value"
        )
    onehot = np.zeros((names.size, d.shape[0]))
    onehot[codes, np.arange(d.shape[0])] = 1.0
    observed = ~np.isnan(d)
    if observed.all():
        return ClusterStats(names, onehot.sum(axis=1), onehot @ d, onehot @ (d * d))
    filled = np.where(observed, d, 0.0)
    return ClusterStats(
        names, onehot @ observed.astype(float), onehot @ filled, onehot @ (filled * filled)
    )


def icc_from_stats(
    sizes: FloatArray,
    sums: FloatArray,
    sumsq: FloatArray,
    weights: FloatArray | IntArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Return the one-way ANOVA ICC of D and the mean cluster size, from cluster statistics.

    ``weights`` (..., K) counts how often each cluster is taken (a bootstrap draw; 0 drops
    it); the result has shape (..., P) for the ICC and (...,) for the mean cluster size, or
    (..., P) when ``sizes`` is per pair (K, P). Where the differences have no variance at all
    the ICC is 0; where a pair has items in fewer than 2 clusters it is NaN.
    """
    sizes = np.asarray(sizes, dtype=float)
    per_pair = sizes.ndim == 2
    w = np.ones(sizes.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    s2 = sizes if per_pair else sizes[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        square_over_size = np.where(s2 > 0, sums * sums / s2, 0.0)
        n = w @ s2  # (..., P)
        k = w @ (s2 > 0).astype(float)
        total = w @ sums
        between = w @ square_over_size - total * total / n
        within = w @ (sumsq - square_over_size)
        n0 = (n - w @ (s2 * s2) / n) / (k - 1)
        msb = between / (k - 1)
        msw = within / (n - k)
        denominator = msb + (n0 - 1) * msw
        icc = np.where(denominator > 0, (msb - msw) / denominator, 0.0)
        icc = np.where(k >= 2, icc, np.nan)
        mbar = n / k
    if not per_pair:
        mbar = mbar[..., 0]
    return icc, mbar


def design_effect(icc: ArrayLike, mean_cluster_size: ArrayLike) -> FloatOrArray:
    """Return ``DE = 1 + (mbar - 1) max(ICC, 0)``; ``mbar`` broadcasts over trailing pair axes."""
    icc = np.asarray(icc, dtype=float)
    mbar = np.asarray(mean_cluster_size, dtype=float)
    mbar = mbar.reshape(mbar.shape + (1,) * max(icc.ndim - mbar.ndim, 0))
    return _validate.scalar_or_array(1.0 + (mbar - 1.0) * np.maximum(icc, 0.0))


def icc(differences: ArrayLike, labels: ArrayLike) -> FloatOrArray:
    """Return the ICC of ``differences`` (N,) or (N, P) over cluster ``labels`` (Section 6.4)."""
    stats = cluster_stats(differences, labels)
    value, _ = icc_from_stats(stats.sizes, stats.sums, stats.sumsq)
    return _validate.scalar_or_array(value if np.ndim(differences) > 1 else value[0])


def bootstrap_weights(n_clusters: int, n_resamples: int, seed: Seed = None) -> IntArray:
    """Return (B, K) counts of K clusters drawn with replacement, B times (Appendix G)."""
    n_resamples = _validate.resamples(n_resamples)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    return rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=n_resamples)


def leave_one_out_weights(n_clusters: int) -> FloatArray:
    """Return (K, K) weights that drop one cluster at a time (Appendix F)."""
    return 1.0 - np.eye(n_clusters)


def leave_one_out_required_n(
    stats: ClusterStats, alpha: float = 0.05, power: float = 0.8
) -> tuple[FloatArray, FloatArray]:
    """Return ``(n_items, required_n_clustered)`` with each cluster left out in turn (App. F).

    Row k drops cluster k: each pair keeps ``n`` items, with gap ``delta`` and plug-in
    variance ``sigma_D^2`` recomputed from the remaining clusters' sums, N* from Equation (3)
    (infinite for a zero gap) and the clustered N* ``DE * N*`` with the design effect of the
    remaining clusters' ICC. Both results are (K, P).
    """
    k_const = float(z_sum_squared(alpha, power))
    loo = leave_one_out_weights(stats.labels.size)
    l_icc, l_mbar = icc_from_stats(stats.sizes, stats.sums, stats.sumsq, loo)
    sizes = stats.sizes if stats.sizes.ndim == 2 else stats.sizes[:, None]
    n = loo @ sizes  # (K, P): each pair's items once a cluster is dropped
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = (loo @ stats.sums) / n
        variance = np.maximum((loo @ stats.sumsq) / n - delta**2, 0)
        required = np.where(delta != 0, k_const * variance / delta**2, np.inf)
    return n, design_effect(l_icc, l_mbar) * required
