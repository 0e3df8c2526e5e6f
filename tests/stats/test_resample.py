"""The resampling engine: exact fast paths agree with item resampling; seeds, not threads,
decide the numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalgap.stats import resample
from evalgap.stats.tests import mcnemar_exact, permutation_p_value, sign_flip_test


def test_cell_bootstrap_has_the_distribution_of_item_resampling():
    """A multinomial draw on the 2x2 cells is the item bootstrap of a binary pair."""
    b, c, n = 120, 80, 1000
    b_star, c_star = resample.bootstrap_counts(b, c, n, 20_000, seed=1)
    by_cells = (b_star - c_star) / n
    d = np.repeat([1.0, -1.0, 0.0], [b, c, n - b - c])
    rng = np.random.default_rng(2)
    by_items = np.array([d[rng.integers(0, n, n)].mean() for _ in range(20_000)])
    assert stats.ks_2samp(by_cells, by_items).pvalue > 0.01
    var_d = (b + c) / n - ((b - c) / n) ** 2
    assert by_cells.var() == pytest.approx(var_d / n, rel=0.03)
    assert by_cells.mean() == pytest.approx((b - c) / n, abs=4 * np.sqrt(var_d / n / 20_000))


def test_bootstrap_counts_broadcast_over_pairs():
    b = np.array([10, 200, 0])
    c = np.array([5, 190, 0])
    b_star, c_star = resample.bootstrap_counts(b, c, 1000, 300, seed=0)
    assert b_star.shape == (3, 300)
    assert np.all(b_star[2] == 0) and np.all(c_star[2] == 0)
    assert b_star[1].mean() == pytest.approx(200, rel=0.05)


def test_graded_bootstrap_moments():
    rng = np.random.default_rng(4)
    d = rng.normal(0.02, 0.3, 3000)  # all distinct: the item-resampling path
    means = resample.bootstrap_means(d, 4000, seed=3)
    assert means.mean() == pytest.approx(d.mean(), abs=4 * d.std() / np.sqrt(3000 * 4000))
    assert means.var() == pytest.approx(d.var() / d.size, rel=0.06)
    first, second = resample.bootstrap_means(d, 4000, seed=3, moments=True)
    np.testing.assert_array_equal(first, means)
    assert np.mean(second - first**2) == pytest.approx(d.var(), rel=0.01)


def test_few_distinct_values_use_the_exact_multinomial_path():
    d = np.repeat([0.0, 0.5, -0.5, 1.0], [500, 200, 150, 50])
    draws = resample.bootstrap_means(d, 20_000, seed=8)
    assert draws.var() == pytest.approx(d.var() / d.size, rel=0.03)


def test_results_depend_on_the_seed_not_on_the_number_of_threads():
    d = np.random.default_rng(0).normal(size=70_000)  # several blocks
    one = resample.bootstrap_means(d, 300, seed=11, workers=1)
    two = resample.bootstrap_means(d, 300, seed=11, workers=2)
    np.testing.assert_array_equal(one, two)
    flips1 = resample.sign_flip_sums(d, 200, seed=5, workers=1)
    flips2 = resample.sign_flip_sums(d, 200, seed=5, workers=3)
    np.testing.assert_array_equal(flips1, flips2)
    assert not np.array_equal(one, resample.bootstrap_means(d, 300, seed=12, workers=1))


def test_sign_flip_null_moments():
    d = np.random.default_rng(1).uniform(-1, 1, 500)
    sums = resample.sign_flip_sums(d, 20_000, seed=2)
    assert sums.mean() == pytest.approx(0, abs=4 * np.sqrt((d**2).sum() / 20_000))
    assert sums.var() == pytest.approx((d**2).sum(), rel=0.03)
    binary = resample.sign_flip_sums_binary(400, 20_000, seed=2)
    assert set(np.unique(binary % 2)) == {0}
    assert binary.var() == pytest.approx(400, rel=0.03)


def test_sign_flip_on_binary_data_estimates_the_exact_test():
    """Table 2 note: randomising discordant signs is the exact conditional binomial test."""
    b, c, n = 40, 22, 300
    a_scores = np.repeat([1, 1, 0, 0], [100, b, c, n - 100 - b - c]).astype(float)
    b_scores = np.repeat([1, 0, 1, 0], [100, b, c, n - 100 - b - c]).astype(float)
    m = 200_000
    fast = sign_flip_test(a_scores, b_scores, n_resamples=m, seed=4).p_value
    exact = float(mcnemar_exact(b, c))
    assert fast == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / m))
    # The general (graded) path draws the same null distribution.
    d = a_scores - b_scores
    general = resample.sign_flip_sums(d, m, seed=9)
    p_general = permutation_p_value(d.sum(), general)
    assert p_general == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / m))


def test_bootstrap_p_value_agrees_with_the_percentile_interval():
    rng = np.random.default_rng(7)
    for shift in np.linspace(-0.2, 0.2, 41):
        draws = rng.normal(shift, 0.1, 2000)
        low, high = resample.percentile_interval(draws, 0.05)
        p = float(resample.bootstrap_p_value(draws))
        if p < 0.045:
            assert not (low <= 0 <= high)
        if p > 0.055:
            assert low <= 0 <= high


def test_permutation_p_value_is_never_zero():
    assert permutation_p_value(100.0, np.zeros(999)) == pytest.approx(1 / 1000)


# --- the exact bootstrap of binary pairs ------------------------------------------------------
def _enumerated_law(b: int, c: int, n: int):
    """P(D* = d) for d = -n..n by enumerating the multinomial on the four cells (oracle)."""
    probs = np.array([(n - b - c) / n, b / n, c / n])  # rest (concordant), b, c
    law = np.zeros(2 * n + 1)
    for bs in range(n + 1):
        for cs in range(n + 1 - bs):
            law[bs - cs + n] += stats.multinomial.pmf([n - bs - cs, bs, cs], n, probs)
    return law


@pytest.mark.parametrize(
    ("b", "c", "n"), [(3, 1, 9), (2, 2, 7), (0, 4, 10), (5, 0, 5), (0, 0, 6), (1, 6, 12)]
)
def test_exact_bootstrap_law_matches_enumeration(b, c, n):
    law = _enumerated_law(b, c, n)
    d = np.arange(-n, n + 1)
    cdf = resample.binary_bootstrap_cdf(b, c, n, d)
    sf = resample.binary_bootstrap_cdf(b, c, n, d, upper=True)
    np.testing.assert_allclose(cdf, np.cumsum(law), atol=1e-12)
    np.testing.assert_allclose(sf, np.cumsum(law[::-1])[::-1], atol=1e-12)
    below, above = np.cumsum(law)[n], np.cumsum(law[::-1])[::-1][n]
    assert float(resample.binary_bootstrap_p_value(b, c, n)) == pytest.approx(
        min(1.0, 2 * min(below, above)), abs=1e-12
    )
    for alpha in (0.05, 0.2, 0.5):
        low, high = resample.binary_bootstrap_interval(b, c, n, alpha)
        tail = alpha / 2
        assert low == pytest.approx(d[np.argmax(np.cumsum(law) >= tail - 1e-12)] / n)
        survival = np.cumsum(law[::-1])[::-1]
        assert high == pytest.approx(d[np.flatnonzero(survival >= tail - 1e-12)[-1]] / n)


def test_exact_bootstrap_agrees_with_monte_carlo_draws():
    """HellaSwag: 10^6 multinomial draws land within 4 Monte Carlo SE of the exact tails."""
    b_star, c_star = resample.bootstrap_counts(
        np.array([295]), np.array([249]), np.array([10042]), 1_000_000, seed=11
    )
    draws = (b_star - c_star)[0]
    for upper, share in ((False, np.mean(draws <= 0)), (True, np.mean(draws >= 0))):
        exact = float(resample.binary_bootstrap_cdf(295, 249, 10042, 0, upper=upper))
        assert abs(share - exact) < 4 * np.sqrt(exact * (1 - exact) / draws.size)
    assert round(float(resample.binary_bootstrap_p_value(295, 249, 10042)), 4) == 0.0509


def test_thinned_sum_matches_the_full_sum(monkeypatch):
    """Beyond EXACT_MAX_POINTS the sum takes every k-th total; it matches the full sum."""
    b = np.array([260_000, 5_000, 300_000])
    c = np.array([250_000, 4_000, 320_000])
    n = np.array([2_000_000, 3_000_000, 900_000])
    # Far tails (the p-values) and the centre (the percentiles) of each law.
    d = np.array([[0, -500, -24_000], [10_500, 1_100, -19_200]])
    thinned = resample.binary_bootstrap_cdf(b, c, n, d)
    monkeypatch.setattr(resample, "EXACT_MAX_POINTS", 10**6)
    full = resample.binary_bootstrap_cdf(b, c, n, d)
    np.testing.assert_allclose(thinned, full, rtol=1e-10)
    assert np.all((full > 1e-200) & (full < 1))
    assert np.all((full[1] > 0.1) & (full[1] < 0.99))


def test_exact_bootstrap_broadcasts_over_pairs():
    b, c, n = (
        np.array([295, 3, 0, 5, 40]),
        np.array([249, 0, 0, 5, 61]),
        np.array([10042, 3, 4, 10, 500]),
    )
    p = resample.binary_bootstrap_p_value(b, c, n)
    low, high = resample.binary_bootstrap_interval(b, c, n, 0.05)
    for i in range(b.size):
        assert p[i] == float(resample.binary_bootstrap_p_value(b[i], c[i], n[i]))
        one = resample.binary_bootstrap_interval(b[i], c[i], n[i], 0.05)
        assert (low[i], high[i]) == (float(one[0]), float(one[1]))
    assert p[2] == 1.0 and p[1] == 0.0  # no discordant items; every item won by A


@settings(max_examples=60, deadline=None)
@given(
    b=st.integers(0, 400),
    c=st.integers(0, 400),
    rest=st.integers(0, 2000),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.3]),
)
def test_exact_p_below_alpha_exactly_when_the_interval_excludes_zero(b, c, rest, alpha):
    n = b + c + rest
    if n == 0:
        return
    p = float(resample.binary_bootstrap_p_value(b, c, n))
    low, high = resample.binary_bootstrap_interval(b, c, n, alpha)
    assert (p < alpha) == (not (low <= 0 <= high))
    one_sided = float(resample.binary_bootstrap_p_value(b, c, n, "greater"))
    assert one_sided == pytest.approx(float(resample.binary_bootstrap_cdf(b, c, n, 0)))


def test_quantiles_of_infinite_draws_are_infinite_without_a_warning():
    """A clustered N* of a pair with no gap is infinite in most cluster-bootstrap draws: NumPy
    interpolated two infinities as inf - inf, so the audit's interval bound was NaN, with a
    RuntimeWarning on the terminal (seen on MMLU-Pro restricted by an item file)."""
    from evalgap.stats.resample import quantile

    draws = np.array([3.0, 5.0, np.inf, np.inf, np.inf, np.nan])
    assert quantile(draws, 0.95) == np.inf and quantile(-draws, 0.05) == -np.inf
    assert quantile(draws, 0.0) == 3.0 and quantile(draws, 0.1) == pytest.approx(3.8)
    assert np.isnan(quantile(np.full(4, np.nan), 0.5))
    finite = np.random.default_rng(1).normal(size=(50, 3))
    np.testing.assert_array_equal(
        quantile(finite, [0.05, 0.95], axis=0), np.quantile(finite, [0.05, 0.95], axis=0)
    )


@pytest.mark.parametrize("axis", [0, 1])
def test_quantiles_without_nan_are_the_nan_paths_to_the_last_bit(axis):
    """Draws without NaN take one vectorised quantile, not nanquantile's loop over slices:
    the numbers are the same, infinities included (the audit's cluster-bootstrap intervals
    were frozen with nanquantile). A slice of NaN beside the draws sends them down the NaN
    path."""
    from evalgap.stats.resample import quantile

    rng = np.random.default_rng(7)
    draws = rng.gamma(2.0, size=(300, 40)) * rng.choice([1e-3, 1.0, 1e3], size=(300, 40))
    draws[rng.random(draws.shape) < 0.02] = np.inf
    draws[:, 3] = np.inf
    draws = draws if axis == 0 else draws.T
    with_nan = np.concatenate(
        [draws, np.full((300, 1) if axis == 0 else (1, 300), np.nan)], 1 - axis
    )
    for q in ([0.05, 0.95], 0.5, [0.0, 0.025, 1.0]):
        fast = quantile(draws, q, axis=axis)
        slow = quantile(with_nan, q, axis=axis)
        np.testing.assert_array_equal(fast, slow[..., :-1])
        assert np.isinf(fast).any()
