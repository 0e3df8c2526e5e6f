"""The audit job: the paper's Table 7 family, agreement with compare, clusters, real data."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap import compare_counts
from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.sources import LoadOptions, load_scores
from evalgap.jobs.audit import audit_counts, audit_scores

from conftest import shared_file
from synthetic import clustered_board, table_7, two_model_board

JSON_KEYS = {"family_size", "bonferroni_inflation", "unresolved", "pairs", "tiers"}
PAIR_KEYS = {
    "model_a",
    "model_b",
    "delta",
    "correlation",
    "a_only",
    "b_only",
    "required_n",
    "resolution_ratio",
    "p_values",
    "verdicts",
}
PROCEDURE_KEYS = {"fixed_n", "bonferroni", "sidak", "holm", "bh", "anytime_valid"}


def unresolved(result, procedure):
    column = result.to_frame()[f"resolved_{procedure}"]
    return [
        f"{a[5:]} vs {b[5:]}"
        for a, b, ok in zip(
            result.to_frame().model_a, result.to_frame().model_b, column, strict=True
        )
        if not ok
    ]


def test_table_7_family_of_nine():
    """Sections 6.2-6.5: 4/9 unresolved at fixed n and under Bonferroni (m = 9); 5/9
    anytime-valid, the added pair being rank 5 vs 6."""
    r = audit_counts(table_7(), n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.family_size == 9
    assert unresolved(r, "fixed_n") == ["3 vs 4", "6 vs 7", "8 vs 9", "9 vs 10"]
    assert unresolved(r, "bonferroni") == unresolved(r, "fixed_n")
    assert unresolved(r, "anytime_valid") == ["3 vs 4", "5 vs 6", "6 vs 7", "8 vs 9", "9 vs 10"]
    assert r.unresolved == {
        "fixed_n": 4,
        "bonferroni": 4,
        "sidak": 4,
        "holm": 4,
        "bh": 4,
        "anytime_valid": 5,
    }
    assert r.chains == {
        "all": [
            ["rank 1"],
            ["rank 2"],
            ["rank 3", "rank 4"],
            ["rank 5"],
            ["rank 6", "rank 7"],
            ["rank 8", "rank 9", "rank 10"],
        ]
    }


def test_table_7_with_the_all_pairs_family_size():
    """m = 45 multiplies N* by 2.14 (Section 6.2). The paper says the four verdicts stand
    because every unresolved pair already has q < 1; but rank 5 vs 6, resolved at q = 2.08,
    falls to q = 2.08 / 2.14 = 0.97 < 1, so Bonferroni leaves 5 of 9 unresolved."""
    r = audit_counts(table_7(), family_size=45, n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.bonferroni_inflation == pytest.approx(2.144, abs=5e-4)
    five_six = r.to_frame().iloc[4]
    assert five_six["resolution_ratio"] == pytest.approx(2.079, abs=1e-3)
    assert five_six["resolution_ratio"] / r.bonferroni_inflation < 1
    assert unresolved(r, "bonferroni") == ["3 vs 4", "5 vs 6", "6 vs 7", "8 vs 9", "9 vs 10"]
    r40 = audit_counts(table_7(), family_size=40, n_bootstrap=0, n_bootstrap_required_n=0)
    assert r40.bonferroni_inflation == pytest.approx(2.11, abs=5e-3)


def test_json_contract():
    data = audit_counts(table_7(), n_bootstrap=200, n_bootstrap_required_n=200).to_dict()
    assert JSON_KEYS <= set(data)
    assert set(data["unresolved"]) == PROCEDURE_KEYS
    assert len(data["pairs"]) == 9
    for pair in data["pairs"]:
        assert PAIR_KEYS <= set(pair) and set(pair["verdicts"]) == PROCEDURE_KEYS
        assert {"mcnemar", "exact", "mid_p", "bootstrap"} <= set(pair["p_values"])
    assert data["pairs"][0]["required_n"] == 1697


def test_binned_and_verdict_tables():
    r = audit_counts(table_7(), n_bootstrap=0, n_bootstrap_required_n=0)
    binned = r.binned_table().set_index("bucket")
    assert binned.loc["<= 1%", "pairs"] == 5 and binned.loc["<= 1%", "unresolved"] == 4
    assert binned.loc["total", "pairs"] == 9 and binned.loc["total", "unresolved"] == 4
    assert binned.loc["5%-15%", "q_smallest"] == pytest.approx(12_032 / 433, rel=2e-3)
    table = r.verdict_table().set_index("procedure")
    assert table.loc["anytime_valid", "unresolved"] == 5


def test_every_pair_agrees_with_compare():
    frame = clustered_board()
    result = audit_scores(
        align(frame), family="all", n_bootstrap=0, n_bootstrap_required_n=0, use_clusters=False
    )
    assert len(result.pairs) == 10
    for row in result.to_frame().itertuples():
        a = frame[frame.model == row.model_a].set_index("item_id")["score"]
        b = frame[frame.model == row.model_b].set_index("item_id")["score"]
        cells = [
            int(((a == 1) & (b == 1)).sum()),
            int(((a == 1) & (b == 0)).sum()),
            int(((a == 0) & (b == 1)).sum()),
            int(((a == 0) & (b == 0)).sum()),
        ]
        single = compare_counts(*cells, n_bootstrap=0, n_bootstrap_required_n=0)
        assert (row.a_only, row.b_only) == (single.a_only, single.b_only)
        assert row.p_exact == pytest.approx(single.p_values.exact, rel=1e-12)
        assert row.resolution_ratio == pytest.approx(single.resolution_ratio, rel=1e-12)
        assert row.rank_a < row.rank_b  # A is always the higher-ranked model


def test_adjacent_family_ranks_by_the_paired_rank_not_the_own_items_mean():
    frame = clustered_board()
    # 600 extra items that only m1 was scored on, all right: its mean over its own items rises
    # above m0's, while on the shared items it stays below; the board (the paired rank and
    # the additive score, the ranks' order) keeps m0 above, so no listed gap runs against it
    extra = pd.DataFrame(
        {
            "model": "m1",
            "task": "all",
            "item_id": [f"x{i}" for i in range(600)],
            "score": 1.0,
            "cluster": "c0",
        }
    )
    frame = pd.concat([frame, extra], ignore_index=True)
    result = audit_scores(align(frame), n_bootstrap=0, n_bootstrap_required_n=0, use_clusters=False)
    rankings = result.rankings.set_index("model")
    assert result.rankings["model"].tolist()[:2] == ["m0", "m1"]
    assert rankings.loc["m1", "own_items_mean"] > rankings.loc["m0", "own_items_mean"]
    assert rankings.loc["m1", "score"] < rankings.loc["m0", "score"]
    # the extra items count as items of the task m0 lacks
    assert rankings.loc["m0", "items_missing"] == 600 and rankings.loc["m1", "items_missing"] == 0
    first = result.to_frame().iloc[0]
    assert (first.model_a, first.model_b) == ("m0", "m1")
    assert not first.order_reversed and first.delta > 0
    assert not result.to_frame()["order_reversed"].any()
    ranks = evalgap.ranks(frame, n_bootstrap=300)
    assert ranks.ranks["model"].tolist() == result.rankings["model"].tolist()
    pd.testing.assert_series_equal(ranks.ranks["score"], result.rankings["score"])


def test_clustered_verdicts_and_stress_tests():
    frame = clustered_board(cluster_effect=0.6, n_items=4000)
    result = audit_scores(
        align(frame), n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=300, seed=1
    )
    p = result.to_frame()
    assert (p["icc"] > 0).all() and (p["design_effect"] > 1).all()
    assert result.unresolved["clustered"] >= result.unresolved["fixed_n"]
    assert len(result.flips()) == result.unresolved["clustered"] - result.unresolved["fixed_n"]
    stress = result.cluster_stress
    assert sum(stress.unresolved_distribution.values()) == pytest.approx(1.0)
    assert len(stress.leave_one_out) == 10
    assert stress.alternatives["random"] <= result.unresolved["clustered"]
    assert set(stress.intervals.columns) >= {"icc_low", "icc_high", "unresolved_share"}
    again = audit_scores(
        align(frame), n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=300, seed=1
    )
    assert again.cluster_stress.unresolved_distribution == stress.unresolved_distribution


def test_graded_scores_audit_without_anytime_verdicts():
    frame = clustered_board(n_items=800)
    frame["score"] = frame["score"] * 0.6 + np.random.default_rng(0).random(len(frame)) * 0.4
    result = audit_scores(
        align(frame), n_bootstrap=200, n_bootstrap_required_n=100, use_clusters=False
    )
    assert (
        result.to_frame()["p_paired_t"].notna().all() and result.to_frame()["p_exact"].isna().all()
    )
    assert "anytime_valid" not in result.unresolved
    assert any("anytime-valid verdicts need binary scores" in n for n in result.notes)


def test_bad_pairs_tables():
    bad = table_7().drop(columns="b_only")
    with pytest.raises(InputError, match="missing column"):
        audit_counts(bad)
    negative = table_7()
    negative.loc[2, "a_only"] = -1
    with pytest.raises(InputError, match="row 3: a_only must be a non-negative whole number"):
        audit_counts(negative)


def test_mmlu_pro_audit_with_category_clusters():
    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    items = shared_file("mmlu_pro", "mmlu_pro_items.csv")
    long = load_scores(scores, LoadOptions(items=str(items), cluster_column="category"))
    result = audit_scores(align(long.frame), n_cluster_bootstrap=1000, seed=42)
    assert len(result.pairs) == 28 and result.family_size == 28
    assert result.unresolved["clustered"] > result.unresolved["fixed_n"]
    flips = result.flips()
    assert len(flips) == result.unresolved["clustered"] - result.unresolved["fixed_n"]
    assert (flips["design_effect"] > 1).all()
    assert len(result.cluster_stress.leave_one_out) == 14
    # random clusters are the null check: they give back the fixed-n verdicts, but for pairs
    # on the edge (gemini-1.5-flash vs Llama-3.1-70B-Instruct has q = 1.04: any design effect
    # above 1.04 flips it)
    assert abs(result.cluster_stress.alternatives["random"] - result.unresolved["fixed_n"]) <= 2


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_hellaswag_bootstrap_p_is_exact_whatever_the_seed(seed):
    """Table 6's HellaSwag pair: the exact bootstrap p is 0.0509 (fail to reject, as Table 11
    prints); B = 10,000 Monte Carlo draws gave 0.049 at seed 0 and flipped on ~40% of seeds."""
    table = pd.DataFrame(
        [
            {
                "model_a": "gemma-7b",
                "model_b": "Llama-3-8B",
                "both_correct": 7986,
                "a_only": 295,
                "b_only": 249,
                "both_wrong": 1512,
            }
        ]
    )
    row = audit_counts(table, seed=seed, n_bootstrap_required_n=0).to_frame().iloc[0]
    single = compare_counts(7986, 295, 249, 1512, seed=seed, n_bootstrap_required_n=0)
    assert row.p_bootstrap == pytest.approx(0.0509, abs=5e-5)
    assert row.p_bootstrap == single.p_values.bootstrap  # one formula, one number


def test_counts_table_of_all_pairs_is_the_all_family_with_one_row_per_model():
    """A counts table listing every pair (not a chain) used to be read as a chain: models
    repeated in the rankings, ranks by row, tiers of duplicates and family "adjacent"."""

    table = pd.DataFrame(
        {
            "task": "t",
            "model_a": ["x", "x", "y"],
            "model_b": ["y", "z", "z"],
            "both_correct": [50, 50, 50],
            "a_only": [30, 40, 20],
            "b_only": [10, 5, 10],
            "both_wrong": [10, 5, 20],
        }
    )
    r = audit_counts(table, n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.family == "all" and r.family_size == 3
    assert r.rankings["model"].tolist() == ["x", "y", "z"]
    assert r.rankings["score"].tolist() == pytest.approx([0.8, 0.6, 0.55])
    frame = r.pairs.to_frame()
    assert frame["rank_a"].tolist() == [1, 1, 2] and frame["rank_b"].tolist() == [2, 3, 3]
    x_above_y = bool(frame.loc[0, "resolved_fixed_n"])  # the row x vs y
    assert r.chains["t"][0] == (["x"] if x_above_y else ["x", "y"])
    chain = audit_counts(table.iloc[[0, 2]], n_bootstrap=0, n_bootstrap_required_n=0)
    assert chain.family == "adjacent" and chain.rankings["model"].tolist() == ["x", "y", "z"]
    listed = audit_counts(table.iloc[[0, 1]], n_bootstrap=0, n_bootstrap_required_n=0)
    assert listed.family == "listed"
    with pytest.raises(InputError, match=r"more than once.*in one order"):
        audit_counts(
            table.assign(model_a=["x", "y", "y"], model_b=["y", "x", "z"]), n_bootstrap=0
        )


# --- chains and tiers: two things, two names ------------------------------------------------


def test_tiers_are_the_rank_set_tiers_and_chains_are_their_own_thing():
    import evalgap

    frame = two_model_board()
    r = evalgap.audit(frame, n_bootstrap=0, n_bootstrap_required_n=0, seed=0)
    assert r.pairs.statistic[0] == pytest.approx(22 / np.sqrt(78 - 22**2 / 1000))
    assert r.chains == {"all": [["a", "b"]]} and r.chain_procedure == "fixed_n"
    ranks = evalgap.ranks(frame, seed=0)
    assert r.tiers == ranks.tiers() == {"all": [["a"], ["b"]]}
    assert r.tier_method == "95% simultaneous rank sets (max-t stepdown bootstrap, B=1,000)"
    data = r.to_dict()
    assert data["tiers"] == r.tiers and data["chains"] == r.chains
    assert data["tier_method"] == r.tier_method and data["chain_procedure"] == "fixed_n"
    assert "tier_procedure" not in data


def test_an_audit_without_rank_sets_has_no_tiers_and_says_why():
    r = audit_counts(table_7(), n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.tiers is None and r.to_dict()["tiers"] is None
    assert r.tier_method.startswith("no tiers: rank sets need per-item scores")
    skipped = audit_scores(align(two_model_board()), n_rank_bootstrap=0, n_bootstrap=0)
    assert skipped.tiers is None and "skipped (0 rank-set bootstrap" in skipped.tier_method


def test_mmlu_pro_tiers_agree_with_ranks_and_chains_are_named_apart():
    """29 models on 14 category clusters: the audit's chains (8 of several models, 16 in
    all) are not tiers; the tiers are those of evalgap ranks (Holm's fallback: one tier)."""
    import evalgap

    scores = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    settings = {"cluster_column": "category", "seed": 0}
    r = evalgap.audit(
        str(scores), n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0, **settings
    )
    ranks = evalgap.ranks(str(scores), **settings)
    assert r.tiers == ranks.tiers() and len(r.tiers["all"]) == 1
    assert len(r.tiers["all"][0]) == 29
    assert len(r.chains["all"]) == 16 and sum(len(c) > 1 for c in r.chains["all"]) == 8
    assert r.tier_method.startswith("95% simultaneous rank sets (Holm pairwise tests, the fallback")
    assert r.to_dict()["tiers"] == ranks.tiers()


# --- the gap's interval ----------------------------------------------------------------------


def test_gap_interval_is_newcombes_for_binary_pairs():
    """Newcombe (1998), Table II's example (cells 36, 12, 2, 0): 0.0569 to 0.3404."""
    table = pd.DataFrame(
        {"model_a": ["x"], "model_b": ["y"], "both_correct": [36], "a_only": [12],
         "b_only": [2], "both_wrong": [0]}
    )  # fmt: skip
    r = audit_counts(table, n_bootstrap=0, n_bootstrap_required_n=0)
    assert r.pairs.delta_low[0] == pytest.approx(0.0569, abs=5e-5)
    assert r.pairs.delta_high[0] == pytest.approx(0.3404, abs=5e-5)
    record = r.to_dict()["pairs"][0]
    assert record["delta_interval"] == [r.pairs.delta_low[0], r.pairs.delta_high[0]]
    assert record["delta_interval_method"] == "newcombe"
    # the same interval compare gives for the pair
    single = compare_counts(36, 12, 2, 0, n_bootstrap=0, n_bootstrap_required_n=0)
    assert (record["delta_interval"][0], record["delta_interval"][1]) == pytest.approx(
        (single.ci.low, single.ci.high)
    )


def test_gap_interval_is_the_paired_t_interval_for_graded_pairs():
    from scipy import stats

    rng = np.random.default_rng(4)
    a = rng.uniform(size=300)
    b = np.clip(a - 0.03 + rng.normal(0, 0.2, 300), 0, 1)
    frame = pd.DataFrame(
        {"model": np.repeat(["a", "b"], 300), "task": "all",
         "item_id": np.tile(np.arange(300), 2).astype(str), "score": np.r_[a, b]}
    )  # fmt: skip
    r = audit_scores(align(frame), n_bootstrap=0, n_bootstrap_required_n=0, n_rank_bootstrap=0)
    first = 0 if r.pairs.model_a[0] == "a" else 1
    x, y = (a, b) if first == 0 else (b, a)
    expected = stats.ttest_rel(x, y).confidence_interval(0.95)
    assert r.pairs.delta_low[0] == pytest.approx(expected.low, rel=1e-10)
    assert r.pairs.delta_high[0] == pytest.approx(expected.high, rel=1e-10)
    assert r.to_dict()["pairs"][0]["delta_interval_method"] == "paired_t"


# --- settings and pair tables the audit refuses (each was a traceback or silently used) ------


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        # was a TypeError
        ({"alpha": [0.05]}, "alpha must be one number, a finite number in (0, 1); got [0.05]"),
        ({"power": np.array([0.8, 0.9])}, "power must be one number"),
        ({"family_size": 2.5}, "family_size must be a whole number >= 1; got 2.5"),  # was m=2
        ({"family_size": "3"}, "family_size must be a whole number >= 1; got '3'"),
        ({"n_bootstrap": -1}, "n_bootstrap must be a non-negative whole number; got -1"),
        ({"n_rank_bootstrap": 1.5}, "n_rank_bootstrap must be a non-negative whole number"),
        ({"n_cluster_bootstrap": float("nan")}, "n_cluster_bootstrap must be a non-negative"),
        ({"procedure": "clustered"}, "procedure='clustered' gave no verdicts for these data"),
    ],
)
def test_bad_settings_are_refused_in_one_line(settings, message):
    import evalgap

    with pytest.raises(InputError, match=re.escape(message)):
        evalgap.audit(two_model_board(), **{"n_rank_bootstrap": 0, **settings})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model_b": "rank 1"}, "row 2 (counting the header as row 1) pairs rank 1 with itself"),
        ({"model_b": np.nan}, "row 2 (counting the header as row 1): model_b is empty"),
        ({"model_a": "  "}, "row 2 (counting the header as row 1): model_a is empty"),
        # an empty task cell was audited as task None and left out of the chains unsaid
        ({"task": np.nan}, "row 2 (counting the header as row 1): task is empty"),
    ],
)
def test_pair_table_rows_need_two_named_different_models(change, message):
    table = table_7().assign(task="t")
    for column, value in change.items():
        table[column] = table[column].astype(object)
        table.loc[0, column] = value
    with pytest.raises(InputError, match=re.escape(message)):
        audit_counts(table)


@pytest.mark.parametrize(
    "settings",
    [{"models": ["rank 1"]}, {"n_rank_bootstrap": 0}, {"cluster_column": "c"},
     {"complete_case": True}],
)  # fmt: skip
def test_options_a_pairs_table_cannot_honour_are_refused(settings):
    """They were ignored without a word (a pair-count table has no items to select,
    cluster or rank)."""
    import evalgap

    name = next(iter(settings))
    with pytest.raises(InputError, match=f"^{name}=: not for a pairs= file "):
        evalgap.audit(pairs=table_7(), **settings)


def test_cli_refuses_flags_a_pairs_file_cannot_honour(tmp_path, capsys):
    from evalgap.cli import main

    path = tmp_path / "pairs.csv"
    table_7().to_csv(path, index=False)
    code = main(["audit", "--pairs", str(path), "--models", "rank 1", "--n-cluster-bootstrap", "5"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == (
        "evalgap: error: --models, --n-cluster-bootstrap: not for a --pairs file of 2x2 counts "
        "(it has no per-item scores to read, cluster or rank); leave it out, or audit --scores"
    )
    assert main(["audit", "--pairs", str(path), "--seed", "3", "--json", "--n-bootstrap", "0"]) == 0


def test_a_model_without_scores_on_a_task_is_left_out_of_its_ranking_and_said():
    """It was ranked last with no score and chained to the model above it through a pair with
    no items, so the chains held a model the tiers (rank sets) left out."""
    frame = clustered_board(n_items=400, accuracies=(0.7, 0.6, 0.5))
    other = frame.assign(task="second")
    frame = pd.concat([frame, other[other["model"] != "m2"]], ignore_index=True)
    r = audit_scores(align(frame), n_bootstrap=0, n_bootstrap_required_n=0, seed=0)
    ranked = r.rankings[r.rankings["task"] == "second"]["model"].tolist()
    assert sorted(ranked) == ["m0", "m1"]
    assert sorted(m for chain in r.chains["second"] for m in chain) == ["m0", "m1"]
    assert sorted(m for tier in r.tiers["second"] for m in tier) == ["m0", "m1"]
    assert "task second: 1 model has no score and is left out of its ranking (m2)" in r.notes
    assert not any("no item both models scored" in note for note in r.notes)
    assert len(r.pairs) == 3  # 2 on "all", 1 on "second"


def test_a_board_whose_models_share_no_item_says_so(tmp_path):
    """Every pair without a shared item was left out, and the empty family then read as
    'family_size must be a whole number >= 1; got 0', a setting the user never gave."""
    import evalgap

    frame = pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "item_id": [1, 2, 3, 4], "score": [1, 0, 1, 0]}
    )
    with pytest.raises(InputError, match=r"^nothing to audit: no pair of models shares a scored "
                       r"item \(1 pair, e.g. a vs b on task all\)"):
        evalgap.audit(frame)


def test_audit_and_compare_agree_when_too_few_items_differ():
    """Five of six items differ, all one way: Eq. 3 gives N* = 1.6 and the audit called the
    pair resolved (q = 3.8) where compare says no valid test can reject on fewer than 6
    differing items and leaves N* and q unestimated; now both say it, and both floor N*."""
    import evalgap

    scores = [1, 1, 1, 1, 1, 0] + [0] * 6
    small = pd.DataFrame({"model": ["a"] * 6 + ["b"] * 6, "item_id": list(range(6)) * 2,
                          "score": scores})
    c = evalgap.compare(small, model_a="a", model_b="b")
    row = evalgap.audit(small, n_rank_bootstrap=0).pairs.to_frame().iloc[0]
    assert c.required_n is None and not c.resolved
    assert np.isnan(row["required_n"]) and np.isnan(row["resolution_ratio"])
    assert not any(row[f"resolved_{p}"] for p in ("fixed_n", "bonferroni", "holm", "bh"))
    # enough differing items but a large gap: both raise N* to the floor 6 N / d
    big = pd.DataFrame({"model": ["a"] * 12 + ["b"] * 12, "item_id": list(range(12)) * 2,
                        "score": [1] * 10 + [0] * 2 + [0] * 12})
    c = evalgap.compare(big, model_a="a", model_b="b")
    row = evalgap.audit(big, n_rank_bootstrap=0).pairs.to_frame().iloc[0]
    assert row["required_n"] == pytest.approx(6 * 12 / 10) and c.required_n == 8  # Eq. 3: 1.6
    assert c.resolved and row["resolved_fixed_n"]


def test_a_pairs_table_gives_models_tied_with_the_one_above_its_rank():
    """A pairs table's models are ranked by their places, except that a model whose pair with
    the one listed above it has a gap of exactly 0 shares that rank, as the board from the
    items ranks them (it was rank 3 beside 2)."""
    table = pd.DataFrame(
        {
            "model_a": ["m1", "m2", "m3"],
            "model_b": ["m2", "m3", "m4"],
            "both_correct": [150, 120, 100],
            "a_only": [90, 40, 70],
            "b_only": [30, 40, 20],
            "both_wrong": [30, 100, 110],
        }
    )
    result = evalgap.audit(pairs=table, n_bootstrap=0)
    assert result.rankings["rank"].tolist() == [1, 2, 2, 4]
    frame = result.pairs.to_frame()
    assert frame[["rank_a", "rank_b"]].to_numpy().tolist() == [[1, 2], [2, 2], [2, 4]]
    untied = table.assign(b_only=[30, 39, 20])
    assert evalgap.audit(pairs=untied, n_bootstrap=0).rankings["rank"].tolist() == [1, 2, 3, 4]
