"""Invariants of the core, checked on random inputs with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evalgap import compare_counts
from evalgap.stats import intervals
from evalgap.stats import power as pw
from evalgap.stats.paired import summarize_counts, summarize_moments, summarize_scores
from evalgap.stats.tests import mcnemar, mcnemar_exact

cells = st.tuples(*(st.integers(0, 3000) for _ in range(4))).filter(lambda t: sum(t) > 0)


def _scores_from_cells(n11, n10, n01, n00, seed=0):
    a = np.repeat([1, 1, 0, 0], [n11, n10, n01, n00]).astype(float)
    b = np.repeat([1, 0, 1, 0], [n11, n10, n01, n00]).astype(float)
    order = np.random.default_rng(seed).permutation(a.size)
    return a[order], b[order]


@given(cells)
@settings(max_examples=150, deadline=None)
def test_counts_and_scores_paths_agree_exactly(c):
    a, b = _scores_from_cells(*c)
    by_scores, by_counts = summarize_scores(a, b), summarize_counts(*c)
    for name in by_counts.__dataclass_fields__:
        x, y = getattr(by_scores, name), getattr(by_counts, name)
        if x is None and y is None:  # fields only summarize_pairs sets
            continue
        assert np.array_equal(x, y, equal_nan=True), name  # bit-for-bit, NaN where undefined


@given(cells)
@settings(max_examples=150, deadline=None)
def test_moment_path_on_binary_data_equals_counts_path(c):
    a, b = _scores_from_cells(*c)
    by_counts = summarize_counts(*c)
    by_moments = summarize_moments(a, b)
    for name in ("accuracy_a", "accuracy_b", "delta", "sd_diff", "se"):
        assert float(getattr(by_moments, name)) == pytest.approx(
            float(getattr(by_counts, name)), rel=1e-9, abs=1e-12
        )
    if np.isfinite(by_counts.correlation):
        assert float(by_moments.correlation) == pytest.approx(
            float(by_counts.correlation), abs=1e-9
        )
    else:
        assert not np.isfinite(by_moments.correlation)
    assert (by_moments.a_only, by_moments.b_only) == (by_counts.a_only, by_counts.b_only)


@given(cells)
@settings(max_examples=150, deadline=None)
def test_swapping_models_flips_delta_and_keeps_every_p_value(c):
    n11, n10, n01, n00 = c
    ab = compare_counts(n11, n10, n01, n00, n_bootstrap=0, n_bootstrap_required_n=0)
    ba = compare_counts(n11, n01, n10, n00, n_bootstrap=0, n_bootstrap_required_n=0)
    assert ba.delta == -ab.delta
    assert ba.p_values == ab.p_values
    assert ba.required_n == ab.required_n
    assert ba.resolution_ratio == ab.resolution_ratio
    assert ba.correlation == ab.correlation
    assert ba.ci.low == pytest.approx(-ab.ci.high, abs=1e-12)
    # one-sided tests swap their direction
    g = mcnemar_exact(n10, n01, alternative="greater")
    assert float(g) == float(mcnemar_exact(n01, n10, alternative="less"))


@given(st.floats(0.05, 0.95), st.floats(-0.3, 0.95), st.floats(0.001, 0.2), st.floats(1.01, 3))
@settings(max_examples=200, deadline=None)
def test_required_n_decreases_as_the_gap_grows(p, rho, delta, factor):
    small = (p + delta / 2, p - delta / 2)
    big = (p + factor * delta / 2, p - factor * delta / 2)
    assume(0 < big[1] and big[0] < 1)
    lo_s, hi_s = pw.correlation_bounds(*small)
    lo_b, hi_b = pw.correlation_bounds(*big)
    assume(max(lo_s, lo_b) <= rho <= min(hi_s, hi_b))
    # sigma_D held fixed (Equation 3): N* falls exactly as 1/delta^2
    assert float(pw.required_n(factor * delta, 0.4)) == pytest.approx(
        float(pw.required_n(delta, 0.4)) / factor**2
    )
    # Equation 6 around a common midpoint: a bigger gap always needs fewer items
    assert pw.required_n_binary(*big, rho) < pw.required_n_binary(*small, rho)


@given(st.floats(1e-4, 0.5), st.floats(0.01, 1.0), st.integers(10, 10**6))
@settings(max_examples=200, deadline=None)
def test_mde_inverts_required_n(delta, sd, n):
    """Equations 3 and 4 are inverses: N*(MDE(N)) = N, and q >= 1 iff |delta| >= MDE."""
    m = float(pw.mde(n, sd))
    assert float(pw.required_n(m, sd)) == pytest.approx(n, rel=1e-9)
    q = float(pw.resolution_ratio(n, pw.required_n(delta, sd)))
    assert (q >= 1) == (delta >= m) or abs(delta - m) < 1e-12


@given(st.floats(0.0, 0.3), st.floats(0.05, 1.0), st.integers(10, 10**5))
@settings(max_examples=200, deadline=None)
def test_power_at_required_n_is_the_target(delta, sd, n):
    assume(delta > 1e-4)
    n_star = float(pw.required_n(delta, sd))
    # Equation (3) inverts the dominant tail; the other tail adds less than 1e-3 (footnote 1).
    assert float(pw.power_at(delta, sd, n_star)) == pytest.approx(0.8, abs=1e-3)
    # One-sided there is no far tail: the inversion is exact.
    one_sided = pw.required_n(delta, sd, alternative="greater")
    assert float(pw.power_at(delta, sd, one_sided, alternative="greater")) == pytest.approx(0.8)


@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99))
@settings(max_examples=200, deadline=None)
def test_correlation_bounds_are_attainable_by_a_2x2_table(pa, pb):
    lo, hi = pw.correlation_bounds(pa, pb)
    # The extreme tables: maximal and minimal overlap of the two "correct" sets.
    for both in (min(pa, pb), max(0.0, pa + pb - 1)):
        cells = np.array([both, pa - both, pb - both, 1 - pa - pb + both]) * 1e6
        rho = float(summarize_counts(*np.round(cells)).correlation)
        assert lo - 1e-3 <= rho <= hi + 1e-3
    assert -1 <= lo <= 0 <= hi <= 1


def test_inadmissible_correlation_is_refused_with_its_interval():
    from evalgap.errors import InputError

    with pytest.raises(InputError, match=r"choose a correlation in \[-0\.5991, 0\.8987\]"):
        pw.required_n_binary(0.65, 0.60, 0.95)


@given(cells, st.sampled_from([0.01, 0.05, 0.1]))
@settings(max_examples=150, deadline=None)
def test_newcombe_interval_is_proper(c, alpha):
    ci = intervals.newcombe_interval(*c, alpha=alpha)
    delta = float(summarize_counts(*c).delta)
    assert -1 <= ci.low <= delta + 1e-12 and delta - 1e-12 <= ci.high <= 1


def test_vectorized_calls_equal_scalar_calls():
    rng = np.random.default_rng(3)
    table = rng.integers(0, 500, size=(50, 4))
    table[:, 1:3] += 1
    s = summarize_counts(*table.T)
    chi = mcnemar(table[:, 1], table[:, 2]).p_value
    exact = mcnemar_exact(table[:, 1], table[:, 2])
    n_star = pw.required_n(s.delta, s.sd_diff)
    for i, row in enumerate(table):
        one = summarize_counts(*row)
        assert float(one.delta) == s.delta[i] and float(one.correlation) == s.correlation[i]
        assert float(mcnemar(row[1], row[2]).p_value) == chi[i]
        assert float(mcnemar_exact(row[1], row[2])) == exact[i]
        assert float(pw.required_n(one.delta, one.sd_diff)) == n_star[i]


def test_zero_gap_has_no_required_n_and_is_unresolved():
    r = compare_counts(500, 40, 40, 420)
    assert r.delta == 0 and r.required_n is None and not r.resolved
    assert r.resolution_ratio == 0
    assert "exactly zero" in r.verdict
    assert r.to_dict()["required_n"] is None


def test_no_spread_in_the_differences_is_not_called_resolved():
    """All items discordant in one direction: the plug-in sigma_D is 0, Equation (3) would
    give N* = 0; the job reports that N*, MDE and q cannot be estimated instead."""
    r = compare_counts(0, 3, 0, 0)
    assert r.sd_diff == 0 and r.delta == 1
    assert r.required_n is None and r.mde is None and r.resolution_ratio is None
    assert not r.resolved and r.unpaired_required_n is None
    assert "cannot estimate" in r.verdict
    assert round(r.p_values.exact, 2) == 0.25
