"""Non-inferiority and equivalence of a candidate to a baseline on the same items.

With ``delta = p_candidate - p_baseline`` and a margin ``M > 0``:

* non-inferiority: ``H0: delta <= -M`` against ``H1: delta > -M`` ("no worse than M");
* equivalence (two one-sided tests, TOST): non-inferiority and ``H0: delta >= M``, each at
  alpha, so the (1 - 2 alpha) interval lies inside ``(-M, M)``.

Binary scores (matched pairs). Only the discordant items carry ``delta``: ``x1`` items only
the candidate got right, ``x2`` only the baseline, ``n`` in all, ``delta_hat = (x1 - x2)/n``.
The test is the score test of Tango (1998, *Statistics in Medicine* 17:891-908; the sample
size of Nam 1997, *Biometrics* 53:1422-1430, uses the same variance): under the null
``delta = d0`` the cell probabilities are re-estimated by constrained maximum likelihood,
``p1 - p2 = d0`` with ``p2`` the positive root of

    2n p2^2 - [x1 (1 + d0) + x2 (1 - d0) - 2 n d0] p2 - x2 d0 (1 - d0) = 0,

and ``Z(d0) = (x1 - x2 - n d0) / sqrt(n (2 p2 + d0 (1 - d0)))``. The one-sided p-value of
non-inferiority is ``1 - Phi(Z(-M))``; the lower confidence bound is the ``d0`` where
``Z(d0) = z_{1-alpha}`` (the test inverted). Below :data:`EXACT_MAX_N` items the p-value is
exact unconditional instead: the largest, over the null's nuisance parameter, probability of
a Z at least the one observed (a fine grid over ``p2``; Berger and Boos would restrict it).

Graded scores: the paired t test of ``mean(D) + M`` (``D`` the candidate-minus-baseline
differences), with the t bound.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import special

from evalgap.errors import InputError
from evalgap.stats import _binomial as binomial
from evalgap.stats import _validate, intervals

EXACT_MAX_N = 100  # below, the exact unconditional p-value (enumeration is O(n^2) outcomes)
NUISANCE_GRID = 400


def _margin(margin) -> float:
    value = float(_validate.numbers(margin, "margin"))
    if not 0 < value < 1:
        raise InputError(f"margin must be in (0, 1); got {value!r}")
    return value


def constrained_p2(x1, x2, n, d0):
    """The null-constrained MLE of ``p2`` (the baseline-only cell) given ``p1 - p2 = d0``.

    Examples
    --------
    >>> round(float(constrained_p2(30, 40, 500, -0.05)), 6)
    0.099366
    """
    x1, x2, n, d0 = (np.asarray(v, dtype=float) for v in (x1, x2, n, d0))
    b = x1 * (1 + d0) + x2 * (1 - d0) - 2 * n * d0
    root = np.sqrt(np.maximum(b * b + 8 * n * x2 * d0 * (1 - d0), 0.0))
    return (b + root) / (4 * n)


def score_statistic(x1, x2, n, d0):
    """Tango's score statistic ``Z(d0)`` for ``H0: p_candidate - p_baseline = d0``.

    Examples
    --------
    >>> round(float(score_statistic(30, 40, 500, -0.05)), 4)
    1.7542
    """
    x1, x2, n, d0 = (np.asarray(v, dtype=float) for v in (x1, x2, n, d0))
    p2 = constrained_p2(x1, x2, n, d0)
    variance = n * (2 * p2 + d0 * (1 - d0))
    numerator = x1 - x2 - n * d0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = numerator / np.sqrt(variance)
    degenerate = np.where(numerator == 0, 0.0, np.copysign(np.inf, numerator))
    return np.where(variance > 0, z, degenerate)


def noninferiority_binary(favour_candidate, favour_baseline, n_items, margin, alpha=0.05):
    """Per task: ``(delta, statistic, p_value, lower_bound, upper_bound)`` of the score test.

    ``lower_bound`` is the one-sided (1 - alpha) lower confidence bound of ``delta``,
    ``upper_bound`` the upper one (equivalence); ``p_value`` tests ``delta <= -margin``
    (exact unconditional below :data:`EXACT_MAX_N` items). Arrays broadcast.

    Examples
    --------
    >>> d, z, p, low, high = noninferiority_binary(30, 40, 500, 0.05)
    >>> round(float(d), 3), round(float(p), 4), round(float(low), 4)
    (-0.02, 0.0397, -0.0481)
    """
    margin = _margin(margin)
    alpha = float(_validate.probability(alpha, "alpha"))
    x1 = _validate.counts(favour_candidate, "favour_candidate")
    x2 = _validate.counts(favour_baseline, "favour_baseline")
    n = _validate.counts(n_items, "n_items")
    x1, x2, n = np.broadcast_arrays(x1, x2, n)
    if np.any(n < x1 + x2) or np.any(n < 1):
        raise InputError("n_items must be at least the discordant items, and at least 1")
    delta = (x1 - x2) / n
    z = score_statistic(x1, x2, n, -margin)
    p = special.ndtr(-z)
    small = n < EXACT_MAX_N
    if np.any(small):
        p = np.array(p, dtype=float)
        for size in np.unique(n[small]):
            here = small & (n == size)
            table = _exact_table(int(size), -margin)
            p[here] = table[x1[here].astype(int), x2[here].astype(int)]
    crit = float(special.ndtri(1 - alpha))  # one-sided
    low = _invert(x1, x2, n, crit)
    high = _invert(x1, x2, n, -crit)
    f = _validate.scalar_or_array
    return f(delta), f(z), f(np.clip(p, 0.0, 1.0)), f(low), f(high)


def nonsuperiority_p_value(favour_candidate, favour_baseline, n_items, margin):
    """One-sided p-value of ``H0: delta >= margin`` (the other half of equivalence): the
    non-inferiority test with the two models' roles swapped, exact below :data:`EXACT_MAX_N`
    items as it is.

    Examples
    --------
    >>> round(float(nonsuperiority_p_value(40, 30, 500, 0.05)), 4)
    0.0397
    """
    return noninferiority_binary(favour_baseline, favour_candidate, n_items, margin)[2]


def noninferiority_mean(mean_difference, sd_difference, n_items, margin, alpha=0.05):
    """Graded scores: ``(statistic, p_value, lower_bound, upper_bound)`` of the paired t test
    of ``H0: mean(D) <= -margin`` (D = candidate - baseline, ``sd`` with ddof 1).

    Examples
    --------
    >>> t, p, low, high = noninferiority_mean(-0.01, 0.2, 400, 0.03)
    >>> round(float(t), 3), round(float(p), 4), round(float(low), 4)
    (2.0, 0.0231, -0.0265)
    """
    margin = _margin(margin)
    alpha = float(_validate.probability(alpha, "alpha"))
    mean = np.asarray(mean_difference, dtype=float)
    sd = np.asarray(sd_difference, dtype=float)
    n = np.asarray(n_items, dtype=float)
    df = np.maximum(n - 1, 1)
    se = sd / np.sqrt(n)
    shifted = mean + margin
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, shifted / se, np.copysign(np.inf, shifted))
    p = special.stdtr(df, -t)
    crit = special.stdtrit(df, 1 - alpha)  # one-sided
    f = _validate.scalar_or_array
    return f(t), f(p), f(mean - crit * se), f(mean + crit * se)


def noninferiority_required_n(flip_rate, delta, margin, alpha=0.05, power=0.8):
    """Items for the score test to show non-inferiority with the given power (Nam 1997).

    ``flip_rate`` is the expected share of discordant items and ``delta`` the expected
    ``p_candidate - p_baseline`` (> -margin). ``n = (z_{1-a} sqrt(V0) + z_{1-b} sqrt(V1))^2 /
    (delta + margin)^2`` with ``V1 = f - delta^2`` and ``V0 = 2 p2 - margin (1 + margin)``, p2
    the constrained cell at the expected counts.

    Examples
    --------
    >>> int(noninferiority_required_n(0.1, 0.0, 0.02))
    1578
    """
    margin = _margin(margin)
    f = np.asarray(flip_rate, dtype=float)
    d = np.asarray(delta, dtype=float)
    if np.any((f <= 0) | (f > 1)) or np.any(np.abs(d) > f):
        raise InputError("flip_rate must be in (0, 1] and |delta| at most the flip rate")
    if np.any(d <= -margin):
        raise InputError(
            "delta must exceed -margin: no sample size shows a candidate worse "
            "than the margin to be no worse than it"
        )
    x1, x2 = (f + d) / 2, (f - d) / 2  # expected shares, per item
    p2 = constrained_p2(x1, x2, 1.0, -margin)
    v0 = 2 * p2 - margin * (1 + margin)
    v1 = f - d * d
    za = float(intervals.z_quantile(_validate.probability(alpha, "alpha"), "greater"))
    zb = float(special.ndtri(float(_validate.probability(power, "power"))))
    n = (za * np.sqrt(v0) + zb * np.sqrt(v1)) ** 2 / (d + margin) ** 2
    return _validate.scalar_or_array(np.ceil(n))


def _invert(x1, x2, n, target):
    """The ``d0`` with ``Z(d0) = target`` (Z falls as d0 rises), by bisection on (-1, 1)."""
    low = np.full(x1.shape, -1.0 + 1e-12)
    high = np.full(x1.shape, 1.0 - 1e-12)
    for _ in range(60):
        mid = (low + high) / 2
        above = score_statistic(x1, x2, n, mid) > target
        low = np.where(above, mid, low)
        high = np.where(above, high, mid)
    return (low + high) / 2


@lru_cache(maxsize=64)
def _exact_table(n: int, d0: float) -> np.ndarray:
    """Exact unconditional p-values of every outcome ``(x1, x2)`` of ``n`` items: the largest,
    over the nuisance ``p2`` (a grid of :data:`NUISANCE_GRID` values on the null boundary
    ``p1 = p2 + d0``), probability of a score statistic at least the outcome's."""
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    inside = a + b <= n
    a, b = a[inside], b[inside]
    z = score_statistic(a, b, n, d0)
    order = np.argsort(-z, kind="stable")
    a, b, sorted_z = a[order], b[order], z[order]
    grid = np.linspace(max(0.0, -d0), (1 - d0) / 2, NUISANCE_GRID)[1:-1, None]
    p1 = grid + d0
    # the multinomial probability of (a, b, rest): a ~ Bin(n, p1), then b ~ Bin(n - a, .)
    mass = binomial.pmf(a[None, :], n, p1) * binomial.pmf(
        b[None, :], n - a[None, :], np.minimum(grid / (1 - p1), 1.0)
    )
    tail = np.cumsum(mass, axis=1)  # P(Z >= z of the outcome), outcomes by falling z
    # outcomes with equal z share the tail that includes all of them
    last = np.searchsorted(-sorted_z, -sorted_z, side="right") - 1
    table = np.ones((n + 1, n + 1))
    table[a, b] = np.minimum(tail[:, last].max(axis=0), 1.0)
    return table
