"""PPI++: the estimate and its standard error against formulas written out with numpy, the
gold-only and classic-PPI special cases, and coverage on judged data with biased judges."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalgap.stats.ppi import ppi_mean, tuned_lambda


def test_the_estimate_and_se_are_the_formulas():
    rng = np.random.default_rng(1)
    y = rng.normal(0.3, 1.0, 2000)
    f = 0.7 * y + rng.normal(0.1, 0.5, 2000)
    gold = rng.choice(2000, 150, replace=False)
    r = ppi_mean(f, f[gold], y[gold])
    lam = np.cov(f[gold], y[gold])[0, 1] / f.var(ddof=1)
    assert float(r["lam"]) == pytest.approx(np.clip(lam, 0, 1))
    lam = float(r["lam"])
    estimate = lam * f.mean() + (y[gold] - lam * f[gold]).mean()
    variance = (y[gold] - lam * f[gold]).var(ddof=1) / 150 + (
        2 * lam * np.cov(f[gold], y[gold])[0, 1] - lam**2 * f.var(ddof=1)
    ) / 2000
    assert float(r["estimate"]) == pytest.approx(estimate, abs=1e-12)
    assert float(r["se"]) == pytest.approx(np.sqrt(variance), rel=1e-10)
    # the interval and test are Student's t on n - 1 degrees of freedom
    low, high = stats.t.interval(0.95, 149, loc=estimate, scale=np.sqrt(variance))
    assert (float(r["low"]), float(r["high"])) == pytest.approx((low, high), rel=1e-10)
    assert float(r["p_value"]) == pytest.approx(
        2 * stats.t.sf(abs(estimate) / np.sqrt(variance), 149)
    )
    # lambda = 0: the gold labels' own mean, interval and test: the one-sample t test
    g = ppi_mean(f, f[gold], y[gold], lam=0.0)
    assert float(g["estimate"]) == pytest.approx(y[gold].mean())
    assert float(g["se"]) == pytest.approx(stats.sem(y[gold]), rel=1e-10)
    assert float(g["p_value"]) == pytest.approx(stats.ttest_1samp(y[gold], 0).pvalue, rel=1e-10)
    # vectorized over leading axes: two problems at once equal each alone
    both = ppi_mean(np.stack([f, -f]), np.stack([f[gold], -f[gold]]), np.stack([y[gold]] * 2))
    alone = ppi_mean(-f, -f[gold], y[gold])
    assert float(both["estimate"][1]) == pytest.approx(float(alone["estimate"]))
    assert float(tuned_lambda(-f, -f[gold], y[gold])) == 0.0  # an anti-judge is not used


def test_coverage_with_biased_judges_and_narrower_than_gold_only():
    # a pair of models judged on 4,000 items; the gold is the judge's score shifted by a
    # per-model bias, so the judge says A > B where the gold says B > A
    rng = np.random.default_rng(2)
    n_items, n_gold, runs = 4000, 400, 400
    quality = rng.beta(2, 2, (2, n_items))
    bias = np.array([0.08, -0.04])  # the judge flatters A, is harsh on B
    truth_p = np.clip(quality - bias[:, None], 0, 1)
    judge_gap, gold_gap = (quality[0] - quality[1]).mean(), (truth_p[0] - truth_p[1]).mean()
    assert judge_gap * gold_gap < 0 or abs(gold_gap) < abs(judge_gap)
    covered = {"ppi": 0, "gold": 0}
    widths = {"ppi": [], "gold": []}
    for _ in range(runs):
        y = (rng.random((2, n_items)) < truth_p).astype(float)
        f = quality + rng.normal(0, 0.1, quality.shape)  # the judge's scores
        gold = rng.choice(n_items, n_gold, replace=False)
        d_f, d_y = f[0] - f[1], y[0] - y[1]
        target = (truth_p[0] - truth_p[1]).mean()
        for name, lam in (("ppi", None), ("gold", 0.0)):
            r = ppi_mean(d_f, d_f[gold], d_y[gold], lam=lam)
            covered[name] += float(r["low"]) <= target <= float(r["high"])
            widths[name].append(float(r["high"] - r["low"]))
    floor = 0.95 - 2 * np.sqrt(0.95 * 0.05 / runs)
    assert covered["ppi"] / runs >= floor and covered["gold"] / runs >= floor, covered
    ratio = np.median(widths["ppi"]) / np.median(widths["gold"])
    assert ratio < 0.95, ratio  # 10% gold labels: narrower than the gold alone


@pytest.mark.parametrize(
    ("a", "b", "cost_gold", "cost_judge"),
    [(0.1, 0.3, 1.0, 0.01), (0.2, 0.05, 1.0, 0.5), (0.3, 0.1, 1.0, 2.0)],
)
def test_the_design_is_the_cheapest_on_a_grid(a, b, cost_gold, cost_judge):
    from evalgap.stats.ppi import ppi_design

    d = ppi_design(a, b, 0.08, cost_gold=cost_gold, cost_judge=cost_judge)
    target = d["target_variance"]
    assert a / d["n_gold"] + b / d["n_judged"] <= target * (1 + 1e-9)
    assert d["n_gold"] <= d["n_judged"]
    # the oracle: every (n, N) with n <= N on a grid around the answer, the cheapest feasible
    best = np.inf
    for n in range(1, int(3 * d["n_gold"]) + 2):
        room = target - a / n
        if room <= 0:
            continue
        big_n = max(n, int(np.ceil(b / room - 1e-9)))
        best = min(best, n * cost_gold + big_n * cost_judge)
    assert d["cost"] <= best * 1.01 + cost_gold + cost_judge  # within rounding of the optimum


def test_with_the_judged_items_given_only_the_labels_are_chosen():
    from evalgap.stats.ppi import ppi_design

    d = ppi_design(0.1, 0.3, 0.08, n_judged=5000)
    target = d["target_variance"]
    assert d["n_judged"] == 5000
    assert 0.1 / d["n_gold"] + 0.3 / 5000 <= target < 0.1 / (d["n_gold"] - 1) + 0.3 / 5000
    # too few judged items for this gap whatever the labels: infinite, not a wrong number
    assert np.isinf(ppi_design(0.1, 0.3, 0.01, n_judged=100)["n_gold"])


def test_judge_bias_is_the_paired_t_test_and_pearson():
    from evalgap.stats.ppi import judge_bias

    rng = np.random.default_rng(5)
    y = rng.random(40)
    f = 0.8 * y + rng.normal(0.05, 0.1, 40)
    r = judge_bias(f, y)
    t = stats.ttest_rel(f, y)
    assert float(r["bias"]) == pytest.approx((f - y).mean())
    assert float(r["p_value"]) == pytest.approx(t.pvalue, rel=1e-10)
    assert float(r["correlation"]) == pytest.approx(stats.pearsonr(f, y).statistic)
    low, high = stats.t.interval(0.95, 39, loc=(f - y).mean(), scale=stats.sem(f - y))
    assert (float(r["low"]), float(r["high"])) == pytest.approx((low, high))
    # binary: the agreement is the share of equal scores; vectorized over leading axes
    fb, yb = np.array([[1, 0, 1, 1], [0, 0, 1, 1]]), np.array([[1, 1, 1, 0], [0, 0, 1, 1]])
    both = judge_bias(fb, yb)
    assert both["agreement"].tolist() == [0.5, 1.0] and both["p_value"][1] == 1.0


def test_the_variance_terms_are_what_the_design_takes():
    rng = np.random.default_rng(6)
    y = rng.normal(0, 1, 3000)
    f = 0.6 * y + rng.normal(0, 0.6, 3000)
    gold = rng.choice(3000, 200, replace=False)
    r = ppi_mean(f, f[gold], y[gold])
    a, b = float(r["residual_variance"]), float(r["judge_term"])
    assert a / 200 + b / 3000 == pytest.approx(float(r["se"]) ** 2, rel=1e-12)
    lam = float(r["lam"])
    assert a == pytest.approx((y[gold] - lam * f[gold]).var(ddof=1), rel=1e-10)


def test_the_joint_covariance_is_the_spread_of_the_estimates_over_boards():
    from evalgap.stats.ppi import ppi_joint

    rng = np.random.default_rng(7)
    n_items, runs = 1500, 800
    estimates, predicted = [], []
    for _ in range(runs):
        ease = rng.normal(0, 1.5, n_items)  # shared items
        p = 1 / (1 + np.exp(-(ease + np.array([[-0.3], [0.0], [0.4]]))))
        y = (rng.random(p.shape) < p).astype(float)
        # a judge that sees half of the items' ease: what it misses, the models share
        f = 1 / (1 + np.exp(-(0.5 * ease + rng.normal(0, 1, p.shape))))
        # the same items labelled for every model (as a board is annotated), a few more for
        # the first
        extra = (np.arange(3) == 0)[:, None] & (rng.random(p.shape) < 0.02)
        gold = np.where((rng.random(n_items) < 0.1) | extra, y, np.nan)
        r = ppi_joint(f, gold)
        estimates.append(r["estimate"])
        predicted.append(r["covariance"])
    empirical = np.cov(np.array(estimates).T)
    mean_predicted = np.mean(predicted, axis=0)
    # every entry within 3 Monte Carlo SE (of a sample covariance: sqrt((s_mm s_kk + s_mk^2) / R))
    scale = np.outer(np.diag(empirical), np.diag(empirical))
    se = np.sqrt((scale + empirical**2) / runs)
    assert (np.abs(empirical - mean_predicted) <= 3 * se).all(), (empirical, mean_predicted)
    off = ~np.eye(3, dtype=bool)
    assert (mean_predicted[off] > 0.1 * np.sqrt(scale[off])).all()  # far from independent
    # the estimates are ppi_mean's, and the diagonal its variance up to the judge's term
    for m in range(3):
        lab = ~np.isnan(gold[m])
        alone = ppi_mean(f[m], f[m][lab], gold[m][lab])
        assert float(r["estimate"][m]) == pytest.approx(float(alone["estimate"]))
        assert predicted[-1][m, m] == pytest.approx(float(alone["se"]) ** 2, rel=0.05)


def test_rank_sets_from_joint_t_draws_cover_tied_models():
    from evalgap.stats import ranks as rk
    from evalgap.stats.ppi import joint_t_draws, ppi_joint

    rng = np.random.default_rng(5)
    runs, covered = 1200, 0
    for _ in range(runs):
        ease = rng.normal(0, 1, 600)
        p = np.repeat((1 / (1 + np.exp(-ease)))[None, :], 4, axis=0)  # four tied models
        y = (rng.random(p.shape) < p).astype(float)
        f = np.where(rng.random(p.shape) < 0.85, y, 1 - y)
        labelled = np.zeros(600, dtype=bool)
        labelled[rng.choice(600, 80, replace=False)] = True
        joint = ppi_joint(f, np.where(labelled, y, np.nan))
        draws = joint_t_draws(joint["estimate"], joint["covariance"], 79, 1000, rng)
        sets = rk.rank_sets_from_draws(
            joint["estimate"], joint["covariance"], draws, marginal=False
        )
        covered += bool(np.all(np.asarray(sets.rank_low) == 1))
    assert covered / runs >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / runs), covered / runs


def test_a_judge_that_explains_the_gold_needs_only_the_minimum_of_labels():
    from evalgap.errors import InputError
    from evalgap.stats.ppi import ppi_design

    # A = 0: by the formulas no labels; the floor is counted in the labels and in the cost
    target = 0.05**2 / (1.959963984540054 + 0.8416212335729143) ** 2
    fixed = ppi_design(0.0, 0.3, 0.05, n_judged=5000, minimum_gold=3)
    assert fixed["n_gold"] == 3 and fixed["n_judged"] == 5000
    assert np.isinf(ppi_design(0.0, 0.3, 0.05, n_judged=100, minimum_gold=3)["n_gold"])
    cheap = ppi_design(0.0, 0.3, 0.05, cost_gold=2.0, cost_judge=0.01, minimum_gold=3)
    assert cheap["n_gold"] == 3 and cheap["n_judged"] == np.ceil(0.3 / target - 1e-9)
    assert cheap["cost"] == pytest.approx(3 * 2.0 + cheap["n_judged"] * 0.01)
    with pytest.raises(InputError, match="residual_variance"):
        ppi_design(-0.1, 0.3, 0.05)


def test_strata_combine_by_judged_items_with_satterthwaites_degrees_of_freedom():
    # the combination written out from each stratum's own ppi_mean, against scipy's t law
    from evalgap.stats.ppi import ppi_stratified

    rng = np.random.default_rng(11)
    parts = []
    for n_all, n_gold, p in ((900, 40, 0.7), (300, 120, 0.4), (600, 12, 0.55)):
        y = (rng.random(n_all) < p).astype(float)
        f = np.where(rng.random(n_all) < 0.85, y, 1 - y)
        parts.append((f, f[:n_gold], y[:n_gold]))
    for alternative in ("two-sided", "greater"):
        r = ppi_stratified(parts, alpha=0.1, alternative=alternative)
        each = [ppi_mean(*part, alpha=0.1) for part in parts]
        w = np.array([900, 300, 600]) / 1800
        est = sum(wt * e["estimate"] for wt, e in zip(w, each, strict=True))
        terms = np.array([wt**2 * e["se"] ** 2 for wt, e in zip(w, each, strict=True)])
        se = np.sqrt(terms.sum())
        df = terms.sum() ** 2 / (terms**2 / np.array([39, 119, 11])).sum()
        assert r["estimate"] == pytest.approx(est) and r["se"] == pytest.approx(se)
        assert r["df"] == pytest.approx(df)
        half = stats.t.ppf(0.95, df) * se
        assert (r["low"], r["high"]) == pytest.approx((est - half, est + half))
        tail = stats.t.sf(est / se, df)
        want = tail if alternative == "greater" else 2 * min(tail, 1 - tail)
        assert r["p_value"] == pytest.approx(want, rel=1e-9)
