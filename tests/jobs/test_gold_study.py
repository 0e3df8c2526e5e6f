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


def test_the_study_runs_from_the_command_line_as_in_python(run_cli):
    """`evalgap simulate gold` is the library's gold_study: the same rows in --json, whatever
    the number of processes."""
    import json

    from evalgap import simulate

    settings = dict(n_pairs=3, n_trials=150, seed=4)
    alone = simulate.gold_study("examples/board.csv", **settings)
    spread = simulate.gold_study("examples/board.csv", jobs=2, **settings)
    assert alone.to_dict() == spread.to_dict()
    out = run_cli("simulate", "gold", "--scores", "examples/board.csv", "--n-pairs", "3",
                  "--n-trials", "150", "--seed", "4", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["pairs"] == json.loads(json.dumps(alone.to_dict()["pairs"]))
    assert data["n_trials"] == 150 and len(data["pairs"]) == 4
    assert data["verdict"] == alone.verdict
    text = run_cli("simulate", "gold", "--scores", "examples/board.csv", "--n-pairs", "3",
                   "--n-trials", "150", "--seed", "4")  # fmt: skip
    assert text.returncode == 0 and "gold study: 4 pairs x 150 runs" in text.stdout
    assert alone.verdict.split(";")[0] in " ".join(text.stdout.split())


def test_the_study_on_alpaca_eval_flips_its_built_pair():
    from evalgap import simulate

    r = simulate.gold_study(
        shared_file("alpaca_eval", "alpaca_eval_long.csv.gz"), n_pairs=10, n_trials=300,
        model_column="model", item_column="item", score_column="win", task_column="none",
    )  # fmt: skip
    _check(r)
    assert len(r.pairs) == 11 and r.pairs[0].n_gold >= 80


def test_the_study_refuses_what_it_cannot_honour(run_cli):
    from evalgap import simulate

    with pytest.raises(InputError, match="bias_low must be at most"):
        simulate.gold_study("examples/board.csv", bias_low=0.2, bias_high=0.1)
    frame = pd.DataFrame({"model": list("aabb"), "item": [1, 2, 1, 2], "task": list("xyxy"),
                          "score": [0.1, 0.2, 0.3, 0.4]})  # fmt: skip
    with pytest.raises(InputError, match="takes one task"):
        simulate.gold_study(frame, n_trials=10)
    out = run_cli("simulate", "gold", "--scores", "examples/board.csv", "--label-share", "2")
    assert out.returncode == 2 and "--label-share" in out.stderr


def test_judge_bias_flags_control_the_family_where_each_models_test_does_not():
    """With every model's gold drawn from its judge (true bias 0), Holm over the models
    flags one in at most alpha of the label sets (within Monte Carlo error); each model's
    own 95% test flags one in most of them."""
    from evalgap.jobs.gold_study import bias_flags

    rng = np.random.default_rng(5)
    judge = np.clip(rng.beta(2, 3, (30, 500)) + rng.normal(0, 0.05, (30, 500)), 0, 1)
    flags = bias_flags(judge, np.zeros(30), label_share=0.1, runs=400, alpha=0.05,
                       rng=np.random.default_rng(0))  # fmt: skip
    assert flags is not None and flags.n_unbiased == 30 and flags.n_trials == 400
    assert flags.family_wise_holm <= 0.05 + 2 * flags.monte_carlo_se
    # 30 independent tests at 0.05: 1 - 0.95^30 = 0.785 by the closed form
    assert flags.family_wise_unadjusted == pytest.approx(1 - 0.95**30, abs=0.07)
    # models with a real bias are not false flags: without an unbiased model, no figure
    assert bias_flags(judge, np.full(30, 0.05), label_share=0.1, runs=10, alpha=0.05,
                      rng=np.random.default_rng(0)) is None  # fmt: skip


def test_judge_bias_flags_on_alpaca_eval_with_gold_from_the_judge():
    from evalgap import simulate

    r = simulate.gold_study(
        shared_file("alpaca_eval", "alpaca_eval_long.csv.gz"), n_pairs=0, n_trials=200,
        bias_low=0.0, bias_high=0.0, score_column="win", task_column="none",
    )  # fmt: skip
    f = r.bias_flags
    assert f is not None and (f.n_models, f.n_unbiased, f.n_trials) == (58, 58, 200)
    assert f.family_wise_holm <= 0.05  # the bound, over 200 label sets
    assert f.family_wise_unadjusted > 0.5  # one in 58 intervals misses by chance
    assert "judge-bias flags (Holm over the models)" in r.verdict
