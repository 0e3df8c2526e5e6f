"""The board's one score, rank and order (evalgap.stats.board), against independent oracles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.errors import InputError
from evalgap.stats.board import additive_scores, board_notes, board_scores, paired_rank
from evalgap.stats.ranks import mean_covariance, pair_gaps


def _incomplete(items: int, models: int, missing: float, seed: int, binary: bool = True):
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.3, 0.8, models)
    x = rng.random((items, models)) < skill if binary else rng.random((items, models)) * skill
    x = x.astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0] = np.where(np.isnan(x[:, 0]), 1.0, x[:, 0])  # one complete model keeps it connected
    return x


def test_additive_fit_equals_least_squares_with_model_and_item_dummies():
    """statsmodels' OLS of score ~ C(model) + C(item) on the observed cells, its predictions
    averaged over every item: the board score of each model."""
    sm = pytest.importorskip("statsmodels.api")
    x = _incomplete(30, 5, 0.25, seed=1)
    rows, cols = np.nonzero(~np.isnan(x))
    design = np.column_stack(
        [np.eye(5)[cols], np.eye(30)[rows][:, 1:]]  # model dummies, item dummies but one
    )
    fit = sm.OLS(x[rows, cols], design).fit()
    every_item = np.column_stack(
        [np.repeat(np.eye(5), 30, axis=0), np.tile(np.eye(30)[:, 1:], (5, 1))]
    )
    expected = fit.predict(every_item).reshape(5, 30).mean(axis=1)
    score, terms = additive_scores(x)
    np.testing.assert_allclose(score, expected, atol=1e-12)
    np.testing.assert_allclose(terms.sum(axis=0), score, atol=1e-14)


def test_complete_data_gives_the_mean_its_standard_error_and_wilsons_interval():
    proportion_confint = pytest.importorskip("statsmodels.stats.proportion").proportion_confint
    x = _incomplete(400, 4, 0.0, seed=2)
    mean = x.mean(axis=0)
    board = board_scores(x, list("abcd"), gap=mean[:, None] - mean[None, :], alpha=0.1)
    np.testing.assert_array_equal(board.score, board.own_items_mean)
    np.testing.assert_allclose(board.se, x.std(axis=0, ddof=1) / np.sqrt(400), rtol=1e-12)
    low, high = proportion_confint(x.sum(axis=0), 400, alpha=0.1, method="wilson")
    np.testing.assert_allclose(board.score_low, low, rtol=1e-12)
    np.testing.assert_allclose(board.score_high, high, rtol=1e-12)
    assert board.rank.tolist() == [4, 3, 2, 1] and board.order.tolist() == [3, 2, 1, 0]
    assert board.interval == "wilson" and board.against == 0 and board.reversed == 0


def test_clustered_standard_error_is_the_cluster_robust_one_on_complete_data():
    x = _incomplete(120, 3, 0.0, seed=3, binary=False)
    clusters = np.arange(120) % 6
    _, _, cov = mean_covariance(x, clusters)
    board = board_scores(x, gap=pair_gaps(x)[0], clusters=clusters)
    np.testing.assert_allclose(board.se, np.sqrt(np.diag(cov)), rtol=1e-12)
    assert board.interval == "wilson"  # graded scores in [0, 1]


def test_a_graded_score_in_zero_one_keeps_its_interval_inside_and_normal_in_the_middle():
    """A graded win rate near 0 (AlpacaEval's vicuna-7b-v1.3 printed [-0.0003, 0.0509]):
    Wilson's interval at the effective items p(1-p)/se^2 stays in [0, 1]; in the middle it
    is score -/+ z se to the third decimal; scores outside [0, 1] keep the normal one."""
    from scipy import stats

    rng = np.random.default_rng(2)
    low = np.r_[np.zeros(78), 1.0, 0.5]  # a win rate of 0.019 on 80 items
    mid = rng.beta(20, 20, 80)
    x = np.column_stack([low, mid])
    board = board_scores(x)
    assert board.interval == "wilson" and (board.score_low >= 0).all()
    z = stats.norm.ppf(0.975)
    normal = board.score[0] - z * board.se[0]
    assert normal < 0 < board.score_low[0] < board.score[0]  # the normal one leaves [0, 1]
    np.testing.assert_allclose(
        [board.score_low[1], board.score_high[1]],
        [board.score[1] - z * board.se[1], board.score[1] + z * board.se[1]], atol=1e-3,
    )
    wide = board_scores(x * 10 - 2)  # real-valued scores: the normal interval
    assert wide.interval == "normal"
    np.testing.assert_allclose(wide.score_low, wide.score - z * wide.se, rtol=1e-12)


def test_a_model_that_scored_every_item_gets_its_mean_whoever_else_skipped():
    x = _incomplete(50, 6, 0.3, seed=4)
    score, _ = additive_scores(x)
    assert score[0] == pytest.approx(np.nanmean(x[:, 0]), abs=1e-13)
    assert not np.isclose(score[1:], np.nanmean(x[:, 1:], axis=0)).all()


def test_skipping_hard_items_charges_the_model_and_the_rank_follows_the_shared_items():
    """B skipped the 40 items everyone else fails: its own-items mean (0.75) flatters it; the
    fit charges it with their difficulty. A beats B on every shared item, so A ranks first."""
    a = np.r_[np.ones(120), np.zeros(40), np.zeros(40)]
    b = np.r_[np.ones(110), np.zeros(10), np.full(40, np.nan), np.zeros(40)]
    c = np.r_[np.ones(100), np.zeros(60), np.zeros(40)]
    x = np.column_stack([a, b, c])
    board = board_scores(x, list("abc"), gap=pair_gaps(x)[0])
    assert board.own_items_mean[1] == pytest.approx(110 / 160)
    assert board.score[1] == pytest.approx(110 / 200, abs=0.02)
    assert board.order.tolist() == [0, 1, 2] and board.rank.tolist() == [1, 2, 3]
    assert board.against == 0 and board.reversed == 0 and board_notes(board) == ()


def test_intransitive_shared_items_are_listed_by_paired_rank_and_said():
    """A is right wherever B is (and on 50 more) on their shared items, but B skipped 1,000
    items A fails: no score agrees with every pair. The list follows the paired rank, and
    the note says the score runs against it."""
    a = np.zeros(4000)
    a[:2500] = 1.0
    b = np.full(4000, np.nan)
    b[:3000] = 0.0
    b[:2450] = 1.0
    c = (np.random.default_rng(2).random(4000) < 0.3).astype(float)
    x = np.column_stack([a, b, c])
    board = board_scores(x, list("abc"), gap=pair_gaps(x)[0])
    assert board.rank.tolist() == [1, 2, 3] and board.order.tolist() == [0, 1, 2]
    assert board.score[1] > board.score[0] and board.against == 1 and board.reversed == 0
    assert "lower score than the next row" in board_notes(board)[0]


def test_paired_rank_counts_the_models_ahead_and_ignores_pairs_not_compared():
    gap = np.array([[0.0, 0.1, np.nan], [-0.1, 0.0, 0.2], [np.nan, -0.2, 0.0]])
    assert paired_rank(gap).tolist() == [1, 2, 2]


def test_bad_shapes_are_refused_naming_the_argument():
    with pytest.raises(InputError, match="must be \\(items, models\\)"):
        board_scores(np.zeros(3), gap=np.zeros((1, 1)))
    with pytest.raises(InputError, match="gap must be \\(2, 2\\)"):
        board_scores(np.zeros((3, 2)), gap=np.zeros((3, 3)))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shift=st.floats(-0.5, 0.5),
    permutation_seed=st.integers(0, 100),
)
def test_invariants_item_shifts_and_model_order(seed, shift, permutation_seed):
    """Moving one item's scores by a constant moves every score by shift/N (the item effect
    takes it); listing the models in another order permutes the results."""
    x = _incomplete(25, 4, 0.3, seed=seed, binary=False)
    score, _ = additive_scores(x)
    moved = x.copy()
    moved[3] += shift
    np.testing.assert_allclose(additive_scores(moved)[0], score + shift / 25, atol=1e-10)
    perm = np.random.default_rng(permutation_seed).permutation(4)
    np.testing.assert_allclose(additive_scores(x[:, perm])[0], score[perm], atol=1e-10)


def test_a_task_where_every_model_scores_alike_on_every_item_is_said():
    """Every model 0 on a whole task (a real board kept from us has such tasks): no warning
    reaches the user, and the note says nothing separates the models."""
    import warnings

    x = np.zeros((300, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        board = board_scores(x)
    notes = board_notes(board)
    assert any("every model has the same score (0) on every item" in n for n in notes)
    assert (board.score_low == 0).all() and (board.score_high > 0).all()  # Wilson at n


@pytest.mark.parametrize("kind", ["binary", "graded", "unbounded", "graded late", "beyond late"])
def test_complete_boards_read_a_block_at_a_time_give_the_general_paths_numbers_to_the_bit(
    kind, monkeypatch
):
    """The complete-data path (no (N, K) temporaries) against the general one it replaces:
    every array equal bit for bit, with more items than one block (2,048) holds."""
    import evalgap.stats.board as board_module

    rng = np.random.default_rng(7)
    items, models = 4_500, 9
    if kind == "binary":
        x = (rng.random((items, models)) < np.linspace(0.3, 0.8, models)).astype(float)
    elif kind == "graded":
        x = rng.random((items, models)) * np.linspace(0.5, 1.0, models)
    elif kind == "unbounded":
        x = rng.normal(np.linspace(-1, 1, models), 3.0, (items, models))
    else:  # 0/1 scores in the first blocks, then one graded (or beyond [0, 1]) in the last
        x = (rng.random((items, models)) < 0.5).astype(float)
        x[-1, 3] = 0.5 if kind == "graded late" else 1.5
    fast = board_scores(x, [f"m{j}" for j in range(models)])
    monkeypatch.setattr(board_module, "_complete_board", lambda x, block=2048: None)
    general = board_scores(x, [f"m{j}" for j in range(models)])
    for name in ("score", "se", "score_low", "score_high", "own_items_mean", "n", "rank"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(general, name), err_msg=name)
    assert (fast.interval, fast.against) == (general.interval, general.against)
    # and the closed form: the mean and sd / sqrt(n) (ddof 1)
    np.testing.assert_allclose(fast.score, x.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(fast.se, x.std(axis=0, ddof=1) / np.sqrt(items), rtol=1e-10)


def test_paired_rank_from_means_is_the_paired_rank_of_a_complete_board():
    """On a complete board a pair's gap is the means' difference: the rank from the means
    equals paired_rank of the (K, K) gaps, ties (equal means) included."""
    from evalgap.stats.board import paired_rank, paired_rank_from_means

    rng = np.random.default_rng(5)
    for _ in range(50):
        means = rng.integers(0, 6, size=rng.integers(1, 12)) / 5  # many exact ties
        gaps = means[:, None] - means[None, :]
        assert paired_rank_from_means(means).tolist() == paired_rank(gaps).tolist()
