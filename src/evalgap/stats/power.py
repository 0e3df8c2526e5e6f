"""Power, required sample size (N*), minimum detectable effect and resolution ratio.

Equations refer to *Resolution Diagnostics for Paired LLM Evaluation*:

* Equation (3): ``N* = ((z_{1-alpha/2} + z_{1-beta}) sigma_D / |delta|)^2``
* Equation (4): ``MDE = (z_{1-alpha/2} + z_{1-beta}) sigma_D / sqrt(N)``
* Definition 1: ``q = N / N*``; the gap is resolved when ``q >= 1``
* Equation (5): ``sigma_D^2 = pA qA + pB qB - 2 rho sqrt(pA qA pB qB)``
* Equation (6): Equation (3) with Equation (5) (the McNemar-Connor required N)
* Equations (7)-(8): the admissible (Hoeffding-Frechet) correlation interval
* Equation (9): the unpaired Cohen-h shortcut ``n_h = (1 - rho) K / h^2``
* Equation (11) and Corollary 1: the Lemma 1 constant ``C(p, rho)`` and ``delta*``
* Footnote 1: exact two-sided power of the Wald test

Here ``K = (z_{1-alpha/2} + z_{1-beta})^2``; one-sided tests use ``z_{1-alpha}``. All
functions broadcast and return unrounded values; jobs round sample sizes up. A zero gap has
an infinite N* (no finite benchmark resolves it) and ``q = 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _validate, intervals, resample
from evalgap.stats._types import (
    Alternative,
    ArrayLike,
    BoolArray,
    FloatArray,
    FloatOrArray,
    Seed,
)

CORRELATION_SHIFT = 0.1  # Section 6.2: the correlation is perturbed by -/+ 0.10, clamped


def critical_values(
    alpha: FloatOrArray = 0.05, power: FloatOrArray = 0.8, alternative: Alternative = "two-sided"
) -> tuple[FloatArray, FloatArray]:
    """Return ``(z_alpha, z_beta)``: ``z_{1-alpha/2}`` (or ``z_{1-alpha}``) and ``z_{1-beta}``.

    The quantile is taken from the tail, ``z_{1-alpha/2} = -ndtri(alpha/2)``: ``1 - alpha/2``
    rounds to 1 for alpha below about 1e-16 and would give an infinite z.
    """
    alpha, power = _validate.levels(alpha, power, alternative)
    return intervals.z_quantile(alpha, alternative), special.ndtri(power)


def z_sum_squared(
    alpha: FloatOrArray = 0.05, power: FloatOrArray = 0.8, alternative: Alternative = "two-sided"
) -> FloatArray:
    """Return ``K = (z_{1-alpha/2} + z_{1-beta})^2`` (7.849 at alpha = 0.05, power = 0.8)."""
    z_alpha, z_beta = critical_values(alpha, power, alternative)
    return (z_alpha + z_beta) ** 2


def required_n(
    delta: ArrayLike,
    sd_diff: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return N*, the paired items needed to resolve ``delta`` (Equation 3).

    ``N* = K (sigma_D / delta)^2``; infinite when ``delta = 0``. This is the graded-score
    required N when ``sd_diff`` is the standard deviation of the per-item differences. A
    non-zero gap with spread never gets ``N* = 0`` from underflow (it gets the smallest
    positive float, which rounds up to 1 item); it can overflow to infinity only when
    ``sigma_D / |delta|`` exceeds about 1e154.
    """
    delta = np.asarray(delta, dtype=float)
    sd = np.asarray(sd_diff, dtype=float)
    if np.any(sd < 0) or np.any(~np.isfinite(sd)):
        raise InputError("{sd_diff!b}" + escape(" must be a finite number >= 0"), param="sd_diff")
    k = z_sum_squared(alpha, power, alternative)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        n = np.where(delta != 0, k * (sd / np.abs(delta)) ** 2, np.inf)
        n = np.where((delta != 0) & (sd > 0), np.maximum(n, np.finfo(float).tiny), n)
    return _validate.scalar_or_array(n)


def required_n_from_counts(
    a_only: ArrayLike,
    b_only: ArrayLike,
    n_items: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return N* of binary pairs from their discordant counts (Equation 6 at the estimates).

    With ``delta = (b - c)/N`` and ``sigma_D^2 = (b + c)/N - delta^2`` this equals
    :func:`required_n_binary` at the observed accuracies and phi correlation.
    """
    delta, variance = gap_and_variance_from_counts(a_only, b_only, n_items)
    sd = np.sqrt(variance)
    return required_n(delta, sd, alpha=alpha, power=power, alternative=alternative)


def gap_and_variance_from_counts(
    a_only: ArrayLike, b_only: ArrayLike, n_items: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Return ``(delta, sigma_D^2)`` of binary pairs from their discordant counts (Eq. 5).

    ``delta = (b - c)/N`` and ``sigma_D^2 = (b + c)/N - delta^2`` (the plug-in variance of
    ``D`` in {-1, 0, 1}; never below 0). The one home of sigma_D from counts: the paired
    summary, N* from counts and the bootstrap of N* all use it. Arrays broadcast.
    """
    b = np.asarray(a_only, dtype=float)
    c = np.asarray(b_only, dtype=float)
    n = np.asarray(n_items, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = (b - c) / n
        return delta, np.maximum((b + c) / n - delta**2, 0.0)


def required_n_interval(
    delta_star: ArrayLike,
    var_star: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
    level: float = 0.90,
    axis: int = -1,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the ``(low, high)`` percentile interval of bootstrap N* along ``axis``.

    ``delta_star`` and ``var_star`` are resampled gaps and variances of D. The quantiles are
    order statistics taken on ``1/N* = delta*^2 / (K var*)``, which is finite even where a
    resample has no gap (N* infinite); a resample with a gap but no spread has
    ``1/N* = inf``, one with neither ``1/N* = 0``. The
    default 5th-95th percentiles are those of Appendix I (B = 500).
    """
    k = float(z_sum_squared(alpha, power, alternative))
    tail = (1.0 - level) / 2.0
    delta_star = np.asarray(delta_star)
    var_star = np.asarray(var_star)
    with np.errstate(divide="ignore", invalid="ignore"):
        # A resample with neither gap nor spread (identical models on it) needs infinitely
        # many items, like any zero gap: 1/N* = 0, not the 1/N* = inf of a spread-free gap.
        inverse = np.where(
            var_star > 0,
            delta_star**2 / (k * var_star),
            np.where(delta_star != 0, np.inf, 0.0),
        )
    low_inv, high_inv = np.quantile(inverse, [tail, 1.0 - tail], axis=axis, method="inverted_cdf")
    with np.errstate(divide="ignore"):
        return (_validate.scalar_or_array(1.0 / high_inv), _validate.scalar_or_array(1.0 / low_inv))


def required_n_bootstrap_interval(
    a_only: ArrayLike | None = None,
    b_only: ArrayLike | None = None,
    n_items: ArrayLike | None = None,
    n_resamples: int = 500,
    seed: Seed = None,
    *,
    differences: ArrayLike | None = None,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
    level: float = 0.90,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the bootstrap interval ``(low, high)`` of N* (Section 6.1, Appendix I).

    Binary pairs are given by their counts: each pair's N items are resampled
    ``n_resamples`` times as multinomial draws on its 2x2 cells
    (:func:`evalgap.stats.resample.bootstrap_counts_by_pair`) and N* recomputed from each
    draw's ``delta*`` and ``sigma_D*^2`` (Equation 6 via :func:`gap_and_variance_from_counts`);
    counts broadcast and the bounds have their shape. Graded pairs are given by
    ``differences``, one 1-D array of ``D_i`` or a list of them (one per pair): items are
    resampled (:func:`evalgap.stats.resample.bootstrap_means` with the first two raw
    moments) and N* recomputed from each resample's mean and plug-in variance (Equation 3).
    The 5th-95th percentiles are taken by :func:`required_n_interval`.

    Draws come from ``child_seed(seed, "required_n_interval")``, restarted for each pair: a
    pair's interval depends on its own data and the seed only, never on the other pairs, so
    ``compare`` and ``audit`` agree to the last digit.

    Examples
    --------
    The HellaSwag pair of Table 6 at seed 0 (its interval straddles N = 10,042):

    >>> low, high = required_n_bootstrap_interval(295, 249, 10042, 500, seed=0)
    >>> round(float(low)), round(float(high))
    (5894, 571183)
    """
    levels: dict[str, Any] = {
        "alpha": alpha,
        "power": power,
        "alternative": alternative,
        "level": level,
    }
    stream = resample.child_seed(seed, "required_n_interval")
    if differences is not None:
        return _graded_required_n_interval(differences, n_resamples, stream, levels)
    b, c, n = np.broadcast_arrays(*(np.asarray(x) for x in (a_only, b_only, n_items)))
    b_star, c_star = resample.bootstrap_counts_by_pair(b, c, n, n_resamples, stream)
    delta_star, var_star = gap_and_variance_from_counts(b_star, c_star, n.reshape(-1, 1))
    low, high = required_n_interval(delta_star, var_star, **levels)
    f = _validate.scalar_or_array
    return f(np.reshape(low, b.shape)), f(np.reshape(high, b.shape))


def _graded_required_n_interval(
    differences: ArrayLike | Sequence[ArrayLike],
    n_resamples: int,
    stream: np.random.SeedSequence,
    levels: dict[str, Any],
) -> tuple[FloatOrArray, FloatOrArray]:
    single = not isinstance(differences, (list, tuple))
    pairs: list[Any] = (
        list(differences) if isinstance(differences, (list, tuple)) else [differences]
    )
    low = np.full(len(pairs), np.nan)
    high = np.full(len(pairs), np.nan)
    for k, d in enumerate(pairs):
        first, second = resample.bootstrap_means(
            d, n_resamples, resample.restart(stream), moments=True
        )
        low[k], high[k] = required_n_interval(first, np.maximum(second - first**2, 0.0), **levels)
    if single:
        return float(low[0]), float(high[0])
    return low, high


def correlation_sensitivity(
    delta: ArrayLike,
    variance_a: ArrayLike,
    variance_b: ArrayLike,
    correlation: ArrayLike,
    n_items: ArrayLike,
    shift: ArrayLike,
    *,
    binary: bool | ArrayLike,
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    sd_diff: ArrayLike | None = None,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray]:
    """Return ``(correlation, required_n, resolution_ratio)`` with rho moved by ``shift``.

    Section 6.2's sensitivity: the correlation is moved by ``shift`` (the paper uses -/+ 0.1)
    with the marginal variances held at their estimates, then clamped into the admissible
    interval of Equations (7)-(8) for binary pairs whose accuracies lie strictly inside
    (0, 1), and into [-1, 1] otherwise. sigma_D follows from :func:`sd_diff_from_correlation`,
    N* from Equation (3) and q from Definition 1. A pair without a correlation (NaN: one
    model's scores are constant) keeps ``sd_diff`` when it is given. Arrays broadcast.

    Examples
    --------
    The HellaSwag pair of Table 6 is resolved only at rho + 0.1:

    >>> pa, pb = 8281 / 10042, 8235 / 10042
    >>> rho, req, q = correlation_sensitivity(
    ...     pa - pb, pa * (1 - pa), pb * (1 - pb), 0.8147, 10042, 0.1,
    ...     binary=True, accuracy_a=pa, accuracy_b=pb)
    >>> bool(q >= 1)
    True
    """
    arrays = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (delta, variance_a, variance_b, correlation)),
        np.asarray(accuracy_a, dtype=float),
        np.asarray(accuracy_b, dtype=float),
        np.asarray(binary, dtype=bool),
    )
    shape = arrays[0].shape
    delta, var_a, var_b, rho, pa, pb, binary = (np.ravel(x) for x in arrays)
    rho = rho + shift
    clamped = np.clip(rho, -1.0, 1.0)
    inside = binary & (pa > 0) & (pa < 1) & (pb > 0) & (pb < 1) & np.isfinite(rho)
    if inside.any():
        clamped[inside] = clamp_correlation(pa[inside], pb[inside], rho[inside])
    clamped, delta = clamped.reshape(shape), delta.reshape(shape)
    sd = sd_diff_from_correlation(np.sqrt(var_a), np.sqrt(var_b), clamped.ravel())
    sd = np.reshape(sd, shape)
    if sd_diff is not None:
        sd = np.where(np.isfinite(rho), sd, np.asarray(sd_diff, dtype=float))
    required = required_n(delta, sd, alpha=alpha, power=power, alternative=alternative)
    f = _validate.scalar_or_array
    return f(clamped), required, resolution_ratio(n_items, required)


def sd_diff_from_correlation(
    sd_a: ArrayLike, sd_b: ArrayLike, correlation: ArrayLike
) -> FloatOrArray:
    """Return ``sigma_D = sqrt(sd_a^2 + sd_b^2 - 2 rho sd_a sd_b)``, the SD of ``X^A - X^B``."""
    sa = np.asarray(sd_a, dtype=float)
    sb = np.asarray(sd_b, dtype=float)
    rho = np.asarray(correlation, dtype=float)
    var = sa**2 + sb**2 - 2 * rho * sa * sb
    return _validate.scalar_or_array(np.sqrt(np.maximum(var, 0.0)))


def sd_diff_binary(
    accuracy_a: ArrayLike, accuracy_b: ArrayLike, correlation: ArrayLike
) -> FloatOrArray:
    """Return sigma_D of a binary pair from its accuracies and correlation (Equation 5).

    ``sigma_D^2 = pA qA + pB qB - 2 rho sqrt(pA qA pB qB)``.
    """
    pa = np.asarray(accuracy_a, dtype=float)
    pb = np.asarray(accuracy_b, dtype=float)
    return sd_diff_from_correlation(np.sqrt(pa * (1 - pa)), np.sqrt(pb * (1 - pb)), correlation)


def required_n_binary(
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    correlation: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return the McNemar-Connor N* for binary accuracies and their correlation (Equation 6).

    ``N* = K (pA qA + pB qB - 2 rho sqrt(pA qA pB qB)) / (pA - pB)^2``. The correlation must
    be admissible for the two accuracies (Equations 7-8); otherwise ``InputError`` says which
    interval is allowed.

    Examples
    --------
    Table 1's worked example:

    >>> round(float(required_n_binary(0.65, 0.60, 0.30)), 1)
    1027.6
    """
    check_correlation(accuracy_a, accuracy_b, correlation)
    delta = np.asarray(accuracy_a, dtype=float) - np.asarray(accuracy_b, dtype=float)
    sd = sd_diff_binary(accuracy_a, accuracy_b, correlation)
    return required_n(delta, sd, alpha=alpha, power=power, alternative=alternative)


def required_n_discordant(
    a_only: ArrayLike,
    b_only: ArrayLike,
    n_items: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return Connor's (1987) discordance-form McNemar required N.

    With discordance ``psi = (b + c)/N`` and ``delta = (b - c)/N``::

        N = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2

    It differs from Equation (6) only in using the null variance ``psi`` for the
    ``z_alpha`` term; the two agree when ``delta^2`` is small against ``psi``.
    """
    z_alpha, z_beta = critical_values(alpha, power, alternative)
    b = np.asarray(a_only, dtype=float)
    c = np.asarray(b_only, dtype=float)
    n = np.asarray(n_items, dtype=float)
    psi = (b + c) / n
    delta = (b - c) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(
            delta != 0,
            (z_alpha * np.sqrt(psi) + z_beta * np.sqrt(np.maximum(psi - delta**2, 0.0))) ** 2
            / delta**2,
            np.inf,
        )
    return _validate.scalar_or_array(out)


def mde(
    n_items: ArrayLike,
    sd_diff: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return the minimum detectable effect at N items (Equation 4).

    ``MDE = (z_{1-alpha/2} + z_{1-beta}) sigma_D / sqrt(N)``: the smallest gap that a
    benchmark of this size resolves at (alpha, power), holding sigma_D fixed.
    """
    n = _validate.positive(n_items, "n_items")
    sd = np.asarray(sd_diff, dtype=float)
    k = z_sum_squared(alpha, power, alternative)
    with np.errstate(over="ignore"):  # a gap beyond the largest float is an infinite MDE
        return _validate.scalar_or_array(np.sqrt(k) * sd / np.sqrt(n))


def resolution_ratio(n_items: ArrayLike, required: ArrayLike) -> FloatOrArray:
    """Return ``q = N / N*`` (Definition 1); 0 when N* is infinite (a zero gap).

    An N* of a few ulps (a spread that is all but zero) gives ``q = inf``: resolved by any
    margin, not an overflow warning.
    """
    n = np.asarray(n_items, dtype=float)
    req = np.asarray(required, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.where(np.isfinite(req) & (req > 0), n / req, np.where(req == 0, np.inf, 0.0))
    return _validate.scalar_or_array(q)


def statistic_resolution_ratio(
    statistic: ArrayLike,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return ``q = z^2 / (z_{1-alpha/2} + z_power)^2`` from a test's z statistic.

    With ``z = delta sqrt(N) / sigma`` and ``N* = (z_{1-alpha/2} + z_power)^2 sigma^2 /
    delta^2`` (Eq. 3) this is ``N / N*`` (Definition 1), for any test whose statistic has
    that form (a t statistic through its normal equivalent); ``z_{1-alpha}`` one-sided.

    Examples
    --------
    >>> round(float(statistic_resolution_ratio(2.8016)), 4)
    1.0
    """
    z = np.asarray(statistic, dtype=float)
    return _validate.scalar_or_array(z**2 / z_sum_squared(alpha, power, alternative))


def power_at(
    delta: ArrayLike,
    sd_diff: ArrayLike,
    n_items: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return the exact power of the level-alpha Wald test at gap ``delta`` (footnote 1).

    Two-sided: ``Phi(-z_{1-alpha/2} - mu) + 1 - Phi(z_{1-alpha/2} - mu)`` with
    ``mu = |delta| sqrt(N) / sigma_D``; one-sided: ``1 - Phi(z_{1-alpha} - mu)`` with the
    signed ``mu`` in the direction of the alternative.
    """
    _validate.alternative(alternative)
    alpha_arr = _validate.probability(alpha, "alpha")
    if np.any(alpha_arr < _validate.MIN_ALPHA):
        _validate.levels(alpha_arr, 0.5, alternative)  # raises, naming the smallest alpha
    delta = np.asarray(delta, dtype=float)
    sd = np.asarray(sd_diff, dtype=float)
    n = np.asarray(n_items, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # mu = +-inf (power 1) also when sd is so small that the ratio overflows.
        mu = np.where(sd > 0, delta * np.sqrt(n) / sd, np.sign(delta) * np.inf)
    mu = np.where(delta == 0, 0.0, mu)
    z = intervals.z_quantile(alpha_arr, alternative)
    if alternative == "two-sided":
        m = np.abs(mu)
        p = special.ndtr(-z - m) + special.ndtr(m - z)
    else:
        signed = mu if alternative == "greater" else -mu
        p = special.ndtr(signed - z)
    return _validate.scalar_or_array(p)


def correlation_bounds(
    accuracy_a: ArrayLike, accuracy_b: ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return ``(rho_min, rho_max)``, the attainable correlations of two Bernoullis (Eq. 7-8).

    ``rho_max = sqrt(min(pA qB, qA pB) / max(pA qB, qA pB))`` and
    ``rho_min = -sqrt(min(pA pB, qA qB) / max(pA pB, qA qB))``.
    """
    pa = _validate.probability(accuracy_a, "accuracy_a")
    pb = _validate.probability(accuracy_b, "accuracy_b")
    u, v = pa * (1 - pb), (1 - pa) * pb
    s, t = pa * pb, (1 - pa) * (1 - pb)
    f = _validate.scalar_or_array
    return f(-np.sqrt(np.minimum(s, t) / np.maximum(s, t))), f(
        np.sqrt(np.minimum(u, v) / np.maximum(u, v))
    )


def check_correlation(accuracy_a: ArrayLike, accuracy_b: ArrayLike, correlation: ArrayLike) -> None:
    """Raise ``InputError`` naming the admissible interval if ``correlation`` is outside it."""
    rho = np.asarray(correlation, dtype=float)
    if np.any(~np.isfinite(rho)):
        raise InputError(
            "{correlation!b}" + escape(" must be a finite number in [-1, 1]"),
            param="correlation",
        )
    low, high = correlation_bounds(accuracy_a, accuracy_b)
    bad = (rho < np.asarray(low) - 1e-12) | (rho > np.asarray(high) + 1e-12)
    if np.any(bad):
        i = np.flatnonzero(np.broadcast_to(bad, np.broadcast(rho, low).shape))[0]
        pa, pb, r, lo, hi = (
            np.broadcast_to(np.asarray(x, dtype=float), bad.shape).ravel()[i]
            for x in (accuracy_a, accuracy_b, rho, low, high)
        )
        raise InputError(
            f"correlation {r:g} is not attainable with accuracies {pa:g} and {pb:g}: "
            f"choose a correlation in [{lo:.4f}, {hi:.4f}] (Equations 7-8)"
        )


def clamp_correlation(
    accuracy_a: ArrayLike, accuracy_b: ArrayLike, correlation: ArrayLike
) -> FloatOrArray:
    """Return ``correlation`` clamped into its admissible interval (Equations 7-8)."""
    low, high = correlation_bounds(accuracy_a, accuracy_b)
    return _validate.scalar_or_array(np.clip(np.asarray(correlation, dtype=float), low, high))


def cohen_h(accuracy_a: ArrayLike, accuracy_b: ArrayLike) -> FloatOrArray:
    """Return Cohen's effect size ``h = 2 arcsin sqrt(pA) - 2 arcsin sqrt(pB)``."""
    pa = _validate.probability(accuracy_a, "accuracy_a", open_interval=False)
    pb = _validate.probability(accuracy_b, "accuracy_b", open_interval=False)
    return _validate.scalar_or_array(2 * np.arcsin(np.sqrt(pa)) - 2 * np.arcsin(np.sqrt(pb)))


@dataclass(frozen=True)
class CalculatorConventions:
    """The two arcsine-scale sample-size conventions behind Table 1, by formula.

    With Cohen's ``h`` and ``K = (z_{1-alpha/2} + z_{1-beta})^2``:

    * ``two_sample_per_arm = 2 K / h^2``: the per-group size of a two-sample test of h,
      whose statistic has variance ``2/n`` (``h sqrt(n/2)`` in the power function). This is
      what R ``pwr::pwr.2p.test`` returns (its documented power function uses
      ``h * sqrt(n/2)``) and what ``statsmodels`` ``NormalIndPower().solve_power(...,
      ratio=1)`` returns (checked numerically in the tests): 1,471 for Table 1's example.
    * ``one_sample_per_arm = K / h^2``: a test whose statistic has variance ``1/n``, the
      one-sample convention (R ``pwr::pwr.p.test``; ``NormalIndPower`` with ``ratio=0``):
      736 for Table 1's example. Read as if it were a per-arm two-sample size it is half of
      one.

    Each ``*_shortcut`` is that value times ``(1 - rho)``, the naive paired read-out of
    Equation (9). Only the ``K / h^2`` convention gives the shortcut ``n_h`` about *half* of
    N* (Lemma 1); ``(1 - rho) 2K/h^2`` is about N* itself (1,030 against 1,028). Unrounded.
    """

    one_sample_per_arm: np.ndarray
    one_sample_shortcut: np.ndarray
    two_sample_per_arm: np.ndarray
    two_sample_shortcut: np.ndarray


def calculator_conventions(
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    correlation: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> CalculatorConventions:
    """Return the per-arm sizes and naive ``(1 - rho)`` shortcuts of Table 1."""
    k = z_sum_squared(alpha, power, alternative)
    h = np.asarray(cohen_h(accuracy_a, accuracy_b), dtype=float)
    rho = np.asarray(correlation, dtype=float)
    with np.errstate(divide="ignore"):
        per_arm = np.where(h != 0, k / h**2, np.inf)
    f = _validate.scalar_or_array
    return CalculatorConventions(
        one_sample_per_arm=f(per_arm),
        one_sample_shortcut=f((1 - rho) * per_arm),
        two_sample_per_arm=f(2 * per_arm),
        two_sample_shortcut=f((1 - rho) * 2 * per_arm),
    )


def lemma_constant(p: ArrayLike, correlation: ArrayLike) -> FloatOrArray:
    """Return the Lemma 1 constant ``C(p, rho)`` (Equation 11).

    ``C = 1/2 |(1+rho)(1-2p)^2 / (16 (1-rho) p^2 (1-p)^2) - 1/(6 p (1-p))|``: the shortcut
    ratio ``n_h / N*`` deviates from 1/2 by at most ``C delta^2 + O(delta^4)`` at midpoint p.
    ``C(1/2, rho) = 1/3`` for every rho.
    """
    p = _validate.probability(p, "p")
    rho = np.asarray(correlation, dtype=float)
    if np.any(rho >= 1):
        raise InputError(
            "{correlation!b}" + escape(" must be below 1 for the Lemma 1 constant"),
            param="correlation",
        )
    u = p * (1 - p)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # Accuracies within ~1e-154 of 0 or 1: u^2 underflows and C is infinite.
        c = 0.5 * np.abs((1 + rho) * (1 - 2 * p) ** 2 / (16 * (1 - rho) * u**2) - 1 / (6 * u))
        c = np.where(np.isnan(c), np.inf, c)
    return _validate.scalar_or_array(c)


def shortcut_tolerance(p: ArrayLike, correlation: ArrayLike, epsilon: float = 0.05) -> FloatOrArray:
    """Return ``delta*(p, rho, eps) = sqrt(eps / C(p, rho))`` (Corollary 1, leading order).

    For ``|delta| <= delta*`` the shortcut ``n_h`` stays within ``(1/2 +/- eps) N*``.
    """
    eps = _validate.probability(epsilon, "epsilon")
    return _validate.scalar_or_array(np.sqrt(eps / np.asarray(lemma_constant(p, correlation))))


def unpaired_required_n(
    delta: ArrayLike,
    variance_a: ArrayLike,
    variance_b: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
    alternative: Alternative = "two-sided",
) -> FloatOrArray:
    """Return the independent-samples required N per model (Miller 2024), for contrast.

    ``n = K (Var X^A + Var X^B) / delta^2`` — what the comparison would need if each model
    were scored on its own independent items. For binary accuracies the variances are
    ``p (1 - p)``. The ratio to the paired N* is the efficiency gained by pairing,
    ``1 / (1 - rho)`` at equal accuracies (Figure 1).
    """
    delta = np.asarray(delta, dtype=float)
    var = np.asarray(variance_a, dtype=float) + np.asarray(variance_b, dtype=float)
    k = z_sum_squared(alpha, power, alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(delta != 0, k * var / delta**2, np.inf)
    return _validate.scalar_or_array(n)


def round_up(n: float) -> int | None:
    """Return a required sample size rounded up to whole items; None when infinite.

    A relative tolerance of 1e-12 keeps floating-point noise (1028.0000000001) from adding
    an item. Calculators report sizes this way (Table 1).
    """
    x = float(round_up_all(float(n)))
    return int(x) if np.isfinite(x) else None


def round_up_all(n: ArrayLike) -> FloatArray:
    """Return sizes rounded up to whole items, as floats; NaN where a size is infinite or NaN.

    The array form of :func:`round_up` (the same tolerance), for a column of sizes.
    """
    x = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(x), np.ceil(x * (1 - 1e-12)), np.nan)


def degradation_power(
    delta: ArrayLike, flip_rate: ArrayLike, n_items: ArrayLike, *, alpha: FloatOrArray = 0.05
) -> FloatOrArray:
    """Return the asymptotic power of the one-sided degradation test (Degradation paper Eq. 11).

    ``1 - Phi(z_{1-alpha} - SNR)`` with ``SNR = sqrt(N / p_flip) delta``: under H0 the
    per-item difference has variance ``p_flip``, so the power depends on N, the drop and the
    flip rate only through the SNR.
    """
    alpha = _validate.probability(alpha, "alpha")
    snr = degradation_snr(delta, flip_rate, n_items)
    return _validate.scalar_or_array(special.ndtr(snr - intervals.z_quantile(alpha, "greater")))


def degradation_snr(delta: ArrayLike, flip_rate: ArrayLike, n_items: ArrayLike) -> FloatOrArray:
    """Return the signal-to-noise ratio ``SNR = sqrt(N / p_flip) delta`` (Degradation Eq. 11)."""
    p = _validate.probability(flip_rate, "flip_rate")
    snr = np.sqrt(np.asarray(n_items, dtype=float) / p) * np.asarray(delta, dtype=float)
    return _validate.scalar_or_array(snr)


def degradation_required_n(
    delta: ArrayLike, flip_rate: ArrayLike, *, alpha: FloatOrArray = 0.05, power: FloatOrArray = 0.8
) -> FloatOrArray:
    """Return the items needed to detect an accuracy drop ``delta`` at flip rate ``p_flip``.

    Inverting Eq. 11: ``N = p_flip ((z_{1-alpha} + z_{1-beta}) / delta)^2``.
    """
    z_alpha, z_beta = critical_values(alpha, power, "greater")
    p = _validate.probability(flip_rate, "flip_rate")
    delta = np.asarray(delta, dtype=float)
    with np.errstate(divide="ignore", over="ignore"):
        n = np.where(delta > 0, p * ((z_alpha + z_beta) / delta) ** 2, np.inf)
    return _validate.scalar_or_array(n)


def degradation_detectable_drop(
    flip_rate: ArrayLike,
    n_items: ArrayLike,
    *,
    alpha: FloatOrArray = 0.05,
    power: FloatOrArray = 0.8,
) -> FloatOrArray:
    """Return the smallest drop detected with the given power: ``(z_a + z_b) sqrt(p/N)``."""
    z_alpha, z_beta = critical_values(alpha, power, "greater")
    p = _validate.probability(flip_rate, "flip_rate")
    n = _validate.positive(n_items, "n_items")
    return _validate.scalar_or_array((z_alpha + z_beta) * np.sqrt(p / n))


def opposes_alternative(delta: ArrayLike, alternative: Alternative) -> bool | BoolArray:
    """True where the gap lies strictly on the side a one-sided alternative does not test.

    Such a gap is no evidence for the alternative, and no number of items makes the
    one-sided test reject in the tested direction at this gap: its N* is infinite and q = 0.
    Always False for ``"two-sided"``.
    """
    _validate.alternative(alternative)
    d = np.asarray(delta, dtype=float)
    if alternative == "two-sided":
        out = np.zeros(d.shape, dtype=bool)
    else:
        out = d < 0 if alternative == "greater" else d > 0
    return _validate.scalar_or_array(out)
