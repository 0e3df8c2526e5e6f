"""The rank sets' max-t stepdown (stats.ranks._max_t) against Algorithm 3.1 written out over
explicit lists of hypotheses: the same rejections, critical value and steps, exactly, given
the same bootstrap draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.errors import InputError
from evalgap.stats import ranks as rk


def _reference(gap, variance, deviations, alpha=0.05, order_statistic=False):
    """Algorithm 3.1 of Mogstad, Romano, Shaikh and Wilhelm (2024), as the authors' csranks:
    every hypothesis listed with its t and its replicates' float32 statistics, the maximum
    over those standing taken in full at each step.

    Simultaneous: ``H_jo`` for every ordered pair, statistic ``(d_j - d_o) / se``, scaled by
    the inverse standard error of the pair's orientation with t >= 0 (the first model of the
    pair on a tie); only that orientation can be rejected (``t > c``, ``c >= 0``), the
    stepdown ends when none is rejected or none of them stands. Marginal, model j: ``H_jo``
    and ``H_oj`` for every other o, scaled by ``inverse_se[j, o]``. ``c`` is the interpolated
    (1 - alpha) quantile of the maxima, or with ``order_statistic`` their
    ``ceil((B + 1)(1 - alpha))``-th smallest.
    """
    k = gap.shape[0]
    usable = np.isfinite(gap) & (variance > 0)
    inverse_se = np.zeros((k, k))
    inverse_se[usable] = 1 / np.sqrt(variance[usable])
    t = np.where(usable, gap * inverse_se, 0.0)
    exact = np.isfinite(gap) & (variance == 0) & (gap != 0)
    t[exact] = np.copysign(np.inf, gap[exact])
    np.fill_diagonal(t, 0.0)
    d = np.asarray(deviations, dtype=np.float32)

    def difference(j, o):
        return d[:, j] - d[:, o] if d.ndim == 2 else d[:, j, o]

    def stepdown(hypotheses):
        """hypotheses: (t, statistics (B,), rejectable); returns rejected indices, c, steps."""
        standing = set(range(len(hypotheses)))
        rejected, critical, steps = set(), np.inf, 0
        while any(hypotheses[h][2] for h in standing):
            steps += 1
            stats = np.stack([hypotheses[h][1] for h in sorted(standing)], axis=1)
            maxima = stats.max(axis=1).astype(float)
            if order_statistic:
                rank = int(np.ceil((maxima.size + 1) * (1 - alpha) - 1e-9))
                critical = max(float(np.sort(maxima)[min(rank, maxima.size) - 1]), 0.0)
            else:
                critical = max(float(np.quantile(maxima, 1 - alpha)), 0.0)
            new = {h for h in standing if hypotheses[h][2] and hypotheses[h][0] > critical}
            if not new:
                break
            rejected |= new
            standing -= new
        return rejected, critical, steps

    listed, pairs = [], []
    for j in range(k):
        for o in range(j + 1, k):
            ahead, behind = (j, o) if t[j, o] >= 0 else (o, j)
            scale = np.float32(inverse_se[ahead, behind])
            statistic = difference(ahead, behind) * scale
            listed += [(t[ahead, behind], statistic, True), (-t[ahead, behind], -statistic, False)]
            pairs += [(ahead, behind), (behind, ahead)]
    rejected, critical, steps = stepdown(listed)
    better = np.zeros((k, k), dtype=bool)
    for h in rejected:
        better[pairs[h]] = True
    ahead_of = np.zeros((k, k), dtype=bool)
    behind_of = np.zeros((k, k), dtype=bool)
    for j in range(k):
        own, whom = [], []
        for o in range(k):
            if o == j:
                continue
            scale = np.float32(inverse_se[j, o])
            statistic = difference(j, o) * scale
            positive = t[j, o] >= 0
            own += [(abs(t[j, o]), statistic if positive else -statistic, True),
                    (-abs(t[j, o]), -statistic if positive else statistic, False)]  # fmt: skip
            whom += [(o, positive), (o, positive)]
        for h in stepdown(own)[0]:
            o, positive = whom[h]
            (ahead_of if positive else behind_of)[j, o] = True
    return better, (ahead_of, behind_of), critical, steps


def _check(gap, variance, deviations, alpha=0.05):
    expected = _reference(gap, variance, deviations, alpha)
    got = rk._max_t(gap, variance, lambda: [deviations], alpha)
    assert (got[0] == expected[0]).all()
    assert (got[1][0] == expected[1][0]).all() and (got[1][1] == expected[1][1]).all()
    assert got[2] == expected[2] and got[3] == expected[3]
    alone = rk._max_t(gap, variance, lambda: [deviations], alpha, marginal=False)
    assert (alone[0] == expected[0]).all() and alone[1] is None
    assert alone[2] == expected[2] and alone[3] == expected[3]
    return expected


def _board(x, clusters=None, n_bootstrap=300, seed=0):
    """gap, variance and the multiplier draws (B, K) of a board without missing scores."""
    mean, n, cov = rk.mean_covariance(x, clusters)
    gap, variance, _ = rk.pair_gaps(x, clusters, mean=mean, covariance=cov)
    draws = rk._multiplier_draws(x, mean, n, clusters, n_bootstrap, seed, cov)
    return gap, variance, np.concatenate(list(draws))


def test_equal_to_the_listed_hypotheses_on_boards_with_ties_clusters_and_graded_scores():
    rng = np.random.default_rng(0)
    boards = []
    # binary scores on few items: many models share a mean (pairs with t = 0)
    for k, items in [(5, 300), (12, 200), (25, 400)]:
        p = np.sort(rng.uniform(0.2, 0.9, k))
        x = (rng.random((items, k)) < p).astype(float)
        x[:, 1::4] = rng.permuted(x[:, ::4][:, : x[:, 1::4].shape[1]], axis=0)  # equal means
        boards.append((x, None))
    # a duplicate model (se 0, gap 0) and a model right on every item (variance 0)
    x = (rng.random((500, 6)) < 0.6).astype(float)
    x[:, 3], x[:, 5] = x[:, 1], 1.0
    boards.append((x, None))
    boards.append(((rng.random((600, 15)) < np.linspace(0.3, 0.8, 15)).astype(float),
                   np.repeat(np.arange(60), 10)))  # fmt: skip
    boards.append((rng.beta(2, 2, (800, 20)) + np.linspace(0, 0.08, 20), None))
    rejected = ties = 0
    for x, clusters in boards:
        gap, variance, draws = _board(x, clusters)
        better, _, critical, steps = _check(gap, variance, draws)
        rejected += better.sum()
        ties += int((np.triu(gap == 0, 1)).sum())
        assert np.isfinite(critical) and steps >= 1
    assert rejected > 100 and ties > 5  # the boards order pairs and hold ties


def test_equal_on_an_asymmetric_covariance_and_on_pair_deviations():
    """A covariance whose two triangles differ (as a user's may) takes the general path: the
    pair's own scale for the simultaneous family, each row's for the marginal ones. Missing
    scores give (B, K, K) blocks."""
    rng = np.random.default_rng(1)
    k = 12
    a = rng.normal(size=(k, k))
    cov = a @ a.T / k * 0.01
    skewed = cov.copy()
    skewed[np.triu_indices(k, 1)] *= 1.02
    estimate = np.linspace(0.6, -0.6, k)
    estimate[4] = estimate[3]
    diagonal = np.diag(cov)
    variance = diagonal[:, None] + diagonal[None, :] - 2 * skewed
    assert not np.array_equal(variance, variance.T)
    draws = rng.multivariate_normal(np.zeros(k), cov, 600)
    gap = estimate[:, None] - estimate[None, :]
    assert _check(gap, variance, draws)[0].any()
    x = (rng.random((700, 8)) < np.linspace(0.35, 0.8, 8)).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    mean, _, cov = rk.mean_covariance(x)
    gap, variance, shared = rk.pair_gaps(x, mean=mean, covariance=cov)
    blocks = np.concatenate(list(rk._pair_draws(x, mean, gap, shared, None, 300, 3, "multiplier")))
    assert _check(gap, variance, blocks)[0].any()


def test_every_pair_rejected_and_none_rejected():
    """Far-apart models: every rejectable hypothesis leaves and the stepdown stops with the
    last critical value it computed; equal models: one step, nothing rejected."""
    rng = np.random.default_rng(2)
    far = (rng.random((3000, 4)) < [0.9, 0.6, 0.3, 0.05]).astype(float)
    better, _, _, steps = _check(*_board(far))
    assert better.sum() == 6 and steps >= 1
    tied = (rng.random((3000, 5)) < 0.5).astype(float)
    better, marginal, _, steps = _check(*_board(tied))
    assert not better.any() and not marginal[0].any() and steps == 1


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 7),
    st.integers(20, 120),
    st.integers(0, 10**6),
    st.sampled_from([0.05, 0.2]),
)
def test_equal_to_the_listed_hypotheses_on_random_boards(k, items, seed, alpha):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, k)
    x = (rng.random((items, k)) < p).astype(float)
    x[:2] = [[0.0] * k, [1.0] * k]  # every model has some variance
    _check(*_board(x, n_bootstrap=200, seed=seed), alpha=alpha)


def test_tiles_and_redrawn_blocks_give_the_same_sets(monkeypatch):
    """Small tiles, a few replicates per tile shared among threads, and pair deviations
    too large to keep (drawn again for each later step): the same sets as the defaults."""
    rng = np.random.default_rng(3)
    x = (rng.random((900, 30)) < np.linspace(0.3, 0.8, 30)).astype(float)
    gap, variance, draws = _board(x, n_bootstrap=400)
    default = rk._max_t(gap, variance, lambda: [draws], 0.05)
    pair = draws[:, :, None] - draws[:, None, :]
    calls = []

    def blocks():
        calls.append(1)
        return iter(np.array_split(pair, 3))

    monkeypatch.setattr(rk, "TILE_ELEMENTS", 37)
    monkeypatch.setattr(rk, "BAND_ELEMENTS", 11)
    monkeypatch.setattr(rk, "TILE_REPLICATES", 7)
    monkeypatch.setattr(rk, "KEPT_BYTES", 1000)
    monkeypatch.setattr(rk, "THREADED_ELEMENTS", 1)
    monkeypatch.setattr(rk.os, "cpu_count", lambda: 3)
    for source in (lambda: np.array_split(draws, 5), blocks):
        got = rk._max_t(gap, variance, source, 0.05)
        assert (got[0] == default[0]).all() and got[2:] == default[2:]
        assert all((g == d).all() for g, d in zip(got[1], default[1], strict=True))
    assert len(calls) > 1 and default[0].sum() > 50


def test_draws_with_nan_are_refused():
    estimate = np.array([1.0, 0.0])
    draws = np.random.default_rng(0).normal(size=(300, 2))
    draws[5, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        rk.rank_sets_from_draws(estimate, np.eye(2) * 0.01, draws)


def test_simultaneous_sets_alone():
    rng = np.random.default_rng(4)
    x = (rng.random((2000, 6)) < [0.8, 0.7, 0.69, 0.5, 0.3, 0.29]).astype(float)
    both = rk.rank_sets(x, n_bootstrap=300)
    alone = rk.rank_sets(x, n_bootstrap=300, marginal=False)
    assert alone.marginal_low is None and alone.marginal_high is None
    assert both.marginal_low is not None
    for name in ("rank_low", "rank_high", "tier", "shown_better"):
        assert (getattr(alone, name) == getattr(both, name)).all()
    assert alone.critical_value == both.critical_value and alone.n_steps == both.n_steps
    holm = rk.rank_sets(x, method="holm", marginal=False)
    assert holm.marginal_low is None and holm.rank_low.tolist() == [1, 2, 2, 4, 5, 5]


def test_normal_scores_are_the_normal_quantiles_of_the_t_probabilities():
    """scipy.stats as the oracle: z = Phi^-1(F_df(t)), odd and increasing, infinite kept."""
    from scipy import stats

    t = np.array([-40.0, -6.0, -2.5, -0.3, 0.0, 0.3, 2.5, 6.0, 40.0, np.inf, -np.inf])
    df = np.array([3, 9, 49, 199, 199, 199, 399, 999, 199, 10, 10])
    z = rk.normal_scores(t, df)
    finite = np.abs(t) <= 6
    expected = stats.norm.ppf(stats.t.cdf(t[finite], df[finite]))
    assert z[finite] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert (np.abs(z[finite]) <= np.abs(t[finite])).all()  # t's tails are the heavier
    assert z[-2] == np.inf and z[-1] == -np.inf and z[4] == 0.0
    assert (np.diff(rk.normal_scores(np.linspace(-50, 50, 2001), 199)) > 0).all()
    c = rk.t_critical_value(3.0, 199)
    assert c == pytest.approx(stats.t.isf(stats.norm.sf(3.0), 199), rel=1e-10)
    assert rk.t_critical_value(3.0, np.inf) == 3.0


def test_calibrated_stepdown_is_the_published_one_on_the_normal_scores():
    """With degrees of freedom, _max_t is Algorithm 3.1 on each t replaced by its normal
    score (the same draws), its critical value the ceil((B + 1)(1 - alpha))-th smallest
    maximum: the same rejections, steps and critical value; and rank_sets reports that
    critical value on the t scale of its pairs."""
    rng = np.random.default_rng(5)
    for k, items, clusters in [(6, 250, None), (12, 400, None),
                               (10, 600, np.repeat(np.arange(300), 2))]:  # fmt: skip
        p = np.repeat(rng.uniform(0.3, 0.8, k // 2), 2)
        x = (rng.random((items, k)) < p).astype(float)
        gap, variance, draws = _board(x, clusters)
        units = items if clusters is None else 300
        df = np.full((k, k), units - 1.0)
        t, _ = rk._t_statistics(gap, variance)
        normal_gap = np.where(variance > 0, rk.normal_scores(t, df) * np.sqrt(variance), gap)
        expected = _reference(normal_gap, variance, draws, order_statistic=True)
        got = rk._max_t(gap, variance, lambda d=draws: [d], 0.05, df=df)
        assert (got[0] == expected[0]).all() and got[2:] == expected[2:]
        assert all((g == e).all() for g, e in zip(got[1], expected[1], strict=True))
        sets = rk.rank_sets(x, n_bootstrap=300, seed=0, clusters=clusters, method="bootstrap")
        assert sets.critical_value == pytest.approx(rk.t_critical_value(got[2], units - 1.0))
        published = rk._max_t(gap, variance, lambda d=draws: [d], 0.05)
        assert got[0].sum() <= published[0].sum()  # the calibration only ever rejects less
