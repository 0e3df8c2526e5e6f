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
    g = sw.weighted_gap(np.concatenate(d), w, strata, stratum_sizes=np.repeat(sizes, samples))
    total = sizes.sum()
    mean = sum(big * x.mean() for big, x in zip(sizes, d, strict=True)) / total
    variance = sum(
        (big / total) ** 2 * (1 - n / big) * x.var(ddof=1) / n
        for big, n, x in zip(sizes, samples, d, strict=True)
    )
    assert g.delta == pytest.approx(mean, rel=1e-12)
    assert g.se == pytest.approx(np.sqrt(variance), rel=1e-12)
    assert g.weight_sum == pytest.approx(total) and g.population_size == total


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
        g = sw.weighted_gap(d, w, labels, stratum_sizes=np.repeat(strata_sizes, take))
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
        assert isinstance(r, evalgap.CompareResult)
        assert r.delta == pytest.approx(expected.delta, rel=1e-12)
        assert r.se == pytest.approx(expected.se, rel=1e-12)
        assert r.design.n_strata == 2
    assert by_table.design.unweighted_delta == pytest.approx(np.mean(a - b))
    # the interval is `ci` (an object, its former key gone from the JSON); the old
    # attribute still reads for one release, with a DeprecationWarning
    data = by_table.to_dict()
    assert "confidence_interval" not in data
    assert data["ci"] == {"low": pytest.approx(expected.ci_low, rel=1e-12),
                          "high": pytest.approx(expected.ci_high, rel=1e-12),
                          "method": "wald (design-based SE)", "level": 0.95}  # fmt: skip
    assert data["estimate"]["ci"] == data["ci"] and data["estimate"]["scale"] == "design"
    with pytest.warns(DeprecationWarning, match="renamed ci"):
        assert by_table.confidence_interval == by_table.ci
    assert "estimates the full benchmark's gap" in by_table.verdict
    assert set(by_table.to_dict()) >= {
        "delta",
        "se",
        "p_value",
        "ci",
        "estimate",
        "design",
        "required_n",
        "verdict",
    }
    assert by_table.to_dict()["design"]["weight_sum"] == pytest.approx(by_table.design.weight_sum)
    # each model's weighted score, whose difference is the weighted gap
    assert by_table.accuracy_a - by_table.accuracy_b == pytest.approx(by_table.delta, abs=1e-12)


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


def _stratified_sample(seed=7):
    rng = np.random.default_rng(seed)
    d = rng.choice([-1.0, 0.0, 0.0, 1.0, 1.0], size=90)
    w = np.repeat([30.0, 12.5, 4.0], [20, 40, 30])
    return d, w, np.repeat(["easy", "mid", "hard"], [20, 40, 30])


@pytest.mark.parametrize("scale", [1e-310, 1e-200, 1e-3, 1 / 1500.0, 1.0, 7.3, 1e160, 1e300])
def test_weighted_gap_is_the_same_whatever_the_weights_scale(scale):
    """Only the weights' ratios matter: weights summing to 1, all 1 within a stratum, or
    scaled near the floating-point limits give the statsmodels (WLS, HC1) answer for a
    single stratum, and the textbook stratified variance (no FPC: no sizes given) with strata.
    The original code took the weights' sum as each stratum's size: weights summing to 1 made
    every f_h 1 and the SE 0 ("p<1e-15"); 1e-310 and 1e160 underflowed or overflowed."""
    sm = pytest.importorskip("statsmodels.api")
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    d, w, strata = _stratified_sample()
    fit = sm.WLS(d, np.ones_like(d), weights=w).fit(cov_type="HC1")
    g = sw.weighted_gap(d, w * scale)
    assert g.delta == pytest.approx(fit.params[0], rel=1e-9)
    assert g.delta == pytest.approx(ws.DescrStatsW(d, weights=w).mean, rel=1e-9)
    assert g.se == pytest.approx(fit.bse[0], rel=1e-9)
    assert g.p_value == pytest.approx(fit.pvalues[0], rel=1e-7)
    assert g.effective_n == pytest.approx(w.sum() ** 2 / (w**2).sum(), rel=1e-9)
    s = sw.weighted_gap(d, w * scale, strata)
    shares = {h: w[strata == h].sum() / w.sum() for h in ("easy", "mid", "hard")}
    variance = sum(
        shares[h] ** 2 * d[strata == h].var(ddof=1) / (strata == h).sum() for h in shares
    )
    assert s.se == pytest.approx(np.sqrt(variance), rel=1e-9) and s.se > 0
    assert s.population_size is None


def test_weights_summing_to_one_or_all_one_keep_the_se():
    d, w, strata = _stratified_sample()
    reference = sw.weighted_gap(d, w, strata)
    for weights in (w / w.sum(), np.ones_like(w) * (w / w)):
        g = sw.weighted_gap(d, weights, strata) if weights is not w else reference
        assert g.se > 0 and g.p_value > 1e-6
    normalised = sw.weighted_gap(d, w / w.sum(), strata)
    assert normalised.se == pytest.approx(reference.se, rel=1e-12)
    assert normalised.p_value == pytest.approx(reference.p_value, rel=1e-9)


def test_finite_population_correction_comes_from_the_stratum_sizes():
    """With sizes, f_h = n_h / N_h whatever the weights' scale; sizes are checked."""
    d, w, strata = _stratified_sample()
    big = {"easy": 600, "mid": 500, "hard": 120}
    sizes = np.array([big[h] for h in strata])
    for scale in (1.0, 1e-6, 1e200):
        g = sw.weighted_gap(d, w * scale, strata, stratum_sizes=sizes)
        shares = {h: w[strata == h].sum() / w.sum() for h in big}
        variance = sum(
            shares[h] ** 2 * (1 - (strata == h).sum() / big[h]) * d[strata == h].var(ddof=1)
            / (strata == h).sum()
            for h in big
        )
        assert g.se == pytest.approx(np.sqrt(variance), rel=1e-9)
        assert g.population_size == 1220
    with pytest.raises(InputError, match="stratum 'hard' has 30 items sampled but a size of 20"):
        sw.weighted_gap(d, w, strata, stratum_sizes=np.where(strata == "hard", 20, sizes))
    with pytest.raises(InputError, match="stratum 'easy' is given sizes 600 and 601"):
        sw.weighted_gap(d, w, strata, stratum_sizes=sizes + (np.arange(90) == 1))


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (np.r_[np.nan, np.ones(89)], "1 weight\\(s\\) are not positive finite numbers .first: nan"),
        (np.r_[np.inf, np.ones(89)], "not positive finite numbers .first: inf"),
        (np.r_[-1.0, np.ones(89)], "not positive finite numbers .first: -1"),
        (np.zeros(90), "90 weight\\(s\\) are not positive finite"),
        (np.full(90, 1e307), "the weights overflow when summed"),
    ],
)
def test_bad_weights_are_one_line_errors(weights, message):
    d, _, strata = _stratified_sample()
    with pytest.raises(InputError, match=message):
        sw.weighted_gap(d, weights, strata)
    with pytest.raises(InputError, match=message):
        evalgap.compare(d.clip(0), (-d).clip(0), weights=weights)


def test_scale_invariance_property():
    hyp = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    d, w, strata = _stratified_sample()
    reference = sw.weighted_gap(d, w, strata, alternative="greater")

    @hyp.settings(max_examples=60, deadline=None, derandomize=True)
    @hyp.given(st.floats(min_value=-300, max_value=300))
    def check(exponent):
        g = sw.weighted_gap(d, w * 10.0**exponent, strata, alternative="greater")
        assert g.delta == pytest.approx(reference.delta, rel=1e-9)
        assert g.se == pytest.approx(reference.se, rel=1e-9)
        assert g.p_value == pytest.approx(reference.p_value, rel=1e-7)
        assert g.required_n == reference.required_n

    check()


def test_one_sided_weighted_test_and_its_required_n():
    """--alternative under --weights: the one-sided Wald p and z_{1-alpha} in N*, and a gap
    on the untested side gets no N* (the original code refused or ignored the option)."""
    from scipy import stats

    d, w, strata = _stratified_sample()
    two = sw.weighted_gap(d, w, strata)
    assert two.delta > 0
    greater = sw.weighted_gap(d, w, strata, alternative="greater")
    less = sw.weighted_gap(d, w, strata, alternative="less")
    z = two.delta / two.se
    assert greater.p_value == pytest.approx(stats.norm.sf(z), rel=1e-10)
    assert less.p_value == pytest.approx(stats.norm.cdf(z), rel=1e-10)
    k = (stats.norm.ppf(0.95) + stats.norm.ppf(0.8)) ** 2
    assert greater.required_n == np.ceil(90 * k * two.se**2 / two.delta**2)
    assert less.required_n == np.inf
    r = evalgap.compare(d.clip(0), (-d).clip(0), weights=w, strata=strata, alternative="less")
    assert r.p_value == pytest.approx(less.p_value) and r.required_n is None
    assert "no evidence that B is better" in r.verdict and "standing for" not in r.verdict
    assert any("no finite-population correction" in n for n in r.notes)


def test_cli_weights_honours_alternative_and_refuses_what_it_cannot_use(run_cli, tmp_path):
    rows, design, a, b, w, stratum = _sample_table(np.random.default_rng(4))
    rows[["model", "item_id", "score"]].to_csv(tmp_path / "scores.csv", index=False)
    design.to_csv(tmp_path / "design.csv", index=False)
    base = ["compare", "--scores", tmp_path / "scores.csv", "--model-a", "A", "--model-b", "B",
            "--weights", tmp_path / "design.csv"]
    for alternative in ("greater", "less"):
        data = json.loads(run_cli(*base, "--alternative", alternative, "--json").stdout)
        expected = sw.weighted_gap(a - b, w, stratum, alternative=alternative)
        assert data["p_value"] == pytest.approx(expected.p_value, rel=1e-12)
        assert data["alternative"] == alternative
    for extra, flag in (
        (["--by", "task"], "--by with --weights"),
        (["--n-bootstrap", "50"], "--n-bootstrap"),
        (["--seed", "3"], "--seed"),
        (["--adjustment", "bh"], "--adjustment"),
    ):
        out = run_cli(*base, *extra)
        assert out.returncode == 2 and flag in out.stderr and len(out.stderr.splitlines()) == 1
    out = run_cli(*base[:-2], "--strata", "stratum")
    assert out.returncode == 2 and "--strata goes with --weights" in out.stderr
    with pytest.raises(InputError, match="seed=: the weighted gap"):
        evalgap.compare(a, b, weights=w, seed=1)
    with pytest.raises(InputError, match="strata= goes with weights="):
        evalgap.compare(a, b, strata=stratum)


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


def test_weighted_gap_keeps_the_minimum_items_rule_and_no_required_n_from_a_zero_se():
    """Two weighted items gave 'significant, p=6e-14, a design needs 1 item'; ten items all
    differing by +1 'needs 0 items'. Too few differing items give no verdict, and a zero
    design-based SE no N*, as in compare."""
    two = evalgap.compare(np.array([0.9, 0.8]), np.array([0.1, 0.2]), weights=[1.0, 2.0])
    assert not two.significant and two.required_n is None and two.resolution_ratio is None
    assert two.verdict.endswith("too few items differ between the models to test at "
                                "alpha=0.05, or to estimate the items a design needs; next: "
                                "sample more items with this design (too few differ to say "
                                "how many), or report the two as not told apart")
    same = evalgap.compare(np.ones(10), np.zeros(10), weights=np.arange(1, 11.0))
    assert same.se == 0 and same.required_n is None
    assert any("cannot be estimated" in note for note in same.notes)
    with pytest.raises(InputError, match="scores differ by more than 1e150"):
        evalgap.compare(np.array([1e308, -1e308, 0.0]), np.zeros(3), weights=np.ones(3))
    with pytest.raises(InputError, match="scores differ by up to inf"):
        evalgap.compare(np.array([1e308, -1e308, 0.5]), np.array([-1e308, 1e308, 0.0]))


def test_weighted_report_escapes_names_and_shows_bad_cells_as_given(run_cli, tmp_path):
    rows, design, _, _, w, _ = _sample_table(np.random.default_rng(6))
    named = rows.assign(model=rows["model"].map({"A": "[red]A[/red]", "B": "B\x1b[2J"}))
    named[["model", "item_id", "score"]].to_csv(tmp_path / "scores.csv", index=False)
    design.to_csv(tmp_path / "design.csv", index=False)
    out = run_cli("compare", "--scores", tmp_path / "scores.csv", "--model-a", "[red]A[/red]",
                  "--model-b", "B\x1b[2J", "--weights", tmp_path / "design.csv")
    assert out.returncode == 0, out.stderr
    assert "[red]A[/red] vs" in out.stdout and "\x1b[2J" not in out.stdout
    spoiled = rows.assign(w=np.r_[w, w].astype(object))
    spoiled.loc[[0, len(w)], "w"] = "abc"
    with pytest.raises(InputError, match="first: item 'q0', 'abc'"):
        evalgap.compare(spoiled, model_a="A", model_b="B", weights="w",
                        model_column="model", item_column="item_id", score_column="score")


def test_a_missing_design_file_is_named_as_such(run_cli, tmp_path):
    rows, *_ = _sample_table(np.random.default_rng(8))
    rows[["model", "item_id", "score"]].to_csv(tmp_path / "scores.csv", index=False)
    out = run_cli("compare", "--scores", tmp_path / "scores.csv", "--model-a", "A",
                  "--model-b", "B", "--weights", tmp_path / "nofile.csv")
    assert out.returncode == 2 and "no such design file" in out.stderr


def test_design_and_strata_mistakes_are_one_line_errors():
    rows, design, a, b, w, stratum = _sample_table(np.random.default_rng(9))
    scores = rows[["model", "item_id", "score"]]
    cases = [
        (dict(weights=design.assign(stratum=np.nan)), "120 item\\(s\\) have no stratum"),
        (dict(weights=design, strata=stratum), "strata= with a table or design names its"),
        (dict(weights=design.drop(columns="stratum").assign(stratum_size=10)),
         "120 items are sampled but the population size is 10"),
        (dict(weights=design.assign(stratum_size="big")), "not whole numbers of items"),
    ]
    for kwargs, message in cases:
        with pytest.raises(InputError, match=message):
            evalgap.compare(scores, model_a="A", model_b="B", **kwargs)
    with pytest.raises(InputError, match="a ScoreSet keeps no such column"):
        evalgap.compare(evalgap.align(scores), model_a="A", model_b="B", weights="w")
    for spoiled in ([1.0, [2.0], 3.0], {"a": 1.0}, np.ones(3, dtype=bool)):
        with pytest.raises(InputError, match="weights= must be an array of positive numbers"):
            evalgap.compare([1.0, 0.0, 1.0], [0.0, 0.0, 0.0], weights=spoiled)
    with pytest.raises(InputError, match="strata= holds missing labels"):
        evalgap.compare(a, b, weights=w, strata=np.where(stratum == "hard", np.nan, 1.0))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.csv", b"\xbe\x00\xff" * 50, "not UTF-8 text"),
        ("fake.parquet", b"hello\n", "cannot be read as parquet"),
        ("quote.csv", b'item_id,weight\n"q0,1\n', "cannot be read as csv"),
    ],
)
def test_a_damaged_design_file_is_one_line_naming_it(run_cli, tmp_path, name, content, message):
    rows, *_ = _sample_table(np.random.default_rng(10))
    rows[["model", "item_id", "score"]].to_csv(tmp_path / "scores.csv", index=False)
    (tmp_path / name).write_bytes(content)
    out = run_cli("compare", "--scores", tmp_path / "scores.csv", "--model-a", "A",
                  "--model-b", "B", "--weights", tmp_path / name)
    assert out.returncode == 2 and message in out.stderr and name in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
