"""The weighted (survey-sampling) estimate of a paired gap, for items drawn with unequal
probabilities.

When the items run are a sample of a benchmark drawn with inclusion probabilities
``pi_i`` (a stratified design that favours items likely to separate the two models), each
item's difference ``d_i`` carries the weight ``w_i = 1 / pi_i`` and the full benchmark's
gap is estimated by the weighted (Hajek) mean

    delta_w = sum_i w_i d_i / sum_i w_i,

which is the Horvitz-Thompson estimator when the weights sum to the benchmark's size (as a
stratified design's ``N_h / n_h`` do). Its variance is the linearized (Taylor) survey
variance of a ratio, with ``e_i = w_i (d_i - delta_w)``:

    sum_h (1 - f_h) n_h / (n_h - 1) sum_{i in h} (e_i - ebar_h)^2 / W^2,

``W = sum_i w_i``, over the strata h (one stratum when none are given). The sampling
fraction ``f_h = n_h / N_h`` (the finite-population correction) needs the number ``N_h`` of
benchmark items in the stratum; it comes from the design (``stratum_sizes``), never from
the weights' sum, which is the stratum's size only when the weights are exact inverse
probabilities (weights normalised to sum to 1, or all 1, would make every ``f_h`` 1 and the
SE 0). Without the sizes ``f_h = 0``: the with-replacement approximation, conservative.

Both the estimate and its variance are unchanged when every weight is multiplied by the
same positive number (they are computed from the weights divided by the largest, so a
scale near the floating-point limits neither underflows nor overflows).

The test is the Wald z-test of ``delta_w = 0`` (*Resolution Diagnostics* Eq. 1 with this SE
in place of ``sigma_D / sqrt(N)``), two-sided or one-sided, and the items a design like this
one needs at (alpha, power) are ``n (z_{1-alpha/2} + z_{power})^2 se^2 / delta^2`` (Eq. 3
with the design's variance per item, ``n se^2``; ``z_{1-alpha}`` one-sided, and infinite
when the gap lies on the side the one-sided alternative does not test).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate, intervals
from evalgap.stats._types import Alternative, ArrayLike, FloatArray, IntArray
from evalgap.stats.power import opposes_alternative, z_sum_squared
from evalgap.stats.tests import wald_p_value


@dataclass(frozen=True)
class WeightedGap:
    """The weighted gap and its design-based standard error (see the module docstring).

    Attributes
    ----------
    delta : float
        The weighted (Hajek / Horvitz-Thompson) gap.
    se : float
        Its linearized standard error.
    statistic, p_value : float
        The Wald z and its p-value (two-sided or one-sided, by ``alternative``).
    ci_low, ci_high : float
        The two-sided ``1 - alpha`` Wald interval.
    n_items : int
        Items in the sample.
    weight_sum : float
        ``W``, the sum of the weights as given (the population they stand for only when
        they are inverse probabilities).
    population_size : int or None
        ``sum_h N_h``, the benchmark items the strata hold (None: no sizes given).
    effective_n : float
        Kish's effective sample size ``W^2 / sum w^2``.
    required_n : float
        Items this design needs to resolve ``delta`` at (alpha, power); inf at delta = 0
        and, one-sided, when delta lies on the side the alternative does not test.
    """

    delta: float
    se: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    n_items: int
    weight_sum: float
    population_size: int | None
    effective_n: float
    required_n: float


def weighted_gap(
    differences: ArrayLike,
    weights: ArrayLike,
    strata: ArrayLike | None = None,
    *,
    stratum_sizes: ArrayLike | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> WeightedGap:
    """Estimate the gap of a weighted sample of items, with its design-based SE and test.

    Parameters
    ----------
    differences : array_like
        Per-item differences ``d_i`` (A minus B).
    weights : array_like
        Positive weights ``w_i = 1 / pi_i`` (or any positive multiple of them: only their
        ratios matter).
    strata : array_like, optional
        A stratum label per item (at least 2 items per stratum).
    stratum_sizes : array_like, optional
        Per item, the number of benchmark items in its stratum (``N_h``, the same for every
        item of a stratum, at least the stratum's sampled items): the finite-population
        correction. Without it there is none.
    alpha, power : float
        The interval's level and the power of ``required_n``.
    alternative : {"two-sided", "greater", "less"}
        The test's alternative (``"greater"``: A better).

    Returns
    -------
    WeightedGap

    Examples
    --------
    Two strata of a 1,000-item benchmark: 600 easy items sampled 20 (weight 30), 400 hard
    ones sampled 40 (weight 10):

    >>> d = np.r_[np.zeros(18), 1, -1, np.tile([1, 0, 0, -1, 1], 8)]
    >>> w = np.r_[np.full(20, 30.0), np.full(40, 10.0)]
    >>> g = weighted_gap(d, w, strata=np.r_[np.zeros(20), np.ones(40)],
    ...                  stratum_sizes=np.r_[np.full(20, 600), np.full(40, 400)])
    >>> round(g.delta, 4), round(g.se, 4), g.population_size
    (0.08, 0.0624, 1000)
    """
    _validate.levels(alpha, power, alternative)
    d = np.asarray(differences, dtype=float)
    raw = _weights(weights, d)
    if d.size < 2:
        raise InputError("a weighted gap needs at least 2 items")
    if not np.isfinite(d).all():
        raise InputError("differences must be finite numbers")
    with np.errstate(over="ignore"):
        weight_sum = float(raw.sum())
    if not np.isfinite(weight_sum):
        raise InputError(
            "the weights overflow when summed (their sum is beyond 1e308); only their ratios "
            "matter: divide them all by the same number"
        )
    # Only the weights' ratios enter the estimate and its variance: taken relative to the
    # largest they stay in (0, 1], whatever their scale.
    w = raw / raw.max()
    if strata is None:
        labels, codes = np.array([None]), np.zeros(d.size, dtype=np.intp)
    else:
        labels, codes = np.unique(np.asarray(strata), return_inverse=True)
        codes = codes.reshape(-1)
        if codes.size != d.size:
            raise InputError(
                f"strata must give one label per item: {codes.size:,} labels for {d.size:,} items"
            )
    n_h = np.bincount(codes, minlength=labels.size).astype(float)
    if (n_h < 2).any():
        small = labels[n_h < 2][0]
        raise InputError(
            f"stratum {_validate.show(small)} has 1 item; a stratum's variance needs at least 2"
        )
    fpc, population = _finite_population_correction(stratum_sizes, codes, labels, n_h)
    total = w.sum()
    delta = float((w * d).sum() / total)
    e = w * (d - delta)
    sum_e = np.bincount(codes, weights=e, minlength=labels.size)
    sum_e2 = np.bincount(codes, weights=e**2, minlength=labels.size)
    within = np.maximum(sum_e2 - sum_e**2 / n_h, 0.0)  # sum_{i in h} (e_i - ebar_h)^2
    variance = float((fpc * n_h / (n_h - 1) * within).sum() / total**2)
    se = float(np.sqrt(variance))
    z = float(intervals.z_quantile(alpha))
    if se > 0:
        statistic = delta / se
    else:
        statistic = float(np.sign(delta) * np.inf) if delta else 0.0
    p_value = float(wald_p_value(statistic, alternative))
    with np.errstate(divide="ignore", over="ignore"):
        k = z_sum_squared(alpha, power, alternative)
        tested = delta and not opposes_alternative(delta, alternative)
        required = d.size * k * variance / delta**2 if tested else np.inf
    return WeightedGap(
        delta=delta,
        se=se,
        statistic=float(statistic),
        p_value=p_value,
        ci_low=delta - z * se,
        ci_high=delta + z * se,
        n_items=int(d.size),
        weight_sum=weight_sum,
        population_size=population,
        effective_n=float(total**2 / (w**2).sum()),
        required_n=float(np.ceil(required)) if np.isfinite(required) else np.inf,
    )


def _weights(weights: ArrayLike, d: FloatArray) -> FloatArray:
    """Return the weights as floats after checking they are positive, finite, one per item."""
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise InputError("weights must be numbers, one positive weight per item") from None
    if d.ndim != 1 or w.shape != d.shape:
        raise InputError(
            f"differences and weights must be 1-D arrays of the same length (got {w.size:,} "
            f"weights for {d.size:,} items)"
        )
    bad = ~(np.isfinite(w) & (w > 0))
    if bad.any():
        first = _validate.show(w[bad][0])
        raise InputError(
            f"{int(bad.sum()):,} weight(s) are not positive finite numbers (first: {first}); "
            "a weight is 1/pi, the inverse of the item's chance of being drawn"
        )
    return w


def _finite_population_correction(
    stratum_sizes: ArrayLike | None, codes: IntArray, labels: np.ndarray, n_h: FloatArray
) -> tuple[FloatArray, int | None]:
    """Return ``1 - n_h / N_h`` per stratum and ``sum N_h`` (1 and None without sizes)."""
    if stratum_sizes is None:
        return np.ones(labels.size), None
    sizes = _validate.numbers(stratum_sizes, "stratum_sizes", what="a whole number of items")
    if sizes.shape != codes.shape:
        raise InputError(
            f"stratum_sizes must give one size per item: {sizes.size:,} for {codes.size:,} items"
        )
    if np.any(sizes != np.floor(sizes)):
        raise InputError(
            f"stratum_sizes must be whole numbers of items; got "
            f"{_validate.show(sizes[sizes != np.floor(sizes)][0])}"
        )
    low = np.full(labels.size, np.inf)
    high = np.full(labels.size, -np.inf)
    np.minimum.at(low, codes, sizes)
    np.maximum.at(high, codes, sizes)
    if np.any(low != high):
        h = int(np.flatnonzero(low != high)[0])
        raise InputError(
            f"stratum {_validate.show(labels[h])} is given sizes {low[h]:,.0f} and "
            f"{high[h]:,.0f}; a stratum's size (its items in the benchmark) is one number"
        )
    if np.any(low < n_h):
        h = int(np.flatnonzero(low < n_h)[0])
        if labels[h] is None:
            raise InputError(
                f"{n_h[h]:,.0f} items are sampled but the population size is {low[h]:,.0f}; "
                "a population's size counts its items in the whole benchmark"
            )
        raise InputError(
            f"stratum {_validate.show(labels[h])} has {n_h[h]:,.0f} items sampled but a size of "
            f"{low[h]:,.0f}; a stratum's size counts its items in the whole benchmark"
        )
    return 1.0 - n_h / low, int(low.sum())
