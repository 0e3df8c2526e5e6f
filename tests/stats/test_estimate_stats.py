"""The 2PL estimate of a model's score from few items: the posterior mode against scipy's
optimizer, the predicted score by hand, the most informative items, the conformal quantile."""

from __future__ import annotations

import numpy as np
import pytest
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
