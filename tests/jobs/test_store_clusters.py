"""Per-cluster pair statistics of the store: kept up to date incrementally, equal to the
sums over the items and to a rebuild, and the cluster ICC / design effect of every pair
from them equal to the item audit's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.io import store as io


def _board(rng, models, n_items=240, missing=0.05):
    y = (rng.random((len(models), n_items)) < rng.uniform(0.3, 0.8, len(models))[:, None])
    frame = pd.DataFrame(
        {
            "model": np.repeat(models, n_items),
            "item_id": np.tile([f"q{j:03d}" for j in range(n_items)], len(models)),
            "score": y.ravel().astype(int),
            "topic": np.tile([f"t{j % 6}" for j in range(n_items)], len(models)),
        }
    )
    return frame[rng.random(len(frame)) >= missing]


def _expected(frame):
    """Per (cluster, pair) sums straight from the items, pandas only."""
    wide = frame.pivot(index="item_id", columns="model", values="score")
    topic = frame.drop_duplicates("item_id").set_index("item_id")["topic"].reindex(wide.index)
    rows = []
    names = sorted(wide.columns)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = wide[a].notna() & wide[b].notna()
            for t, sub in wide[both].groupby(topic[both]):
                rows.append(
                    (t, a, b, len(sub), sub[a].sum(), sub[b].sum(), (sub[a] * sub[b]).sum())
                )
    return pd.DataFrame(rows, columns=["cluster", "model_a", "model_b", "n", "sum_a", "sum_b",
                                       "sum_ab"]).sort_values(["cluster", "model_a", "model_b"])


def _stored(path):
    con = io.connect(path, read_only=True)
    try:
        got = con.execute(
            "SELECT cluster, model_a, model_b, n, sum_a, sum_b, sum_ab FROM pair_cluster_stats "
            "ORDER BY cluster, model_a, model_b"
        ).df()
    finally:
        con.close()
    return got


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clusters")
    rng = np.random.default_rng(4)
    first = _board(rng, [f"m{i}" for i in range(8)])
    second = _board(rng, ["m8", "m9"])
    first.to_csv(folder / "first.csv", index=False)
    second.to_csv(folder / "second.csv", index=False)
    path = folder / "board.duckdb"
    evalgap.store_add(path, [folder / "first.csv"], cluster_column="topic")
    evalgap.store_add(path, [folder / "second.csv"], cluster_column="topic")
    return path, pd.concat([first, second]), folder


def test_incremental_cluster_statistics_equal_the_items_and_a_rebuild(store):
    path, frame, _ = store
    got = _stored(path).reset_index(drop=True)
    expected = _expected(frame).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    con = io.connect(path)
    try:
        io.rebuild_pair_stats(con, block_models=3)
    finally:
        con.close()
    pd.testing.assert_frame_equal(_stored(path), got, check_dtype=False)


def test_cluster_statistics_follow_a_removed_model(store, tmp_path):
    path, frame, _ = store
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(path.read_bytes())
    evalgap.store_remove(copy, models=["m3"])
    got = _stored(copy).reset_index(drop=True)
    expected = _expected(frame[frame["model"] != "m3"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


def test_audit_store_clustered_verdicts_equal_the_item_audit(store):
    path, _, folder = store
    from_stats = evalgap.store_audit_in_memory(path, family="all", n_bootstrap=0,
                                     n_bootstrap_required_n=0)
    items = evalgap.audit(
        [folder / "first.csv", folder / "second.csv"], cluster_column="topic", family="all",
        n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0,
    )
    a = from_stats.pairs.to_frame().set_index(["model_a", "model_b"])
    b = items.pairs.to_frame().set_index(["model_a", "model_b"]).loc[a.index]
    for column in ("icc", "design_effect", "required_n_clustered"):
        np.testing.assert_allclose(a[column], b[column], rtol=1e-10)
    assert (a["resolved_clustered"] == b["resolved_clustered"]).all()
    assert from_stats.unresolved["clustered"] == items.unresolved["clustered"]


def test_streamed_audit_carries_the_clustered_verdicts(store, tmp_path):
    path, _, _ = store
    kw = {"n_bootstrap": 0, "n_bootstrap_required_n": 0}
    full = evalgap.store_audit_in_memory(path, family="all", **kw).pairs.to_frame()
    out = tmp_path / "pairs.parquet"
    summary = evalgap.store_audit(path, out, block_pairs=10, **kw)
    got = pd.read_parquet(out)
    np.testing.assert_allclose(got["icc"], full["icc"], rtol=1e-12)
    assert got["resolved_clustered"].tolist() == full["resolved_clustered"].tolist()
    assert summary.unresolved["clustered"] == int((~full["resolved_clustered"]).sum())


def test_mmlu_pro_clustered_audit_from_statistics_equals_the_items(tmp_path):
    from conftest import shared_file

    source = shared_file("mmlu_pro", "mmlu_pro_long.csv.gz")
    path = tmp_path / "board.duckdb"
    evalgap.store_add(path, [source], evalgap.LoadOptions(cluster_column="category"))
    kw = {"n_bootstrap": 0, "n_bootstrap_required_n": 0}
    stats = evalgap.store_audit_in_memory(path, family="all", **kw)
    items = evalgap.audit(source, cluster_column="category", family="all",
                          n_cluster_bootstrap=0, **kw)
    a = stats.pairs.to_frame().set_index(["model_a", "model_b"])
    b = items.pairs.to_frame().set_index(["model_a", "model_b"]).loc[a.index]
    np.testing.assert_allclose(a["icc"], b["icc"], rtol=1e-12)
    assert (a["resolved_clustered"] == b["resolved_clustered"]).all()
    assert stats.unresolved == items.unresolved  # 51 of 406 unresolved once clustered
    assert stats.unresolved["clustered"] == 51


def test_text_scores_are_stored_as_the_alignment_reads_them(tmp_path, run_cli):
    """'True'/'False' text scores are 1/0 in the store as in --scores; a score that is not a
    number is refused with its row (the store keeps numbers, it would lose it silently)."""
    table = tmp_path / "text.csv"
    pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "item_id": [1, 2, 1, 2],
         "score": ["True", "false", "TRUE", "False"]}
    ).to_csv(table, index=False)
    store = tmp_path / "s.duckdb"
    evalgap.store_add(store, [table])
    frame = evalgap.store_read(store).frame
    assert frame["score"].tolist() == [1.0, 0.0, 1.0, 0.0]
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"model": ["a", "b"], "item_id": [1, 1], "score": ["yes", "1"]}).to_csv(
        bad, index=False
    )
    done = run_cli("store", "add", str(store), str(bad))
    assert done.returncode == 2
    assert "not finite numbers (first: row 1" in done.stderr and done.stderr.count("\n") == 1
    assert len(evalgap.store_read(store).frame) == 4  # unchanged
