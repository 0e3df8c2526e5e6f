"""Anytime-valid testing of a paired binary gap: the paired-Bernoulli mixture e-process.

Resolution Diagnostics, Section 6.5 and Appendix C. Given ``n = b + c`` discordant items, the
signs are i.i.d. Bernoulli(1/2) under H0. Mixing the likelihood ratio over the probability
theta that a discordant item favours A gives the e-process (Equation 24)

    e_n = integral theta^b (1 - theta)^c / (1/2)^n  dnu(theta),

with ``nu`` the discrete uniform mixture over theta in {0.01, ..., 0.49, 0.51, ..., 0.99}
(``mixture="grid"``, the paper's default) or a Beta(a, a) prior (``mixture="beta"``, closed
form ``B(b + a, c + a) / B(a, a) * 2^n``). By Ville's inequality
``P(sup_n e_n >= 1/alpha) <= alpha`` under H0, so "reject at the first n with e_n >= 1/alpha"
is valid at any stopping time.

The **z-equivalent boundary** ``u(n)`` is the McNemar statistic ``|b - c| / sqrt(n)`` at which
``e_n`` first reaches ``1/alpha`` with ``n`` discordant items. Putting ``u(n)`` in place of
``z_{1-alpha/2}`` in Equation (3) gives the anytime-valid N* of the audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, FloatOrArray, IntArray
from evalgap.stats.power import critical_values

THETA_GRID = np.concatenate([np.arange(1, 50), np.arange(51, 100)]) / 100.0
MIXTURES = ("grid", "beta")
EXCESS_BLOCK = 4096  # excess values per e-value evaluation in excess_table


Mixture = Literal["grid", "beta"]


def log_e_value(
    a_only: ArrayLike, b_only: ArrayLike, *, mixture: Mixture = "grid", beta_shape: float = 2.0
) -> FloatOrArray:
    """Return ``log e_n`` after ``b = a_only`` and ``c = b_only`` discordant items (Eq. 24).

    Inputs broadcast and may be non-integer (the boundary solver uses that).
    """
    b = np.asarray(a_only, dtype=float)
    c = np.asarray(b_only, dtype=float)
    b, c = np.broadcast_arrays(b, c)
    n = b + c
    if mixture == "grid":
        log_theta, log_rest = np.log(THETA_GRID), np.log1p(-THETA_GRID)
        terms = b[..., None] * log_theta + c[..., None] * log_rest
        out = special.logsumexp(terms, axis=-1) - np.log(THETA_GRID.size) + n * np.log(2.0)
    elif mixture == "beta":
        a = float(_validate.positive(beta_shape, "beta_shape"))
        out = special.betaln(b + a, c + a) - special.betaln(a, a) + n * np.log(2.0)
    else:
        raise InputError(
            "{mixture!b}" + escape(f" must be one of {', '.join(MIXTURES)}; got {mixture!r}"),
            param="mixture",
        )
    return _validate.scalar_or_array(out)


def boundary(
    n_discordant: ArrayLike,
    alpha: float = 0.05,
    *,
    mixture: Mixture = "grid",
    beta_shape: float = 2.0,
) -> FloatOrArray:
    """Return ``u(n)``: the ``|b - c|/sqrt(n)`` at which ``e_n`` reaches ``1/alpha``.

    With ``b = (n + d)/2`` and ``c = (n - d)/2``, ``log e_n`` is increasing and convex in the
    excess ``d = |b - c|`` (for the grid it is a log-sum-exp of functions linear in ``d``; for
    the Beta mixture a log-Beta, whose second derivative in ``d`` is a trigamma sum), so
    Newton's method converges monotonically after its first step (see :func:`_solve_excess`).
    It starts from the normal approximation or, for many distinct n, from the roots at a few
    n interpolated (:func:`_start`), and runs for every distinct n at once with a hand-written
    log-sum-exp and its derivative: three evaluations of the e-value per n. It agrees with a
    64-step bisection to 1e-12 (grid) and 3e-11 (Beta: the rounding of ``betaln``) up to 10^5
    items and solves the equation to its rounding beyond, tested; 40x faster. Infinite where
    even ``d = n`` (every discordant item favouring one model) does not reach ``1/alpha``:
    too few discordant items for an anytime-valid rejection.
    """
    _validate.probability(alpha, "alpha")
    n_all = np.asarray(n_discordant, dtype=float)
    values, inverse = np.unique(n_all, return_inverse=True)
    target = -np.log(alpha)
    shape = float(_validate.positive(beta_shape, "beta_shape"))
    if mixture not in MIXTURES:
        raise InputError(
            "{mixture!b}" + escape(f" must be one of {', '.join(MIXTURES)}; got {mixture!r}"),
            param="mixture",
        )
    shape = shape if mixture == "beta" else 0.0
    d, reachable = _solve_excess(
        values, _start(values, target, mixture, shape), target, mixture, shape
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.where(reachable, d / np.sqrt(values), np.inf)
    return _validate.scalar_or_array(u[inverse].reshape(n_all.shape))


NEWTON_STEPS = 100  # far more than needed: the steps are monotone and end quadratically
COARSE_POINTS = 128  # n values solved first, to interpolate the start of the others


def _start(values: FloatArray, target: float, mixture: Mixture, shape: float) -> FloatArray:
    """A starting excess near the root for every n.

    The normal approximation ``u^2 ~ 2 log(1/alpha) + log(1 + n) + 10`` (the mixture's width
    in the last terms) is within ~10% of the root. For many distinct n, the roots at
    :data:`COARSE_POINTS` log-spaced n are solved first and ``u`` interpolated in ``log n``
    (smooth there, so the start is within ~1e-5 and two Newton steps reach rounding).
    """
    normal = np.sqrt(values * (2 * target + np.log1p(values) + 10.0))
    positive = values[values > 0]
    if positive.size <= 4 * COARSE_POINTS:
        return normal
    grid = np.geomspace(positive.min(), positive.max(), COARSE_POINTS)
    coarse, reachable = _solve_excess(
        grid, _start(grid, target, mixture, shape), target, mixture, shape
    )
    if reachable.sum() < 2:
        return normal
    u = coarse[reachable] / np.sqrt(grid[reachable])
    with np.errstate(divide="ignore"):
        inside = values >= grid[reachable][0]
        start = np.interp(np.log(values), np.log(grid[reachable]), u) * np.sqrt(values)
    return np.where(inside, start, normal)


def _solve_excess(
    values: FloatArray, start: FloatArray, target: float, mixture: Mixture, shape: float
) -> tuple[FloatArray, BoolArray]:
    """Newton on ``log e_n(d) = log(1/alpha)`` for every n at once: ``(d, reachable)``.

    ``log e_n`` is convex and increasing in ``d``, so one step from any start lands at or
    right of the root (the tangent lies below the curve) and every later step falls
    monotonically onto it. Steps are clipped to ``[0, n]``; an n whose ``e_n`` falls short
    at ``d = n`` cannot reject.
    """
    d = np.clip(start, np.minimum(values, 0.5), values)
    log_e, slope = _log_e_and_slope(values, d, mixture, shape)
    reachable = values > 0
    active = reachable.copy()
    for _ in range(NEWTON_STEPS):
        short = active & (log_e < target) & (d >= values)
        reachable &= ~short
        active &= ~short
        index = np.flatnonzero(active)
        if not index.size:
            break
        step = (log_e[index] - target) / slope[index]
        new = np.clip(d[index] - step, 0.0, values[index])
        # Quadratic convergence: once a step is below 1e-9 of d, the next is at rounding.
        done = np.abs(new - d[index]) <= 1e-9 * np.maximum(new, 1.0)
        d[index] = new
        last = index[done]
        if last.size:  # one final step for these
            log_e[last], slope[last] = _log_e_and_slope(values[last], d[last], mixture, shape)
            short = (log_e[last] < target) & (d[last] >= values[last])
            reachable[last[short]] = False
            d[last] = np.clip(d[last] - (log_e[last] - target) / slope[last], 0.0, values[last])
            active[last] = False
        index = index[~done]
        if index.size:
            log_e[index], slope[index] = _log_e_and_slope(values[index], d[index], mixture, shape)
    return d, reachable


_GRID_LEVEL = np.log(THETA_GRID * (1 - THETA_GRID)) / 2  # d log e / dn of each grid term
_GRID_SLOPE = np.log(THETA_GRID / (1 - THETA_GRID)) / 2  # d log e / dd of each grid term


def _log_e_and_slope(
    n: FloatArray, d: FloatArray, mixture: Mixture, shape: float
) -> tuple[FloatArray, FloatArray]:
    """``log e_n`` at excess ``d`` and its derivative in ``d`` (Eq. 24, b = (n+d)/2)."""
    if mixture == "grid":
        terms = n[:, None] * _GRID_LEVEL + d[:, None] * _GRID_SLOPE
        top = terms.max(axis=1)
        weights = np.exp(terms - top[:, None])
        total = weights.sum(axis=1)
        log_e = top + np.log(total) - np.log(THETA_GRID.size) + n * np.log(2.0)
        return log_e, (weights @ _GRID_SLOPE) / total
    b, c = (n + d) / 2 + shape, (n - d) / 2 + shape
    log_e = special.betaln(b, c) - special.betaln(shape, shape) + n * np.log(2.0)
    return log_e, (special.digamma(b) - special.digamma(c)) / 2


def log_e_trajectory(
    differences: ArrayLike,
    *,
    at: int | Sequence[int] | IntArray | None = None,
    mixture: Mixture = "grid",
    beta_shape: float = 2.0,
) -> FloatOrArray:
    """Return ``log e_t`` after each item of a sequence of paired binary differences.

    ``differences`` holds ``D_i = X_i^A - X_i^B`` in {-1, 0, 1} along the items' order (the
    last axis); concordant items (0) leave the e-process unchanged. ``at`` (0-based item
    positions along the last axis) evaluates the e-process only there, which is what a plot
    of a long sequence needs.
    """
    d = np.asarray(differences)
    b = np.cumsum(d > 0, axis=-1)
    c = np.cumsum(d < 0, axis=-1)
    if at is not None:
        b, c = b[..., at], c[..., at]
    return log_e_value(b, c, mixture=mixture, beta_shape=beta_shape)


def rejects(
    a_only: ArrayLike, b_only: ArrayLike, alpha: float = 0.05, **mixture_options: Any
) -> BoolArray:
    """Return whether ``e_n >= 1/alpha`` at the given discordant counts."""
    return np.asarray(log_e_value(a_only, b_only, **mixture_options)) >= -np.log(alpha)


def excess_table(
    n_max: int, alpha: float = 0.05, *, mixture: Mixture = "grid", beta_shape: float = 2.0
) -> IntArray:
    """Return ``last[d - 1]``: the largest n at which an excess ``|b - c| = d`` still rejects.

    ``e_n`` falls with n at a fixed excess ``d`` (each mixture term carries
    ``(4 theta (1 - theta))^{n/2} <= 1``) and rises with ``d``, so the integer boundary
    ``D(n) = min{d : e_n(d) >= 1/alpha}`` is non-decreasing and changes at these ``last``
    values (see :func:`excess_boundary`). The table runs up to the excess that rejects at
    ``n_max``; it is found by bisection on n for every d at once, which costs
    ``O(sqrt(n_max) log n_max)`` e-value evaluations instead of one bisection per n. An excess
    that never rejects (too few discordant items) gets ``d - 1`` (no n >= d qualifies).
    """
    _validate.probability(alpha, "alpha")
    n_max = int(n_max)
    if n_max < 1:
        raise InputError(f"n_max must be a whole number >= 1; got {n_max!r}")
    target = -np.log(alpha)
    top = boundary(float(n_max), alpha, mixture=mixture, beta_shape=beta_shape)
    if not np.isfinite(top):
        return np.zeros(0, dtype=np.int64)
    d = np.arange(1, int(np.ceil(float(top) * np.sqrt(n_max))) + 2, dtype=float)

    def rejects_at(n: FloatArray) -> FloatArray:
        # blocks of d bound the (d, theta) grid of the mixture to a few MB
        out = np.empty_like(d)
        for i in range(0, d.size, EXCESS_BLOCK):
            block = slice(i, i + EXCESS_BLOCK)
            out[block] = log_e_value(
                (n[block] + d[block]) / 2,
                (n[block] - d[block]) / 2,
                mixture=mixture,
                beta_shape=beta_shape,
            )
        return out

    start = rejects_at(d) >= target  # every discordant item one way: the best case at n = d
    low = d.copy()  # e_low(d) >= target (where start holds)
    high = np.full_like(d, float(max(2 * n_max, 2)))
    while True:
        open_ = start & (high - low > 1)
        if not open_.any():
            break
        mid = np.floor((low + high) / 2)
        ok = rejects_at(mid) >= target
        low = np.where(open_ & ok, mid, low)
        high = np.where(open_ & ~ok, mid, high)
    return np.where(start, low, d - 1).astype(np.int64)


def excess_boundary(n_discordant: ArrayLike, table: IntArray) -> IntArray:
    """Return ``D(n)``: the smallest excess ``|b - c|`` that rejects after n discordant items.

    ``table`` comes from :func:`excess_table`; ``D(n) = min{d : last[d - 1] >= n}``. Where no
    excess of the table rejects (past its range, or an empty table: too few items for any
    rejection), ``n + 1``: no walk of n steps reaches it.
    """
    table = np.asarray(table)
    n = np.asarray(n_discordant)
    index = np.searchsorted(table, n, side="left")
    return np.where(index < table.size, index + 1, n + 1)


def required_n_anytime(
    required_n: ArrayLike, boundary_value: ArrayLike, alpha: float = 0.05, power: float = 0.8
) -> FloatOrArray:
    """Return the anytime-valid N*: Equation (3) with ``u(n)`` in place of ``z_{1-alpha/2}``.

    ``N*_anytime = N* ((u + z_{1-beta}) / (z_{1-alpha/2} + z_{1-beta}))^2`` (Section 6.5),
    with ``u`` the z-equivalent boundary of :func:`boundary` at the pair's discordant count
    (infinite where no anytime-valid rejection is reachable). Arrays broadcast.
    """
    z_alpha, z_beta = critical_values(alpha, power)
    ratio = (np.asarray(boundary_value, dtype=float) + z_beta) / (z_alpha + z_beta)
    return _validate.scalar_or_array(np.asarray(required_n, dtype=float) * ratio**2)


def resolved_anytime(
    statistic: ArrayLike, boundary_value: ArrayLike, power: float = 0.8
) -> BoolArray:
    """Return whether ``|T| >= u(n) + z_{1-beta}``: the pair is resolved anytime-validly."""
    z_beta = float(critical_values(0.05, power)[1])
    return np.abs(np.asarray(statistic, dtype=float)) >= np.asarray(boundary_value) + z_beta


# --- graded scores: betting e-processes (Waudby-Smith and Ramdas 2024) -----------------------

MAX_BET = 0.5  # the largest fraction of capital staked per item (of the largest allowed)


def predictable_bets(
    x: ArrayLike,
    *,
    lower: float = -1.0,
    upper: float = 1.0,
    alpha: float = 0.05,
    start: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> FloatArray:
    """Return the predictable plug-in bets ``lambda_t`` for observations ``x`` (last axis: time).

    ``lambda_t = sqrt(2 log(2/alpha) / (s2_{t-1} t log(t + 1)))`` with ``s2_{t-1}`` a running
    variance of ``x_1..x_{t-1}`` shrunk towards ``(upper - lower)^2 / 4`` (Waudby-Smith and
    Ramdas 2024, *JRSS-B* 86:1-27, the "PrPl" bets); :func:`betting_log_e` truncates them.
    ``lambda_t`` depends only on the past, which makes the capital an e-process. ``start``
    is ``(count, sum, sum of squares)`` of earlier observations (a sequence continued).
    """
    x = np.asarray(x, dtype=float)
    count, total, squares = (float(v) for v in start)
    t = count + np.arange(1, x.shape[-1] + 1, dtype=float)
    width = float(upper) - float(lower)
    prior = width**2 / 4
    # running mean and variance of the earlier observations, with one pseudo-observation at
    # the centre of the range
    centre = (float(upper) + float(lower)) / 2
    mean = (total + np.cumsum(x, axis=-1) - x + centre) / t
    second = (squares + np.cumsum(x * x, axis=-1) - x * x + centre**2) / t
    variance = np.maximum(second - mean**2, 0.0)
    s2 = (prior + variance * (t - 1)) / t  # shrunk to the prior early on
    return np.sqrt(2 * np.log(2 / alpha) / (s2 * t * np.log(t + 1)))


def _capitals(
    x: FloatArray,
    null: FloatArray,
    bets: FloatArray,
    lower: float,
    upper: float,
    max_bet: float,
) -> tuple[FloatArray, FloatArray]:
    """``log K+`` and ``log K-`` along time: bets truncated so every factor stays positive."""
    up_bet = np.minimum(bets, max_bet / np.maximum(null - float(lower), 1e-12))
    down_bet = np.minimum(bets, max_bet / np.maximum(float(upper) - null, 1e-12))
    up = np.cumsum(np.log1p(up_bet * (x - null)), axis=-1)
    down = np.cumsum(np.log1p(-down_bet * (x - null)), axis=-1)
    return up, down


def betting_log_e(
    x: ArrayLike,
    *,
    null: ArrayLike = 0.0,
    lower: float = -1.0,
    upper: float = 1.0,
    alpha: float = 0.05,
    max_bet: float = MAX_BET,
) -> FloatArray:
    """Return ``log e_t`` of the two-sided betting e-process for ``H0: E[X] = null``.

    ``X`` takes values in ``[lower, upper]`` (a paired difference of scores in [0, 1]: [-1, 1]).
    ``e_t = (K+_t + K-_t) / 2`` with ``K+_t = prod_{i<=t} (1 + l+_i (x_i - null))`` and
    ``K-_t = prod (1 - l-_i (x_i - null))``, the predictable bets of :func:`predictable_bets`
    truncated to ``max_bet / (null - lower)`` and ``max_bet / (upper - null)`` so that every
    factor stays positive. Under H0 each capital is a nonnegative martingale, so by Ville's
    inequality ``P(sup_t e_t >= 1/alpha) <= alpha``: valid under continuous monitoring and
    optional stopping, with no variance plugged in as if known. Vectorized over leading axes
    (``null`` broadcasts against them).

    Examples
    --------
    >>> x = np.tile([0.5, -0.1, 0.3, 0.2], 100)  # a mean difference of 0.225
    >>> bool(betting_log_e(x)[-1] > np.log(20)), bool(betting_log_e(x - 0.225)[-1] < 1)
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    null = np.asarray(null, dtype=float)[..., None]
    bets = predictable_bets(x, lower=lower, upper=upper, alpha=alpha)
    up, down = _capitals(x, null, bets, lower, upper, max_bet)
    return np.logaddexp(up, down) - np.log(2.0)


def betting_confidence_sequence(
    x: ArrayLike,
    *,
    alpha: float = 0.05,
    lower: float = -1.0,
    upper: float = 1.0,
    grid_points: int = 801,
    max_bet: float = MAX_BET,
) -> tuple[float, float]:
    """Return ``(low, high)``: the anytime-valid confidence interval for ``E[X]`` after all of
    ``x`` (1-D, in time order), the running intersection of the betting confidence sequence.

    A mean ``m`` is excluded once ``e_t(m)`` of :func:`betting_log_e` has reached ``1/alpha``
    at some ``t``; with probability at least ``1 - alpha`` the true mean is never excluded.
    ``m`` runs over a grid of ``grid_points`` values on ``[lower, upper]``; the bounds are
    widened to the next grid point outward, so the grid never narrows the interval.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> low, high = betting_confidence_sequence(rng.uniform(-0.2, 0.6, 2000))
    >>> bool(low < 0.2 < high), bool(high - low < 0.1)
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise InputError("betting_confidence_sequence needs a non-empty 1-D sequence")
    state = betting_start(lower=lower, upper=upper, grid_points=grid_points)
    state = betting_update(state, x, alpha=alpha, lower=lower, upper=upper, max_bet=max_bet)
    return betting_interval(state)


@dataclass(frozen=True)
class BettingState:
    """The betting confidence sequence after ``count`` observations, for :func:`betting_update`.

    Attributes
    ----------
    grid : numpy.ndarray
        The candidate means.
    count, total, squares : float
        Observations so far, their sum and sum of squares (the bets' running variance).
    log_up, log_down : numpy.ndarray
        ``log K+`` and ``log K-`` at each grid mean.
    excluded : numpy.ndarray
        Grid means whose e-process has reached ``1/alpha`` at some time.
    """

    grid: FloatArray
    count: float
    total: float
    squares: float
    log_up: FloatArray
    log_down: FloatArray
    excluded: BoolArray


def betting_start(
    *, lower: float = -1.0, upper: float = 1.0, grid_points: int = 801
) -> BettingState:
    """The state before any observation (see :func:`betting_update`)."""
    grid = np.linspace(float(lower), float(upper), int(grid_points))
    zeros = np.zeros(grid.size)
    return BettingState(grid, 0.0, 0.0, 0.0, zeros, zeros.copy(), np.zeros(grid.size, bool))


def betting_update(
    state: BettingState,
    x: ArrayLike,
    *,
    alpha: float = 0.05,
    lower: float = -1.0,
    upper: float = 1.0,
    max_bet: float = MAX_BET,
) -> BettingState:
    """Extend the betting confidence sequence by the new observations ``x`` (1-D, in order).

    Equal to running :func:`betting_log_e` over the whole sequence (tested), at the cost of
    the new observations only: a monitor calls it with what arrived since its last look.
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return state
    bets = predictable_bets(
        x, lower=lower, upper=upper, alpha=alpha, start=(state.count, state.total, state.squares)
    )
    up, down = _capitals(x, state.grid[:, None], bets, lower, upper, max_bet)
    up, down = state.log_up[:, None] + up, state.log_down[:, None] + down
    log_e = np.logaddexp(up, down) - np.log(2.0)
    excluded = state.excluded | (log_e >= -np.log(alpha)).any(axis=-1)
    return BettingState(
        state.grid,
        state.count + x.size,
        state.total + float(x.sum()),
        state.squares + float((x * x).sum()),
        up[:, -1],
        down[:, -1],
        excluded,
    )


def betting_interval(state: BettingState) -> tuple[float, float]:
    """The current anytime-valid interval of a :class:`BettingState` (grid-widened outward)."""
    kept = ~state.excluded
    grid = state.grid
    if not kept.any():
        index = int(
            np.clip(np.searchsorted(grid, state.total / max(state.count, 1)), 1, grid.size - 1)
        )
        return float(grid[index - 1]), float(grid[index])
    first, last = np.flatnonzero(kept)[[0, -1]]
    return float(grid[max(first - 1, 0)]), float(grid[min(last + 1, grid.size - 1)])


# --- one process for a decision and its interval: mixtures of constant bets -----------------
#
# The decision at delta = 0 and the interval printed beside it come from one family of
# e-processes, one per candidate mean m of a grid on [-1, 1]:
#
#     e_t(m) = mean over theta of prod_{i <= t} (1 + lambda_theta(m) (x_i - m)),
#     lambda_theta(m) = (2 theta - 1) / (1 + |m|),  theta in THETA_GRID,
#
# a mixture of constant bets (Waudby-Smith and Ramdas 2024, Section 5), each factor in
# [0.02, 1.98] for x in [-1, 1]. Under E[X] = m every product is a nonnegative martingale, so
# each e_t(m) is one (Ville: P(sup_t e_t(m) >= 1/alpha) <= alpha), for binary and graded
# differences alike. At m = 0 a binary difference gives (1 + lambda)^b (1 - lambda)^c =
# theta^b (1 - theta)^c 2^n: exactly the discordant-sign mixture of :func:`log_e_value`, so a
# binary pair is decided by the e-process of Appendix C and its interval inverts that process.

MEAN_GRID_POINTS = 401  # candidate means: steps of 0.005 on [-1, 1], 0 among them
SEQUENCE_CHUNK = 32  # items advanced at once (a chunk x grid x theta block of a few MB)


def mean_grid(points: int = MEAN_GRID_POINTS) -> FloatArray:
    """Return the candidate means: ``points`` (odd, >= 5) evenly spaced on [-1, 1], 0 exact."""
    points = int(points)
    if points < 5 or points % 2 == 0:
        raise InputError(f"grid_points must be an odd whole number >= 5; got {points!r}")
    grid = np.linspace(-1.0, 1.0, points)
    grid[points // 2] = 0.0
    return grid


def mixture_bets(grid: ArrayLike) -> FloatArray:
    """Return ``lambda_theta(m) = (2 theta - 1) / (1 + |m|)``: theta on a new last axis."""
    m = np.asarray(grid, dtype=float)[..., None]
    return (2 * THETA_GRID - 1) / (1 + np.abs(m))


def mixture_log_e_zero(x: ArrayLike) -> FloatArray:
    """Return ``log e_t(0)`` after each observation of ``x`` (last axis: time, values in
    [-1, 1]): the mixture of constant bets at mean 0, vectorized over leading axes (a
    ``(..., time, theta)`` block is held: callers block long batches)."""
    x = np.asarray(x, dtype=float)
    terms = np.cumsum(np.log1p(x[..., None] * (2 * THETA_GRID - 1)), axis=-2)
    return special.logsumexp(terms, axis=-1) - np.log(THETA_GRID.size)


def mixture_log_e_counts(
    a_only: ArrayLike, b_only: ArrayLike, ties: ArrayLike, grid: ArrayLike
) -> FloatArray:
    """Return ``log e_t(m)`` on ``grid`` (last axis) after binary differences: ``a_only``
    items of +1, ``b_only`` of -1 and ``ties`` of 0 (closed form: the product depends on
    the counts only). Leading axes broadcast over the counts."""
    grid = np.asarray(grid, dtype=float)
    bets, m = mixture_bets(grid), grid[:, None]
    up, down, tie = np.log1p(bets * (1 - m)), np.log1p(-bets * (1 + m)), np.log1p(-bets * m)
    b, c, z = (np.asarray(v, dtype=float)[..., None, None] for v in (a_only, b_only, ties))
    terms = b * up + c * down + z * tie
    return special.logsumexp(terms, axis=-1) - np.log(THETA_GRID.size)


@dataclass(frozen=True)
class MixtureSequence:
    """The mixture e-processes of every candidate mean after ``count`` observations.

    Attributes
    ----------
    grid : numpy.ndarray
        The candidate means (:func:`mean_grid`).
    count : int
        Observations so far.
    log_scale, capital : numpy.ndarray
        ``e_t(m) = exp(log_scale[m]) * capital[m].mean()``: each row of products kept with
        its largest at 1, so long sequences neither overflow nor underflow.
    log_max : numpy.ndarray
        ``log sup_{s <= t} e_s(m)``: every item a look (the running intersection of the
        confidence sequence keeps the means below ``1/alpha`` here).
    """

    grid: FloatArray
    count: int
    log_scale: FloatArray
    capital: FloatArray
    log_max: FloatArray


def mixture_start(grid_points: int = MEAN_GRID_POINTS) -> MixtureSequence:
    """The sequence before any observation (see :func:`mixture_update`)."""
    grid = mean_grid(grid_points)
    zeros = np.zeros(grid.size)
    return MixtureSequence(grid, 0, zeros, np.ones((grid.size, THETA_GRID.size)), zeros.copy())


def mixture_update(state: MixtureSequence, x: ArrayLike) -> MixtureSequence:
    """Extend every candidate mean's e-process by the new observations ``x`` (1-D, in order,
    in [-1, 1]), tracking each one's running maximum after every item.

    Equal to :func:`mixture_log_e_counts` for binary differences (tested); a monitor calls it
    with what arrived since its last look, at the cost of the new items only.
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return state
    grid = state.grid[None, :, None]
    bets = mixture_bets(state.grid)[None]
    log_scale, capital, log_max = state.log_scale, state.capital, state.log_max
    for start in range(0, x.size, SEQUENCE_CHUNK):
        block = x[start : start + SEQUENCE_CHUNK, None, None]
        path = 1 + bets * (block - grid)
        path[0] *= capital
        for i in range(1, len(path)):  # in place: several times faster than np.cumprod here
            path[i] *= path[i - 1]
        log_e = np.log(path.sum(axis=-1)) + log_scale - np.log(THETA_GRID.size)
        log_max = np.maximum(log_max, log_e.max(axis=0))
        top = path[-1].max(axis=-1)
        capital, log_scale = path[-1] / top[:, None], log_scale + np.log(top)
    return MixtureSequence(state.grid, state.count + x.size, log_scale, capital, log_max)


def mixture_log_e(state: MixtureSequence) -> FloatArray:
    """Return ``log e_t(m)`` now, on the state's grid."""
    return np.log(state.capital.sum(axis=-1)) + state.log_scale - np.log(THETA_GRID.size)


def sequence_bounds(
    grid: ArrayLike, log_e: ArrayLike, threshold: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return ``(lower, upper, log_evidence)``: the confidence interval a set of e-values on
    ``grid`` gives at ``threshold`` (``log`` of the level's ``1/alpha``), and the evidence
    that decides at any threshold exactly when that interval excludes 0.

    The means kept are those with ``log_e < threshold``; the interval runs from the grid
    point below the first kept to the one above the last (the true bound lies between a
    kept and an excluded grid point, so widening outward never narrows it). When no grid
    point is kept, the interval is the two cells around the least-excluded one (the
    limit of the kept set as the threshold falls). The interval excludes 0 exactly when
    ``log_evidence >= threshold``, with ``log_evidence`` the least ``log_e`` over the grid
    means from the far end on 0's side through one step past 0 (every mean the interval
    must leave out), when the least-excluded mean lies at least two steps past 0, and at
    most ``min(log e(0), 0)`` (no threshold above 1 is reached) otherwise. Since
    ``log_evidence <= log_e(0)``, a decision on it is as valid as one on ``e(0)``. Leading
    axes of ``log_e`` (and ``threshold``) broadcast; the grid is that of :func:`mean_grid`.
    """
    grid = np.asarray(grid, dtype=float)
    log_e = np.asarray(log_e, dtype=float)
    threshold = np.asarray(threshold, dtype=float)
    size, zero = grid.size, grid.size // 2
    kept = log_e < threshold[..., None]
    least = np.argmin(log_e, axis=-1)
    any_kept = kept.any(axis=-1)
    first = np.where(any_kept, np.argmax(kept, axis=-1), least)
    last = np.where(any_kept, size - 1 - np.argmax(kept[..., ::-1], axis=-1), least)
    lower = grid[np.maximum(first - 1, 0)]
    upper = grid[np.minimum(last + 1, size - 1)]
    above = log_e[..., : zero + 2].min(axis=-1)  # against every mean <= one step above 0
    below = log_e[..., zero - 1 :].min(axis=-1)
    none = np.minimum(log_e[..., zero], 0.0)
    evidence = np.where(least >= zero + 2, above, np.where(least <= zero - 2, below, none))
    return lower, upper, evidence


def mixture_evidence_counts(
    a_only: ArrayLike,
    b_only: ArrayLike,
    ties: ArrayLike,
    grid: ArrayLike,
    floor: float,
    ceiling: float,
) -> FloatArray:
    """Return the evidence of :func:`sequence_bounds` for binary counts (1-D arrays, one
    entry per pair), exact where it lies in ``[floor, ceiling)`` and elsewhere a value on
    the same side: enough for every threshold in that range (e-BH's are), at a few grid
    points per pair instead of all of them.

    Why it is exact: for each theta, ``1 + lambda_theta(m) (x - m)`` is monotone in m
    (``(x - m) / (1 + |m|)`` falls with m for x in [-1, 1]), so the mixture splits into a
    part falling in m (theta > 1/2, ``up``) and one rising (``down``). Over grid indices
    ``[l, r]``, ``log e >= logaddexp(up(r), down(l)) - log(#theta)``: a lower bound of the
    evidence on 0's side. A grid point on that side with a smaller e-value places the least
    e-value there; any grid point between the far end and one step past 0 bounds it above,
    and where the bound over the points up to 0 is above the e-value one step past 0, that
    e-value is the evidence. Pairs the bounds leave open get the whole grid.
    """
    grid = np.asarray(grid, dtype=float)
    b, c, z = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (a_only, b_only, ties))
    size, zero = grid.size, grid.size // 2
    step = grid[1] - grid[0]
    n = b + c + z
    mean = np.divide(b - c, n, out=np.zeros_like(n), where=n > 0)
    near = np.clip(np.rint((mean + 1) / step).astype(int), 0, size - 1)
    points = np.stack([np.zeros_like(near), np.full_like(near, zero - 1),
                       np.full_like(near, zero), np.full_like(near, zero + 1),
                       np.full_like(near, size - 1), near], axis=1)  # fmt: skip
    bets = mixture_bets(grid[points])  # (pairs, 6, theta)
    m = grid[points][..., None]
    terms = (
        b[:, None, None] * np.log1p(bets * (1 - m))
        + c[:, None, None] * np.log1p(-bets * (1 + m))
        + z[:, None, None] * np.log1p(-bets * m)
    )
    rising = THETA_GRID > 0.5  # bets on A: these terms fall as m grows
    up = special.logsumexp(terms[..., rising], axis=-1)
    down = special.logsumexp(terms[..., ~rising], axis=-1)
    log_e = np.logaddexp(up, down) - np.log(THETA_GRID.size)
    first, left, centre, right, last, at = log_e.T
    low_above = np.logaddexp(up[:, 3], down[:, 0]) - np.log(THETA_GRID.size)  # i <= zero + 1
    low_below = np.logaddexp(up[:, 4], down[:, 1]) - np.log(THETA_GRID.size)  # i >= zero - 1
    high_above = np.minimum.reduce([first, left, centre, right])
    high_below = np.minimum.reduce([left, centre, right, last])
    positive = (near >= zero + 2) & (at < low_above)
    negative = (near <= zero - 2) & (at <= low_below)
    low = np.where(positive, low_above, np.where(negative, low_below, -np.inf))
    high = np.where(positive, high_above, np.where(negative, high_below, np.maximum(centre, 0)))
    out = np.where(low >= ceiling, low, np.where(high < floor, high, np.nan))
    # the usual case: the e-values past the step next to 0 are bounded above that step's,
    # which is then the least (and the evidence, exact)
    rest_above = np.logaddexp(up[:, 2], down[:, 0]) - np.log(THETA_GRID.size)  # i <= zero
    rest_below = np.logaddexp(up[:, 4], down[:, 2]) - np.log(THETA_GRID.size)  # i >= zero
    out = np.where(positive & (rest_above >= right), right, out)
    out = np.where(negative & (rest_below >= left), left, out)
    open_ = np.flatnonzero(np.isnan(out))
    if open_.size:
        exact = mixture_log_e_counts(b[open_], c[open_], z[open_], grid)
        out[open_] = sequence_bounds(grid, exact, 0.0)[2]
    return out


def e_bh(e_values: ArrayLike, alpha: float = 0.05) -> BoolArray:
    """Return which hypotheses the e-BH procedure rejects (Wang and Ramdas 2022, *JRSS-B*).

    With K e-values sorted from the largest, reject the k largest for the largest k with
    ``e_(k) >= K / (k alpha)``. The false discovery rate is at most alpha under any
    dependence between the e-values, and the rule stays valid when each e-value is an
    e-process read at a stopping time.

    Examples
    --------
    >>> e_bh([100.0, 30.0, 1.0, 50.0], alpha=0.1).tolist()
    [True, True, False, True]
    """
    e = np.asarray(e_values, dtype=float)
    k = e.size
    order = np.argsort(-e, kind="stable")
    ranks = np.arange(1, k + 1)
    passing = e[order] >= k / (ranks * alpha)
    out = np.zeros(k, dtype=bool)
    if passing.any():
        last = int(np.flatnonzero(passing).max())
        out[order[: last + 1]] = True
    return out
