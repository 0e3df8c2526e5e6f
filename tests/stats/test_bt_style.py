"""Style-controlled Bradley-Terry: the scores and coefficients equal a statsmodels logistic
regression with the same covariates, and recover known coefficients on a large arena."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.stats import bradley_terry as bt


def _styled_arena(n_models, n_battles, beta, seed, ties=0.0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    x = np.column_stack([rng.normal(0, 1, n_battles), rng.integers(-3, 4, n_battles) / 3])
    z = strength[a] - strength[b] + x @ np.asarray(beta)
    y = (rng.random(n_battles) < 1 / (1 + np.exp(-z))).astype(float)
    y[rng.random(n_battles) < ties] = 0.5
    return a, b, y, x, strength


def test_style_fit_equals_a_logistic_regression_with_the_covariates():
    sm = pytest.importorskip("statsmodels.api")
    a, b, y, x, _ = _styled_arena(12, 20_000, (0.6, -0.3), seed=1, ties=0.1)
    fit = bt.fit_style(a, b, y, x)
    k = 12
    design = np.zeros((y.size, k))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, np.column_stack([design[:, :-1], x]), family=sm.families.Binomial())
    res = glm.fit(tol=1e-14)
    scores = np.concatenate([res.params[: k - 1], [0.0]])
    np.testing.assert_allclose(fit.scores, scores - scores.mean(), atol=1e-8)
    np.testing.assert_allclose(fit.coefficients, res.params[k - 1 :], atol=1e-8)
    # the coefficients' covariances are statsmodels' (model-based and sandwich)
    np.testing.assert_allclose(fit.covariance[k:, k:], res.cov_params()[k - 1 :, k - 1 :],
                               rtol=1e-6)  # fmt: skip
    robust = glm.fit(tol=1e-14, cov_type="HC0").cov_params()[k - 1 :, k - 1 :]
    np.testing.assert_allclose(fit.robust_covariance[k:, k:], robust, rtol=1e-6)
    # a covariate 0 in every battle has nothing to estimate: refused, not a singular matrix
    from evalgap.errors import InputError

    with pytest.raises(InputError, match="covariate 2 is 0 in every battle"):
        bt.fit_style(a, b, y, np.column_stack([x[:, 0], np.zeros(y.size)]))


def test_style_fit_recovers_known_coefficients_on_a_large_arena():
    a, b, y, x, strength = _styled_arena(50, 200_000, (0.5, 0.25), seed=2)
    fit = bt.fit_style(a, b, y, x)
    se = np.sqrt(np.diag(fit.covariance))[50:]
    assert np.all(np.abs(fit.coefficients - (0.5, 0.25)) < 4 * se)
    assert np.corrcoef(fit.scores, strength)[0, 1] > 0.995
    assert se.max() < 0.02
