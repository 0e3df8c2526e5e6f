"""Variance components of a paired gap with reruns (items x runs), against ANOVA and simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap.stats import variance_components as vc


def _pilot(rng, n_items, runs, between=0.04, p_mean=0.6):
    """Binary reruns: per-item success probabilities for A and B, then independent runs."""
    logit_a = rng.normal(0.4, 1.0, n_items)
    shift = rng.normal(0.2, np.sqrt(between) * 4, n_items)  # items differ in the gap
    pa = 1 / (1 + np.exp(-logit_a))
    pb = 1 / (1 + np.exp(-(logit_a - shift)))
    a = (rng.random((n_items, runs)) < pa[:, None]).astype(float)
    b = (rng.random((n_items, runs)) < pb[:, None]).astype(float)
    return a, b, pa, pb


def test_within_component_is_the_anova_residual_mean_square():
    """statsmodels: one-way ANOVA of one model's runs on the item factor; its residual mean
    square is the pooled within-item variance (unequal runs included)."""
    sm = pytest.importorskip("statsmodels.formula.api")
    anova = pytest.importorskip("statsmodels.stats.anova")
    rng = np.random.default_rng(0)
    a, b, _, _ = _pilot(rng, 60, 4)
    a[rng.random(a.shape) < 0.15] = np.nan  # some runs missing
    a[:, 0] = np.where(np.isnan(a[:, 0]), 1.0, a[:, 0])  # every item keeps a run
    c = vc.paired_components(a, b)
    rows = [(i, v) for i in range(60) for v in a[i] if not np.isnan(v)]
    frame = pd.DataFrame(rows, columns=["item", "score"])
    table = anova.anova_lm(sm.ols("score ~ C(item)", data=frame).fit())
    ms_residual = table.loc["Residual", "sum_sq"] / table.loc["Residual", "df"]
    assert c.within_a == pytest.approx(ms_residual)


def test_between_component_is_unbiased_and_the_predicted_se_holds():
    """Over repeated pilots the between-item estimate averages to the truth, and the SE the
    components predict for (N, K) = (400, 3) matches the spread of simulated gaps."""
    rng = np.random.default_rng(1)
    n_items, runs = 400, 3
    estimates, gaps, predicted = [], [], []
    for _ in range(300):
        a, b, pa, pb = _pilot(rng, n_items, runs)
        c = vc.paired_components(a, b)
        estimates.append(c.between_items)
        gaps.append(np.nanmean(a) - np.nanmean(b))
        predicted.append(float(vc.standard_error(c.between_items, c.within_items, n_items, runs)))
        # given this pilot's items, the between part is the variance of their true gaps
        estimates[-1] -= np.var(pa - pb, ddof=1)
    bias = np.mean(estimates)
    assert abs(bias) < 4 * np.std(estimates) / np.sqrt(300) + 1e-3
    assert np.mean(predicted) == pytest.approx(np.std(gaps), rel=0.12)


def test_required_items_shrink_with_runs_only_down_to_the_between_floor():
    n = np.array([vc.required_items(0.05, 0.4, 0.02, k) for k in (1, 2, 4, 100)])
    assert (np.diff(n) < 0).all()
    floor = vc.required_items(0.05, 0.0, 0.02, 1)
    assert n[-1] >= floor and n[-1] < 1.1 * floor  # reruns cannot beat the item variance
