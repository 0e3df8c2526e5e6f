"""Graded items to flip: the greedy counts, the certified bounds and the created claims
against removing one item at a time and testing again with scipy (random boards drawn by
hypothesis, and long ones where the search leaps over runs of counts), the t critical values
against the p-values they replace, and one sort shared by several tests and levels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from evalgap.stats import fragility, intervals, tests

LEVEL = 0.05
POWER = 0.8
NEED = 6  # tests.min_differing_items(0.05)


def side(x, test, level=LEVEL, need=NEED):
    """+1 / -1 / 0: the model the test declares better on differences ``x``, from scipy."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return 0
    if test == "paired_t":
        if np.all(x == x[0]):  # no spread: |t| is infinite, a claim for the gap's sign
            return int(np.sign(x[0]))
        p = sps.ttest_rel(x, np.zeros_like(x)).pvalue
        return int(np.sign(x.mean())) if p <= level else 0
    sd = x.std()
    if x.mean() == 0:
        t = 0.0
    else:
        t = x.mean() / (sd / np.sqrt(x.size)) if sd > 0 else np.sign(x.mean()) * np.inf
    bar = sps.norm.isf(level / 2) + sps.norm.ppf(POWER)
    if np.count_nonzero(x) < need:
        return 0
    return 1 if t >= bar else -1 if t <= -bar else 0


def replay(x, test, level=LEVEL):
    """Remove one item at a time in the greedy order and test again: the count at which the
    verdict changes (NaN: never), and the side claimed after it (0 for a claim lost)."""
    now = side(x, test, level)
    if now != 0:  # the claim's largest differences first
        order = np.argsort(-now * x, kind="stable")
        for k in range(1, x.size):
            if side(np.delete(x, order[:k]), test, level) != now:
                return now, float(k), 0
        return now, np.nan, 0
    found = {}
    for toward in (1, -1):  # the differences most against the side first
        order = np.argsort(toward * x, kind="stable")
        found[toward] = next(
            (k for k in range(1, x.size) if side(np.delete(x, order[:k]), test, level) == toward),
            None,
        )
    if found[1] is not None and (found[-1] is None or found[1] <= found[-1]):
        return 0, float(found[1]), 1
    if found[-1] is not None:
        return 0, float(found[-1]), -1
    return 0, np.nan, 0


def bound(x, test, now, level=LEVEL):
    """The certified lower bound by its formula: the first ``k`` at which the claim ends when
    the sum loses the ``k`` largest differences and the full sample's SS is kept."""
    y = now * np.asarray(x, dtype=float)
    top = np.sort(y)[::-1]
    ss = np.sum((y - y.mean()) ** 2)
    for k in range(1, y.size):
        rest, s = y.size - k, y.sum() - top[:k].sum()
        ddof = 1 if test == "paired_t" else 0
        if s == 0 or ss == 0:  # no gap: t = 0; no spread: t = +/-inf
            t = 0.0 if s == 0 else np.sign(s) * np.inf
        else:
            t = (s / rest) / (np.sqrt(ss / max(rest - ddof, 1)) / np.sqrt(rest))
        if test == "paired_t":
            holds = rest >= 2 and s > 0 and 2 * sps.t.sf(abs(t), rest - 1) <= level
        else:
            bar = sps.norm.isf(level / 2) + sps.norm.ppf(POWER)
            holds = t >= bar and np.count_nonzero(y) - k >= NEED
        if not holds:
            return float(k)
    return np.nan


def check_against_replay(d, test):
    f = fragility.graded_flips(d, test=test, min_differing=NEED if test == "wald" else 0)
    for row in range(d.shape[0]):
        x = d[row][~np.isnan(d[row])]
        now, items, after = replay(x, test)
        assert int(f.favours[row]) == now
        np.testing.assert_equal(f.items[row], items)
        assert int(f.after[row]) == after
        if now != 0:
            np.testing.assert_equal(f.lower[row], bound(x, test, now))
            assert f.lower[row] <= f.items[row] or np.isnan(f.items[row])


values = st.sampled_from([-1.0, -0.5, -0.25, -0.1, 0.0, 0.1, 0.2, 0.25, 0.4, 0.5, 0.75, 1.0])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.lists(values, min_size=3, max_size=24), min_size=1, max_size=3),
    shift=st.sampled_from([0.0, 0.15, 0.3, -0.3, 0.6]),
)
def test_graded_flips_equal_removing_one_item_at_a_time(rows, shift):
    """Every count, bound and created claim, on boards with ties, zeros and missing items
    (rows of different lengths), equals the one-at-a-time replay with scipy's tests."""
    d = np.full((len(rows), max(map(len, rows))), np.nan)
    for r, x in enumerate(rows):
        d[r, : len(x)] = np.asarray(x) + shift
    for test in ("paired_t", "wald"):
        check_against_replay(d, test)


@pytest.mark.parametrize("test", ["paired_t", "wald"])
def test_long_pairs_equal_the_replay_where_the_search_leaps(test):
    """Pairs of 2,000 items whose claims end after hundreds of removals (the search leaps
    over certified runs and bisects the bound): every count is the replay's; and pairs of
    nearly constant differences, where no run can be certified, are scanned count by count."""
    rng = np.random.default_rng(3)
    d = np.round(rng.normal(rng.uniform(0.08, 0.2, (4, 1)), 0.6, (4, 2000)), 2)
    d[1] *= -1
    near = 0.3 + rng.normal(0, 1e-9, (2, 2000))
    near[:, :40] -= 0.5
    f = fragility.graded_flips(d, test=test, min_differing=NEED if test == "wald" else 0)
    assert (f.items > 100).all() and (f.lower < f.items).all()
    check_against_replay(d, test)
    check_against_replay(near[:, :300], test)


def every_count(x, test, now, level=LEVEL):
    """The first count along the greedy order at which the claim ends, from the verdict at
    every count at once (the prefix sums, the library's p-value and Wald statistic)."""
    holds = claim_along(x, test, now, level)
    return float(np.argmin(holds) + 1) if not holds.all() else np.nan


def claim_along(x, test, now, level=LEVEL):
    """Whether the claim holds after each count 1, 2, ... of the greedy order's removals."""
    y = now * x[~np.isnan(x)]
    ordered = np.sort(y)[::-1]
    n_k = y.size - np.arange(1.0, y.size)
    s_k = y.sum() - np.cumsum(ordered)[:-1]
    ss = np.maximum(np.sum(y * y) - np.cumsum(ordered**2)[:-1] - s_k**2 / n_k, 0.0)
    nonzero = np.count_nonzero(y) - np.cumsum(ordered != 0)[:-1]
    ddof = 1 if test == "paired_t" else 0
    delta, sd = s_k / n_k, np.sqrt(ss / np.maximum(n_k - ddof, 1))
    if test == "paired_t":
        p = np.asarray(tests.paired_t_from_moments(delta, sd, np.maximum(n_k, 2)).p_value)
        holds = (n_k >= 2) & (p <= level) & (delta > 0)
    else:
        t = np.asarray(tests.wald_statistic(delta, sd, n_k))
        holds = (t >= sps.norm.isf(level / 2) + sps.norm.ppf(POWER)) & (nonzero >= NEED)
    return holds


@pytest.mark.parametrize("test", ["paired_t", "wald"])
def test_leaps_land_on_the_first_count_of_a_scan_over_every_count(test):
    """Many long pairs (claims ending after tens to thousands of removals, at several
    levels): the leaping search lands on the first count a scan over every count finds."""
    rng = np.random.default_rng(12)
    d = np.round(rng.normal(rng.uniform(0.03, 0.4, (80, 1)), 0.5, (80, 1500)), 2)
    d[::4] *= -1
    d[rng.random(d.shape) < 0.02] = np.nan
    for level in (0.05, 1e-4):
        f = fragility.graded_flips(d, test=test, level=level, min_differing=NEED)
        claimed = np.flatnonzero(f.favours != 0)
        assert claimed.size > 60 and np.nanmax(f.items) > 500
        for row in claimed:
            want = every_count(d[row], test, int(f.favours[row]), level)
            np.testing.assert_equal(f.items[row], want)


def test_t_critical_values_give_the_p_values_verdict_on_the_boundary():
    """|t| at a critical value (within rounding) is decided by its p-value, as the test
    always was; away from it the comparison with the quantile is the p-value's verdict."""
    df = np.arange(1.0, 3000.0)
    for level, alternative in ((0.05, "two-sided"), (1e-5, "two-sided"), (0.01, "greater")):
        critical = np.asarray(intervals.t_quantile(level, df, alternative))
        size = df + 1
        for scale in (1.0, 1 + 1e-15, 1 - 1e-15, 1 + 1e-3, 1 - 1e-3, 3.0, 0.2):
            delta = critical * scale / np.sqrt(size)  # sd 1: t = critical * scale
            got = fragility._t_rejects(delta, 1.0, size, level, critical, alternative, 0.0)
            p = tests.paired_t_from_moments(delta, 1.0, size, alternative=alternative).p_value
            assert np.array_equal(got, np.asarray(p) <= level), (level, scale)
        on_it = critical / np.sqrt(size)
        exact = tests.paired_t_from_moments(on_it, 1.0, size, alternative=alternative)
        p = np.asarray(exact.p_value)
        assert (p <= level).any() and (p > level).any()  # the boundary splits both ways


def test_one_sort_serves_every_test_and_level():
    """Several tests and a family's levels over one sorted board (its sums made for the rows
    and depths the first searches asked) equal each search on its own."""
    rng = np.random.default_rng(9)
    d = np.round(rng.normal(rng.normal(0, 0.15, (30, 1)), 0.5, (30, 400)), 2)
    d[rng.random(d.shape) < 0.05] = np.nan
    shared = fragility.SortedDifferences(d)
    levels = [0.05, 0.05 / 435, rng.uniform(1e-4, 0.05, 30)]
    together = fragility.graded_flips_at_levels(shared, levels, test="wald", min_differing=NEED)
    t_test = fragility.graded_flips(shared, test="paired_t", alternative="less")
    assert np.array_equal(
        t_test.items, fragility.graded_flips(d, alternative="less").items, equal_nan=True
    )
    for level, got in zip(levels, together, strict=True):
        alone = fragility.graded_flips(d, test="wald", level=level, min_differing=NEED)
        for name in fragility.Flips.__dataclass_fields__:
            assert np.array_equal(
                getattr(got, name), getattr(alone, name), equal_nan=name != "favours"
            ), name
    assert np.isnan(together[0].items).sum() < 30 and (together[1].favours != 0).any()


@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_counts_given_are_those_the_differences_hold(missing):
    """A board handed the audit's counts (items, D > 0, D < 0) holds the moments and counts
    of one that counts them itself, and finds the same flips, with and without gaps."""
    rng = np.random.default_rng(11)
    d = np.round(rng.normal(rng.normal(0, 0.15, (12, 1)), 0.5, (12, 300)), 2)
    d[:, :20] = 0.0  # ties
    d[rng.random(d.shape) < missing] = np.nan
    counted = fragility.SortedDifferences(d)
    given = fragility.SortedDifferences(
        d, ((~np.isnan(d)).sum(axis=1), (d > 0).sum(axis=1), (d < 0).sum(axis=1))
    )
    assert given.complete == counted.complete == (missing == 0)
    for name in ("n", "positive", "negative", "nonzero", "s", "q", "ss"):
        assert np.array_equal(getattr(given, name), getattr(counted, name)), name
    assert np.array_equal(given.ordered(True), counted.ordered(True))
    assert (counted.n < 300).any() == bool(missing)
    for test in ("paired_t", "wald"):
        a, b = (fragility.graded_flips(x, test=test) for x in (given, counted))
        assert np.array_equal(a.items, b.items, equal_nan=True)
        assert np.array_equal(a.lower, b.lower, equal_nan=True)


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_sums_left_after_any_count_equal_the_items_left(missing):
    """The sums of D and D^2 over the items a count of removals leaves, along either order,
    at single counts, windows of counts and scans wider than the runs, equal the sums of the
    items left, taken directly (rows of different lengths where items are missing)."""
    rng = np.random.default_rng(21)
    d = np.round(rng.normal(0.1, 0.5, (7, 700)), 2)
    d[rng.random(d.shape) < missing] = np.nan
    board = fragility.SortedDifferences(d)
    n = board.n.astype(np.int64)
    pairs = np.arange(d.shape[0])
    for largest in (True, False):
        for width in (1, 5, 40, 600):
            first = np.minimum(rng.integers(0, 300, pairs.size), n - width)
            k = first[:, None] + np.arange(width)[None, :]
            k[:, width // 2 :] = np.maximum.accumulate(k[:, width // 2 :], axis=1)
            s, q = board.remaining(largest, pairs, k)
            for row in pairs:
                x = np.sort(d[row][~np.isnan(d[row])])
                x = x[::-1] if largest else x
                for col in range(width):
                    left = x[k[row, col] :]
                    # the rounding of sums over the whole row (what is left is a difference)
                    scale = 1e-14 * board.q[row] * n[row]
                    np.testing.assert_allclose(s[row, col], left.sum(), rtol=0, atol=scale)
                    np.testing.assert_allclose(q[row, col], (left**2).sum(), rtol=0, atol=scale)


def test_a_claim_that_ends_and_returns_is_lost_at_its_first_end():
    """Where the greedy claim ends, holds again and ends later (an outlier's removal shrinks
    the SD more than the gap), the count is the first end, not one a bisection of the
    counts could land on."""
    rng = np.random.default_rng(0)
    returns = 0
    for _ in range(120):
        gap, spread = rng.uniform(0.05, 0.5, (50, 1)), rng.uniform(0.2, 1.0, (50, 1))
        d = np.round(rng.normal(gap, spread, (50, 60)), 1)
        d[:, :3] += rng.choice([0.0, 3.0], (50, 1))  # outliers in some pairs
        f = fragility.graded_flips(d, test="paired_t")
        for row in np.flatnonzero(f.favours != 0):
            holds = claim_along(d[row], "paired_t", int(f.favours[row]))
            first = int(np.argmin(holds)) if not holds.all() else None
            assert f.items[row] == (np.nan if first is None else first + 1) or (
                first is None and np.isnan(f.items[row])
            )
            returns += first is not None and bool(holds[first:].any())
    assert returns >= 3  # the boards hold claims that come back after they end


def test_blocks_over_one_scratch_equal_fresh_boards():
    """Blocks sorted where they are, over memory reused from the block before, give the
    flips of boards made afresh."""
    rng = np.random.default_rng(4)
    scratch = fragility.Scratch()
    for size in (300, 200, 300):
        d = np.round(rng.normal(rng.normal(0, 0.15, (20, 1)), 0.5, (20, size)), 2)
        fresh = fragility.graded_flips(d, test="wald", min_differing=NEED)
        shared = fragility.SortedDifferences(d.copy(), scratch=scratch, overwrite=True)
        again = fragility.graded_flips(shared, test="wald", min_differing=NEED)
        for name in ("items", "lower", "favours", "after"):
            np.testing.assert_array_equal(getattr(again, name), getattr(fresh, name))


def test_the_greedy_search_finds_the_first_end_of_any_pattern():
    """The search's guess (galloping and bisecting as if the claim were monotone) is only a
    guess: every count before it is certified or evaluated, so for claims that end, return
    and end again (a short gap the gallop steps over, or a long one), the count is the first
    end. A stand-in claim and a sound but sometimes unsure certificate drive the search."""
    rng = np.random.default_rng(5)
    rows, length = 600, 4000
    holds = np.ones((rows, length + 2), dtype=bool)
    end = rng.integers(40, length - 400, rows)
    for r in range(rows):
        holds[r, end[r] :] = False
        if r % 3:  # it returns: after one failing count (or a few), for up to 300 counts
            gap = 1 if r % 3 == 1 else int(rng.integers(2, 20))
            holds[r, end[r] + gap : end[r] + gap + int(rng.integers(1, 300))] = True
    start = np.maximum(1, end - rng.integers(0, 400, rows))
    unsure = rng.random((rows, length + 2)) < 0.3

    class Stand(fragility._Search):
        def __init__(self):
            count = np.full(rows, float(length + 1))
            self.board = type("B", (), {"n": count, "q": np.ones(rows), "positive": count,
                                        "negative": np.zeros(rows)})()  # fmt: skip
            self.row_of = np.arange(rows)

        def _holds(self, sign, largest, at, k, **kw):
            return holds[at[:, None], k]

        def _certify(self, sign, largest, at, first, last, slack):
            every = [holds[r, a : b + 1].all() for r, a, b in zip(at, first, last, strict=True)]
            return np.array(every, dtype=bool) & ~unsure[at, first]

    got = Stand()._leap(1.0, True, np.arange(rows), start.astype(float), np.full(rows, length))
    want = [start[r] + np.argmin(holds[r, start[r] :]) for r in range(rows)]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("test", ["paired_t", "wald"])
def test_the_bound_s_closed_form_lands_on_the_certified_bound(test):
    """The bound's closed form (the sum left against ``bar sqrt(SS)``, over the runs' totals
    and then its run's counts), the guess the search starts from, is the certified bound
    itself on long pairs of both sides and at two levels: the search verifies it in two
    evaluations instead of bisecting."""
    rng = np.random.default_rng(12)
    d = np.round(rng.normal(rng.uniform(0.03, 0.4, (80, 1)), 0.5, (80, 1500)), 2)
    d[::4] *= -1
    d[rng.random(d.shape) < 0.02] = np.nan
    board = fragility.SortedDifferences(d)
    pairs = np.arange(d.shape[0])
    for level in (0.05, 1e-4):
        f = fragility.graded_flips(board, test=test, level=level, min_differing=NEED)
        levels = np.full(pairs.size, level)
        need = np.full(pairs.size, float(NEED if test == "wald" else 0))
        kw = {"test": test, "alternative": "two-sided", "power": POWER,
              "ddof": 0 if test == "wald" else 1}  # fmt: skip
        search = fragility._Search(board, pairs, levels, need, kw)
        for sign in (1.0, -1.0):
            rows = np.flatnonzero(f.favours == sign)
            first = board.positive if sign > 0 else board.negative
            most = np.minimum(first[rows], board.n[rows] - 1)
            guess = search._crossing(sign, sign > 0, rows, most)
            assert rows.size > 10
            np.testing.assert_array_equal(guess, np.where(np.isnan(f.lower[rows]), most + 1,
                                                          f.lower[rows]))  # fmt: skip


def test_what_is_left_constant_is_judged_exactly():
    """Where the removals leave a constant run (zeros spelled -0.0 by rounding, or one value
    repeated), its gap is exactly that value and its spread exactly 0: no claim on zeros and
    an infinite t on a repeated value, as scipy's tests on the items left say (rounding in
    the sums left would give a gap of 1e-16 over no spread, a claim out of nothing)."""
    rows = [
        [-1.3, -1.1, -1.1, -1.0, -1.0, -0.9, -0.9, -0.5, -0.4, -0.2, -0.2, -0.2, -0.2, -0.2,
         -0.1, -0.0, -0.0],
        [-1.4, -0.7, -0.1, 0.0, -0.0],
        [0.3, 0.3, 0.3, 0.3, -0.1, -0.7, 0.0, -0.2, 0.1],
        [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.7, -0.9, -0.3],
    ]  # fmt: skip
    d = np.full((len(rows), max(map(len, rows))), np.nan)
    for r, x in enumerate(rows):
        d[r, : len(x)] = x
    for test in ("paired_t", "wald"):
        check_against_replay(d, test)


def test_zeros_left_by_the_largest_removals_create_no_claim():
    """The previous release's case: removing the three largest of -0.0, -0.0, 0.3, 0.4, 0.8
    leaves two zeros, on which no test claims anything (it claimed B from the rounding)."""
    d = np.array([[-0.0, -0.0, 0.3, 0.4, 0.8]])
    for test in ("paired_t", "wald"):
        check_against_replay(d, test)
        f = fragility.graded_flips(d, test=test, alternative="less")
        assert np.isnan(f.items[0]) and int(f.after[0]) == 0
