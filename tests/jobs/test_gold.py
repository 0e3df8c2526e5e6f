"""compare with gold labels: the gold-scale gap equals PPI++ written out by hand, a column
and a second source give the same result, the CLI equals Python, the bundled example's
judge flips the pair, and every misuse is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalgap
from evalgap.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
JUDGED = ROOT / "examples" / "judged.csv"


def _board(seed=0, n=600, every=5, graded=False):
    """Two judged models, a gold label on every ``every``-th item for both, and on a few
    items for model A only."""
    rng = np.random.default_rng(seed)
    rows = []
    for m, skill, lenient in (("A", 0.65, 0.0), ("B", 0.55, 0.15)):
        truth = (rng.random(n) < skill).astype(float)
        if graded:
            judge = np.clip(truth * 0.7 + rng.random(n) * 0.3 + lenient, 0, 1)
        else:
            judge = np.where(rng.random(n) < 0.9, truth, 1 - truth)
            judge = np.maximum(judge, (truth == 0) & (rng.random(n) < lenient))
        for i in range(n):
            labelled = i % every == 0 or (m == "A" and i % every == 1 and i < 40)
            rows.append((m, f"q{i:04d}", float(judge[i]), truth[i] if labelled else np.nan))
    return pd.DataFrame(rows, columns=["model", "item", "score", "human"])


def _oracle(frame):
    wide = frame.pivot(index="item", columns="model", values=["score", "human"])
    f = (wide["score"]["A"] - wide["score"]["B"]).to_numpy()
    ya, yb = wide["human"]["A"].to_numpy(), wide["human"]["B"].to_numpy()
    both = ~(np.isnan(ya) | np.isnan(yb))
    y, fg = (ya - yb)[both], f[both]
    n, big_n = both.sum(), f.size
    cov = np.cov(fg, y)[0, 1]
    lam = float(np.clip(cov / f.var(ddof=1), 0, 1))
    estimate = lam * f.mean() + (y - lam * fg).mean()
    var = (y - lam * fg).var(ddof=1) / n + (2 * lam * cov - lam**2 * f.var(ddof=1)) / big_n
    return estimate, np.sqrt(var), lam, (fg - y)


@pytest.mark.parametrize("graded", [False, True])
def test_the_gold_scale_gap_is_ppi_written_out(graded):
    frame = _board(graded=graded)
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    estimate, se, lam, shift = _oracle(frame)
    assert isinstance(r, evalgap.CompareResult)
    assert r.n_items == 600 and r.gold.n_gold == 120
    assert r.delta == pytest.approx(estimate, abs=1e-12)
    assert r.se == pytest.approx(se, rel=1e-10)
    assert r.gold.lam == pytest.approx(lam)
    z = stats.t.ppf(0.975, r.gold.n_gold - 1)  # Student's t on the labels' degrees of freedom
    assert (float(r.ci.low), float(r.ci.high)) == pytest.approx(
        (estimate - z * se, estimate + z * se)
    )
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(estimate / se), r.gold.n_gold - 1))
    # the judge's bias difference is the paired t test of judge minus gold differences
    assert r.gold.bias_difference == pytest.approx(shift.mean())
    assert r.gold.bias_difference_p == pytest.approx(stats.ttest_1samp(shift, 0).pvalue)
    # the judge-only figures are compare's own on the judge's scores
    plain = evalgap.compare(frame, model_a="A", model_b="B")
    assert r.gold.judge.delta == pytest.approx(plain.delta)
    assert r.gold.judge.required_n == plain.required_n
    assert r.gold.judge.p_value == pytest.approx(
        plain.p_values.paired_t if graded else plain.p_values.exact
    )
    # A has 8 extra labels: they count for its score, not the gap, and a note says so
    assert [g.n_gold for g in r.gold.models] == [128, 120]
    assert any("one model only" in note for note in r.notes)
    assert (r.gold.models[0].agreement is None) == graded
    frame_rows = r.gold.to_frame()
    assert frame_rows["delta"].tolist() == pytest.approx(
        [r.gold.gold_only_delta, r.gold.judge.delta]
    )
    assert r.to_frame()["p_value"].tolist() == pytest.approx(
        [r.p_value, r.gold.gold_only_p, r.gold.judge.p_value]
    )


def test_a_second_source_gives_the_same_result(tmp_path):
    frame = _board(seed=3)
    gold = frame.dropna(subset=["human"])[["model", "item", "human"]]
    gold.columns = ["model", "item", "score"]
    gold.to_csv(tmp_path / "gold.csv", index=False)
    by_column = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    judged = frame.drop(columns="human")
    by_file = evalgap.compare(judged, model_a="A", model_b="B", gold=tmp_path / "gold.csv")
    by_frame = evalgap.compare(judged, model_a="A", model_b="B", gold=gold)
    for other in (by_file, by_frame):
        assert other.delta == by_column.delta and other.se == by_column.se
    assert by_file.notes == by_column.notes  # the unlabelled scores are counted alike


def test_the_bundled_example_judge_flips_the_pair_and_the_cli_equals_python(run_cli):
    r = evalgap.compare(
        JUDGED, model_a="model-x", model_b="model-y", gold_column="human", cost_judge=0.01
    )
    assert r.gold.judge.delta < 0 < r.delta and r.gold.judge.p_value < 0.05
    assert r.gold.judge_flips and "enough to reverse the comparison" in r.verdict
    assert r.gold.models[1].bias > 0.05 and r.gold.models[1].bias_ci.low > 0
    assert r.gold.design_gold is not None and r.gold.design_judged > r.n_items
    assert r.gold.width_ratio < 1  # narrower than the gold labels alone
    args = [
        "compare",
        "--scores",
        JUDGED,
        "--model-a",
        "model-x",
        "--model-b",
        "model-y",
        "--gold-column",
        "human",
        "--cost-judge",
        "0.01",
    ]
    data = json.loads(run_cli(*args, "--json").stdout)
    assert data == json.loads(json.dumps(r.to_dict()))
    text = run_cli(*args).stdout
    assert "on the gold scale" in text and f"{r.delta:+.4f}" in text
    assert f"{r.gold.judge.delta:+.4f}" in text and f"{r.gold.design_judged:,}" in text


def test_the_design_is_ppi_design_at_the_estimated_gap():
    from evalgap.stats.ppi import ppi_design

    r = evalgap.compare(
        JUDGED,
        model_a="model-x",
        model_b="model-y",
        gold_column="human",
        cost_gold=2.0,
        cost_judge=0.05,
    )
    frame = pd.read_csv(JUDGED)
    wide = frame.pivot(index="item_id", columns="model", values=["score", "human"])
    f = (wide["score"]["model-x"] - wide["score"]["model-y"]).to_numpy()
    y = (wide["human"]["model-x"] - wide["human"]["model-y"]).to_numpy()
    both = ~np.isnan(y)
    lam = r.gold.lam
    a = (y[both] - lam * f[both]).var(ddof=1)
    b = 2 * lam * np.cov(f[both], y[both])[0, 1] - lam**2 * f.var(ddof=1)
    d = ppi_design(a, b, abs(r.delta), cost_gold=2.0, cost_judge=0.05)
    assert (r.gold.design_gold, r.gold.design_judged) == (d["n_gold"], d["n_judged"])
    assert r.gold.design_cost == pytest.approx(d["cost"])
    # q from the t test's normal equivalent (never >= 1 when the t test does not reject)
    q = stats.norm.isf(r.p_value / 2) ** 2 / (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2
    assert r.resolution_ratio == pytest.approx(q)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (
            {"both_correct": 5, "a_only": 2, "b_only": 1, "both_wrong": 3, "gold_column": "h"},
            "need per-item",
        ),
        ({"scores": [1, 0, 1], "scores_b": [0, 0, 1], "gold_column": "h"}, "two arrays"),
        ({"gold_column": "human", "by": "task"}, "gold labels with"),
        ({"gold_column": "human", "gold": "x.csv"}, "two ways to give the gold labels"),
        ({"cost_judge": 0.5}, "give the gold labels"),
        ({"gold_column": "human", "cost_gold": 0}, "must be > 0"),
        ({"gold_column": "human", "cost_judge": "cheap"}, "cost_judge"),
        ({"gold_column": "nope"}, "nope"),
        ({"gold": "missing.csv"}, "no such file"),
    ],
)
def test_misuse_is_refused_in_one_line(kwargs, needle):
    frame = _board()
    call = dict(kwargs)
    if "both_correct" not in call and "scores_b" not in call:
        call = {"scores": frame, "model_a": "A", "model_b": "B", **call}
    with pytest.raises(InputError) as err:
        evalgap.compare(**call)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_bad_gold_cells_and_too_few_labels_are_refused():
    frame = _board()
    bad = frame.astype({"human": object})
    bad.loc[3, "human"] = "yes"
    with pytest.raises(InputError, match="not a finite number"):
        evalgap.compare(bad, model_a="A", model_b="B", gold_column="human")
    few = frame.copy()
    few.loc[few.index[10:], "human"] = np.nan
    few.loc[few["model"] == "B", "human"] = np.nan
    few.loc[few.index[600:602], "human"] = 1.0
    with pytest.raises(InputError, match="at least 3"):
        evalgap.compare(few, model_a="A", model_b="B", gold_column="human")
    none_b = frame.copy()
    none_b.loc[none_b["model"] == "B", "human"] = np.nan
    with pytest.raises(InputError, match="no gold label for 'B'"):
        evalgap.compare(none_b, model_a="A", model_b="B", gold_column="human")


def test_a_store_takes_its_gold_labels_from_a_second_source(run_cli, tmp_path):
    frame = pd.read_csv(JUDGED)
    frame.drop(columns="human").to_csv(tmp_path / "judge.csv", index=False)
    gold = frame.dropna(subset=["human"])[["model", "item_id", "human"]]
    gold.rename(columns={"human": "score"}).to_csv(tmp_path / "gold.csv", index=False)
    store = tmp_path / "board.duckdb"
    assert run_cli("store", "add", store, tmp_path / "judge.csv").returncode == 0
    pair = ["--model-a", "model-x", "--model-b", "model-y"]
    stored = json.loads(
        run_cli(
            "compare", "--store", store, *pair, "--gold", tmp_path / "gold.csv", "--json"
        ).stdout
    )
    direct = evalgap.compare(JUDGED, model_a="model-x", model_b="model-y", gold_column="human")
    assert stored["delta"] == pytest.approx(direct.delta)
    assert stored["gold"]["n_gold"] == direct.gold.n_gold
    refused = run_cli("compare", "--store", store, *pair, "--gold-column", "human")
    assert refused.returncode != 0 and "a store keeps no such column" in refused.stderr


def _judged_board(seed=4, n=1500, share=0.3):
    """Four models; the judge is lenient to b, so it ranks b first where the gold ranks a
    first; the same random items are labelled for every model."""
    rng = np.random.default_rng(seed)
    ease = rng.normal(0, 1, n)
    labelled = rng.random(n) < share
    rows = []
    for m, skill, lenient in (
        ("a", 0.8, 0.0),
        ("b", 0.3, 0.35),
        ("c", 0.0, 0.0),
        ("d", -0.6, 0.05),
    ):
        truth = rng.random(n) < 1 / (1 + np.exp(-(ease + skill)))
        judge = np.where(rng.random(n) < 0.92, truth, ~truth) | (~truth & (rng.random(n) < lenient))
        rows += [
            (m, f"q{i:04d}", float(judge[i]), float(truth[i]) if labelled[i] else np.nan)
            for i in range(n)
        ]
    return pd.DataFrame(rows, columns=["model", "item", "score", "human"])


def test_ranks_on_the_gold_scale_reorder_a_lenient_judge(run_cli, tmp_path):
    from evalgap.stats import ranks as rk
    from evalgap.stats import resample
    from evalgap.stats.ppi import ppi_joint

    frame = _judged_board()
    judge_only = evalgap.ranks(frame.drop(columns="human"))
    r = evalgap.ranks(frame, gold_column="human", n_bootstrap=2000, seed=3)
    assert judge_only.ranks["model"].iloc[0] == "b"  # the lenient judge puts b first
    assert r.ranks["model"].tolist() == ["a", "b", "c", "d"]
    top = r.ranks.set_index("model")
    assert top.loc["a", "rank_low"] == 1 and top.loc["a", "rank_high"] == 1
    # each score, SE and interval is compare's per-model PPI++; the sets come from the
    # joint multivariate t law, drawn with the ranks stream
    pair = evalgap.compare(frame, model_a="a", model_b="b", gold_column="human")
    assert top.loc["a", "score"] == pytest.approx(pair.gold.models[0].score)
    assert top.loc["b", "se"] == pytest.approx(pair.gold.models[1].se)
    assert top.loc["b", "score_low"] == pytest.approx(float(pair.gold.models[1].ci.low))
    wide = frame.pivot(index="item", columns="model")
    f, y = wide["score"][list("abcd")].to_numpy().T, wide["human"][list("abcd")].to_numpy().T
    joint = ppi_joint(f, y)
    rng = np.random.Generator(np.random.PCG64(resample.child_seed(3, "ranks")))
    df = float((~np.isnan(y)).sum(axis=1).min() - 1)  # the multivariate t of the t intervals
    normal = rng.multivariate_normal(np.zeros(4), joint["covariance"], 2000)
    draws = joint["estimate"] + normal / np.sqrt(rng.chisquare(df, 2000) / df)[:, None]
    sets = rk.rank_sets_from_draws(joint["estimate"], joint["covariance"], draws)
    assert r.critical_values["all"] == pytest.approx(float(sets.critical_value))
    assert top.loc[list("abcd"), "rank_low"].tolist() == list(sets.rank_low)
    assert top.loc[list("abcd"), "rank_high"].tolist() == list(sets.rank_high)
    # the judge against the gold: b's bias is found, and the verdict names it
    bias = r.gold.set_index("model")
    assert (
        bias.loc["b", "bias_low"] > 0.1
        and bias.loc["a", "bias_low"] < 0 < bias.loc["a", "bias_high"]
    )
    assert "for b +" in r.verdict
    # the CLI: JSON equals Python; the terminal and the page show the judge's table
    frame.to_csv(tmp_path / "judged.csv", index=False)
    args = [
        "ranks",
        "--scores",
        tmp_path / "judged.csv",
        "--gold-column",
        "human",
        "--n-bootstrap",
        "2000",
        "--seed",
        "3",
    ]
    data = json.loads(run_cli(*args, "--json").stdout)
    assert data["ranks"] == json.loads(json.dumps(r.to_dict()))["ranks"]
    assert data["gold"] == json.loads(json.dumps(r.to_dict()))["gold"]
    assert data["verdict"] == r.verdict
    text = run_cli(*args).stdout
    assert "the judge against the gold labels" in text and f"{bias.loc['b', 'bias']:+.4f}" in text
    assert run_cli(*args, "--html", tmp_path / "r.html").returncode == 0
    page = (tmp_path / "r.html").read_text()
    assert "The judge against the gold labels" in page and f"{bias.loc['b', 'bias']:+.4f}" in page


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"method": "holm"}, "multivariate t law"),
        ({"bootstrap": "empirical"}, "multivariate t law"),
        ({"gold": "x.csv"}, "two ways to give the gold labels"),
    ],
)
def test_ranks_refuse_what_the_gold_scale_cannot_honour(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        evalgap.ranks(_judged_board(n=200), gold_column="human", **kwargs)
    battles = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "winner": ["model_a"]})
    with pytest.raises(InputError, match="not battles="):
        evalgap.ranks(battles=battles, gold_column="human")


# --- a reviewer's findings, each a regression test --------------------------------------


def test_the_gold_column_is_never_the_judges_score_column(tmp_path):
    frame = _board().rename(columns={"score": "judge", "human": "score"})
    with pytest.raises(InputError, match="judge's score column too"):
        evalgap.compare(frame, model_a="A", model_b="B", gold_column="score")
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="score", score_column="judge")
    assert r.n_items == 600 and r.gold.n_gold == 120
    with pytest.raises(InputError, match="judge's score column too"):
        evalgap.compare(_board(), model_a="A", model_b="B", gold_column="score")
    _board().to_csv(tmp_path / "judged.csv", index=False)
    with pytest.raises(InputError, match="the judge's own file"):
        evalgap.compare(
            tmp_path / "judged.csv", model_a="A", model_b="B", gold=tmp_path / "judged.csv"
        )


def test_a_judge_p_value_of_zero_stays_zero():
    rng = np.random.default_rng(1)
    n = 3000
    gold_a = rng.random(n) < 0.9
    rows = [("A", f"q{i}", 1.0, float(gold_a[i]) if i % 10 == 0 else np.nan) for i in range(n)]
    rows += [
        ("B", f"q{i}", float(rng.random() < 0.001), 0.0 if i % 10 == 0 else np.nan)
        for i in range(n)
    ]
    frame = pd.DataFrame(rows, columns=["model", "item", "score", "human"])
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    plain = evalgap.compare(frame, model_a="A", model_b="B")
    assert r.gold.judge.p_value == plain.p_values.exact < 1e-300


def test_tasks_are_strata_and_a_task_without_labels_is_refused():
    rng = np.random.default_rng(2)
    rows = []
    rate = {"t0": 0.6, "t1": 0.05, "t2": 0.05}  # labels far from proportional to the tasks
    for task, lenient in (("t0", 0.0), ("t1", 0.3), ("t2", 0.3)):
        truth = {m: rng.random(500) < 0.6 for m in "AB"}
        labelled = rng.random(500) < rate[task]
        for m in "AB":
            judge = truth[m] | ((m == "B") & ~truth[m] & (rng.random(500) < lenient))
            rows += [
                (m, task, f"q{i}", float(judge[i]), float(truth[m][i]) if labelled[i] else np.nan)
                for i in range(500)
            ]
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "score", "human"])
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    # the stratified estimate: each task's PPI++ weighted by its judged items
    from evalgap.stats.ppi import ppi_mean

    parts = []
    for _, sub in frame.groupby("task"):
        wide = sub.pivot(index="item", columns="model", values=["score", "human"])
        f = (wide["score"]["A"] - wide["score"]["B"]).to_numpy()
        y = (wide["human"]["A"] - wide["human"]["B"]).to_numpy()
        lab = ~np.isnan(y)
        parts.append(ppi_mean(f, f[lab], y[lab]))
    assert r.delta == pytest.approx(np.mean([float(p["estimate"]) for p in parts]))
    assert r.se == pytest.approx(np.sqrt(sum(float(p["se"]) ** 2 for p in parts)) / 3)
    assert any("stratified by task" in note for note in r.notes)
    assert not any("pooled" in note for note in r.notes)  # stratified, not pooled
    # the judge's bias difference is stratified the same way (each task's, weighted)
    biases = []
    for _, sub in frame.groupby("task"):
        wide = sub.pivot(index="item", columns="model", values=["score", "human"])
        f = (wide["score"]["A"] - wide["score"]["B"]).to_numpy()
        y = (wide["human"]["A"] - wide["human"]["B"]).to_numpy()
        biases.append((f - y)[~np.isnan(y)].mean())
    assert r.gold.bias_difference == pytest.approx(np.mean(biases))
    unlabelled = frame.copy()
    unlabelled.loc[unlabelled["task"] == "t1", "human"] = np.nan
    with pytest.raises(InputError, match="task 't1' has 0 item"):
        evalgap.compare(unlabelled, model_a="A", model_b="B", gold_column="human")


@pytest.mark.parametrize(
    ("value", "needle"), [(5.0, "outside"), (-1.0, "outside"), (np.inf, "not a finite number")]
)
def test_gold_labels_off_the_scale_are_refused_naming_the_row(value, needle):
    frame = _board()
    frame.loc[5, "human"] = value
    with pytest.raises(InputError, match=needle) as err:
        evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    assert "row 6" in str(err.value)


def test_what_the_alignment_left_out_is_kept_and_said(run_cli, tmp_path):
    frame = _board()
    frame = frame[~((frame["model"] == "A") & frame["item"].isin(["q0003", "q0004"]))]
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    assert r.alignment is not None and r.n_items == 598
    assert any("no score for 2" in m for m in r.alignment.messages())
    frame.to_csv(tmp_path / "j.csv", index=False)
    out = run_cli(
        "compare",
        "--scores",
        tmp_path / "j.csv",
        "--model-a",
        "A",
        "--model-b",
        "B",
        "--gold-column",
        "human",
    )
    assert "no score for 2" in out.stdout
    data = json.loads(
        run_cli(
            "compare",
            "--scores",
            tmp_path / "j.csv",
            "--model-a",
            "A",
            "--model-b",
            "B",
            "--gold-column",
            "human",
            "--json",
        ).stdout
    )
    assert data["alignment"] is not None and "judge_flips" in data["gold"]
    assert "significant" in data


def test_resolved_gaps_and_label_counts_read_right():
    frame = _board(n=2000, every=2)
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    assert r.resolution_ratio >= 1 and "resolve a gap this size" in r.verdict
    assert "however many" not in r.verdict
    # a judge that matches the gold where labelled leaves no residual variance: the labels
    # needed are the floor of 3, never "1 gold labels" (resolved: required_gold; not
    # resolvable by these judged items: the cheapest design's labels)
    for n, field in ((3000, "required_n"), (120, "design_gold")):
        perfect = _board(n=n, every=2)
        perfect["score"] = np.where(perfect["human"].notna(), perfect["human"], perfect["score"])
        p = evalgap.compare(perfect, model_a="A", model_b="B", gold_column="human",
                            cost_judge=0.01)  # fmt: skip
        assert getattr(p if field == "required_n" else p.gold, field) == 3
        assert "1 gold labels" not in p.verdict
    assert "the cheapest design that does: 3 gold labels" in p.verdict


def test_few_labels_are_noted_and_a_zero_se_refused():
    few = _board(every=40)  # 15 items labelled for both
    r = evalgap.compare(few, model_a="A", model_b="B", gold_column="human")
    assert r.gold.n_gold == 15 and any("covered 95% from 80 labels" in n for n in r.notes)
    rows = [
        (m, f"q{i}", 0.5, (1.0 if m == "A" else 0.0) if i < 3 else np.nan)
        for m in "AB"
        for i in range(50)
    ]
    flat = pd.DataFrame(rows, columns=["model", "item", "score", "human"])
    with pytest.raises(InputError, match="standard error is 0"):
        evalgap.compare(flat, model_a="A", model_b="B", gold_column="human")


def test_strict_and_a_gold_file_with_the_judges_columns(tmp_path):
    frame = _board().rename(columns={"item": "question", "model": "system"})
    frame.drop(columns="human").to_csv(tmp_path / "judge.csv", index=False)
    gold = frame.dropna(subset=["human"])[["system", "question", "human"]]
    extra = pd.DataFrame({"system": ["C"], "question": ["q0000"], "human": [1.0]})
    pd.concat([gold, extra]).to_csv(tmp_path / "gold.csv", index=False)
    columns = {"model_column": "system", "item_column": "question"}
    r = evalgap.compare(
        tmp_path / "judge.csv",
        model_a="A",
        model_b="B",
        gold=tmp_path / "gold.csv",
        **columns,
    )
    assert r.gold.n_gold == 120 and any("1 gold label(s) of other models" in n for n in r.notes)
    with pytest.raises(InputError, match="models not compared"):
        evalgap.compare(
            tmp_path / "judge.csv",
            model_a="A",
            model_b="B",
            strict=True,
            gold=tmp_path / "gold.csv",
            **columns,
        )
    stray = pd.concat([gold, pd.DataFrame({"system": ["A"], "question": ["zzz"], "human": [1.0]})])
    stray[stray["system"] != "C"].to_csv(tmp_path / "stray.csv", index=False)
    with pytest.raises(InputError, match="strict"):
        evalgap.compare(
            tmp_path / "judge.csv",
            model_a="A",
            model_b="B",
            strict=True,
            gold=tmp_path / "stray.csv",
            **columns,
        )
    nothing = gold.assign(question="other-" + gold["question"])
    nothing.to_csv(tmp_path / "nothing.csv", index=False)
    with pytest.raises(InputError, match="none of the gold labels is on an item"):
        evalgap.compare(
            tmp_path / "judge.csv",
            model_a="A",
            model_b="B",
            gold=tmp_path / "nothing.csv",
            **columns,
        )


def test_the_python_api_takes_a_scoreset_and_refuses_nonsense():
    frame = _board()
    gold = evalgap.align(
        frame.dropna(subset=["human"]).drop(columns="score").rename(columns={"human": "score"})
    )
    r = evalgap.compare(frame.drop(columns="human"), model_a="A", model_b="B", gold=gold)
    assert r.delta == evalgap.compare(frame, model_a="A", model_b="B", gold_column="human").delta
    with pytest.raises(InputError, match="gold=") as err:
        evalgap.compare(frame, model_a="A", model_b="B", gold=123)
    assert "scores=" not in str(err.value)
    with pytest.raises(InputError, match=r"cost_gold=.*got None"):
        evalgap.compare(frame, model_a="A", model_b="B", gold_column="human", cost_gold=None)
    with pytest.raises(InputError, match="cost_judge= > 0 too"):
        evalgap.compare(frame, model_a="A", model_b="B", gold_column="human", cost_gold=5)


def test_the_gold_audit_is_compare_pair_by_pair(run_cli, tmp_path):
    from evalgap.stats import multiplicity

    frame = _judged_board(n=1200)
    r = evalgap.audit(frame, gold_column="human", family="all")
    assert isinstance(r, evalgap.AuditResult) and len(r.pairs) == 6 and r.family_size == 6
    assert r.scale == "gold" and r.rankings["model"].tolist() == r.gold["model"].tolist()
    pairs = r.to_frame()
    assert pairs["model_a"].iloc[0] == "a"  # ordered on the gold scale, not the judge's
    for row in pairs.itertuples():
        one = evalgap.compare(frame, model_a=row.model_a, model_b=row.model_b, gold_column="human")
        assert row.delta == pytest.approx(one.delta) and row.se == pytest.approx(one.se)
        assert row.p_ppi_t == pytest.approx(one.p_value)
        assert row.resolution_ratio == pytest.approx(one.resolution_ratio)
        assert row.judge_flips == one.gold.judge_flips and row.judge_delta == pytest.approx(
            one.gold.judge.delta
        )
        assert row.judge_p_value == pytest.approx(one.gold.judge.p_value)
        assert (row.required_n if row.required_n == row.required_n else None) == (
            one.required_n
        )
    t = pairs["statistic"].to_numpy()
    assert pairs["resolved_fixed_n"].tolist() == (pairs["resolution_ratio"] >= 1).tolist()
    assert pairs["resolved_holm"].tolist() == multiplicity.resolved_holm(t, 0.05, 0.8, 6).tolist()
    assert r.unresolved["bonferroni"] == int(
        (~multiplicity.resolved_single_step(t, 0.05, 0.8, 6)).sum()
    )
    assert pairs["judge_flips"].any() and "reverses" in r.verdict
    # adjacent: the 3 neighbours in gold-scale order
    adjacent = evalgap.audit(frame, gold_column="human")
    assert list(zip(adjacent.pairs.model_a, adjacent.pairs.model_b, strict=True)) == [
        ("a", "b"),
        ("b", "c"),
        ("c", "d"),
    ]
    # the CLI: JSON equals Python, the terminal and the page say the same
    frame.to_csv(tmp_path / "judged.csv", index=False)
    args = [
        "audit",
        "--scores",
        tmp_path / "judged.csv",
        "--gold-column",
        "human",
        "--family",
        "all",
    ]
    data = json.loads(run_cli(*args, "--json").stdout)
    assert data == json.loads(json.dumps(r.to_dict()))
    text = run_cli(*args, "--html", tmp_path / "a.html").stdout
    assert "the audit on the gold scale" in text and r.verdict[1:60] in " ".join(text.split())
    page = (tmp_path / "a.html").read_text()
    assert "Pairs on the gold scale" in page and f"{pairs['delta'].iloc[0]:+.4f}" in page
    out = run_cli(*args, "--output", tmp_path / "pairs.csv", "--json")
    assert "pairs" not in json.loads(out.stdout) and len(pd.read_csv(tmp_path / "pairs.csv")) == 6


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"procedure": "anytime"}, "procedure"),
        ({"seed": 3}, "seed"),
        ({"n_bootstrap": 10}, "n_bootstrap"),
    ],
)
def test_the_gold_audit_refuses_what_it_does_not_use(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        evalgap.audit(_judged_board(n=200), gold_column="human", **kwargs)
    pairs = pd.DataFrame(
        {
            "model_a": ["x"],
            "model_b": ["y"],
            "both_correct": [1],
            "a_only": [2],
            "b_only": [1],
            "both_wrong": [3],
        }
    )
    with pytest.raises(InputError, match="not pairs="):
        evalgap.audit(pairs=pairs, gold_column="human")


def test_labels_drawn_by_stratum_are_weighted_by_stratum(run_cli, tmp_path):
    from evalgap.stats.ppi import ppi_mean

    rng = np.random.default_rng(9)
    rows = []
    for stratum, rate, lenient in (("easy", 0.5, 0.0), ("hard", 0.04, 0.4)):
        truth = {m: rng.random(800) < (0.8 if stratum == "easy" else 0.3) for m in "AB"}
        labelled = rng.random(800) < rate
        for m in "AB":
            judge = truth[m] | ((m == "B") & ~truth[m] & (rng.random(800) < lenient))
            rows += [
                (
                    m,
                    f"{stratum}{i}",
                    stratum,
                    float(judge[i]),
                    float(truth[m][i]) if labelled[i] else np.nan,
                )
                for i in range(800)
            ]
    frame = pd.DataFrame(rows, columns=["model", "item", "band", "score", "human"])
    r = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human", strata="band")
    parts = []
    for _, sub in frame.groupby("band"):
        wide = sub.pivot(index="item", columns="model", values=["score", "human"])
        f = (wide["score"]["A"] - wide["score"]["B"]).to_numpy()
        y = (wide["human"]["A"] - wide["human"]["B"]).to_numpy()
        parts.append(ppi_mean(f, f[~np.isnan(y)], y[~np.isnan(y)]))
    assert r.delta == pytest.approx(np.mean([float(p["estimate"]) for p in parts]))
    assert any("stratified by stratum (2 strata)" in n for n in r.notes)
    pooled = evalgap.compare(frame, model_a="A", model_b="B", gold_column="human")
    assert abs(pooled.delta - r.delta) > 0.01  # unstratified, the hard stratum is under-weighted
    frame.to_csv(tmp_path / "s.csv", index=False)
    out = run_cli(
        "compare",
        "--scores",
        tmp_path / "s.csv",
        "--model-a",
        "A",
        "--model-b",
        "B",
        "--gold-column",
        "human",
        "--strata",
        "band",
        "--json",
    )
    assert json.loads(out.stdout)["delta"] == pytest.approx(r.delta)
    with pytest.raises(InputError, match=r"strata=.*cluster_column="):
        evalgap.compare(
            frame,
            model_a="A",
            model_b="B",
            gold_column="human",
            strata="band",
            cluster_column="band",
        )


# --- a second review's findings -----------------------------------------------------------


def test_ranks_score_each_model_on_its_own_judged_items():
    frame = _judged_board(n=600)
    rng = np.random.default_rng(1)
    drop = (frame["model"] == "d") & (rng.random(len(frame)) < 0.6)
    holed = frame[~drop]
    r = evalgap.ranks(holed, gold_column="human")
    top = r.ranks.set_index("model")
    # a model's score is on its own judged items: compare's, for a pair judged on the same items
    one = evalgap.compare(holed, model_a="a", model_b="b", gold_column="human")
    assert top.loc["a", "score"] == pytest.approx(one.gold.models[0].score)
    assert top.loc["b", "score"] == pytest.approx(one.gold.models[1].score)
    plain = evalgap.compare(frame, model_a="a", model_b="b", gold_column="human")
    # untouched by d's holes
    assert one.gold.models[0].score == pytest.approx(plain.gold.models[0].score)
    assert top.loc["d", "n_items"] == int((~drop & (frame["model"] == "d")).sum())
    audit = evalgap.audit(holed, gold_column="human", family="all")
    gold = r.gold.set_index("model")
    assert gold.loc["a", "n_gold"] == audit.gold.set_index("model").loc["a", "n_gold"]
    assert not any("fewer than" in n for n in r.notes)


def test_audit_rows_read_a_ahead_and_share_compares_guards():
    for seed in range(6):
        frame = _judged_board(seed=seed, n=400)
        r = evalgap.audit(frame, gold_column="human", family="all")
        pairs = r.to_frame()
        assert (pairs["delta"] >= 0).all()
        assert all(v is None or (isinstance(v, int) and v >= 3) for v in pairs["required_n"])
        # q >= 1 only where the t test rejects: resolved is never "not significant"
        resolved = pairs[pairs["resolved_fixed_n"]]
        assert (resolved["p_ppi_t"] < 0.05).all()
    # with c judged on fewer items, the pair's own gap (on the items both were judged on)
    # can run against the models' own scores: the row is turned so it reads "A ahead"
    frame = _judged_board(seed=0, n=300)
    holed = frame[~((frame["model"] == "c") & (np.random.default_rng(0).random(len(frame)) < 0.6))]
    r = evalgap.audit(holed, gold_column="human", family="all")
    score = r.gold.set_index("model")["score"]
    pairs = r.to_frame()
    behind = pairs["model_a"].map(score) < pairs["model_b"].map(score)
    turned = pairs[behind]
    assert turned[["model_a", "model_b"]].values.tolist() == [["d", "c"]]
    one = evalgap.compare(holed, model_a="d", model_b="c", gold_column="human")
    assert turned["delta"].iloc[0] == pytest.approx(one.delta) and one.delta > 0
    rows = [
        (m, f"q{i}", 0.5, (1.0 if m == "A" else 0.0) if i < 3 else np.nan)
        for m in "AB"
        for i in range(50)
    ]
    rows += [("C", f"q{i}", float(i % 2), float(i % 3 == 0)) for i in range(50)]
    flat = pd.DataFrame(rows, columns=["model", "item", "score", "human"])
    flat.loc[(flat["model"] == "C") & (flat["item"].isin(["q0", "q2"])), "human"] = 1.0
    flat.loc[(flat["model"] == "C") & (flat["item"] == "q1"), "human"] = 0.0
    out = evalgap.audit(flat, gold_column="human", family="all")
    assert any("standard error is 0, and the pair is left out" in n for n in out.notes)


def test_resolved_means_significant_at_few_labels():
    for seed in range(8):
        rng = np.random.default_rng(seed)
        rows = []
        for m, skill in (("A", 0.8), ("B", 0.3)):
            truth = rng.random(60) < skill
            rows += [
                (m, f"q{i}", float(truth[i]), float(truth[i]) if i < 5 else np.nan)
                for i in range(60)
            ]
        try:
            r = evalgap.compare(
                pd.DataFrame(rows, columns=["model", "item", "score", "human"]),
                model_a="A",
                model_b="B",
                gold_column="human",
            )
        except InputError:  # five labels that differ alike: no interval, said in one line
            continue
        if r.resolution_ratio is not None and r.resolution_ratio >= 1:
            assert r.p_value < r.alpha, (seed, r.p_value, r.resolution_ratio)
        if r.p_value >= r.alpha:
            assert "resolve a gap this size" not in r.verdict


def test_clusters_strict_and_conflicting_labels_on_the_gold_scale(tmp_path):
    frame = _judged_board(n=300).assign(subject=lambda f: f["item"].str[-1])
    for job in (evalgap.ranks, evalgap.audit):
        with pytest.raises(InputError, match="do not use clusters"):
            job(frame, gold_column="human", cluster_column="subject")
    with pytest.raises(InputError, match="do not use clusters"):
        evalgap.compare(
            frame, model_a="a", model_b="b", gold_column="human", cluster_column="subject"
        )
    judged = frame.drop(columns=["human", "subject"])
    gold = frame.dropna(subset=["human"])[["model", "item", "human"]]
    stray = pd.concat([gold, pd.DataFrame({"model": ["a"], "item": ["zzz"], "human": [1.0]})])
    stray.to_csv(tmp_path / "g.csv", index=False)
    for job in (evalgap.ranks, evalgap.audit):
        with pytest.raises(InputError, match="strict"):
            job(judged, gold=tmp_path / "g.csv", strict=True)
    twice = pd.concat([gold, gold.iloc[:1].assign(human=1 - gold["human"].iloc[0])])
    with pytest.raises(InputError, match="different gold labels on different rows"):
        evalgap.compare(
            judged, model_a="a", model_b="b", gold=twice.rename(columns={"human": "score"})
        )


def test_agreement_is_one_rule_in_every_view():
    # b's judge is graded: b has a correlation and no agreement, the binary judges keep
    # theirs, in ranks, audit and compare alike
    frame = _judged_board(n=400)
    graded = frame["model"] == "b"
    frame.loc[graded, "score"] = 0.2 + 0.6 * frame.loc[graded, "score"]
    views = [
        evalgap.ranks(frame, gold_column="human").gold.set_index("model")["agreement"],
        evalgap.audit(frame, gold_column="human", family="all").gold.set_index("model")[
            "agreement"
        ],
    ]
    for view in views:
        assert np.isnan(float(view["b"]) if view["b"] is not None else np.nan)
        for m in "acd":
            assert 0.5 < float(view[m]) <= 1
        assert float(view["a"]) == pytest.approx(float(views[0]["a"]))
    pair = evalgap.compare(frame, model_a="a", model_b="b", gold_column="human")
    assert pair.gold.models[0].agreement == pytest.approx(float(views[0]["a"]))
    assert pair.gold.models[1].agreement is None


def test_progress_is_reported_on_the_gold_scale_too():
    frame = _judged_board(n=300)
    for job in (evalgap.ranks, evalgap.audit):
        calls = []
        job(frame, gold_column="human", progress=lambda *a, calls=calls: calls.append(a))
        tasks = evalgap.align(frame.drop(columns="human")).tasks
        assert calls == [(k, len(tasks), f"task {t.task}") for k, t in enumerate(tasks)]


def test_a_few_labels_that_agree_give_no_interval_and_no_flag(run_cli, tmp_path):
    """Three labels that all agree with the judge: no zero-width interval of the score or
    the bias (NaN ends, a dash in the views), bias p 1 and no flag; three that all disagree
    one way: the sign test's 0.25, not the t test's 0."""
    rng = np.random.default_rng(0)
    rows = []
    for m in ("a", "b", "c"):
        judge = (rng.random(200) < 0.6).astype(float)
        for i in range(200):  # three labels per model, set below
            rows.append((m, f"q{i:03d}", judge[i], np.nan))
    frame = pd.DataFrame(rows, columns=["model", "item", "score", "human"])
    first = frame["item"] < "q003"
    frame.loc[first, "human"] = frame.loc[first, "score"]  # b: three labels that agree
    frame.loc[(frame["model"] == "a") & (frame["item"] < "q003"), "score"] = 1.0
    frame.loc[(frame["model"] == "a") & (frame["item"] < "q003"), "human"] = 1.0
    frame.loc[(frame["model"] == "c") & (frame["item"] < "q003"), "score"] = 1.0
    frame.loc[(frame["model"] == "c") & (frame["item"] < "q003"), "human"] = 0.0
    one = evalgap.compare(frame, model_a="a", model_b="b", gold_column="human")
    a = one.gold.models[0]
    assert np.isnan(float(a.ci.low)) and np.isnan(float(a.bias_ci.low))
    assert a.bias == 0 and a.bias_p_value == 1.0
    c = evalgap.compare(frame, model_a="b", model_b="c", gold_column="human").gold.models[1]
    assert c.bias == 1.0 and c.bias_p_value == 0.25 and np.isnan(float(c.bias_ci.high))
    assert not one.gold.judge_frame()["bias_flagged"].any()
    # ranks: a model whose score has no standard error is left out, not ranked as certain
    labelled = frame.copy()
    noisy = labelled["model"].isin(["b", "c"]) & (labelled["item"] < "q100")
    flip = np.random.default_rng(1).random(len(labelled)) < 0.2
    labelled.loc[noisy, "human"] = np.where(flip, 1 - labelled["score"], labelled["score"])[noisy]
    r = evalgap.ranks(labelled, gold_column="human", n_bootstrap=200)
    assert sorted(r.ranks["model"]) == ["b", "c"]
    assert any("a's 3 gold labels leave its gold-scale score no standard error" in n
               for n in r.notes)  # fmt: skip
    frame.to_csv(tmp_path / "few.csv", index=False)
    text = run_cli("compare", "--scores", tmp_path / "few.csv", "--model-a", "a",
                   "--model-b", "b", "--gold-column", "human").stdout  # fmt: skip
    assert "0.0000 —" in " ".join(text.split()) and "nan" not in text


def test_judge_bias_flags_are_holm_over_the_models():
    """Each flag is a Holm-adjusted test over every model of the table: a p of 0.03 among
    ten models is not a flag; the smallest p below alpha/10 is."""
    from evalgap.jobs._scale_parts import flag_judge_bias
    from evalgap.stats.multiplicity import adjust_p_values

    p = np.array([0.001, 0.03, 0.2, 0.5, 0.04, 0.9, 0.6, 0.7, 0.8, 0.011])
    table = pd.DataFrame({"task": "t", "model": list("abcdefghij"), "bias_p_value": p})
    flagged = flag_judge_bias(table, 0.05)["bias_flagged"].to_numpy()
    assert flagged.tolist() == (adjust_p_values(p, "holm") < 0.05).tolist()
    assert flagged.tolist() == [True] + [False] * 9  # 0.011 x 9 = 0.099: not a flag


def test_gold_and_gold_column_together_are_refused_naming_both_flags(tmp_path, run_cli):
    frame = _judged_board(n=200)
    gold = frame.dropna(subset=["human"])[["model", "item", "human"]]
    gold.to_csv(tmp_path / "g.csv", index=False)
    judged = frame.drop(columns=["human"])
    with pytest.raises(InputError, match="gold_column= and gold= are two ways"):
        evalgap.compare(judged, model_a="a", model_b="b", gold=tmp_path / "g.csv",
                        gold_column="human")  # fmt: skip
    judged.to_csv(tmp_path / "j.csv", index=False)
    out = run_cli("compare", "--scores", tmp_path / "j.csv", "--model-a", "a", "--model-b", "b",
                  "--gold", tmp_path / "g.csv", "--gold-column", "human")  # fmt: skip
    assert out.returncode == 2 and "--gold-column and --gold are two ways" in out.stderr
    # the file alone: its one numeric column in [0, 1] is the gold score
    alone = evalgap.compare(judged, model_a="a", model_b="b", gold=tmp_path / "g.csv")
    direct = evalgap.compare(frame, model_a="a", model_b="b", gold_column="human")
    assert alone.delta == pytest.approx(direct.delta) and alone.gold.n_gold == direct.gold.n_gold
