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
    # 4 item blocks x 10 model-block pairs (a <= b), then with missing scores the fit's
    # item counts (4 x 4 shards) and weighted products (4 x 10)
    assert sums.blocks == 4 * (4 * 5 // 2) + 4 * 4 + 4 * (4 * 5 // 2)
    assert not sums.complete
    # the additive fit's sums, against the items: m_i models scored item i, xbar_i their mean
    m, right = o.sum(axis=0), x.sum(axis=0)
    fit = sums.fit
    assert fit is not None and fit.n_items == int((m > 0).sum())
    np.testing.assert_allclose(fit.weighted, (o / m) @ o.T, rtol=1e-13)
    np.testing.assert_allclose(fit.share, o @ (1 / m), rtol=1e-13)
    np.testing.assert_allclose(fit.item_mean_share, o @ (right / m), rtol=1e-13)
    assert fit.item_mean_total == pytest.approx((right / m).sum(), rel=1e-13)
    assert board_sums(tmp_path / "s", fit=False)[0].fit is None


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
    with pytest.raises(InputError, match=r"^engine=: task 't' has models without a score on"):
        evalgap.ranks(str(tmp_path / "g"))


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


def _gappy_boards(models: list[str]) -> list[tuple[str, list[str], np.ndarray]]:
    """Two tasks with missing cells: on the first, one model scored a single item (left
    out of the ranking) and two models share no item; the second has an exact tie."""
    k = len(models)
    arc = _board(k, 3000, 13, missing=True)
    arc[0, 1:] = -1  # scored one item only
    arc[1, :1500], arc[2, 1500:] = -1, -1  # these two share no item
    mmlu = _board(k, 2000, 14, missing=True)
    mmlu[4] = mmlu[3]  # equal on every item: a gap of exactly 0, the same paired rank
    return [("arc", models, arc), ("mmlu", models, mmlu)]


def test_audit_with_missing_scores_on_dask_equals_the_single_machine(tmp_path, cluster):
    # every pair compared on the items both scored, in the single machine's board order
    # (paired rank, then the additive fit's score, then name): every row and every count
    models = [f"model-{k:02d}" for k in range(13)]
    boards = _gappy_boards(models)
    write_shards(tmp_path / "s", boards, shard_items=700, shard_models=4)
    items = pd.concat([_long(models, codes, task) for task, _, codes in boards])
    single = evalgap.audit(items, family="all", n_rank_bootstrap=0)
    calls = []
    sharded = evalgap.audit(str(tmp_path / "s"), family="all", engine="dask",
                            scheduler=cluster, n_rank_bootstrap=0,
                            progress=lambda *a: calls.append(a))  # fmt: skip
    pd.testing.assert_frame_equal(single.to_frame(), sharded.to_frame())
    assert single.unresolved == sharded.unresolved and single.chains == sharded.chains
    # the ranking: the same models, paired ranks and items; the fit's scores to rounding
    exact = ["task", "rank", "model", "n_items", "items_missing", "own_items_mean"]
    pd.testing.assert_frame_equal(single.rankings[exact], sharded.rankings[exact])
    np.testing.assert_allclose(sharded.rankings["score"], single.rankings["score"], rtol=1e-12)
    assert sharded.rankings["score_low"].isna().all()
    # the same notes on who is left out, which pair shares no item, rows against the order
    said = [n for n in single.notes if "left out" in n or "listed row" in n]
    assert said and all(n in sharded.notes for n in said)
    assert "(model-00)" in said[0] and "model-02 vs model-01" in " ".join(said)
    # the bar: each phase's blocks counted up to its total, the tasks one after another
    phases = {label for *_, label in calls}
    assert phases == {"pair sums", "item counts", "fit sums"}
    assert all(0 < done <= total for done, total, _ in calls)
    assert sum(done == total for done, total, _ in calls) == 2 * 3
    # the rank sets of a board with missing scores are left out, said why
    with_sets = evalgap.audit(str(tmp_path / "s"), family="adjacent")
    assert with_sets.rank_sets is None
    assert any(n.startswith("rank sets are left out: with missing") for n in with_sets.notes)


def test_fit_sums_and_board_equal_on_every_engine(tmp_path, cluster):
    # the fit's floats are added in one order on every engine: equal to the last bit
    models = [f"m{k:02d}" for k in range(10)]
    write_shards(tmp_path / "s", _gappy_boards(models), shard_items=450, shard_models=3)
    local = board_sums(tmp_path / "s")
    remote = board_sums(tmp_path / "s", engine="dask", scheduler=cluster)
    for a, b in zip(local, remote, strict=True):
        assert a.fit is not None and b.fit is not None
        for name in ("weighted", "share", "item_mean_share"):
            np.testing.assert_array_equal(getattr(a.fit, name), getattr(b.fit, name))
        assert a.fit.item_mean_total == b.fit.item_mean_total
        np.testing.assert_array_equal(a.board()[1].score, b.board()[1].score)


def test_store_audit_of_a_store_with_missing_scores_equals_its_shards(tmp_path, cluster,
                                                                      run_cli):  # fmt: skip
    models = [f"m{k:02d}" for k in range(9)]
    codes = _board(9, 900, 16, missing=True)
    codes[0], codes[0, 450:452] = -1, 1  # two items: ranked
    codes[1, :450], codes[2, 460:] = -1, -1  # 10 items shared, less the missing ones
    _long(models, codes).to_csv(tmp_path / "long.csv", index=False)
    store = tmp_path / "b.duckdb"
    assert run_cli("store", "add", store, tmp_path / "long.csv").returncode == 0
    assert run_cli("store", "export", store, "--output", tmp_path / "s", "--shard-items", 400,
                   "--shard-models", 4).returncode == 0  # fmt: skip
    stored = run_cli("store", "audit", store, "--output", tmp_path / "a.parquet", "--json")
    sharded = run_cli("store", "audit", tmp_path / "s", "--output", tmp_path / "b.parquet",
                      "--engine", "dask", "--scheduler", cluster, "--json")  # fmt: skip
    assert stored.returncode == 0 and sharded.returncode == 0, sharded.stderr
    rows = pd.read_parquet(tmp_path / "a.parquet")
    assert (rows["n_items"] < 900).all() and len(rows) == 9 * 8 // 2
    assert rows["n_items"].min() == 2 and 0 < rows["n_items"].iloc[1:].min() <= 10
    pd.testing.assert_frame_equal(rows, pd.read_parquet(tmp_path / "b.parquet"))
    a, b = json.loads(stored.stdout), json.loads(sharded.stdout)
    assert a["unresolved"] == b["unresolved"] and a["chains"] == b["chains"]
    # two models that share no item: refused in the store's words from either source
    codes[2, 450:460] = -1
    _long(models, codes).to_csv(tmp_path / "apart.csv", index=False)
    apart = tmp_path / "apart.duckdb"
    assert run_cli("store", "add", apart, tmp_path / "apart.csv").returncode == 0
    assert run_cli("store", "export", apart, "--output", tmp_path / "t", "--shard-items", 400,
                   "--shard-models", 4).returncode == 0  # fmt: skip
    said = []
    for source in (apart, tmp_path / "t"):
        refused = run_cli("store", "audit", source, "--output", tmp_path / "c.parquet")
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1
        said.append(refused.stderr.split(f"{source}: ")[1])
    assert said[0] == said[1] and "(task t) share no item (2 such pairs)" in said[0]


def test_cli_progress_on_stderr_and_not_with_json(tmp_path, run_cli, monkeypatch):
    from rich.console import Console

    from evalgap.cli import _render

    def terminal(*, stderr=False):  # a terminal for the bar, as a user's shell is
        return Console(stderr=True, force_terminal=True, width=100) if stderr else plain()

    plain = _render.console.__wrapped__ if hasattr(_render.console, "__wrapped__") else (
        lambda: Console(width=100))  # fmt: skip
    monkeypatch.setattr(_render, "console", terminal)
    models = [f"m{k}" for k in range(6)]
    write_shards(tmp_path / "s", _gappy_boards(models)[1:], shard_items=500, shard_models=3)
    shown = run_cli("audit", "--scores", tmp_path / "s", "--family", "all")
    assert shown.returncode == 0, shown.stderr
    assert "audit: fit sums" in shown.stderr  # the last phase, as the bar is drawn last
    quiet = run_cli("audit", "--scores", tmp_path / "s", "--family", "all", "--json")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert json.loads(quiet.stdout)["pairs"]


def test_a_board_too_large_for_the_client_is_refused_before_any_block(tmp_path, monkeypatch,
                                                                      run_cli):  # fmt: skip
    from evalgap.engine import sums

    write_shards(tmp_path / "s", [("t", list("abcd"), _board(4, 100, 15))], shard_items=60,
                 shard_models=2)  # fmt: skip
    # 24 x 4^2 + 64 x 2^2 = 640 bytes needed; 500 leave room for 3 models
    monkeypatch.setattr(sums, "available_memory", lambda: 500)
    monkeypatch.setattr(sums, "block_sums", None)  # any block run would fail
    done = run_cli("store", "audit", tmp_path / "s", "--output", tmp_path / "p.parquet")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "evalgap: error: --engine: task 't' has 4 models, whose pair totals (24 bytes x "
        "4^2, with a block of 2 models in flight: 0.0 GiB) the client assembles in memory, "
        "and 0.0 GiB is available here (room for 3 models); run the command where"
    )
    assert done.stderr.count("\n") == 1
    monkeypatch.setattr(sums, "available_memory", lambda: 640)  # just enough: no refusal
    with pytest.raises(TypeError):
        sums.board_sums(tmp_path / "s")
