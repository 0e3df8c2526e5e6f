"""compare's items to flip: removing the items it names and comparing again reverses each
verdict, and one fewer removal never does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalgap

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "two_models.csv"
QUIET = {"n_bootstrap": 0, "n_bootstrap_required_n": 0}


def verdicts(result):
    """The claim of each test the verdict uses: the model declared better, or None."""
    p = result.p_values
    better = result.model_a if result.delta > 0 else result.model_b
    if result.binary:
        tests = {"exact": p.exact, "mcnemar": p.mcnemar}
    else:
        tests = {"paired_t": p.paired_t}
    out = {k: (better if v <= result.alpha else None) for k, v in tests.items()}
    out["resolution"] = better if result.resolved else None
    return out


def test_removing_the_named_items_reverses_each_verdict_of_the_example():
    frame = pd.read_csv(EXAMPLE)
    r = evalgap.compare(frame, model_a="model-x", model_b="model-y", **QUIET)
    now = verdicts(r)
    assert [t.test for t in r.fragility.tests] == ["exact", "mcnemar", "resolution"]
    for entry in r.fragility.tests:
        assert entry.claim == now[entry.test]
        assert len(entry.item_ids) == entry.items_to_flip
        kept = frame[~frame["item_id"].isin(entry.item_ids)]
        after = evalgap.compare(kept, model_a="model-x", model_b="model-y", **QUIET)
        assert verdicts(after)[entry.test] == entry.after != entry.claim
        # one removal fewer (the last named item kept) leaves the verdict as it was
        fewer = frame[~frame["item_id"].isin(entry.item_ids[:-1])]
        before = evalgap.compare(fewer, model_a="model-x", model_b="model-y", **QUIET)
        assert verdicts(before)[entry.test] == entry.claim
    resolution = r.fragility["resolution"]
    assert resolution.items_to_resolve == r.required_n - r.n_items


def test_graded_pair_removal_set_reverses_the_paired_t_verdict():
    rng = np.random.default_rng(5)
    a = np.clip(rng.normal(0.62, 0.2, 300), 0, 1)
    b = np.clip(a - rng.normal(0.04, 0.15, 300), 0, 1)
    ids = np.array([f"q{i}" for i in range(300)])
    r = evalgap.compare(a, b, **QUIET, n_permutations=0)
    assert not r.binary
    t = r.fragility["paired_t"]
    assert t.claim == "A" and t.items_to_flip is not None
    assert t.lower_bound <= t.items_to_flip
    # with ids (the table route names them); here by position
    from evalgap.jobs.compare_pair import compare_scores

    named = compare_scores(a, b, item_ids=ids, **QUIET, n_permutations=0)
    drop = np.isin(ids, named.fragility["paired_t"].item_ids)
    after = compare_scores(a[~drop], b[~drop], **QUIET, n_permutations=0)
    assert after.p_values.paired_t > r.alpha
    sign = r.fragility["sign"]
    assert sign.exact and sign.method.startswith("exact")


def test_counts_give_counts_and_json_carries_every_test():
    r = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
    d = r.to_dict()["fragility"]
    assert set(d) == {"exact", "mcnemar", "resolution"}
    assert d["mcnemar"]["items_to_flip"] == 1 and d["mcnemar"]["claim"] == "A"
    assert d["exact"]["claim"] is None and d["exact"]["after"] == "A"
    assert d["exact"]["item_ids"] == []  # counts name no items
    assert d["resolution"]["items_to_resolve"] == r.required_n - r.n_items


def test_item_ids_must_match_the_scores():
    from evalgap import InputError
    from evalgap.jobs.compare_pair import compare_scores

    with pytest.raises(InputError, match="item_ids"):
        compare_scores([1, 0, 1], [0, 0, 1], item_ids=["a", "b"])


@pytest.fixture(scope="module")
def mmlu_pro_pairs():
    from evalgap.jobs.audit import audit_scores

    from conftest import shared_file

    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    board = evalgap.align(evalgap.load_scores(str(scores)).frame)
    r = audit_scores(
        board, family="all", n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0,
        n_rank_bootstrap=0,
    )  # fmt: skip
    return r.pairs.to_frame()


def _brute(pairs, row, procedure, alpha=0.05, power=0.8):
    """Remove one item at a time (of whichever kind moves the verdict most), recomputing the
    statistic from the counts and the procedure's verdict over the whole family, until the
    verdict changes; return the number removed."""
    from scipy import stats as sps

    from evalgap.stats import multiplicity

    b0, c0, n0 = (int(pairs[k].iloc[row]) for k in ("a_only", "b_only", "n_items"))
    t_all = pairs["statistic"].to_numpy(dtype=float).copy()
    m = len(t_all)

    def state(b, c, n):
        if procedure in ("exact", "mcnemar"):
            if b + c == 0:
                return 0, 1.0
            p = (
                sps.binomtest(b, b + c, 0.5).pvalue
                if procedure == "exact"
                else sps.chi2.sf((b - c) ** 2 / (b + c), 1)
            )
            return (int(np.sign(b - c)) if p <= alpha else 0), p
        delta = (b - c) / n
        var = (b + c) / n - delta**2
        t = delta / np.sqrt(var / n) if var > 0 else np.sign(delta) * np.inf
        t_all[row] = t
        if procedure == "holm":
            ok = multiplicity.resolved_holm(t_all, alpha, power, m)[row]
        else:
            level = alpha if procedure == "fixed_n" else alpha / m
            ok = abs(t) >= multiplicity.resolution_threshold(level, power)
        ok = ok and b + c >= 6
        return (int(np.sign(t)) if ok else 0), -abs(t)

    now, _ = state(b0, c0, n0)
    b, c, n, k = b0, c0, n0, 0
    while True:
        moves = [(b - 1, c, n - 1)] if b else []
        moves += [(b, c - 1, n - 1)] if c else []
        moves += [(b, c, n - 1)] if n > b + c else []
        scored = [(state(*mv), mv) for mv in moves]
        # a claim: push the strength down (p up / |T| down); none: push it up
        key = (lambda s: -s[0][1]) if now else (lambda s: s[0][1])
        changed = [s for s in scored if s[0][0] != now]
        k += 1
        if changed:
            return k
        b, c, n = min(scored, key=key)[1]


@pytest.mark.parametrize("procedure", ["exact", "mcnemar", "fixed_n", "bonferroni", "holm"])
def test_mmlu_pro_items_to_flip_equal_one_at_a_time_search(procedure, mmlu_pro_pairs):
    from evalgap.jobs.fragility import board_flips

    pairs = mmlu_pro_pairs
    assert len(pairs) == 406
    flips = board_flips(
        a_only=pairs["a_only"].to_numpy(), b_only=pairs["b_only"].to_numpy(),
        n_items=pairs["n_items"].to_numpy(), binary=pairs["binary"].to_numpy(),
        statistic=pairs["statistic"].to_numpy(), alpha=0.05, power=0.8, family_size=406,
    )[{"fixed_n": "resolution"}.get(procedure, procedure)]  # fmt: skip
    assert np.isfinite(flips.items).all()  # on this board every verdict can be reversed
    rng = np.random.default_rng(1)
    # a sample of pairs: the closest calls (fewest items to flip) and a random few of those
    # a one-at-a-time search finishes quickly (under 60 removals)
    quick = np.flatnonzero(flips.items <= 60)
    sample = set(np.argsort(flips.items)[:4]) | set(rng.choice(quick, 3, replace=False))
    for row in sorted(int(r) for r in sample):
        assert flips.items[row] == _brute(pairs, row, procedure), (procedure, row)


def test_board_entries_name_items_whose_removal_reverses_the_verdict():
    """A graded board (AlpacaEval-like preferences are graded; here synthetic scores in
    [0, 1]) and a binary one: removing a pair's listed items and auditing again reverses
    that entry's verdict."""
    rng = np.random.default_rng(2)
    rows = []
    for m, skill in (("a", 0.62), ("b", 0.55), ("c", 0.545)):
        for i in range(400):
            rows.append((m, f"q{i:03d}", float(np.clip(rng.normal(skill, 0.25), 0, 1))))
    frame = pd.DataFrame(rows, columns=["model", "item_id", "score"])
    r = evalgap.fragility(frame, family="all")
    assert len(r.pairs) == 3 and not r.pairs[0].binary
    for pair in r.pairs:
        t = pair.fragility["paired_t"]
        if t.items_to_flip is None:
            continue
        assert len(t.item_ids) == t.items_to_flip
        kept = frame[~frame["item_id"].isin(t.item_ids)]
        a = kept[kept.model == pair.model_a].set_index("item_id")["score"]
        b = kept[kept.model == pair.model_b].set_index("item_id")["score"]
        after = evalgap.compare(a.to_numpy(), b.reindex(a.index).to_numpy(), **QUIET,
                                n_permutations=0)  # fmt: skip
        declared = after.p_values.paired_t <= 0.05
        assert declared != (t.claim is not None)
    frame_table = r.to_frame()
    assert set(frame_table["test"]) == {"paired_t", "sign", "resolution", "bonferroni",
                                        "sidak", "holm"}  # fmt: skip
    assert r.verdict.startswith(f"{sum(1 for p in r.pairs if _fragile(p))} of all 3 pairs")


def _fragile(pair):
    return any(e.items_to_flip is not None and e.items_to_flip <= 10 for e in pair.fragility.tests)


def test_fragility_refuses_what_it_cannot_use(run_cli, tmp_path):
    from evalgap import InputError

    with pytest.raises(InputError, match="give either"):
        evalgap.fragility()
    out = run_cli("fragility", "--scores", EXAMPLE, "--family", "some")
    assert out.returncode == 2 and "--family" in out.stderr and "Traceback" not in out.stderr
    out = run_cli("fragility", "--scores", EXAMPLE)
    assert out.returncode == 0 and "items to flip" in out.stdout
    assert "the closest call is model-x vs model-y" in out.stdout


def test_degrade_removal_sets_reverse_each_verdict():
    """The KV-FP8 row (6 tasks): removing the items each entry names and running degrade
    again reverses that test's verdict; pooled is exact (one fewer does not)."""
    from scipy import stats as sps

    b = [250, 25, 23, 448, 479, 16]
    c = [234, 25, 23, 347, 393, 20]
    table = pd.DataFrame({"task": [f"t{i}" for i in range(6)], "a_only": b, "b_only": c})
    r = evalgap.degrade(counts=table)
    p_of = {"pooled": lambda x: x.p_values["pooled"], "max_drop": lambda x: x.p_values["max_drop"],
            "fisher": lambda x: x.p_values["fisher"],
            "degraded": lambda x: min(x.p_values.values())}  # fmt: skip
    for entry in r.fragility.tests:
        assert entry.claim and entry.items_to_flip is not None
        assert sum(entry.remove_a_only.values()) == entry.items_to_flip
        cut = table.copy()
        for task, k in entry.remove_a_only.items():
            cut.loc[cut.task == task, "a_only"] -= k
        assert p_of[entry.test](evalgap.degrade(counts=cut)) > r.alpha, entry.test
    pooled = r.fragility["pooled"]
    assert pooled.exact
    total_b, total_c = sum(b), sum(c)
    k = next(k for k in range(1, total_b) if
             sps.binomtest(total_b - k, total_b - k + total_c, alternative="greater").pvalue > 0.05)
    assert pooled.items_to_flip == k


def test_degrade_of_graded_scores_has_no_items_to_flip():
    rng = np.random.default_rng(0)
    rows = [(m, "t", f"q{i}", float(rng.random())) for m in ("base", "cand") for i in range(80)]
    frame = pd.DataFrame(rows, columns=["model", "task", "item_id", "score"])
    r = evalgap.degrade(frame, baseline="base", candidate="cand", n_permutations=200)
    assert r.method == "permutation" and r.fragility is None


def _pair_t(x, a, b):
    rows = ~(np.isnan(x[:, a]) | np.isnan(x[:, b]))
    d = x[rows, a] - x[rows, b]
    return d.mean() / (d.std(ddof=1) / np.sqrt(d.size))


def test_rank_claims_reverse_when_their_items_go():
    """A binary board: each adjacent claim's named items, removed from the pair, move its
    studentized gap across the critical value (one fewer does not); the top claim's
    recomputed count makes the recomputed rank sets lose it, one fewer does not."""
    from evalgap.stats import ranks as rk
    from evalgap.stats import resample

    from synthetic import clustered_board

    board = clustered_board(n_items=900, accuracies=(0.8, 0.72, 0.7, 0.6), seed=5)
    r = evalgap.ranks(board, n_bootstrap=400)
    s = evalgap.align(board)
    task = s.tasks[0]
    ids = np.asarray(task.item_ids).astype(str)
    c = r.critical_values["all"]
    columns = [s.model_index(m) for m in r.models_of("all")]
    x = task.scores[:, columns]
    claims = [e for e in r.fragility if e.claim == "above"]
    assert len(claims) == 3
    for k, e in enumerate(claims):
        assert e.exact and len(e.item_ids) == e.items_to_flip
        gone = x.copy()
        gone[np.isin(ids, e.item_ids)] = np.nan
        fewer = x.copy()
        fewer[np.isin(ids, e.item_ids[:-1])] = np.nan
        now, after, before = (_pair_t(m, k, k + 1) for m in (x, gone, fewer))
        assert (now > c) == e.holds
        assert (after > c) != e.holds and (before > c) == e.holds
    (top,) = [e for e in r.fragility if e.claim == "top"]
    assert top.model_a == r.models_of("all")[0] and top.items_to_flip_recomputed is not None

    def alone_at_one(removed):
        keep = ~np.isin(ids, removed)
        sets = rk.rank_sets(x[keep], n_bootstrap=400, method="bootstrap",
                            seed=resample.child_seed(0, "ranks"))  # fmt: skip
        return sets.rank_low[0] == 1 and sets.rank_high[0] == 1

    winners = ids[(x[:, 0] == 1) & (x[:, [list(r.models_of("all")).index(top.model_b)]][:, 0] == 0)]
    k = top.items_to_flip_recomputed
    assert not alone_at_one(winners[:k]) and alone_at_one(winners[: k - 1])


def test_battle_claims_are_confirmed_by_refits():
    rng = np.random.default_rng(3)
    theta = {"a": 0.6, "b": 0.3, "c": 0.0, "d": -0.4}
    names = list(theta)
    rows = []
    for _ in range(4000):
        i, j = rng.choice(4, 2, replace=False)
        p = 1 / (1 + np.exp(-(theta[names[i]] - theta[names[j]])))
        rows.append((names[i], names[j], "model_a" if rng.random() < p else "model_b"))
    battles = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    r = evalgap.ranks(battles=battles, n_bootstrap=300)
    claims = r.fragility
    assert claims[0].claim == "top" and claims[0].model_a == "a"
    assert all(e.confirmed and e.refits >= 1 and e.items_to_flip > 0 for e in claims)
    assert "battles to flip" in r.to_html().lower() or "Battles to flip" in r.to_html()


def test_fragility_refuses_counts_and_scores_together(tmp_path):
    from evalgap import InputError

    pairs = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "both_correct": [5],
                          "a_only": [9], "b_only": [1], "both_wrong": [5]})  # fmt: skip
    with pytest.raises(InputError, match="not both"):
        evalgap.fragility(str(EXAMPLE), pairs=pairs)


def _random_board(seed, n_models=7, n_items=240, graded=False):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.45, 0.75, n_models)
    rows = []
    for m in range(n_models):
        if graded:
            scores = np.clip(rng.normal(skill[m], 0.3, n_items), 0, 1)
        else:
            scores = (rng.random(n_items) < skill[m]).astype(float)
        rows += [(f"m{m}", f"q{i:03d}", float(s)) for i, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["model", "item_id", "score"])


@pytest.mark.parametrize("graded", [False, True])
def test_all_pairs_fragility_equals_each_pair_compared_alone(graded):
    """The board's entries (from the audit's pair counts, held as arrays) equal those of
    ``compare`` run on each pair alone, removal sets by item id included; each row read
    one at a time equals its JSON and its rows of the frame."""
    frame = _random_board(3 + graded, graded=graded)
    r = evalgap.fragility(frame, family="all")
    assert len(r.pairs) == 21
    tests = ("paired_t", "sign", "resolution") if graded else ("exact", "mcnemar", "resolution")
    pairs_json = r.to_dict()["pairs"]
    table = r.to_frame()
    for k, pair in enumerate(r.pairs):
        two = frame[frame.model.isin([pair.model_a, pair.model_b])]
        alone = evalgap.compare(two, model_a=pair.model_a, model_b=pair.model_b, **QUIET,
                                n_permutations=0)  # fmt: skip
        assert pair.n_items == alone.n_items and pair.delta == pytest.approx(alone.delta)
        for test in tests:
            board_entry, own = pair.fragility[test].to_dict(), alone.fragility[test].to_dict()
            if graded and test != "sign":  # the greedy bound: the same count and kinds
                board_entry.pop("method"), own.pop("method")
            assert board_entry == own, (k, test)
        assert pairs_json[k] == pair.to_dict()
        rows = table[(table.model_a == pair.model_a) & (table.model_b == pair.model_b)]
        assert rows["items_to_flip"].tolist() == [
            np.nan if e.items_to_flip is None else e.items_to_flip for e in pair.fragility.tests
        ] or rows["items_to_flip"].isna().tolist() == [
            e.items_to_flip is None for e in pair.fragility.tests
        ]
    counts = r.counts()
    assert list(counts) == [*tests[:2], "resolution", "bonferroni", "sidak", "holm"]
    assert counts[tests[0]] == [p.fragility[tests[0]].items_to_flip for p in r.pairs]
    closest = min(
        ((e.items_to_flip, k, j) for k, p in enumerate(r.pairs)
         for j, e in enumerate(p.fragility.tests) if e.items_to_flip is not None)
    )  # fmt: skip
    pair, entry = r.closest()
    assert (pair.model_a, pair.model_b) == (r.pairs[closest[1]].model_a,
                                            r.pairs[closest[1]].model_b)  # fmt: skip
    assert entry == r.pairs[closest[1]].fragility.tests[closest[2]]


def test_a_large_family_shows_its_closest_calls_and_the_json_every_pair():
    frame = _random_board(8, n_models=10, n_items=200)
    r = evalgap.fragility(frame, family="all")
    assert len(r.pairs) == 45 and len(r.to_dict()["pairs"]) == 45
    text = r.to_markdown()
    assert "the 40 closest calls of 45 pairs" in text
    fewest = r.fewest()
    shown = [k for k, p in enumerate(r.pairs) if f"| {p.model_a} | {p.model_b} |" in text]
    assert len(shown) == 40
    left_out = sorted(set(range(45)) - set(shown))
    assert np.nan_to_num(fewest[left_out], nan=np.inf).min() >= np.nanmax(fewest[shown])


def test_board_differences_are_each_pairs_own_on_a_board_with_gaps():
    """The graded search's differences, taken for a block of pairs from the task's score
    matrix at once, equal each pair's own (items both scored, in item order, then NaN)."""
    from evalgap.jobs import fragility as jf
    from evalgap.jobs.audit import audit_scores

    rng = np.random.default_rng(0)
    rows = [
        (f"m{m}", t, f"{t}q{i}", float(np.round(rng.random(), 2)))
        for t in ("t1", "t2") for m in range(6) for i in range(150) if rng.random() >= 0.15
    ]  # fmt: skip
    board = evalgap.align(pd.DataFrame(rows, columns=["model", "task", "item_id", "score"]))
    pairs = audit_scores(board, family="all", n_bootstrap=0, n_bootstrap_required_n=0,
                         n_cluster_bootstrap=0, n_rank_bootstrap=0).pairs  # fmt: skip
    differences = jf._differences_of(pairs, board)
    for block in (np.arange(len(pairs)), np.array([5, 1, 17, 3])):
        own = [jf._pair_items(pairs, int(k), board)[0] for k in block]
        expected = np.full((block.size, max(d.size for d in own)), np.nan)
        for r, d in enumerate(own):
            expected[r, : d.size] = d
        assert np.array_equal(differences(block), expected, equal_nan=True)
