"""Bradley-Terry scores from arena battles, their bootstrap, and ranks on battles."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io.battles import read_battles
from evalgap.stats import bradley_terry as bt


def _arena(n_models=12, n_battles=20_000, tie_rate=0.1, seed=0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    outcome = np.where(
        rng.random(n_battles) < tie_rate, 0.5, (rng.random(n_battles) < p).astype(float)
    )
    return a, b, outcome, strength


def test_scores_equal_an_unpenalized_logistic_regression():
    """The MLE with ties as half wins is the GLM Binomial fit of the outcome on x_a - x_b
    (statsmodels, one reference model), centred: to 1e-6 (here ~1e-13)."""
    sm = pytest.importorskip("statsmodels.api")
    a, b, y, _ = _arena(n_models=15, n_battles=30_000)
    fit = bt.fit(bt.battles(a, b, y))
    design = np.zeros((y.size, 15))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, design[:, 1:], family=sm.families.Binomial()).fit(tol=1e-14)
    oracle = np.concatenate([[0.0], glm.params])
    np.testing.assert_allclose(fit.scores, oracle - oracle.mean(), atol=1e-6)
    # the model-based covariance is the GLM's on the same constraint
    k = 15
    embed = np.zeros((k, k))
    embed[1:, 1:] = glm.cov_params()
    centring = np.eye(k) - 1 / k
    np.testing.assert_allclose(fit.covariance, centring @ embed @ centring, atol=1e-8)


def test_sandwich_equals_the_model_covariance_when_the_model_holds_and_bootstrap_agrees():
    a, b, y, strength = _arena(n_models=8, n_battles=40_000, tie_rate=0.0, seed=3)
    data = bt.battles(a, b, y)
    fit = bt.fit(data)
    model_se = np.sqrt(np.diag(fit.covariance))
    np.testing.assert_allclose(np.sqrt(np.diag(fit.robust_covariance)), model_se, rtol=0.05)
    draws = bt.bootstrap(data, 600, seed=4)
    assert not np.isnan(draws).any()
    np.testing.assert_allclose(draws.std(axis=0), model_se, rtol=0.12)
    assert np.corrcoef(fit.scores, strength)[0, 1] > 0.99
    win = fit.win_probability()
    np.testing.assert_allclose(win + win.T, 1.0)


def test_vectorized_bootstrap_equals_refitting_each_replicate():
    a, b, y, _ = _arena(n_models=6, n_battles=3_000, seed=5)
    data = bt.battles(a, b, y)
    draws = bt.bootstrap(data, 5, seed=9)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(9)))
    counts = rng.multinomial(data.n_battles, data.count / data.n_battles, size=5)
    for r in range(5):
        keep = counts[r] > 0
        again = bt.Battles(
            6, data.first[keep], data.second[keep], data.outcome[keep], counts[r][keep]
        )
        np.testing.assert_allclose(draws[r], bt.fit(again).scores, atol=1e-9)


def test_davidson_without_ties_is_bradley_terry():
    a, b, y, _ = _arena(n_models=5, n_battles=5_000, tie_rate=0.0, seed=6)
    data = bt.battles(a, b, y)
    davidson = bt.fit(data, ties="davidson")
    assert davidson.tie_parameter < 1e-3
    np.testing.assert_allclose(davidson.scores, bt.fit(data).scores, atol=1e-3)
    with_ties = bt.fit(
        bt.battles(*_arena(n_models=5, n_battles=5_000, tie_rate=0.3)[:3]), ties="davidson"
    )
    assert 0.3 < with_ties.tie_parameter < 2


def test_a_model_that_never_loses_has_no_score_and_the_error_says_so():
    data = bt.battles([0, 0, 1, 2], [1, 2, 2, 1], [1, 1, 1, 1])
    with pytest.raises(InputError, match="Bradley-Terry scores do not exist"):
        bt.fit(data)


def test_battle_table_errors_and_self_battles(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("model_a,model_b,winner\nx,y,model_a\ny,x,draw\n")
    with pytest.raises(InputError, match=r"row 3: winner 'draw' is not one of"):
        read_battles(path)
    path.write_text("a,b,winner\nx,y,model_a\n")
    with pytest.raises(InputError, match="missing columns model_a, model_b"):
        read_battles(path)
    path.write_text("model_a,model_b,winner\nx,y,model_a\nx,x,tie\ny,x,tie (bothbad)\n")
    table = read_battles(path)
    assert table.outcome.tolist() == [1.0, 0.5]
    assert table.notes == ("1 battle of a model with itself left out (row 3)",)


def test_ranks_on_battles_through_the_command(run_cli, tmp_path):
    a, b, y, strength = _arena(n_models=8, n_battles=8_000, seed=11)
    names = np.array([f"m{i}" for i in range(8)])
    winner = np.where(y == 1, "model_a", np.where(y == 0, "model_b", "tie"))
    path = tmp_path / "battles.csv"
    pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner}).to_csv(
        path, index=False
    )
    out = run_cli("ranks", "--battles", path, "--json", "--top-k", "2")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["method"] == "max-t stepdown bootstrap (Bradley-Terry)"
    assert data["bradley_terry"]["n_battles"] == 8_000
    best = names[np.argmax(strength)]
    assert data["ranks"][0]["model"] == best and best in data["top_k"]["models"]["battles"]
    r = evalgap.ranks(battles=path, ties="davidson", n_bootstrap=200)
    assert r.bradley_terry["tie_parameter"] > 0
    text = run_cli("ranks", "--battles", path, "--n-bootstrap", "200")
    assert text.returncode == 0 and "Bradley-Terry" in text.stdout
