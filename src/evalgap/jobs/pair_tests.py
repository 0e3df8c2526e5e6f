"""One pair's tests: its p-values, the interval of its gap, N* and whether the benchmark
resolves it.

``compare`` (one pair) and ``audit`` (every pair of a family, at once) compose a pair's
tests here, so a new p-value or a new rule for N* is written in one place. Vectorized over
pairs; a single pair is a pair of length one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from evalgap.stats import intervals, tests
from evalgap.stats.pair_estimate import paired_required_n

if TYPE_CHECKING:
    from evalgap.stats._types import Alternative


@dataclass(frozen=True)
class PairTests:
    """The tests of each pair (arrays over pairs).

    Attributes
    ----------
    statistic : numpy.ndarray
        The Wald statistic ``delta / (sd_diff / sqrt(n))``.
    p_mcnemar, p_mcnemar_cc, p_exact, p_mid_p : numpy.ndarray
        McNemar's chi-square test (without and with continuity correction), the exact test
        and its mid-p version; NaN for graded pairs.
    p_paired_t : numpy.ndarray
        The paired t test; NaN for binary pairs.
    delta_low, delta_high : numpy.ndarray
        The (1 - alpha) interval of the gap: Newcombe's method 10 for binary pairs, the
        paired t interval for graded ones (NaN below 2 items).
    required_n_formula : numpy.ndarray
        N* of Equation 3 (infinite where the gap opposes a one-sided alternative).
    required_n_floor : numpy.ndarray
        The items that hold the differing items any valid test needs, at the pair's rate of
        differing items.
    testable : numpy.ndarray
        Whether enough items differ for any valid test to reject.
    required_n : numpy.ndarray
        N*: Equation 3 raised to the floor; NaN where it is not estimated (no spread of the
        differences, or too few differing items).
    resolution_ratio : numpy.ndarray
        ``q = N / N*`` (NaN where N* is).
    resolved : numpy.ndarray
        ``q >= 1``: the benchmark resolves the gap at fixed n.
    binary : numpy.ndarray
        Which pairs are binary (their interval is Newcombe's).
    level : float
        ``1 - alpha``, the intervals' level.
    """

    statistic: np.ndarray
    p_mcnemar: np.ndarray
    p_mcnemar_cc: np.ndarray
    p_exact: np.ndarray
    p_mid_p: np.ndarray
    p_paired_t: np.ndarray
    delta_low: np.ndarray
    delta_high: np.ndarray
    required_n_formula: np.ndarray
    required_n_floor: np.ndarray
    testable: np.ndarray
    required_n: np.ndarray
    resolution_ratio: np.ndarray
    resolved: np.ndarray
    binary: np.ndarray
    level: float

    def interval(self, k: int = 0) -> intervals.Interval:
        """Return pair ``k``'s interval of the gap as an :class:`~evalgap.stats.intervals.Interval`.

        Parameters
        ----------
        k : int
            The pair.

        Returns
        -------
        Interval
            Newcombe's (binary) or the paired t (graded) interval, at ``level``.
        """
        method = "newcombe" if self.binary[k] else "paired_t"
        return intervals.Interval(self.delta_low[k], self.delta_high[k], method, self.level)


def pair_tests(
    *,
    binary: ArrayLike,
    n_items: ArrayLike,
    delta: ArrayLike,
    sd_diff: ArrayLike,
    a_only: ArrayLike,
    b_only: ArrayLike,
    alpha: float,
    power: float,
    alternative: Alternative = "two-sided",
    both_correct: ArrayLike | None = None,
    both_wrong: ArrayLike | None = None,
    sd_sample: ArrayLike | None = None,
) -> PairTests:
    """Return each pair's p-values, interval of the gap, N* and fixed-n verdict.

    N* is Equation 3's ``K (sigma_D / delta)^2``, raised to the items that hold the
    ``tests.min_differing_items`` differing items any valid test needs (at the pair's rate of
    differing items), and not estimated (NaN, unresolved) when the differences have no spread
    or fewer items differ than that; a gap on the side a one-sided alternative does not test
    needs infinitely many items.

    Parameters
    ----------
    binary : array_like of bool
        Which pairs have 0/1 scores.
    n_items, delta, sd_diff : array_like
        Shared items, the gap (mean of A minus B) and the plug-in sd of the differences.
    a_only, b_only : array_like
        Items only A (only B) scored higher on.
    alpha, power : float
        The level and the power N* is computed for.
    alternative : {"two-sided", "greater", "less"}
        The tested side.
    both_correct, both_wrong : array_like, optional
        The other two cells of binary pairs (for Newcombe's interval); needed when any
        pair is binary.
    sd_sample : array_like, optional
        The sample (N - 1) sd of the differences; by default ``sd_diff * sqrt(N / (N - 1))``.

    Returns
    -------
    PairTests
    """
    with np.errstate(divide="ignore", invalid="ignore"):  # no spread, no items: NaN or inf
        return _pair_tests(
            binary, n_items, delta, sd_diff, a_only, b_only, alpha, power, alternative,
            both_correct, both_wrong, sd_sample,
        )  # fmt: skip


def _pair_tests(
    binary: ArrayLike, n_items: ArrayLike, delta: ArrayLike, sd_diff: ArrayLike,
    a_only: ArrayLike, b_only: ArrayLike, alpha: float, power: float, alternative: Alternative,
    both_correct: ArrayLike | None, both_wrong: ArrayLike | None, sd_sample: ArrayLike | None,
) -> PairTests:  # fmt: skip
    n = np.asarray(n_items, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    sd = np.asarray(sd_diff, dtype=np.float64)
    b, c = np.asarray(a_only), np.asarray(b_only)
    binary = np.broadcast_to(np.asarray(binary, dtype=bool), n.shape)
    nan = np.full(n.shape, np.nan)
    statistic = np.asarray(tests.wald_statistic(delta, sd, n), dtype=np.float64)
    p_mcnemar = np.where(binary, tests.mcnemar(b, c, alternative=alternative).p_value, nan)
    p_cc = tests.mcnemar(b, c, correction=True, alternative=alternative).p_value
    if alternative == "two-sided":
        exact, mid_p = tests.mcnemar_exact_and_mid_p(b, c)
    else:
        exact = tests.mcnemar_exact(b, c, alternative=alternative)
        mid_p = tests.mcnemar_exact(b, c, alternative=alternative, mid_p=True)
    if sd_sample is None:
        sd_sample = sd * np.sqrt(n / np.maximum(n - 1, 1))
    sd_sample = np.asarray(sd_sample, dtype=np.float64)
    # the t test is the graded pairs' (McNemar's are the binary ones'): only they are tested
    moments = np.broadcast_arrays(delta, sd_sample, n, binary)
    t_pairs = ~moments[3]
    p_paired_t = np.full(t_pairs.shape, np.nan)
    if t_pairs.any():
        t_test = tests.paired_t_from_moments(
            *(v[t_pairs] for v in moments[:3]), alternative=alternative
        )
        p_paired_t[t_pairs] = t_test.p_value
    low, high = nan.copy(), nan.copy()
    if binary.any():
        # every pair binary: the arrays as they are, not masked copies of them
        on: Any = slice(None) if binary.ndim and binary.all() else binary
        ci = intervals.newcombe_interval(
            np.asarray(both_correct, dtype=np.float64)[on],
            b[on].astype(float),
            c[on].astype(float),
            np.asarray(both_wrong, dtype=np.float64)[on],
            alpha,
        )
        low[on], high[on] = ci.low, ci.high
    graded = ~binary & (n >= 2)
    if graded.any():
        ci = intervals.t_interval(delta[graded], sd_sample[graded], n[graded], alpha)
        low[graded], high[graded] = ci.low, ci.high
    formula, floor, testable, required, q = paired_required_n(
        delta, sd, n, b + c, alpha=alpha, power=power, alternative=alternative
    )
    return PairTests(
        statistic=statistic,
        p_mcnemar=p_mcnemar,
        p_mcnemar_cc=np.where(binary, p_cc, nan),
        p_exact=np.where(binary, exact, nan),
        p_mid_p=np.where(binary, mid_p, nan),
        p_paired_t=p_paired_t,
        delta_low=low,
        delta_high=high,
        required_n_formula=formula,
        required_n_floor=floor,
        testable=np.asarray(testable, dtype=bool),
        required_n=required,
        resolution_ratio=q,
        resolved=q >= 1,
        binary=binary,
        level=1.0 - alpha,
    )
