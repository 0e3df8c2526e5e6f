"""adaptive: the decision is the mixture e-value of the discordant counts whatever items were
run, the batch is the most informative items plus random audit draws, the audit draws kept in
the state give an unbiased gap, and every surface says the same."""

from __future__ import annotations

import json

import numpy as np
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.jobs import adaptive as job
from evalgap.stats import adaptive as design
from evalgap.stats.estimate import ability_map
from evalgap.stats.sequential import log_e_value
from evalgap.stats.stratified import fit_2pl, success_probability

from synthetic import irt_board
from synthetic import long_of as _long


def _board(seed=0, models=14, items=800):
    return irt_board(seed, models, items, slopes=(0.5, 2.5))


NAMES = [f"m{k:02d}" for k in range(14)]


def test_the_batch_is_the_most_informative_items_at_the_pairs_abilities():
    y = _board()
    board = _long(y, NAMES)
    ran = list(range(0, 800, 20))
    scores = _long(y[[12, 4]], ["m12", "m04"], ran)
    r = evalgap.adaptive(scores, reference=board, pair=("m12", "m04"), next_count=30, audit=0)
    # the oracle, written out: the 2PL without the pair, abilities on the 40 items run,
    # the 30 unrun items of most sign information
    rest = np.delete(y, [12, 4], axis=0)
    fit = fit_2pl(rest)
    answers = np.full((2, 800), np.nan)
    answers[:, ran] = y[[12, 4]][:, ran]
    theta = ability_map(answers, fit.slope, fit.intercept)[0]
    p = success_probability(theta, fit.slope, fit.intercept)
    info = design.sign_information(p[0], p[1])
    info[ran] = -np.inf
    want = [f"q{i:04d}" for i in np.argsort(-info, kind="stable")[:30]]
    assert list(r.next_items) == want
    assert r.reference_models == 12 and r.n_items == 40
    d = y[12, ran] - y[4, ran]
    assert (r.a_only, r.b_only) == (int((d > 0).sum()), int((d < 0).sum()))
    assert r.e_value == pytest.approx(np.exp(log_e_value(r.a_only, r.b_only)))
    assert r.decided == (r.e_value >= 20)


def test_a_pair_far_apart_is_decided_in_a_few_batches_and_the_audit_gap_is_unbiased(tmp_path):
    y = _board(seed=1)
    board = _long(y, NAMES)
    state = tmp_path / "pair.json"
    ran: list[str] = []
    for step in range(8):
        scores = _long(y[[13, 3]], ["m13", "m03"], [int(i[1:]) for i in ran]) if ran else None
        r = evalgap.adaptive(scores, reference=board, pair=("m13", "m03"), next_count=25,
                             state=state, seed=step)  # fmt: skip
        if r.decided:
            break
        ran += list(r.next_items)
    assert r.decided and r.better == "m13" and r.n_items <= 100
    kept = json.loads(state.read_text())["audit_draws"]
    # the last call drew the next batch's audit share too (5 of 25), kept for the next call
    assert r.n_audit + r.pending_audit + 5 == len(kept) and r.n_audit >= 2
    # the estimate is the mean of the kept draws' terms, recomputed here from the file
    run = set(ran)
    terms = [
        r0["predicted_mean"]
        + y[13, int(r0["item_id"][1:])]
        - y[3, int(r0["item_id"][1:])]
        - r0["predicted"]
        for r0 in kept
        if r0["item_id"] in run
    ]
    assert r.gap == pytest.approx(np.mean(terms))


def test_audit_terms_are_unbiased_over_the_draws():
    # E[z] = mu exactly for a uniform draw with predictions fixed before it
    rng = np.random.default_rng(2)
    d = rng.choice([-1.0, 0.0, 1.0], size=50)
    m = rng.uniform(-0.5, 0.5, size=50)
    z = design.assisted_terms(d, m, np.full(50, m.mean()))
    assert z.mean() == pytest.approx(d.mean())


def test_type_one_error_with_informed_choices_under_exchangeable_answers():
    # answers swapped per item by a fair coin: whatever the informed order, the e-process
    # reaches 1/alpha in at most alpha of the runs (+ 2 Monte Carlo SE), looked at every item
    y = _board(seed=3, items=600)
    fit = fit_2pl(np.delete(y, [6, 7], axis=0))
    rng = np.random.default_rng(5)
    runs, alpha, rejected = 300, 0.1, 0
    for _ in range(runs):
        swap = rng.random(600) < 0.5
        a = np.where(swap, y[7], y[6])
        b = np.where(swap, y[6], y[7])
        done = np.zeros(600, dtype=bool)
        wins = losses = 0
        hit = False
        while done.sum() < 300 and not hit:
            answers = np.where(done, np.vstack([a, b]), np.nan)
            theta = ability_map(answers, fit.slope, fit.intercept)[0]
            p = success_probability(theta, fit.slope, fit.intercept)
            items, _ = design.choose_items(design.sign_information(p[0], p[1]), done, 30,
                                           audit=0.0)  # fmt: skip
            for j in items:
                done[j] = True
                wins, losses = wins + (a[j] > b[j]), losses + (a[j] < b[j])
                hit = hit or log_e_value(wins, losses) >= np.log(1 / alpha)
        rejected += hit
    assert rejected / runs <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / runs)


def test_every_surface_says_the_same_and_bad_input_is_one_line(run_cli, tmp_path):
    y = _board(seed=4, items=400)
    board, scores = tmp_path / "board.csv", tmp_path / "pair.csv"
    _long(y, NAMES).to_csv(board, index=False)
    _long(y[[10, 2]], ["m10", "m02"], range(0, 400, 8)).to_csv(scores, index=False)
    state, batch = tmp_path / "s.json", tmp_path / "batch.txt"
    out = run_cli("adaptive", "--reference", board, "--scores", scores, "--pair", "m10", "m02",
                  "--next", 12, "--json", "--output", batch, "--seed", 3)  # fmt: skip
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    python = evalgap.adaptive(str(scores), reference=str(board), pair=("m10", "m02"),
                              next_count=12, seed=3).to_dict()  # fmt: skip
    assert printed == json.loads(json.dumps(python))
    assert batch.read_text().split() == printed["next_items"] and len(printed["next_items"]) == 12
    assert "no state file" in " ".join(printed["notes"])
    text = run_cli("adaptive", "--reference", board, "--scores", scores, "--pair", "m10", "m02",
                   "--state", state, "--seed", 3)  # fmt: skip
    said = printed["verdict"].split(";")[0]
    assert text.returncode == 0 and said[1:] in " ".join(text.stdout.split())
    # bad input: one line, naming what to fix
    state.write_text("[1, 2]")
    bad = run_cli("adaptive", "--reference", board, "--pair", "m10", "m02", "--state", state)
    assert bad.returncode == 2 and "not an adaptive state file" in bad.stderr
    assert "Traceback" not in bad.stderr
    same = run_cli("adaptive", "--reference", board, "--pair", "m10", "m10")
    assert same.returncode == 2 and "two different models" in same.stderr
    other = tmp_path / "other.json"
    evalgap.adaptive(reference=str(board), pair=("m01", "m02"), state=other)
    wrong = run_cli("adaptive", "--reference", board, "--pair", "m10", "m02", "--state", other)
    assert wrong.returncode == 2 and "kept for another pair" in wrong.stderr
    absent = run_cli("adaptive", "--reference", board, "--scores", scores, "--pair", "m10", "zz")
    assert absent.returncode == 2 and "Traceback" not in absent.stderr


def test_a_state_file_is_checked_before_use(tmp_path):
    y = _board(seed=6, items=200)
    board = _long(y, NAMES)
    state = tmp_path / "s.json"
    evalgap.adaptive(reference=board, pair=("m01", "m02"), state=state, seed=0)
    kept = json.loads(state.read_text())
    kept["audit_draws"][0]["predicted"] = 7.0
    state.write_text(json.dumps(kept))
    with pytest.raises(InputError, match="audit draw 1 is not an item of the benchmark"):
        evalgap.adaptive(reference=board, pair=("m01", "m02"), state=state)
    kept["audit_draws"][0] = {"item_id": "elsewhere", "predicted": 0.0, "predicted_mean": 0.0}
    state.write_text(json.dumps(kept))
    with pytest.raises(InputError, match="audit draw 1"):
        job._read_state(state, ("m01", "m02"), np.array([f"q{i:04d}" for i in range(200)]))


def test_what_a_review_found(tmp_path, run_cli):
    y = _board(seed=7, items=300)
    board = _long(y, NAMES)
    # one model twice, scores given: one line, not a traceback from the alignment
    scores = _long(y[[3, 8]], ["m03", "m08"], range(20))
    with pytest.raises(InputError, match="two different models"):
        evalgap.adaptive(scores, reference=board, pair=("m03", "m03"))
    with pytest.raises(InputError, match="two models"):
        evalgap.adaptive(scores, reference=board, pair="ab")
    # a benchmark of two tasks, a batch from one of them: its items count
    two = board.assign(task=np.where(board["item_id"] < "q0150", "t1", "t2"))
    first = scores.assign(task="t1")
    r = evalgap.adaptive(first, reference=two, pair=("m03", "m08"), audit=0)
    assert r.n_items == 20 and not any("not in the reference" in n for n in r.notes)
    assert all(item.startswith(("t1/", "t2/")) for item in r.next_items)
    # pending audit draws come first and the batch is never larger than asked
    state = tmp_path / "s.json"
    r = evalgap.adaptive(scores, reference=board, pair=("m03", "m08"), next_count=20,
                         state=state, seed=0)  # fmt: skip
    r = evalgap.adaptive(scores, reference=board, pair=("m03", "m08"), next_count=3,
                         state=state, seed=1)  # fmt: skip
    assert r.pending_audit == 4 and len(r.next_items) == 3
    pending = [d["item_id"] for d in json.loads(state.read_text())["audit_draws"]]
    assert set(r.next_items) <= set(pending)
    # no state file: no audit draw is taken, and the batch is all informative items
    r = evalgap.adaptive(scores, reference=board, pair=("m03", "m08"), next_count=10)
    assert len(r.next_items) == 10 and "no audit draw is taken" in " ".join(r.notes)
    # a version that is not an integer is no version
    kept = json.loads(state.read_text())
    kept["version"] = True
    state.write_text(json.dumps(kept))
    with pytest.raises(InputError, match="another evalgap version"):
        evalgap.adaptive(scores, reference=board, pair=("m03", "m08"), state=state)
    # the batch file, from Python as from the command line
    batch = tmp_path / "batch.txt"
    r = evalgap.adaptive(scores, reference=board, pair=("m03", "m08"), output=batch)
    assert batch.read_text().split() == list(r.next_items)
