"""What Python 3.10 (the oldest supported) lacks is not used: found by mypy's 3.10 check."""

from __future__ import annotations

import datetime

import pandas as pd

import evalgap


def test_store_add_runs_without_datetime_utc(tmp_path, monkeypatch):
    # datetime.UTC arrived in Python 3.11; on 3.10 every store add failed with AttributeError
    monkeypatch.delattr(datetime, "UTC", raising=False)
    csv = tmp_path / "board.csv"
    pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "item_id": ["q1", "q2", "q1", "q2"], "score": [1, 0, 1, 1]}
    ).to_csv(csv, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    back = evalgap.store_read(store)
    assert sorted(back.frame["model"].unique()) == ["a", "b"]
    assert back.frame["score"].astype(float).sum() == 3.0
