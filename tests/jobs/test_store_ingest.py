"""The store's ingestion path: rows from Arrow, vectors scattered from numbered rows, pair
sums from int8 codes a block of items at a time -- the same store as the aggregate path and
the same pair statistics as a direct count."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.io import store as io
from evalgap.io import tables
from evalgap.stats import paired


def _frame(n_models=7, n_items=240, seed=0, graded=False, prefix="m"):
    """A long frame: each model misses some items; binary or graded scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.5, n_items)
    parts = []
    for m in range(n_models):
        p = 1 / (1 + np.exp(difficulty - rng.normal(0, 1)))
        score = rng.beta(4 * p + 0.1, 4 * (1 - p) + 0.1) if graded else (rng.random(n_items) < p)
        keep = np.flatnonzero(rng.random(n_items) > 0.1)
        parts.append(
            pd.DataFrame(
                {
                    "model": f"{prefix}{m}",
                    "item_id": [f"q{i:04d}" for i in keep],
                    "score": np.asarray(score, dtype=float)[keep],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _tables(store):
    """The store's vectors and pair statistics, sorted."""
    con = io.connect(store, read_only=True)
    try:
        vectors = con.execute("SELECT * FROM vectors ORDER BY task, model").df()
        pairs = con.execute("SELECT * FROM pair_stats ORDER BY task, model_a, model_b").df()
        items = con.execute("SELECT * FROM items ORDER BY task, ix").df()
    finally:
        con.close()
    return vectors, pairs, items


def _old_pair_sums(codes, rows):
    """The previous path: one product per statistic of the whole board in float32."""
    x, m = (codes == 1).astype(np.float32), (codes >= 0).astype(np.float32)
    return paired.pair_sums(x, m, rows, binary=True)


@pytest.fixture
def scattered(monkeypatch):
    """What each :func:`io._scatter_vectors` call gave: a table, or None (the aggregate)."""
    real, seen = io._scatter_vectors, []

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]

    monkeypatch.setattr(io, "_scatter_vectors", spy)
    return seen


@pytest.fixture
def from_file(monkeypatch):
    """What each :func:`io._file_vectors` call gave: the vectors read from a Parquet file's
    dictionary-encoded ids, or None (the stored rows are read)."""
    real, seen = io._file_vectors, []

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]

    monkeypatch.setattr(io, "_file_vectors", spy)
    return seen


@pytest.fixture
def small_batches(monkeypatch):
    """Batches of a few hundred rows: the scatter and the switch to float run over many."""
    monkeypatch.setattr(tables, "BATCH_ROWS", 300)
    monkeypatch.setattr(tables, "BATCH_BYTES", 4096)
    monkeypatch.setattr(io, "_BATCH_ROWS", 250)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_scattered_store_equals_the_aggregate_path(
    tmp_path, monkeypatch, small_batches, scattered, from_file, suffix
):
    # binary models first, graded ones after: the scatter starts in int8 codes and moves to
    # float64 at the first graded batch; each model keeps its own binary flag
    frame = pd.concat(
        [_frame(prefix="b", seed=1), _frame(prefix="g", seed=2, graded=True)],
        ignore_index=True,
    )
    source = tmp_path / f"board{suffix}"
    if suffix == ".csv":
        frame.to_csv(source, index=False)
    else:
        frame.to_parquet(source, index=False)
    new = tmp_path / "new.duckdb"
    evalgap.store_add(new, [source])
    if suffix == ".parquet":  # read from the file's ids, the stored rows never scattered
        assert len(from_file) == 1 and from_file[0].vectors.num_rows == 14 and not scattered
    else:
        assert len(scattered) == 1 and scattered[0].num_rows == 14  # the scatter wrote them
    old = tmp_path / "old.duckdb"
    with monkeypatch.context() as patch:
        patch.setattr(io, "_file_vectors", lambda *args: None)
        patch.setattr(io, "_scatter_vectors", lambda *args: None)  # the aggregate path
        patch.setattr(io, "_code_pair_sums", _old_pair_sums)
        evalgap.store_add(old, [source])
    (vn, pn, inew), (vo, po, iold) = _tables(new), _tables(old)
    pd.testing.assert_frame_equal(inew, iold)
    assert vn["is_binary"].tolist() == [True] * 7 + [False] * 7
    pd.testing.assert_frame_equal(vn.drop(columns="mean"), vo.drop(columns="mean"))
    # a graded mean is a float sum: the aggregate adds in its own row order
    np.testing.assert_allclose(vn["mean"], vo["mean"], rtol=1e-13)
    assert (vn["mean"][:7] == vo["mean"][:7]).all()  # binary: exact
    pd.testing.assert_frame_equal(pn, po)


def test_pair_statistics_equal_a_direct_count(tmp_path, small_batches):
    frame = _frame(n_models=30, n_items=200, seed=3)  # 30 models: the blockwise product
    source = tmp_path / "board.parquet"
    frame.to_parquet(source, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [source])
    vectors, pairs, items = _tables(store)
    wide = frame.pivot(index="model", columns="item_id", values="score")
    x = wide.to_numpy()
    seen = ~np.isnan(x)
    names = list(wide.index)
    expected = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            both = seen[a] & seen[b]
            xa, xb = x[a, both], x[b, both]
            expected.append(
                (
                    names[a],
                    names[b],
                    both.sum(),
                    xa.sum(),
                    xb.sum(),
                    (xa * xb).sum(),
                    (xa**2).sum(),
                    (xb**2).sum(),
                )
            )
    expected = pd.DataFrame(
        expected,
        columns=["model_a", "model_b", "n", "sum_a", "sum_b", "sum_ab", "sum_a2", "sum_b2"],
    )
    got = pairs.drop(columns="task")
    np.testing.assert_array_equal(got[["model_a", "model_b"]], expected[["model_a", "model_b"]])
    np.testing.assert_array_equal(got.iloc[:, 2:].to_numpy(), expected.iloc[:, 2:].to_numpy())
    # each vector is the model's scores on the items' numbering (-1 unscored), its mean and
    # the first row it was seen in
    ix = dict(zip(items["item_id"], items["ix"], strict=True))
    first_row = frame.reset_index().groupby("model")["index"].min()
    for row in vectors.itertuples():
        codes = np.frombuffer(row.scores, dtype=np.int8)
        mine = frame[frame["model"] == row.model]
        want = np.full(len(items), -1, dtype=np.int8)
        want[[ix[i] for i in mine["item_id"]]] = mine["score"].astype(np.int8)
        np.testing.assert_array_equal(codes, want)
        assert row.n_items == len(mine) and row.mean == mine["score"].mean()
        assert row.first_seen == (1 << 32) + first_row[row.model]


def test_runs_and_repeated_rows_go_through_the_aggregate(tmp_path, scattered):
    frame = _frame(n_models=4, n_items=50, seed=4)
    plain, doubled = tmp_path / "plain.csv", tmp_path / "doubled.csv"
    frame.to_csv(plain, index=False)
    # every row twice (identical duplicates collapse), and m0 with a second run scored the
    # other way: its items average to 0.5
    second = frame[frame["model"] == "m0"].assign(run="2", score=lambda f: 1 - f["score"])
    runs = pd.concat([frame.assign(run="1"), second])
    pd.concat([runs, runs]).to_csv(doubled, index=False)
    evalgap.store_add(tmp_path / "a.duckdb", [plain])
    evalgap.store_add(tmp_path / "b.duckdb", [doubled], run_column="run")
    assert scattered[0] is not None and scattered[1] is None
    (va, pa_, _), (vb, pb, _) = _tables(tmp_path / "a.duckdb"), _tables(tmp_path / "b.duckdb")
    cols = ["model", "is_binary", "n_items", "mean", "scores"]
    pd.testing.assert_frame_equal(va[cols][1:], vb[cols][1:])
    m0 = vb.iloc[0]
    assert m0["model"] == "m0" and not m0["is_binary"] and m0["mean"] == 0.5
    assert set(np.frombuffer(m0["scores"])[np.frombuffer(va.iloc[0]["scores"], np.int8) >= 0]) == {
        0.5
    }
    others = pa_["model_a"] != "m0"
    pd.testing.assert_frame_equal(pa_[others], pb[others])
    m0_pairs = pb[~others]
    np.testing.assert_array_equal(m0_pairs["sum_a"], 0.5 * m0_pairs["n"])


def _read_back(store):
    con = io.connect(store, read_only=True)
    try:
        rows = con.execute(
            "SELECT source_id, seq, model, task, item_id, run, score, cluster FROM all_scores "
            "ORDER BY source_id, seq"
        ).df()
    finally:
        con.close()
    return rows, _tables(store)


def _variants():
    """Long Parquet tables the batch reader and DuckDB's read must store alike."""
    base = _frame(n_models=5, n_items=40, seed=5)
    base.loc[3, "score"] = np.nan  # an empty score: stored as NULL
    numbered = base.assign(item_id=base["item_id"].str[1:].astype(int))  # integer ids
    tasks = pd.concat([base.assign(task="t1"), base.assign(task="t2")], ignore_index=True)
    runs = base.assign(run=np.where(np.arange(len(base)) % 2, "r1", "r2"))
    clusters = base.assign(topic=base["item_id"].str[-1])
    categorical = base.assign(model=base["model"].astype("category"))
    counts = base.dropna().assign(score=lambda f: f["score"].astype("int8"))
    return {
        "plain": (base, {}),
        "integer ids": (numbered, {}),
        "tasks": (tasks, {}),
        "runs": (runs, {"run_column": "run"}),
        "clusters": (clusters, {"cluster_column": "topic"}),
        "categorical": (categorical, {}),
        "integer scores": (counts, {}),
    }


@pytest.mark.parametrize("name", list(_variants()))
def test_parquet_read_by_duckdb_stores_what_the_batches_store(tmp_path, monkeypatch, name):
    frame, options = _variants()[name]
    source = tmp_path / "t.parquet"
    frame.to_parquet(source, index=False)
    read = []
    real = io._insert_parquet
    monkeypatch.setattr(io, "_insert_parquet", lambda *a: read.append(real(*a)) or read[-1])
    evalgap.store_add(tmp_path / "fast.duckdb", [source], **options)
    assert read == [len(frame)]  # DuckDB read it
    monkeypatch.setattr(io, "_insert_parquet", lambda *a: None)
    evalgap.store_add(tmp_path / "batches.duckdb", [source], **options)
    (rows_f, (vf, pf, itf)), (rows_b, (vb, pb, itb)) = (
        _read_back(tmp_path / "fast.duckdb"),
        _read_back(tmp_path / "batches.duckdb"),
    )
    pd.testing.assert_frame_equal(rows_f, rows_b)
    for got, want in ((vf, vb), (pf, pb), (itf, itb)):
        pd.testing.assert_frame_equal(got, want)
    a = evalgap.store_read(tmp_path / "fast.duckdb").frame
    pd.testing.assert_frame_equal(a, evalgap.store_read(tmp_path / "batches.duckdb").frame)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda f: f.assign(score=f["score"].where(f.index != 7, np.inf), topic="a"),
            "row 8 of the",
        ),
        (lambda f: f.assign(topic=np.where(f.index == 4, " ", "a")), "row 5 has an empty"),
    ],
)
def test_parquet_the_batches_refuse_is_refused_alike(tmp_path, change, message):
    source = tmp_path / "t.parquet"
    change(_frame(n_models=2, n_items=20, seed=6)).to_parquet(source, index=False)
    with pytest.raises(evalgap.InputError, match=message):
        evalgap.store_add(tmp_path / "s.duckdb", [source], cluster_column="topic")
    assert not (tmp_path / "s.duckdb").exists()


@pytest.mark.parametrize("rows", [np.arange(9), np.array([2, 7])])
def test_code_pair_sums_by_blocks_whole_or_not_equal_the_products(rows):
    # items 0-63 scored by every model (one product per block), the rest with gaps
    rng = np.random.default_rng(11)
    codes = (rng.random((9, 150)) < 0.6).astype(np.int8)
    codes[:, 64:][rng.random((9, 86)) < 0.2] = -1
    got = io._code_pair_sums(codes, rows, block_items=32)
    want = _old_pair_sums(codes, rows)
    for name in ("n", "sum_t", "sum_o", "sum_tt", "sum_oo", "sum_to"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("repeated", [False, True])
@pytest.mark.parametrize(
    ("categorical", "row_group_size"),
    # one row group; row groups of 37 rows, each with its own dictionary of the labels it
    # holds: models and items met batch by batch, the matrix grown as they come
    [(True, None), (True, 37), (False, 37)],
)
def test_vectors_from_the_file_equal_the_aggregate_path(
    tmp_path, monkeypatch, small_batches, from_file, repeated, categorical, row_group_size
):
    # empty scores (NaN) here and there, a model with none, items first met out of order;
    # a repeated (model, item) row leaves the vectors to the stored rows
    frame = _frame(n_models=6, n_items=90, seed=4).sample(frac=1.0, random_state=1)
    frame.loc[frame.index[::7], "score"] = np.nan
    frame = pd.concat(
        [frame, pd.DataFrame({"model": "empty", "item_id": ["q0001", "q0002"], "score": np.nan})]
    )
    if repeated:
        frame = pd.concat([frame, frame.iloc[[3]]])
    # categorical ids with labels no row has: written in the file's dictionaries
    for column, unused in (("model", "unused"), ("item_id", "zz")) if categorical else ():
        frame[column] = pd.Categorical(
            frame[column], categories=[unused, *frame[column].unique()]
        )
    source = tmp_path / "board.parquet"
    frame.to_parquet(source, index=False, row_group_size=row_group_size)
    new = tmp_path / "new.duckdb"
    evalgap.store_add(new, [source])
    assert len(from_file) == 1 and (from_file[0] is None) == repeated
    assert repeated or from_file[0].pairs is not None  # the pair sums came with them
    old = tmp_path / "old.duckdb"
    with monkeypatch.context() as patch:
        patch.setattr(io, "_file_vectors", lambda *args: None)
        patch.setattr(io, "_scatter_vectors", lambda *args: None)  # the aggregate path
        evalgap.store_add(old, [source])
    (vn, pn, inew), (vo, po, iold) = _tables(new), _tables(old)
    assert len(vn) == 6 and "empty" not in set(vn["model"])
    pd.testing.assert_frame_equal(inew, iold)
    pd.testing.assert_frame_equal(vn, vo)
    pd.testing.assert_frame_equal(pn, po)


def test_labels_code_constant_and_varying_batches_alike():
    import pyarrow as pa

    labels = io._Labels()
    for batch in (["b", "b", "b"], ["c", "a", "b"], ["a", "a"], [None, "c"], ["c", "c"]):
        labels.add(pa.array(batch, pa.string()))
    names, coded = labels.sorted()
    assert names == ["a", "b", "c"]
    assert coded.tolist() == [1, 1, 1, 2, 0, 1, 0, 0, -1, 2, 2, 2]


def _stored(store):
    """A store's rows read back (as a job reads them), vectors, pairs and items."""
    return evalgap.store_read(store).frame, _tables(store)


def test_plain_and_labelled_sources_read_back_in_the_order_added(tmp_path, monkeypatch):
    # a Parquet table without task, run or cluster (its rows in plain_scores), a CSV (the
    # batch reader: rows in scores), another Parquet table: the store reads back in the
    # order added and holds what a store of the batch reader alone holds, before and after
    # a model of the first source is removed
    parts = [
        (_frame(n_models=3, n_items=60, seed=1, prefix="a"), "a.parquet"),
        (_frame(n_models=2, n_items=60, seed=2, prefix="b"), "b.csv"),
        (_frame(n_models=2, n_items=70, seed=3, prefix="c"), "c.parquet"),
    ]
    sources = []
    for frame, name in parts:
        sources.append(tmp_path / name)
        frame.to_csv(sources[-1], index=False) if name.endswith(".csv") else frame.to_parquet(
            sources[-1], index=False
        )
    fast, slow = tmp_path / "fast.duckdb", tmp_path / "slow.duckdb"
    evalgap.store_add(fast, sources)
    with monkeypatch.context() as patch:
        patch.setattr(io, "_insert_parquet", lambda *a: None)  # the batch reader alone
        evalgap.store_add(slow, sources)
    con = io.connect(fast, read_only=True)
    try:
        plain = con.execute("SELECT count(*) FROM plain_scores").fetchall()[0][0]
        labelled = con.execute("SELECT count(*) FROM scores").fetchall()[0][0]
    finally:
        con.close()
    assert (plain, labelled) == (len(parts[0][0]) + len(parts[2][0]), len(parts[1][0]))
    for removed in ((), ("a1",)):
        if removed:
            for store in (fast, slow):
                evalgap.store_remove(store, models=removed)
        (rows_f, tables_f), (rows_s, tables_s) = _stored(fast), _stored(slow)
        pd.testing.assert_frame_equal(rows_f, rows_s)
        assert list(rows_f["model"].unique()) == [
            m for m in ("a0", "a1", "a2", "b0", "b1", "c0", "c1") if m not in removed
        ]
        for got, want in zip(tables_f, tables_s, strict=True):
            pd.testing.assert_frame_equal(got, want)


def test_a_store_with_plain_rows_is_marked_and_one_made_before_reads_alike(tmp_path):
    import duckdb

    frame = _frame(n_models=3, n_items=50, seed=6)
    csv, parquet = tmp_path / "board.csv", tmp_path / "more.parquet"
    frame.to_csv(csv, index=False)
    more = _frame(n_models=2, n_items=50, seed=7, prefix="p")
    more.to_parquet(parquet, index=False)
    more.to_csv(tmp_path / "more.csv", index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [csv])
    want = evalgap.store_read(store).frame
    con = duckdb.connect(str(store))  # as the previous version made it: no plain_scores
    con.execute("DROP TABLE plain_scores")
    con.execute(f"UPDATE {io.META_TABLE} SET value = '2' WHERE key = 'version'")
    con.close()

    def version():
        con = duckdb.connect(str(store), read_only=True)
        try:
            return dict(con.execute(f"SELECT * FROM {io.META_TABLE}").fetchall())["version"]
        finally:
            con.close()

    pd.testing.assert_frame_equal(evalgap.store_read(store).frame, want)  # read-only: alike
    evalgap.store_add(store, [tmp_path / "more.csv"])  # rows in scores: still version 2
    assert version() == "2"
    evalgap.store_remove(store, models=["p0", "p1"])
    evalgap.store_add(store, [parquet])  # its rows in plain_scores: the store says so
    assert version() == "3"
    got = evalgap.store_read(store).frame
    assert len(got) == len(want) + len(more) and set(got["model"]) == {"m0", "m1", "m2", "p0", "p1"}


def test_empty_ids_stay_rows_but_get_no_vector_and_a_removal_keeps_the_counts(tmp_path, run_cli):
    # a Parquet table with an empty model and item id: DuckDB's insert leaves it to the
    # batch reader; the rows are stored (read back with the alignment's note) but no
    # vector, pair, model or item comes of them
    frame = _frame(n_models=3, n_items=40, seed=8)
    frame.loc[0, "model"], frame.loc[1, "item_id"], frame.loc[2, "model"] = None, None, "  "
    source = tmp_path / "nulls.parquet"
    frame.to_parquet(source, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [source])
    listed = evalgap.store_list(store)
    assert set(listed.models) == {"m0", "m1", "m2"}
    from evalgap.io.options import LoadOptions

    from_store = evalgap.audit(options=LoadOptions(store=str(store)))
    from_file = evalgap.audit(str(source))
    assert from_store.to_frame()["n_items"].tolist() == from_file.to_frame()["n_items"].tolist()
    # a plain Parquet source (plain_scores) and a CSV one; removing a model from each keeps
    # the row counts of both right, and store list reads the sources it did not touch
    plain = tmp_path / "plain.parquet"
    _frame(n_models=2, n_items=30, seed=9, prefix="p").to_parquet(plain, index=False)
    csv = tmp_path / "c.csv"
    _frame(n_models=2, n_items=30, seed=10, prefix="c").to_csv(csv, index=False)
    evalgap.store_add(store, [plain, csv])
    before = {s["path"]: s["rows"] for s in evalgap.store_list(store).to_dict()["sources"]}
    evalgap.store_remove(store, models=["p0"])
    after = {s["path"]: s["rows"] for s in evalgap.store_list(store).to_dict()["sources"]}
    gone = int((pd.read_parquet(plain)["model"] == "p0").sum())
    assert after[str(plain)] == before[str(plain)] - gone > 0
    assert after[str(csv)] == before[str(csv)] and after[str(source)] == before[str(source)]
    out = run_cli("store", "list", store)
    assert out.returncode == 0, out.stderr
