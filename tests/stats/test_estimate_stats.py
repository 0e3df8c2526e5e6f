"""The 2PL estimate of a model's score from few items: the posterior mode against scipy's
optimizer, the predicted score by hand, the most informative items, the conformal quantile;
the design-based control-variate estimate against its closed forms and in simulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.special import expit

from evalgap.errors import InputError
from evalgap.stats import estimate


def test_posterior_mode_equals_scipys_optimizer():
    rng = np.random.default_rng(0)
    a, c = rng.uniform(0.5, 2.0, 60), rng.normal(0, 1, 60)
    y = (rng.random((3, 60)) < expit(np.array([[-1.0], [0.2], [1.5]]) * a + c)).astype(float)
    y[0, ::3] = np.nan
    y[2, 1] = 0.5  # a graded score counts as half a success
    theta, sd = estimate.ability_map(y, a, c, prior_sd=1.3)
    for k in range(3):
        seen = ~np.isnan(y[k])

        def minus_log_posterior(t, k=k, seen=seen):
            p = expit(t * a[seen] + c[seen])
            yk = y[k, seen]
            return -(yk @ np.log(p) + (1 - yk) @ np.log1p(-p) - t * t / (2 * 1.3**2))

        found = optimize.minimize_scalar(minus_log_posterior, bounds=(-8, 8), method="bounded",
                                         options={"xatol": 1e-10})  # fmt: skip
        assert theta[k] == pytest.approx(found.x, abs=1e-6)
        p = expit(theta[k] * a[seen] + c[seen])
        assert sd[k] == pytest.approx(1 / np.sqrt((a[seen] ** 2 * p * (1 - p)).sum() + 1 / 1.3**2))


def test_predicted_score_uses_answers_where_there_are_some():
    a, c = np.array([1.0, 2.0, 0.5]), np.array([0.0, -1.0, 1.0])
    y = np.array([[1.0, np.nan, 0.0]])
    expected = (1.0 + expit(2.0 * 0.3 - 1.0) + 0.0) / 3
    assert estimate.predicted_score(y, [0.3], a, c)[0] == pytest.approx(expected)


def test_next_items_are_the_most_informative_and_a_pool_keeps_choice_random():
    rng = np.random.default_rng(1)
    a, c = rng.uniform(0.3, 2.5, 500), rng.normal(0, 2, 500)
    free = np.ones(500, dtype=bool)
    free[:50] = False
    best = estimate.next_items(0.4, a, c, free, 10)
    gain = estimate.information(0.4, a, c)[0]
    order = np.argsort(-np.where(free, gain, -1.0))
    assert best.tolist() == order[:10].tolist()
    drawn = estimate.next_items(0.4, a, c, free, 10, pool=3, seed=2)
    assert set(drawn) <= set(order[:30].tolist()) and len(set(drawn)) == 10
    assert not (set(drawn) & set(range(50)))


def test_conformal_half_width_and_its_refusals():
    errors = np.r_[-np.arange(1, 20), np.arange(1, 20)] / 100  # 38 cases
    assert estimate.conformal_half_width(errors, 0.05) == pytest.approx(0.19)
    assert estimate.conformal_half_width(errors[:10], 0.05) == np.inf  # too few for 95%
    with pytest.raises(InputError, match="one column per item"):
        estimate.ability_map([[1, 0]], [1.0], [0.0])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        estimate.ability_map([[2.0]], [1.0], [0.0])


@pytest.mark.parametrize("seed", [7, 109, 110, 136, 152])
def test_posterior_mode_is_found_where_newton_alone_overshoots(seed):
    """Boards where a plain Newton step from 0 overshot to abilities of -71 to 109 (seen on
    MMLU-Pro items chosen for information): the halved steps keep to the mode scipy finds."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    a, c = rng.uniform(0.5, 4, n), rng.normal(rng.uniform(-6, 6), 3, n)
    y = (rng.random(n) < expit(rng.normal(0, 2) * a + c)).astype(float)[None, :]
    theta, _ = estimate.ability_map(y, a, c)

    def minus_log_posterior(t):
        z = t * a + c
        return -(y[0] @ -np.logaddexp(0, -z) + (1 - y[0]) @ -np.logaddexp(0, z) - t * t / 2)

    found = optimize.minimize_scalar(minus_log_posterior, bounds=(-30, 30), method="bounded",
                                     options={"xatol": 1e-10})  # fmt: skip
    assert theta[0] == pytest.approx(found.x, abs=1e-5)


def test_items_no_model_was_scored_on_change_nothing():
    # they are left out of the sums: the mode and SD equal those of the scored items alone
    rng = np.random.default_rng(5)
    a, c = rng.uniform(0.5, 2.0, 500), rng.normal(0, 1, 500)
    y = np.full((2, 500), np.nan)
    y[:, :40] = rng.random((2, 40)) < expit(0.4 * a[:40] + c[:40])
    y[1, 40] = 1.0  # scored by one model only: still in the sums
    theta, sd = estimate.ability_map(y, a, c)
    alone, alone_sd = estimate.ability_map(y[:, :41], a[:41], c[:41])
    np.testing.assert_allclose(theta, alone, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sd, alone_sd, rtol=0, atol=1e-12)


# --- the design-based estimate: the sampled items' mean with predictions as control variate


def test_control_variate_equals_its_closed_form_on_a_tiny_example():
    p = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1])
    r = estimate.control_variate([1.0, 1.0, 0.0, 0.0], p, [0, 1, 7, 8], coefficient=1.0)
    # e = y - p = (0.1, 0.2, -0.2, -0.1): mean 0, S_e^2 = 0.1 / 3; n = 4 of N = 10
    assert r.score == pytest.approx(0.46) and r.plain_score == 0.5
    assert r.se == pytest.approx(np.sqrt((1 - 4 / 10) * (0.1 / 3) / 4))
    assert r.plain_se == pytest.approx(np.sqrt((1 - 4 / 10) * (1 / 3) / 4))
    assert r.df == 3 and r.ci.method == "design_t"
    t = 3.182446305284263  # scipy.stats.t.ppf(0.975, 3)
    assert (r.ci.low, r.ci.high) == pytest.approx((0.46 - t * r.se, 0.46 + t * r.se))
    # tuned: lambda = s_yp / s_p^2 = (0.35 / 3) / (0.5 / 3) = 0.7 ... clipped to [0, 1]
    tuned = estimate.control_variate([1.0, 1.0, 0.0, 0.0], p, [0, 1, 7, 8])
    ys, ps = np.array([1.0, 1.0, 0.0, 0.0]), p[[0, 1, 7, 8]]
    lam = min(np.cov(ys, ps)[0, 1] / ps.var(ddof=1), 1.0)
    assert tuned.coefficient == pytest.approx(lam)
    assert tuned.score == pytest.approx(0.5 + lam * (p.mean() - ps.mean()))
    residual = np.var(ys - lam * ps, ddof=1) * 3 / 2  # one degree of freedom spent on lambda
    assert tuned.se == pytest.approx(np.sqrt(0.6 * residual / 4)) and tuned.df == 2


def test_stratified_control_variate_equals_its_closed_form():
    rng = np.random.default_rng(1)
    labels = np.repeat([0, 1], [60, 40])
    p = rng.random(100)
    at = np.r_[rng.choice(60, 6, replace=False), 60 + rng.choice(40, 8, replace=False)]
    y = (rng.random(14) < p[at]).astype(float)
    r = estimate.control_variate(y, p, at, strata=labels, coefficient=0.5)
    expected, variance = 0.0, 0.0
    for h, (size, n) in enumerate([(60, 6), (40, 8)]):
        mine = labels[at] == h
        e = y[mine] - 0.5 * p[at][mine]
        expected += size / 100 * (0.5 * p[labels == h].mean() + e.mean())
        variance += (size / 100) ** 2 * (1 - n / size) * e.var(ddof=1) / n
    assert r.score == pytest.approx(expected) and r.se == pytest.approx(np.sqrt(variance))
    assert r.df == 14 - 2
    # the same items as design weights N_h / n_h: the same point estimate (Hajek = HT here)
    w = np.where(labels[at] == 0, 60 / 6, 40 / 8)
    assert estimate.control_variate(y, p, at, weights=w, coefficient=0.5).score == (
        pytest.approx(expected)
    )


def test_a_coefficient_of_zero_is_the_plain_mean_exactly():
    rng = np.random.default_rng(2)
    p = rng.random(300)
    at = rng.choice(300, 30, replace=False)
    y = rng.random(30)
    r = estimate.control_variate(y, p, at, coefficient=0.0)
    assert r.score == r.plain_score == np.mean(y)
    assert r.se == r.plain_se and r.ci == r.plain_ci
    se = y.std(ddof=1) * np.sqrt(1 - 30 / 300) / np.sqrt(30)
    assert r.se == pytest.approx(se, rel=1e-12)


def test_a_bad_prediction_costs_no_bias_and_the_interval_covers():
    # predictions that point the wrong way (anti-correlated) and pure noise: the tuned
    # estimate stays unbiased (within Monte Carlo error) and its intervals cover ~95%
    rng = np.random.default_rng(3)
    size, n, draws = 600, 60, 4000
    truth_p = rng.beta(2, 2, size)
    y_all = (rng.random(size) < truth_p).astype(float)
    for p in (1 - truth_p, rng.random(size)):
        found = []
        for _ in range(draws):
            at = rng.choice(size, n, replace=False)
            r = estimate.control_variate(y_all[at], p, at)
            found.append((r.score, r.ci.low <= y_all.mean() <= r.ci.high, r.se / r.plain_se))
        score, covered, ratio = np.array(found).T
        assert abs(score.mean() - y_all.mean()) < 3 * score.std() / np.sqrt(draws)
        assert abs(covered.mean() - 0.95) < 3 * np.sqrt(0.95 * 0.05 / draws)
        assert np.median(ratio) < 1.02  # a useless control costs almost nothing


def test_a_good_prediction_narrows_the_interval_and_stays_unbiased():
    rng = np.random.default_rng(4)
    size, n, draws = 800, 50, 3000
    p = rng.beta(1, 1, size)
    y_all = (rng.random(size) < p).astype(float)
    found = []
    for _ in range(draws):
        at = rng.choice(size, n, replace=False)
        r = estimate.control_variate(y_all[at], p, at)
        found.append((r.score, r.plain_score, r.ci.low <= y_all.mean() <= r.ci.high))
    score, plain, covered = np.array(found).T
    assert abs(score.mean() - y_all.mean()) < 3 * score.std() / np.sqrt(draws)
    # Var(y - p) / Var(y) = E[p (1 - p)] / (1/4) = 2/3 for p ~ U(0, 1): errors ~0.82x
    ratio = np.abs(score - y_all.mean()).mean() / np.abs(plain - y_all.mean()).mean()
    assert 0.75 < ratio < 0.88
    assert abs(covered.mean() - 0.95) < 3 * np.sqrt(0.95 * 0.05 / draws)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shift=st.floats(-2, 2),
    n=st.integers(3, 40),
)
def test_the_estimate_ignores_a_constant_shift_of_the_predictions(seed, shift, n):
    rng = np.random.default_rng(seed)
    p = rng.random(50)
    at = rng.choice(50, n, replace=False)
    y = rng.random(n)
    r = estimate.control_variate(y, p, at, coefficient=0.7)
    moved = estimate.control_variate(y, p + shift, at, coefficient=0.7)
    assert moved.score == pytest.approx(r.score, abs=1e-12)
    assert moved.se == pytest.approx(r.se, abs=1e-12)
    assert 0.0 <= estimate.control_variate(y, p, at).coefficient <= 1.0


def test_bad_designs_are_one_line_errors():
    p = np.linspace(0.1, 0.9, 10)
    with pytest.raises(InputError, match="at least 2 sampled items"):
        estimate.control_variate([1.0, 0.0, 1.0], p, [0, 1, 9], strata=np.repeat([0, 1], 5))
    with pytest.raises(InputError, match="strata or weights"):
        estimate.control_variate([1.0, 0.0], p, [0, 1], strata=np.zeros(10), weights=[1, 1])
    with pytest.raises(InputError, match=r"\[0, 1\]") as info:
        estimate.control_variate([1.0, 0.0], p, [0, 1], coefficient=1.5)
    assert info.value.param == "coefficient"
    with pytest.raises(InputError, match="distinct items"):
        estimate.control_variate([1.0, 0.0], p, [0, 0])


def test_draw_probabilities_follow_the_sd_with_a_uniform_share_and_add_up():
    rng = np.random.default_rng(11)
    a, c = rng.uniform(0.5, 2.0, 200), rng.normal(0, 2.0, 200)
    pi = estimate.draw_probabilities(0.4, a, c, 30, uniform_share=0.25)
    sd = np.sqrt(expit(0.4 * a + c) * (1 - expit(0.4 * a + c)))
    assert pi.sum() == pytest.approx(30)
    assert pi == pytest.approx(30 * (0.75 * sd / sd.sum() + 0.25 / 200))
    assert pi.min() >= 30 * 0.25 / 200  # the uniform share: no item is out of reach
    # a batch larger than the uncapped probabilities allow: capped at 1, still adding up
    capped = estimate.draw_probabilities(0.4, a, c, 150, uniform_share=0.05)
    assert capped.max() == 1.0 and capped.sum() == pytest.approx(150)
    with pytest.raises(InputError, match="uniform_share"):
        estimate.draw_probabilities(0.4, a, c, 30, uniform_share=0.0)


def test_systematic_draws_include_each_item_with_its_probability():
    rng = np.random.default_rng(2)
    pi = estimate.draw_probabilities(0.0, rng.uniform(0.5, 2, 40), rng.normal(0, 2, 40), 8)
    counts = np.zeros(40)
    for seed in range(6000):
        drawn = estimate.draw_items(pi, seed=seed)
        assert drawn.size == 8 and np.unique(drawn).size == 8
        counts[drawn] += 1
    se = np.sqrt(pi * (1 - pi) / 6000)
    assert np.all(np.abs(counts / 6000 - pi) <= 4.5 * se + 1e-9)
    # a uniform draw's weights are 1; a weight is n / (N pi)
    assert estimate.batch_weights(np.full(10, 0.3), [1, 4, 7]) == pytest.approx([1.0, 1.0, 1.0])
    assert estimate.batch_weights(pi, [0])[0] == pytest.approx(8 / (40 * pi[0]))


def test_strata_of_the_sampled_items_with_their_sizes_equal_every_items_labels():
    rng = np.random.default_rng(5)
    labels = np.repeat(["a", "b", "c"], [50, 30, 20])
    p = rng.uniform(0.1, 0.9, 100)
    at = np.sort(np.concatenate([rng.choice(np.flatnonzero(labels == h), 6, replace=False)
                                 for h in "abc"]))  # fmt: skip
    y = (rng.random(at.size) < p[at]).astype(float)
    full = estimate.control_variate(y, p, at, strata=labels)
    sizes = np.array([50, 30, 20])[np.searchsorted(["a", "b", "c"], labels[at])]
    given = estimate.control_variate(y, p, at, strata=labels[at], stratum_sizes=sizes)
    assert given.score == pytest.approx(full.score) and given.se == pytest.approx(full.se)
    with pytest.raises(InputError, match="stratum_sizes"):
        estimate.control_variate(y, p, at, strata=labels[at], stratum_sizes=sizes * 2)
