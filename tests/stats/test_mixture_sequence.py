"""The one family of e-processes behind watch's decision and its interval: mixtures of
constant bets, one per candidate mean, and the interval that leaves 0 out exactly when the
evidence decides."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap.errors import InputError
from evalgap.stats import sequential as sq


def _binary(rng, size, plus=0.2, minus=0.13):
    u = rng.random(size)
    return np.where(u < plus, 1.0, np.where(u < plus + minus, -1.0, 0.0))


def test_at_zero_a_binary_pair_gets_the_discordant_sign_mixture_of_appendix_c():
    """At m = 0 the product of (1 + (2 theta - 1) d) is theta^b (1 - theta)^c 2^n: Eq. 24."""
    d = _binary(np.random.default_rng(0), 900)
    state = sq.mixture_update(sq.mixture_start(), d)
    zero = state.grid.size // 2
    b, c = int((d > 0).sum()), int((d < 0).sum())
    assert sq.mixture_log_e(state)[zero] == pytest.approx(float(sq.log_e_value(b, c)), abs=1e-9)
    assert state.log_max[zero] == pytest.approx(float(sq.log_e_trajectory(d).max()), abs=1e-9)


def test_the_counts_closed_form_equals_the_item_by_item_product_in_any_chunks():
    rng = np.random.default_rng(1)
    d = _binary(rng, 700, 0.3, 0.1)
    whole = sq.mixture_update(sq.mixture_start(), d)
    pieces = sq.mixture_start()
    for part in np.split(d, [3, 50, 51, 400]):
        pieces = sq.mixture_update(pieces, part)
    b, c = (d > 0).sum(), (d < 0).sum()
    closed = sq.mixture_log_e_counts(b, c, d.size - b - c, whole.grid)
    np.testing.assert_allclose(sq.mixture_log_e(whole), closed, atol=1e-8)
    np.testing.assert_allclose(sq.mixture_log_e(pieces), closed, atol=1e-8)
    np.testing.assert_allclose(pieces.log_max, whole.log_max, atol=1e-8)
    assert pieces.count == whole.count == 700


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(-30, 30), min_size=9, max_size=9),
    st.floats(0.01, 20),
    st.integers(0, 2**31),
)
def test_the_interval_leaves_zero_out_exactly_when_the_evidence_reaches_the_level(
    knots, threshold, seed
):
    """Any e-values on the grid (smooth or rough), any level: lower > 0 or upper < 0 iff
    ``log_evidence >= threshold``; the evidence never exceeds the e-value at 0."""
    grid = sq.mean_grid(41)
    rough = np.random.default_rng(seed).normal(0, 2, grid.size)
    for log_e in (np.interp(grid, np.linspace(-1, 1, 9), knots), rough):
        lower, upper, evidence = sq.sequence_bounds(grid, log_e, threshold)
        assert bool((lower > 0) | (upper < 0)) == bool(evidence >= threshold)
        assert evidence <= max(log_e[grid.size // 2], 0.0)
        assert lower <= upper


def test_the_confidence_sequence_covers_the_mean_at_every_look_and_the_size_holds():
    """Graded differences with mean 2/7 - 2/5, 300 items: the running intersection covers the
    mean at every item in at least 1 - alpha of sequences; equal models are decided (0 left
    out) in at most alpha of them."""
    rng = np.random.default_rng(3)
    trials, grid = 200, sq.mean_grid()
    covered = false = 0
    for _ in range(trials):
        x = rng.beta(2, 5, 300) - rng.beta(2, 3, 300)
        state = sq.mixture_update(sq.mixture_start(), x)
        lower, upper, _ = sq.sequence_bounds(grid, state.log_max, np.log(20))
        covered += lower <= 2 / 7 - 2 / 5 <= upper
        null = sq.mixture_update(sq.mixture_start(), rng.beta(2, 3, 300) - rng.beta(2, 3, 300))
        false += bool(sq.sequence_bounds(grid, null.log_max, np.log(20))[2] >= np.log(20))
    se = np.sqrt(0.05 * 0.95 / trials)
    assert covered / trials >= 0.95 - 2 * se
    assert false / trials <= 0.05 + 2 * se


def test_the_grid_is_odd_and_holds_zero():
    assert sq.mean_grid(5).tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    with pytest.raises(InputError, match="odd whole number >= 5"):
        sq.mean_grid(400)


def test_the_evidence_from_counts_is_exact_inside_its_range_and_on_the_right_side_outside():
    """Pairs of every size, share of differing items and gap: the few-point evidence equals
    the whole grid's between 1/alpha and K/alpha and falls on the same side elsewhere."""
    rng = np.random.default_rng(6)
    n = rng.integers(0, 12_000, 600)
    share = rng.uniform(0.02, 0.7, 600)
    gap = rng.normal(0, 0.02, 600) * rng.choice([0.1, 1, 5], 600)
    plus, minus = np.clip((share + gap) / 2, 0, 1), np.clip((share - gap) / 2, 0, 1)
    b = rng.binomial(n, plus)
    c = rng.binomial(n - b, np.clip(minus / np.maximum(1 - plus, 1e-9), 0, 1))
    grid, floor, ceiling = sq.mean_grid(), np.log(20), np.log(406 / 0.05)
    fast = sq.mixture_evidence_counts(b, c, n - b - c, grid, floor, ceiling)
    whole = sq.sequence_bounds(grid, sq.mixture_log_e_counts(b, c, n - b - c, grid), 0.0)[2]
    inside = (whole >= floor) & (whole < ceiling)
    assert inside.sum() > 20
    np.testing.assert_allclose(fast[inside], whole[inside], atol=1e-9)
    assert ((fast >= ceiling) == (whole >= ceiling)).all()
    assert ((fast < floor) == (whole < floor)).all()


def test_the_e_process_at_zero_along_time_is_the_sequence_at_zero():
    x = np.random.default_rng(7).uniform(-1, 1, (3, 250))
    state = sq.mixture_update(sq.mixture_start(), x[1])
    path = sq.mixture_log_e_zero(x)
    assert path.shape == (3, 250)
    assert path[1, -1] == pytest.approx(sq.mixture_log_e(state)[state.grid.size // 2], abs=1e-9)
    assert path[1].max() == pytest.approx(state.log_max[state.grid.size // 2], abs=1e-9)
