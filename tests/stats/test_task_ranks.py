"""Rank sets over tasks: the within-task multiplier draws have the law they should, the
two-way sets contain the items-only sets' information and widen where tasks disagree."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.errors import InputError
from evalgap.stats import task_ranks


def test_factored_draws_have_the_multiplier_law():
    """B x K normals times a square root of X_c'X_c/n^2 against W X_c / n drawn directly:
    the same covariance (to Monte Carlo error; 40,000 draws give about 1% relative SE)."""
    rng = np.random.default_rng(0)
    x = (rng.random((400, 4)) < [0.7, 0.6, 0.6, 0.4]).astype(float)
    x[:, 2] = x[:, 1]  # a perfectly correlated pair: a singular covariance stays exact
    factored = task_ranks._within_draws(x, 40_000, np.random.default_rng(1))
    centred = x - x.mean(axis=0)
    expected = centred.T @ centred / 400**2  # entries about 6e-4; MC error about 5e-6
    np.testing.assert_allclose(np.cov(factored, rowvar=False), expected, atol=2.5e-5)
    np.testing.assert_allclose(factored[:, 1], factored[:, 2])


def test_missing_scores_take_the_direct_draw_with_each_models_own_count():
    rng = np.random.default_rng(2)
    x = (rng.random((300, 3)) < 0.6).astype(float)
    x[:100, 0] = np.nan
    draws = task_ranks._within_draws(x, 30_000, np.random.default_rng(3))
    own = x[~np.isnan(x[:, 0]), 0]
    expected = own.var() / own.size  # the variance of model 0's mean over its 200 items
    assert draws[:, 0].var() == pytest.approx(expected, rel=0.05)


def test_two_way_sets_widen_where_tasks_disagree():
    rng = np.random.default_rng(4)
    mu = np.array([0.62, 0.60, 0.58, 0.56])
    agree = [(rng.random((800, 4)) < mu).astype(float) for _ in range(8)]
    disagree = [
        (rng.random((800, 4)) < np.clip(mu + rng.normal(0, 0.08, 4), 0, 1)).astype(float)
        for _ in range(8)
    ]
    calm = task_ranks.task_rank_sets(agree, n_bootstrap=500, seed=1)
    wild = task_ranks.task_rank_sets(disagree, n_bootstrap=500, seed=1)
    assert calm.widening() < wild.widening()
    assert (wild.se_two_way > 2 * wild.se_items_only).all()
    # the scores are the means of the task means, whatever the bootstrap
    np.testing.assert_allclose(wild.score, np.mean([t.mean(axis=0) for t in disagree], axis=0))


def test_refuses_one_task_and_ragged_models():
    x = np.ones((10, 3))
    with pytest.raises(InputError, match="at least 2 tasks"):
        task_ranks.task_rank_sets([x])
    with pytest.raises(InputError, match="same models"):
        task_ranks.task_rank_sets([x, np.ones((10, 2))])
