"""compare's items to flip: removing the items it names and comparing again reverses each
verdict, and one fewer removal never does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalgap

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "two_models.csv"
QUIET = {"n_bootstrap": 0, "n_bootstrap_required_n": 0}


def verdicts(result):
    """The claim of each test the verdict uses: the model declared better, or None."""
    p = result.p_values
    better = result.model_a if result.delta > 0 else result.model_b
    if result.binary:
        tests = {"exact": p.exact, "mcnemar": p.mcnemar}
    else:
        tests = {"paired_t": p.paired_t}
    out = {k: (better if v <= result.alpha else None) for k, v in tests.items()}
    out["resolution"] = better if result.resolved else None
    return out


def test_removing_the_named_items_reverses_each_verdict_of_the_example():
    frame = pd.read_csv(EXAMPLE)
    r = evalgap.compare(frame, model_a="model-x", model_b="model-y", **QUIET)
    now = verdicts(r)
    assert [t.test for t in r.fragility.tests] == ["exact", "mcnemar", "resolution"]
    for entry in r.fragility.tests:
        assert entry.claim == now[entry.test]
        assert len(entry.item_ids) == entry.items_to_flip
        kept = frame[~frame["item_id"].isin(entry.item_ids)]
        after = evalgap.compare(kept, model_a="model-x", model_b="model-y", **QUIET)
        assert verdicts(after)[entry.test] == entry.after != entry.claim
        # one removal fewer (the last named item kept) leaves the verdict as it was
        fewer = frame[~frame["item_id"].isin(entry.item_ids[:-1])]
        before = evalgap.compare(fewer, model_a="model-x", model_b="model-y", **QUIET)
        assert verdicts(before)[entry.test] == entry.claim
    resolution = r.fragility["resolution"]
    assert resolution.items_to_resolve == r.required_n - r.n_items


def test_graded_pair_removal_set_reverses_the_paired_t_verdict():
    rng = np.random.default_rng(5)
    a = np.clip(rng.normal(0.62, 0.2, 300), 0, 1)
    b = np.clip(a - rng.normal(0.04, 0.15, 300), 0, 1)
    ids = np.array([f"q{i}" for i in range(300)])
    r = evalgap.compare(a, b, **QUIET, n_permutations=0)
    assert not r.binary
    t = r.fragility["paired_t"]
    assert t.claim == "A" and t.items_to_flip is not None
    assert t.lower_bound <= t.items_to_flip
    # with ids (the table route names them); here by position
    from evalgap.jobs.compare import compare_scores

    named = compare_scores(a, b, item_ids=ids, **QUIET, n_permutations=0)
    drop = np.isin(ids, named.fragility["paired_t"].item_ids)
    after = compare_scores(a[~drop], b[~drop], **QUIET, n_permutations=0)
    assert after.p_values.paired_t > r.alpha
    sign = r.fragility["sign"]
    assert sign.exact and sign.method.startswith("exact")


def test_counts_give_counts_and_json_carries_every_test():
    r = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
    d = r.to_dict()["fragility"]
    assert set(d) == {"exact", "mcnemar", "resolution"}
    assert d["mcnemar"]["items_to_flip"] == 1 and d["mcnemar"]["claim"] == "A"
    assert d["exact"]["claim"] is None and d["exact"]["after"] == "A"
    assert d["exact"]["item_ids"] == []  # counts name no items
    assert d["resolution"]["items_to_resolve"] == r.required_n - r.n_items


def test_item_ids_must_match_the_scores():
    from evalgap import InputError
    from evalgap.jobs.compare import compare_scores

    with pytest.raises(InputError, match="item_ids"):
        compare_scores([1, 0, 1], [0, 0, 1], item_ids=["a", "b"])
