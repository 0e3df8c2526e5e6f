"""A results store given as the reference board (estimate, adaptive, plan) is read as the
store, with the numbers the same board's files give; it said "cannot tell the table format"."""

from __future__ import annotations

import pandas as pd
import pytest

import evalgap

from conftest import ROOT

BOARD = ROOT / "examples" / "board.csv"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "board.duckdb"
    evalgap.store_add(path, [BOARD])
    return path


def test_estimate_adaptive_and_plan_read_a_store_as_the_reference(store, run_cli):
    scores = pd.read_csv(BOARD)
    new = scores[scores["model"] == "model-03"].iloc[::4]
    kept = scores[scores["model"] != "model-03"]
    kept.to_csv(store.parent / "kept.csv", index=False)
    held = store.parent / "held.duckdb"
    evalgap.store_add(held, [store.parent / "kept.csv"])
    from_files = evalgap.estimate(new, reference=store.parent / "kept.csv")
    from_store = evalgap.estimate(new, reference=held)
    assert from_store.to_dict()["estimates"] == from_files.to_dict()["estimates"]
    pair = ("model-00", "model-01")
    ran = scores[scores["model"].isin(pair)].iloc[::5]
    a = evalgap.adaptive(ran, reference=store, pair=pair, seed=1, state=store.parent / "s1.json")
    b = evalgap.adaptive(ran, reference=BOARD, pair=pair, seed=1, state=store.parent / "s2.json")
    assert (a.e_value, a.next_items) == (b.e_value, b.next_items)
    p = evalgap.plan(reference=store, model_a="model-00", accuracy_a=0.4, model_b="model-05")
    q = evalgap.plan(reference=BOARD, model_a="model-00", accuracy_a=0.4, model_b="model-05")
    assert p.to_dict() == q.to_dict()
    out = run_cli("plan", "--reference", store, "--model-a", "model-00", "--accuracy-a", "0.4",
                  "--model-b", "model-05")  # fmt: skip
    assert out.returncode == 0 and "table format" not in out.stderr
