"""The store on every path: options honoured or refused, re-adds, removal, identity, damage,
full disks, argument checks."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import evalgap
from evalgap.errors import InputError
from evalgap.io import store as io
from evalgap.io.options import LoadOptions

QUICK = ("--n-bootstrap", "0", "--n-bootstrap-required-n", "0", "--n-rank-bootstrap", "0")


def _board(path: Path, n_models=4, n_items=240, seed=0, prefix="m", flip=0.0):
    """A long CSV: binary scores, two cluster columns (``category``: 6, ``sub``: 20)."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_models):
        p = 0.35 + 0.1 * m
        for i in range(n_items):
            if rng.random() < 0.95:
                score = int(rng.random() < p)
                if flip and rng.random() < flip:
                    score = 1 - score
                rows.append((f"{prefix}{m}", f"q{i:04d}", score, f"c{i % 6}", f"s{i % 20}"))
    frame = pd.DataFrame(rows, columns=["model", "item_id", "score", "category", "sub"])
    frame.to_csv(path, index=False)
    return path


def _one_line_error(result, *words):
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("evalgap: error:") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def _json(run_cli, *args):
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """A board and its store (clusters: ``category``), for tests that only read them."""
    folder = tmp_path_factory.mktemp("board")
    csv = _board(folder / "board.csv")
    store = folder / "s.duckdb"
    evalgap.store_add(store, [csv], cluster_column="category")
    return csv, store


# 1. options under --store: honoured or refused ------------------------------------------


def test_an_item_file_applies_to_the_store_as_to_the_files(board, tmp_path, run_cli):
    csv, store = board
    listed = [f"q{i:04d}" for i in range(0, 240, 3)]
    items = tmp_path / "items.csv"
    pd.DataFrame({"item_id": listed, "group": [f"g{i % 4}" for i in range(80)]}).to_csv(
        items, index=False
    )
    kept = tmp_path / "kept.csv"  # the listed items' rows, by hand
    frame = pd.read_csv(csv)
    frame[frame["item_id"].isin(listed)].to_csv(kept, index=False)
    args = ("audit", *QUICK)
    from_store = _json(run_cli, *args, "--store", store, "--items", items)
    by_hand = _json(run_cli, *args, "--scores", kept, "--cluster-column", "category")
    assert max(p["n_items"] for p in from_store["pairs"]) <= 80
    assert from_store["pairs"] == by_hand["pairs"]
    assert from_store["unresolved"] == by_hand["unresolved"]
    # the item file's own cluster column, as for files
    args = (*args, "--items", items, "--cluster-column", "group")
    assert (
        _json(run_cli, *args, "--store", store)["pairs"]
        == _json(run_cli, *args, "--scores", csv)["pairs"]
    )


def test_a_cluster_column_the_store_does_not_keep_is_refused(board, tmp_path, run_cli):
    csv, store = board
    refused = run_cli("audit", *QUICK, "--store", store, "--cluster-column", "sub")
    _one_line_error(refused, "--cluster-column sub", "'category'")
    # the stored one is honoured: the same audit as the files read with it
    same = ("audit", *QUICK, "--cluster-column", "category")
    assert (
        _json(run_cli, *same, "--store", store)["pairs"]
        == _json(run_cli, *same, "--scores", csv)["pairs"]
    )
    plain = tmp_path / "plain.duckdb"
    evalgap.store_add(plain, [csv])
    _one_line_error(
        run_cli("audit", *QUICK, "--store", plain, "--cluster-column", "category"),
        "keeps no cluster labels",
    )
    with pytest.raises(InputError, match="keeps no cluster labels"):  # and in Python
        evalgap.load_scores([], LoadOptions(store=str(plain), cluster_column="category"))


def test_every_command_refuses_a_reading_option_the_store_did_not_use(board, run_cli, tmp_path):
    _, store = board
    for command in (
        ("audit",),
        ("compare", "--model-a", "m0", "--model-b", "m1"),
        ("ranks",),
        ("degrade", "--baseline", "m0", "--candidate", "m1"),
        ("inspect-data",),
        ("trim", "--model", "m0", "--output", tmp_path / "trimmed.csv"),
        ("simulate", "prospective", "--pair", "m0", "m1"),
    ):
        for option in (("--format", "tsv"), ("--metric", "acc"), ("--layout", "wide")):
            result = run_cli(*command, "--store", store, *option)
            _one_line_error(result, option[0], "add the files with it")
    assert not (tmp_path / "trimmed.csv").exists()


def test_plan_refuses_a_store(board, run_cli):
    _, store = board
    _one_line_error(
        run_cli(
            "plan",
            "--accuracy-a",
            "0.7",
            "--accuracy-b",
            "0.75",
            "--correlation",
            "0.5",
            "--store",
            store,
        ),
        "--store",
    )


# 2. store add --models / --task -----------------------------------------------------------


@pytest.mark.parametrize("streamed", [True, False])
def test_store_add_keeps_only_the_selected_models_and_tasks(tmp_path, monkeypatch, streamed):
    csv = _board(tmp_path / "board.csv")
    frame = pd.read_csv(csv)
    frame["task"] = np.where(frame["item_id"].str[-1].astype(int) % 2 == 0, "even", "odd")
    frame.to_csv(csv, index=False)
    if not streamed:
        monkeypatch.setattr(io, "_long_table_batches", lambda *a: None)
    store = tmp_path / "s.duckdb"
    added = evalgap.store_add(store, [csv], model_columns=("m1", "m3", "nobody"), tasks=("odd",))
    kept = frame[frame["model"].isin(["m1", "m3"]) & (frame["task"] == "odd")]
    assert added.rows_added == len(kept)
    listed = evalgap.store_list(store)
    assert listed.models == ("m1", "m3") and listed.tasks == ("odd",)
    assert listed.n_rows == len(kept)
    assert any("no model 'nobody'" in n for n in added.notes)
    back = evalgap.store_read(store).frame
    assert sorted(back["item_id"].astype(str)) == sorted(kept["item_id"])


# 3. a changed file added again ---------------------------------------------------------


def test_a_changed_file_added_again_replaces_its_old_rows(tmp_path):
    csv = tmp_path / "board.csv"
    _board(csv, seed=0)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    _board(csv, seed=0, flip=0.3)  # same models and items, other scores
    again = evalgap.store_add(store, [csv])
    assert again.added_sources == again.replaced_sources == (str(csv),)
    pairs = evalgap.store_pairs(store)
    counts = pairs[["both_correct", "a_only", "b_only", "both_wrong"]].to_numpy()
    assert np.array_equal(counts, np.round(counts))  # whole counts, no averaged versions
    fresh = tmp_path / "fresh.duckdb"
    evalgap.store_add(fresh, [csv])
    pd.testing.assert_frame_equal(pairs, evalgap.store_pairs(fresh))
    con = io.connect(store)
    io.rebuild_pair_stats(con)
    con.close()
    pd.testing.assert_frame_equal(pairs, evalgap.store_pairs(store), check_dtype=False)
    # the counts of the file itself
    frame = pd.read_csv(csv).pivot(index="item_id", columns="model", values="score")
    row = pairs.iloc[0]
    a, b = frame[row["model_a"]], frame[row["model_b"]]
    both = a.notna() & b.notna()
    assert row["a_only"] == ((a == 1) & (b == 0) & both).sum()
    assert row["both_wrong"] == ((a == 0) & (b == 0) & both).sum()
    assert len(evalgap.store_list(store).sources) == 1


def test_an_item_with_two_scores_from_two_files_is_refused(tmp_path):
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [_board(tmp_path / "a.csv", seed=0)])
    before = evalgap.store_pairs(store)
    with pytest.raises(InputError, match=r"would be stored with the scores 0 .* and 1"):
        evalgap.store_add(store, [_board(tmp_path / "b.csv", seed=3)])
    pd.testing.assert_frame_equal(evalgap.store_pairs(store), before)


# 4. ids and paths ---------------------------------------------------------------------


def test_a_source_id_never_matches_a_file_named_like_it(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _board(tmp_path / "a.csv")
    _board(tmp_path / "1", prefix="x")
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, ["a.csv", "1"], fmt="csv")
    removed = _json(run_cli, "store", "remove", store, "--source", "1")
    assert removed["removed_sources"] == [{"source_id": 1, "path": "a.csv", "matched": "id"}]
    assert [s["path"] for s in evalgap.store_list(store).sources] == ["1"]
    _one_line_error(run_cli("store", "remove", store, "--source", "a.csv"), "--source-path")
    removed = _json(run_cli, "store", "remove", store, "--source-path", "1")
    assert removed["removed_sources"] == [{"source_id": 2, "path": "1", "matched": "path"}]


# 5. a model removed, its file added again --------------------------------------------------


def test_removing_a_model_updates_its_source_and_a_readd_brings_it_back(tmp_path, run_cli):
    csv = _board(tmp_path / "board.csv")
    frame = pd.read_csv(csv)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    pairs = evalgap.store_pairs(store)
    evalgap.store_remove(store, models=["m2"])
    listed = evalgap.store_list(store)
    left = int((frame["model"] != "m2").sum())
    assert listed.n_rows == listed.sources[0]["rows"] == left
    assert listed.sources[0]["removed_models"] == ["m2"]
    assert "models removed from it: m2" in run_cli("store", "list", store).stdout
    again = _json(run_cli, "store", "add", store, csv)
    assert again["replaced_sources"] == [str(csv)] and again["rows_added"] == len(frame)
    assert evalgap.store_list(store).models == ("m0", "m1", "m2", "m3")
    pd.testing.assert_frame_equal(evalgap.store_pairs(store), pairs)


# 6. a DuckDB file that is not a store --------------------------------------------------


def test_a_foreign_duckdb_file_is_never_written_into(tmp_path, run_cli):
    import duckdb

    foreign = tmp_path / "other.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE accounts (id INTEGER, name VARCHAR)")
    con.close()
    csv = _board(tmp_path / "board.csv")
    for args in (("store", "add", foreign, csv), ("store", "list", foreign)):
        _one_line_error(run_cli(*args), str(foreign), "not an evalgap store")
    con = duckdb.connect(str(foreign), read_only=True)
    assert [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()] == [
        "accounts"
    ]
    con.close()
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    con = duckdb.connect(str(store), read_only=True)
    assert dict(con.execute(f"SELECT * FROM {io.META_TABLE}").fetchall()) == {
        "format": io.STORE_FORMAT,
        "version": str(io.STORE_VERSION),
    }
    con.close()


# 7. a store damaged in the middle ----------------------------------------------------------


def test_a_store_damaged_in_the_middle_gives_one_line_everywhere(tmp_path, run_cli):
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [_board(tmp_path / "board.csv", n_models=12, n_items=3000)])
    size = store.stat().st_size
    assert size > 4 * 262_144
    with open(store, "r+b") as handle:  # every data block but the first damaged
        for start in range(12_288 + 2 * 262_144, size - 4096, 262_144):
            handle.seek(start + 100)
            handle.write(b"\xff" * 64)
    out = tmp_path / "o.parquet"
    damaged = 0
    for args in (
        ("store", "list", store),
        ("audit", *QUICK, "--store", store),
        ("store", "audit", store, "--output", out),
        ("store", "export", store, "--output", out),
        ("store", "remove", store, "--model", "m0"),
        ("store", "add", store, _board(tmp_path / "more.csv", prefix="n")),
    ):
        result = run_cli(*args)
        if result.returncode:
            _one_line_error(result, str(store))
            damaged += "damaged" in result.stderr
    assert damaged >= 3
    assert not out.exists()


# 8. a full disk -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["duckdb", "os"])
def test_a_full_disk_during_add_leaves_the_store_as_it_was(tmp_path, monkeypatch, kind):
    import duckdb

    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [_board(tmp_path / "a.csv")])
    before = evalgap.store_list(store).to_dict(), evalgap.store_pairs(store)

    def full(*args, **kwargs):
        if kind == "os":
            raise OSError(errno.ENOSPC, "No space left on device")
        raise duckdb.IOException("IO Error: Could not write file: No space left on device")

    monkeypatch.setattr(io, "_insert_source_row", full)
    with pytest.raises(InputError, match=r"no space left on the device .*as it was"):
        evalgap.store_add(store, [_board(tmp_path / "b.csv", prefix="b")])
    monkeypatch.undo()
    assert evalgap.store_list(store).to_dict() == before[0]
    pd.testing.assert_frame_equal(evalgap.store_pairs(store), before[1])
    # a new store that could not be filled is not left behind
    monkeypatch.setattr(io, "_insert_source_row", full)
    with pytest.raises(InputError, match="no space left"):
        evalgap.store_add(tmp_path / "new.duckdb", [_board(tmp_path / "b.csv", prefix="b")])
    assert not (tmp_path / "new.duckdb").exists()


def test_a_full_disk_keeps_the_previous_audit_and_export_files(
    board, tmp_path, monkeypatch, run_cli
):
    _, store = board
    out = tmp_path / "pairs.parquet"
    exported = tmp_path / "board.parquet"
    assert run_cli("store", "audit", store, "--output", out).returncode == 0
    assert run_cli("store", "export", store, "--output", exported).returncode == 0
    good = out.read_bytes(), exported.read_bytes()

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    _one_line_error(run_cli("store", "audit", store, "--output", out), "No space left")

    def partial(con, target):
        target.write_bytes(b"PAR1 partial")
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(io, "_copy", partial)
    _one_line_error(run_cli("store", "export", store, "--output", exported), "no space left")
    assert (out.read_bytes(), exported.read_bytes()) == good
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


# 9, 10. arguments checked; the family said on every view ---------------------------------


def test_audit_store_refuses_unknown_choices_in_one_line(board, tmp_path):
    _, store = board
    from evalgap.jobs.store import store_audit

    for bad in ({"family": "zz"}, {"chain_procedure": "zz"}, {"mixture": "zz"}, {"family": None}):
        name = next(iter(bad))
        for job in (
            lambda bad=bad: evalgap.store_audit_in_memory(store, n_bootstrap=0, **bad),
            lambda bad=bad: store_audit(store, tmp_path / "o.parquet", **bad),
        ):
            with pytest.raises(InputError, match=f"^{name}=.*must be one of") as caught:
                job()
            assert "\n" not in str(caught.value)
    assert not (tmp_path / "o.parquet").exists()
    plain = tmp_path / "plain.duckdb"  # a clustered chain procedure on a store without clusters
    evalgap.store_add(plain, [board[0]])
    with pytest.raises(InputError, match="keeps no cluster labels"):
        store_audit(plain, tmp_path / "o.parquet", chain_procedure="clustered")


def test_the_family_is_said_on_every_view_of_a_store_audit(board, tmp_path, run_cli):
    _, store = board
    out = tmp_path / "pairs.parquet"
    text = run_cli("store", "audit", store, "--output", out)
    assert "family all" in " ".join(text.stdout.split())
    assert pq.read_schema(out).metadata[b"evalgap.family"] == b"all"
    data = _json(run_cli, "store", "audit", store, "--output", out, "--family", "adjacent")
    assert data["family"] == "adjacent" and data["notes"][0].startswith("family adjacent:")
    assert pq.read_schema(out).metadata[b"evalgap.family"] == b"adjacent"
    two = tmp_path / "two.duckdb"
    evalgap.store_add(two, [_board(tmp_path / "two.csv", n_models=2)])
    assert evalgap.store_audit_in_memory(two, family="all", n_bootstrap=0).family == "all"


# found attacking the store ---------------------------------------------------------------


def test_a_file_that_is_not_duckdb_is_refused_as_a_store(tmp_path, run_cli):
    """DuckDB opened a CSV named as the store as an empty in-memory database: store add
    reported its rows added, and they were stored nowhere."""
    csv = _board(tmp_path / "board.csv")
    other = _board(tmp_path / "other.csv", prefix="o")
    before = csv.read_bytes()
    for args in (("store", "add", csv, other), ("store", "list", csv)):
        _one_line_error(run_cli(*args), str(csv), "not a DuckDB file")
    assert csv.read_bytes() == before


def test_selections_in_python_take_one_name_and_refuse_unknown_ones(board, tmp_path):
    csv, store = board
    frame = pd.read_csv(csv)
    assert len(evalgap.store_read(store, models="m1").frame) == (frame["model"] == "m1").sum()
    with pytest.raises(InputError, match="models='zz': no such model in the store; models found"):
        evalgap.store_read(store, models=["zz"])
    assert len(evalgap.store_pairs(store, tasks="all")) == 6
    with pytest.raises(InputError, match="tasks=1: names are strings"):
        evalgap.store_pairs(store, tasks=[1])
    added = evalgap.store_add(tmp_path / "one.duckdb", [csv], model_columns="m1")
    assert added.rows_added == (frame["model"] == "m1").sum()
    with pytest.raises(InputError, match="a path or a list of paths"):
        evalgap.store_add(tmp_path / "one.duckdb", [None])


def test_cluster_sums_follow_labels_that_a_removal_or_a_replacement_changes(tmp_path):
    """Item labels were kept from the first source that gave them: once its rows were
    removed (or replaced), the per-cluster sums used labels no stored row carried."""
    rng = np.random.default_rng(4)

    def write(path, models, label):
        rows = [
            (m, f"q{i}", int(rng.random() < 0.3 + 0.1 * k), label(i))
            for k, m in enumerate(models)
            for i in range(300)
        ]
        frame = pd.DataFrame(rows, columns=["model", "item_id", "score", "category"])
        frame.to_csv(path, index=False)
        return path

    def same_as_the_items(clustered):
        quick = {"n_bootstrap": 0}
        stats = evalgap.store_audit_in_memory(store, **quick).pairs.to_frame()
        items = evalgap.audit(
            evalgap.store_read(store), n_cluster_bootstrap=0, n_rank_bootstrap=0, **quick
        ).pairs.to_frame()
        for frame in (stats, items):
            assert ("icc" in frame and frame["icc"].notna().any()) == clustered
        if clustered:
            for column in ("icc", "design_effect", "resolved_clustered"):
                np.testing.assert_allclose(
                    stats[column].astype(float), items[column].astype(float), rtol=1e-9
                )

    store = tmp_path / "s.duckdb"
    first = write(tmp_path / "a.csv", ["m0", "m1"], lambda i: f"c{i % 5}")
    second = write(tmp_path / "b.csv", ["m2", "m3", "m4"], lambda i: f"d{i % 3}")
    evalgap.store_add(store, [first], cluster_column="category")
    evalgap.store_add(store, [second])  # the same items, no labels of its own
    same_as_the_items(clustered=True)
    evalgap.store_remove(store, sources=[1])  # the labels go with the rows that gave them
    same_as_the_items(clustered=False)
    with pytest.raises(InputError, match=r"stored already as source 2, read with cluster_col"):
        evalgap.store_add(store, [second], cluster_column="category")  # its rows twice
    evalgap.store_remove(store, source_paths=[second])
    evalgap.store_add(store, [second], cluster_column="category")
    same_as_the_items(clustered=True)
    write(second, ["m2", "m3", "m4"], lambda i: f"e{i % 7}")  # the file's labels change
    evalgap.store_add(store, [second], cluster_column="category")
    same_as_the_items(clustered=True)
    with pytest.raises(InputError, match="would carry the cluster labels 'e"):  # two labels
        evalgap.store_add(store, [first], cluster_column="category")


def test_compare_weights_from_a_column_is_refused_on_a_store_and_a_design_file_honoured(
    board, tmp_path, run_cli
):
    csv, store = board
    refused = run_cli("compare", "--store", store, "--model-a", "m0", "--model-b", "m1",
                      "--weights", "category")  # fmt: skip
    _one_line_error(refused, "--weights category", "design file")
    design = tmp_path / "design.csv"
    items = pd.read_csv(csv)["item_id"].drop_duplicates()
    pd.DataFrame({"item_id": items, "weight": 2.0}).to_csv(design, index=False)
    args = ("compare", "--model-a", "m0", "--model-b", "m1", "--weights", design)
    assert _json(run_cli, *args, "--store", store) == _json(run_cli, *args, "--scores", csv)


def test_an_export_or_audit_onto_the_store_file_itself_is_refused(tmp_path, run_cli):
    """A store named x.parquet exported to x.parquet was replaced by the export."""
    store = tmp_path / "board.parquet"
    evalgap.store_add(store, [_board(tmp_path / "board.csv")])
    before = store.read_bytes()
    for command in ("export", "audit"):
        result = run_cli("store", command, store, "--output", store)
        _one_line_error(result, "the store file itself")
    assert store.read_bytes() == before
    assert evalgap.store_list(store).n_rows > 0


def test_a_store_from_a_newer_evalgap_or_with_a_torn_row_is_refused_in_one_line(tmp_path):
    import duckdb

    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [_board(tmp_path / "board.csv")])
    con = duckdb.connect(str(store))
    con.execute("UPDATE sources SET options = '{\"fmt\": ' WHERE source_id = 1")
    con.close()
    with pytest.raises(InputError, match=r"the store is damaged .*not valid JSON"):
        evalgap.load_scores([], LoadOptions(store=str(store)))
    con = duckdb.connect(str(store))
    con.execute(f"UPDATE {io.META_TABLE} SET value = '99' WHERE key = 'version'")
    con.close()
    for job in (evalgap.store_list, lambda s: evalgap.store_add(s, [tmp_path / "board.csv"])):
        with pytest.raises(InputError, match="version '99', newer than this evalgap reads"):
            job(store)


def test_rows_added_without_labels_take_their_items_labels_when_read(tmp_path, run_cli):
    """The same rows stored unlabelled, then labelled: the read kept the unlabelled row of
    each item and audit --store raised a TypeError."""
    csv = _board(tmp_path / "board.csv")
    copy = tmp_path / "copy.csv"
    copy.write_bytes(csv.read_bytes())
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [copy])
    evalgap.store_add(store, [csv], cluster_column="category")
    assert evalgap.store_read(store).frame["cluster"].notna().all()
    items = _json(run_cli, "audit", *QUICK, "--store", store)["pairs"]
    stats = evalgap.store_audit_in_memory(store, n_bootstrap=0).pairs.to_frame()
    np.testing.assert_allclose([p["icc"] for p in items], stats["icc"], rtol=1e-9)
