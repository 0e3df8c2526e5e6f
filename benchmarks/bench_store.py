"""The results store at leaderboard scale: ingestion, size, all-pairs audit, one new model.

    python benchmarks/bench_store.py                     # (a) 1,000 and (b) 5,000 models
    python benchmarks/bench_store.py --only incremental       # (a) alone; or scale, ingestion, oll
    python benchmarks/bench_store.py --models 200 --items 2000 --big-models 400   # a smoke run

Synthetic binary scores (item difficulty, model ability: an OLL-like board), generated a
block of models at a time so the generator stays in bounded memory, are bulk-loaded into a
store (one source per block). Each step runs in a fresh child process, so its peak resident
memory is its own:

(a) incremental: a K-model store; the from-scratch time (every pair's statistics rebuilt
    block by block, then the audit of the rank-adjacent family from them) against adding
    one model (its rows, its K pairs joined in DuckDB, in one transaction) and auditing
    again. Prints the ratio (target < 5%).
(b) scale: 5,000 models x 20,000 items (1e8 scores): ingestion rate, store size on disk,
    time and peak memory of the all-pairs statistics and of the audit from them, time of
    adding one model (target: peak < 4 GB).
(c) ingestion: one long Parquet file of the 1,000-model board added streamed by batches
    (out of core) against read whole by the loader, side by side: rows/s and peak memory.
(d) oll: an Open LLM Leaderboard-like details folder (one v2 samples Parquet per model, with
    the document, prompt and response texts the leaderboard writes) added file by file with
    only ids and metric read, against read whole by the loader; and the read of the files
    with every column against ids and metric only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from _child import in_child

BLOCK = 100  # models per generated source


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _model_block(rng, difficulty, ability, names, items):
    """The long frame of one block of models (categorical columns: no string per row)."""
    import pandas as pd

    from evalgap._scores import LongScores

    p = 1 / (1 + np.exp(difficulty[None, :] - ability[:, None]))
    correct = (rng.random(p.shape) < p).astype(np.float64)
    k, n = correct.shape
    frame = pd.DataFrame(
        {
            "model": pd.Categorical.from_codes(np.repeat(np.arange(k), n), categories=names),
            "task": pd.Categorical.from_codes(np.zeros(k * n, dtype=np.int8), categories=["all"]),
            "item_id": pd.Categorical.from_codes(np.tile(np.arange(n), k), categories=items),
            "score": correct.ravel(),
        }
    )
    return LongScores(frame, "synthetic", {}, ())


def _board(n_models: int, n_items: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, n_items)
    ability = rng.normal(0.0, 1.0, n_models + 1)  # the last one is the model added later
    items = [f"item-{i:06d}" for i in range(n_items)]
    return rng, difficulty, ability, items


def build(path: str, n_models: int, n_items: int, queue) -> None:
    """Bulk-load the synthetic board (no pair statistics yet); report rate and peak."""
    from evalgap.io import store as io

    rng, difficulty, ability, items = _board(n_models, n_items)
    con = io.connect(path)
    con.execute("SET memory_limit = '1GB'")
    start = time.perf_counter()
    for lo in range(0, n_models, BLOCK):
        hi = min(lo + BLOCK, n_models)
        names = [f"org/model-{m:05d}" for m in range(lo, hi)]
        long = _model_block(rng, difficulty, ability[lo:hi], names, items)
        io.add_long(con, long, f"block-{lo}", f"synthetic-{lo}", "{}", pair_stats=False)
    seconds = time.perf_counter() - start
    con.close()
    queue.put({"seconds": seconds, "rows": n_models * n_items, "peak": _peak()})


def full_audit(path: str, all_pairs: bool, queue) -> None:
    """From scratch: every pair's statistics, then the audit from them (and of all pairs)."""
    import evalgap.jobs.audit  # noqa: F401  (imports are not the audit's time)
    from evalgap.io import store as io
    from evalgap.jobs.store import store_audit_in_memory

    con = io.connect(path)
    con.execute("SET memory_limit = '1GB'")
    start = time.perf_counter()
    io.rebuild_pair_stats(con)
    con.execute("CHECKPOINT")
    stats_seconds = time.perf_counter() - start
    pairs = con.execute("SELECT count(*) FROM pair_stats").fetchall()[0][0]
    con.close()
    start = time.perf_counter()
    result = store_audit_in_memory(path, n_bootstrap=0, n_bootstrap_required_n=0)
    audit_seconds = time.perf_counter() - start
    all_seconds = None
    if all_pairs:  # every pair's verdicts, from the statistics
        start = time.perf_counter()
        store_audit_in_memory(path, family="all", n_bootstrap=0, n_bootstrap_required_n=0)
        all_seconds = time.perf_counter() - start
    queue.put(
        {
            "all_seconds": all_seconds,
            "stats_seconds": stats_seconds,
            "audit_seconds": audit_seconds,
            "pairs": int(pairs),
            "unresolved": result.unresolved["fixed_n"],
            "peak": _peak(),
        }
    )


def streamed_all(path: str, queue) -> None:
    """Every pair's verdicts from the statistics, streamed in blocks to Parquet."""
    import evalgap.jobs.audit  # noqa: F401  (imports are not the audit's time)
    from evalgap.jobs.store import store_audit

    out = str(Path(path).with_suffix(".pairs.parquet"))
    start = time.perf_counter()
    summary = store_audit(path, out, n_bootstrap=0, n_bootstrap_required_n=0)
    seconds = time.perf_counter() - start
    queue.put(
        {
            "seconds": seconds,
            "pairs": summary.n_pairs,
            "unresolved": summary.unresolved["fixed_n"],
            "parquet": os.path.getsize(out),
            "peak": _peak(),
        }
    )


def add_one(path: str, n_models: int, n_items: int, queue) -> None:
    """Add the one new model (rows + its K pairs, one transaction), then audit again."""
    import evalgap.jobs.audit  # noqa: F401  (imports are not the audit's time)
    from evalgap.io import store as io
    from evalgap.jobs.store import store_audit_in_memory

    rng, difficulty, ability, items = _board(n_models, n_items)
    rng = np.random.default_rng(1)
    long = _model_block(rng, difficulty, ability[-1:], ["org/new-model"], items)
    con = io.connect(path)
    con.execute("SET memory_limit = '1GB'")
    start = time.perf_counter()
    io.add_long(con, long, "new-model", "synthetic-new", "{}")
    add_seconds = time.perf_counter() - start
    pairs = con.execute(
        "SELECT count(*) FROM pair_stats WHERE model_a = 'org/new-model' "
        "OR model_b = 'org/new-model'"
    ).fetchall()[0][0]
    con.close()
    start = time.perf_counter()
    store_audit_in_memory(path, n_bootstrap=0, n_bootstrap_required_n=0)
    audit_seconds = time.perf_counter() - start
    queue.put(
        {
            "add_seconds": add_seconds,
            "audit_seconds": audit_seconds,
            "new_pairs": int(pairs),
            "peak": _peak(),
        }
    )


def write_parquet(path: str, n_models: int, n_items: int, queue) -> None:
    """A long Parquet table of the synthetic board (model, item_id, correct), by blocks."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng, difficulty, ability, items = _board(n_models, n_items)
    item_ids = pa.array(np.array(items, dtype=object))
    writer = None
    for lo in range(0, n_models, BLOCK):
        hi = min(lo + BLOCK, n_models)
        p = 1 / (1 + np.exp(difficulty[None, :] - ability[lo:hi, None]))
        correct = (rng.random(p.shape) < p).astype(np.int8)
        names = np.repeat(np.array([f"org/model-{m:05d}" for m in range(lo, hi)]), n_items)
        table = pa.table(
            {
                "model": pa.array(names),
                "item_id": pa.concat_arrays([item_ids] * (hi - lo)),
                "correct": pa.array(correct.ravel()),
            }
        )
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    queue.put({"bytes": os.path.getsize(path)})


def ingest_file(table: str, store: str, streamed: bool, queue) -> None:
    """One `store add` of a source (a long Parquet table, a details folder): streamed, or
    read whole by its loader first."""
    from evalgap.io import store as io
    from evalgap.io.options import LoadOptions
    from evalgap.io.sources import load_scores

    options = LoadOptions()
    con = io.connect(store)
    con.execute("SET memory_limit = '1GB'")
    start = time.perf_counter()
    long = None if streamed else load_scores([table], options)
    outcome = io.add_source(con, table, options, pair_stats=False, long=long)
    seconds = time.perf_counter() - start
    con.close()
    queue.put({"seconds": seconds, "rows": outcome["rows"], "peak": _peak()})


def ingestion(n_models: int, n_items: int, folder: Path) -> None:
    """A long Parquet file of n_models x n_items scores added streamed vs read whole."""
    table = str(folder / f"long-{n_models}.parquet")
    written = in_child(write_parquet, table, n_models, n_items)
    gb = 1024**3
    out = {}
    for streamed in (True, False):
        store = str(folder / f"ingest-{'streamed' if streamed else 'whole'}.duckdb")
        out[streamed] = in_child(ingest_file, table, store, streamed)
    s, w = out[True], out[False]
    print(
        f"\n[ingestion] one long Parquet file, {s['rows']:,} scores "
        f"({written['bytes'] / 1024**2:,.0f} MB)"
    )
    print(
        f"  streamed by batches  {s['seconds']:6.1f} s   {s['rows'] / s['seconds']:,.0f} rows/s"
        f"   peak {s['peak'] / gb:.2f} GB"
    )
    print(
        f"  read whole           {w['seconds']:6.1f} s   {w['rows'] / w['seconds']:,.0f} rows/s"
        f"   peak {w['peak'] / gb:.2f} GB"
    )
    print(
        f"  ratio streamed/whole: time {s['seconds'] / w['seconds']:.2f}, "
        f"peak memory {s['peak'] / w['peak']:.2f}"
    )


def write_details(root: str, n_models: int, n_items: int, queue) -> None:
    """One v2 details file per model: doc_id, metric and ~1 KB of texts per item."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    rng, difficulty, ability, _ = _board(n_models, n_items)
    docs = pa.array(
        [json.dumps({"question": f"question {i} " + "x" * 300}) for i in range(n_items)]
    )
    prompts = pa.array([f"few-shot prompt for item {i} " + "y" * 600 for i in range(n_items)])
    for m in range(n_models):
        p = 1 / (1 + np.exp(difficulty - ability[m]))
        folder = Path(root) / f"org__model-{m:05d}-details"
        folder.mkdir(parents=True, exist_ok=True)
        table = pa.table(
            {
                "doc_id": pa.array(np.arange(n_items)),
                "doc": docs,
                "target": pa.array(["A"] * n_items),
                "arguments": prompts,
                "resps": pa.array([" A. The answer is A."] * n_items),
                "filter": pa.array(["none"] * n_items),
                "acc_norm": pa.array((rng.random(n_items) < p).astype(float)),
                "acc": pa.array((rng.random(n_items) < p).astype(float)),
            }
        )
        pq.write_table(
            table, folder / "samples_leaderboard_task_2024-07-01T10-00-00.000000.parquet"
        )
    size = sum(f.stat().st_size for f in Path(root).rglob("*.parquet"))
    queue.put({"bytes": size})


def read_details_files(root: str, projected: bool, queue) -> None:
    """Read every details file, with every column or with the ids and metric only."""
    from evalgap.io.tables import read_frame

    start = time.perf_counter()
    for f in sorted(Path(root).rglob("*.parquet")):
        read_frame(f, "parquet", columns=["doc_id", "filter", "acc_norm"] if projected else None)
    queue.put({"seconds": time.perf_counter() - start, "peak": _peak()})


def oll(n_models: int, n_items: int, folder: Path) -> None:
    """An OLL-like details folder added file by file (projected) vs read whole."""
    root = str(folder / f"details-{n_models}")
    shutil.rmtree(root, ignore_errors=True)
    written = in_child(write_details, root, n_models, n_items)
    gb = 1024**3
    out = {}
    for streamed in (True, False):
        store = str(folder / f"details-{'streamed' if streamed else 'whole'}.duckdb")
        for f in (store, store + ".wal"):
            Path(f).unlink(missing_ok=True)
        out[streamed] = in_child(ingest_file, root, store, streamed)
    s, w = out[True], out[False]
    every, ids = (in_child(read_details_files, root, projected) for projected in (False, True))
    print(
        f"\n[oll] {n_models:,} details files x {n_items:,} items, {s['rows']:,} scores "
        f"({written['bytes'] / 1024**2:,.0f} MB of Parquet)"
    )
    for name, r in (("file by file", s), ("read whole", w)):
        print(
            f"  {name:<20} {r['seconds']:6.1f} s   {r['rows'] / r['seconds']:,.0f} rows/s"
            f"   peak {r['peak'] / gb:.2f} GB"
        )
    print(
        f"  ratio file by file/whole: time {s['seconds'] / w['seconds']:.2f}, "
        f"peak memory {s['peak'] / w['peak']:.2f}"
    )
    print(
        f"  reading the files: every column {every['seconds']:.1f} s (peak "
        f"{every['peak'] / gb:.2f} GB), ids and metric {ids['seconds']:.1f} s (peak "
        f"{ids['peak'] / gb:.2f} GB): ratio {ids['seconds'] / every['seconds']:.2f}"
    )


def audit_items(path: str, queue) -> None:
    """`audit --store`: the items read back and audited (every output, exactly as --scores)."""
    import evalgap

    start = time.perf_counter()
    long = evalgap.store_read(path)
    read_seconds = time.perf_counter() - start
    evalgap.audit(long, n_rank_bootstrap=0)
    queue.put(
        {
            "read_seconds": read_seconds,
            "seconds": time.perf_counter() - start,
            "rows": len(long.frame),
            "peak": _peak(),
        }
    )


def run(n_models: int, n_items: int, folder: Path, label: str) -> dict:
    path = str(folder / f"board-{n_models}.duckdb")
    built = in_child(build, path, n_models, n_items)
    size = os.path.getsize(path) + sum(
        os.path.getsize(p) for p in Path(folder).glob(f"board-{n_models}.duckdb.wal")
    )
    full = in_child(full_audit, path, n_models <= 2000)
    size_with_pairs = os.path.getsize(path)
    streamed = in_child(streamed_all, path)
    one = in_child(add_one, path, n_models, n_items)
    items = in_child(audit_items, path) if n_models <= 2000 else None
    scratch = full["stats_seconds"] + full["audit_seconds"]
    incremental = one["add_seconds"] + one["audit_seconds"]
    gb = 1024**3
    print(f"\n[{label}] {n_models:,} models x {n_items:,} items = {built['rows']:,} scores")
    print(
        f"  ingest        {built['seconds']:8.1f} s   {built['rows'] / built['seconds']:,.0f} "
        f"rows/s   peak {built['peak'] / gb:.2f} GB   store {size / 1024**2:,.0f} MB on disk"
    )
    print(
        f"  from scratch  {scratch:8.1f} s   (all {full['pairs']:,} pairs' statistics "
        f"{full['stats_seconds']:.1f} s + audit {full['audit_seconds']:.1f} s)   "
        f"peak {full['peak'] / gb:.2f} GB"
    )
    print(
        f"  add one model {incremental:8.2f} s   ({one['new_pairs']:,} new pairs "
        f"{one['add_seconds']:.2f} s + audit {one['audit_seconds']:.2f} s)   "
        f"peak {one['peak'] / gb:.2f} GB"
    )
    print(f"  ratio         {incremental / scratch:8.2%} of the from-scratch time")
    print(f"  store with every pair's statistics: {size_with_pairs / 1024**2:,.0f} MB on disk")
    if full["all_seconds"] is not None:
        print(
            f"  audit of all {full['pairs']:,} pairs from their statistics "
            f"{full['all_seconds']:.1f} s (peak of the step {full['peak'] / gb:.2f} GB)"
        )
    print(
        f"  all {streamed['pairs']:,} pairs' verdicts streamed to Parquet "
        f"{streamed['seconds']:.1f} s   peak {streamed['peak'] / gb:.2f} GB   "
        f"({streamed['parquet'] / 1024**2:,.0f} MB written, {streamed['unresolved']:,} "
        "unresolved at fixed n)"
    )
    if items is not None:
        print(
            f"  audit --store from the items {items['seconds']:.1f} s (reading "
            f"{items['rows']:,} rows {items['read_seconds']:.1f} s)   peak "
            f"{items['peak'] / gb:.2f} GB"
        )
    return {"built": built, "full": full, "one": one, "size": size, "streamed": streamed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--big-models", type=int, default=5000)
    parser.add_argument("--only", choices=("incremental", "scale", "ingestion", "oll"))
    parser.add_argument("--oll-models", type=int, default=300, help="Details files for (d).")
    parser.add_argument("--dir", help="Where to write the stores (default: a temp dir).")
    args = parser.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="evalgap-store-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if args.only in (None, "ingestion"):
            ingestion(args.models, args.items, folder)
        if args.only in (None, "oll"):
            oll(args.oll_models, args.items, folder)
        if args.only in (None, "incremental"):
            run(args.models, args.items, folder, "incremental")
        if args.only in (None, "scale"):
            run(args.big_models, args.items, folder, "scale")
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
