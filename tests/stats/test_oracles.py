"""The core against independent implementations: scipy and statsmodels (test-only)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from evalgap.stats import intervals
from evalgap.stats import power as pw
from evalgap.stats.tests import mcnemar, mcnemar_exact, paired_t

discordant = st.tuples(st.integers(0, 400), st.integers(0, 400)).filter(lambda t: sum(t) > 0)


@given(discordant)
@settings(max_examples=200, deadline=None)
def test_exact_matches_scipy_binomtest(bc):
    b, c = bc
    n = b + c
    assert float(mcnemar_exact(b, c)) == pytest.approx(stats.binomtest(b, n, 0.5).pvalue, rel=1e-9)
    greater = stats.binomtest(b, n, 0.5, alternative="greater").pvalue
    less = stats.binomtest(b, n, 0.5, alternative="less").pvalue
    assert float(mcnemar_exact(b, c, alternative="greater")) == pytest.approx(greater, rel=1e-9)
    assert float(mcnemar_exact(b, c, alternative="less")) == pytest.approx(less, rel=1e-9)


@pytest.mark.parametrize(
    ("b", "c"),
    [(295, 249), (0, 1), (1, 0), (7, 0), (13, 40), (5_000, 4_800), (20_000, 1_000),
     (123_456, 124_000), (10**6, 10**6 + 2_500), (3 * 10**6, 3 * 10**6 - 7_000)],
)  # fmt: skip
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_equals_scipy_binomtest_to_1e_12(b, c, alternative):
    """The counts path's exact p-value (the Boost binomial scipy.stats.binom calls, without
    importing scipy.stats) equals binomtest's to 1e-12, absolute and relative, from one
    discordant item to millions."""
    expected = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue
    got = float(mcnemar_exact(b, c, alternative=alternative))
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@given(discordant)
@settings(max_examples=200, deadline=None)
def test_mid_p_is_exact_minus_half_the_point_mass(bc):
    b, c = bc
    n = b + c
    k = min(b, c)
    expected = min(1.0, 2 * (stats.binom.cdf(k, n, 0.5) - 0.5 * stats.binom.pmf(k, n, 0.5)))
    assert float(mcnemar_exact(b, c, mid_p=True)) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    one_sided = stats.binom.sf(b, n, 0.5) + 0.5 * stats.binom.pmf(b, n, 0.5)
    assert float(mcnemar_exact(b, c, alternative="greater", mid_p=True)) == pytest.approx(
        one_sided, rel=1e-9, abs=1e-300
    )


@given(discordant)
@settings(max_examples=200, deadline=None)
def test_mcnemar_matches_statsmodels(bc):
    b, c = bc
    table = [[50, b], [c, 40]]
    plain = sm_mcnemar(table, exact=False, correction=False)
    ours = mcnemar(b, c)
    assert float(ours.statistic) == pytest.approx(plain.statistic, rel=1e-12)
    assert float(ours.p_value) == pytest.approx(plain.pvalue, rel=1e-9)
    exact = sm_mcnemar(table, exact=True)
    assert float(mcnemar_exact(b, c)) == pytest.approx(exact.pvalue, rel=1e-9)
    if b != c:  # statsmodels does not floor |b - c| - 1 at 0; we do (equal counts: p = 1)
        corrected = sm_mcnemar(table, exact=False, correction=True)
        assert float(mcnemar(b, c, correction=True).p_value) == pytest.approx(
            corrected.pvalue, rel=1e-9
        )
    else:
        assert float(mcnemar(b, c, correction=True).p_value) == 1.0


def test_one_sided_mcnemar_is_half_the_two_sided_in_the_right_direction():
    two = float(mcnemar(60, 40).p_value)
    assert float(mcnemar(60, 40, alternative="greater").p_value) == pytest.approx(two / 2)
    assert float(mcnemar(60, 40, alternative="less").p_value) == pytest.approx(1 - two / 2)


@given(st.integers(0, 2**31), st.integers(3, 300))
@settings(max_examples=60, deadline=None)
def test_paired_t_matches_scipy(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.beta(4, 2, n)
    b = np.clip(a + rng.normal(0.01, 0.2, n), 0, 1)
    ours = paired_t(a, b)
    ref = stats.ttest_rel(a, b)
    assert float(ours.statistic) == pytest.approx(ref.statistic, rel=1e-9)
    assert float(ours.p_value) == pytest.approx(ref.pvalue, rel=1e-8)
    for alternative in ("greater", "less"):
        ref = stats.ttest_rel(a, b, alternative=alternative)
        assert float(paired_t(a, b, alternative=alternative).p_value) == pytest.approx(
            ref.pvalue, rel=1e-8
        )


def test_paired_t_interval_matches_scipy():
    rng = np.random.default_rng(5)
    d = rng.normal(0.03, 0.3, 250)
    ref = stats.ttest_1samp(d, 0).confidence_interval(0.95)
    ci = intervals.t_interval(d.mean(), d.std(ddof=1), d.size, 0.05)
    assert (float(ci.low), float(ci.high)) == pytest.approx((ref.low, ref.high), rel=1e-10)


@pytest.mark.parametrize(("pa", "pb"), [(0.65, 0.60), (0.8, 0.75), (0.3, 0.35), (0.55, 0.5)])
def test_calculator_conventions_match_normal_ind_power(pa, pb):
    """2K/h^2 is NormalIndPower's two-sample size (ratio 1); K/h^2 its one-sample (ratio 0)."""
    h = proportion_effectsize(pa, pb)
    assert float(pw.cohen_h(pa, pb)) == pytest.approx(h, rel=1e-12)
    solve = NormalIndPower().solve_power
    two = solve(effect_size=abs(h), alpha=0.05, power=0.8, ratio=1.0)
    one = solve(effect_size=abs(h), alpha=0.05, power=0.8, ratio=0.0)
    conv = pw.calculator_conventions(pa, pb, 0.3)
    # statsmodels also counts the far rejection tail, which moves N by far less than one item.
    assert float(conv.two_sample_per_arm) == pytest.approx(two, abs=0.05)
    assert float(conv.one_sample_per_arm) == pytest.approx(one, abs=0.05)
    assert float(conv.two_sample_shortcut) == pytest.approx(0.7 * two, abs=0.05)


def test_pwr_2p_test_formula_gives_two_k_over_h_squared():
    """R pwr.2p.test's documented power, Phi(h sqrt(n/2) - z) + Phi(-h sqrt(n/2) - z) with
    z = z_{1-alpha/2}, solved for n at Table 1's example, is 2K/h^2 = 1,471 per group (not
    the K/h^2 = 736 that halves N* when multiplied by 1 - rho)."""
    from scipy import optimize, special

    h = abs(float(pw.cohen_h(0.65, 0.60)))
    z = special.ndtri(1 - 0.025)

    def power(n):
        shift = h * np.sqrt(n / 2)
        return special.ndtr(shift - z) + special.ndtr(-shift - z) - 0.8

    n_pwr = optimize.brentq(power, 2, 10**6, xtol=1e-9)
    conv = pw.calculator_conventions(0.65, 0.60, 0.3)
    assert float(conv.two_sample_per_arm) == pytest.approx(n_pwr, abs=0.05)
    assert (math.ceil(n_pwr), pw.round_up(float(conv.one_sample_per_arm))) == (1471, 736)


@pytest.mark.parametrize(("delta", "sd", "n"), [(0.02, 0.3, 2000), (0.05, 0.5, 800)])
def test_exact_power_matches_statsmodels_normal_power(delta, sd, n):
    from statsmodels.stats.power import NormalIndPower as _  # noqa: F401  (import check)
    from statsmodels.stats.power import normal_power

    ref = normal_power(delta / sd, n, 0.05, alternative="two-sided")
    assert float(pw.power_at(delta, sd, n)) == pytest.approx(ref, rel=1e-10)


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for x, n in [(0, 10), (3, 10), (81, 144), (999, 1000)]:
        low, high = intervals.wilson_interval(x, n, 0.05)
        ref = proportion_confint(x, n, alpha=0.05, method="wilson")
        assert (float(low), float(high)) == pytest.approx(ref, rel=1e-10, abs=1e-14)


def test_newcombe_published_example():
    """Newcombe (1998), worked example with cells (36, 12, 2, 0): method 10 gives
    0.0569 to 0.3404 for a difference of 0.2."""
    ci = intervals.newcombe_interval(36, 12, 2, 0)
    assert (round(float(ci.low), 4), round(float(ci.high), 4)) == (0.0569, 0.3404)


@pytest.mark.parametrize("n", [10**7, 10**8, 10**9, 4 * 10**9])
def test_exact_mcnemar_stays_accurate_for_huge_discordant_counts(n):
    """scipy.special.bdtr/bdtrc lose accuracy above ~1e6 trials (0.159 for 0.49999 at 1e9);
    the incomplete-beta tails agree with the continuity-corrected normal law, exact to
    O(1/n) here."""
    from scipy.stats import norm

    from evalgap.stats.tests import mcnemar_exact

    b = n // 2 + int(0.3 * np.sqrt(n))
    c = n - b
    z = (b - 0.5 - n / 2) / np.sqrt(n / 4)
    assert mcnemar_exact(b, c, alternative="greater") == pytest.approx(norm.sf(z), rel=1e-6)
    two = (min(b, c) + 0.5 - n / 2) / np.sqrt(n / 4)
    assert mcnemar_exact(b, c) == pytest.approx(2 * norm.cdf(two), rel=1e-6)


@given(st.integers(0, 400), st.integers(0, 400))
@settings(max_examples=150, deadline=None)
def test_binomial_half_tails_match_scipy_binom(k, n):
    from evalgap.stats.tests import binomial_half_cdf, binomial_half_sf

    assert binomial_half_cdf(k, n) == pytest.approx(
        stats.binom.cdf(k, n, 0.5), rel=1e-10, abs=1e-300
    )
    assert binomial_half_sf(k, n) == pytest.approx(stats.binom.sf(k, n, 0.5), rel=1e-10, abs=1e-300)
