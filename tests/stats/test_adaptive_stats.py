"""The adaptive design's pieces: sign information against its closed form, the batch's
choice, and the audit terms' unbiasedness."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.errors import InputError
from evalgap.stats.adaptive import assisted_terms, choose_items, gap_interval, sign_information


def test_sign_information_is_the_chance_to_differ_times_the_divergence_from_a_fair_coin():
    rng = np.random.default_rng(1)
    p_a, p_b = rng.uniform(0.01, 0.99, (2, 300))
    differ = p_a * (1 - p_b) + p_b * (1 - p_a)
    w = p_a * (1 - p_b) / differ
    from scipy.stats import entropy

    kl = np.array([entropy([x, 1 - x], [0.5, 0.5]) for x in w])  # scipy's KL, in nats
    np.testing.assert_allclose(sign_information(p_a, p_b), differ * kl + 1e-3 * differ)
    # symmetric in the two models; zero divergence where they are alike
    np.testing.assert_allclose(sign_information(p_b, p_a), sign_information(p_a, p_b))
    assert sign_information(0.5, 0.5) == pytest.approx(1e-3 * 0.5)
    with pytest.raises(InputError, match="probabilities"):
        sign_information([1.2], [0.5])


def test_the_batch_takes_the_best_unrun_items_and_the_audit_share_at_random():
    info = np.arange(100, dtype=float)
    run = np.zeros(100, dtype=bool)
    run[90:] = True
    items, drawn = choose_items(info, run, 20, audit=0.25, rng=np.random.default_rng(0))
    assert drawn.sum() == 5 and items.size == 20
    best = items[~drawn]
    audit = set(items[drawn].tolist())
    # the best unrun items not drawn for the audit, in order of information
    expected = [i for i in range(89, -1, -1) if i not in audit][:15]
    assert best.tolist() == expected
    with pytest.raises(InputError, match="batch must be at least 1"):
        choose_items(info, run, 0)
    with pytest.raises(InputError, match=r"audit must lie in \[0, 1\]"):
        choose_items(info, run, 5, audit=1.5)


def test_audit_draws_are_uniform_over_every_item():
    counts = np.zeros(10)
    rng = np.random.default_rng(3)
    for _ in range(2000):
        items, drawn = choose_items(np.arange(10.0), np.zeros(10, bool), 5, audit=0.4, rng=rng)
        np.add.at(counts, items[drawn], 1)
    # 4,000 draws over 10 items: each about 400 (chi-square against uniform)
    from scipy.stats import chisquare

    assert chisquare(counts).pvalue > 0.001


def test_the_audit_estimate_is_unbiased_whatever_the_predictions():
    rng = np.random.default_rng(2)
    d = rng.choice([-1.0, 0.0, 1.0], size=60, p=[0.2, 0.5, 0.3])
    for m in (np.zeros(60), rng.uniform(-1, 1, 60), d * 0.9):
        z = assisted_terms(d, m, np.full(60, m.mean()))  # every item drawn once
        assert z.mean() == pytest.approx(d.mean())
    # the spread shrinks as the predictions improve
    spread = [assisted_terms(d, m, np.full(60, m.mean())).std() for m in (0 * d, 0.9 * d)]
    assert spread[1] < spread[0]
    g = gap_interval([0.9, 1.0, 1.0])
    assert g["high"] == 1.0 and np.isnan(gap_interval([0.3])["low"])


def test_the_gap_interval_is_students_t():
    from scipy import stats

    z = np.random.default_rng(7).normal(0.05, 0.3, 23)
    g = gap_interval(z, alpha=0.1)
    low, high = stats.t.interval(0.9, 22, loc=z.mean(), scale=stats.sem(z))
    assert (g["low"], g["high"]) == pytest.approx((low, high))


def test_a_small_batch_gets_its_audit_share_on_average():
    rng = np.random.default_rng(11)
    counts = [
        choose_items(np.arange(50.0), np.zeros(50, bool), 2, audit=0.2, rng=rng)[1].sum()
        for _ in range(4000)
    ]
    # 0.4 draws a batch on average (SE 0.008)
    assert np.mean(counts) == pytest.approx(0.4, abs=0.03) and set(counts) == {0, 1}
