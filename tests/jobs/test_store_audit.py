"""The all-pairs audit of a store streamed from its pair statistics (bounded memory) equals
the in-memory audit of the same pairs, row for row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalgap
from evalgap import store_audit, store_audit_in_memory


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board")
    rng = np.random.default_rng(0)
    k, n = 30, 400
    y = (rng.random((k, n)) < rng.uniform(0.3, 0.8, k)[:, None]).astype(int)
    tasks = np.where(np.arange(n) < 150, "easy", "hard")
    long = pd.DataFrame(
        {
            "model": np.repeat([f"m{i:02d}" for i in range(k)], n),
            "task": np.tile(tasks, k),
            "item_id": np.tile(np.arange(n), k),
            "score": y.ravel(),
        }
    )
    long.to_csv(folder / "scores.csv", index=False)
    path = folder / "board.duckdb"
    evalgap.store_add(path, [folder / "scores.csv"])
    return path


@pytest.mark.parametrize("family", ["all", "adjacent"])
def test_streamed_audit_equals_the_in_memory_audit(board, tmp_path, family):
    kw = {"n_bootstrap": 200, "n_bootstrap_required_n": 50}
    full = store_audit_in_memory(board, family=family, **kw)
    out = tmp_path / "pairs.parquet"
    streamed = store_audit(board, out, family=family, block_pairs=70, **kw)
    expected = full.pairs.to_frame().reset_index(drop=True)
    got = pd.read_parquet(out)
    assert list(got.columns) == list(expected.columns)
    assert streamed.n_pairs == streamed.family_size == len(expected) == full.family_size
    assert len(streamed.notes) == 1 and "block" in streamed.notes[0]
    for column in expected.columns:
        if column in ("anytime_boundary", "required_n_anytime"):  # bisection per block
            np.testing.assert_allclose(got[column], expected[column], rtol=1e-12)
        else:
            pd.testing.assert_series_equal(
                got[column], expected[column], check_dtype=False, check_names=False
            )
    assert streamed.unresolved == full.unresolved
    assert streamed.correlation_sensitivity == full.correlation_sensitivity
    assert streamed.chains == full.chains
    # Holm and BH really are family-wide: blocks of 70 pairs alone would resolve more
    assert streamed.unresolved["holm"] > 0


def test_streamed_audit_refuses_an_empty_selection(board, tmp_path):
    with pytest.raises(evalgap.errors.InputError):
        store_audit(board, tmp_path / "x.parquet", tasks=["none"])


def test_cli_store_audit_writes_every_pair_and_says_so(board, tmp_path, run_cli):
    import json

    out = tmp_path / "pairs.parquet"
    done = run_cli("store", "audit", str(board), "--output", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["n_pairs"] == 2 * 30 * 29 // 2 == len(pd.read_parquet(out))
    assert summary["family"] == "all" and summary["output"] == str(out)
    expected = store_audit_in_memory(board, family="all", n_bootstrap=0, n_bootstrap_required_n=0)
    assert summary["unresolved"] == expected.unresolved
    text = run_cli("store", "audit", str(board), "--output", str(out), "--family", "adjacent")
    assert "58 adjacent pairs" in text.stdout and "unresolved chain" in text.stdout


@pytest.mark.parametrize("family", ["adjacent", "all"])
def test_tied_models_share_a_rank_in_every_store_audit(tmp_path, family):
    """Two models with the same score on every item share the board's rank in the pairs of
    ``audit --scores``, ``audit --store``, the streamed ``store audit`` and a store exported
    in shards, and chain alike (they were numbered by place: 2 and 3)."""
    rng = np.random.default_rng(3)
    n = 200
    base = {m: (rng.random(n) < p).astype(int) for m, p in (("m1", 0.8), ("m2", 0.6), ("m4", 0.4))}
    base["m3"] = base["m2"][::-1].copy()  # the same total as m2: a gap of exactly 0
    long = pd.DataFrame(
        {
            "model": np.repeat(list(base), n),
            "item_id": np.tile([f"q{i}" for i in range(n)], 4),
            "score": np.concatenate(list(base.values())),
        }
    )
    long.to_csv(tmp_path / "b.csv", index=False)
    path = tmp_path / "b.duckdb"
    evalgap.store_add(path, [tmp_path / "b.csv"])

    def ranks(frame: pd.DataFrame) -> list[tuple[str, str, int, int]]:
        cols = frame[["model_a", "model_b", "rank_a", "rank_b"]]
        return [(a, b, int(x), int(y)) for a, b, x, y in cols.itertuples(index=False)]

    direct = evalgap.audit(tmp_path / "b.csv", family=family, n_bootstrap=0)
    expected = ranks(direct.pairs.to_frame())
    assert ("m2", "m3", 2, 2) in expected
    in_memory = store_audit_in_memory(path, family=family, n_bootstrap=0)
    assert ranks(in_memory.pairs.to_frame()) == expected
    assert in_memory.rankings["rank"].tolist() == [1, 2, 2, 4]
    streamed = store_audit(path, tmp_path / "s.parquet", family=family, n_bootstrap=0)
    assert ranks(pd.read_parquet(tmp_path / "s.parquet")) == expected
    assert streamed.chains == direct.chains
    evalgap.store_export(path, tmp_path / "shards", shard_items=64)
    store_audit(tmp_path / "shards", tmp_path / "h.parquet", family=family, n_bootstrap=0)
    assert ranks(pd.read_parquet(tmp_path / "h.parquet")) == expected
