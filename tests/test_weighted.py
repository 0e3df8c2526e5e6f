"""compare --weights: the weighted gap of items sampled with unequal probabilities.

Oracles: statsmodels' weighted least squares of the differences on a constant with the HC1
sandwich covariance is the linearized (with-replacement) survey variance of the weighted
mean; DescrStatsW gives the weighted mean; the textbook stratified-mean variance
``sum_h (N_h/N)^2 (1 - f_h) s_h^2 / n_h`` the stratified SE; and repeated sampling from a
known population the bias and the coverage.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.stats import weighted as sw


def test_weighted_gap_matches_statsmodels_wls_hc1_and_descrstatsw():
    sm = pytest.importorskip("statsmodels.api")
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    rng = np.random.default_rng(0)
    d = rng.choice([-1.0, 0.0, 0.0, 1.0, 1.0], size=250)
    w = rng.uniform(1, 20, size=250)
    g = sw.weighted_gap(d, w)
    fit = sm.WLS(d, np.ones_like(d), weights=w).fit(cov_type="HC1")
    assert g.delta == pytest.approx(fit.params[0], rel=1e-12)
    assert g.se == pytest.approx(fit.bse[0], rel=1e-10)
    assert g.delta == pytest.approx(ws.DescrStatsW(d, weights=w).mean, rel=1e-12)
    assert g.p_value == pytest.approx(fit.pvalues[0], rel=1e-8)
    assert g.effective_n == pytest.approx(w.sum() ** 2 / (w**2).sum())


def test_stratified_se_is_the_textbook_stratified_mean_variance():
    rng = np.random.default_rng(1)
    sizes, samples = np.array([5000, 3000, 2000]), np.array([40, 80, 120])
    d = [
        rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.1 * (h + 1), 0.5, 0.5 - 0.1 * (h + 1)])
        for h, n in enumerate(samples)
    ]
    w = np.concatenate([np.full(n, big / n) for n, big in zip(samples, sizes, strict=True)])
    strata = np.repeat([0, 1, 2], samples)
    g = sw.weighted_gap(np.concatenate(d), w, strata)
    total = sizes.sum()
    mean = sum(big * x.mean() for big, x in zip(sizes, d, strict=True)) / total
    variance = sum(
        (big / total) ** 2 * (1 - n / big) * x.var(ddof=1) / n
        for big, n, x in zip(sizes, samples, d, strict=True)
    )
    assert g.delta == pytest.approx(mean, rel=1e-12)
    assert g.se == pytest.approx(np.sqrt(variance), rel=1e-12)
    assert g.weight_sum == pytest.approx(total)


def test_stratified_design_is_unbiased_and_covers_in_repeated_sampling():
    """A 4,000-item population whose hard stratum holds most disagreements, sampled 300
    items with Neyman-like oversampling: over 2,000 draws the weighted gap is unbiased
    for the population gap (the plain mean is not), and its 95% interval covers."""
    rng = np.random.default_rng(2)
    strata_sizes = np.array([2500, 1500])
    p_disagree = np.array([0.05, 0.5])
    population = [
        np.where(rng.random(n) < p, rng.choice([1.0, -1.0], n, p=[0.65, 0.35]), 0.0)
        for n, p in zip(strata_sizes, p_disagree, strict=True)
    ]
    truth = np.concatenate(population).mean()
    take = np.array([60, 240])
    w = np.concatenate([np.full(t, n / t) for t, n in zip(take, strata_sizes, strict=True)])
    labels = np.repeat([0, 1], take)
    estimates, plain, covered = [], [], 0
    for _ in range(2000):
        d = np.concatenate(
            [rng.choice(pop, t, replace=False) for pop, t in zip(population, take, strict=True)]
        )
        g = sw.weighted_gap(d, w, labels)
        estimates.append(g.delta)
        plain.append(d.mean())
        covered += g.ci_low <= truth <= g.ci_high
    estimates = np.array(estimates)
    mc = estimates.std() / np.sqrt(estimates.size)
    assert abs(estimates.mean() - truth) < 3 * mc
    assert abs(np.mean(plain) - truth) > 20 * mc  # oversampling biases the plain mean
    coverage = covered / 2000
    assert coverage >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / 2000)


def _sample_table(rng, n=120):
    a = (rng.random(n) < 0.7).astype(float)
    b = (rng.random(n) < 0.6).astype(float)
    w = rng.choice([2.0, 10.0], n)
    stratum = np.where(w == 2.0, "hard", "easy")
    items = [f"q{i}" for i in range(n)]
    rows = pd.DataFrame(
        {
            "model": ["A"] * n + ["B"] * n,
            "item_id": items * 2,
            "score": np.r_[a, b],
            "w": np.r_[w, w],
            "stratum": np.r_[stratum, stratum],
        }
    )
    design = pd.DataFrame({"item_id": items, "weight": w, "stratum": stratum})
    return rows, design, a, b, w, stratum


def test_api_weights_from_a_column_a_design_table_or_arrays_agree(tmp_path):
    rows, design, a, b, w, stratum = _sample_table(np.random.default_rng(3))
    expected = sw.weighted_gap(a - b, w, stratum)
    by_column = evalgap.compare(
        rows[["model", "item_id", "score", "w", "stratum"]],
        model_a="A",
        model_b="B",
        weights="w",
        strata="stratum",
        model_column="model",
        item_column="item_id",
    )
    by_table = evalgap.compare(
        rows[["model", "item_id", "score"]], model_a="A", model_b="B", weights=design
    )
    by_arrays = evalgap.compare(a, b, weights=w, strata=stratum)
    for r in (by_column, by_table, by_arrays):
        assert isinstance(r, evalgap.WeightedCompareResult)
        assert r.delta == pytest.approx(expected.delta, rel=1e-12)
        assert r.se == pytest.approx(expected.se, rel=1e-12)
        assert r.n_strata == 2
    assert by_table.unweighted_delta == pytest.approx(np.mean(a - b))
    assert "estimates the full benchmark's gap" in by_table.verdict
    assert set(by_table.to_dict()) >= {
        "delta",
        "se",
        "p_value",
        "confidence_interval",
        "weight_sum",
        "required_n",
        "verdict",
    }


def test_cli_compare_weights_with_a_design_file(run_cli, tmp_path):
    rows, design, a, b, w, stratum = _sample_table(np.random.default_rng(4))
    rows[["model", "item_id", "score"]].to_csv(tmp_path / "scores.csv", index=False)
    design.to_csv(tmp_path / "design.csv", index=False)
    base = ["compare", "--scores", tmp_path / "scores.csv", "--model-a", "A", "--model-b", "B"]
    out = run_cli(*base, "--weights", tmp_path / "design.csv")
    assert out.returncode == 0, out.stderr
    assert "weighted gap delta" in out.stdout and "design-based SE" in out.stdout
    data = json.loads(run_cli(*base, "--weights", tmp_path / "design.csv", "--json").stdout)
    expected = sw.weighted_gap(a - b, w, stratum)
    assert data["delta"] == pytest.approx(expected.delta)
    assert data["se"] == pytest.approx(expected.se)
    rows.to_csv(tmp_path / "with_weights.csv", index=False)
    column = run_cli(
        "compare",
        "--scores",
        tmp_path / "with_weights.csv",
        "--model-a",
        "A",
        "--model-b",
        "B",
        "--score-column",
        "score",
        "--weights",
        "w",
        "--strata",
        "stratum",
        "--json",
    )
    assert json.loads(column.stdout)["se"] == pytest.approx(expected.se)


def test_weighted_inputs_are_checked(run_cli, tmp_path):
    rows, design, a, b, w, _ = _sample_table(np.random.default_rng(5))
    scores = rows[["model", "item_id", "score"]]
    with pytest.raises(InputError, match="1 item\\(s\\) both models scored have no weight"):
        evalgap.compare(scores, model_a="A", model_b="B", weights=design.iloc[1:])
    bad = design.assign(weight=design["weight"].where(design.index != 3, 0.0))
    with pytest.raises(InputError, match="not positive numbers \\(first: item 'q3'"):
        evalgap.compare(scores, model_a="A", model_b="B", weights=bad)
    with pytest.raises(InputError, match="needs columns item_id, weight"):
        evalgap.compare(scores, model_a="A", model_b="B", weights=design.drop(columns="weight"))
    with pytest.raises(InputError, match="2x2 counts have no items"):
        evalgap.compare(both_correct=5, a_only=2, b_only=1, both_wrong=3, weights=[1.0])
    with pytest.raises(InputError, match="one weight per item"):
        evalgap.compare(a, b, weights=w[:-1])
    extra = pd.concat(
        [design, pd.DataFrame({"item_id": ["q999"], "weight": [3.0], "stratum": ["easy"]})]
    )
    r = evalgap.compare(scores, model_a="A", model_b="B", weights=extra)
    assert "1 of the design's 121 items were not scored by both models" in r.notes[0]
    out = run_cli(
        "compare",
        "--both-correct",
        "5",
        "--a-only",
        "2",
        "--b-only",
        "1",
        "--both-wrong",
        "3",
        "--weights",
        "w",
    )
    assert out.returncode == 2 and "--weights and --strata need per-item --scores" in out.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"item_id,weight\nq\xe9,1\n", "not UTF-8 text"),
        (b"", "the file is empty"),
        (b'item_id,weight\n"unterminated,1\n', "cannot be read as csv"),
    ],
    ids=["latin-1", "empty", "open-quote"],
)
def test_a_damaged_design_file_is_one_line(tmp_path, content, message):
    """The design file was read with a bare pandas.read_csv: UnicodeDecodeError,
    EmptyDataError and ParserError tracebacks."""
    scores = tmp_path / "scores.csv"
    pd.DataFrame(
        {
            "model": ["a"] * 3 + ["b"] * 3,
            "item_id": ["q1", "q2", "q3"] * 2,
            "score": [1, 0, 1, 0, 0, 1],
        }
    ).to_csv(scores, index=False)
    design = tmp_path / "design.csv"
    design.write_bytes(content)
    with pytest.raises(InputError, match=rf"design\.csv: .*{message}"):
        evalgap.compare(scores, model_a="a", model_b="b", weights=str(design))
