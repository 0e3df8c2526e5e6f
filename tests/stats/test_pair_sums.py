"""The all-pairs sums a store keeps (stats.paired.pair_sums): each pair's sums over the items
both models scored, against a loop over pairs, and equal by every path (codes, blocks)."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.stats.paired import pair_sums, pair_sums_from_codes


def _board(binary, seed=0, k=6, n=50):
    rng = np.random.default_rng(seed)
    x = (rng.random((k, n)) < 0.6).astype(float) if binary else rng.random((k, n)).round(3)
    observed = rng.random((k, n)) < 0.85
    return np.where(observed, x, 0.0), observed.astype(float)


@pytest.mark.parametrize("binary", [True, False])
def test_pair_sums_equal_a_loop_over_pairs(binary):
    x, m = _board(binary)
    rows = np.array([4, 1])
    got = pair_sums(x, m, rows, binary=binary)
    for r, t in enumerate(rows):
        for o in range(x.shape[0]):
            both = (m[t] > 0) & (m[o] > 0)
            a, b = x[t][both], x[o][both]
            assert got.n[r, o] == both.sum()
            assert got.sum_t[r, o] == pytest.approx(a.sum())
            assert got.sum_o[r, o] == pytest.approx(b.sum())
            assert got.sum_tt[r, o] == pytest.approx((a * a).sum())
            assert got.sum_oo[r, o] == pytest.approx((b * b).sum())
            assert got.sum_to[r, o] == pytest.approx((a * b).sum())


def test_codes_blocks_and_one_side_give_the_same_sums():
    x, m = _board(True, seed=3)
    rows = np.array([0, 2, 5])
    codes = np.where(m > 0, x, -1).astype(np.int8)
    full = pair_sums(x, m, rows, binary=True)
    counted = pair_sums_from_codes(codes, rows)
    for name in ("n", "sum_t", "sum_o", "sum_tt", "sum_oo", "sum_to"):
        np.testing.assert_array_equal(getattr(counted, name), getattr(full, name))
    blocks = (slice(0, 20), slice(20, None))
    halves = [pair_sums(x[:, s], m[:, s], rows, binary=True) for s in blocks]
    np.testing.assert_array_equal(halves[0].sum_to + halves[1].sum_to, full.sum_to)
    every = pair_sums(x, m, slice(None), binary=True, both_sides=False)
    assert every.sum_o is None and every.sum_oo is None
    np.testing.assert_array_equal(every.sum_t.T[rows], full.sum_o)


def test_counts_and_difference_sums_follow_from_the_pair_sums():
    from evalgap.stats.paired import counts_from_scores, counts_from_sums, difference_sums

    x, m = _board(True, seed=5)
    sums = pair_sums(x, m, np.array([1]), binary=True)
    graded_x, graded_m = _board(False, seed=5)
    graded = pair_sums(graded_x, graded_m, np.array([1]), binary=False)
    for o in (0, 2, 3):
        both = (m[1] > 0) & (m[o] > 0)
        cells = counts_from_sums(
            sums.n[0, o], sums.sum_t[0, o], sums.sum_o[0, o], sums.sum_to[0, o]
        )
        expected = counts_from_scores(x[1][both], x[o][both])
        assert [int(v) for v in cells] == [int(v) for v in expected]
        shared = (graded_m[1] > 0) & (graded_m[o] > 0)
        d = graded_x[1][shared] - graded_x[o][shared]
        got = difference_sums(
            graded.sum_t[0, o], graded.sum_o[0, o], graded.sum_to[0, o], graded.sum_tt[0, o],
            graded.sum_oo[0, o],
        )  # fmt: skip
        assert got == pytest.approx((d.sum(), (d * d).sum()))


@pytest.mark.parametrize("rows", [slice(None), np.array([5, 0, 3])])
def test_fully_observed_sums_equal_the_general_products(rows):
    from evalgap.stats.paired import pair_sums_observed

    rng = np.random.default_rng(7)
    x = (rng.random((6, 40)) < 0.55).astype(np.float32)
    full = pair_sums(x, np.ones_like(x), rows, binary=True)
    got = pair_sums_observed(x, rows)
    assert got.n[0, 0] == 40 and got.sum_to[0, 1] == (x[rows][0] * x[1]).sum()
    for name in ("n", "sum_t", "sum_o", "sum_tt", "sum_oo", "sum_to"):
        np.testing.assert_array_equal(getattr(got, name), getattr(full, name))


@pytest.mark.parametrize("columns", [slice(2, 5), np.array([4, 1])])
def test_a_block_of_columns_is_that_rectangle_of_every_pair(columns):
    # a distributed audit's block: rows against some columns, the same numbers as every
    # column then sliced, with missing scores and without
    from evalgap.stats.paired import pair_sums_observed

    rng = np.random.default_rng(8)
    x = (rng.random((6, 50)) < 0.6).astype(np.float32)
    m = (rng.random((6, 50)) < 0.8).astype(np.float32)
    rows = slice(0, 3)
    for got, full in (
        (pair_sums(x * m, m, rows, binary=True, columns=columns),
         pair_sums(x * m, m, rows, binary=True)),
        (pair_sums_observed(x, rows, columns), pair_sums_observed(x, rows)),
    ):  # fmt: skip
        assert got.n.shape == (3, len(range(6)[columns]) if isinstance(columns, slice)
                               else columns.size)  # fmt: skip
        for name in ("n", "sum_t", "sum_o", "sum_tt", "sum_oo", "sum_to"):
            np.testing.assert_array_equal(getattr(got, name), getattr(full, name)[:, columns])
    # the oracle: integer products of the indicators
    block = pair_sums(x * m, m, rows, binary=True, columns=columns)
    xi, mi = (x * m).astype(np.int64), m.astype(np.int64)
    np.testing.assert_array_equal(block.sum_to, xi[rows] @ xi[columns].T)
    np.testing.assert_array_equal(block.sum_o, mi[rows] @ xi[columns].T)
