"""compare --by: the pair within each group, Holm-adjusted over the groups, and pooled."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from evalgap._scores import align
from evalgap.cli import main
from evalgap.errors import InputError
from evalgap.jobs.compare import compare_scores
from evalgap.jobs.compare_groups import compare_by_group

from conftest import shared_file
from synthetic import grouped_pair

LLAMA = ("Meta-Llama-3_1-8B-Instruct_5shots", "Meta-Llama-3_1-8B_5shots")


def test_each_group_is_the_pair_on_that_groups_items_with_holm_over_groups():
    frame = grouped_pair()
    result = compare_by_group(align(frame), "a", "b", n_bootstrap=0, n_bootstrap_required_n=0)
    raw = []
    for g in result.groups:
        sub = frame[frame.task == g.group]
        one = compare_scores(
            sub[sub.model == "a"].score.to_numpy(),
            sub[sub.model == "b"].score.to_numpy(),
            n_bootstrap=0,
            n_bootstrap_required_n=0,
        )
        assert g.result.n_items == one.n_items and g.p_value == one.p_values.exact
        raw.append(g.p_value)
    expected = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose([g.p_adjusted for g in result.groups], expected, rtol=1e-12)
    assert result.pooled.n_items == 600
    assert result.significant_groups == ("g1",)
    assert "differ significantly in 1 of 3 task groups (g1)" in result.verdict
    assert list(result.to_frame().columns)[:3] == ["task", "n_items", "accuracy_a"]


def test_cli_by_a_column_of_the_table(tmp_path, capsys):
    frame = grouped_pair().rename(columns={"task": "category"})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = [
        "compare",
        "--scores",
        str(path),
        "--model-a",
        "a",
        "--model-b",
        "b",
        "--by",
        "category",
        "--n-bootstrap",
        "0",
        "--n-bootstrap-required-n",
        "0",
    ]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(g["group"] for g in data["groups"]) == ["g1", "g2", "g3"]
    assert data["adjustment"] == "holm" and data["pooled"]["n_items"] == 600
    assert main(argv) == 0
    assert "holm-adjusted over 3 groups" in capsys.readouterr().out.replace("\n", " ")
    assert main([*argv[:-4], "--by", "nothing"]) == 2
    assert "no column 'nothing'" in capsys.readouterr().err


def test_pooled_compare_of_several_tasks_says_it_pools(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    grouped_pair().to_csv(path, index=False)
    argv = [
        "compare",
        "--scores",
        str(path),
        "--model-a",
        "a",
        "--model-b",
        "b",
        "--json",
        "--n-bootstrap",
        "0",
        "--n-bootstrap-required-n",
        "0",
    ]
    assert main(argv) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(n.startswith("3 tasks pooled (g") and "--by task" in n for n in notes)


def test_by_needs_scores_and_a_known_adjustment():
    with pytest.raises(InputError, match="adjustment must be one of"):
        compare_by_group(align(grouped_pair()), "a", "b", adjustment="fdr")


def test_mmlu_pro_llama_by_category():
    path = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    frame = pd.read_csv(path).rename(
        columns={"category": "task", "question_id": "item_id", "correct": "score"}
    )
    s = align(frame[["model", "task", "item_id", "score"]], models=list(LLAMA))
    r = compare_by_group(s, *LLAMA, n_bootstrap=0, n_bootstrap_required_n=0)
    assert len(r.groups) == 14 and sum(g.result.n_items for g in r.groups) == 12_032
    assert (r.pooled.a_only, r.pooled.b_only) == (2053, 1127)
    assert len(r.significant_groups) == 10


def test_a_group_below_the_minimum_items_rule_is_never_significant():
    """Three graded items all far apart: the paired t p is 5e-5, but with 3 differing items
    no valid test can reject at 0.05, so the group gives no verdict (it said 'reject')."""
    import evalgap

    rng = np.random.default_rng(0)
    rows = [(m, f"a{i}", 0.9 + 0.01 * i if m == "x" else 0.1, "g1") for i in range(3)
            for m in ("x", "y")]
    rows += [(m, f"b{i}", rng.random(), "g2") for i in range(30) for m in ("x", "y")]
    frame = pd.DataFrame(rows, columns=["model", "item", "score", "cat"])
    r = evalgap.compare(frame, model_a="x", model_b="y", by="cat", n_bootstrap=0,
                        n_permutations=0, n_bootstrap_required_n=0)
    small = r.groups[0]
    assert small.p_adjusted < 0.05 and small.result.too_few_items and not small.significant
    assert small.result.required_n is None and "0 of 2" in r.verdict
