"""A paired design is defined pair by pair: every pair on the items BOTH its models scored.

Checked against independent computations: per-pair summaries on explicitly subset arrays,
pandas merges of the raw MMLU-Pro rows, and the ICC of a pair's own items.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.io.sources import LoadOptions, load_scores
from evalgap.jobs.audit import audit_counts, audit_scores
from evalgap.stats import clusters as cl
from evalgap.stats.paired import summarize_pairs, summarize_scores

from conftest import shared_file
from synthetic import clustered_board, table_7


def _with_holes(x: np.ndarray, rng, share=0.2) -> np.ndarray:
    x = x.astype(float).copy()
    x[rng.random(x.shape) < share] = np.nan
    return x


def _oracle(x, i, j):
    both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
    return summarize_scores(x[both, i], x[both, j]), int(both.sum())


@pytest.mark.parametrize("kind", ["binary", "graded"])
def test_masked_pairs_equal_each_pair_on_its_own_items(kind):
    rng = np.random.default_rng(7)
    base = rng.random((400, 9))
    x = (base < 0.6).astype(float) if kind == "binary" else np.round(base, 3)
    x = _with_holes(x, rng)
    first, second = np.triu_indices(9, k=1)
    s = summarize_pairs(x, first, second, chunk=5)  # several chunks
    for k, (i, j) in enumerate(zip(first, second, strict=True)):
        one, n = _oracle(x, i, j)
        assert s.n_items[k] == n
        assert (s.a_only[k], s.b_only[k]) == (one.a_only, one.b_only)
        for name in ("accuracy_a", "accuracy_b", "delta", "sd_diff", "correlation"):
            assert getattr(s, name)[k] == pytest.approx(float(getattr(one, name)), abs=1e-12)
        both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
        assert s.variance_a[k] == pytest.approx(x[both, i].var(), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_items=st.integers(2, 60),
    n_models=st.integers(2, 6),
    share=st.sampled_from([0.0, 0.1, 0.5]),
)
def test_masked_binary_counts_match_the_oracle(seed, n_items, n_models, share):
    rng = np.random.default_rng(seed)
    x = _with_holes((rng.random((n_items, n_models)) < 0.5).astype(float), rng, share)
    first, second = np.triu_indices(n_models, k=1)
    s = summarize_pairs(x, first, second)
    for k, (i, j) in enumerate(zip(first, second, strict=True)):
        both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
        a, b = x[both, i], x[both, j]
        assert s.n_items[k] == both.sum()
        assert s.a_only[k] == np.sum((a == 1) & (b == 0))
        assert s.b_only[k] == np.sum((a == 0) & (b == 1))


def test_constant_graded_difference_has_exactly_no_spread():
    a = np.linspace(0.1, 0.9, 101)
    x = np.column_stack([a, a - 0.1, a])
    x[3, 2] = np.nan
    s = summarize_pairs(x, [0, 0], [1, 2])
    # a - (a - 0.1) is 0.1 only up to rounding: spread within rounding of the scale is none
    assert s.sd_diff[0] == 0.0 and s.delta[0] == pytest.approx(0.1)
    assert s.n_items[1] == 100


def test_cluster_statistics_use_each_pairs_items():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 6, 500)
    d = rng.normal(size=(500, 3)) + rng.normal(size=6)[labels][:, None]
    d[rng.random(d.shape) < 0.3] = np.nan
    stats = cl.cluster_stats(d, labels)
    value, mbar = cl.icc_from_stats(stats.sizes, stats.sums, stats.sumsq)
    for p in range(3):
        keep = ~np.isnan(d[:, p])
        assert value[p] == pytest.approx(float(cl.icc(d[keep, p], labels[keep])), rel=1e-12)
        assert mbar[p] == pytest.approx(keep.sum() / np.unique(labels[keep]).size)
    # A pair whose shared items fall in one cluster has no ICC (not a crash, not 0).
    one = np.full((500, 1), np.nan)
    one[labels == 2, 0] = 1.0
    one[np.flatnonzero(labels == 2)[:3], 0] = 0.0
    s1 = cl.cluster_stats(one, labels)
    assert np.isnan(cl.icc_from_stats(s1.sizes, s1.sums, s1.sumsq)[0][0])


def test_audit_pairs_use_their_own_items_and_say_who_lacks_items():
    frame = clustered_board(n_items=1000)
    drop = (frame.model == "m2") & frame.item_id.isin([str(k) for k in range(300)])
    frame = frame[~drop]
    result = audit_scores(
        align(frame), family="all", n_bootstrap=0, n_bootstrap_required_n=0, seed=0
    )
    n = {
        frozenset((row.model_a, row.model_b)): row.n_items for row in result.to_frame().itertuples()
    }
    for other in ("m0", "m1", "m3", "m4"):
        assert n[frozenset(("m2", other))] == 700
    assert n[frozenset(("m0", "m1"))] == 1000
    ranking = result.rankings.set_index("model")
    assert ranking.loc["m2", "items_missing"] == 300 and ranking.loc["m2", "n_items"] == 700
    assert (ranking["score_low"] < ranking["score"]).all()
    assert (ranking["score"] < ranking["score_high"]).all()
    assert any(
        note.startswith("1 of 5 models lack items (of 1,000): m2 300; each pair uses")
        for note in result.notes
    )
    common = audit_scores(
        align(frame, complete_case=True),
        family="all",
        n_bootstrap=0,
        n_bootstrap_required_n=0,
        seed=0,
    )
    assert (common.to_frame().n_items == 700).all()
    assert any("--complete-case left out 300 items" in note for note in common.notes)


def test_family_size_below_the_pairs_is_refused(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    table_7().to_csv(path, index=False)
    assert main(["audit", "--pairs", str(path), "--family-size", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--family-size 5" in err and "9 pairs" in err
    with pytest.raises(InputError, match="smaller than the 9 pairs"):
        audit_counts(table_7(), family_size=5)
    assert audit_counts(table_7(), family_size=45, n_bootstrap=0).family_size == 45


def test_a_pair_listed_twice_is_refused():
    doubled = pd.concat([table_7(), table_7().iloc[[2]]], ignore_index=True)
    with pytest.raises(InputError, match=r"rank 3 vs rank 4 is listed more than once \(rows 4, 11"):
        audit_counts(doubled, source="pairs.csv")


def test_models_option_selects_models_of_a_long_table(tmp_path, capsys):
    path = tmp_path / "long.csv"
    clustered_board(n_items=300).to_csv(path, index=False)
    code = main(
        [
            "audit",
            "--scores",
            str(path),
            "--models",
            "m0",
            "--models",
            "m3",
            "--json",
            "--n-bootstrap",
            "0",
            "--n-bootstrap-required-n",
            "0",
            "--n-cluster-bootstrap",
            "0",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert [(p["model_a"], p["model_b"]) for p in data["pairs"]] == [("m0", "m3")]


def test_wide_matrix_with_partial_models_audits_every_pair_on_its_own_items(tmp_path, capsys):
    """48 models, 3 of them with empty cells; --family all finds every model without naming it."""
    rng = np.random.default_rng(0)
    n, k = 600, 48
    ability = np.linspace(-1, 1, k)
    difficulty = rng.normal(size=n)
    x = (rng.random((n, k)) < 1 / (1 + np.exp(difficulty[:, None] - ability))).astype(float)
    wide = pd.DataFrame(x, columns=[f"model-{m:02d}" for m in range(k)])
    for m, holes in ((3, 150), (17, 40), (40, 300)):
        wide.loc[rng.choice(n, holes, replace=False), f"model-{m:02d}"] = np.nan
    wide.insert(0, "item_id", [f"q{i}" for i in range(n)])
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    argv = [
        "audit",
        "--scores",
        str(path),
        "--layout",
        "wide",
        "--family",
        "all",
        "--json",
        "--n-bootstrap",
        "0",
        "--n-bootstrap-required-n",
        "0",
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["pairs"]) == k * (k - 1) // 2
    observed = wide.drop(columns="item_id").notna()
    for p in data["pairs"]:
        both = observed[p["model_a"]] & observed[p["model_b"]]
        assert p["n_items"] == int(both.sum())
        a = wide.loc[both, p["model_a"]].to_numpy()
        b = wide.loc[both, p["model_b"]].to_numpy()
        assert (p["a_only"], p["b_only"]) == (
            int(((a == 1) & (b == 0)).sum()),
            int(((a == 0) & (b == 1)).sum()),
        )
    assert any("3 of 48 models lack items" in note for note in data["notes"])


@pytest.fixture(scope="module")
def mmlu_pro():
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    items = shared_file("mmlu_pro", "mmlu_pro_items.csv")
    raw = pd.read_csv(path)
    long = load_scores(path, LoadOptions(items=str(items), cluster_column="category"))
    result = audit_scores(align(long.frame), n_cluster_bootstrap=200, n_bootstrap=0, seed=0)
    return raw, result


def test_mmlu_pro_pairs_use_the_items_both_models_scored(mmlu_pro):
    raw, result = mmlu_pro
    wide = raw.pivot(index="question_id", columns="model", values="correct")
    partial = {
        "DeepSeek-Coder-V2_5shots",
        "gemini-1.5-flash-002_5shots",
        "gemini-1.5-pro-002_5shots",
    }
    own = wide.mean()  # each model's accuracy over its own items
    rankings = result.rankings.set_index("model")
    assert rankings["own_items_mean"].to_dict() == pytest.approx(own.to_dict(), abs=1e-12)
    for p in result.to_frame().itertuples():
        both = wide[p.model_a].notna() & wide[p.model_b].notna()
        assert p.n_items == both.sum()
        if not ({p.model_a, p.model_b} & partial):
            assert p.n_items == 12_032
        shared_gap = wide.loc[both, p.model_a].mean() - wide.loc[both, p.model_b].mean()
        assert p.delta == pytest.approx(shared_gap, abs=1e-12)
        # A is listed above B (the paired rank, then the board score); the shared items agree
        assert rankings.loc[p.model_a, "rank"] <= rankings.loc[p.model_b, "rank"]
        assert rankings.loc[p.model_a, "score"] >= rankings.loc[p.model_b, "score"]
        assert bool(p.order_reversed) == (shared_gap < 0)
    # by own-items accuracy DeepSeek-Coder-V2 (0.636, 1,681 items missing) was listed above
    # Llama-3.1-70B-Instruct (0.628) and the shared items reversed it: no longer
    assert own["DeepSeek-Coder-V2_5shots"] > own["Meta-Llama-3_1-70B-Instruct_5shots"]
    assert result.to_frame().order_reversed.sum() == 0
    assert result.unresolved["fixed_n"] == 13
    assert abs(result.unresolved["clustered"] - 23) <= 1
    qwen = result.to_frame()[
        (result.to_frame().model_a == "Qwen1.5-110B_5shots")
        & (result.to_frame().model_b == "Qwen1.5-72B-Chat_5shots")
    ].iloc[0]
    assert qwen.resolution_ratio == pytest.approx(2.48, abs=0.01)  # 1.18 on the intersection


def test_python_api_inputs_that_used_to_crash():
    """A blank cluster label through the Python API, and load_scores(None): one clear error."""
    from evalgap.io.sources import load_scores

    frame = clustered_board(n_items=50)
    frame.loc[frame.item_id == "7", "cluster"] = None  # item 7 has no label in any row
    with pytest.raises(InputError, match="1 items have no cluster label in any row"):
        align(frame)
    frame.loc[frame.item_id == "7", "cluster"] = ["c1", None, None, None, None]
    assert align(frame).tasks[0].clusters.tolist().count("c1") >= 1  # one labelled row is enough
    with pytest.raises(InputError, match=r"load_scores\(paths=...\): expected a path"):
        load_scores(None)
    with pytest.raises(InputError, match="every path must be a string or a Path, got int"):
        load_scores([1, 2])


def test_one_graded_model_leaves_the_other_pairs_binary():
    """Found in review: a single non-binary column made every pair graded (no exact test)."""
    rng = np.random.default_rng(5)
    x = (rng.random((500, 4)) < 0.6).astype(float)
    x[:, 3] = rng.random(500)  # partial credit for one model
    first, second = np.array([0, 0, 1, 2]), np.array([1, 3, 2, 3])
    s = summarize_pairs(x, first, second)
    assert s.binary.tolist() == [True, False, True, False]
    for k, (i, j) in enumerate(zip(first, second, strict=True)):
        one = summarize_scores(x[:, i], x[:, j])
        assert (s.a_only[k], s.b_only[k]) == (one.a_only, one.b_only)
        assert s.sd_diff[k] == pytest.approx(float(one.sd_diff), abs=1e-12)


def test_phi_of_a_huge_pair_does_not_overflow():
    """Found in review: the product of four counts wrapped int64 above ~110k items (phi 3.4)."""
    cells = {"both_correct": 100_000, "a_only": 60_000, "b_only": 50_000, "both_wrong": 100_000}
    a = np.repeat([1.0, 1.0, 0.0, 0.0], list(cells.values()))
    b = np.repeat([1.0, 0.0, 1.0, 0.0], list(cells.values()))
    s = summarize_pairs(np.column_stack([a, b]), [0], [1])
    assert s.correlation[0] == pytest.approx(np.corrcoef(a, b)[0, 1], abs=1e-12)


def test_jsonl_integer_ids_beside_a_null_stay_exact(tmp_path):
    """Found in review: pandas turned int ids into floats when a null was present, merging
    ids above 2^53 into one item."""
    from evalgap.io.sources import load_scores

    big = 2**60
    lines = [
        f'{{"model": "{m}", "item_id": {big + k}, "score": {(k + j) % 2}, "note": null}}'
        for j, m in enumerate("AB")
        for k in range(4)
    ]
    lines.append('{"model": "A", "item_id": null, "score": 1}')
    path = tmp_path / "ids.jsonl"
    path.write_text("\n".join(lines) + "\n")
    s = align(load_scores(path).frame)
    assert s.pair("A", "B")[0].size == 4
    assert sorted(s.tasks[0].item_ids.astype(str)) == [str(big + k) for k in range(4)]
