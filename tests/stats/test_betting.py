"""Betting e-processes for graded paired differences, their confidence sequences, and e-BH."""

from __future__ import annotations

import numpy as np
import pytest

from evalgap.stats import sequential as sq


def test_type_one_error_under_continuous_monitoring_is_at_most_alpha():
    """Graded differences of two equal models (Beta scores), watched after every item for
    3,000 items: the e-process ever reaching 1/alpha is the error of stopping at that item."""
    rng = np.random.default_rng(0)
    trials = 3000
    x = rng.beta(2, 3, (trials, 3000)) - rng.beta(2, 3, (trials, 3000))
    rate = np.mean((sq.betting_log_e(x) >= np.log(20)).any(axis=1))
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / trials)


def test_every_capital_is_a_martingale_factor_with_mean_one():
    """E[1 + lambda (X - m)] = 1 under H0: the mean of the final e-value is at most 1."""
    rng = np.random.default_rng(1)
    x = rng.choice([-1.0, 0.0, 1.0], p=[0.2, 0.6, 0.2], size=(40_000, 50))
    e = np.exp(sq.betting_log_e(x)[:, -1])
    assert e.mean() == pytest.approx(1.0, abs=4 * e.std() / np.sqrt(e.size))


def test_power_and_a_shifted_null():
    rng = np.random.default_rng(2)
    x = np.clip(rng.normal(0.05, 0.3, (500, 3000)), -1, 1)
    assert np.mean((sq.betting_log_e(x) >= np.log(20)).any(axis=1)) > 0.95
    # tested against its own mean (0.05) it stays quiet
    shifted = sq.betting_log_e(x, null=0.05)
    assert np.mean((shifted >= np.log(20)).any(axis=1)) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 500)


def test_confidence_sequence_covers_the_mean_at_every_time():
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(200):
        x = rng.beta(2, 5, 1000) - rng.beta(2, 3, 1000)  # mean 2/7 - 2/5
        low, high = sq.betting_confidence_sequence(x, grid_points=401)
        covered += low <= 2 / 7 - 2 / 5 <= high
    assert covered / 200 >= 0.95 - 2 * np.sqrt(0.05 * 0.95 / 200)


def test_e_bh_matches_its_definition_and_controls_fdr():
    rng = np.random.default_rng(4)
    for _ in range(200):
        e = np.exp(rng.normal(1, 2, 12))
        got = sq.e_bh(e, 0.1)
        k = max([j for j in range(1, 13) if np.sort(e)[::-1][j - 1] >= 12 / (j * 0.1)], default=0)
        assert got.sum() == k and (k == 0 or e[got].min() >= np.sort(e)[::-1][k - 1])
    # FDR: 8 true nulls (betting e-values of mean-zero data) and 4 shifted pairs
    false, total = 0.0, 0
    for _ in range(300):
        x = rng.normal(0, 0.3, (12, 400))
        x[:4] += 0.15
        e = np.exp(sq.betting_log_e(np.clip(x, -1, 1))[:, -1])
        rejected = sq.e_bh(e, 0.1)
        false += rejected[4:].sum() / max(rejected.sum(), 1)
        total += 1
    assert false / total <= 0.1


def test_incremental_confidence_sequence_equals_the_batch_one():
    rng = np.random.default_rng(5)
    x = rng.uniform(-0.4, 0.8, 2000)
    state = sq.betting_start(grid_points=401)
    for chunk in np.array_split(x, 9):
        state = sq.betting_update(state, chunk)
    assert sq.betting_interval(state) == sq.betting_confidence_sequence(x, grid_points=401)
    batch = sq.betting_log_e(x, null=state.grid)[:, -1]
    np.testing.assert_allclose(
        np.logaddexp(state.log_up, state.log_down) - np.log(2), batch, atol=1e-9
    )
    assert state.count == 2000 and state.total == pytest.approx(x.sum())
