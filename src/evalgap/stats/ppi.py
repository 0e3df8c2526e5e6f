"""Prediction-powered inference (PPI++): a judge's scores on every item corrected by gold
scores on a few of them.

Angelopoulos, Duchi and Zrnic (2023), *PPI++: Efficient prediction-powered inference*. A
judge gives a score ``f_i`` to each of ``N`` items; a gold label ``y_i`` (a human, or a
stronger judge) is known on ``n`` of them, drawn at random. The mean of the gold scores
over all the items is estimated by

    theta_lambda = lambda * mean_{all N}(f) + mean_{labelled n}(y - lambda f),

unbiased for every ``lambda``: the judge's bias is measured where both are known and taken
out. The labelled items being among the N, its variance is ``Var(y - lambda f) / n +
(2 lambda Cov(f, y) - lambda^2 Var(f)) / N``; the power-tuned ``lambda`` minimizes it, so
the estimate is never worse than the gold labels' own mean (``lambda = 0``) in large
samples, and uses the judge as far as it agrees with the gold. Paired: for a pair of models,
``f`` and ``y`` are the differences of their scores on each item, and the estimate is the gap
on the gold scale.

Functions work on the last axis and broadcast over leading ones (many pairs at once).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from evalgap.errors import InputError
from evalgap.stats._types import ArrayLike, FloatArray


def _moments(
    f_all: FloatArray, f_gold: FloatArray, y_gold: FloatArray
) -> tuple[int, int, FloatArray, FloatArray, FloatArray, FloatArray]:
    """``n, N``, the judge's variance over all items and on the labelled ones, and the
    labelled covariance of judge and gold and variance of the gold."""
    n, big_n = f_gold.shape[-1], f_all.shape[-1]
    var_f = f_all.var(axis=-1, ddof=1)
    fg = f_gold - f_gold.mean(axis=-1, keepdims=True)
    yg = y_gold - y_gold.mean(axis=-1, keepdims=True)
    cov_fy = (fg * yg).sum(axis=-1) / (n - 1)
    var_fg = (fg * fg).sum(axis=-1) / (n - 1)
    var_y = (yg * yg).sum(axis=-1) / (n - 1)
    return n, big_n, var_f, var_fg, cov_fy, var_y


def tuned_lambda(f_all: ArrayLike, f_gold: ArrayLike, y_gold: ArrayLike) -> FloatArray:
    """Return the power-tuned ``lambda`` of the mean (clipped to [0, 1]).

    With the labelled items among the N, ``Var(theta_lambda) = Var(y - lambda f) / n +
    (2 lambda Cov(f, y) - lambda^2 Var(f)) / N``, smallest at ``lambda = Cov(f, y) /
    Var(f)`` (the regression slope of the gold on the judge), estimated with the labelled
    covariance and the judge's variance over all its items; clipped to [0, 1] (a judge
    that disagrees is not used against the gold).

    Examples
    --------
    >>> f = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    >>> float(tuned_lambda(f, f[:4], f[:4]))  # the judge is the gold: all weight on it
    1.0
    """
    f_all, f_gold, y_gold = (np.asarray(v, dtype=float) for v in (f_all, f_gold, y_gold))
    _, _, var_f, _, cov_fy, _ = _moments(f_all, f_gold, y_gold)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var_f > 0, cov_fy / var_f, 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_mean(
    f_all: ArrayLike,
    f_gold: ArrayLike,
    y_gold: ArrayLike,
    *,
    alpha: float = 0.05,
    lam: ArrayLike | None = None,
) -> dict[str, Any]:
    """Return the PPI++ estimate of the gold scale's mean over all items, with its normal
    (1 - alpha) interval.

    Parameters
    ----------
    f_all : array_like, (..., N)
        The judge's scores on every item (the labelled ones included).
    f_gold, y_gold : array_like, (..., n)
        The judge's and the gold scores on the labelled items (a random subset).
    alpha : float
        One minus the interval's level.
    lam : array_like, optional
        A fixed ``lambda`` (0: the gold labels alone; 1: classic PPI); default the
        power-tuned one (:func:`tuned_lambda`).

    Returns
    -------
    dict
        ``estimate``, ``se``, ``low``, ``high``, ``lam`` and ``effective_n``: the number of
        gold labels whose mean alone would be as precise (``Var(y) / se^2``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(5000) < 0.6).astype(float)
    >>> f = np.where(rng.random(5000) < 0.9, y, 1 - y)  # a judge right 90% of the time
    >>> gold = rng.choice(5000, 500, replace=False)
    >>> r = ppi_mean(f, f[gold], y[gold])
    >>> bool(r["low"] <= y.mean() <= r["high"]), bool(r["effective_n"] > 500)
    (True, True)
    """
    f_all, f_gold, y_gold = (np.asarray(v, dtype=float) for v in (f_all, f_gold, y_gold))
    if f_gold.shape != y_gold.shape or f_gold.shape[:-1] != f_all.shape[:-1]:
        raise InputError("f_gold and y_gold must match, with f_all's leading shape")
    n, big_n, var_f, var_fg, cov_fy, var_y = _moments(f_all, f_gold, y_gold)
    if n < 2 or big_n < n:
        raise InputError("give at least 2 gold labels, among the items the judge scored")
    lam_ = tuned_lambda(f_all, f_gold, y_gold) if lam is None else np.asarray(lam, dtype=float)
    estimate = lam_ * f_all.mean(axis=-1) + (y_gold - lam_[..., None] * f_gold).mean(axis=-1)
    # Var(lam mean_N(f) + mean_n(y - lam f)), the labelled items among the N:
    # Var(y - lam f) / n + (2 lam Cov(f, y) - lam^2 Var(f)) / N
    var_resid = var_y - 2 * lam_ * cov_fy + lam_**2 * var_fg
    variance = var_resid / n + (2 * lam_ * cov_fy - lam_**2 * var_f) / big_n
    se = np.sqrt(np.maximum(variance, 0.0))
    z = float(special.ndtri(1 - float(alpha) / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        effective = np.where(se > 0, var_y / se**2, np.inf)
    return {
        "estimate": estimate,
        "se": se,
        "low": estimate - z * se,
        "high": estimate + z * se,
        "lam": lam_,
        "effective_n": effective,
    }
