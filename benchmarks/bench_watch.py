"""Following a growing lm-eval log: does a look cost the new bytes, or the whole log?

    python benchmarks/bench_watch.py                 # the log grows to 1 GiB
    python benchmarks/bench_watch.py --gib 0.05      # a smoke run

Two models' ``samples_<task>_<stamp>.jsonl`` files grow by the same batch of records (each
record carries a long response, as lm-eval logs do) between looks. Each look reads the new
lines (``LogFollower.poll``) and feeds them to a ``Monitor`` watching the pair. The table
prints the time of a look against the size of the log so far: flat means O(new bytes).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from evalgap.io.follow import LogFollower
from evalgap.jobs.watch import Monitor

STAMP = "2026-01-01T00-00-00"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="Final size of the logs.")
    parser.add_argument("--batch", type=int, default=2000, help="Records per model per look.")
    parser.add_argument("--padding", type=int, default=8192, help="Bytes of response per record.")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="evalgap-watch-"))
    rng = np.random.default_rng(0)
    filler = "x" * args.padding
    paths = {m: root / m / f"samples_bench_{STAMP}.jsonl" for m in ("base", "candidate")}
    for path in paths.values():
        path.parent.mkdir(parents=True)
    follower = LogFollower([root])
    monitor = Monitor(targets="pair", pair=("base", "candidate"))
    size, item, rows = 0, 0, []
    print(f"{'log MiB':>9} {'new MiB':>8} {'look s':>8} {'read MiB/s':>11}")
    try:
        while size < args.gib * 2**30:
            before = size
            for model, accuracy in (("base", 0.6), ("candidate", 0.6)):
                with open(paths[model], "a") as out:
                    for k in range(args.batch):
                        record = {
                            "doc_id": item + k,
                            "acc": float(rng.random() < accuracy),
                            "resps": filler,
                            "metrics": ["acc"],
                        }
                        line = json.dumps(record) + "\n"
                        out.write(line)
                        size += len(line)
            item += args.batch
            start = time.perf_counter()
            for model, task, doc, score, _ in follower.poll():
                monitor.update(model, doc, score, task=task)
            seconds = time.perf_counter() - start
            new = (size - before) / 2**20
            rows.append((size / 2**20, seconds))
            print(f"{size / 2**20:9.0f} {new:8.1f} {seconds:8.3f} {new / seconds:11.0f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    first = np.median([s for _, s in rows[:3]])
    last = np.median([s for _, s in rows[-3:]])
    print(f"look time, last three / first three looks: {last / first:.2f} (1.0 = flat)")


if __name__ == "__main__":
    main()
