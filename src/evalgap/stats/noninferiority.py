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
exact unconditional instead: the largest, over the null's nuisance parameter ``p2`` in
``[max(0, -d0), (1 - d0)/2]`` (its ends included: ``p1 = 0``, or every item discordant), of
the multinomial probability of a Z at least the one observed. The supremum is searched on a
grid with both ends, then refined by golden-section search around the grid's highest local
maxima (the probability is a polynomial in ``p2`` with several peaks). Z falls as ``x2``
rises and grows with ``x1``, so the null region's supremum lies on its boundary
``p1 - p2 = d0`` and each outcome's tail is a sum over ``x1`` of binomial CDFs. There the
lower bound is the exact test inverted too (a bracketing search on ``d0`` for where the
exact p-value crosses alpha: false position and bisection in turn), so "bound above -M" and
"non-inferior at M" are one decision: the bracket starts at ``-M``, on the side the test at
``-M`` decided (the exact p-value need not be monotone in ``d0``). The upper bound is the
lower bound with the roles swapped, ``-lower(x2, x1)``, as the non-superiority p-value is.

Graded scores: the paired t test of ``mean(D) + M`` (``D`` the candidate-minus-baseline
differences), with the t bound.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, FloatOrArray, IntArray
from evalgap.stats.intervals import z_quantile

EXACT_MAX_N = 100  # below, the exact unconditional p-value (enumeration is O(n^2) outcomes)
NUISANCE_GRID = 64  # grid points over the nuisance range, both ends included
NUISANCE_PEAKS = 3  # the grid's highest local maxima refined by golden-section search
GOLDEN_STEPS = 20  # each shrinks a peak's bracket by 0.618: 20 leave 1e-4 of a grid step
BISECTION_STEPS = 60  # bisections on d0 of the score test: 2^-60 of the bracket
EXACT_SEARCH_STEPS = 80  # the exact test's bound: at most, halving every other step
BOUND_TOLERANCE = 1e-9  # its bracket's width when the search stops
TIE = 1e-10  # relative: scores this close to the observed one count as at least it


def _margin(margin: object) -> float:
    value = _validate.numbers(margin, "margin")
    if value.ndim != 0 or not 0 < float(value) < 1:
        raise InputError(
            "{margin!b}" + escape(f" must be one number in (0, 1); got {_validate.show(margin)}"),
            param="margin",
        )
    return float(value)


def constrained_p2(
    x1: ArrayLike, x2: ArrayLike, n: ArrayLike, d0: ArrayLike
) -> FloatArray:
    """The null-constrained MLE of ``p2`` (the baseline-only cell) given ``p1 - p2 = d0``.

    Examples
    --------
    >>> round(float(constrained_p2(30, 40, 500, -0.05)), 6)
    0.099366
    """
    x1, x2, n, d0 = (np.asarray(v, dtype=float) for v in (x1, x2, n, d0))
    b = x1 * (1 + d0) + x2 * (1 - d0) - 2 * n * d0
    c = 8 * n * x2 * d0 * (1 - d0)
    # scaled, so that b^2 cannot underflow at a tiny d0 (margin 1e-300 lost the root)
    scale = np.maximum(np.abs(b), np.sqrt(np.abs(c)))
    scale = np.where(scale > 0, scale, 1.0)
    root = scale * np.sqrt(np.maximum((b / scale) ** 2 + c / scale / scale, 0.0))
    return (b + root) / (4 * n)


def score_statistic(x1: ArrayLike, x2: ArrayLike, n: ArrayLike, d0: ArrayLike) -> FloatArray:
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


def noninferiority_binary(
    favour_candidate: ArrayLike,
    favour_baseline: ArrayLike,
    n_items: ArrayLike,
    margin: float,
    alpha: float = 0.05,
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray, FloatOrArray, FloatOrArray]:
    """Per task: ``(delta, statistic, p_value, lower_bound, upper_bound)`` of the score test.

    ``lower_bound`` is the one-sided (1 - alpha) lower confidence bound of ``delta``,
    ``upper_bound`` the upper one (equivalence); ``p_value`` tests ``delta <= -margin``
    (exact unconditional below :data:`EXACT_MAX_N` items, where both bounds invert the exact
    test). ``lower_bound > -margin`` exactly when ``p_value <= alpha``, and
    ``upper_bound < margin`` exactly when :func:`nonsuperiority_p_value` is at most alpha.
    Arrays broadcast.

    Examples
    --------
    >>> d, z, p, low, high = noninferiority_binary(30, 40, 500, 0.05)
    >>> round(float(d), 3), round(float(p), 4), round(float(low), 4)
    (-0.02, 0.0397, -0.0481)
    """
    margin = _margin(margin)
    alpha = float(_validate.probability(alpha, "alpha"))
    x1, x2, n = _outcomes(favour_candidate, favour_baseline, n_items)
    delta = (x1 - x2) / n
    z = score_statistic(x1, x2, n, -margin)
    p = _p_values(x1, x2, n, -margin)
    p_swapped = _p_values(x2, x1, n, -margin)
    low = _lower_bound(x1, x2, n, alpha, -margin, p <= alpha)
    high = -_lower_bound(x2, x1, n, alpha, -margin, p_swapped <= alpha)
    f = _validate.scalar_or_array
    return f(delta), f(z), f(p), f(low), f(high)


def noninferiority_p_value(
    favour_candidate: ArrayLike, favour_baseline: ArrayLike, n_items: ArrayLike, margin: float
) -> FloatOrArray:
    """One-sided p-value of ``H0: delta <= -margin``: the ``p_value`` of
    :func:`noninferiority_binary` without its bounds (exact below :data:`EXACT_MAX_N` items).

    Examples
    --------
    >>> round(float(noninferiority_p_value(10, 4, 50, 0.01)), 4)
    0.0515
    """
    margin = _margin(margin)
    x1, x2, n = _outcomes(favour_candidate, favour_baseline, n_items)
    return _validate.scalar_or_array(_p_values(x1, x2, n, -margin))


def nonsuperiority_p_value(
    favour_candidate: ArrayLike, favour_baseline: ArrayLike, n_items: ArrayLike, margin: float
) -> FloatOrArray:
    """One-sided p-value of ``H0: delta >= margin`` (the other half of equivalence): the
    non-inferiority test with the two models' roles swapped, exact below :data:`EXACT_MAX_N`
    items as it is.

    Examples
    --------
    >>> round(float(nonsuperiority_p_value(40, 30, 500, 0.05)), 4)
    0.0397
    """
    margin = _margin(margin)
    x1, x2, n = _outcomes(favour_candidate, favour_baseline, n_items)
    return _validate.scalar_or_array(_p_values(x2, x1, n, -margin))


def _outcomes(
    favour_candidate: ArrayLike, favour_baseline: ArrayLike, n_items: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    x1 = _validate.counts(favour_candidate, "favour_candidate")
    x2 = _validate.counts(favour_baseline, "favour_baseline")
    n = _validate.counts(n_items, "n_items")
    x1, x2, n = np.broadcast_arrays(x1, x2, n)
    if np.any(n < x1 + x2) or np.any(n < 1):
        raise InputError(
            "{n_items!b}" + escape(" must be at least the discordant items, and at least 1"),
            param="n_items",
        )
    return x1, x2, n


def _p_values(x1: FloatArray, x2: FloatArray, n: FloatArray, d0: float) -> FloatArray:
    """One-sided p-values of ``H0: delta <= d0``: the score test's normal tail, exact
    unconditional below :data:`EXACT_MAX_N` items."""
    p = np.array(special.ndtr(-score_statistic(x1, x2, n, d0)), dtype=float, ndmin=1)
    small = np.ravel(n < EXACT_MAX_N)
    if np.any(small):
        x1s, x2s, ns = (np.ravel(v)[small].astype(int) for v in (x1, x2, n))
        p.reshape(-1)[small] = _exact_p_values(x1s, x2s, ns, np.full(int(small.sum()), d0))
    return np.clip(p.reshape(np.shape(x1)), 0.0, 1.0)


def noninferiority_mean(
    mean_difference: ArrayLike,
    sd_difference: ArrayLike,
    n_items: ArrayLike,
    margin: float,
    alpha: float = 0.05,
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray, FloatOrArray]:
    """Graded scores: ``(statistic, p_value, lower_bound, upper_bound)`` of the paired t test
    of ``H0: mean(D) <= -margin`` (D = candidate - baseline, ``sd`` with ddof 1). Fewer than
    two items have no SD and show nothing: NaN statistic and p-value, infinite bounds.

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
    crit = -special.stdtrit(df, alpha)  # one-sided, from the tail (finite for tiny alpha)
    low, high = mean - crit * se, mean + crit * se
    single = n < 2  # no SD: a lone item's zero spread would "show" anything
    t, p = np.where(single, np.nan, t), np.where(single, np.nan, p)
    low, high = np.where(single, -np.inf, low), np.where(single, np.inf, high)
    f = _validate.scalar_or_array
    return f(t), f(p), f(low), f(high)


def noninferiority_required_n(
    flip_rate: ArrayLike,
    delta: ArrayLike,
    margin: float,
    alpha: float = 0.05,
    power: float = 0.8,
) -> FloatOrArray:
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
    f = _validate.numbers(flip_rate, "flip_rate")
    d = _validate.numbers(delta, "delta")
    if np.any((f <= 0) | (f > 1)) or np.any(np.abs(d) > f):
        raise InputError(
            "{flip_rate!b}" + escape(" must be in (0, 1] and |delta| at most the flip rate"),
            param="flip_rate",
        )
    if np.any(d <= -margin):
        raise InputError(
            "{delta!b}"
            + escape(
                " must exceed -margin: no sample size shows a candidate worse "
                "than the margin to be no worse than it"
            ),
            param="delta",
        )
    x1, x2 = (f + d) / 2, (f - d) / 2  # expected shares, per item
    p2 = constrained_p2(x1, x2, 1.0, -margin)
    v0 = 2 * p2 - margin * (1 + margin)
    v1 = f - d * d
    checked_alpha, checked_power = _validate.levels(alpha, power, "greater")
    za = float(z_quantile(checked_alpha, "greater"))
    zb = float(z_quantile(1 - checked_power, "greater"))
    with np.errstate(divide="ignore", over="ignore"):  # a margin near 0: infinitely many
        n = (za * np.sqrt(v0) + zb * np.sqrt(v1)) ** 2 / (d + margin) ** 2
    return _validate.scalar_or_array(np.ceil(n))


def _lower_bound(
    x1: np.ndarray, x2: np.ndarray, n: np.ndarray, alpha: float, d0: float, rejected: np.ndarray
) -> FloatArray:
    """The one-sided (1 - alpha) lower bound of ``delta``: the ``d0`` where the test of
    ``delta <= d0`` turns from rejecting to not, by bisection from ``d0`` on the side the test
    at ``d0`` decided (so that bound > d0 exactly when it rejected). Score test inverted at
    :data:`EXACT_MAX_N` items or more, the exact unconditional test below."""
    x1, x2, n, rejected = np.broadcast_arrays(x1, x2, n, rejected)
    shape = x1.shape
    x1, x2, n, rejected = (np.ravel(v) for v in (x1, x2, n, rejected))
    edge = 1.0 - 1e-12
    low = np.where(rejected, d0, -edge)
    high = np.where(rejected, edge, d0)
    out = np.empty(x1.shape)
    crit = float(z_quantile(alpha, "greater"))
    big = n >= EXACT_MAX_N
    if np.any(big):
        lo, hi = low[big], high[big]
        a, b, m = x1[big], x2[big], n[big]
        for _ in range(BISECTION_STEPS):  # Z(d0) falls as d0 rises
            mid = (lo + hi) / 2
            above = score_statistic(a, b, m, mid) >= crit
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        out[big] = (lo + hi) / 2
    if np.any(~big):
        lo, hi = low[~big], high[~big]
        ai, bi, mi = (v[~big].astype(np.int64) for v in (x1, x2, n))
        # g = p - alpha: <= 0 at lo, > 0 at hi. False position on odd steps (fast where p is
        # smooth), bisection on even ones (halves the bracket however p jumps)
        g_lo = np.where(rejected[~big], -alpha / 2, -alpha)
        g_hi = np.where(rejected[~big], 1 - alpha, 1 - alpha)
        for step in range(EXACT_SEARCH_STEPS):
            open_ = hi - lo > BOUND_TOLERANCE
            if not open_.any():
                break
            if step % 2:
                mid = (lo + hi) / 2
            else:
                share = np.clip(-g_lo / (g_hi - g_lo), 0.05, 0.95)
                mid = lo + share * (hi - lo)
            g = np.full(lo.shape, np.nan)
            g[open_] = _exact_p_values(ai[open_], bi[open_], mi[open_], mid[open_]) - alpha
            reject = open_ & (g <= 0)
            keep = open_ & ~reject
            lo, g_lo = np.where(reject, mid, lo), np.where(reject, g, g_lo)
            hi, g_hi = np.where(keep, mid, hi), np.where(keep, g, g_hi)
        out[~big] = (lo + hi) / 2
    return out.reshape(shape)


def _exact_p_values(x1: IntArray, x2: IntArray, n: IntArray, d0: FloatArray) -> FloatArray:
    """Exact unconditional p-values of outcomes ``(x1, x2)`` of ``n`` items for ``H0: delta <=
    d0`` (1-D arrays, one ``d0`` each): the largest, over the nuisance ``p2`` of the null
    boundary ``p1 = p2 + d0``, multinomial probability of a score statistic at least the
    outcome's. Identical outcomes are computed once."""
    key = np.stack([x1, x2, n, np.asarray(d0, dtype=float)]).T
    unique, back = np.unique(key, axis=0, return_inverse=True)
    out = np.empty(len(unique))
    for size in np.unique(unique[:, 2]):
        here = unique[:, 2] == size
        out[here] = _exact_sup(
            unique[here, 0].astype(int), unique[here, 1].astype(int), int(size), unique[here, 3]
        )
    return out[np.ravel(back)]


def _exact_sup(x1: IntArray, x2: IntArray, n: int, d0: FloatArray) -> FloatArray:
    """:func:`_exact_p_values` for outcomes of one size: a grid over the nuisance range with
    both ends, then golden-section search around the grid's highest local maxima."""
    k = x1.size
    allowed = _allowed(x1, x2, n, d0)  # for each x1, the x2 = 0 .. c - 1 with Z >= observed
    lo, hi = np.maximum(0.0, -d0), (1 - d0) / 2
    grid = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, NUISANCE_GRID)
    values = _tail(allowed, n, d0, grid)
    best = values.max(axis=1)
    # brackets: the grid's highest local maxima and their neighbours
    padded = np.pad(values, ((0, 0), (1, 1)), constant_values=-np.inf)
    peaks = (values >= padded[:, :-2]) & (values >= padded[:, 2:])
    top = np.argsort(np.where(peaks, -values, np.inf), axis=1)[:, :NUISANCE_PEAKS]
    rows = np.arange(k)[:, None]
    a = grid[rows, np.maximum(top - 1, 0)].ravel()
    b = grid[rows, np.minimum(top + 1, NUISANCE_GRID - 1)].ravel()
    allowed = np.repeat(allowed, top.shape[1], axis=0)
    d = np.repeat(d0, top.shape[1])

    def f(p2: FloatArray) -> FloatArray:
        return _tail(allowed, n, d, p2[:, None])[:, 0]

    ratio = (np.sqrt(5.0) - 1) / 2
    x, y = b - ratio * (b - a), a + ratio * (b - a)
    fx, fy = f(x), f(y)
    for _ in range(GOLDEN_STEPS):
        left = fx >= fy  # the maximum lies in [a, y]; else in [x, b]
        a, b = np.where(left, a, x), np.where(left, y, b)
        new = np.where(left, b - ratio * (b - a), a + ratio * (b - a))
        f_new = f(new)
        x, y, fx, fy = (
            np.where(left, new, y),
            np.where(left, x, new),
            np.where(left, f_new, fy),
            np.where(left, fx, f_new),
        )
    refined = np.maximum(fx, fy).reshape(k, -1).max(axis=1)
    return np.minimum(np.maximum(best, refined), 1.0)


@lru_cache(maxsize=128)
def _log_choose(n: int) -> FloatArray:
    k = np.arange(n + 1)
    return special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)


def _allowed(x1: IntArray, x2: IntArray, n: int, d0: FloatArray) -> BoolArray:
    """Per outcome (each with its ``d0``) and per ``x1``: how many ``x2`` (from 0) give a
    score statistic at least the outcome's (Z falls as ``x2`` rises, so they are the first
    ones); near-ties count."""
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    inside = a + b <= n
    out = np.empty((x1.size, n + 1), dtype=int)
    chunk = max(1, 2**21 // (n + 1) ** 2)
    for start in range(0, x1.size, chunk):
        part = slice(start, start + chunk)
        d = np.asarray(d0[part], dtype=float)[:, None, None]
        z = np.where(inside, score_statistic(a, b, n, d), -np.inf)
        observed = score_statistic(x1[part], x2[part], n, d[:, 0, 0])[:, None, None]
        threshold = observed - TIE * np.maximum(1.0, np.abs(observed))
        out[part] = (z >= threshold).sum(axis=2)
    return out


def _tail(allowed: BoolArray, n: int, d0: FloatArray, p2: FloatArray) -> FloatArray:
    """``P(x2 < allowed[x1])`` under the null cell probabilities ``p1 = p2 + d0`` and ``p2``
    (rows: outcomes, each with its ``d0``; columns: values of ``p2``): ``x1 ~ Bin(n, p1)``,
    then ``x2 | x1 ~ Bin(n - x1, p2 / (1 - p1))``, whose CDF is a regularized beta."""
    p1 = np.clip(p2 + np.asarray(d0, dtype=float)[:, None], 0.0, 1.0)
    share = np.clip(p2 / np.maximum(1.0 - p1, 1e-300), 0.0, 1.0)[..., None]
    x1 = np.arange(n + 1)
    p1 = p1[..., None]
    # Bin(x1; n, p1) from logs (the Boost pmf costs several times more per call here)
    weight = np.exp(_log_choose(n) + special.xlogy(x1, p1) + special.xlog1py(n - x1, -p1))
    c = allowed[:, None, :]
    rest = n - x1
    with np.errstate(invalid="ignore"):
        cdf = special.betainc(np.maximum(rest - c + 1, 1), np.maximum(c, 1), 1.0 - share)
    cdf = np.where(c <= 0, 0.0, np.where(c > rest, 1.0, cdf))
    return np.sum(weight * cdf, axis=-1)
