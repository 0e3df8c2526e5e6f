"""A model's full-benchmark score from a few of its items, through a reference board's 2PL.

With item parameters from :func:`evalgap.stats.stratified.fit_2pl` on a reference board
(``P(y_i = 1 | theta) = expit(a_i theta + c_i)``), a new model's ability is its posterior
mode given the items it answered (a standard normal prior on the reference board's
standardized scale: :func:`ability_map`), and its full-benchmark score is its own answers
where it has them and the 2PL's probabilities elsewhere (:func:`predicted_score`). The items
that narrow the estimate most are those with the largest Fisher information
``a_i^2 p_i (1 - p_i)`` at the current ability (:func:`next_items`); drawing them at random
from a pool of the most informative keeps every candidate's selection probability known and
positive, which design-based and anytime-valid corrections need. An interval that holds
when the 2PL does not fit comes from the errors the same design makes on the reference
models themselves, each held out of the fit (split conformal: :func:`conformal_half_width`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from evalgap.errors import InputError
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, FloatArray, IntArray, Seed

NEWTON_STEPS = 50
TOLERANCE = 1e-10


def ability_map(
    responses: ArrayLike, slope: ArrayLike, intercept: ArrayLike, *, prior_sd: float = 1.0
) -> tuple[FloatArray, FloatArray]:
    """Return each model's posterior mode of ability and its posterior SD (Laplace).

    Parameters
    ----------
    responses : array_like, shape (models, items)
        Scores in [0, 1] (graded scores as fractional successes); NaN where not scored.
    slope, intercept : array_like, shape (items,)
        The 2PL item parameters.
    prior_sd : float
        SD of the normal prior on ability (the reference models are standardized to 1).

    Returns
    -------
    ability, sd : numpy.ndarray
        Per model: the mode of ``sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)] -
        theta^2 / (2 prior_sd^2)``, found by Newton's method (the log posterior is concave),
        and ``1 / sqrt(information + 1 / prior_sd^2)`` there.

    Examples
    --------
    >>> a, c = np.ones(4), np.zeros(4)
    >>> theta, sd = ability_map([[1, 1, 0, np.nan]], a, c)
    >>> round(float(theta[0]), 4), round(float(sd[0]), 4)
    (0.2865, 0.7592)
    """
    y = np.atleast_2d(np.asarray(responses, dtype=float))
    a = np.asarray(slope, dtype=float)
    c = np.asarray(intercept, dtype=float)
    if y.shape[1] != a.size or a.shape != c.shape:
        raise InputError("responses must have one column per item of slope and intercept")
    prior = 1.0 / _validate.positive(prior_sd, "prior_sd") ** 2
    seen = ~np.isnan(y)
    if ((y[seen] < 0) | (y[seen] > 1)).any():
        raise InputError("responses must be scores in [0, 1]")
    # items no model was scored on add nothing to the posterior: leave them out of the sums
    used = seen.any(axis=0)
    if not used.all():
        y, a, c, seen = y[:, used], a[used], c[used], seen[:, used]
    filled = np.where(seen, y, 0.0)

    def log_posterior(t: FloatArray) -> FloatArray:
        z = t[:, None] * a + c
        # log p = -log(1 + e^-z), log(1 - p) = -log(1 + e^z), stable for any z
        fit = filled * -np.logaddexp(0.0, -z) + (1 - filled) * -np.logaddexp(0.0, z)
        return (fit * seen).sum(axis=1) - prior * t * t / 2

    theta = np.zeros(y.shape[0])
    for _ in range(NEWTON_STEPS):
        p = expit(theta[:, None] * a + c)
        gradient = ((filled - p) * seen) @ a - prior * theta
        curvature = (p * (1 - p) * seen) @ (a * a) + prior
        step = gradient / curvature
        # Newton's step can overshoot where the items' probabilities saturate: halve it until
        # the (concave) log posterior does not fall
        now, scale = log_posterior(theta), np.ones_like(theta)
        for _ in range(60):
            worse = log_posterior(theta + scale * step) < now - 1e-12
            if not worse.any():
                break
            scale = np.where(worse, scale / 2, scale)
        theta = theta + scale * step
        if np.abs(scale * step).max(initial=0.0) < TOLERANCE:
            break
    p = expit(theta[:, None] * a + c)
    information = (p * (1 - p) * seen) @ (a * a)
    return theta, 1.0 / np.sqrt(information + prior)


def information(ability: ArrayLike, slope: ArrayLike, intercept: ArrayLike) -> FloatArray:
    """Return each item's Fisher information about ability, ``a^2 p (1 - p)`` (models x items)."""
    theta = np.atleast_1d(np.asarray(ability, dtype=float))
    a = np.asarray(slope, dtype=float)
    p = expit(theta[:, None] * a + np.asarray(intercept, dtype=float))
    return a * a * p * (1 - p)


def predicted_score(
    responses: ArrayLike,
    ability: ArrayLike,
    slope: ArrayLike,
    intercept: ArrayLike,
    *,
    items: ArrayLike | None = None,
) -> FloatArray:
    """Return each model's full-benchmark score: its answers where scored, the 2PL elsewhere.

    ``(sum over scored items of y_i + sum over the others of p_i(theta)) / N``, over every
    item, or over the items where ``items`` (a boolean mask, models x items or one row for
    all) is true.

    Examples
    --------
    >>> a, c = np.ones(3), np.zeros(3)
    >>> predicted_score([[1.0, np.nan, np.nan]], [0.0], a, c).round(4).tolist()
    [0.6667]
    >>> predicted_score([[1.0, np.nan, np.nan]], [0.0], a, c, items=[True, True, False]).tolist()
    [0.75]
    """
    y = np.atleast_2d(np.asarray(responses, dtype=float))
    theta = np.atleast_1d(np.asarray(ability, dtype=float))
    p = expit(theta[:, None] * np.asarray(slope, dtype=float) + np.asarray(intercept, dtype=float))
    filled = np.where(np.isnan(y), p, y)
    if items is None:
        return filled.mean(axis=1)
    mask = np.broadcast_to(np.asarray(items, dtype=bool), filled.shape)
    return (filled * mask).sum(axis=1) / mask.sum(axis=1)


def next_items(
    ability: float,
    slope: ArrayLike,
    intercept: ArrayLike,
    available: ArrayLike,
    count: int,
    *,
    pool: int = 1,
    seed: Seed = None,
) -> IntArray:
    """Return ``count`` items to run next: the most informative at ``ability``.

    With ``pool > 1`` the items are drawn at random, without replacement, from the
    ``pool x count`` most informative available ones, so that each candidate's selection
    probability is known and positive. Fewer items come back when fewer are available.

    Examples
    --------
    >>> a, c = np.array([1.0, 2.0, 0.5, 2.0]), np.array([0.0, 0.0, 0.0, 4.0])
    >>> next_items(0.0, a, c, [True, True, True, True], 2).tolist()
    [1, 0]
    """
    free = np.flatnonzero(np.asarray(available, dtype=bool))
    count = _validate.whole_number(count, "count", 0)
    pool = _validate.whole_number(pool, "pool", 1)
    if free.size == 0 or count == 0:
        return np.array([], dtype=np.int64)
    a = np.asarray(slope, dtype=float)[free]
    c = np.asarray(intercept, dtype=float)[free]
    gain = information(ability, a, c)[0]
    ranked = free[np.argsort(-gain, kind="stable")]
    candidates = ranked[: min(ranked.size, pool * count)]
    if pool == 1:
        return candidates[:count].astype(np.int64)
    rng = np.random.default_rng(seed)
    return rng.choice(candidates, min(count, candidates.size), replace=False).astype(np.int64)


def conformal_half_width(errors: ArrayLike, alpha: float = 0.05) -> float:
    """Return the split-conformal half-width of a (1 - alpha) interval from held-out errors.

    The ``ceil((m + 1)(1 - alpha))``-th smallest absolute error of ``m`` calibration cases:
    a new case's error is below it with probability at least 1 - alpha when the cases are
    exchangeable. Infinite when ``m < 1/alpha - 1`` (too few cases for that level).

    Examples
    --------
    >>> conformal_half_width(np.arange(1, 40) / 100, 0.05)
    0.38
    """
    e = np.sort(np.abs(np.asarray(errors, dtype=float).ravel()))
    alpha = float(_validate.probability(alpha, "alpha"))
    rank = int(np.ceil((e.size + 1) * (1 - alpha)))
    return float(e[rank - 1]) if rank <= e.size else float("inf")


def floor_variances(moments: ArrayLike, n: ArrayLike) -> FloatArray:
    """Return the sampling variances no design on a 2PL can beat, per model and sample size.

    ``moments`` holds one row per model: ``S_y^2`` (its answers' variance over the ``N``
    items), ``S_e^2`` (the variance of ``y - p``, ``p`` the 2PL's probabilities at its own
    ability), ``mean(sqrt(v))^2`` and ``mean(v)`` (``v = p (1 - p)``) and ``N`` (further
    columns are ignored). For each sample size in ``n`` the columns of the result are the
    variances of the random items' mean ``S_y^2 / n (1 - n/N)``; of the difference estimator
    ``mean(p) + mean_S(y - p)`` from random items ``S_e^2 / n (1 - n/N)``; and of that
    estimator with items drawn by Neyman allocation on the 2PL's probabilities
    ``mean(sqrt(v))^2 / n - mean(v) / N`` (simple random sampling without replacement and
    item-level strata).

    Returns
    -------
    numpy.ndarray, shape (models, 3, len(n))

    Examples
    --------
    >>> floor_variances([[0.25, 0.2, 0.16, 0.2, 100]], [10, 100]).round(4).tolist()
    [[[0.0225, 0.0], [0.018, 0.0], [0.014, 0.0]]]
    """
    m = np.atleast_2d(np.asarray(moments, dtype=float))
    s_y, s_e, root, mean_v, size = (m[:, j, None] for j in range(5))
    n = np.atleast_1d(np.asarray(n, dtype=float))
    fpc = np.clip(1 - n / size, 0.0, None)
    neyman = np.clip(root / n - mean_v / size, 0.0, None)
    return np.stack([s_y / n * fpc, s_e / n * fpc, neyman], axis=1)
