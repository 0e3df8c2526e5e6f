"""The compare job on graded and binary scores."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalgap import compare_counts, compare_scores
from evalgap.errors import InputError
from evalgap.stats import power as pw


@pytest.fixture(scope="module")
def graded():
    rng = np.random.default_rng(42)
    a = rng.beta(4, 2, 1500)
    b = np.clip(a - 0.015 + rng.normal(0, 0.15, 1500), 0, 1)
    return a, b


def test_graded_compare(graded):
    a, b = graded
    r = compare_scores(a, b, n_bootstrap=4000, n_permutations=4000, seed=3)
    d = a - b
    assert not r.binary and r.n_items == 1500
    assert r.delta == pytest.approx(d.mean())
    assert r.sd_diff == pytest.approx(d.std())
    assert r.p_values.paired_t == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    assert r.p_values.mcnemar is None and r.p_values.exact is None
    # Equation (3) with the sample SD of the differences
    k = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2
    assert r.required_n == int(np.ceil(k * d.var() / d.mean() ** 2))
    assert r.ci.method == "bootstrap_percentile"
    ttest = stats.ttest_rel(a, b).confidence_interval()
    assert r.ci.low == pytest.approx(ttest.low, abs=0.002)
    assert r.ci.high == pytest.approx(ttest.high, abs=0.002)
    # The bootstrap and permutation p-values agree with the t test at this size
    assert (r.p_values.bootstrap < 0.05) == (r.p_values.paired_t < 0.05)
    assert (r.p_values.sign_flip < 0.05) == (r.p_values.paired_t < 0.05)
    lo, hi = r.required_n_interval.low, r.required_n_interval.high
    assert lo < r.required_n < hi
    assert r.unpaired_required_n > r.required_n  # positively correlated scores gain by pairing
    assert r.verdict.startswith("significant by the paired t test")


def test_graded_results_are_reproducible(graded):
    a, b = graded
    one = compare_scores(a, b, n_bootstrap=500, n_permutations=500, seed=9)
    two = compare_scores(a, b, n_bootstrap=500, n_permutations=500, seed=9)
    assert one.to_dict() == two.to_dict()


def test_binary_scores_give_the_counts_result():
    a = np.array([1, 1, 0, 0, 1, 0, 1, 1] * 50, dtype=float)
    b = np.array([1, 0, 1, 0, 0, 0, 1, 1] * 50, dtype=float)
    by_scores = compare_scores(a, b, seed=1)
    by_counts = compare_counts(150, 100, 50, 100, seed=1)
    assert by_scores.to_dict() == by_counts.to_dict()


def test_one_sided_compare_in_the_direction_of_the_data():
    greater = compare_counts(500, 60, 35, 405, alternative="greater", n_bootstrap=0)
    less = compare_counts(500, 60, 35, 405, alternative="less", n_bootstrap=0)
    two = compare_counts(500, 60, 35, 405, n_bootstrap=0)
    assert greater.p_values.exact < two.p_values.exact < less.p_values.exact
    assert greater.required_n < two.required_n  # z_{1-alpha} < z_{1-alpha/2}
    assert greater.required_n == pw.round_up(
        pw.required_n(greater.delta, greater.sd_diff, alternative="greater")
    )


def test_required_n_interval_straddling_n_is_said():
    r = compare_counts(7986, 295, 249, 1512, seed=0)  # the HellaSwag boundary pair
    assert r.required_n_interval.straddles_n
    assert "straddles N" in r.verdict
    robust = compare_counts(8000, 400, 100, 1500, seed=0)
    assert not robust.required_n_interval.straddles_n and robust.resolved


def test_compare_refuses_bad_arguments():
    with pytest.raises(InputError, match="alpha must lie in"):
        compare_counts(10, 5, 3, 10, alpha=1.5)
    with pytest.raises(InputError, match="a_only must be a non-negative whole number"):
        compare_counts(10, -5, 3, 10)
    with pytest.raises(InputError, match="same length"):
        compare_scores([1, 0], [1, 0, 1])
    with pytest.raises(InputError, match="NaN"):
        compare_scores([0.5, np.nan, 0.2], [0.1, 0.2, 0.3])


def test_scores_outside_unit_interval_are_said():
    rng = np.random.default_rng(0)
    a = rng.normal(50, 10, 300)  # e.g. scores in percent
    b = a - 1 + rng.normal(0, 5, 300)
    r = compare_scores(a, b, n_bootstrap=200, n_permutations=200, n_bootstrap_required_n=0)
    assert r.p_values.mcnemar is None and r.p_values.paired_t is not None
    assert any("outside [0, 1]" in n for n in r.notes)


@pytest.mark.parametrize(
    ("alpha", "alternative", "needed"),
    [(0.05, "two-sided", 6), (0.05, "greater", 5), (2.0**-5, "two-sided", 6), (0.01, "less", 7)],
)
def test_minimum_items_rule(alpha, alternative, needed):
    """Below k items that differ no test can reach alpha (sign-flip p >= 2^(1-k)): no verdict."""
    from evalgap.stats.tests import mcnemar_exact, min_differing_items

    assert int(min_differing_items(alpha, alternative)) == needed
    # The exact test on the most extreme data confirms the bound: k - 1 items cannot reject.
    extreme = (needed - 1, 0) if alternative != "less" else (0, needed - 1)
    assert float(mcnemar_exact(*extreme, alternative=alternative)) > alpha
    enough = (needed, 0) if alternative != "less" else (0, needed)
    assert float(mcnemar_exact(*enough, alternative=alternative)) <= alpha
    few = compare_counts(3, *extreme, 3, alpha=alpha, alternative=alternative)
    assert few.p_values.bootstrap is None and few.bootstrap is None
    assert few.verdict.startswith("too few items differ")
    ok = compare_counts(3, *enough, 3, alpha=alpha, alternative=alternative)
    assert ok.p_values.bootstrap is not None and "too few" not in ok.verdict


def test_graded_bootstrap_reports_its_monte_carlo_error(graded):
    a, b = graded
    r = compare_scores(a, b, n_bootstrap=2000, n_permutations=0, seed=5)
    boot = r.bootstrap
    assert boot.method == "monte_carlo" and boot.n_resamples == 2000
    tail = boot.p_value / 2
    assert boot.monte_carlo_se == pytest.approx(2 * np.sqrt(tail * (1 - tail) / 2000))
    assert r.to_dict()["bootstrap"]["monte_carlo_se"] == boot.monte_carlo_se


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("cells", [(700, 80, 40, 180), (700, 40, 80, 180), (700, 60, 60, 180)])
def test_resolution_follows_the_tested_direction(alternative, cells):
    """A gap on the side a one-sided alternative does not test is no evidence for it: no N*,
    q = 0, not resolved, and the sentence says so (the original said "the 1,000 items resolve
    a gap this size" at p = 1.00). On the tested side N* uses z_{1-alpha}."""
    r = compare_counts(*cells, alternative=alternative, n_bootstrap_required_n=50)
    delta = (cells[1] - cells[2]) / sum(cells)
    against = (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0)
    if delta == 0:
        assert r.required_n is None and not r.resolved
        assert "exactly zero" in r.verdict
    elif against:
        assert r.required_n is None and r.resolution_ratio == 0 and not r.resolved
        assert r.required_n_interval is None and r.correlation_sensitivity == ()
        assert r.unpaired_required_n is None and r.required_n_discordant is None
        better = "A" if alternative == "greater" else "B"
        assert f"no evidence that {better} is better" in r.verdict
        assert "resolve a gap this size" not in r.verdict
        assert r.p_values.exact > 0.5
    else:
        k = (stats.norm.ppf(1 - 0.05 / (2 if alternative == "two-sided" else 1))
             + stats.norm.ppf(0.8)) ** 2
        variance = (cells[1] + cells[2]) / sum(cells) - delta**2
        assert r.required_n == pw.round_up(k * variance / delta**2)
        assert r.resolved and "resolve a gap this size" in r.verdict
        assert ("one-sided" in r.verdict) == (alternative != "two-sided")


def test_two_graded_items_give_no_required_n():
    """With 2 graded items (fewer differing items than any valid test needs) the tests give
    no verdict and N*, the MDE and q are not estimated; the original said "resolved, N* 2"."""
    r = compare_scores([0.9, 0.8], [0.1, 0.15])
    assert r.required_n is None and r.mde is None and r.resolution_ratio is None
    assert not r.resolved and r.required_n_interval is None
    assert "not estimated" in r.verdict and "resolve a gap this size" not in r.verdict
    binary = compare_counts(9990, 3, 0, 7)  # 3 discordant items of 10,000
    assert binary.required_n is None and not binary.resolved


def test_required_n_is_at_least_the_items_a_valid_test_needs():
    """Eq. 3 gives N* = 4.4 for 9 vs 1 of 10 items all differing; no valid test rejects at
    alpha = 0.05 with fewer than 6 differing items, so N* is 6 (6 / rate of differing, 1)."""
    r = compare_counts(0, 9, 1, 0)
    assert pw.required_n(0.8, np.sqrt(0.36)) == pytest.approx(7.8489 * 0.36 / 0.64, rel=1e-4)
    assert r.required_n == 6 and r.resolution_ratio == pytest.approx(10 / 6)
    assert r.required_n_interval.low >= 6
    half = compare_counts(5, 9, 1, 5)  # half the items differ: 6 differing need 12 items
    assert half.required_n >= 12
