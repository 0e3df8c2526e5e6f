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
    # lambda = 0: the gold labels' own mean and t-free normal interval
    g = ppi_mean(f, f[gold], y[gold], lam=0.0)
    assert float(g["estimate"]) == pytest.approx(y[gold].mean())
    assert float(g["se"]) == pytest.approx(stats.sem(y[gold]), rel=1e-10)
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
