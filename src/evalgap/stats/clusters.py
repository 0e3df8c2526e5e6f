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
counts with those statistics, and leave-one-cluster-out is a subtraction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats.resample import seed_sequence


@dataclass(frozen=True)
class ClusterStats:
    """Per-cluster sufficient statistics of D for P pairs: sizes (K,), sums and sumsq (K, P)."""

    labels: np.ndarray
    sizes: np.ndarray
    sums: np.ndarray
    sumsq: np.ndarray


def cluster_stats(differences, labels) -> ClusterStats:
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
    return ClusterStats(names, onehot.sum(axis=1), onehot @ d, onehot @ (d * d))


def icc_from_stats(sizes, sums, sumsq, weights=None):
    """Return the one-way ANOVA ICC of D and the mean cluster size, from cluster statistics.

    ``weights`` (..., K) counts how often each cluster is taken (a bootstrap draw; 0 drops
    it); the result has shape (..., P) for the ICC and (...,) for the mean cluster size.
    Where the differences have no variance at all the ICC is 0.
    """
    sizes = np.asarray(sizes, dtype=float)
    w = np.ones_like(sizes) if weights is None else np.asarray(weights, dtype=float)
    n = w @ sizes
    k = w.sum(axis=-1)
    total = w @ sums
    between = w @ (sums * sums / sizes[:, None]) - total * total / n[..., None]
    within = w @ (sumsq - sums * sums / sizes[:, None])
    n0 = (n - w @ (sizes * sizes) / n) / (k - 1)
    msb = between / (k - 1)[..., None]
    msw = within / (n - k)[..., None]
    denominator = msb + (n0 - 1)[..., None] * msw
    with np.errstate(divide="ignore", invalid="ignore"):
        icc = np.where(denominator > 0, (msb - msw) / denominator, 0.0)
    return icc, n / k


def design_effect(icc, mean_cluster_size):
    """Return ``DE = 1 + (mbar - 1) max(ICC, 0)``; ``mbar`` broadcasts over trailing pair axes."""
    icc = np.asarray(icc, dtype=float)
    mbar = np.asarray(mean_cluster_size, dtype=float)
    mbar = mbar.reshape(mbar.shape + (1,) * max(icc.ndim - mbar.ndim, 0))
    return _validate.scalar_or_array(1.0 + (mbar - 1.0) * np.maximum(icc, 0.0))


def icc(differences, labels):
    """Return the ICC of ``differences`` (N,) or (N, P) over cluster ``labels`` (Section 6.4)."""
    stats = cluster_stats(differences, labels)
    value, _ = icc_from_stats(stats.sizes, stats.sums, stats.sumsq)
    return _validate.scalar_or_array(value if np.ndim(differences) > 1 else value[0])


def bootstrap_weights(n_clusters: int, n_resamples: int, seed=None) -> np.ndarray:
    """Return (B, K) counts of K clusters drawn with replacement, B times (Appendix G)."""
    n_resamples = _validate.resamples(n_resamples)
    rng = np.random.Generator(np.random.PCG64(seed_sequence(seed)))
    return rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=n_resamples)


def leave_one_out_weights(n_clusters: int) -> np.ndarray:
    """Return (K, K) weights that drop one cluster at a time (Appendix F)."""
    return 1.0 - np.eye(n_clusters)
