"""The distributed path: a binary board in Parquet shards, its pair sums on a local Dask
cluster of 2 workers, equal to the single machine's to the last count."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap.engine import board_sums
from evalgap.errors import InputError
from evalgap.io.shards import read_manifest, read_shard, write_shards

from conftest import run_entry_point

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """Two workers in this process (threads: quick to start), reachable over TCP so that a
    command run as its own process can use them too."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
        dashboard_address=":0",
    ) as local:  # fmt: skip
        yield local.scheduler_address


def _board(k: int, n: int, seed: int, missing: bool = False) -> np.ndarray:
    """(models, items) int8 codes of models with different accuracies; -1 where missing."""
    rng = np.random.default_rng(seed)
    codes = (rng.random((k, n)) < rng.uniform(0.3, 0.9, k)[:, None]).astype(np.int8)
    if missing:
        codes[rng.random((k, n)) < 0.1] = -1
    return codes


def _long(models: list[str], codes: np.ndarray, task: str = "t") -> pd.DataFrame:
    k, n = codes.shape
    keep = codes.ravel() >= 0
    return pd.DataFrame(
        {
            "model": np.repeat(models, n)[keep],
            "item_id": np.tile(np.arange(n), k)[keep],
            "score": codes.ravel()[keep].astype(float),
            "task": task,
        }
    )


def test_board_sums_are_the_products_of_the_indicators(tmp_path):
    # the oracle: X'X, X'O and O'O in integers over the whole board at once
    codes = _board(23, 1000, 0, missing=True)
    models = [f"m{k:02d}" for k in range(23)]
    write_shards(tmp_path / "s", [("t", models, codes)], shard_items=333, shard_models=6)
    sums = board_sums(tmp_path / "s")[0]
    x, o = (codes == 1).astype(np.int64), (codes >= 0).astype(np.int64)
    assert sums.models == tuple(models)
    np.testing.assert_array_equal(sums.shared, o @ o.T)
    np.testing.assert_array_equal(sums.right, x @ o.T)
    np.testing.assert_array_equal(sums.both_correct, x @ x.T)
    assert sums.blocks == 4 * (4 * 5 // 2)  # 4 item blocks x 10 model-block pairs (a <= b)
    assert not sums.complete


def test_shards_round_trip(tmp_path):
    codes = _board(7, 50, 1, missing=True)
    tasks = write_shards(tmp_path / "s", [("t", list("abcdefg"), codes)], shard_items=20,
                         shard_models=3)  # fmt: skip
    assert tasks == read_manifest(tmp_path / "s")
    t = tasks[0]
    assert t.item_blocks == ((0, 20), (20, 40), (40, 50))
    assert t.model_blocks == ((0, 3), (3, 6), (6, 7))
    np.testing.assert_array_equal(read_shard(t.shards[2][1], ["d", "e", "f"]), codes[3:6, 40:])
    with pytest.raises(InputError, match="differ from the manifest"):
        read_shard(t.shards[0][0], ["x", "y", "z"])


def test_dask_sums_equal_the_local_engine(tmp_path, cluster):
    codes = _board(31, 2000, 2, missing=True)
    models = [f"m{k:02d}" for k in range(31)]
    write_shards(tmp_path / "s", [("t", models, codes), ("u", models[:5], codes[:5, :300])],
                 shard_items=450, shard_models=8)  # fmt: skip
    local = board_sums(tmp_path / "s")
    remote = board_sums(tmp_path / "s", engine="dask", scheduler=cluster)
    for a, b in zip(local, remote, strict=True):
        assert a.task == b.task and a.models == b.models
        for name in ("shared", "right", "both_correct"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
            assert getattr(b, name).dtype == np.int64


@pytest.mark.parametrize("family", ["all", "adjacent"])
def test_audit_on_dask_equals_the_audit_of_the_scores(tmp_path, cluster, family):
    # every row of the pair table, every column, as the single-machine audit of the items,
    # over two tasks
    models = [f"model-{k:02d}" for k in range(14)]
    boards = [("arc", models, _board(14, 3000, 3)), ("mmlu", models, _board(14, 2000, 4))]
    write_shards(tmp_path / "s", boards, shard_items=800, shard_models=4)
    items = pd.concat([_long(models, codes, task) for task, _, codes in boards])
    single = evalgap.audit(items, family=family)
    sharded = evalgap.audit(str(tmp_path / "s"), family=family, engine="dask", scheduler=cluster)
    pd.testing.assert_frame_equal(single.to_frame(), sharded.to_frame())
    assert single.unresolved == sharded.unresolved
    assert single.chains == sharded.chains and sharded.family == family
    assert "left out of an audit from shards" in sharded.notes[-1]
    # the rank sets from the same sums: the single machine's for the same seed
    exact = ["task", "model", "rank", "rank_low", "rank_high", "tier"]
    assert single.rank_sets is not None and sharded.rank_sets is not None
    pd.testing.assert_frame_equal(single.rank_sets.ranks[exact], sharded.rank_sets.ranks[exact])


def test_store_export_writes_shards_that_audit_as_the_store(tmp_path, cluster):
    codes = _board(9, 1200, 4)
    models = [f"m{k}" for k in range(9)]
    store = tmp_path / "b.duckdb"
    _long(models, codes).to_csv(tmp_path / "long.csv", index=False)
    evalgap.store_add(store, tmp_path / "long.csv")
    written = evalgap.store_export(store, tmp_path / "s", shard_items=500, shard_models=4)
    assert (written.tasks, written.shards) == (1, 3 * 3)
    on_cluster = evalgap.audit(
        [str(tmp_path / "s")], family="all", engine="dask", scheduler=cluster, n_bootstrap=0
    )
    stored = evalgap.store_audit(store, tmp_path / "p.parquet", family="all", n_bootstrap=0)
    assert on_cluster.unresolved == stored.unresolved
    rows = pd.read_parquet(tmp_path / "p.parquet")
    frame = on_cluster.to_frame()
    common = [c for c in rows.columns if c in frame.columns]
    assert {"model_a", "model_b", "n_items", "a_only", "b_only", "p_mcnemar"} <= set(common)
    pd.testing.assert_frame_equal(frame[common], rows[common], check_dtype=False)


def test_worker_processes_give_the_same_counts(tmp_path):
    # one cluster of 2 worker processes: the shards are read by other processes
    codes = _board(12, 900, 5, missing=True)
    models = [f"m{k:02d}" for k in range(12)]
    write_shards(tmp_path / "s", [("t", models, codes)], shard_items=300, shard_models=5)
    local = board_sums(tmp_path / "s")[0]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as processes:
        remote = board_sums(tmp_path / "s", engine="dask", scheduler=processes.scheduler_address)
    np.testing.assert_array_equal(local.both_correct, remote[0].both_correct)
    np.testing.assert_array_equal(local.right, remote[0].right)
    np.testing.assert_array_equal(local.shared, remote[0].shared)


def test_refusals(tmp_path, monkeypatch):
    codes = _board(4, 100, 6)
    write_shards(tmp_path / "s", [("t", list("abcd"), codes)], shard_items=60, shard_models=2)
    folder = str(tmp_path / "s")
    monkeypatch.delenv("EVALGAP_SCHEDULER", raising=False)
    with pytest.raises(InputError, match=r"^engine='dask' needs a scheduler"):
        evalgap.audit(folder, engine="dask")
    with pytest.raises(InputError, match=r"^scheduler=: goes with engine='dask'"):
        evalgap.audit(folder, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match=r"^engine='dask' reads a binary board in Parquet"):
        evalgap.audit(_long(list("abcd"), codes), engine="dask")
    with pytest.raises(InputError, match=r"^strict=: not for a board in Parquet shards"):
        evalgap.audit(folder, strict=True)
    with pytest.raises(InputError, match=r"^n_cluster_bootstrap=: not for a board"):
        evalgap.audit(folder, n_cluster_bootstrap=500)
    with pytest.raises(InputError, match=r"^engine='ray': must be one of local, dask"):
        evalgap.audit(folder, engine="ray")
    with pytest.raises(InputError, match="new or empty folder"):
        write_shards(tmp_path / "s", [("t", list("abcd"), codes)], shard_items=1, shard_models=1)
    with pytest.raises(InputError, match="not a board in Parquet shards"):
        board_sums(tmp_path)
    gappy = _board(4, 100, 7, missing=True)
    write_shards(tmp_path / "g", [("t", list("abcd"), gappy)], shard_items=60, shard_models=2)
    with pytest.raises(InputError, match="without a score on some items"):
        evalgap.audit(str(tmp_path / "g"))


def test_graded_store_is_not_sharded(tmp_path):
    frame = _long(["a", "b"], _board(2, 50, 8)).assign(score=lambda d: d["score"] * 0.5)
    frame.to_csv(tmp_path / "graded.csv", index=False)
    evalgap.store_add(tmp_path / "b.duckdb", tmp_path / "graded.csv")
    with pytest.raises(InputError, match="graded scores"):
        evalgap.store_export(tmp_path / "b.duckdb", tmp_path / "s", shard_items=10)


def test_cli_exports_and_audits_on_the_cluster(tmp_path, cluster, run_cli):
    codes = _board(6, 800, 9)
    models = [f"m{k}" for k in range(6)]
    _long(models, codes).to_csv(tmp_path / "long.csv", index=False)
    store = tmp_path / "b.duckdb"
    assert run_cli("store", "add", store, tmp_path / "long.csv").returncode == 0
    done = run_cli("store", "export", store, "--output", tmp_path / "s", "--shard-items", 300,
                   "--shard-models", 4, "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["shards"] == 3 * 2
    local = run_cli("audit", "--scores", tmp_path / "s", "--family", "all", "--json")
    # the installed command, the scheduler from the environment variable, as a cluster's
    # users set it once
    remote = run_entry_point(
        "audit", "--scores", tmp_path / "s", "--family", "all", "--json", "--engine", "dask",
        env={**os.environ, "EVALGAP_SCHEDULER": cluster},
    )  # fmt: skip
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    a, b = json.loads(local.stdout), json.loads(remote.stdout)
    assert a["pairs"] == b["pairs"] and a["unresolved"] == b["unresolved"]
    assert "on the dask engine" in b["notes"][-1]


def test_store_audit_of_the_shards_writes_the_stores_rows(tmp_path, cluster, run_cli):
    # every pair's row of store audit, from the store's statistics or summed on the cluster
    codes = _board(11, 700, 10)
    _long([f"m{k:02d}" for k in range(11)], codes).to_csv(tmp_path / "long.csv", index=False)
    store = tmp_path / "b.duckdb"
    assert run_cli("store", "add", store, tmp_path / "long.csv").returncode == 0
    assert run_cli("store", "export", store, "--output", tmp_path / "s", "--shard-items", 250,
                   "--shard-models", 3).returncode == 0  # fmt: skip
    stored = run_cli("store", "audit", store, "--output", tmp_path / "a.parquet",
                     "--block-pairs", 7, "--json")  # fmt: skip
    sharded = run_cli("store", "audit", tmp_path / "s", "--output", tmp_path / "b.parquet",
                      "--block-pairs", 7, "--engine", "dask", "--scheduler", cluster,
                      "--json")  # fmt: skip
    assert stored.returncode == 0 and sharded.returncode == 0, sharded.stderr
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "a.parquet"), pd.read_parquet(tmp_path / "b.parquet")
    )
    a, b = json.loads(stored.stdout), json.loads(sharded.stdout)
    assert a["unresolved"] == b["unresolved"] and a["chains"] == b["chains"]
    assert b["n_pairs"] == 55 and "on the dask engine" in b["notes"][-1]
    with pytest.raises(InputError, match="shards keep no cluster labels"):
        evalgap.store_audit(tmp_path / "s", tmp_path / "c.parquet", chain_procedure="clustered")


def test_ranks_on_dask_give_the_single_machines_sets(tmp_path, cluster, run_cli):
    # the same rank sets, tiers, shown-better pairs and critical values for the same seed;
    # the standard errors and intervals equal to rounding (from counts, not item by item)
    models = [f"m{k:02d}" for k in range(15)]
    boards = [("arc", models, _board(15, 3000, 11)), ("mmlu", models, _board(15, 2500, 12))]
    write_shards(tmp_path / "s", boards, shard_items=700, shard_models=4)
    items = pd.concat([_long(models, codes, task) for task, _, codes in boards])
    single = evalgap.ranks(items, seed=7, top_k=3)
    sharded = evalgap.ranks(str(tmp_path / "s"), seed=7, top_k=3, engine="dask",
                            scheduler=cluster)  # fmt: skip
    exact = ["task", "model", "score", "own_items_mean", "n_items", "rank", "rank_low",
             "rank_high", "tier"]  # fmt: skip
    pd.testing.assert_frame_equal(single.ranks[exact], sharded.ranks[exact])
    for column in ("se", "score_low", "score_high"):
        np.testing.assert_allclose(sharded.ranks[column], single.ranks[column], rtol=1e-12)
    pd.testing.assert_frame_equal(single.marginal[exact], sharded.marginal[exact])
    assert single.critical_values == sharded.critical_values
    assert single.top_k == sharded.top_k and single.methods == sharded.methods
    for task in ("arc", "mmlu"):
        np.testing.assert_array_equal(single.shown_better[task], sharded.shown_better[task])
    assert "left out of ranks from shards" in sharded.notes[-1]
    done = run_cli("ranks", "--scores", tmp_path / "s", "--seed", 7, "--engine", "dask",
                   "--scheduler", cluster, "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [r["rank_low"] for r in json.loads(done.stdout)["ranks"]] == single.ranks[
        "rank_low"
    ].tolist()
    refused = run_cli("ranks", "--scores", tmp_path / "s", "--bootstrap", "empirical")
    assert refused.returncode == 2
    assert refused.stderr.startswith("evalgap: error: --bootstrap: not for a board in Parquet")
