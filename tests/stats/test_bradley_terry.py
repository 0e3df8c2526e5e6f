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


# --- findings of the ranks review ------------------------------------------------------------


def _frame(rows):
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def test_all_tie_battles_report_the_model_based_se_and_davidson_refuses():
    """Every battle a tie: the sandwich's meat is 0 (SE 0 for every model, claimed before);
    the model-based SE is the inverse information, 1 / sqrt(sum n_j p (1 - p)) on the
    contrast. Davidson's nu has no finite MLE: a one-line error, not a singular matrix."""
    battles = _frame([("a", "b", "tie"), ("b", "c", "tie"), ("c", "a", "tie")] * 10)
    r = evalgap.ranks(battles=battles)
    data = bt.battles([0, 1, 2] * 10, [1, 2, 0] * 10, [0.5] * 30)
    information = bt._information(data, data.count * 0.25)
    centring = np.eye(3) - 1 / 3
    expected = np.sqrt(np.diag(centring @ np.linalg.pinv(information) @ centring))
    np.testing.assert_allclose(r.ranks["se"], expected)
    assert (r.ranks["se"] > 0.25).all() and (r.ranks["score"] == 0).all()
    assert (r.ranks["rank_low"] == 1).all() and (r.ranks["rank_high"] == 3).all()
    assert any("model-based standard errors" in note for note in r.notes)
    with pytest.raises(InputError, match="every battle is a tie: Davidson's tie parameter"):
        evalgap.ranks(battles=battles, ties="davidson")


def test_a_chain_of_one_sided_wins_closed_by_one_upset_fits_and_a_chain_alone_is_named():
    """m0 > m1 > ... > m11, 100-0 each, and one m11 win over m0: the MLE exists (strongly
    connected) with a spread of about 50 (log-odds log(99) per link); it was flagged as
    divergent and the covariance's eigen-solver raised LinAlgError. Without the upset the
    scores do not exist and the error names the models' groups by name."""
    rows = []
    for i in range(11):
        rows += [(f"m{i}", f"m{i + 1}", "model_a")] * 100
    closed = _frame([*rows, ("m11", "m0", "model_a")])
    r = evalgap.ranks(battles=closed, n_bootstrap=600)
    scores = r.ranks.set_index("model")["score"]
    # the score equations: each link's expected losses equal the one upset's expected win
    theta = scores[[f"m{i}" for i in range(12)]].to_numpy()
    link = 100 * (1 - 1 / (1 + np.exp(-(theta[:-1] - theta[1:]))))
    upset = 1 / (1 + np.exp(-(theta[-1] - theta[0])))  # P(m11 beats m0)
    np.testing.assert_allclose(link, 1 - upset, atol=1e-7)
    assert r.ranks["model"].tolist() == [f"m{i}" for i in range(12)]
    named = r"12 groups .*: \[m0\], \[m1\], \[m2\], \[m3\] and 8 more groups"
    with pytest.raises(InputError, match=named):
        evalgap.ranks(battles=_frame(rows))
    with pytest.raises(InputError, match="raise n_bootstrap"):
        evalgap.ranks(battles=closed, n_bootstrap=300)  # too few replicates have scores


def test_battles_scale_through_the_pairs_win_counts():
    """The fit and the bootstrap work on each pair's counts and hold (K, K) arrays, not one
    per replicate: 500 models' bootstrap stays within a few (K, K) arrays and the cells of a
    block (the batched Newton held a (replicates, K, K) Hessian: 3.2 GiB at 1,000 models), and
    each replicate equals refitting its resampled battles."""
    import tracemalloc

    k = 500
    data, strength = _simulated_arena(3, k, 50_000, spread=1.0)
    fit = bt.fit(data)
    assert np.corrcoef(fit.scores, strength)[0, 1] > 0.95
    tracemalloc.start()
    try:
        draws = bt.bootstrap(data, 20, seed=1, start=fit.scores)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, peak / 2**20
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(1)))
    counts = bt._multinomial_counts(rng, data.count, 20).T.astype(np.int64)  # the same draws
    failed = np.isnan(draws).any(axis=1)
    for r in [*np.flatnonzero(~failed)[:2], *np.flatnonzero(failed)[:1]]:
        keep = counts[r] > 0
        cells = data.first[keep], data.second[keep], data.outcome[keep], counts[r][keep]
        again = bt.Battles(k, *cells)
        if failed[r]:  # the replicate has no MLE: refitting says so
            with pytest.raises(InputError, match="do not exist"):
                bt.fit(again)
        else:
            np.testing.assert_allclose(draws[r], bt.fit(again).scores, atol=1e-8)


def test_a_json_array_of_battles_is_read_record_by_record(run_cli, tmp_path):
    """LMArena's clean_battle_<date>.json is a JSON array of records (extra fields, nested
    metadata); it was refused. Damaged arrays name the record; --format is honoured or
    refused, and score-table options are refused with --battles."""
    import evalgap.io.battles as battles_io

    records = [
        {"model_a": "x", "model_b": "y", "winner": "model_a", "conv_metadata": {"t": [1, 2]}},
        {"model_a": "y", "model_b": "z", "winner": "tie (bothbad)", "judge": "arena_user"},
        {"model_a": "z", "model_b": "x", "winner": "model_a", "question_id": "q3"},
    ]
    path = tmp_path / "clean_battle_20240814.json"
    path.write_text(json.dumps(records * 40, indent=1))
    table = read_battles(path)
    assert table.models == ("x", "y", "z") and table.outcome.tolist()[:3] == [1.0, 0.5, 1.0]
    small = read_battles(path)
    original = battles_io.CHUNK_BYTES
    try:
        battles_io.CHUNK_BYTES = 7  # records split across many chunks
        assert read_battles(path).outcome.tolist() == small.outcome.tolist()
    finally:
        battles_io.CHUNK_BYTES = original
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(records)[:-30])
    with pytest.raises(InputError, match="record 3: not valid JSON"):
        read_battles(cut)
    # three prompts repeated 40 times: too few to resample by prompt, so battle by battle
    out = run_cli("ranks", "--battles", path, "--n-bootstrap", "200", "--json",
                  "--cluster-column", "none")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["bradley_terry"]["n_battles"] == 120
    assert json.loads(out.stdout)["bradley_terry"]["n_prompts"] is None
    by_prompt = run_cli("ranks", "--battles", path, "--n-bootstrap", "200")
    assert by_prompt.returncode == 2 and "--n-bootstrap" in by_prompt.stderr
    refused = run_cli("ranks", "--battles", path, "--format", "lm-eval")
    assert refused.returncode == 2
    assert "--format lm-eval does not apply to battles" in refused.stderr
    stray = run_cli("ranks", "--battles", path, "--model-column", "m", "--bootstrap", "empirical")
    assert stray.returncode == 2
    refusal = "--model-column, --bootstrap: per-item score options do not apply to --battles"
    assert refusal in stray.stderr
    with pytest.raises(InputError, match="models=: per-item score options do not apply"):
        evalgap.ranks(battles=path, models=["x"])


def test_battle_options_are_checked_and_frame_rows_named_by_position():
    """method='fast' was silently taken as the bootstrap; a DataFrame's row was given as a
    file line ('row 2' for position 0)."""
    battles = _frame([("a", "b", "model_a"), ("b", "a", "model_a")] * 5)
    with pytest.raises(InputError, match="method must be one of auto, bootstrap, holm"):
        evalgap.ranks(battles=battles, method="fast")
    with pytest.raises(InputError, match="DataFrame, position 0: winner is empty"):
        read_battles(battles.assign(winner=[None] + ["tie"] * 9))
    table = read_battles(_frame([("a", "b", "tie"), ("a", "a", "tie"), ("b", "a", "model_a")]))
    assert table.notes == ("1 battle of a model with itself left out (position 1)",)


def test_the_disconnected_error_shortens_huge_model_names():
    long_a, long_b = "a" * 5000, "b" * 5000
    battles = _frame([(long_a, long_b, "model_a")] * 3)
    with pytest.raises(InputError) as caught:
        evalgap.ranks(battles=battles)
    message = str(caught.value)
    assert len(message) < 400 and f"[{'a' * 57}...]" in message and "\n" not in message


def test_a_json_file_of_one_record_per_line_is_read_as_json_lines(tmp_path):
    """A .json file holding JSON Lines (as many exports name it) was refused as 'not a JSON
    array'; the content decides."""
    path = tmp_path / "battles.json"
    rows = [{"model_a": "x", "model_b": "y", "winner": w} for w in ("model_a", "model_b", "tie")]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert read_battles(path).outcome.tolist() == [1.0, 0.0, 0.5]


def test_a_gzipped_json_array_cut_short_names_the_damage(tmp_path):
    """A cut gzip stream made the format sniff fail and the file was read as JSON Lines
    ('line 1 is not valid JSON'); the array reader now says the stream ended early."""
    import gzip

    rows = [{"model_a": "x", "model_b": "y", "winner": "tie"}] * 200
    whole = gzip.compress(json.dumps(rows).encode())
    path = tmp_path / "clean_battle.json.gz"
    path.write_bytes(whole)
    assert len(read_battles(path).outcome) == 200
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match=r"cannot be read as JSON \(EOFError"):
        read_battles(path)


@pytest.mark.parametrize("seed", [0, 1])
def test_refits_with_battles_removed_equal_fits_from_scratch(seed, monkeypatch):
    """Removals.gap on a thin dense arena (about 2 battles a pair, so removals often cut a
    pair's only win or loss): no maximum exactly where a fit from scratch finds the graph
    disconnected, and otherwise the same side of 0 as that fit's gap, within the bound the
    early stop certifies."""
    rng = np.random.default_rng(seed)
    k = 12
    a = rng.integers(0, k, 150)
    b = (a + rng.integers(1, k, a.size)) % k
    y = (rng.random(a.size) < 0.5).astype(float)
    data = bt.battles(a, b, y, k)
    fit = bt.fit(data)
    monkeypatch.setattr(bt, "_is_dense", lambda pairs, k: True)  # the path of big arenas
    removals = bt.Removals.of(data, fit)
    assert removals.squares is not None  # the dense path, with its graph bypass check
    outcomes = {"none": 0, "refit": 0}
    for trial in range(60):
        if trial % 4 == 0:  # every win of one model (some of its pairs may keep the edge)
            model = trial % k
            won = ((data.first == model) & (data.outcome > 0)) | (
                (data.second == model) & (data.outcome < 1)
            )
            cells = np.flatnonzero(won)[: 2 + trial % 5 * 10]
        else:
            cells = np.unique(rng.choice(data.count.size, rng.integers(1, 8), replace=False))
        take = np.minimum(data.count[cells], rng.integers(1, 3, cells.size)).astype(float)
        if trial % 4 == 0:
            take = data.count[cells].astype(float)
        left = data.count.astype(float)
        left[cells] -= take
        keep = left > 0
        reduced = bt.Battles(k, data.first[keep], data.second[keep], data.outcome[keep],
                             left[keep].astype(np.int64))  # fmt: skip
        m, n = rng.choice(k, 2, replace=False)
        gap, scores = removals.gap(int(m), int(n), cells, take)
        try:
            exact = bt.fit(reduced).scores
        except InputError:
            assert scores is None and np.isnan(gap)
            outcomes["none"] += 1
            continue
        assert scores is not None and np.sign(gap) == np.sign(exact[m] - exact[n])
        # stopped once the sign is settled: the gap then lies within a quarter of itself
        assert abs(gap - (exact[m] - exact[n])) <= 0.25 * abs(gap) + 1e-10
        outcomes["refit"] += 1
    assert outcomes["none"] >= 3 and outcomes["refit"] >= 20


def test_dense_and_pair_by_pair_bootstraps_give_the_same_replicates(monkeypatch):
    """A dense arena's replicates (gradients from (K, K) count matrices) equal the pair by
    pair chord steps' on the same seed, battle by battle and a prompt at a time, and the
    battles-to-flip refits agree too."""
    from evalgap.stats import fragility

    k = 15
    data, _ = _simulated_arena(4, k, 3000, spread=0.5)
    prompts = np.random.default_rng(5).integers(0, 400, data.n_battles)
    first, second = np.repeat(data.first, data.count), np.repeat(data.second, data.count)
    outcome = np.repeat(data.outcome, data.count)
    clustered = bt.battles(first, second, outcome, k, cluster=prompts)
    fit = bt.fit(data)
    monkeypatch.setattr(bt, "_is_dense", lambda pairs, k: True)  # the path of big arenas
    dense = bt.bootstrap(data, 64, seed=3, start=fit.scores)
    dense_by_prompt = bt.bootstrap(clustered, 64, seed=3, start=fit.scores)
    order = np.argsort(-fit.scores)
    flips = [fragility.battle_flips(data, fit, order[i], order[i + 1]).battles for i in range(4)]
    monkeypatch.setattr(bt, "_is_dense", lambda pairs, k: False)
    sparse = bt.bootstrap(data, 64, seed=3, start=fit.scores)
    np.testing.assert_allclose(dense, sparse, atol=1e-10)
    by_prompt = bt.bootstrap(clustered, 64, seed=3, start=fit.scores)
    np.testing.assert_allclose(dense_by_prompt, by_prompt, atol=1e-10)
    assert np.abs(by_prompt - sparse).max() > 1e-3  # the prompts drew other replicates
    removals = bt.Removals.of(data, fit)
    assert removals.squares is None
    again = [
        fragility.battle_flips(data, fit, order[i], order[i + 1], removals=removals).battles
        for i in range(4)
    ]
    assert flips == again


def _simulated_arena(seed, k, n, spread):
    """n battles between random pairs of k models of normal strengths (SD ``spread``), won
    by the Bradley-Terry law; the battles and the strengths."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, a.size)) % k
    strength = rng.normal(0, spread, k)
    y = (rng.random(a.size) < 1 / (1 + np.exp(-(strength[a] - strength[b])))).astype(float)
    return bt.battles(a, b, y, k), strength
