"""The results store: round trip, idempotence, transactions, kill -9, exact audits, increments."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io import store as io

from conftest import ROOT, run_entry_point, shared_file

FIXTURES = ROOT / "tests" / "fixtures" / "frameworks"
INSPECT = FIXTURES / "inspect" / "epochs"
LM_EVAL = FIXTURES / "lm_eval-0.4.4" / "reordered"
QUICK = ("--n-bootstrap", "200", "--n-bootstrap-required-n", "50", "--n-rank-bootstrap", "200")


def _board(
    path: Path, n_models: int = 6, n_items: int = 300, seed: int = 0, graded=False, prefix="m"
):
    """A long CSV of a synthetic board (binary, or graded in [0, 1]); return its path.

    Models are named ``{prefix}0, {prefix}1, ...``: boards of different seeds are different
    models (a store refuses one item of one model with two scores)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.5, n_items)
    rows = []
    for m in range(n_models):
        p = 1 / (1 + np.exp(difficulty - rng.normal(0, 1)))
        score = rng.beta(4 * p + 0.1, 4 * (1 - p) + 0.1) if graded else rng.random(n_items) < p
        keep = rng.random(n_items) > 0.05  # each model misses some items
        for i in np.flatnonzero(keep):
            rows.append((f"{prefix}{m}", f"q{i:04d}", float(score[i]), f"c{i % 7}"))
    frame = pd.DataFrame(rows, columns=["model", "item_id", "score", "category"])
    frame.to_csv(path, index=False)
    return path


def _json(run_cli, *args):
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_round_trip_gives_the_loaders_long_table(tmp_path):
    csv = _board(tmp_path / "board.csv")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv, INSPECT])
    ref = evalgap.load_scores([csv, INSPECT])
    back = evalgap.store_read(store)
    cols = ["model", "task", "item_id", "run", "score"]
    pd.testing.assert_frame_equal(
        back.frame[cols].astype(str).reset_index(drop=True),
        ref.frame[cols].astype(str).reset_index(drop=True),
    )
    assert back.notes == ref.notes


def test_readding_a_source_adds_nothing_and_says_so(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv")
    store = tmp_path / "s.duckdb"
    first = _json(run_cli, "store", "add", store, csv)
    assert first == {
        "store": str(store),
        "added_sources": [str(csv)],
        "skipped_sources": [],
        "rows_added": len(pd.read_csv(csv)),
        "notes": [],
        "replaced_sources": [],
    }
    second = _json(run_cli, "store", "add", store, csv)
    assert second["added_sources"] == [] and second["rows_added"] == 0
    assert second["skipped_sources"] == [str(csv)]
    text = run_cli("store", "add", store, csv)
    assert "already in the store" in text.stdout and "nothing added" in text.stdout
    listed = _json(run_cli, "store", "list", store)
    assert listed["n_rows"] == first["rows_added"] and len(listed["sources"]) == 1
    assert listed["sources"][0]["sha256"] == io.content_hash(csv)


@pytest.mark.parametrize("content", [b"\x00\x01garbage\xff" * 50, b"model,item\nx\n"])
def test_a_corrupt_or_foreign_file_leaves_the_store_unchanged(tmp_path, run_cli, content):
    csv = _board(tmp_path / "board.csv")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    before = evalgap.store_list(store).to_dict()
    bad = tmp_path / "bad.csv"
    bad.write_bytes(content)
    result = run_cli("store", "add", store, bad)
    assert result.returncode == 2
    assert result.stderr.startswith("evalgap: error:") and result.stderr.count("\n") == 1
    assert evalgap.store_list(store).to_dict() == before


def test_a_failure_inside_the_transaction_rolls_everything_back(tmp_path, monkeypatch):
    csv = _board(tmp_path / "board.csv")
    other = _board(tmp_path / "other.csv", seed=1, prefix="o")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    pairs_before = evalgap.store_pairs(store)

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(io, "_insert_source_row", boom)
    with pytest.raises(RuntimeError):
        evalgap.store_add(store, [other])
    monkeypatch.undo()
    assert evalgap.store_list(store).n_rows == len(pd.read_csv(csv))
    pd.testing.assert_frame_equal(evalgap.store_pairs(store), pairs_before)


def test_the_store_survives_kill_9_during_add(tmp_path):
    csv = _board(tmp_path / "board.csv")
    other = _board(tmp_path / "other.csv", seed=1, prefix="o")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    # The child adds a source and stops just before its commit (rows and pair statistics
    # written in the open transaction), says so, and is killed there.
    script = textwrap.dedent(
        f"""
        import sys, time
        import evalgap
        from evalgap.io import store as io
        real = io._insert_source_row
        def stall(*args, **kwargs):
            real(*args, **kwargs)
            print("inside", flush=True)
            time.sleep(60)
        io._insert_source_row = stall
        evalgap.store_add({str(store)!r}, [{str(other)!r}])
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout.readline().strip() == "inside"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    listed = evalgap.store_list(store)
    assert [s["path"] for s in listed.sources] == [str(csv)]
    assert listed.n_rows == len(pd.read_csv(csv))
    # and the next add goes through
    assert evalgap.store_add(store, [other]).added_sources == (str(other),)


def test_incremental_pair_statistics_equal_the_from_scratch_ones(tmp_path):
    store = tmp_path / "s.duckdb"
    boards = [_board(tmp_path / f"b{k}.csv", n_models=3, seed=k) for k in range(3)]
    # each file is three new models (m0..m2 renamed per file) on overlapping items
    for k, path in enumerate(boards):
        frame = pd.read_csv(path)
        frame["model"] = frame["model"] + f"-{k}"
        frame.to_csv(path, index=False)
    graded = _board(tmp_path / "g.csv", n_models=3, seed=9, graded=True)
    frame = pd.read_csv(graded)
    frame["model"] = "graded-" + frame["model"]
    frame.to_csv(graded, index=False)
    evalgap.store_add(store, [*boards, graded, INSPECT])
    incremental = evalgap.store_pairs(store)
    con = io.connect(store)
    io.rebuild_pair_stats(con, block_models=2, block_items=97)
    con.close()
    scratch = evalgap.store_pairs(store)
    pd.testing.assert_frame_equal(incremental, scratch, check_dtype=False, rtol=1e-12)
    # and they are the counts of the aligned items, pair by pair
    score_set = evalgap.align(evalgap.store_read(store), tasks=["all"])
    task = score_set.tasks[0]
    for row in scratch[scratch["task"] == "all"].itertuples():
        a = task.scores[:, score_set.model_index(row.model_a)]
        b = task.scores[:, score_set.model_index(row.model_b)]
        both = ~np.isnan(a) & ~np.isnan(b)
        assert row.n == both.sum()
        assert row.sum_d == pytest.approx((a[both] - b[both]).sum(), abs=1e-9)
        assert row.sum_d2 == pytest.approx(((a[both] - b[both]) ** 2).sum(), abs=1e-9)
        if row.model_a.startswith("m") and row.model_b.startswith("m"):
            assert row.a_only == ((a[both] == 1) & (b[both] == 0)).sum()
            assert row.b_only == ((a[both] == 0) & (b[both] == 1)).sum()


def test_audit_store_equals_audit_scores_synthetic(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv", n_models=5)
    graded = _board(tmp_path / "graded.csv", n_models=4, graded=True, seed=3)
    for path in (csv, graded):
        store = tmp_path / f"{path.stem}.duckdb"
        run_cli("store", "add", store, path, "--cluster-column", "category")
        args = ("audit", *QUICK, "--cluster-column", "category", "--n-cluster-bootstrap", "50")
        from_store = _json(run_cli, *args, "--store", store)
        from_scores = _json(run_cli, *args, "--scores", path)
        assert from_store == from_scores


@pytest.mark.parametrize("case", ["tests-fixtures", "format-fixtures"])
def test_audit_store_equals_audit_scores_on_frameworks_and_mmlu_pro(tmp_path, run_cli, case):
    mmlu = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    # --scores reads one framework's paths together (its notes are the group's): one path
    # per framework, or several side by side whose notes do not depend on the grouping
    if case == "tests-fixtures":
        sources = [mmlu, INSPECT, shared_file("format_fixtures", "inspect"), LM_EVAL]
    else:
        sources = [mmlu, shared_file("format_fixtures", "lm_eval"), FIXTURES / "inspect"]
    store = tmp_path / "s.duckdb"
    added = _json(run_cli, "store", "add", store, *sources)
    assert len(added["added_sources"]) == len(sources)
    for args in (("--task", "all"), ()):
        audit = ("audit", *QUICK, "--family", "all", *args)
        scores = [x for path in sources for x in ("--scores", path)]
        assert _json(run_cli, *audit, "--store", store) == _json(run_cli, *audit, *scores)
    again = _json(run_cli, "store", "add", store, *sources)
    assert again["rows_added"] == 0 and len(again["skipped_sources"]) == len(sources)
    # the binary board audited from its pair statistics alone: the same pair table
    settings = {"n_bootstrap": 500, "n_bootstrap_required_n": 100}
    from_stats = evalgap.store_audit_in_memory(store, tasks=["all"], **settings).to_frame()
    from_items = evalgap.audit(mmlu, n_rank_bootstrap=0, **settings).to_frame()
    for column in (
        "model_a",
        "model_b",
        "a_only",
        "b_only",
        "n_items",
        "delta",
        "se",
        "p_mcnemar",
        "p_exact",
        "p_bootstrap",
        "required_n",
        "required_n_low",
        "required_n_high",
        "resolved_fixed_n",
        "resolved_bonferroni",
        "resolved_anytime_valid",
    ):
        assert from_stats[column].tolist() == from_items[column].tolist(), column


def test_scores_and_store_are_exclusive(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    result = run_cli("audit", "--store", store, "--scores", csv)
    assert result.returncode == 2 and "not both" in result.stderr
    assert "score files (--scores) or a results store (--store), not both" in result.stderr
    with pytest.raises(InputError, match=r"score files \(scores=\) or a results store \(store="):
        evalgap.audit([csv], options=evalgap.LoadOptions(store=str(store)))
    missing = run_cli("audit", "--store", tmp_path / "none.duckdb")
    assert missing.returncode == 2 and "no such store" in missing.stderr


def test_model_selection_applies_to_the_store(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    args = ("compare", "--model-a", "m1", "--model-b", "m3", "--n-bootstrap", "100")
    assert _json(run_cli, *args, "--store", store) == _json(run_cli, *args, "--scores", csv)
    models = ("audit", *QUICK, "--models", "m0", "--models", "m2", "--models", "m4")
    assert _json(run_cli, *models, "--store", store) == _json(run_cli, *models, "--scores", csv)


def test_list_remove_export(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv")
    other = _board(tmp_path / "other.csv", n_models=2, seed=5)
    frame = pd.read_csv(other)
    frame["model"] = "new-" + frame["model"]
    frame.to_csv(other, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv, other])
    listed = _json(run_cli, "store", "list", store)
    assert listed["models"] == [f"m{k}" for k in range(6)] + ["new-m0", "new-m1"]
    assert listed["tasks"] == ["all"] and len(listed["sources"]) == 2
    assert listed["n_rows"] == len(pd.read_csv(csv)) + len(frame)
    removed = _json(run_cli, "store", "remove", store, "--model", "new-m0")
    assert removed["rows_removed"] == (frame["model"] == "new-m0").sum()
    removed = _json(run_cli, "store", "remove", store, "--source-path", str(other))
    assert removed["sources_removed"] == 1
    pairs = evalgap.store_pairs(store)
    assert len(pairs) == 15 and not pairs["model_b"].str.startswith("new").any()
    out = tmp_path / "board.parquet"
    exported = _json(run_cli, "store", "export", store, "--output", out)
    assert exported["rows"] == len(pd.read_csv(csv))
    back = pd.read_parquet(out)
    assert list(back.columns) == ["model", "task", "item_id", "run", "score", "cluster"]
    assert back["score"].sum() == pd.read_csv(csv)["score"].sum()
    bad = run_cli("store", "remove", store, "--model", "nobody")
    assert bad.returncode == 2 and "no such model" in bad.stderr
    # the removed source can be added again
    assert evalgap.store_add(store, [other]).added_sources == (str(other),)


def test_store_help_has_examples(run_cli):
    result = run_cli("store", "add", "--help")
    assert result.returncode == 0 and "evalgap store add board.duckdb" in result.stdout


def test_store_through_the_entry_point(tmp_path):
    csv = _board(tmp_path / "board.csv", n_models=3)
    store = tmp_path / "s.duckdb"
    added = run_entry_point("store", "add", str(store), str(csv), "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["rows_added"] == len(pd.read_csv(csv))
    audit = run_entry_point("audit", "--store", str(store), "--n-rank-bootstrap", "0")
    assert audit.returncode == 0, audit.stderr
    assert "m0" in audit.stdout


def test_store_add_of_a_directory_of_tables_adds_each_score_table(tmp_path, run_cli):
    mmlu = shared_file("mmlu_pro")
    store = tmp_path / "s.duckdb"
    added = _json(run_cli, "store", "add", store, mmlu)
    table = mmlu / "mmlu_pro_long.csv.gz"
    left_out = (
        f"{mmlu / 'mmlu_pro_items.csv'}: no model or score column, so not read as scores (left "
        "out); give it as the item file (--items) if it describes the items, or alone with "
        "--layout wide if it is a wide table"
    )
    assert added == {
        "store": str(store),
        "added_sources": [str(table)],
        "skipped_sources": [],
        "rows_added": 347_215,
        "notes": [left_out],
        "replaced_sources": [],
    }
    again = run_cli("store", "add", store, mmlu)
    said = " ".join(again.stdout.split())  # the terminal wraps long lines
    assert f"skipped {table}: already in the store (same bytes and options); nothing added" in said
    assert "0 sources added (0 rows), 1 already stored" in said
    assert f"note: {left_out}" in said
    audit = ("audit", *QUICK, "--n-rank-bootstrap", "0")
    from_store = _json(run_cli, *audit, "--store", store)
    from_directory = _json(run_cli, *audit, "--scores", mmlu)
    # the left-out table is said where the directory is read: at the add, and by --scores
    assert [n for n in from_directory["notes"] if n != left_out] == from_store["notes"]
    assert left_out in from_directory["notes"]
    for key in ("pairs", "unresolved", "tiers", "rankings"):
        assert from_store[key] == from_directory[key], key


def test_store_reads_back_in_added_order_whatever_the_scan_order(tmp_path, monkeypatch):
    csv = _board(tmp_path / "board.csv", n_models=4)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv, INSPECT], cluster_column=None)
    evalgap.store_add(store, [_board(tmp_path / "more.csv", n_models=3, seed=5, prefix="n")])
    before = evalgap.store_read(store).frame
    con = io.connect(store)
    try:  # the rows physically reversed: the scan is no longer in the added order
        con.execute("CREATE TABLE _first AS SELECT * FROM scores WHERE source_id = 1 AND seq = 0")
        con.execute("CREATE TABLE _copy AS SELECT * FROM scores ORDER BY source_id DESC, seq DESC")
        con.execute("DELETE FROM scores")
        con.execute("INSERT INTO scores SELECT * FROM _copy")
        con.execute("DROP TABLE _copy")
        first = con.execute("SELECT source_id FROM scores LIMIT 1").fetchall()[0][0]
        # a row stored twice (no add writes one): the sorted read still gives every row
        con.execute("INSERT INTO scores SELECT * FROM scores WHERE source_id = 1 AND seq = 0")
        assert len(io.read_long(con).frame) == len(before) + 1
        con.execute("DELETE FROM scores WHERE source_id = 1 AND seq = 0")
        con.execute("INSERT INTO scores SELECT * FROM _first")
    finally:
        con.close()
    assert first == 3
    real = io._scan_long
    monkeypatch.setattr(io, "_scan_long", lambda c, w, p: real(c, w, p, batch_rows=97))
    after = evalgap.store_read(store).frame
    pd.testing.assert_frame_equal(after, before)
    assert list(after["run"].unique()[:1]) == ["1"] and set(after["model"].cat.categories) == {
        *(f"m{i}" for i in range(4)), *(f"n{i}" for i in range(3)),
        *evalgap.load_scores(INSPECT).frame["model"].unique(),
    }
    assert list(after["model"].cat.categories) == sorted(after["model"].cat.categories)
