"""The rank sets' Gaussian multiplier draws: drawn from the law of the weighted sums (K normals
times a factor of their covariance) they have that covariance, follow the models when the
columns are reordered, and give the sets of the weights themselves on a clear board."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.stats import ranks as rk

REPLICATES = 20_000


def _within_monte_carlo_error(draws, law, limit=4.5):
    """Each entry of the draws' sample covariance against ``law``, in Monte Carlo standard
    errors of a Gaussian sample covariance, ``sqrt((law_aa law_bb + law_ab^2) / B)``: with 15
    to 36 entries and B = 20,000 a correct law stays under 4.5 (probability ~1e-4 over)."""
    b = draws.shape[0]
    sample = draws.T @ draws / b  # the draws have mean 0 by construction
    diagonal = np.diag(law)
    se = np.sqrt((np.outer(diagonal, diagonal) + law**2) / b)
    z = np.abs(sample - law) / se
    assert z.max() < limit, z.max()
    return z


def _weighted_sums_law(x, clusters=None):
    """Covariance of ``w F`` for standard normal w: F'F, F the centred scores (cluster sums)
    over n, computed here from its definition."""
    centred = x - x.mean(axis=0)
    if clusters is not None:
        labels = np.unique(clusters)
        centred = np.stack([centred[clusters == g].sum(axis=0) for g in labels])
    features = centred / x.shape[0]
    return features.T @ features


@pytest.mark.parametrize("case", ["items", "clusters", "singular"])
def test_multiplier_draws_have_the_covariance_of_the_weighted_sums(case):
    rng = np.random.default_rng(0)
    x = (rng.random((400, 5)) < [0.8, 0.7, 0.6, 0.5, 0.4]).astype(float)
    clusters = None
    if case == "clusters":
        clusters = np.repeat(np.arange(40), 10)
    if case == "singular":  # a duplicate model and a model right on every item: no Cholesky
        x[:, 3] = x[:, 1]
        x[:, 4] = 1.0
    mean, n, cov = rk.mean_covariance(x, clusters)
    draws = np.concatenate(list(rk._multiplier_draws(x, mean, n, clusters, REPLICATES, 1, cov)))
    assert draws.shape == (REPLICATES, 5) and draws.dtype == np.float32
    law = _weighted_sums_law(x, clusters)
    if case == "singular":
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.cholesky(law)
        np.testing.assert_allclose(draws[:, 3], draws[:, 1], atol=1e-6)
        assert np.abs(draws[:, 4]).max() < 1e-6  # no variance, no draw
        draws, law = draws[:, :4], law[:4, :4]
    _within_monte_carlo_error(draws.astype(float), law)


def test_with_more_models_than_items_the_weights_themselves_are_drawn():
    """K >= N: the draws are float32 standard normal weights on the centred scores over n,
    in the seed's order (the generator of the earlier versions, in float32)."""
    rng = np.random.default_rng(1)
    x = rng.random((6, 9))
    mean, n, cov = rk.mean_covariance(x)
    got = np.concatenate(list(rk._multiplier_draws(x, mean, n, None, 300, 5, cov)))
    stream = np.random.Generator(np.random.PCG64(rk.seed_sequence(5)))
    features = ((x - mean) / n).astype(np.float32)
    expected = np.concatenate(
        [stream.standard_normal((rows, 6), dtype=np.float32) @ features for rows in (256, 44)]
    )
    np.testing.assert_array_equal(got, expected)


def _blocks_board():
    """Two missingness patterns: the pair draws are drawn from the law of the patterns' sums."""
    rng = np.random.default_rng(4)
    x = rng.random((40, 4))
    x[:12, 3] = np.nan
    x[30:, 1] = np.nan
    return x


def test_pair_draws_have_the_covariance_of_the_shared_item_gaps():
    """With missing scores, a pair's multiplier deviation is ``sum_i w_i r_ijk / n_jk`` over
    the items both scored (``r`` the paired differences minus the pair's gap): its covariance
    across pairs is ``sum_i r_ijk r_ilm / (n_jk n_lm)``, built here item by item."""
    x = _blocks_board()
    mean = rk.mean_covariance(x)[0]
    gap, _, shared = rk.pair_gaps(x)
    blocks = rk._pair_draws(x, mean, gap, shared, None, REPLICATES, 2, "multiplier")
    draws = np.concatenate(list(blocks))
    first, second = np.triu_indices(4, 1)
    residual = np.zeros((40, first.size))
    for p, (j, m) in enumerate(zip(first, second, strict=True)):
        both = ~np.isnan(x[:, j]) & ~np.isnan(x[:, m])
        residual[both, p] = (x[both, j] - x[both, m] - gap[j, m]) / both.sum()
    law = residual.T @ residual
    np.testing.assert_allclose(draws, -draws.transpose(0, 2, 1), atol=1e-12)
    _within_monte_carlo_error(draws[:, first, second], law)


def test_draws_follow_the_models_when_the_columns_are_reordered():
    rng = np.random.default_rng(5)
    x = (rng.random((300, 6)) < np.linspace(0.3, 0.8, 6)).astype(float)
    order = np.array([4, 0, 5, 2, 1, 3])

    def draws(scores):
        mean, n, cov = rk.mean_covariance(scores)
        return np.concatenate(list(rk._multiplier_draws(scores, mean, n, None, 500, 3, cov)))

    np.testing.assert_allclose(draws(x[:, order]), draws(x)[:, order], rtol=1e-4, atol=1e-7)
    x = _blocks_board()
    order = np.array([2, 0, 3, 1])

    def pairs(scores):
        mean = rk.mean_covariance(scores)[0]
        gap, _, shared = rk.pair_gaps(scores)
        blocks = rk._pair_draws(scores, mean, gap, shared, None, 300, 3, "multiplier")
        return np.concatenate(list(blocks))

    moved = pairs(x)[:, order[:, None], order[None, :]]
    np.testing.assert_allclose(pairs(x[:, order]), moved, rtol=1e-6, atol=1e-12)


def test_the_sets_agree_with_the_weights_generator_on_a_clear_board():
    """Drawn from the law or through N weights per replicate, the same sets where every
    pair's |t| is far from the critical value, and critical values within Monte Carlo error
    (SE of a 95% quantile from 2,000 replicates: about 0.02 here)."""
    rng = np.random.default_rng(6)
    p = np.array([0.9, 0.8, 0.8, 0.65, 0.5, 0.5, 0.35, 0.2])
    x = (rng.random((3000, 8)) < p).astype(float)
    mean, n, cov = rk.mean_covariance(x)
    gap, variance, _ = rk.pair_gaps(x, mean=mean, covariance=cov)
    law = rk.rank_sets(x, n_bootstrap=2000, seed=1, method="bootstrap")
    t = np.abs(gap) / np.sqrt(variance + np.eye(8))
    assert np.abs(t - law.critical_value).min() > 0.5  # no pair near the boundary
    stream = np.random.Generator(np.random.PCG64(rk.seed_sequence(2)))
    weights = stream.standard_normal((2000, 3000), dtype=np.float32)
    draws = mean + weights @ ((x - mean) / n).astype(np.float32)
    weighted = rk.rank_sets_from_draws(mean, cov, draws)
    for name in ("rank_low", "rank_high", "marginal_low", "marginal_high", "tier"):
        assert getattr(law, name).tolist() == getattr(weighted, name).tolist(), name
    assert law.critical_value == pytest.approx(weighted.critical_value, abs=0.08)
    assert law.shown_better.sum() == weighted.shown_better.sum() > 10


def test_rank_sets_from_sums_are_the_sets_of_the_scores():
    # a complete binary board from its sums over items (what an engine adds up by blocks):
    # the same sets, tiers and critical value for the same seed; the standard errors equal
    # to rounding (one sums per item, the other from the counts)
    from evalgap.errors import InputError
    from evalgap.stats.board import board_scores, board_scores_from_counts
    from evalgap.stats.ranks import canonical_probe, rank_sets, rank_sets_from_sums

    rng = np.random.default_rng(5)
    x = (rng.random((3000, 20)) < rng.uniform(0.5, 0.7, 20)).astype(float)
    names = [f"m{k}" for k in range(20)]
    single = rank_sets(x, n_bootstrap=400, seed=3)
    sums = rank_sets_from_sums(3000, x.sum(axis=0), x.T @ x, x.T @ canonical_probe(3000),
                               n_bootstrap=400, seed=3)  # fmt: skip
    for name in ("rank", "rank_low", "rank_high", "marginal_low", "marginal_high", "tier",
                 "shown_better"):  # fmt: skip
        np.testing.assert_array_equal(getattr(single, name), getattr(sums, name))
    assert single.critical_value == pytest.approx(sums.critical_value, rel=1e-12)
    np.testing.assert_allclose(sums.se, single.se, rtol=1e-12)
    board = board_scores_from_counts(x.sum(axis=0), 3000, names)
    expected = board_scores(x, names)
    np.testing.assert_array_equal(board.score, expected.score)
    np.testing.assert_array_equal(board.order, expected.order)
    np.testing.assert_allclose(board.score_low, expected.score_low, rtol=1e-12)
    with pytest.raises(InputError, match="too many models"):
        rank_sets_from_sums(150, x[:150].sum(axis=0), x[:150].T @ x[:150], np.zeros(20))
