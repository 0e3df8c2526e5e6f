"""Bradley-Terry from the (K, K) count matrices: warm-started fits equal the fit from zero,
the count bootstrap is the battle bootstrap in law, and its rank sets still cover."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.errors import InputError
from evalgap.stats import bradley_terry as bt
from evalgap.stats import ranks as rk


def _arena(k: int, n: int, seed: int, spread: float = 0.6):
    rng = np.random.default_rng(seed)
    strength = np.linspace(spread, -spread, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    tie = rng.random(n) < 0.1
    y = np.where(tie, 0.5, (rng.random(n) < p).astype(float))
    return a, b, y, strength - strength.mean()


def test_the_count_matrices_hold_the_battles():
    a, b, y, _ = _arena(7, 3000, seed=1)
    data = bt.battles(a, b, y, 7)
    wins = np.zeros((7, 7), dtype=np.int64)
    ties = np.zeros((7, 7), dtype=np.int64)
    np.add.at(wins, (a[y == 1], b[y == 1]), 1)
    np.add.at(wins, (b[y == 0], a[y == 0]), 1)
    np.add.at(ties, (np.minimum(a, b)[y == 0.5], np.maximum(a, b)[y == 0.5]), 1)
    counted = bt.from_counts(wins, ties)
    for name in ("first", "second", "outcome", "count"):
        np.testing.assert_array_equal(getattr(counted, name), getattr(data, name))
    symmetric = bt.from_counts(wins, ties + ties.T)  # a symmetric tie matrix: the same
    np.testing.assert_array_equal(symmetric.count, data.count)
    with pytest.raises(InputError, match="each pair once"):
        bt.from_counts(wins, ties + 2 * ties.T)
    with pytest.raises(InputError, match="square"):
        bt.from_counts(wins[:, :3])


def test_a_warm_start_reaches_the_same_maximum():
    a, b, y, _ = _arena(12, 5000, seed=2)
    data = bt.battles(a, b, y, 12)
    cold = bt.fit(data)
    warm = bt.fit(data, start=cold.scores + np.linspace(-0.3, 0.3, 12))
    np.testing.assert_allclose(warm.scores, cold.scores, atol=1e-10)
    np.testing.assert_allclose(warm.robust_covariance, cold.robust_covariance, atol=1e-10)
    np.testing.assert_allclose(bt.fit_scores(data, start=cold.scores), cold.scores, atol=1e-10)
    np.testing.assert_allclose(bt.fit_scores(data), cold.scores, atol=1e-10)
    assert bt.fit(data, start=cold.scores).iterations <= 2
    with pytest.raises(InputError, match="start must hold 12 finite scores"):
        bt.fit(data, start=np.zeros(3))


@pytest.mark.parametrize("count", [[3, 5, 2, 0, 1], [40, 1, 2]])  # index draws; multinomial
def test_the_counts_are_multinomial(count):
    """Drawing the battles' indices (few battles per cell) or NumPy's multinomial (many):
    mean n p, covariance n (diag(p) - p p'), within Monte Carlo error."""
    count = np.array(count, dtype=np.int64)
    n, p = count.sum(), count / count.sum()
    rng = np.random.default_rng(0)
    draws = bt._multinomial_counts(rng, count, 20_000).T
    assert (draws.sum(axis=1) == n).all()
    expected = n * (np.diag(p) - np.outer(p, p))
    np.testing.assert_allclose(draws.mean(axis=0), n * p, atol=4 * np.sqrt(n / 20_000))
    np.testing.assert_allclose(np.cov(draws.T), expected, atol=0.06 * n)


def test_the_count_bootstrap_is_the_battle_bootstrap_in_law():
    """Replicate scores from the count matrices vs resampling the battles and refitting each:
    the same mean and SD per model within Monte Carlo error (1,000 replicates each)."""
    a, b, y, _ = _arena(5, 600, seed=3)
    data = bt.battles(a, b, y, 5)
    fitted = bt.fit(data)
    fast = bt.bootstrap(data, 1000, seed=4, start=fitted.scores)
    rng = np.random.default_rng(5)
    slow = np.empty_like(fast)
    for r in range(slow.shape[0]):
        pick = rng.integers(0, a.size, a.size)
        slow[r] = bt.fit_scores(bt.battles(a[pick], b[pick], y[pick], 5), start=fitted.scores)
    assert not np.isnan(fast).any()
    sd = slow.std(axis=0)
    assert (np.abs(fast.mean(axis=0) - slow.mean(axis=0)) <= 4 * sd * np.sqrt(2 / 1000)).all()
    np.testing.assert_allclose(fast.std(axis=0) / sd, 1.0, atol=4 * np.sqrt(2 / 2000))
    np.testing.assert_allclose(fast.std(axis=0), np.sqrt(np.diag(fitted.robust_covariance)),
                               rtol=0.15)  # fmt: skip


def _coverage(runs: int, strength: np.ndarray, n: int, replicates: int) -> float:
    """Share of simulated arenas (10% ties) whose simultaneous rank sets, built as ``ranks
    --battles`` builds them, show no model better than one at least as strong: every set
    holds the model's true ranks (all the ranks of a group of equal models)."""
    k, covered = strength.size, 0
    for run in range(runs):
        rng = np.random.default_rng(1000 + run)
        a = rng.integers(0, k, n)
        b = (a + rng.integers(1, k, n)) % k
        p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
        y = np.where(rng.random(n) < 0.1, 0.5, (rng.random(n) < p).astype(float))
        data = bt.battles(a, b, y, k)
        fitted = bt.fit(data)
        draws = bt.bootstrap(data, replicates, seed=run, start=fitted.scores)
        draws = draws[~np.isnan(draws).any(axis=1)]
        sets = rk.rank_sets_from_draws(fitted.scores, fitted.robust_covariance, draws)
        wrong = np.asarray(sets.shown_better) & (strength[:, None] <= strength[None, :])
        covered += not wrong.any()
    return covered / runs


def test_rank_sets_from_the_count_bootstrap_cover():
    runs = 200
    share = _coverage(runs, np.array([0.3, 0, 0, 0, 0, -0.3]), n=1500, replicates=200)
    assert share >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / runs), share


@pytest.mark.slow
def test_rank_sets_from_the_count_bootstrap_cover_when_every_model_is_equal():
    """The least favourable arena: every pair's difference 0, so any claim is false."""
    runs = 1000
    share = _coverage(runs, np.zeros(8), n=8000, replicates=400)
    assert share >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / runs), share


def test_the_style_sandwich_by_prompt_equals_statsmodels_cluster_covariance():
    """The clustered meat is summed through a sparse (prompts, models) matrix, not a dense
    (battles, models) one; the covariance is statsmodels' cluster-robust one."""
    sm = pytest.importorskip("statsmodels.api")
    a, b, y, _ = _arena(6, 3000, seed=6)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(a.size, 2))
    prompt = rng.integers(0, 400, a.size)
    fit = bt.fit_style(a, b, y, x, 6, cluster=prompt)
    design = np.zeros((y.size, 6))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, np.column_stack([design[:, :-1], x]), family=sm.families.Binomial())
    res = glm.fit(
        tol=1e-14, cov_type="cluster", cov_kwds={"groups": prompt, "use_correction": False}
    )
    embed = np.zeros((8, 8))
    free = np.r_[0:5, 6:8]
    embed[np.ix_(free, free)] = res.cov_params()
    centring = np.eye(8)
    centring[:6, :6] -= 1 / 6
    expected = centring @ embed @ centring.T
    np.testing.assert_allclose(fit.robust_covariance, expected, rtol=1e-6, atol=1e-12)
