"""Confidence intervals for a paired gap ``delta = accuracy_a - accuracy_b``.

* :func:`wald_interval` — ``delta -/+ z_{1-alpha/2} se`` (Equation 1), for any scores.
* :func:`newcombe_interval` — Newcombe's (1998) hybrid score interval for matched
  proportions ("method 10"): Wilson score limits for each accuracy, combined with a
  continuity-corrected phi. Never leaves [-1, 1], behaves well when discordant counts are
  small, and needs no iteration. Reference: R. G. Newcombe, "Improved confidence intervals
  for the difference between binomial proportions based on paired data", Statistics in
  Medicine 17 (1998) 2635-2650.
* :func:`t_interval` — the paired t interval for graded scores.
* The bootstrap percentile interval is :func:`evalgap.stats.resample.percentile_interval`.

All functions broadcast over arrays of pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from evalgap.stats import _validate
from evalgap.stats._types import Alternative, ArrayLike, BoolArray, FloatArray, FloatOrArray


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]`` at ``level = 1 - alpha`` and how it was made."""

    low: FloatOrArray
    high: FloatOrArray
    method: str
    level: float

    def contains(self, value: FloatOrArray = 0.0) -> bool | BoolArray:
        """Return whether ``value`` lies inside the interval (inclusive)."""
        return _validate.scalar_or_array((self.low <= value) & (value <= self.high))

    def to_dict(self) -> dict[str, Any]:
        """Return the interval as plain Python numbers."""
        return {
            "low": np.asarray(self.low).tolist(),
            "high": np.asarray(self.high).tolist(),
            "method": self.method,
            "level": self.level,
        }


def z_quantile(alpha: ArrayLike, alternative: Alternative = "two-sided") -> FloatArray:
    """Return ``z_{1 - alpha/2}`` (``z_{1 - alpha}`` one-sided), the normal critical value.

    The one home of the z quantiles of a level (N*, the MDE, intervals and the multiplicity
    thresholds all take theirs here). It is taken from the tail: ``-ndtri(alpha/2)`` stays
    exact for tiny alpha (per-pair levels of large families), where ``1 - alpha/2`` rounds
    to 1 and would give an infinite z.
    """
    alpha = np.asarray(alpha, dtype=float)
    return -special.ndtri(alpha / 2.0 if alternative == "two-sided" else alpha)


def wald_interval(delta: FloatOrArray, se: FloatOrArray, alpha: float = 0.05) -> Interval:
    """Return the paired Wald interval ``delta -/+ z_{1-alpha/2} se``."""
    _validate.probability(alpha, "alpha")
    z = z_quantile(alpha)
    delta = np.asarray(delta, dtype=float)
    half = z * np.asarray(se, dtype=float)
    f = _validate.scalar_or_array
    return Interval(f(delta - half), f(delta + half), "wald", 1.0 - alpha)


def wilson_interval(
    successes: ArrayLike, n: ArrayLike, alpha: float = 0.05
) -> tuple[FloatArray, FloatArray]:
    """Return Wilson's score interval for a single proportion ``successes / n``.

    ``(p + z^2/(2n) -/+ z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)``.
    """
    x = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_quantile(alpha)
    p = x / n
    centre = p + z * z / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return (centre - half) / scale, (centre + half) / scale


def newcombe_interval(
    both_correct: ArrayLike,
    a_only: ArrayLike,
    b_only: ArrayLike,
    both_wrong: ArrayLike,
    alpha: float = 0.05,
) -> Interval:
    """Return Newcombe's (1998) method-10 interval for the paired gap of a 2x2 table.

    With ``p1 = (n11 + n10)/N`` (accuracy of A) and ``p2 = (n11 + n01)/N`` (of B), Wilson
    limits ``(l1, u1)``, ``(l2, u2)``, and the phi coefficient corrected towards zero,
    ``phi* = C / sqrt((n11+n10)(n01+n00)(n11+n01)(n10+n00))`` where ``C = B - N/2`` if
    ``B = n11 n00 - n10 n01 > N/2``, ``C = 0`` if ``0 <= B <= N/2``, ``C = B`` if ``B < 0``::

        low  = delta - sqrt((p1 - l1)^2 - 2 phi* (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = delta + sqrt((u1 - p1)^2 - 2 phi* (u1 - p1)(p2 - l2) + (p2 - l2)^2)

    Examples
    --------
    Newcombe's worked example (cells 36, 12, 2, 0):

    >>> ci = newcombe_interval(36, 12, 2, 0)
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.0569, 0.3404)
    """
    _validate.probability(alpha, "alpha")
    n11 = _validate.counts(both_correct, "both_correct")
    n10 = _validate.counts(a_only, "a_only")
    n01 = _validate.counts(b_only, "b_only")
    n00 = _validate.counts(both_wrong, "both_wrong")
    n = n11 + n10 + n01 + n00
    p1 = (n11 + n10) / n
    p2 = (n11 + n01) / n
    delta = p1 - p2
    l1, u1 = wilson_interval(n11 + n10, n, alpha)
    l2, u2 = wilson_interval(n11 + n01, n, alpha)
    cross = n11 * n00 - n10 * n01
    corrected = np.where(cross > n / 2, cross - n / 2, np.where(cross < 0, cross, 0.0))
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(margins > 0, corrected / np.sqrt(margins), 0.0)
    low_sq = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    high_sq = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    low = delta - np.sqrt(np.maximum(low_sq, 0.0))
    high = delta + np.sqrt(np.maximum(high_sq, 0.0))
    f = _validate.scalar_or_array
    return Interval(f(np.maximum(low, -1.0)), f(np.minimum(high, 1.0)), "newcombe", 1.0 - alpha)


def t_quantile(
    alpha: ArrayLike, df: ArrayLike, alternative: Alternative = "two-sided"
) -> FloatArray:
    """Return ``t_{1 - alpha/2, df}`` (``t_{1 - alpha, df}`` one-sided), the t critical value.

    Taken from the tail, ``-stdtrit(df, alpha/2)``, as :func:`z_quantile` is. Arrays
    broadcast.
    """
    alpha = np.asarray(alpha, dtype=float)
    return -special.stdtrit(df, alpha / 2.0 if alternative == "two-sided" else alpha)


def t_interval(
    mean_diff: ArrayLike, sd_diff_sample: ArrayLike, n_items: ArrayLike, alpha: float = 0.05
) -> Interval:
    """Return the paired t interval ``mean(D) -/+ t_{1-alpha/2, N-1} s_D / sqrt(N)``."""
    _validate.probability(alpha, "alpha")
    n = np.asarray(n_items, dtype=float)
    t = t_quantile(alpha, n - 1)
    half = t * np.asarray(sd_diff_sample, dtype=float) / np.sqrt(n)
    mean = np.asarray(mean_diff, dtype=float)
    f = _validate.scalar_or_array
    return Interval(f(mean - half), f(mean + half), "paired_t", 1.0 - alpha)
