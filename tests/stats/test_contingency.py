"""The failure-rate test across configurations against scipy's own tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from evalgap.errors import InputError
from evalgap.stats.contingency import failure_association


def test_large_counts_are_pearsons_chi_square():
    failed, total = np.array([12, 30, 9]), np.array([300, 310, 290])
    t = failure_association(failed, total)
    chi2, p, df, _ = sps.chi2_contingency(np.c_[failed, total - failed], correction=False)
    assert t.method == "chi-square"
    assert (t.statistic, t.df, t.p_value) == pytest.approx((chi2, df, p), rel=1e-12)


def test_two_configurations_with_few_failures_are_fishers_exact_test():
    t = failure_association([0, 4], [80, 80])
    assert t.method == "Fisher exact"
    assert t.p_value == pytest.approx(sps.fisher_exact([[0, 80], [4, 76]]).pvalue, rel=1e-12)


def test_more_configurations_with_few_failures_are_the_exact_freeman_halton_p_value():
    first = failure_association([0, 0, 1, 3], [80, 80, 80, 80])
    assert first.method == "Fisher-Freeman-Halton exact"
    # the exact conditional p-value by brute-force enumeration of the 4 failures over 4 rows
    from itertools import product

    from scipy.special import comb

    tables = [t for t in product(range(5), repeat=4) if sum(t) == 4]
    prob = np.array([np.prod([comb(80, k) for k in t]) for t in tables]) / comb(320, 4)
    observed = np.prod([comb(80, k) for k in (0, 0, 1, 3)]) / comb(320, 4)
    exact = prob[prob <= observed * (1 + 1e-9)].sum()
    assert first.p_value == pytest.approx(exact, rel=1e-9)
    assert first.statistic == pytest.approx(observed, rel=1e-9)


def test_unequal_rows_match_a_brute_force_enumeration():
    from itertools import product

    from scipy.special import comb

    failed, total = (2, 0, 1, 0, 3), (30, 12, 25, 7, 40)
    n_failed = sum(failed)
    tables = [
        t for t in product(*(range(min(n, n_failed) + 1) for n in total)) if sum(t) == n_failed
    ]
    prob = np.array([np.prod([comb(n, k) for n, k in zip(total, t, strict=True)]) for t in tables])
    prob /= comb(sum(total), n_failed)
    observed = np.prod([comb(n, k) for n, k in zip(total, failed, strict=True)])
    observed /= comb(sum(total), n_failed)
    t = failure_association(failed, total)
    assert t.p_value == pytest.approx(prob[prob <= observed * (1 + 1e-9)].sum(), rel=1e-9)


def test_past_the_enumeration_bound_monte_carlo_says_its_error(monkeypatch):
    from evalgap.stats import contingency

    monkeypatch.setattr(contingency, "MAX_EXACT_TABLES", 10)
    t = failure_association([0, 0, 1, 3], [80, 80, 80, 80])
    assert t == failure_association([0, 0, 1, 3], [80, 80, 80, 80])  # seeded: repeatable
    se = np.sqrt(t.p_value * (1 - t.p_value) / contingency.MONTE_CARLO_TABLES)
    assert t.method == f"Fisher-Freeman-Halton (9,999 tables, seed 0; Monte Carlo SE {se:.2g})"
    assert t.p_value == pytest.approx(0.19871167543, abs=4 * se)


def test_nothing_to_test_and_bad_counts():
    assert np.isnan(failure_association([0, 0], [10, 10]).p_value)
    assert np.isnan(failure_association([3], [10]).p_value)
    with pytest.raises(InputError, match="0 <= failed <= total"):
        failure_association([11, 0], [10, 10])
