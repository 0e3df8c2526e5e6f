"""Items to flip: the exact binary counts against exhaustive and one-at-a-time searches with
scipy's tests, Holm's per-pair level against the procedure itself, graded bounds against
every subset of small samples."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from evalgap.stats import fragility, multiplicity

LEVEL = 0.05
POWER = 0.8
NEED = 6  # tests.min_differing_items(0.05): the fewest differing items any valid test needs


def oracle_claim(test, b, c, n, level=LEVEL, alternative="two-sided"):
    """+1 / -1 / 0: which model the test declares better, from scipy, written independently."""
    if b + c == 0:
        return 0
    if test == "wald":
        delta = (b - c) / n
        var = (b + c) / n - delta**2
        t = np.sign(delta) * np.inf if var <= 0 else delta / np.sqrt(var / n)
        z = sps.norm.isf(level / 2 if alternative == "two-sided" else level)
        bar = z + sps.norm.ppf(POWER)
        side = 1 if t >= bar else -1 if t <= -bar else 0
        side = side if b + c >= NEED else 0
    else:
        if test == "exact":
            p = sps.binomtest(int(b), int(b + c), 0.5, alternative=_scipy_side(alternative)).pvalue
        elif test == "mcnemar":
            if alternative == "two-sided":
                p = sps.chi2.sf((b - c) ** 2 / (b + c), 1)
            else:
                z = (b - c) / np.sqrt(b + c)
                p = sps.norm.sf(z) if alternative == "greater" else sps.norm.cdf(z)
        elif test == "mcnemar_cc":
            if alternative == "two-sided":
                p = sps.chi2.sf(max(abs(b - c) - 1, 0) ** 2 / (b + c), 1)
            else:  # Edwards' correction moves b - c one step towards the null
                p = sps.norm.sf((b - c - 1) / np.sqrt(b + c))
        else:
            raise AssertionError(test)
        side = int(np.sign(b - c)) if p <= level else 0
    if alternative == "greater":
        side = max(side, 0)
    elif alternative == "less":
        side = min(side, 0)
    return side


def _scipy_side(alternative):
    return {"two-sided": "two-sided", "greater": "greater", "less": "less"}[alternative]


def exhaustive(test, b, c, n, alternative="two-sided"):
    """Fewest removals (any mix of A-only, B-only and concordant items) that change the claim."""
    now = oracle_claim(test, b, c, n, alternative=alternative)
    best = None
    concordant = n - b - c
    for i in range(b + 1):
        for j in range(c + 1):
            for k in range(concordant + 1):
                total = i + j + k
                if total == 0 or (best is not None and total >= best) or n - total < 1:
                    continue
                after = oracle_claim(test, b - i, c - j, n - total, alternative=alternative)
                if (now != 0 and after != now) or (now == 0 and after != 0):
                    best = total
    return now, best


@pytest.mark.parametrize("test", ["exact", "mcnemar", "mcnemar_cc", "wald"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_binary_flips_equal_an_exhaustive_search(test, alternative):
    rng = np.random.default_rng(7)
    cases = [(9, 0, 12), (12, 3, 16), (3, 12, 16), (7, 7, 20), (14, 2, 17), (0, 0, 4)]
    cases += [tuple(int(v) for v in row) for row in rng.integers(0, 14, size=(14, 2))]
    for b, c, *rest in cases:
        n = rest[0] if rest else b + c + int(rng.integers(0, 6))
        now, best = exhaustive(test, b, c, n, alternative)
        f = fragility.binary_flips(
            b, c, n, test=test, alternative=alternative, min_differing=NEED if test == "wald" else 0
        )
        assert int(f.favours[0]) == now, (b, c, n)
        got = None if np.isnan(f.items[0]) else int(f.items[0])
        assert got == best, (test, b, c, n, now)
        if got is not None:
            # The removal set it names does reverse the verdict.
            ra, rb, rc = (
                int(v[0]) for v in (f.remove_a_only, f.remove_b_only, f.remove_concordant)
            )
            assert ra + rb + rc == got and ra <= b and rb <= c and rc <= n - b - c
            after = oracle_claim(test, b - ra, c - rb, n - got, alternative=alternative)
            assert after != now and after == int(f.after[0])


def one_at_a_time(test, b, c, n, level):
    """Remove one item at a time, trying each kind and keeping the one that moves the verdict
    most (the p-value up for a claim, down for none), until the verdict changes."""

    def p_of(bb, cc, nn):
        if test == "exact":
            return sps.binomtest(bb, bb + cc, 0.5).pvalue if bb + cc else 1.0
        return sps.chi2.sf((bb - cc) ** 2 / (bb + cc), 1) if bb + cc else 1.0

    now = oracle_claim(test, b, c, n, level)
    state, steps = (b, c, n), 0
    while True:
        bb, cc, nn = state
        options = []
        if bb:
            options.append((bb - 1, cc, nn - 1))
        if cc:
            options.append((bb, cc - 1, nn - 1))
        if nn > bb + cc:
            options.append((bb, cc, nn - 1))
        if not options:
            return None
        key = (lambda s: -p_of(*s)) if now else (lambda s: p_of(*s))
        state = min(options, key=key)
        steps += 1
        if oracle_claim(test, *state, level) != now:
            return steps


@pytest.mark.parametrize("test", ["exact", "mcnemar"])
def test_binary_flips_equal_removing_one_item_at_a_time_on_board_sized_pairs(test):
    """Pairs with MMLU-Pro's shape (12,032 items, hundreds of discordant items), at alpha and
    at a Bonferroni level: the count the bisection finds is the greedy search's."""
    rng = np.random.default_rng(3)
    for _ in range(6):
        c = int(rng.integers(150, 500))
        b = c + int(rng.integers(0, 90))
        level = float(rng.choice([LEVEL, LEVEL / 406]))
        f = fragility.binary_flips(b, c, 12_032, test=test, level=level)
        expected = one_at_a_time(test, b, c, 12_032, level)
        assert (None if np.isnan(f.items[0]) else int(f.items[0])) == expected


def test_claims_agree_with_the_pair_tests_p_values():
    from evalgap.stats import tests

    b = np.array([295, 249, 40, 0, 12])
    c = np.array([249, 295, 20, 0, 12])
    for_a, for_b = fragility.claims("exact", b, c, b + c + 100, LEVEL)
    p = tests.mcnemar_exact(b, c)
    np.testing.assert_array_equal(for_a | for_b, p <= LEVEL)
    np.testing.assert_array_equal(for_a, (p <= LEVEL) & (b > c))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 8, allow_nan=False), min_size=1, max_size=12),
    st.integers(0, 3),
    st.floats(0, 9, allow_nan=False),
)
def test_holm_level_reproduces_the_procedure_for_any_value_of_one_pair(values, extra, moved):
    t = np.array(values)
    m = t.size + extra
    levels = fragility.holm_levels(t, LEVEL, POWER, m)
    for i in range(t.size):
        for value in (t[i], moved, levels[i] * 0 + moved / 2):
            trial = t.copy()
            trial[i] = value
            resolved = multiplicity.resolved_holm(trial, LEVEL, POWER, m)[i]
            bar = multiplicity.resolution_threshold(levels[i], POWER)
            assert resolved == (abs(value) >= bar), (t, i, value, levels[i])


def test_bonferroni_level_is_single_step():
    t = np.array([5.0, 3.3, 2.0])
    assert fragility.holm_levels(t, LEVEL, POWER, 3)[2] == pytest.approx(LEVEL / 1)
    f = fragility.binary_flips(
        [300, 300], [200, 200], 12_032, test="wald", level=[LEVEL, LEVEL / 45]
    )
    assert f.items[0] > f.items[1]  # a stricter level is easier to lose


def brute_graded(d, test, level=LEVEL):
    """Fewest items whose removal (any subset) changes the verdict; the verdict from scipy."""

    def side(x):
        x = np.asarray(x, float)
        if x.size < 2:
            return 0
        if test == "paired_t":
            if np.all(x == x[0]):
                return int(np.sign(x[0])) if x[0] != 0 else 0
            p = sps.ttest_1samp(x, 0.0).pvalue
            return int(np.sign(x.mean())) if p <= level else 0
        sd = x.std()
        t = np.sign(x.mean()) * np.inf if sd == 0 else x.mean() / (sd / np.sqrt(x.size))
        bar = sps.norm.isf(level / 2) + sps.norm.ppf(POWER)
        ok = np.count_nonzero(x) >= NEED
        return (1 if t >= bar else -1 if t <= -bar else 0) if ok else 0

    now = side(d)
    for k in range(1, len(d)):
        for drop in itertools.combinations(range(len(d)), k):
            if side(np.delete(d, drop)) != now:
                return now, k
    return now, None


@pytest.mark.parametrize("test", ["paired_t", "wald"])
def test_graded_bounds_bracket_the_exhaustive_answer(test):
    rng = np.random.default_rng(11)
    exact_seen = 0
    for _ in range(25):
        n = int(rng.integers(7, 11))
        d = np.round(rng.normal(rng.choice([0.0, 0.3, 0.6]), 0.4, n), 2)
        now, best = brute_graded(d, test)
        f = fragility.graded_flips(
            d[None, :], test=test, min_differing=NEED if test == "wald" else 0
        )
        assert int(f.favours[0]) == now
        if best is None or (now == 0 and np.isnan(f.items[0])):
            # Without a claim only the greedy search is run; NaN there says it found no set.
            assert best is not None or np.isnan(f.items[0])
            continue
        assert f.items[0] >= best  # the greedy set reverses it, so it is never below the minimum
        if now != 0:
            assert f.lower[0] <= best
        if f.exact[0]:
            exact_seen += 1
            assert f.items[0] == best
    assert exact_seen >= 1  # the bound is loose (SS of what remains <= the full SS) but meets


def test_graded_sign_of_claims_and_missing_items():
    d = np.array(
        [
            [0.5, 0.4, 0.3, 0.2, 0.1, 0.0, 0.3, 0.2],
            [-0.5, -0.4, -0.3, -0.2, -0.1, 0.0, -0.3, np.nan],
        ]
    )
    f = fragility.graded_flips(d)
    assert f.favours.tolist() == [1, -1]
    # Removing the greedy set from each row reverses its verdict.
    assert f.remove_a_only[0] == f.items[0] and f.remove_b_only[1] == f.items[1]


def test_binary_flips_refuses_impossible_counts():
    from evalgap.errors import InputError

    with pytest.raises(InputError, match="n_items"):
        fragility.binary_flips(10, 10, 5)
    with pytest.raises(InputError, match="test"):
        fragility.binary_flips(10, 1, 50, test="z")  # type: ignore[arg-type]


def _arena(seed, k, n, spread=0.4):
    from evalgap.stats import bradley_terry as bt

    rng = np.random.default_rng(seed)
    theta = rng.normal(0, spread, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    y = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
    data = bt.battles(a, b, y, k)
    return data, bt.fit(data)


def _refit_order(data, count):
    from evalgap.stats import bradley_terry as bt

    keep = count > 0
    reduced = bt.Battles(data.n_models, data.first[keep], data.second[keep],
                         data.outcome[keep], count[keep].astype(np.int64))  # fmt: skip
    return bt.fit(reduced).scores


def _one_battle_at_a_time(data, a, b):
    """Remove one battle at a time, refitting for every candidate cell and keeping the
    removal that lowers theta_a - theta_b most, until B is level with or above A."""
    count = data.count.astype(float).copy()
    steps = 0
    while True:
        best = None
        for cell in np.flatnonzero(count > 0):
            trial = count.copy()
            trial[cell] -= 1
            scores = _refit_order(data, trial)
            if best is None or scores[a] - scores[b] < best[0]:
                best = (scores[a] - scores[b], cell)
        count[best[1]] -= 1
        steps += 1
        if best[0] <= 0:
            return steps


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_battle_flips_equal_refitting_after_each_single_removal(seed):
    data, fitted = _arena(seed, 6, 400)
    top = np.argsort(-fitted.scores)
    found = fragility.battle_flips(data, fitted, top[0], top[1])
    assert found.battles == _one_battle_at_a_time(data, top[0], top[1])
    assert found.refits >= 1 and np.isfinite(found.predicted)


def test_battle_flips_on_a_50_model_arena_are_confirmed_by_refitting():
    data, fitted = _arena(1, 50, 200_000, spread=0.5)
    top = np.argsort(-fitted.scores)
    found = fragility.battle_flips(data, fitted, top[0], top[1])
    assert found.removed.sum() == found.battles and found.battles < 0.01 * data.n_battles
    after = _refit_order(data, data.count - found.removed)
    assert after[top[0]] <= after[top[1]]  # the refit confirms the flip
    # one battle fewer (the last one of the removal set kept) leaves the order as it was
    fewer = found.removed.copy()
    fewer[np.flatnonzero(fewer)[-1]] -= 1
    kept = _refit_order(data, data.count - fewer)
    assert kept[top[0]] > kept[top[1]] or found.battles == 1


def _first_flip_by_refitting(data, fitted, a, b):
    """Brute force: remove battles one at a time along the influence order (sorted in
    full here, ties by cell), refitting from scratch after each, until B is level with A."""
    from evalgap.errors import InputError

    cov = fitted.covariance
    p = 1 / (1 + np.exp(-(fitted.scores[data.first] - fitted.scores[data.second])))
    lever = cov[a, data.first] - cov[a, data.second] - cov[b, data.first] + cov[b, data.second]
    effect = -(data.outcome - p) * lever
    order = np.argsort(effect, kind="stable")
    order = order[effect[order] < 0]
    count = data.count.astype(float).copy()
    removed = 0
    for cell in order:
        for _ in range(int(data.count[cell])):
            count[cell] -= 1
            removed += 1
            try:
                scores = _refit_order(data, count)
            except InputError:  # no MLE: no order to reverse
                continue
            if scores[a] <= scores[b]:
                return removed
    return np.nan


@pytest.mark.parametrize("seed", [3, 5])
def test_battle_flips_equal_the_first_flip_of_refits_from_scratch_for_every_pair(seed):
    """The fast search (a partial sort, chord refits stopped once the gap's sign is settled,
    interpolated brackets) lands on the count an exhaustive scan of full refits finds, for
    every ordered pair of a small arena: adjacent, far apart, and the top claim's."""
    data, fitted = _arena(seed, 7, 700, spread=0.3)
    order = np.argsort(-fitted.scores)
    checked = 0
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            a, b = int(order[i]), int(order[j])
            found = fragility.battle_flips(data, fitted, a, b)
            truth = _first_flip_by_refitting(data, fitted, a, b)
            assert found.battles == truth or (np.isnan(found.battles) and np.isnan(truth))
            assert found.removed.sum() == (0 if np.isnan(truth) else truth)
            checked += np.isfinite(truth)
    assert checked >= 15  # most pairs can be reversed


def _t_side(b, c, n, bar):
    if n < 2 or b + c == 0:
        return 0
    d = np.r_[np.ones(b), -np.ones(c), np.zeros(n - b - c)]
    sd = d.std(ddof=1)
    t = np.sign(d.mean()) * np.inf if sd == 0 else d.mean() / (sd / np.sqrt(n))
    return 1 if t > bar else -1 if t < -bar else 0


def test_studentized_flips_equal_an_exhaustive_search():
    """The rank sets' "shown better" at a critical value: exact against every removal mix."""
    bar = 2.7
    for b, c, n in [(14, 2, 20), (9, 0, 12), (3, 12, 18), (6, 6, 15), (11, 4, 30)]:
        now = _t_side(b, c, n, bar)
        best = None
        for i in range(b + 1):
            for j in range(c + 1):
                for k in range(n - b - c + 1):
                    total = i + j + k
                    if total == 0 or (best is not None and total >= best):
                        continue
                    if _t_side(b - i, c - j, n - total, bar) != now:
                        best = total
        f = fragility.binary_flips(b, c, n, test="t", threshold=bar)
        assert int(f.favours[0]) == now
        assert (None if np.isnan(f.items[0]) else int(f.items[0])) == best, (b, c, n)


def test_studentized_graded_bounds_and_a_missing_threshold():
    from evalgap.errors import InputError

    d = np.array([[0.5, 0.4, 0.3, 0.2, 0.1, 0.0, 0.3, 0.2, 0.4, 0.1]])
    f = fragility.graded_flips(d, test="t", threshold=3.0)
    assert f.favours[0] == 1 and f.lower[0] <= f.items[0]
    with pytest.raises(InputError, match="threshold"):
        fragility.graded_flips(d, test="t")
    with pytest.raises(InputError, match="threshold"):
        fragility.binary_flips(3, 1, 10, test="t")


def test_task_flips_reverse_the_verdict_never_below_the_fewest_and_scale_to_billions():
    """The multi-task greedy search (doubling runs, the last bisected): its set reverses the
    verdict, is never below the exhaustive minimum on small boards, and its last run is
    minimal; a billion discordant items take a few dozen evaluations (it took 25 s one item
    at a time)."""
    from evalgap.stats import aggregation as ag

    rng = np.random.default_rng(8)
    calls = {"n": 0}

    def pooled(b, c):
        calls["n"] += 1
        return np.asarray(ag.pooled_p_value(b, c), dtype=float)

    for _ in range(12):
        b = rng.integers(5, 40, 3).astype(float)
        c = rng.integers(0, 25, 3).astype(float)
        found = fragility.task_flips(b, c, pooled, LEVEL)
        decided = bool(pooled(b, c) <= LEVEL)
        if np.isnan(found.items):
            continue
        after = pooled(b - found.remove_a_only, c - found.remove_b_only)
        assert bool(after <= LEVEL) != decided  # the set reverses the verdict
        pool = b if decided else c
        # the fewest removals of the one kind, over every mix of tasks (one batched call)
        grid = np.array(list(itertools.product(*(range(int(v) + 1) for v in pool))), float)
        p = pooled(b - grid * decided, c - grid * (not decided))
        reversing = grid[(p <= LEVEL) != decided].sum(axis=1)
        assert reversing.size and found.items >= reversing.min()
    calls["n"] = 0
    big = fragility.task_flips([1e9, 3.0], [999_990_000.0, 4.0], pooled, LEVEL)
    assert not big.decided and big.items == 63_561 and calls["n"] < 200


def test_graded_greedy_count_equals_replaying_the_removals_one_at_a_time():
    """The greedy count of a claim that exists (the removal counts scanned in widening
    blocks) equals removing the claim's largest differences one at a time and testing again
    with scipy's t test, past the first block of 32 removals; the removal's kinds are the
    signs of the items it takes."""
    rng = np.random.default_rng(4)
    d = np.round(rng.normal(rng.uniform(0.15, 0.4, (12, 1)), 0.5, (12, 300)), 2)
    d[::3] *= -1  # claims for B too
    d[rng.random(d.shape) < 0.05] = np.nan
    f = fragility.graded_flips(d, level=0.01)
    assert (f.favours != 0).all() and np.nanmax(f.items) > 32
    for row, sign, count in zip(d, f.favours, f.items, strict=True):
        x = row[~np.isnan(row)]
        order = np.argsort(-sign * x, kind="stable")
        first = next(
            k for k in range(1, x.size)
            if sps.ttest_1samp(np.delete(x, order[:k]), 0.0).pvalue > 0.01
            or np.sign(np.delete(x, order[:k]).mean()) != sign
        )  # fmt: skip
        assert count == first
    removed = [
        np.sort(-s * r[~np.isnan(r)])[: int(k)]
        for r, s, k in zip(d, f.favours, f.items, strict=True)
    ]
    positive = np.array([(-v > 0).sum() for v in removed])
    assert np.array_equal(np.where(f.favours > 0, f.remove_a_only, f.remove_b_only), positive)


def test_battle_flip_predictions_share_one_empty_removal():
    """The top claim asks for every challenger's prediction: those results remove nothing
    and share one read-only array (999 per-cell arrays held 5 GiB at 1,000 models x 1M
    battles), while a confirmed count gets its own."""
    from evalgap.stats.bradley_terry import Removals

    data, fitted = _arena(1, 20, 20_000, spread=0.5)
    top = np.argsort(-fitted.scores)
    removals = Removals.of(data, fitted)  # one fit's refits, as the arena's claims share them
    guesses = [
        fragility.battle_flips(data, fitted, top[0], k, confirm=False, removals=removals)
        for k in top[1:]
    ]
    assert all(g.removed is guesses[0].removed for g in guesses)
    assert not guesses[0].removed.flags.writeable and not guesses[0].removed.any()
    found = fragility.battle_flips(data, fitted, top[0], top[1], removals=removals)
    assert found.removed.flags.writeable and found.removed.sum() == found.battles
