"""The dense alignment (integer codes, one scatter) against the general group-by path.

Both must give identical arrays and identical reports; the dense path is the one taken for
input with one row per model and item, the general one for runs and duplicates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalgap import _scores as scores_module
from evalgap._scores import align
from evalgap.errors import InputError
from evalgap.io.sources import LoadOptions, load_scores

from conftest import shared_file


def _general(monkeypatch, frame, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(scores_module, "_align_dense", lambda *a, **k: None)
        return align(frame, **kwargs)


def _dense(monkeypatch, frame, **kwargs):
    def refuse(*a, **k):
        raise AssertionError("the general path was taken")

    with monkeypatch.context() as m:
        m.setattr(scores_module, "_align_general", refuse)
        return align(frame, **kwargs)


def _assert_identical(x, y):
    assert x.models == y.models and x.source == y.source
    assert len(x.tasks) == len(y.tasks)
    for a, b in zip(x.tasks, y.tasks, strict=True):
        assert a.task == b.task
        assert a.item_ids.dtype == b.item_ids.dtype
        np.testing.assert_array_equal(a.item_ids, b.item_ids)
        assert a.scores.dtype == b.scores.dtype == np.float64
        np.testing.assert_array_equal(a.scores, b.scores)  # NaN where NaN, bit for bit
        assert a.run_counts.dtype == b.run_counts.dtype
        np.testing.assert_array_equal(a.run_counts, b.run_counts)
        assert (a.clusters is None) == (b.clusters is None)
        if a.clusters is not None:
            assert [repr(c) for c in a.clusters] == [repr(c) for c in b.clusters]
    assert repr(x.report) == repr(y.report)
    assert x.report.messages() == y.report.messages()


def _frame(seed=0, n_items=40, models=("m1", "m2", "m3", "m4"), tasks=("t1", "t2")):
    rng = np.random.default_rng(seed)
    rows = []
    for task in tasks:
        for m in models:
            for i in rng.permutation(n_items):
                if rng.random() < 0.1:
                    continue  # a missing item
                rows.append(
                    {
                        "model": m,
                        "task": task,
                        "item_id": str(i),
                        "score": float(rng.random() < 0.6),
                        "cluster": f"c{i % 3}",
                    }
                )
    return pd.DataFrame(rows)


def _with_oddities():
    frame = _frame(1).astype({"score": object})
    frame.loc[3, "score"] = "n/a"
    frame.loc[4, "score"] = np.nan
    frame.loc[5, "score"] = "inf"
    frame.loc[6, "score"] = "True"
    frame.loc[7, "model"] = " "  # keyless
    frame.loc[8, "item_id"] = None  # keyless
    frame.loc[9, "cluster"] = np.nan
    return frame


def _ties():
    # "1" and "1.0" have the same natural key; string and graded scores mixed.
    rows = [
        {"model": m, "task": "all", "item_id": i, "score": s}
        for m, base in (("a", 0.1), ("b", 0.7))
        for i, s in (("10", base), ("1.0", base + 0.2), ("2", base / 3), ("1", 1.0), ("x", 0.5))
    ]
    return pd.DataFrame(rows)


CASES = {
    "plain": (lambda: _frame(), {}),
    "no clusters": (lambda: _frame(2).drop(columns="cluster"), {}),
    "selected models": (lambda: _frame(3), {"models": ["m3", "m1"]}),
    "selected task": (lambda: _frame(4), {"tasks": ["t2"]}),
    "complete case": (lambda: _frame(5), {"complete_case": True}),
    "oddities": (_with_oddities, {"notes": ["a loader note"]}),
    "natural-key ties": (_ties, {}),
    "integer ids": (lambda: _frame(6).astype({"item_id": int}), {}),
    "categoricals": (
        lambda: _frame(7).astype({c: "category" for c in ("model", "task", "item_id")}),
        {},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_dense_path_gives_identical_arrays_and_reports(monkeypatch, case):
    make, kwargs = CASES[case]
    dense = _dense(monkeypatch, make(), **kwargs)
    _assert_identical(dense, _general(monkeypatch, make(), **kwargs))


def test_dense_path_on_mmlu_pro_is_identical(monkeypatch):
    folder = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz").parent
    table = load_scores(
        folder / "mmlu_pro_long.csv.gz",
        LoadOptions(items=str(folder / "mmlu_pro_items.csv"), cluster_column="category"),
    )
    dense = _dense(monkeypatch, table.frame, notes=table.notes)
    _assert_identical(dense, _general(monkeypatch, table.frame, notes=table.notes))
    assert len(dense.models) == 29 and dense.report.items_union == {"all": 12_032}
    # And on plain object columns (the frame a pandas reader gives):
    plain = table.frame.astype({c: object for c in ("model", "task", "item_id", "cluster")})
    _assert_identical(_dense(monkeypatch, plain), _general(monkeypatch, plain))


def test_duplicates_and_runs_take_the_general_path(monkeypatch):
    frame = _frame(8)
    doubled = pd.concat([frame, frame.iloc[:3]])
    taken = []
    original = scores_module._align_general

    def spy(*a, **k):
        taken.append(True)
        return original(*a, **k)

    monkeypatch.setattr(scores_module, "_align_general", spy)
    s = align(doubled)
    assert taken and sum(e.duplicates_collapsed for e in s.report.entries) == 3
    clash = frame.iloc[[0]].assign(score=1 - frame.iloc[0]["score"])
    with pytest.raises(InputError, match="conflicting scores"):
        align(pd.concat([frame, clash]))


def test_cluster_clash_names_the_same_item_on_both_paths(monkeypatch):
    frame = _frame(9)
    frame.loc[frame.index[-1], "cluster"] = "other"
    item = frame.iloc[-1]["item_id"]
    for run in (_dense, _general):
        with pytest.raises(InputError, match=f"item '{item}' carries different cluster labels"):
            run(monkeypatch, frame.copy())
