"""Multiplicity, the mixture e-process and cluster statistics, against independent oracles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from statsmodels.stats.multitest import multipletests

from evalgap.stats import clusters, multiplicity, sequential

p_values = st.lists(st.floats(1e-12, 0.999), min_size=1, max_size=60)


@given(p_values, st.sampled_from(["bonferroni", "sidak", "holm", "bh", "by"]))
@settings(max_examples=100, deadline=None)
def test_adjusted_p_values_match_statsmodels(p, method):
    name = {"bh": "fdr_bh", "by": "fdr_by"}.get(method, method)
    expected = multipletests(p, alpha=0.05, method=name)[1]
    np.testing.assert_allclose(multiplicity.adjust_p_values(p, method), expected, rtol=1e-9)


@given(
    st.lists(st.floats(0.01, 8.0), min_size=1, max_size=60),
    st.sampled_from(["bonferroni", "sidak", "holm", "bh"]),
)
@settings(max_examples=100, deadline=None)
def test_resolution_at_power_one_half_is_rejection(t, method):
    """With power 1/2 (z_{1-beta} = 0) 'resolved' is 'rejected by the procedure' on the Wald
    p-values, so statsmodels' multipletests decisions are an oracle for every procedure."""
    t = np.array(t)
    p = 2 * special.ndtr(-t)
    name = {"bh": "fdr_bh"}.get(method, method)
    reject = multipletests(p, alpha=0.05, method=name)[0]
    if method == "holm":
        ours = multiplicity.resolved_holm(t, 0.05, 0.5)
    elif method == "bh":
        ours = multiplicity.resolved_bh(t, 0.05, 0.5)
    else:
        ours = multiplicity.resolved_single_step(t, 0.05, 0.5, t.size, method)
    np.testing.assert_array_equal(ours, reject)


def test_family_verdicts_share_one_sort_and_give_each_procedures_own():
    """Holm and BH step through the one order family_verdicts sorts once (ties in |T| kept
    in their order): the verdicts each procedure gives alone."""
    rng = np.random.default_rng(5)
    t = np.round(rng.normal(0.0, 4.0, 3000), 1)  # many ties in |T|, of both signs
    testable = rng.random(t.size) < 0.9
    got = multiplicity.family_verdicts(t, testable, 0.05, 0.8, 5000)
    alone = {
        "bonferroni": multiplicity.resolved_single_step(t, 0.05, 0.8, 5000),
        "sidak": multiplicity.resolved_single_step(t, 0.05, 0.8, 5000, "sidak"),
        "holm": multiplicity.resolved_holm(t, 0.05, 0.8, 5000),
        "bh": multiplicity.resolved_bh(t, 0.05, 0.8, 5000),
    }
    for proc, verdicts in alone.items():
        np.testing.assert_array_equal(got[proc], verdicts & testable, err_msg=proc)
    assert 0 < got["holm"].sum() < got["bh"].sum() < testable.sum()
    order = multiplicity.by_statistic(t)
    assert (np.diff(np.abs(t)[order]) <= 0).all()


def test_inflation_figures_of_sections_6_2_and_6_3():
    assert multiplicity.inflation(0.05, 0.8, 45) == pytest.approx(2.144, abs=5e-4)
    assert multiplicity.inflation(0.05, 0.8, 40) == pytest.approx(2.109, abs=5e-4)
    assert multiplicity.inflation(0.05, 0.8, 40, "sidak") == pytest.approx(2.10, abs=5e-3)
    assert multiplicity.inflation(0.05, 0.8, 1) == pytest.approx(1.0)


def test_holm_is_between_bonferroni_and_unadjusted():
    rng = np.random.default_rng(2)
    t = np.abs(rng.normal(2.5, 1.5, 200))
    bonferroni = multiplicity.resolved_single_step(t, 0.05, 0.8, 200)
    holm = multiplicity.resolved_holm(t, 0.05, 0.8)
    fixed = multiplicity.resolved_single_step(t, 0.05, 0.8, 1)
    assert np.all(bonferroni <= holm) and np.all(holm <= fixed)
    assert bonferroni.sum() < holm.sum() or holm.sum() < fixed.sum()


# --- the mixture e-process ------------------------------------------------------------------


@pytest.mark.parametrize(
    "mixture",
    # 1,000 random walks of 1,000 steps: the grid mixture's e-values take ~10 s.
    [pytest.param("grid", marks=pytest.mark.slow), "beta"],
)
def test_e_process_controls_type_one_error(mixture):
    """Ville: under H0 the chance that e_n ever reaches 1/alpha is at most alpha."""
    rng = np.random.default_rng(20261121)
    trials, horizon, alpha = 1000, 1000, 0.05
    crossed = np.zeros(trials, dtype=bool)
    for start in range(0, trials, 100):
        signs = rng.random((100, horizon)) < 0.5
        b = np.cumsum(signs, axis=1)
        c = np.arange(1, horizon + 1) - b
        log_e = sequential.log_e_value(b, c, mixture=mixture)
        crossed[start : start + 100] = (log_e >= np.log(1 / alpha)).any(axis=1)
    rate = crossed.mean()
    assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / trials)
    assert rate > 0  # the test has some power to cross: it is not trivially conservative


@pytest.mark.slow  # 150 random walks of 1,500 steps
def test_e_process_rejects_under_the_alternative():
    rng = np.random.default_rng(3)
    signs = rng.random((150, 1500)) < 0.58
    b = np.cumsum(signs, axis=1)
    log_e = sequential.log_e_value(b, np.arange(1, 1501) - b)
    assert (log_e >= np.log(20)).any(axis=1).mean() > 0.95


def test_boundary_is_where_e_reaches_one_over_alpha():
    n = np.array([50, 364, 3134, 12_032])
    u = sequential.boundary(n, 0.05)
    b = (n + u * np.sqrt(n)) / 2
    np.testing.assert_allclose(sequential.log_e_value(b, n - b), np.log(20), atol=1e-9)
    assert np.all(u > stats.norm.ppf(0.975))  # anytime validity costs a higher bar
    assert np.all(np.diff(u) > 0)  # and the bar rises slowly with n
    assert np.isinf(sequential.boundary(3, 0.05))  # 3 discordant items can never reject


def _bisection_boundary(n, alpha, mixture):
    """The boundary by 64 halvings of [0, n] on the excess: the reference for Newton's."""
    n = np.asarray(n, dtype=float)
    target, low, high = -np.log(alpha), np.zeros_like(n), n.copy()
    reach = sequential.log_e_value(n, 0 * n, mixture=mixture) >= target
    for _ in range(64):
        mid = (low + high) / 2
        above = sequential.log_e_value((n + mid) / 2, (n - mid) / 2, mixture=mixture) >= target
        high, low = np.where(above, mid, high), np.where(above, low, mid)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(reach & (n > 0), high / np.sqrt(n), np.inf)


@pytest.mark.parametrize("mixture", ["grid", "beta"])
@pytest.mark.parametrize("alpha", [0.5, 0.05, 0.01, 1e-6])
def test_newton_boundary_equals_bisection(mixture, alpha):
    n = np.concatenate([np.arange(0, 400), np.unique(np.geomspace(400, 2e6, 300).round())])
    newton = sequential.boundary(n, alpha, mixture=mixture)
    reference = _bisection_boundary(n, alpha, mixture)
    finite = np.isfinite(reference)
    np.testing.assert_array_equal(np.isfinite(newton), finite)
    assert finite.sum() > 600
    # Up to 10^5 discordant items the two roots agree to 1e-12 (the Beta mixture's betaln,
    # of size ~n, rounds a little more). Beyond, log e_n is a difference of terms of size
    # ~n and its rounding (~1e-16 n) moves the root more than that: there both must solve
    # the equation to within that rounding.
    small = finite & (n <= 1e5)
    tolerance = 1e-12 if mixture == "grid" else 3e-11
    np.testing.assert_allclose(newton[small], reference[small], rtol=tolerance, atol=0)
    large = finite & (n > 1e5)
    for u in (newton[large], reference[large]):
        m = n[large]
        b = (m + u * np.sqrt(m)) / 2
        residual = sequential.log_e_value(b, m - b, mixture=mixture) + np.log(alpha)
        assert np.all(np.abs(residual) <= 20 * np.finfo(float).eps * m)


def test_trajectory_at_positions_equals_the_full_trajectory():
    d = np.random.default_rng(2).choice([-1, 0, 1], size=500)
    at = np.array([0, 9, 250, 499])
    np.testing.assert_allclose(
        sequential.log_e_trajectory(d, at=at), sequential.log_e_trajectory(d)[at], rtol=1e-15
    )


def test_beta_mixture_closed_form():
    b, c, a = 7, 3, 2.0
    theta = np.linspace(0, 1, 200_001)
    density = stats.beta.pdf(theta, a, a) * theta**b * (1 - theta) ** c / 0.5 ** (b + c)
    numeric = np.log(np.trapezoid(density, theta))
    assert float(sequential.log_e_value(b, c, mixture="beta", beta_shape=a)) == pytest.approx(
        numeric, rel=1e-6
    )


def test_trajectory_follows_the_discordant_items():
    d = np.array([0, 1, 1, 0, -1, 1])
    traj = sequential.log_e_trajectory(d)
    assert traj[0] == pytest.approx(0.0)  # nothing discordant yet: e = 1
    assert traj[3] == pytest.approx(traj[2])  # a concordant item changes nothing
    assert traj[-1] == pytest.approx(float(sequential.log_e_value(3, 1)))


# --- clusters ------------------------------------------------------------------------------


def test_icc_matches_the_anova_f_oracle():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(12), rng.integers(50, 400, 12))
    d = rng.normal(0, 0.2, 12)[labels] + rng.normal(0, 1, labels.size)
    f = stats.f_oneway(*[d[labels == k] for k in range(12)]).statistic
    n = np.bincount(labels)
    n0 = (labels.size - (n**2).sum() / labels.size) / 11
    assert float(clusters.icc(d, labels)) == pytest.approx((f - 1) / (f + n0 - 1), rel=1e-10)


def test_icc_recovers_a_known_intra_cluster_correlation():
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(200), 50)
    d = rng.normal(0, np.sqrt(0.1), 200)[labels] + rng.normal(0, np.sqrt(0.9), labels.size)
    assert float(clusters.icc(d, labels)) == pytest.approx(0.1, abs=0.02)


def test_weights_reproduce_resampling_and_leave_one_out():
    rng = np.random.default_rng(4)
    labels = np.repeat(np.arange(6), [30, 40, 50, 60, 70, 80])
    d = rng.normal(size=(labels.size, 2)) + rng.normal(size=6)[labels][:, None]
    st_ = clusters.cluster_stats(d, labels)
    loo_icc, loo_mbar = clusters.icc_from_stats(
        st_.sizes, st_.sums, st_.sumsq, clusters.leave_one_out_weights(6)
    )
    keep = labels != 2
    np.testing.assert_allclose(loo_icc[2], clusters.icc(d[keep], labels[keep]), rtol=1e-10)
    assert loo_mbar[2] == pytest.approx(keep.sum() / 5)
    weights = np.array([[2, 0, 1, 0, 3, 0]])
    boot_icc, _ = clusters.icc_from_stats(st_.sizes, st_.sums, st_.sumsq, weights)
    pieces = [(d[labels == k], f"{k}-{r}") for k, w in enumerate(weights[0]) for r in range(w)]
    d_boot = np.concatenate([p for p, _ in pieces])
    l_boot = np.concatenate([[name] * len(p) for p, name in pieces])
    np.testing.assert_allclose(boot_icc[0], clusters.icc(d_boot, l_boot), rtol=1e-10)


def test_design_effect_ignores_negative_icc():
    np.testing.assert_allclose(clusters.design_effect([-0.01, 0.0, 0.01], 101), [1, 1, 2])


def test_resolution_threshold_takes_the_quantile_from_the_tail():
    """A family of 1e15 pairs: alpha/m = 5e-17, where 1 - alpha/2 rounds to 1 (z = inf)."""
    from scipy.stats import norm

    from evalgap.stats import multiplicity

    level = 0.05 / 1e15
    expected = norm.isf(level / 2) + norm.ppf(0.8)
    assert multiplicity.resolution_threshold(level, 0.8) == pytest.approx(expected, rel=1e-12)
    assert np.isfinite(multiplicity.inflation(0.05, 0.8, 10**15))
