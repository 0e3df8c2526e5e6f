"""estimate: the default is the design-based control-variate estimate (the plain mean beside
it); the model-based interval is the conformal quantile of the held-out reference models'
errors on the same items; both cover on a board the 2PL fits, and every surface says the
same."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.stats import estimate as est
from evalgap.stats.stratified import fit_2pl

from synthetic import irt_board as _board
from synthetic import long_of as _long


def test_interval_is_the_conformal_quantile_of_held_out_errors():
    y = _board()
    ref, new = y[[k for k in range(25) if k != 12]], y[12]
    chosen = np.arange(0, 600, 6)
    r = evalgap.estimate(_long(new[None, :], ["new"], chosen), estimator="model",
                         next_draw="informative",
                         reference=_long(ref, [f"m{k}" for k in range(24)]))  # fmt: skip
    e = r.estimates[0]
    # the oracle, written out: hold each reference model out, estimate it from these items
    errors = []
    for j in range(24):
        fit = fit_2pl(np.delete(ref, j, axis=0))
        answers = np.full(600, np.nan)
        answers[chosen] = ref[j, chosen]
        theta, _ = est.ability_map(answers[None, :], fit.slope, fit.intercept)
        guess = est.predicted_score(answers[None, :], theta, fit.slope, fit.intercept)[0]
        errors.append(guess - ref[j].mean())
    rank = int(np.ceil(25 * 0.95))
    assert e.half_width == pytest.approx(np.sort(np.abs(errors))[rank - 1])
    assert e.n_items == 100 and len(e.next_items) == 50
    assert not set(e.next_items) & {f"q{i:04d}" for i in chosen}
    assert e.ci.low <= new.mean() <= e.ci.high
    assert (e.ci.method, e.ci.level) == ("split_conformal", 0.95)
    assert e.ci.low == pytest.approx(max(e.score - e.half_width, 0.0), abs=1e-15)
    assert e.ci.high == pytest.approx(min(e.score + e.half_width, 1.0), abs=1e-15)
    # the interval is `ci` in JSON (an object); `interval` still reads for one release
    entry = r.to_dict()["estimates"][0]
    assert "interval" not in entry
    assert entry["ci"] == {"low": e.ci.low, "high": e.ci.high, "method": "split_conformal",
                           "level": 0.95}  # fmt: skip
    with pytest.warns(DeprecationWarning, match="renamed ci"):
        assert e.interval == (e.ci.low, e.ci.high)


def test_estimates_cover_held_out_models_of_a_board_the_model_fits():
    y = _board(seed=3, models=22, items=500)
    covered, errors, sample_errors = 0, [], []
    rng = np.random.default_rng(4)
    for k in range(2, 20, 3):
        ref = np.delete(y, k, axis=0)
        chosen = np.sort(rng.choice(500, 80, replace=False))
        r = evalgap.estimate(_long(y[k][None, :], ["new"], chosen), estimator="model",
                             reference=_long(ref, [f"m{j}" for j in range(21)]))  # fmt: skip
        e = r.estimates[0]
        covered += e.ci.low <= y[k].mean() <= e.ci.high
        errors.append(abs(e.score - y[k].mean()))
        sample_errors.append(abs(y[k, chosen].mean() - y[k].mean()))
        assert e.plain_score == pytest.approx(y[k, chosen].mean())
    # every interval covers; with 21 reference models the 2PL's items are noisy, so the error
    # is about that of the items' own mean (MMLU-Pro's 28 x 12,032 board is where it helps)
    assert covered == 6 and np.mean(errors) < 1.5 * np.mean(sample_errors)


def test_every_surface_says_the_same_and_bad_input_is_one_line(run_cli, tmp_path):
    y = _board(seed=5, models=22, items=300)
    board, new = tmp_path / "board.csv", tmp_path / "new.csv"
    _long(y[:21], [f"m{k}" for k in range(21)]).to_csv(board, index=False)
    frame = _long(y[21][None, :], ["new"], range(0, 300, 5))
    extra = pd.DataFrame([("new", "elsewhere", 1.0)], columns=frame.columns)
    pd.concat([frame, extra]).to_csv(new, index=False)
    out = run_cli("estimate", "--reference", board, "--scores", new, "--json",
                  "--output", tmp_path / "next.csv", "--next", 7)  # fmt: skip
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    result = evalgap.estimate(str(new), reference=str(board), next_count=7)
    python = result.to_dict()
    assert printed == json.loads(json.dumps(python))
    assert "1 scored item(s) are not in the reference board" in " ".join(printed["notes"])
    # the random draw's file is the design after it: the scored items and the batch's draws
    written = pd.read_csv(tmp_path / "next.csv", dtype={"item_id": str})
    pd.testing.assert_frame_equal(written, result.next_design(), check_dtype=False)
    to_run = written.loc[written["scored"] == 0, "item_id"].tolist()
    assert to_run == list(printed["estimates"][0]["next_items"]) and 0 < len(to_run) <= 7
    assert (written["scored"] == 1).sum() == 60 and (written["weight"] > 0).all()
    missing = run_cli("estimate", "--scores", new)
    assert missing.returncode == 2 and "--reference" in missing.stderr
    two = run_cli("estimate", "--reference", board, "--scores", new, "--models", "nobody")
    assert two.returncode == 2 and "Traceback" not in two.stderr


def test_a_one_task_batch_of_a_multi_task_benchmark_counts():
    y = _board(seed=9, models=22, items=300)
    names = [f"m{k}" for k in range(21)]
    board = _long(y[:21], names)
    board["task"] = np.where(board["item_id"] < "q0150", "t1", "t2")
    new = _long(y[21][None, :], ["new"], range(0, 150, 3)).assign(task="t1")
    e = evalgap.estimate(new, reference=board).estimates[0]
    assert e.n_items == 50 and all(i.startswith(("t1/", "t2/")) for i in e.next_items)


def test_the_scores_may_come_from_a_store_and_the_reference_from_its_files(tmp_path, run_cli):
    y = _board(seed=10, models=22, items=300)
    board, new = tmp_path / "board.csv", tmp_path / "new.csv"
    _long(y[:21], [f"m{k}" for k in range(21)]).to_csv(board, index=False)
    _long(y[21][None, :], ["new"], range(0, 300, 4)).to_csv(new, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [new])
    from_store = run_cli("estimate", "--reference", board, "--store", store, "--json")
    from_files = run_cli("estimate", "--reference", board, "--scores", new, "--json")
    assert from_store.returncode == 0, from_store.stderr
    assert json.loads(from_store.stdout)["estimates"] == json.loads(from_files.stdout)["estimates"]


def test_a_reference_model_with_missing_items_is_calibrated_on_its_own_items():
    y = _board()
    ref, new = y[[k for k in range(25) if k != 12]], y[12]
    # reference model m3 lacks the first 400 items it got right: over its own items it scores
    # far below what the 2PL says of all 600, so the two ways of counting differ
    ref[3, :400][ref[3, :400] == 1] = np.nan
    frame = _long(ref, [f"m{k}" for k in range(24)]).dropna()
    chosen = np.arange(0, 600, 6)
    own_items, all_items = [], []
    for j in range(24):
        fit = fit_2pl(np.delete(ref, j, axis=0))
        answers = np.full(600, np.nan)
        answers[chosen] = ref[j, chosen]
        theta, _ = est.ability_map(answers[None, :], fit.slope, fit.intercept)
        p = 1 / (1 + np.exp(-(theta[0] * fit.slope + fit.intercept)))
        own = ~np.isnan(ref[j])
        filled = np.where(np.isnan(answers), p, answers)  # answers where scored, else the 2PL
        own_items.append(abs(filled[own].mean() - ref[j, own].mean()))
        all_items.append(abs(filled.mean() - ref[j, own].mean()))
    assert own_items[3] != pytest.approx(all_items[3], abs=1e-3)
    # the level whose conformal rank ceil(25 (1 - alpha)) is m3's error
    rank = int(np.flatnonzero(np.argsort(own_items) == 3)[0]) + 1
    alpha = 1 - rank / 25 + 1e-9
    e = evalgap.estimate(_long(new[None, :], ["new"], chosen), reference=frame,
                         alpha=alpha, estimator="model").estimates[0]  # fmt: skip
    assert e.half_width == pytest.approx(own_items[3])


def test_the_default_is_the_design_based_estimate_with_the_plain_mean_beside_it():
    y = _board()
    ref, new = y[[k for k in range(25) if k != 12]], y[12]
    chosen = np.arange(0, 600, 6)
    r = evalgap.estimate(_long(new[None, :], ["new"], chosen),
                         reference=_long(ref, [f"m{k}" for k in range(24)]))  # fmt: skip
    e = r.estimates[0]
    # the oracle: the 2PL of the reference board at the model's ability from its items
    fit = fit_2pl(ref)
    answers = np.full(600, np.nan)
    answers[chosen] = new[chosen]
    theta, _ = est.ability_map(answers[None, :], fit.slope, fit.intercept)
    p = 1 / (1 + np.exp(-(theta[0] * fit.slope + fit.intercept)))
    oracle = est.control_variate(new[chosen], p, chosen)
    assert (r.estimator, e.estimator, e.ci.method) == ("design", "design", "design_t")
    assert e.score == pytest.approx(oracle.score) and e.coefficient == oracle.coefficient
    assert e.half_width == pytest.approx(oracle.ci.high - oracle.score)
    assert e.plain_score == pytest.approx(new[chosen].mean())
    plain_half = oracle.plain_ci.high - oracle.plain_score
    assert e.width_ratio == pytest.approx(e.half_width / plain_half)
    assert e.ci.low <= new.mean() <= e.ci.high
    entry = r.to_dict()["estimates"][0]
    assert entry["plain_ci"]["method"] == "design_t" and entry["estimator"] == "design"
    assert "design-based" in r.verdict and "their mean 0.4" in r.verdict
    with pytest.raises(evalgap.InputError, match="estimator") as info:
        evalgap.estimate(_long(new[None, :], ["new"], chosen), estimator="best",
                         reference=_long(ref, [f"m{k}" for k in range(24)]))  # fmt: skip
    assert info.value.param == "estimator"


def test_the_design_estimate_is_unbiased_for_a_model_unlike_the_reference():
    # the reference is the 15 weakest models; the strongest is estimated from 60 random items
    # again and again: the 2PL estimate is pulled towards the board, the design-based one is
    # not, and its intervals cover
    y = _board(seed=7, models=22, items=400)
    order = np.argsort(y.mean(axis=1))
    ref, new = y[order[:15]], y[order[-1]]
    board = _long(ref, [f"m{k}" for k in range(15)])
    from evalgap.jobs.estimate import calibrate

    reference = evalgap.align(board)
    prepared = calibrate(reference)
    rng = np.random.default_rng(8)
    found = []
    for _ in range(60):
        chosen = np.sort(rng.choice(400, 60, replace=False))
        scores = evalgap.align(_long(new[None, :], ["new"], chosen))
        design = estimate_scores_of(reference, prepared, scores, "design")
        model = estimate_scores_of(reference, prepared, scores, "model")
        found.append((design.score, design.ci.low <= new.mean() <= design.ci.high, model.score))
    design_score, covered, model_score = np.array(found).T
    assert model_score.mean() < new.mean() - 0.02  # shrunk towards the weaker board
    assert abs(design_score.mean() - new.mean()) < 3 * design_score.std() / np.sqrt(60) + 0.005
    assert covered.mean() >= 0.88


def estimate_scores_of(reference, prepared, scores, method):
    from evalgap.jobs.estimate import estimate_scores

    return estimate_scores(reference, scores, estimator=method, calibration=prepared).estimates[0]


def test_random_next_items_carry_their_weights_back_into_the_weighted_estimate(run_cli, tmp_path):
    # round 1: 40 random items; --next draws 30 more with known probabilities and writes the
    # design; round 2 gives it back: the estimate is the weighted control variate
    y = _board(seed=12, models=22, items=400)
    board, new, design = tmp_path / "board.csv", tmp_path / "new.csv", tmp_path / "design.csv"
    _long(y[:21], [f"m{k}" for k in range(21)]).to_csv(board, index=False)
    first = np.arange(0, 400, 10)
    _long(y[21][None, :], ["new"], first).to_csv(new, index=False)
    out = run_cli("estimate", "--reference", board, "--scores", new, "--next", 30,
                  "--output", design, "--seed", 3)  # fmt: skip
    assert out.returncode == 0, out.stderr
    drawn = pd.read_csv(design, dtype={"item_id": str})
    to_run = drawn.loc[drawn["scored"] == 0, "item_id"].str[1:].astype(int).to_numpy()
    assert 20 <= to_run.size <= 30 and not set(to_run) & set(first)
    # the first items weigh 1 (a uniform draw); one drawn again weighs 1 plus its batch weight
    kept = drawn.loc[drawn["scored"] == 1, "weight"]
    assert kept.size == 40 and (kept >= 1).all() and (kept > 1).sum() == 30 - to_run.size
    both = np.sort(np.concatenate([first, to_run]))
    _long(y[21][None, :], ["new"], both).to_csv(new, index=False)
    again = run_cli("estimate", "--reference", board, "--scores", new, "--weights", design,
                    "--next", 0, "--json")  # fmt: skip
    assert again.returncode == 0, again.stderr
    e = json.loads(again.stdout)["estimates"][0]
    # the oracle: the weighted control variate at the ability from those items
    fit = fit_2pl(y[:21])
    answers = np.full(400, np.nan)
    answers[both] = y[21, both]
    theta, _ = est.ability_map(answers[None, :], fit.slope, fit.intercept)
    p = 1 / (1 + np.exp(-(theta[0] * fit.slope + fit.intercept)))
    weight = drawn.set_index(drawn["item_id"].str[1:].astype(int))["weight"]
    oracle = est.control_variate(y[21, both], p, both, weights=weight.loc[both].to_numpy())
    assert e["score"] == pytest.approx(oracle.score) and e["n_items"] == both.size
    assert e["plain_score"] == pytest.approx(oracle.plain_score)
    assert "weighted by the design" in json.loads(again.stdout)["verdict"]


def test_the_design_estimate_refuses_what_it_cannot_weight(run_cli, tmp_path):
    y = _board(seed=13, models=22, items=300)
    board, new, listed = tmp_path / "board.csv", tmp_path / "new.csv", tmp_path / "next.csv"
    _long(y[:21], [f"m{k}" for k in range(21)]).to_csv(board, index=False)
    _long(y[21][None, :], ["new"], range(0, 300, 6)).to_csv(new, index=False)
    # the most informative items are a list without probabilities: refused, saying why
    out = run_cli("estimate", "--reference", board, "--scores", new, "--next-draw",
                  "informative", "--next", 5, "--output", listed)  # fmt: skip
    assert out.returncode == 0 and "model-based choice" in out.stdout
    assert list(pd.read_csv(listed).columns) == ["model", "item_id"]
    refused = run_cli("estimate", "--reference", board, "--scores", new, "--weights", listed)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "no inclusion probabilities" in refused.stderr and "--estimator model" in refused.stderr
    # a design that misses scored items, a design with the model-based estimate, strata alone
    partial = pd.DataFrame({"item_id": [f"q{i:04d}" for i in range(0, 150, 6)], "weight": 2.0})
    partial.to_csv(tmp_path / "partial.csv", index=False)
    for extra, words in [
        (["--weights", tmp_path / "partial.csv"], "25 scored item(s) with no weight in --weights"),
        (["--weights", tmp_path / "partial.csv", "--estimator", "model"], "--estimator model"),
        (["--strata", "stratum"], "--strata goes with --weights"),
    ]:
        r = run_cli("estimate", "--reference", board, "--scores", new, *extra)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.splitlines()) == 1


def test_a_stratified_design_is_the_stratified_control_variate():
    # plan --reference's design: item_id, weight N_h / n_h, stratum, stratum_size
    y = _board(seed=14, models=22, items=300)
    rng = np.random.default_rng(15)
    labels = np.where(np.arange(300) < 100, "easy", "hard")
    chosen = np.sort(np.concatenate([rng.choice(100, 10, replace=False),
                                     100 + rng.choice(200, 40, replace=False)]))  # fmt: skip
    design = pd.DataFrame({
        "item_id": [f"q{i:04d}" for i in chosen], "stratum": labels[chosen],
        "weight": np.where(chosen < 100, 100 / 10, 200 / 40),
        "stratum_size": np.where(chosen < 100, 100, 200),
    })  # fmt: skip
    board = _long(y[:21], [f"m{k}" for k in range(21)])
    new = _long(y[21][None, :], ["new"], chosen)
    e = evalgap.estimate(new, reference=board, weights=design).estimates[0]
    fit = fit_2pl(y[:21])
    answers = np.full(300, np.nan)
    answers[chosen] = y[21, chosen]
    theta, _ = est.ability_map(answers[None, :], fit.slope, fit.intercept)
    p = 1 / (1 + np.exp(-(theta[0] * fit.slope + fit.intercept)))
    oracle = est.control_variate(y[21, chosen], p, chosen, strata=labels)
    assert e.score == pytest.approx(oracle.score)
    assert e.half_width == pytest.approx(oracle.ci.high - oracle.score)
    # without stratum sizes the weights' sums give them (N_h / n_h times n_h)
    sizeless = evalgap.estimate(new, reference=board, weights=design.drop(columns="stratum_size"))
    assert sizeless.estimates[0].score == pytest.approx(e.score)
    # weights that vary within a stratum are no stratified draw
    uneven = design.assign(weight=np.linspace(1, 3, len(design)))
    with pytest.raises(evalgap.InputError, match="vary within a stratum"):
        evalgap.estimate(new, reference=board, weights=uneven)


def test_adaptive_draws_with_known_probabilities_are_unbiased_and_cover():
    # out of distribution: the 15 weakest models the reference, the 3 strongest estimated
    # from 80 items drawn as estimate --next 20 draws them, again and again; the weighted
    # design-based estimate is unbiased and its 95% intervals cover
    from evalgap.jobs.estimate import calibrate_matrix, design_estimated
    from evalgap.jobs.estimate_study import adaptive_draws

    y = _board(seed=7, models=22, items=1000)
    order = np.argsort(y.mean(axis=1))
    prepared = calibrate_matrix(y[order[:15]], np.arange(1000).astype(str), held_out=False)
    rng = np.random.default_rng(1)
    errors, covered = [], []
    for k in order[-3:]:
        for _ in range(150):
            chosen, weights = adaptive_draws(y[k], prepared.fit, 80, 20, rng)
            assert chosen.size == 80 and np.isfinite(weights[chosen]).all()
            answers = np.full((1, 1000), np.nan)
            answers[0, chosen] = y[k, chosen]
            d = design_estimated(answers, prepared.fit, 0.05, weights=weights[None, :])[0][0]
            errors.append(d.score - y[k].mean())
            covered.append(d.ci.low <= y[k].mean() <= d.ci.high)
    errors = np.array(errors)
    assert abs(errors.mean()) < 3 * errors.std() / np.sqrt(errors.size)
    assert abs(np.mean(covered) - 0.95) < 3 * np.sqrt(0.95 * 0.05 / len(covered))
