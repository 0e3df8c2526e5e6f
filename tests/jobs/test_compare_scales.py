"""compare on every scale: each variant's headline is its PairEstimate (in Python and in the
JSON, with the interval as ``ci``), and a new scale -- one function registered in
``SCALES`` and one branch of the resolve step -- reaches ``evalgap.compare`` unchanged."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.jobs import _board
from evalgap.stats import intervals
from evalgap.stats import pair_estimate as pe


def _graded(seed=11, n=300):
    rng = np.random.default_rng(seed)
    a = np.clip(rng.normal(0.6, 0.2, n), 0, 1)
    return a, np.clip(a - 0.03 + rng.normal(0, 0.15, n), 0, 1)


def _headline_is_the_estimate(r, required=None):
    """delta, se, ci, p and q of ``r`` are its estimate's, in Python and in the JSON."""
    e = r.estimate
    assert (r.delta, r.se, r.ci, r.p_value) == (e.delta, e.se, e.ci, e.p_value)
    q = float(e.resolution_ratio)
    assert r.resolution_ratio == (None if math.isnan(q) else q)
    n_star = float(e.required_n)
    assert (r.required_n if required is None else required) == (
        math.ceil(n_star * (1 - 1e-12)) if math.isfinite(n_star) else None
    )
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["ci"] == {"low": float(e.ci.low), "high": float(e.ci.high),
                          "method": e.ci.method, "level": e.ci.level}  # fmt: skip
    assert data["estimate"]["ci"] == data["ci"] and data["estimate"]["delta"] == data["delta"]
    return data


def test_plain_scores_and_counts_lead_with_the_paired_estimate():
    a, b = _graded()
    graded = evalgap.compare(a, b, n_bootstrap_required_n=0, n_permutations=0)
    assert graded.estimate.scale == "paired" and graded.ci.method == "bootstrap_percentile"
    assert graded.p_value == graded.p_values.paired_t
    _headline_is_the_estimate(graded)
    counted = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
    assert counted.p_value == counted.p_values.exact and counted.ci.method == "newcombe"
    data = _headline_is_the_estimate(counted)
    assert data["estimate"]["required_n"] == pytest.approx(20255.6, abs=0.5)


def test_design_weights_lead_with_the_design_estimate():
    rng = np.random.default_rng(4)
    a, b = (rng.random(200) < 0.7).astype(float), (rng.random(200) < 0.6).astype(float)
    w = np.where(np.arange(200) < 80, 5.0, 1.5)
    r = evalgap.compare(a, b, weights=w, strata=np.where(np.arange(200) < 80, "s1", "s2"))
    assert isinstance(r, evalgap.CompareResult) and r.gold is None and r.estimate.scale == "design"
    assert r.design.statistic == r.estimate.parts["statistic"]
    assert r.design.effective_n == r.estimate.effective_n
    data = _headline_is_the_estimate(r)
    assert "confidence_interval" not in data


def test_groups_lead_with_each_groups_estimate():
    a, b = _graded()
    long = pd.DataFrame({"model": np.repeat(["A", "B"], 300), "item": np.tile(np.arange(300), 2),
                         "score": np.r_[a, b],
                         "task": np.tile(np.where(np.arange(300) < 150, "x", "y"), 2)})  # fmt: skip
    r = evalgap.compare(long, model_a="A", model_b="B", by="task", n_permutations=0,
                        n_bootstrap_required_n=0)  # fmt: skip
    for g in r.groups:
        assert g.p_value == g.result.estimate.p_value == g.result.p_values.paired_t
        _headline_is_the_estimate(g.result)
        assert g.to_dict()["ci"] == g.to_dict()["estimate"]["ci"]
    frame = r.to_frame()
    assert frame["delta_low"].tolist() == [float(g.result.ci.low) for g in r.groups]
    assert frame["delta_high"].tolist() == [float(g.result.ci.high) for g in r.groups]
    _headline_is_the_estimate(r.pooled)


def test_the_resolve_step_picks_the_scale():
    assert _board.scale_of() == "paired"
    assert _board.scale_of(gold=True) == "gold" and _board.scale_of(weights=True) == "design"
    assert set(pe.SCALES) >= {"paired", "gold", "design"}


def _sign_scale(scores_a, scores_b, *, alpha, power, alternative):
    """A toy scale: the share of items A wins minus the share B wins, with the sign test."""
    from scipy import stats

    d = np.sign(np.asarray(scores_a, dtype=float) - np.asarray(scores_b, dtype=float))
    n, wins, losses = d.size, int((d > 0).sum()), int((d < 0).sum())
    delta = (wins - losses) / n
    se = float(np.sqrt(np.mean(d**2) - delta**2) / np.sqrt(n))
    test = stats.binomtest(wins, wins + losses, 0.5, alternative=alternative)
    z = float(intervals.z_quantile(alpha))
    required = float((2.8016 * se * np.sqrt(n) / delta) ** 2)
    return pe.PairEstimate(
        scale="sign", delta=delta, se=se, df=math.inf,
        ci=intervals.Interval(delta - z * se, delta + z * se, "wald (sign)", 1 - alpha),
        p_value=test.pvalue, required_n=required, resolution_ratio=n / required,
        effective_n=float(wins + losses), n_items=n,
    )  # fmt: skip


def test_a_new_scale_is_one_function_and_one_branch_of_the_resolve_step(monkeypatch):
    # the two places a new scale touches: its function in SCALES, its branch in scale_of
    monkeypatch.setitem(pe.SCALES, "sign", _sign_scale)
    monkeypatch.setattr(
        _board, "scale_of", lambda *, gold=False, weights=False, configurations=False: "sign"
    )
    a, b = _graded(seed=3, n=200)
    r = evalgap.compare(a, b, n_bootstrap=0, n_bootstrap_required_n=0, n_permutations=0)
    assert isinstance(r, evalgap.CompareResult) and r.estimate.scale == "sign"
    d = np.sign(a - b)
    assert r.delta == pytest.approx(d.mean(), rel=1e-12) and r.ci.method == "wald (sign)"
    assert r.p_value == r.estimate.p_value
    data = _headline_is_the_estimate(r)
    assert data["estimate"]["scale"] == "sign"
    assert data["estimate"]["effective_n"] == float(np.count_nonzero(d)) == 197.0  # 3 ties
    assert r.resolved == (r.estimate.resolution_ratio >= 1)
    # the paired tests stay beside the new headline
    assert r.p_values.paired_t is not None and r.accuracy_a - r.accuracy_b != r.delta
    # a table and binary scores reach it the same way
    long = pd.DataFrame({"model": np.repeat(["A", "B"], 200), "item": np.tile(np.arange(200), 2),
                         "score": np.r_[(a > 0.5), (b > 0.5)].astype(float)})  # fmt: skip
    table = evalgap.compare(long, model_a="A", model_b="B")
    assert table.estimate.scale == "sign" and table.binary
    assert table.delta == pytest.approx(np.mean(np.sign((a > 0.5) * 1.0 - (b > 0.5))))
