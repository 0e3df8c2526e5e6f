"""The gold-scale gap's coverage on judged boards: a synthetic one always, AlpacaEval's
judge preferences when the shared data is present (gold labels simulated with a known bias
per model, one pair built to flip)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap.errors import InputError
from evalgap.jobs.gold_study import flipped_pair, gold_coverage

from conftest import shared_file


def _check(r, flip_row=0):
    floor = 1 - r.alpha - 2 * r.monte_carlo_se
    assert r.coverage >= floor, (r.coverage, floor)
    assert r.gold_only_coverage >= floor - 0.01
    assert r.width_ratio < 0.95  # narrower than the gold labels alone, at equal coverage
    row = r.pairs[flip_row]
    assert row.flipped and row.judge_gap * row.true_gap < 0


def test_coverage_on_a_synthetic_judged_board():
    rng = np.random.default_rng(3)
    quality = rng.beta(2, 3, (12, 600))
    judge = np.clip(quality + rng.normal(0, 0.1, quality.shape), 0, 1)
    bias = rng.uniform(-0.05, 0.10, 12)
    flip = flipped_pair(judge, bias)
    pairs = [flip] + [(i, i + 1) for i in range(0, 10, 2)]
    _check(gold_coverage(judge, bias, pairs, runs=600, seed=1))


def test_coverage_on_alpaca_eval_judge_preferences():
    table = pd.read_csv(shared_file("alpaca_eval", "alpaca_eval_long.csv.gz"))
    wide = table.drop_duplicates(["model", "item"]).pivot(
        index="model", columns="item", values="win"
    )
    judge = wide.to_numpy(dtype=float)
    rng = np.random.default_rng(0)
    bias = rng.uniform(-0.05, 0.10, judge.shape[0])
    flip = flipped_pair(judge, bias)
    pairs = [flip] + [tuple(int(k) for k in rng.choice(judge.shape[0], 2, replace=False))
                      for _ in range(20)]  # fmt: skip
    r = gold_coverage(judge, bias, pairs, models=list(wide.index), runs=500)
    _check(r)
    assert r.pairs[0].n_items == 805 and r.pairs[0].n_gold == 80
    assert len(r.to_frame()) == 21


def test_bad_boards_are_refused():
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        gold_coverage(np.full((2, 5), 2.0), np.zeros(2), [(0, 1)])
    with pytest.raises(InputError, match="one number per model"):
        gold_coverage(np.zeros((2, 5)), np.zeros(3), [(0, 1)])
