"""Out-of-core ingestion: a long CSV/Parquet table streams into the store a batch at a
time (only its chosen columns read) and stores exactly what the whole-file loader gives."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io import store as io
from evalgap.io import tables
from evalgap.io.options import LoadOptions
from evalgap.io.sources import load_scores


def _table(n_models=6, n_items=700, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_models):
        for run in ("r1", "r2"):
            keep = rng.random(n_items) > 0.1
            for j in np.flatnonzero(keep):
                rows.append((f"org/model-{m}", f"task{j % 3}", 1000 + j, run,
                             float(rng.random() < 0.6), f"c{j % 5}", "unused text " * 3))
    return pd.DataFrame(rows, columns=["model", "task", "question", "seed", "correct",
                                       "category", "prompt"])


def _stored(path):
    con = io.connect(path, read_only=True)
    try:
        return con.execute(
            "SELECT seq, model, task, item_id, run, score, cluster FROM all_scores ORDER BY seq"
        ).df()
    finally:
        con.close()


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".parquet"])
def test_streamed_table_stores_what_the_whole_file_loader_gives(tmp_path, monkeypatch, suffix):
    monkeypatch.setattr(tables, "BATCH_ROWS", 1000)  # many batches (Parquet)
    monkeypatch.setattr(tables, "BATCH_BYTES", 1 << 16)  # many blocks (CSV)
    source = tmp_path / f"board{suffix}"
    frame = _table()
    if suffix == ".parquet":
        frame.to_parquet(source, index=False)
    else:
        frame.to_csv(source, index=False)
    options = LoadOptions(item_column="question", run_column="seed", cluster_column="category")
    streamed, whole = tmp_path / "streamed.duckdb", tmp_path / "whole.duckdb"
    con = io.connect(streamed)
    try:
        assert io._long_table_batches(source, options) is not None
        io.add_source(con, source, options)
    finally:
        con.close()
    con = io.connect(whole)
    try:  # the same source read whole by the loader
        io.add_source(con, source, options, long=load_scores([source], options))
    finally:
        con.close()
    pd.testing.assert_frame_equal(_stored(streamed), _stored(whole))
    assert len(_stored(streamed)) == len(frame)
    a = evalgap.audit(evalgap.store_read(streamed), n_bootstrap=0,
                      n_bootstrap_required_n=0, n_cluster_bootstrap=0).to_dict()
    b = evalgap.audit(source, item_column="question", run_column="seed",
                      cluster_column="category", n_bootstrap=0, n_bootstrap_required_n=0,
                      n_cluster_bootstrap=0).to_dict()
    assert a["pairs"] == b["pairs"] and a["unresolved"] == b["unresolved"]


def test_a_bad_row_late_in_a_streamed_table_leaves_the_store_unchanged(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "BATCH_ROWS", 500)
    monkeypatch.setattr(tables, "BATCH_BYTES", 1 << 15)
    frame = _table(n_models=3)
    frame["correct"] = frame["correct"].astype(object)
    frame.loc[len(frame) - 7, "correct"] = "maybe"
    source = tmp_path / "late.csv"
    frame.to_csv(source, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, ["examples/two_models.csv"])
    before = _stored(store)
    with pytest.raises(InputError, match=rf"row {len(frame) - 6} of the loaded table, 'maybe'"):
        evalgap.store_add(store, [source], item_column="question")
    pd.testing.assert_frame_equal(_stored(store), before)
    blank = _table(n_models=2)
    blank.loc[900, "category"] = " "
    source = tmp_path / "blank.parquet"
    blank.to_parquet(source, index=False)
    with pytest.raises(InputError, match="row 901 has an empty cluster label"):
        evalgap.store_add(store, [source], item_column="question", cluster_column="category")
    pd.testing.assert_frame_equal(_stored(store), before)


def test_framework_logs_and_item_files_are_read_whole(tmp_path):
    from conftest import ROOT

    options = LoadOptions(items=str(tmp_path / "items.csv"))
    assert io._long_table_batches(ROOT / "examples" / "two_models.csv", options) is None
    for folder in ("inspect", "lm_eval-0.4.4"):
        path = ROOT / "tests" / "fixtures" / "frameworks" / folder
        assert io._long_table_batches(path, LoadOptions()) is None


def _oll_board(root, n_models=4, n_items=300, seed=1):
    """Open LLM Leaderboard v2 details with the heavy columns the leaderboard writes."""
    import json

    rng = np.random.default_rng(seed)
    for m in range(n_models):
        folder = root / f"org__model-{m}-details"
        folder.mkdir(parents=True)
        for task, stamp in (("leaderboard_bbh", "2024-06-26T10-00-00.000000"),
                            ("leaderboard_bbh", "2024-07-01T10-00-00.000000"),
                            ("leaderboard_mmlu_pro", "2024-07-01T10-00-00.000000")):
            docs = np.arange(n_items)
            pd.DataFrame({
                "doc_id": docs,
                "doc": [json.dumps({"question": "q" * 200, "id": int(d)}) for d in docs],
                "target": "A",
                "arguments": [["prompt " * 50]] * n_items,
                "resps": [[["A"]]] * n_items,
                "filtered_resps": [["A"]] * n_items,
                "filter": "none",
                "metrics": [["acc_norm", "acc"]] * n_items,
                "acc_norm": (rng.random(n_items) < 0.5 + 0.1 * m).astype(float),
                "acc": (rng.random(n_items) < 0.5).astype(float),
                "doc_hash": "h",
            }).to_parquet(folder / f"samples_{task}_{stamp}.parquet")
    return root


def test_oll_details_stream_file_by_file_reading_only_ids_and_metric(tmp_path, monkeypatch):
    from evalgap.io import open_llm_leaderboard as oll

    board = _oll_board(tmp_path / "details")
    read = []
    real = oll.read_frame
    monkeypatch.setattr(oll, "read_frame", lambda path, fmt, columns=None: read.append(
        columns) or real(path, fmt, columns=columns))
    options = LoadOptions(item_column="unused")  # a table option a framework does not use
    streamed = io._long_table_batches(board, options)
    assert streamed is not None
    _, notes, frames = streamed
    first = next(frames)
    assert len(read) == 1 and set(read[0]) == {"doc_id", "filter", "acc_norm"}
    # four "2 runs found" notes, then each file's metric as it is read
    assert len(first) == 300 and len(notes) == 5 and "metric 'acc_norm'" in notes[-1]
    store, whole = tmp_path / "streamed.duckdb", tmp_path / "whole.duckdb"
    evalgap.store_add(store, [board], options)
    con = io.connect(whole)
    try:
        io.add_source(con, board, options, long=load_scores([board], options))
    finally:
        con.close()
    pd.testing.assert_frame_equal(_stored(store), _stored(whole))
    back, given = evalgap.store_read(store), load_scores([board], options)
    assert back.notes == given.notes and len(back.frame) == 4 * 2 * 300
    assert any("2 runs found, using the latest" in n for n in back.notes)
    assert "--item-column names columns of score tables" in back.notes[-1]
    # a metric absent from one file stops the add and leaves the store as it was
    before = _stored(store)
    with pytest.raises(InputError, match="no metric 'exact_match'"):  # (a copy: the path
        copy = shutil.copytree(board, tmp_path / "copy")  # itself is stored, read another way)
        evalgap.store_add(store, [copy], options, metric=("exact_match",))
    pd.testing.assert_frame_equal(_stored(store), before)
    with pytest.raises(InputError, match="stored already as source 1, read with metric="):
        evalgap.store_add(store, [board], options, metric=("exact_match",))


@pytest.mark.parametrize("reader", ["batches", "duckdb"])
def test_a_kill_between_committed_batches_leaves_no_trace(tmp_path, reader):
    """The streamed add commits its rows batch by batch under an unlisted source id (or all
    at once, DuckDB reading the Parquet itself): a kill -9 after some batches, or after the
    rows and before their statistics, leaves the store as it was for every reader."""
    import os
    import signal
    import subprocess
    import sys
    import textwrap

    from conftest import ROOT

    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [ROOT / "examples" / "two_models.csv"])
    before = _stored(store)
    source = tmp_path / "big.parquet"
    _table(n_models=8).to_parquet(source, index=False)
    script = textwrap.dedent(
        f"""
        import time
        import evalgap
        from evalgap.io import store as io, tables
        tables.BATCH_ROWS = 1000
        hooked = "_store_frame" if {reader!r} == "batches" else "update_pair_stats"
        if {reader!r} == "batches":
            io._insert_parquet = lambda *args: None  # the batch reader
        real, seen = getattr(io, hooked), []
        def slow(*args, **kwargs):
            seen.append(1)
            if len(seen) == (4 if {reader!r} == "batches" else 1):  # rows committed
                print("inside", flush=True)
                time.sleep(60)
            return real(*args, **kwargs)
        setattr(io, hooked, slow)
        evalgap.store_add({str(store)!r}, [{str(source)!r}], item_column="question")
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout.readline().strip() == "inside"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    listed = evalgap.store_list(store)  # a reader cleans the unlisted rows up
    assert listed.n_rows == 4000 and len(listed.sources) == 1
    pd.testing.assert_frame_equal(_stored(store), before)
    added = evalgap.store_add(store, [source], item_column="question")
    assert added.rows_added == len(_table(n_models=8))
