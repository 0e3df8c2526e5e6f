"""Paired significance tests of a gap: the McNemar family, the paired t test and sign flips.

Every function broadcasts over arrays of pairs, like ``scipy.stats`` functions.

Direction. ``alternative="greater"`` tests H1: model A is better (``delta > 0``, i.e.
``a_only > b_only``); ``"less"`` tests H1: model B is better; ``"two-sided"`` (the default)
tests ``delta != 0``.

References: McNemar (1947); the exact conditional and mid-p variants (Liddell, 1983) and the
continuity correction as compared in Resolution Diagnostics, Section 5 and Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from evalgap.errors import InputError
from evalgap.stats import _binomial as binomial
from evalgap.stats import _validate
from evalgap.stats._types import (
    Alternative,
    ArrayLike,
    FloatArray,
    FloatOrArray,
    IntArray,
    Seed,
)
from evalgap.stats.resample import sign_flip_sums, sign_flip_sums_binary


@dataclass(frozen=True)
class TestResult:
    """A test statistic and its p-value (arrays when the inputs were arrays)."""

    __test__ = False  # not a pytest test class

    statistic: FloatOrArray
    p_value: FloatOrArray

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain Python numbers."""
        return {
            "statistic": np.asarray(self.statistic).tolist(),
            "p_value": np.asarray(self.p_value).tolist(),
        }


def mcnemar(
    a_only: ArrayLike,
    b_only: ArrayLike,
    *,
    correction: bool = False,
    alternative: Alternative = "two-sided",
) -> TestResult:
    """Return McNemar's asymptotic test on the discordant counts ``b = a_only``, ``c = b_only``.

    The signed statistic is ``z = (b - c) / sqrt(b + c)``; two-sided, ``statistic`` is the
    chi-square ``z^2 = (b - c)^2 / (b + c)`` on 1 degree of freedom and ``p = P(chi2_1 >= z^2)``;
    one-sided, ``statistic`` is ``z`` and ``p`` its normal tail. With ``correction=True``
    (Edwards' continuity correction) ``|b - c|`` is reduced by 1, never below 0, so equal
    counts give ``p = 1``. With no discordant items (``b + c = 0``) there is no evidence
    either way: ``statistic = 0`` and ``p = 1``.

    Examples
    --------
    The HellaSwag pair of Table 6 (b = 295, c = 249):

    >>> round(float(mcnemar(295, 249).p_value), 3)
    0.049
    """
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    _validate.alternative(alternative)
    n = b + c
    diff = b - c
    shift = 1.0 if correction else 0.0
    root = np.sqrt(np.where(n > 0, n, 1.0))
    if alternative == "two-sided":
        excess = np.maximum(np.abs(diff) - shift, 0.0)
        z = np.where(n > 0, excess / root, 0.0)
        statistic = z * z
        p = special.erfc(z / np.sqrt(2.0))  # = P(chi2_1 >= z^2)
    else:
        # A one-sided correction moves b - c towards the null by 1/2 on each count.
        signed = diff - shift if alternative == "greater" else diff + shift
        z = np.where(n > 0, signed / root, 0.0)
        statistic = z
        p = special.ndtr(-z) if alternative == "greater" else special.ndtr(z)
        p = np.where(n > 0, p, 1.0)
    f = _validate.scalar_or_array
    return TestResult(statistic=f(statistic), p_value=f(p))


def binomial_half_cdf(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Return ``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``, accurate for any n.

    Through the regularized incomplete beta function, ``P(X <= k) = I_{1/2}(n - k, k + 1)``.
    ``scipy.special.bdtr`` is not used: it loses accuracy above about 10^6 trials
    (``bdtr(n/2 - 1, n, 1/2)`` is 0.4985 instead of 0.49987 at n = 10^7, 0.159 instead of
    0.49999 at n = 10^9) and takes C ints. Arrays broadcast; ``k < 0`` gives 0, ``k >= n`` 1.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    k, n = np.broadcast_arrays(k, n)
    inside = (k >= 0) & (k < n)
    with np.errstate(invalid="ignore"):
        value = special.betainc(np.where(inside, n - k, 1.0), np.where(inside, k + 1, 1.0), 0.5)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, value))


def binomial_half_sf(k: ArrayLike, n: ArrayLike) -> FloatArray:
    """Return ``P(X > k)`` for ``X ~ Binomial(n, 1/2)``: ``I_{1/2}(k + 1, n - k)`` (see
    :func:`binomial_half_cdf`). ``k < 0`` gives 1, ``k >= n`` 0."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    k, n = np.broadcast_arrays(k, n)
    inside = (k >= 0) & (k < n)
    with np.errstate(invalid="ignore"):
        value = special.betainc(np.where(inside, k + 1, 1.0), np.where(inside, n - k, 1.0), 0.5)
    return np.where(k < 0, 1.0, np.where(k >= n, 0.0, value))


def mcnemar_exact(
    a_only: ArrayLike,
    b_only: ArrayLike,
    *,
    alternative: Alternative = "two-sided",
    mid_p: bool = False,
) -> FloatOrArray:
    """Return the exact conditional (binomial) McNemar p-value, or its mid-p version.

    Given ``n = b + c`` discordant items, ``b ~ Binomial(n, 1/2)`` under H0. One-sided
    (A better): ``p = P(X >= b)``; mid-p: ``P(X > b) + P(X = b)/2``. Two-sided, with
    ``k = min(b, c)``: ``p = min(1, 2 P(X <= k))``; mid-p ``min(1, 2 [P(X <= k) - P(X = k)/2])``.
    This equals ``scipy.stats.binomtest(b, n, 0.5).pvalue`` (the distribution is
    symmetric), and a sign-flip permutation test on binary data (Table 2 note).

    Examples
    --------
    >>> round(float(mcnemar_exact(295, 249)), 3)
    0.054
    """
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    _validate.alternative(alternative)
    n = b + c
    if alternative == "two-sided":
        exact, half = _two_sided_exact(b, c, mid_p=mid_p)
        p = exact if half is None else half  # half is there exactly when mid_p
    else:
        x = b if alternative == "greater" else c  # the count that H1 says is large
        upper = binomial_half_sf(x - 1, n)  # P(X >= x) = P(X > x - 1)
        if mid_p:
            upper = upper - 0.5 * binomial.pmf(x, n, 0.5)
        p = upper
    p = np.where(n > 0, p, 1.0)
    return _validate.scalar_or_array(np.clip(p, 0.0, 1.0))


def _two_sided_exact(
    b: FloatArray, c: FloatArray, *, mid_p: bool
) -> tuple[FloatArray, FloatArray | None]:
    """Two-sided exact McNemar p and (when ``mid_p``) its mid-p, from one binomial tail."""
    n = b + c
    k = np.minimum(b, c)
    tail = binomial_half_cdf(k, n)  # P(X <= k)
    exact = np.minimum(1.0, 2.0 * tail)
    if not mid_p:
        return exact, None
    return exact, np.minimum(1.0, 2.0 * (tail - 0.5 * binomial.pmf(k, n, 0.5)))


def mcnemar_exact_and_mid_p(
    a_only: ArrayLike, b_only: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the two-sided exact McNemar p-value and its mid-p version (see
    :func:`mcnemar_exact`), sharing one evaluation of the binomial tail.

    Examples
    --------
    >>> [round(float(p), 4) for p in mcnemar_exact_and_mid_p(295, 249)]
    [0.0536, 0.0487]
    """
    b = _validate.counts(a_only, "a_only")
    c = _validate.counts(b_only, "b_only")
    exact, mid = _two_sided_exact(b, c, mid_p=True)
    assert mid is not None
    none = (b + c) == 0
    f = _validate.scalar_or_array
    return f(np.where(none, 1.0, exact)), f(np.clip(np.where(none, 1.0, mid), 0.0, 1.0))


def min_differing_items(
    alpha: ArrayLike, alternative: Alternative = "two-sided"
) -> int | IntArray:
    """Return the fewest items with a non-zero difference on which a level-alpha test can reject.

    Under H0 (the two models exchangeable on each item) the signs of the k non-zero
    differences are fair coins, so even the most extreme data (all k signs alike) has an exact
    sign-flip p-value of ``2^(1-k)`` two-sided (``2^-k`` one-sided). Below
    ``k = ceil(1 + log2(1/alpha))`` (``ceil(log2(1/alpha))`` one-sided) no valid test of H0
    can reject; a bootstrap or asymptotic p below alpha there is an artefact. That is 6
    items at alpha = 0.05, two-sided.
    """
    alpha = _validate.probability(alpha, "alpha")
    _validate.alternative(alternative)
    bits = -np.log2(alpha) + (1.0 if alternative == "two-sided" else 0.0)
    # A hair of tolerance so that alpha = 2^-5 exactly gives 6, not 7, items.
    return _validate.scalar_or_array(np.ceil(bits - 1e-9).astype(np.int64))


def required_n_floor(
    differing: ArrayLike,
    n_items: ArrayLike,
    alpha: ArrayLike,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return the fewest items that hold, at the sample's rate, the differing items any valid
    test needs (:func:`min_differing_items`): a lower bound on N* (Eq. 3).

    ``floor = k_min * N / d`` for ``d`` items with a non-zero difference among ``N``; infinite
    when no item differs. Eq. 3 is a normal approximation: for a large gap with little spread
    it can give an N* of 1 or 2 items, on which no test (exact, sign-flip or otherwise valid)
    can reject. Broadcasts over pairs.
    """
    needed = np.asarray(min_differing_items(alpha, alternative), dtype=float)
    d = np.asarray(differing, dtype=float)
    n = np.asarray(n_items, dtype=float)
    floor = np.where(d > 0, needed * n / np.maximum(d, 1.0), np.inf)
    return _validate.scalar_or_array(floor)


def paired_t(
    scores_a: ArrayLike, scores_b: ArrayLike, *, alternative: Alternative = "two-sided"
) -> TestResult:
    """Return the paired t test of ``mean(D) = 0`` on aligned scores (last axis = items).

    ``t = mean(D) / (s_D / sqrt(N))`` with ``s_D`` the sample standard deviation (divisor
    N - 1), on ``N - 1`` degrees of freedom; identical to ``scipy.stats.ttest_rel``. When
    every difference is equal, ``t`` is undefined: identical scores give ``p = 1`` and a
    constant non-zero difference ``p = 0``.
    """
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.ndim == 0:
        raise InputError(
            f"scores_a and scores_b must have the same shape; got {a.shape}, {b.shape}"
        )
    n = a.shape[-1]
    if n < 2:
        raise InputError("the paired t test needs at least 2 items")
    d = a - b
    return paired_t_from_moments(
        d.mean(axis=-1), d.std(axis=-1, ddof=1), n, alternative=alternative
    )


def wald_statistic(delta: ArrayLike, sd_diff: ArrayLike, n_items: ArrayLike) -> FloatOrArray:
    """Return the Wald statistic ``T = delta / (sigma_D / sqrt(N))`` of paired gaps (Eq. 1).

    With the plug-in sigma_D this is the statistic whose level-alpha threshold the audit's
    procedures compare (Definition 1: resolved when ``|T| >= z_{1-alpha/2} + z_{1-beta}``);
    with the sample SD it is the paired t statistic. A gap without spread has ``T = +/-inf``,
    no gap ``T = 0``. Arrays broadcast over pairs.

    Examples
    --------
    >>> float(wald_statistic(0.02, 0.2, 400))
    2.0
    """
    delta = np.asarray(delta, dtype=float)
    sd = np.asarray(sd_diff, dtype=float)
    n = np.asarray(n_items, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, delta / (sd / np.sqrt(n)), np.sign(delta) * np.inf)
    return _validate.scalar_or_array(np.where(delta == 0, 0.0, t))


def wald_p_value(statistic: ArrayLike, alternative: Alternative = "two-sided") -> FloatOrArray:
    """The normal p-value of a Wald statistic: ``erfc(|z| / sqrt 2)`` two-sided, else a tail.

    Examples
    --------
    >>> round(float(wald_p_value(1.959963984540054)), 6)
    0.05
    """
    z = np.asarray(statistic, dtype=float)
    _validate.alternative(alternative)
    if alternative == "two-sided":
        p = special.erfc(np.abs(z) / np.sqrt(2.0))
    else:
        p = special.ndtr(-z) if alternative == "greater" else special.ndtr(z)
    return _validate.scalar_or_array(p)


def normal_equivalent(
    p_value: ArrayLike, sign: ArrayLike, alternative: Alternative = "two-sided"
) -> FloatOrArray:
    """Return the normal statistic whose p-value is ``p_value`` (with the sign of the gap):
    ``z = Phi^{-1}(1 - p/2)`` two-sided, ``Phi^{-1}(1 - p)`` one-sided.

    A t test's verdict put on the normal scale of Definition 1: a resolution ratio ``q =
    (z / (z_{1-alpha/2} + z_power))^2`` from it is never 1 or more when the t test does not
    reject (where a Wald statistic divided by the same SE could be).

    Examples
    --------
    >>> round(float(normal_equivalent(0.05, 1)), 4)
    1.96
    """
    p = np.clip(np.asarray(p_value, dtype=float), 1e-300, 1.0)
    tail = p / 2 if alternative == "two-sided" else p
    z = -special.ndtri(tail)
    return _validate.scalar_or_array(np.where(np.asarray(sign) < 0, -z, z))


def paired_t_from_moments(
    mean_diff: ArrayLike,
    sd_diff_sample: ArrayLike,
    n_items: ArrayLike,
    *,
    alternative: Alternative = "two-sided",
) -> TestResult:
    """Return the paired t test from ``mean(D)``, its sample SD (divisor N - 1) and N."""
    _validate.alternative(alternative)
    mean = np.asarray(mean_diff, dtype=float)
    sd = np.asarray(sd_diff_sample, dtype=float)
    n = np.asarray(n_items, dtype=float)
    df = n - 1
    t = wald_statistic(mean, sd, n)
    if alternative == "two-sided":
        p = 2.0 * special.stdtr(df, -np.abs(t))
    elif alternative == "greater":
        p = special.stdtr(df, -t)
    else:
        p = special.stdtr(df, t)
    p = np.where((sd == 0) & (mean == 0), 1.0, p)
    f = _validate.scalar_or_array
    return TestResult(statistic=f(t), p_value=f(np.clip(p, 0.0, 1.0)))


def sign_flip_test(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    n_resamples: int = 10_000,
    alternative: Alternative = "two-sided",
    seed: Seed = None,
) -> TestResult:
    """Return the sign-flip permutation test of ``mean(D) = 0`` (1-D scores).

    Under H0 (the two models exchangeable on each item) every ``D_i`` is equally likely to
    carry either sign. The statistic is ``T = sum(D_i)``; ``m = n_resamples`` random sign
    vectors give ``T*_1..T*_m`` and ``p = (1 + #{T* at least as extreme as T}) / (m + 1)``,
    which is a valid p-value for any m. Binary scores use the exact fast path:
    ``T* = 2 X - (b + c)`` with ``X ~ Binomial(b + c, 1/2)``.
    """
    _validate.alternative(alternative)
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise InputError("sign_flip_test needs two 1-D score arrays of the same length")
    d = a - b
    observed = d.sum()
    if np.all((d == -1) | (d == 0) | (d == 1)):
        plus = np.count_nonzero(d > 0)
        minus = np.count_nonzero(d < 0)
        null = sign_flip_sums_binary(plus + minus, n_resamples, seed=seed)
    else:
        null = sign_flip_sums(d, n_resamples, seed=seed)
    p = permutation_p_value(observed, null, alternative=alternative, scale=np.abs(d).sum())
    return TestResult(statistic=observed, p_value=p)


def permutation_p_value(
    observed: float,
    null: ArrayLike,
    *,
    alternative: Alternative = "two-sided",
    scale: float = 1.0,
) -> float:
    """Return ``(1 + #{null draws at least as extreme as observed}) / (m + 1)``.

    A relative tolerance of 1e-9 of ``scale`` treats floating-point near-ties as ties, so a
    resampled statistic equal to the observed one always counts as extreme.
    """
    null = np.asarray(null, dtype=float)
    tol = 1e-9 * max(float(scale), 1.0)
    if alternative == "two-sided":
        extreme = np.abs(null) >= abs(observed) - tol
    elif alternative == "greater":
        extreme = null >= observed - tol
    else:
        extreme = null <= observed + tol
    return float(permutation_p_value_from_draws(extreme))


def permutation_p_value_from_draws(extreme: ArrayLike, axis: int = -1) -> FloatOrArray:
    """Return ``(1 + #{extreme draws}) / (m + 1)`` from booleans marking the extreme draws.

    The one home of the Monte Carlo permutation p-value (valid for any number m of draws:
    the observed statistic counts as one of the m + 1 equally likely arrangements). ``axis``
    runs over the m draws; the other axes are kept (tasks, experiments).
    """
    extreme = np.asarray(extreme, dtype=bool)
    return (1 + np.count_nonzero(extreme, axis=axis)) / (extreme.shape[axis] + 1)
