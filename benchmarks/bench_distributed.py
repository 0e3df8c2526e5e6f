"""The distributed audit's pair sums: blocks measured on this machine, the overhead of a
2-worker Dask cluster against one machine, and a projection to larger boards.

    python benchmarks/bench_distributed.py                 # blocks, then 2,000 x 20,000
    python benchmarks/bench_distributed.py --quick         # a small board (a smoke run)
    python benchmarks/bench_distributed.py --only missing  # (m) alone; --only memory: (k)

(a) blocks: :func:`evalgap.engine.sums.block_sums` of one item block against two model
    blocks (the unit of work a worker does: read two int8 shards, one float32 product
    ``X_a X_b'`` where every item was scored -- four with missing scores -- int64 out), CPU
    seconds per call at a few block shapes of a complete board, with the bytes read and
    returned and the multiply-adds.
(b) overhead: a K x N binary board (every model scored every item) in Parquet shards, its
    pair counts computed, in interleaved rounds,
      - one machine, in memory: the floor, one float32 product ``X'X`` of the whole matrix
        (what the single-machine audit's pair counts cost; the counts of a complete board
        follow from it and the column sums);
      - one machine, local engine: every block of the shards in this process;
      - Dask: a LocalCluster of 2 worker processes (1 thread each) summing the same blocks.
    CPU is user + system time of the whole process tree (the cluster's processes too);
    every run's counts are checked equal to the floor's. The cluster's start-up is timed
    apart (it is paid once per cluster, not per audit).
(m) missing cells: a K x N board with 10% of its cells unscored (``--missing-models``,
    default 1,000 x 20,000), in interleaved rounds,
      - the floor, in memory: the three float32 products ``O'O, X'O, X'X`` of the whole
        matrices (the pair counts on the items both scored);
      - one machine, in memory: the floor plus the board's order as the single-machine
        audit takes it (:func:`evalgap.jobs.audit.board_order`: the paired gaps and the
        additive fit of the items);
      - the local engine and the 2-worker Dask cluster: ``board_sums`` of the shards with
        the fit's sums (a second pass: the models scoring each item, then the weighted
        products) and the same order from them.
    Every run's counts are checked equal to the floor's and its order to one machine's.
(k) the client's memory: the peak resident memory of a process assembling the (K, K) totals
    of K models (local engine, 200 items), against the 24 K^2 bytes the engine's bound
    counts, which the refusal past the machine's available memory uses.
(r) rank sets: a K x N board (``--rank-models``, default 1,000 x 20,000, B = 1,000, where the
    bootstrap applies), ``stats.ranks.rank_sets`` on the matrix in memory against
    ``evalgap.ranks`` of its shards on the 2-worker cluster (the sums, the projection that
    orders the factor, then the same stepdown), interleaved; the sets are checked equal.
(c) projection: from the measured block cost (CPU per Ka x Kb x n multiply-adds) and the
    bytes per partial, the CPU, wall time on W workers and network of 100,000 models x
    100,000 items; stated as a projection from the blocks measured here.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
import psutil  # noqa: E402

from evalgap.engine import board_sums  # noqa: E402
from evalgap.engine.sums import block_sums  # noqa: E402
from evalgap.io.shards import write_shards  # noqa: E402


def tree_cpu() -> float:
    """User + system CPU seconds of this process and every live child."""
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def board(k: int, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((k, n), dtype=np.float32) < rng.uniform(0.3, 0.9, k)[:, None]).astype(
        np.int8
    )


def blocks(folder: str, shapes: list[tuple[int, int]], repeats: int) -> list[dict]:
    """(a): CPU per block_sums call at each (items, models) block shape."""
    rows = []
    for n, m in shapes:
        codes = board(2 * m, n, seed=n + m)
        path = os.path.join(folder, f"blk-{n}-{m}")
        (t,) = write_shards(path, [("t", [f"m{i}" for i in range(2 * m)], codes)],
                            shard_items=n, shard_models=m)  # fmt: skip
        a, b = t.shards[0]
        names_a, names_b = t.models[:m], t.models[m:]
        block_sums(a, names_a, b, names_b)  # warm
        times = []
        for _ in range(repeats):
            c0 = time.process_time()
            block_sums(a, names_a, b, names_b)
            times.append(time.process_time() - c0)
        cpu = float(np.median(times))
        madds = m * m * n  # one (m x n)(n x m) product: a complete board
        rows.append(
            {
                "items": n, "models": m, "cpu_s": cpu, "gmadd_per_s": madds / cpu / 1e9,
                "read_mb": 2 * m * n / 1e6, "partial_mb": 4 * m * m * 8 / 1e6,
            }
        )  # fmt: skip
        print(
            f"  block {n:>6} items x {m:>5} + {m:>5} models: {cpu:7.3f} CPU s, "
            f"{madds / cpu / 1e9:6.2f} G multiply-adds/s, reads {2 * m * n / 1e6:6.1f} MB "
            f"(int8), returns {4 * m * m * 8 / 1e6:6.1f} MB (4 int64 arrays)",
            flush=True,
        )
    return rows


def overhead(folder: str, k: int, n: int, shard_items: int, shard_models: int, rounds: int):
    """(b): the floor, the local engine and a 2-worker Dask cluster, interleaved."""
    from distributed import Client, LocalCluster

    codes = board(k, n, seed=1)
    path = os.path.join(folder, "board")
    write_shards(path, [("t", [f"m{i:05d}" for i in range(k)], codes)],
                 shard_items=shard_items, shard_models=shard_models)  # fmt: skip
    c0, w0 = tree_cpu(), time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")  # fmt: skip
    client = Client(cluster)
    print(f"  cluster start-up: {time.perf_counter() - w0:.2f} s wall, "
          f"{tree_cpu() - c0:.2f} CPU s (paid once per cluster)")  # fmt: skip
    measured: dict[str, list[tuple[float, float]]] = {"floor": [], "local": [], "dask": []}

    def floor() -> np.ndarray:
        x = codes.astype(np.float32)
        return (x @ x.T).round().astype(np.int64)

    def local() -> np.ndarray:
        return board_sums(path)[0].both_correct

    def dask() -> np.ndarray:
        return board_sums(path, engine="dask", scheduler=cluster.scheduler_address)[0].both_correct

    runs = {"floor": floor, "local": local, "dask": dask}
    c0, w0 = tree_cpu(), time.perf_counter()
    expect = floor()
    assert np.array_equal(dask(), expect)  # the workers import evalgap and pyarrow once
    print(f"  first audit on the cluster (workers' imports): {time.perf_counter() - w0:.2f} s "
          f"wall, {tree_cpu() - c0:.2f} CPU s")  # fmt: skip
    for r in range(rounds):
        order = list(runs) if r % 2 == 0 else list(reversed(runs))
        for name in order:
            c0, w0 = tree_cpu(), time.perf_counter()
            got = runs[name]()
            measured[name].append((tree_cpu() - c0, time.perf_counter() - w0))
            assert np.array_equal(got, expect), f"{name}: counts differ"
        print(f"  round {r + 1}: " + ", ".join(
            f"{name} {measured[name][-1][0]:.2f} CPU s / {measured[name][-1][1]:.2f} s"
            for name in runs))  # fmt: skip
    client.close()
    cluster.close()
    med = {name: tuple(float(np.median([v[i] for v in vals])) for i in (0, 1))
           for name, vals in measured.items()}  # fmt: skip
    blocks_run = (n // shard_items) * (k // shard_models) * (k // shard_models + 1) // 2
    print(f"  {k:,} models x {n:,} items, shards of {shard_items:,} items x {shard_models:,} "
          f"models ({blocks_run} block products), median of {rounds} rounds, counts equal in "
          "every run:")  # fmt: skip
    for name, (cpu, wall) in med.items():
        print(f"    {name:>5}: {cpu:6.2f} CPU s, {wall:6.2f} s wall, "
              f"{cpu / max(med['floor'][0], 0.01):5.2f}x the floor's CPU, "
              f"{wall / max(med['floor'][1], 0.01):5.2f}x its wall")  # fmt: skip
    return med


def missing_overhead(folder: str, k: int, n: int, shard_items: int, shard_models: int,
                     rounds: int) -> None:  # fmt: skip
    """(m): a board with missing cells: the floor, one machine's counts and order, the local
    engine and a 2-worker Dask cluster, interleaved."""
    from distributed import LocalCluster

    from evalgap._scores import TaskScores
    from evalgap.jobs.audit import board_order

    codes = board(k, n, seed=3)
    codes[np.random.default_rng(4).random((k, n), dtype=np.float32) < 0.1] = -1
    path = os.path.join(folder, "missing")
    models = np.array([f"m{i:05d}" for i in range(k)], dtype=object)
    write_shards(path, [("t", list(models), codes)], shard_items=shard_items,
                 shard_models=shard_models)  # fmt: skip
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")  # fmt: skip

    def floor() -> tuple[np.ndarray, None]:
        x, o = (codes == 1).astype(np.float32), (codes >= 0).astype(np.float32)
        counts = [(a @ b.T).round().astype(np.int64) for a, b in ((o, o), (x, o), (x, x))]
        return counts[2], None

    def single() -> tuple[np.ndarray, np.ndarray]:
        both, _ = floor()
        scores = np.where(codes >= 0, codes, np.nan).T
        task = TaskScores(task="t", item_ids=np.arange(n), scores=scores,
                          run_counts=(codes >= 0).T.astype(np.int64), clusters=None)  # fmt: skip
        order, _ = board_order(task, models, 0.05, False, [])
        return both, models[order]

    def engine(**where: str) -> tuple[np.ndarray, np.ndarray]:
        sums = board_sums(path, **where)[0]
        kept, b = sums.board()
        return sums.both_correct, models[kept[b.order]]

    runs = {
        "floor": floor, "one machine": single, "local": engine,
        "dask": lambda: engine(engine="dask", scheduler=cluster.scheduler_address),
    }  # fmt: skip
    expect, order = single()
    assert np.array_equal(runs["dask"]()[1], order)  # warm: the workers' imports
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for r in range(rounds):
        for name in list(runs) if r % 2 == 0 else list(reversed(runs)):
            c0, w0 = tree_cpu(), time.perf_counter()
            got, listed = runs[name]()
            measured[name].append((tree_cpu() - c0, time.perf_counter() - w0))
            assert np.array_equal(got, expect), f"{name}: counts differ"
            assert listed is None or np.array_equal(listed, order), f"{name}: order differs"
    cluster.close()
    med = {name: [float(np.median([v[i] for v in vals])) for i in (0, 1)]
           for name, vals in measured.items()}  # fmt: skip
    print(f"  {k:,} models x {n:,} items, 10% of the cells missing, shards of "
          f"{shard_items:,} items x {shard_models:,} models, median of {rounds} rounds, the "
          "counts and the order equal in every run:")  # fmt: skip
    for name, (cpu, wall) in med.items():
        print(f"    {name:>11}: {cpu:6.2f} CPU s, {wall:6.2f} s wall, "
              f"{cpu / max(med['floor'][0], 0.01):5.2f}x the floor's CPU, "
              f"{cpu / max(med['one machine'][0], 0.01):5.2f}x one machine's")  # fmt: skip


def client_memory(folder: str, sizes: list[int]) -> None:
    """(k): the peak resident memory of a process summing the shards of K models."""
    import subprocess
    import sys

    for k in sizes:
        path = os.path.join(folder, f"client-{k}")
        write_shards(path, [("t", [f"m{i:06d}" for i in range(k)], board(k, 200, seed=k))],
                     shard_items=200, shard_models=min(k, 2000))  # fmt: skip
        # this process's resident memory after the imports and its high-water mark after
        # the sums (/proc: ru_maxrss would count the parent's pages before the exec)
        script = (
            "import sys\n"
            "def status(key):\n"
            "    lines = open('/proc/self/status').read().splitlines()\n"
            "    return next(int(l.split()[1]) for l in lines if l.startswith(key))\n"
            "from evalgap.engine import board_sums\n"
            "import pyarrow.parquet\n"
            "before = status('VmRSS:')\n"
            "board_sums(sys.argv[1])\n"
            "print(before, status('VmHWM:'))\n"
        )
        done = subprocess.run([sys.executable, "-c", script, path], capture_output=True,
                              text=True, check=True)  # fmt: skip
        before, peak = (int(v) * 1024 for v in done.stdout.split())
        print(f"  {k:>6,} models: peak {peak / 2**20:8.1f} MiB, {(peak - before) / 2**20:8.1f} "
              f"MiB over the imports; 24 K^2 = {24 * k * k / 2**20:8.1f} MiB, ratio "
              f"{(peak - before) / (24 * k * k):.2f}")  # fmt: skip


def fit_memory(sizes: list[int]) -> None:
    """(k): the client's peak memory and CPU solving the additive fit of K models from its
    sums (the board's order where scores are missing), over the (K, K) sums it is given."""
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "import numpy as np\n"
        "from evalgap.stats.board import additive_scores_from_sums\n"
        "def status(key):\n"
        "    lines = open('/proc/self/status').read().splitlines()\n"
        "    return next(int(l.split()[1]) for l in lines if l.startswith(key))\n"
        "k = int(sys.argv[1])\n"
        "rng = np.random.default_rng(0)\n"
        "o = (rng.random((k, 400)) < 0.9).astype(float)\n"
        "m = o.sum(axis=0)\n"
        "weighted = (o / m) @ o.T\n"
        "before = status('VmRSS:')\n"
        "c0 = time.process_time()\n"
        "additive_scores_from_sums(o.sum(axis=1), weighted, o @ (1 / m), o.sum(axis=1) / 2,\n"
        "                          o @ (0.5 * np.ones(400)), 200.0, 400)\n"
        "print(before, status('VmHWM:'), time.process_time() - c0)\n"
    )
    for k in sizes:
        done = subprocess.run([sys.executable, "-c", script, str(k)], capture_output=True,
                              text=True, check=True)  # fmt: skip
        before, peak, cpu = done.stdout.split()
        extra = (int(peak) - int(before)) * 1024
        print(f"  the fit of {k:>6,} models: {extra / 2**20:8.1f} MiB over its (K, K) sums "
              f"({extra / (k * k):.1f} bytes per pair), {float(cpu):6.2f} CPU s")  # fmt: skip


def rank_overhead(folder: str, k: int, n: int, shard_items: int, shard_models: int,
                  rounds: int, replicates: int) -> None:  # fmt: skip
    """(r): rank sets in memory against the ranks of the shards on a 2-worker cluster."""
    from distributed import LocalCluster

    import evalgap
    from evalgap.stats.ranks import rank_sets

    codes = board(k, n, seed=2)
    path = os.path.join(folder, "ranks")
    models = [f"m{i:05d}" for i in range(k)]
    write_shards(path, [("t", models, codes)], shard_items=shard_items,
                 shard_models=shard_models)  # fmt: skip
    x = codes.T.astype(float)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")  # fmt: skip
    from evalgap.stats.resample import child_seed

    def memory() -> np.ndarray:
        sets = rank_sets(x, n_bootstrap=replicates, seed=child_seed(0, "ranks"), marginal=True)
        return np.stack([sets.rank_low, sets.rank_high])

    def dask() -> np.ndarray:
        r = evalgap.ranks(path, n_bootstrap=replicates, seed=0, engine="dask",
                          scheduler=cluster.scheduler_address).ranks  # fmt: skip
        by_model = r.set_index("model").loc[models]
        return np.stack([by_model["rank_low"].to_numpy(), by_model["rank_high"].to_numpy()])

    expect = memory()
    assert np.array_equal(dask(), expect)  # warm: the workers' imports
    measured: dict[str, list[tuple[float, float]]] = {"memory": [], "dask": []}
    runs = {"memory": memory, "dask": dask}
    for r in range(rounds):
        for name in list(runs) if r % 2 == 0 else list(reversed(runs)):
            c0, w0 = tree_cpu(), time.perf_counter()
            got = runs[name]()
            measured[name].append((tree_cpu() - c0, time.perf_counter() - w0))
            assert np.array_equal(got, expect), f"{name}: rank sets differ"
    cluster.close()
    med = {name: [float(np.median([v[i] for v in vals])) for i in (0, 1)]
           for name, vals in measured.items()}  # fmt: skip
    print(f"  rank sets, {k:,} models x {n:,} items, B = {replicates:,}, median of {rounds} "
          "rounds, the same sets in every run:")  # fmt: skip
    for name, (cpu, wall) in med.items():
        print(f"    {name:>6}: {cpu:6.2f} CPU s, {wall:6.2f} s wall, "
              f"{cpu / max(med['memory'][0], 0.01):5.2f}x in memory's CPU")  # fmt: skip


def projection(rows: list[dict], models: int, items: int, workers: list[int]) -> None:
    """(c): 100,000 x 100,000 from the largest measured block's rate."""
    best = max(rows, key=lambda r: r["items"] * r["models"])
    rate = best["gmadd_per_s"] * 1e9
    m, n = best["models"], best["items"]
    item_blocks, model_blocks = -(-items // n), -(-models // m)
    tasks = item_blocks * model_blocks * (model_blocks + 1) // 2
    cpu = tasks * m * m * n / rate
    partial = 4 * m * m * 8
    network = tasks * partial + tasks * 2 * m * n  # partials up the tree + shards read
    gathered = 3 * models * models * 8
    print(f"  from the {n:,} x {m:,} block ({best['gmadd_per_s']:.2f} G multiply-adds/s per "
          f"core): {models:,} models x {items:,} items = {tasks:,} block tasks, "
          f"{cpu / 3600:,.1f} CPU hours")  # fmt: skip
    print(f"    bytes: shards read {tasks * 2 * m * n / 1e12:.2f} TB (each item block read "
          f"{model_blocks} times), partials reduced {tasks * partial / 1e12:.2f} TB, the "
          f"totals {gathered / 1e9:,.0f} GB (3 int64 K x K arrays)")  # fmt: skip
    for w in workers:
        print(
            f"    on {w:>4} single-core workers: {cpu / w / 3600:8.2f} h of compute, "
            f"{network / w / 1.25e9 / 3600:6.2f} h of a 10 Gbit/s link per worker"
        )
    print(
        "    (a projection from the blocks measured here, not a run; the client holds the"
        " totals and the pair table, so at this size the totals must stay on the workers)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rank-models", type=int, default=1000)
    parser.add_argument("--missing-models", type=int, default=1000)
    parser.add_argument("--only", choices=["ranks", "missing", "memory"], default=None)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}, cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as folder:
        if args.only == "ranks":
            rank_overhead(folder, args.rank_models, 20000, 5000, 250, args.rounds, 1000)
            return
        if args.only == "missing":
            missing_overhead(folder, args.missing_models, 20000, 5000, 250, args.rounds)
            return
        if args.only == "memory":
            client_memory(folder, [2000, 4000, 8000])
            fit_memory([1000, 2000, 3000])
            return
        print("(a) blocks")
        shapes = [(2000, 100)] if args.quick else [(5000, 250), (5000, 500), (10000, 500),
                                                   (10000, 1000)]  # fmt: skip
        rows = blocks(folder, shapes, repeats=1 if args.quick else 3)
        print("(b) overhead against one machine")
        if args.quick:
            overhead(folder, 200, 4000, 1000, 100, 1)
        else:
            overhead(folder, 2000, 20000, 5000, 500, args.rounds)
        print("(m) missing cells against one machine")
        if args.quick:
            missing_overhead(folder, 40, 4000, 1000, 15, 1)
        else:
            missing_overhead(folder, args.missing_models, 20000, 5000, 250, args.rounds)
        print("(k) the client's memory")
        client_memory(folder, [500, 1000] if args.quick else [2000, 4000, 8000])
        fit_memory([200, 400] if args.quick else [1000, 2000, 3000])
        print("(r) rank sets against one machine")
        if args.quick:
            rank_overhead(folder, 20, 4000, 1000, 10, 1, 200)
        else:
            rank_overhead(folder, args.rank_models, 20000, 5000, 250, args.rounds, 1000)
        print("(c) projection")
        projection(rows, 100_000, 100_000, [2, 16, 64, 256])
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
