"""The results store at leaderboard scale, measured through the commands users run.

    python benchmarks/bench_store.py --only users     # the commands, 1,000 and 2,000 models
    python benchmarks/bench_store.py --quick          # a smoke run of every section (small)
    python benchmarks/bench_store.py                  # every section

(u) users: a long Parquet file (model, item_id, correct) of K models x N items, and in each of
    ``--rounds`` interleaved rounds, each a fresh process timed with its own peak resident
    memory: DuckDB's own ingest of the file (``CREATE TABLE AS SELECT * FROM
    read_parquet(...)``, the floor), ``evalgap store add`` (the CLI: rows, vectors and every
    pair's statistics, what the command does), ``evalgap store audit`` (every pair's verdicts
    to Parquet), ``evalgap audit --store`` and ``evalgap audit --scores`` of the same Parquet.
    Prints each command's median time and peak memory, the ratios store add / DuckDB and
    audit --store / audit --scores, the machine's load, and the curve: from the measured
    sizes (``--sizes``), a least-squares fit of each command's peak memory and time in the
    number of scores (K x N) and of pairs (K^2), extrapolated to where the machine's memory
    ends -- stated as an extrapolation.
(a) incremental: a K-model store bulk-loaded a block of models at a time (rows only), every
    pair's statistics rebuilt from the items, against adding one model (its rows, its K pairs
    in one transaction) and auditing again.
(b) scale: the same at ``--big-models`` models.
(c) ingestion: one long Parquet file added by ``store add``'s library call (statistics
    included) streamed by batches against read whole by the loader first.
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
import subprocess
import sys
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
    outcome = io.add_source(con, table, options, long=long)
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


# DuckDB's own ingest of the same file: the floor `store add` is measured against.
CTAS = """
import sys, duckdb
con = duckdb.connect(sys.argv[2])
con.execute("SET enable_progress_bar = false")
con.execute("CREATE TABLE scores AS SELECT * FROM read_parquet(?)", [sys.argv[1]])
con.close()
"""


def command(argv: list[str], folder: Path) -> dict:
    """Run one command in a fresh process; its wall time and its own peak resident memory."""
    err = folder / "stderr.txt"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    with open(err, "wb") as handle:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=handle, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err.read_text()[-2000:]}")
    return {"seconds": seconds, "peak": usage.ru_maxrss * 1024}


def _fresh(path: Path) -> str:
    for f in (path, Path(f"{path}.wal")):
        f.unlink(missing_ok=True)
    return str(path)


def users(sizes: list[int], n_items: int, rounds: int, folder: Path) -> dict:
    """The commands users run, interleaved round by round with DuckDB's own ingest."""
    evalgap = [sys.executable, "-m", "evalgap"]
    gib = 1024**3
    measured = {}
    print(
        f"\n[users] the commands, {rounds} interleaved round(s) per size; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start"
    )
    for k in sizes:
        table = str(folder / f"users-{k}.parquet")
        in_child(write_parquet, table, k, n_items)
        runs: dict[str, list] = {}
        for r in range(rounds):
            store = _fresh(folder / f"users-{k}.duckdb")
            steps = {
                "duckdb CTAS": [
                    sys.executable,
                    "-c",
                    CTAS,
                    table,
                    _fresh(folder / f"ctas-{k}.duckdb"),
                ],
                "store add": [*evalgap, "store", "add", store, table],
                "store audit": [
                    *evalgap,
                    "store",
                    "audit",
                    store,
                    "--output",
                    str(folder / f"pairs-{k}.parquet"),
                    "--json",
                ],
                "audit --store": [*evalgap, "audit", "--store", store, "--json"],
                "audit --scores": [*evalgap, "audit", "--scores", table, "--json"],
            }
            # the floor and the add alternate in order from round to round
            order = list(steps) if r % 2 == 0 else ["store add", "duckdb CTAS", *list(steps)[2:]]
            for name in order:
                runs.setdefault(name, []).append(command(steps[name], folder))
        med = {
            name: {
                "seconds": float(np.median([x["seconds"] for x in xs])),
                "peak": max(x["peak"] for x in xs),
                "rounds": [x["seconds"] for x in xs],
            }
            for name, xs in runs.items()
        }
        add_ratio = np.median(
            [
                a["seconds"] / c["seconds"]
                for a, c in zip(runs["store add"], runs["duckdb CTAS"], strict=True)
            ]
        )
        audit_ratio = np.median(
            [
                a["seconds"] / c["seconds"]
                for a, c in zip(runs["audit --store"], runs["audit --scores"], strict=True)
            ]
        )
        print(f"  {k:,} models x {n_items:,} items = {k * n_items:,} scores")
        for name, m in med.items():
            print(
                f"    {name:<15} {m['seconds']:7.1f} s  (rounds "
                f"{', '.join(f'{x:.1f}' for x in m['rounds'])})   peak {m['peak'] / gib:.2f} GiB"
            )
        print(
            f"    ratio store add / duckdb CTAS: {add_ratio:.2f}   "
            f"audit --store / audit --scores: {audit_ratio:.2f}"
        )
        measured[k] = med
    print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return measured


def curve(measured: dict, n_items: int) -> None:
    """Where one machine ends: each command's peak memory and time fitted on the measured
    sizes and extrapolated (an extrapolation, not a measurement) to the machine's memory."""
    from scipy.optimize import nnls  # costs never shrink with size: non-negative terms

    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    sizes = sorted(measured)
    if len(sizes) < 2:
        return
    k = np.array(sizes, dtype=float)
    # peak = a + b K N (+ c K^2 with three sizes or more: the pairs' accumulators and rows)
    design = np.column_stack([np.ones_like(k), k * n_items] + ([k**2] if len(k) >= 3 else []))
    print(
        f"\n[curve] where this machine ({memory / 1024**3:.0f} GiB) ends, at {n_items:,} items:"
        f" non-negative least squares on the {len(sizes)} measured sizes "
        f"({', '.join(map(str, sizes))} models), extrapolated"
    )
    grid = np.unique(np.geomspace(max(sizes), 1e6, 400).astype(int))
    for name in measured[sizes[0]]:
        peak = np.array([measured[s][name]["peak"] for s in sizes], dtype=float)
        seconds = np.array([measured[s][name]["seconds"] for s in sizes], dtype=float)
        coef_p, coef_t = nnls(design, peak)[0], nnls(design, seconds)[0]
        rows = np.column_stack(
            [np.ones(grid.size), grid * float(n_items)]
            + ([grid.astype(float) ** 2] if len(k) >= 3 else [])
        )
        over = np.flatnonzero(rows @ coef_p > memory)
        if over.size:
            end = int(grid[over[0]])
            print(
                f"  {name:<15} stops fitting near {end:,} models ({end * n_items:,.0f} scores), "
                f"where it would take ~{float(rows[over[0]] @ coef_t):,.0f} s"
            )
        else:
            print(
                f"  {name:<15} fits up to 1,000,000 models by this fit "
                f"(peak grows {coef_p[1] * n_items / 1024**2:.2f} MiB per model)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--big-models", type=int, default=5000)
    parser.add_argument(
        "--sizes",
        help="Models per measured size in (u), comma-separated (default: "
        "MODELS/4, MODELS/2, MODELS, 2 x MODELS).",
    )
    parser.add_argument("--rounds", type=int, default=2, help="Interleaved rounds in (u).")
    parser.add_argument("--only", choices=("users", "incremental", "scale", "ingestion", "oll"))
    parser.add_argument("--oll-models", type=int, default=300, help="Details files for (d).")
    parser.add_argument("--quick", action="store_true", help="Small sizes: a smoke run.")
    parser.add_argument("--dir", help="Where to write the stores (default: a temp dir).")
    args = parser.parse_args()
    if args.quick:
        args.models, args.items, args.big_models, args.oll_models = 100, 1000, 200, 10
        args.rounds = 1
    sizes = (
        [int(x) for x in args.sizes.split(",")]
        if args.sizes
        else sorted(
            {max(args.models // 4, 2), max(args.models // 2, 2), args.models, 2 * args.models}
        )
    )
    folder = Path(args.dir or tempfile.mkdtemp(prefix="evalgap-store-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if args.only in (None, "users"):
            curve(users(sizes, args.items, args.rounds, folder), args.items)
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
