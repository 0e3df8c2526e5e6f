"""A model's full-benchmark score from a few of its items, through a reference board's 2PL.

With item parameters from :func:`evalgap.stats.stratified.fit_2pl` on a reference board
(``P(y_i = 1 | theta) = expit(a_i theta + c_i)``), a new model's ability is its posterior
mode given the items it answered (a standard normal prior on the reference board's
standardized scale: :func:`ability_map`), and its full-benchmark score is its own answers
where it has them and the 2PL's probabilities elsewhere (:func:`predicted_score`). The items
that narrow the estimate most are those with the largest Fisher information
``a_i^2 p_i (1 - p_i)`` at the current ability (:func:`next_items`): a model-based choice,
which leaves most items with no chance of being drawn. Drawing every item with a known,
positive probability (:func:`draw_probabilities`, :func:`draw_items`, :func:`batch_weights`)
is what the design-based estimate (:func:`control_variate` with weights) needs. An interval
that holds for the model-based estimate when the 2PL does not fit comes from the errors the
same design makes on the reference models themselves, each held out of the fit (split
conformal: :func:`conformal_half_width`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from evalgap.errors import InputError
from evalgap.stats import _validate, intervals
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
    ``pool x count`` most informative available ones; the items outside that pool still have
    no chance of being drawn, so a design-based estimate needs :func:`draw_probabilities`
    instead. Fewer items come back when fewer are available.

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


def draw_probabilities(
    ability: float,
    slope: ArrayLike,
    intercept: ArrayLike,
    count: int,
    *,
    uniform_share: float = 0.2,
) -> FloatArray:
    """Return every item's probability of being in a batch of ``count`` drawn with known
    probabilities: in proportion to the 2PL's standard deviation ``sqrt(p (1 - p))`` at
    ``ability``, mixed with a uniform share so that no item's probability is 0.

    The share of a draw ``q_i = (1 - u) s_i / sum(s) + u / N`` (``s = sqrt(p (1 - p))``,
    ``u = uniform_share``) and the inclusion probability ``pi_i = count q_i``. Sampling where
    the predictor is least sure (Zrnic & Candes 2024, active inference); in proportion to the
    residual's SD rather than its variance because that minimises the variance of the
    weighted residuals' mean, ``sum v_i / pi_i`` for a fixed sum of ``pi`` (Neyman
    allocation with one item per stratum). ``pi`` is capped at 1 with the
    excess spread over the others so that ``sum(pi) = count``. Every item of the benchmark
    takes part, scored or not: each batch is then an unbiased sample of the whole benchmark
    whatever earlier batches drew, which is what lets batches chosen at a moving ability be
    added up (:func:`batch_weights`).

    Examples
    --------
    >>> a, c = np.ones(4), np.array([0.0, 0.0, 3.0, -3.0])
    >>> draw_probabilities(0.0, a, c, 2, uniform_share=0.2).round(3).tolist()
    [0.661, 0.661, 0.339, 0.339]
    """
    a = np.asarray(slope, dtype=float)
    size = a.size
    count = _validate.whole_number(count, "count", 0)
    share = float(_validate.probability(uniform_share, "uniform_share", open_interval=False))
    if share == 0:
        raise InputError(
            "{uniform_share!b} must be above 0: an item drawn with probability 0 can never be "
            "in the sample, and the design-based estimate then misses it",
            param="uniform_share",
        )
    if count > size:
        raise InputError(f"count {count:,} is more than the benchmark's {size:,} items")
    p = expit(float(ability) * a + np.asarray(intercept, dtype=float))
    sd = np.sqrt(p * (1 - p))
    q = (1 - share) * sd / sd.sum() + share / size if sd.sum() > 0 else np.full(size, 1 / size)
    pi = count * q
    # cap at 1 and spread the excess over the uncapped items in proportion (a few rounds)
    for _ in range(size):
        over = pi > 1
        if not over.any():
            break
        free = ~over & (pi < 1)
        pi = np.where(over, 1.0, pi)
        pi[free] *= (count - (pi == 1).sum()) / pi[free].sum()
    return np.minimum(pi, 1.0)


def draw_items(probabilities: ArrayLike, *, seed: Seed = None) -> IntArray:
    """Return the items of one batch drawn with the given inclusion probabilities.

    Systematic sampling with probabilities proportional to size in a random order (Madow
    1949): the items are shuffled, their probabilities laid end to end on ``[0, n)``
    (``n = sum(pi)``, a whole number), and the items under ``U, U + 1, ..., U + n - 1`` drawn,
    ``U`` uniform on ``[0, 1)``. Each item is drawn with probability exactly ``pi_i`` and at
    most once; the batch has exactly ``n`` items.

    Examples
    --------
    >>> draw_items([0.5, 0.5, 1.0, 0.0], seed=1).tolist()
    [0, 2]
    """
    pi = np.asarray(probabilities, dtype=float).ravel()
    if not (np.isfinite(pi).all() and (pi >= 0).all() and (pi <= 1 + 1e-12).all()):
        raise InputError("{probabilities!b} must lie in [0, 1]", param="probabilities")
    count = round(float(pi.sum()))
    if abs(pi.sum() - count) > 1e-6:
        raise InputError(
            "{probabilities!b} must add up to a whole number of items", param="probabilities"
        )
    rng = np.random.default_rng(seed)
    order = rng.permutation(pi.size)
    ends = np.cumsum(pi[order])
    ends[-1] = count  # rounding: the last item's interval ends at n
    points = rng.random() + np.arange(count)
    return np.sort(order[np.searchsorted(ends, points, side="right")]).astype(np.int64)


def batch_weights(probabilities: ArrayLike, drawn: ArrayLike) -> FloatArray:
    """Return the design weights of a batch's drawn items, relative to a uniform draw.

    ``n / (N pi_i)`` for a batch of ``n`` items drawn with inclusion probabilities ``pi``
    (:func:`draw_probabilities`): 1 for every item of a uniform random draw. Each batch's
    Horvitz-Thompson total ``sum y_i / pi_i`` is unbiased for the benchmark's total given
    the earlier batches (its probabilities are fixed before it is drawn), so the batches'
    average weighted by their sizes is unbiased too: an item's weight is the sum of its
    weights over the batches that drew it (a random first batch's items weigh 1), and the
    estimate is the weighted mean (:func:`control_variate` with ``weights``).

    Examples
    --------
    >>> batch_weights([0.8, 0.8, 0.2, 0.2], [0, 2]).round(3).tolist()
    [0.625, 2.5]
    """
    pi = np.asarray(probabilities, dtype=float).ravel()
    at = np.asarray(drawn, dtype=np.int64).ravel()
    return pi.sum() / (pi.size * pi[at])


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


@dataclass(frozen=True)
class ControlVariateEstimate:
    """A benchmark mean estimated from sampled items with predictions as a control variate.

    Attributes
    ----------
    score, se, df : float
        The estimate, its design-based standard error and the degrees of freedom of its t
        interval.
    ci : Interval
        Its (1 - alpha) t interval (method ``"design_t"``, not clipped).
    coefficient : float
        The coefficient ``lambda`` on the predictions (0: the plain mean).
    plain_score, plain_se : float
        The sampled items' own (design-weighted) mean and its standard error, from the same
        items and design.
    plain_ci : Interval
        Its (1 - alpha) t interval (method ``"design_t"``).
    """

    score: float
    se: float
    df: float
    ci: intervals.Interval
    coefficient: float
    plain_score: float
    plain_se: float
    plain_ci: intervals.Interval


def control_variate(
    sampled: ArrayLike,
    predictions: ArrayLike,
    index: ArrayLike,
    *,
    strata: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    stratum_sizes: ArrayLike | None = None,
    coefficient: float | None = None,
    alpha: float = 0.05,
) -> ControlVariateEstimate:
    """Return the mean of ``y`` over all N items from a sample, its predictions as control.

    The difference (regression) estimator, PPI++ with the power-tuned coefficient
    (Angelopoulos et al. 2023, eq. 6; Cochran 1977, sec. 7.1):

        theta = lambda mean_U(p) + sum_h W_h mean_{S_h}(y - lambda p)

    over the strata ``h`` (one stratum: simple random sampling), ``W_h = N_h / N``, with
    the sampled items drawn at random without replacement within each stratum. For a fixed
    ``lambda`` and predictions fixed before the draw it is exactly design-unbiased, however
    poor ``p``; its variance is ``sum_h W_h^2 (1 - n_h/N_h) S_{e,h}^2 / n_h`` with ``e = y -
    lambda p``. ``lambda`` defaults to the value minimising that variance estimated from the
    sample, ``sum_h c_h s_{yp,h} / sum_h c_h s_{p,h}^2`` (``c_h`` the stratum's factor),
    clipped to [0, 1]; one degree of freedom is then spent on it (the variance is scaled by
    ``(n - H) / (n - H - 1)``), an O(1/n) effect. With ``lambda = 0`` it is the plain
    (stratified) mean. With ``weights`` (``w_i = 1 / pi_i`` of items drawn with unequal
    probabilities, any positive multiple) the residuals' mean is the Hajek weighted mean and
    the variance the with-replacement approximation ``n / (n - 1) sum (z_i - zbar)^2``,
    ``z_i = w_i (e_i - ebar_w) / sum w`` (conservative for sampling without replacement).

    Parameters
    ----------
    sampled : array_like, shape (n,)
        The sampled items' scores.
    predictions : array_like, shape (N,)
        A prediction of every item's score (the control variate), fixed before the draw.
    index : array_like of int, shape (n,)
        The sampled items' positions among the N.
    strata : array_like, shape (N,) or (n,), optional
        Every item's stratum (each stratum sampled at least twice); with ``stratum_sizes``,
        the sampled items' strata only (a design lists no other item's).
    weights : array_like, shape (n,), optional
        The sampled items' design weights ``1 / pi_i`` (not with ``strata``).
    stratum_sizes : array_like, shape (n,), optional
        With ``strata`` of the sampled items: each one's stratum size ``N_h`` in the
        benchmark (the strata's sizes must add up to N). Then ``W_h = N_h / N`` and the
        predictions' part is ``lambda (mean_U(p) - sum_h W_h mean_{S_h}(p))``, the same
        estimator.
    coefficient : float, optional
        ``lambda`` in [0, 1]; tuned from the sample when None.
    alpha : float
        One minus the intervals' level.

    Examples
    --------
    Four items of ten, predictions that fit: the estimate moves from the plain mean 0.5
    towards the items' total.

    >>> p = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1])
    >>> r = control_variate([1.0, 1.0, 0.0, 0.0], p, [0, 1, 7, 8], coefficient=1.0)
    >>> round(r.score, 4), round(r.plain_score, 4), round(r.se, 4)
    (0.46, 0.5, 0.0707)
    """
    y = np.asarray(sampled, dtype=float).ravel()
    p_all = np.asarray(predictions, dtype=float).ravel()
    at = np.asarray(index).ravel()
    alpha = float(_validate.probability(alpha, "alpha"))
    if at.size != y.size or not np.issubdtype(at.dtype, np.integer):
        raise InputError("index must give one whole-number position per sampled item")
    if at.size and (at.min() < 0 or at.max() >= p_all.size or np.unique(at).size != at.size):
        raise InputError(f"index must name distinct items among the {p_all.size:,} predictions")
    if not (np.isfinite(y).all() and np.isfinite(p_all).all()):
        raise InputError("sampled scores and predictions must be finite numbers")
    if coefficient is not None and not 0.0 <= float(coefficient) <= 1.0:
        raise InputError("{coefficient} must lie in [0, 1]", param="coefficient")
    if weights is not None:
        if strata is not None:
            raise InputError("give strata or weights, not both")
        return _weighted_control_variate(y, p_all, at, weights, coefficient, alpha)
    h, size_h = _strata_of(strata, stratum_sizes, at, p_all.size)
    n_h = np.bincount(h, minlength=size_h.size).astype(float)
    if (n_h < 2).any():
        raise InputError("every stratum needs at least 2 sampled items for its variance")
    p = p_all[at]
    share = size_h / p_all.size
    factor = share**2 * (1 - n_h / size_h) / n_h / (n_h - 1)

    def centred(v: FloatArray) -> FloatArray:
        return v - (np.bincount(h, weights=v, minlength=n_h.size) / n_h)[h]

    dy, dp = centred(y), centred(p)
    # sum_h c_h * (sum over the stratum's items of the centred products): A, B, C
    a_yy, b_yp, c_pp = (float((factor[h] * u * v).sum()) for u, v in ((dy, dy), (dy, dp), (dp, dp)))
    tuned = coefficient is None
    lam = float(np.clip(b_yp / c_pp, 0.0, 1.0)) if tuned and c_pp > 0 else float(coefficient or 0.0)
    mean_y_h = np.bincount(h, weights=y, minlength=n_h.size) / n_h
    mean_p_h = np.bincount(h, weights=p, minlength=n_h.size) / n_h
    plain = float((share * mean_y_h).sum())
    # sum_h W_h mean_{U_h}(p) is the mean of p over every item
    score = plain + lam * float(p_all.mean() - (share * mean_p_h).sum())
    df = float(y.size - n_h.size)
    variance = max(a_yy - 2 * lam * b_yp + lam**2 * c_pp, 0.0)
    if tuned and df > 1:
        variance *= df / (df - 1)
        df -= 1
    return _cv_result(score, variance, df, lam, plain, max(a_yy, 0.0), float(y.size - n_h.size),
                      alpha)  # fmt: skip


def _strata_of(
    strata: ArrayLike | None, stratum_sizes: ArrayLike | None, at: np.ndarray, size: int
) -> tuple[np.ndarray, FloatArray]:
    """The sampled items' stratum codes and each stratum's size in the benchmark."""
    if strata is None:
        if stratum_sizes is not None:
            raise InputError("{stratum_sizes!b} go with strata", param="stratum_sizes")
        return np.zeros(at.size, dtype=np.intp), np.array([float(size)])
    labels = np.asarray(strata).ravel()
    if stratum_sizes is None:
        if labels.size != size:
            raise InputError(
                "{strata} must give one label per item of the predictions", param="strata"
            )
        codes = np.unique(labels, return_inverse=True)[1].reshape(-1)
        return codes[at], np.bincount(codes).astype(float)
    sizes = np.asarray(stratum_sizes, dtype=float).ravel()
    if labels.size != at.size or sizes.size != at.size:
        raise InputError(
            "{strata!b} and {stratum_sizes} must give one label and size per sampled item",
            param="strata",
        )
    codes = np.unique(labels, return_inverse=True)[1].reshape(-1)
    size_h = np.zeros(codes.max(initial=-1) + 1)
    size_h[codes] = sizes
    if (np.abs(sizes - size_h[codes]) > 0).any() or abs(size_h.sum() - size) > 1e-6 * size:
        raise InputError(
            f"{{stratum_sizes!b}} must be one size per stratum adding up to the {size:,} items "
            f"of the benchmark; they add up to {size_h.sum():,.0f}",
            param="stratum_sizes",
        )
    return codes, size_h


def _weighted_control_variate(
    y: FloatArray, p_all: FloatArray, at: np.ndarray, weights: ArrayLike,
    coefficient: float | None, alpha: float,
) -> ControlVariateEstimate:  # fmt: skip
    """:func:`control_variate` for items drawn with unequal probabilities (Hajek means)."""
    w = np.asarray(weights, dtype=float).ravel()
    if w.shape != y.shape or not (np.isfinite(w) & (w > 0)).all():
        raise InputError(
            "{weights} must be one positive finite number per sampled item", param="weights"
        )
    if y.size < 2:
        raise InputError("the estimate's variance needs at least 2 sampled items")
    share = w / w.sum()
    p = p_all[at]
    n = y.size
    zy, zp = share * (y - share @ y), share * (p - share @ p)
    scale = n / (n - 1)
    a_yy, b_yp, c_pp = (scale * float(((u - u.mean()) * (v - v.mean())).sum())
                        for u, v in ((zy, zy), (zy, zp), (zp, zp)))  # fmt: skip
    tuned = coefficient is None
    lam = float(np.clip(b_yp / c_pp, 0.0, 1.0)) if tuned and c_pp > 0 else float(coefficient or 0.0)
    plain = float(share @ y)
    score = plain + lam * float(p_all.mean() - share @ p)
    df = float(n - 1)
    variance = max(a_yy - 2 * lam * b_yp + lam**2 * c_pp, 0.0)
    if tuned and df > 1:
        variance *= df / (df - 1)
        df -= 1
    return _cv_result(score, variance, df, lam, plain, max(a_yy, 0.0), float(n - 1), alpha)


def _cv_result(
    score: float, variance: float, df: float, lam: float, plain: float, plain_variance: float,
    plain_df: float, alpha: float,
) -> ControlVariateEstimate:  # fmt: skip
    """The estimate and the plain mean with their t intervals."""

    def interval(centre: float, se: float, degrees: float) -> intervals.Interval:
        # the t interval with ``degrees`` of freedom (intervals.t_interval takes n = df + 1
        # and the SD: se * sqrt(n) / sqrt(n) = se)
        t = intervals.t_interval(centre, se * np.sqrt(degrees + 1), degrees + 1, alpha)
        return intervals.Interval(float(t.low), float(t.high), "design_t", 1.0 - alpha)

    se, plain_se = float(np.sqrt(variance)), float(np.sqrt(plain_variance))
    return ControlVariateEstimate(
        score, se, df, interval(score, se, df), lam, plain, plain_se,
        interval(plain, plain_se, plain_df),
    )  # fmt: skip
