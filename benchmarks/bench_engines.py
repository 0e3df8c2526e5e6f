"""Dask (dask.distributed) against Ray on this machine, for the work a distributed audit does.

    python benchmarks/bench_engines.py            # both engines, 3 interleaved rounds
    python benchmarks/bench_engines.py --rounds 1

Each round starts, in a fresh process per engine (alternating which goes first), a local
cluster of 2 worker processes with one thread each, and measures:

* start-up: wall time and CPU seconds of the whole process tree (the driver and every
  process the engine started) from before the import to a cluster that answers a task;
* overhead per task: 500 tasks that return their argument, submitted at once and gathered
  (wall and tree CPU per task);
* reduction: 16 blocks of (500, 500) int64 partial sums made on the workers and summed
  into one (the shape of an audit's per-block pair counts), wall and tree CPU;
* memory: the resident memory of the whole process tree once the cluster is up.

Neither engine's threads are counted against it: CPU is user + system time of every process
of the tree (psutil), read before the cluster shuts down. The machine's load is printed.
Both engines must be importable (``pip install "dask[distributed]" ray``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import json, os, sys, time
import psutil

def tree():
    me = psutil.Process()
    procs = [me, *me.children(recursive=True)]
    cpu = rss = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            cpu += t.user + t.system + t.children_user + t.children_system
            rss += p.memory_info().rss
        except psutil.Error:
            pass
    return cpu, rss

def ident(x):
    return x

def block(seed):
    import numpy as np
    return np.random.default_rng(seed).integers(0, 1000, (500, 500), dtype=np.int64)

engine = sys.argv[1]
out = {}
c0, w0 = tree()[0], time.perf_counter()
if engine == "dask":
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    client.submit(ident, 1).result()
    def run_tasks(n):
        return client.gather(client.map(ident, range(n), pure=False))
    def reduce_blocks(n):
        parts = client.map(block, range(n), pure=False)
        while len(parts) > 1:  # pairwise tree sum on the workers
            parts = [client.submit(lambda a, b: a + b, parts[i], parts[i + 1])
                     if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
        return parts[0].result()
    def stop():
        client.close(); cluster.close()
else:
    import ray
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    r_ident = ray.remote(num_cpus=1)(ident)
    r_block = ray.remote(num_cpus=1)(block)
    r_add = ray.remote(num_cpus=1)(lambda a, b: a + b)
    ray.get(r_ident.remote(1))
    def run_tasks(n):
        return ray.get([r_ident.remote(i) for i in range(n)])
    def reduce_blocks(n):
        parts = [r_block.remote(i) for i in range(n)]
        while len(parts) > 1:
            parts = [r_add.remote(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                     for i in range(0, len(parts), 2)]
        return ray.get(parts[0])
    def stop():
        ray.shutdown()
c1, w1 = tree()[0], time.perf_counter()
out["startup_wall"], out["startup_cpu"] = w1 - w0, c1 - c0
out["rss_mib"] = tree()[1] / 2**20
run_tasks(20)  # warm
c0, w0 = tree()[0], time.perf_counter()
run_tasks(500)
c1, w1 = tree()[0], time.perf_counter()
out["task_ms_wall"], out["task_ms_cpu"] = (w1 - w0) / 500 * 1e3, (c1 - c0) / 500 * 1e3
c0, w0 = tree()[0], time.perf_counter()
total = reduce_blocks(16)
c1, w1 = tree()[0], time.perf_counter()
import numpy as np
expect = sum(block(s) for s in range(16))
assert np.array_equal(total, expect)
out["reduce_wall"], out["reduce_cpu"] = w1 - w0, c1 - c0
stop()
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip
    print(f"load average before: {os.getloadavg()}")
    rows: dict[str, list[dict]] = {"dask": [], "ray": []}
    for r in range(args.rounds):
        for engine in ("dask", "ray") if r % 2 == 0 else ("ray", "dask"):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, engine], capture_output=True, text=True, env=env,
                timeout=600,
            )  # fmt: skip
            if done.returncode:
                sys.exit(f"{engine} failed: {done.stderr[-2000:]}")
            rows[engine].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(engine, rows[engine][-1], flush=True)
    print(f"load average after: {os.getloadavg()}")
    keys = list(rows["dask"][0])
    print(f"{'median':>16} " + " ".join(f"{k:>13}" for k in keys))
    for engine, measured in rows.items():
        med = [sorted(m[k] for m in measured)[len(measured) // 2] for k in keys]
        print(f"{engine:>16} " + " ".join(f"{v:13.3f}" for v in med))
    time.sleep(0)


if __name__ == "__main__":
    main()
