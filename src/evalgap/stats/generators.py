"""Synthetic paired evaluations for simulation studies (Resolution Diagnostics, Section 5,
Appendix B; Degradation paper, Appendix C.2).

* **Paired Bernoulli with a latent-Gaussian copula.** Each item has a bivariate normal latent
  ``(Z_A, Z_B)`` with correlation ``rho_z``; model A is right when ``Z_A < Phi^{-1}(p_A)``,
  model B when ``Z_B < Phi^{-1}(p_B)``. The four cell probabilities are bivariate normal CDF
  values (:func:`latent_cells`), so a trial of n items is one multinomial draw of its 2x2
  counts (:func:`paired_counts`) - exactly the law of generating the items one by one.
* **Graded scores with Beta marginals** through the same copula (:func:`paired_beta`).
* **Clustered items**: a cluster effect shared by the items of a cluster shifts the latent
  difference, inducing an intra-cluster correlation of D (:func:`clustered_paired_bernoulli`).
* **Resampling a real pair**: a multinomial draw over its observed 2x2 cells, the bootstrap
  of :func:`evalgap.stats.resample.bootstrap_counts`.

Every generator takes a :class:`numpy.random.Generator`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import FloatArray, IntArray

# A simulation's batch shape: one trial (None or ()), a number of trials, or a shape.
Size = int | tuple[int, ...] | None


def latent_cells(accuracy_a: float, accuracy_b: float, latent_correlation: float) -> FloatArray:
    """Return ``(p11, p10, p01, p00)`` of the latent-Gaussian paired Bernoulli.

    ``p11 = Phi2(Phi^{-1}(p_A), Phi^{-1}(p_B); rho_z)``, ``p10 = p_A - p11``,
    ``p01 = p_B - p11`` and ``p00 = 1 - p_A - p_B + p11``.
    """
    pa = float(_validate.probability(accuracy_a, "accuracy_a"))
    pb = float(_validate.probability(accuracy_b, "accuracy_b"))
    rho = float(latent_correlation)
    if not -1 < rho < 1:
        raise InputError(
            "{latent_correlation!b}" + escape(f" must lie in (-1, 1); got {rho}"),
            param="latent_correlation",
        )
    qa, qb = special.ndtri(pa), special.ndtri(pb)
    both = float(stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([qa, qb]))
    cells = np.array([both, pa - both, pb - both, 1 - pa - pb + both])
    return np.clip(cells, 0.0, 1.0) / np.clip(cells, 0.0, 1.0).sum()


def paired_counts(
    cells: ArrayLike, n_items: int, size: Size, rng: np.random.Generator
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Return 2x2 counts ``(both_correct, a_only, b_only, both_wrong)``, each of shape ``size``."""
    draws = rng.multinomial(int(n_items), np.asarray(cells, dtype=float), size=size)
    return draws[..., 0], draws[..., 1], draws[..., 2], draws[..., 3]


def paired_bernoulli(
    n_items: int,
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    latent_correlation: float,
    size: Size,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray]:
    """Return item-level 0/1 scores ``(a, b)`` of shape ``(*size, n_items)`` (copula draws)."""
    z = _latent(n_items, latent_correlation, size, rng)
    return (
        (z[0] < special.ndtri(accuracy_a)).astype(float),
        (z[1] < special.ndtri(accuracy_b)).astype(float),
    )


def paired_beta(
    n_items: int,
    shape_a: tuple[float, float],
    shape_b: tuple[float, float],
    latent_correlation: float,
    size: Size,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray]:
    """Return graded scores with Beta marginals: ``X = F_Beta^{-1}(Phi(Z))`` through the copula.

    ``shape_a`` and ``shape_b`` are the (alpha, beta) of each model's Beta marginal, e.g.
    (4, 2) for the graded stress test of Appendix B.
    """
    z = _latent(n_items, latent_correlation, size, rng)
    a = stats.beta.ppf(special.ndtr(z[0]), *shape_a)
    b = stats.beta.ppf(special.ndtr(z[1]), *shape_b)
    return a, b


def clustered_paired_bernoulli(
    n_clusters: int,
    cluster_size: int,
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    latent_correlation: float,
    cluster_sd: float,
    size: Size,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Return clustered 0/1 scores ``(a, b, labels)``; a shared effect per cluster moves A.

    Model A's latent gets ``+ u_k``, ``u_k ~ N(0, cluster_sd^2)`` for every item of cluster k,
    so the paired difference of items in one cluster is correlated (ICC of D > 0 when
    ``cluster_sd > 0``); marginal accuracies are kept by rescaling the latent.
    """
    n = n_clusters * cluster_size
    z = _latent(n, latent_correlation, size, rng)
    effect = (
        rng.normal(0, cluster_sd, (*np.atleast_1d(size), n_clusters))
        if size
        else rng.normal(0, cluster_sd, n_clusters)
    )
    shifted = (z[0] + np.repeat(effect, cluster_size, axis=-1)) / np.sqrt(1 + cluster_sd**2)
    labels = np.repeat(np.arange(n_clusters), cluster_size)
    return (
        (shifted < special.ndtri(accuracy_a)).astype(float),
        (z[1] < special.ndtri(accuracy_b)).astype(float),
        labels,
    )


def _latent(
    n_items: int, rho: float, size: Size, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray]:
    shape = (*np.atleast_1d(size), n_items) if size else (n_items,)
    z1 = rng.standard_normal(shape)
    z2 = rho * z1 + np.sqrt(1 - rho**2) * rng.standard_normal(shape)
    return z1, z2
