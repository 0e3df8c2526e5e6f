"""compare --gold-column leads with its gold-scale PairEstimate (delta, se, ci, p, q and the
gold labels that resolve the gap are its figures, in Python and JSON), and its tables name a
gap's bounds ``delta_low``/``delta_high`` and a score's ``score_low``/``score_high``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import evalgap

ROOT = Path(__file__).resolve().parents[2]
JUDGED = ROOT / "examples" / "judged.csv"


def test_gold_labels_lead_with_the_gold_scale_estimate():
    r = evalgap.compare(JUDGED, model_a="model-x", model_b="model-y", gold_column="human")
    assert isinstance(r, evalgap.CompareResult) and r.gold is not None and r.design is None
    e = r.estimate
    assert e.scale == "gold" and e.n_items == r.n_items and e.ci.method == "t (PPI++)"
    assert (r.delta, r.se, r.ci, r.p_value, r.gold.effective_n) == (
        e.delta, e.se, e.ci, e.p_value, e.effective_n
    )
    assert r.gold.statistic == e.parts["statistic"] and r.gold.lam == e.parts["lam"]
    q, needed = float(e.resolution_ratio), float(e.required_n)
    assert r.resolution_ratio == (None if math.isnan(q) else q)
    assert r.required_n == (int(needed) if math.isfinite(needed) else None)
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["ci"] == {"low": float(e.ci.low), "high": float(e.ci.high),
                          "method": "t (PPI++)", "level": 0.95}  # fmt: skip
    assert data["estimate"]["ci"] == data["ci"] and data["estimate"]["scale"] == "gold"
    assert data["estimate"]["p_value"] == data["p_value"]
    # the tables name a gap's bounds delta_low/delta_high and a score's score_low/score_high
    frame = r.gold.to_frame()
    assert {"delta_low", "delta_high"} <= set(frame.columns) and "ci_low" not in frame.columns
    assert frame["delta_high"].iloc[0] == float(r.gold.gold_only_ci.high)
    assert frame["delta_low"].iloc[1] == float(r.gold.judge.ci.low)
    tests = r.to_frame()  # the headline's test first, as on the paired scale
    assert tests["test"].tolist()[0] == "ppi_t" and tests["p_value"].iloc[0] == r.p_value
    judge = r.gold.judge_frame()
    assert {"score_low", "score_high"} <= set(judge.columns) and "ci_low" not in judge.columns
    assert judge["score_high"].tolist() == [float(m.ci.high) for m in r.gold.models]


def test_the_gold_audit_names_a_gaps_bounds_delta_low_and_delta_high():
    r = evalgap.audit(JUDGED, gold_column="human", family="all")
    pairs = r.to_frame()
    assert {"delta_low", "delta_high"} <= set(pairs.columns) and "ci_low" not in pairs.columns
    assert (pairs["delta_low"] <= pairs["delta"]).all()
    assert (pairs["delta"] <= pairs["delta_high"]).all()
    assert {"score_low", "score_high"} <= set(r.gold.columns)
    one = pairs.iloc[0]
    pair = evalgap.compare(JUDGED, model_a=one["model_a"], model_b=one["model_b"],
                           gold_column="human")  # fmt: skip
    assert (one["delta_low"], one["delta_high"]) == (float(pair.ci.low), float(pair.ci.high))
