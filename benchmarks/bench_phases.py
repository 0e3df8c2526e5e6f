"""File to verdict, phase by phase: where an all-pairs audit spends its CPU time and memory.

    python benchmarks/bench_phases.py                          # K in 100 300 1000, N in 1k 20k
    python benchmarks/bench_phases.py --models 1000 --items 100000 --formats wide
    python benchmarks/bench_phases.py --models 100 --items 1000    # a smoke run

For each K models x N items and each input format (a long CSV, gzipped, one row per model and
item; a wide Parquet file, one column per model), one fresh process runs, in order:

    import   import evalgap and its libraries
    read     the long CSV: load_scores (the file to the long layout); the wide Parquet file:
             the board as the command reads it (``scores_of`` with ``layout="wide"``: the
             file straight into the aligned matrix, no long layout between)
    align    the long CSV: align (the long layout to per-task score matrices); wide: 0 (in
             read)
    math     audit(family="all") with the bootstraps off: every pair's counts, tests, N*,
             MDE, q, six procedures and the anytime-valid boundary
    json     the full --json text (every pair)
    parquet  the per-pair table as the command writes it (--output FILE.parquet: the Arrow
             table of ``to_arrow``) plus the JSON summary

and prints the CPU seconds of each phase and the peak resident memory after it, then the
ratio of the math to a float32 K x N by N x K matrix product on the same matrix (the floor
of the all-pairs counts), and the share of the math spent on the anytime-valid boundary.
"""

from __future__ import annotations

import argparse
import gzip
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from _child import in_child


def scores_matrix(n_models: int, n_items: int, seed: int = 0) -> np.ndarray:
    """Binary scores (items x models) with item difficulty and model ability."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, n_items)
    ability = np.sort(rng.normal(0.0, 1.0, n_models))[::-1]
    p = 1 / (1 + np.exp(difficulty[:, None] - ability[None, :]))
    return (rng.random((n_items, n_models)) < p).astype(np.int8)


def write_inputs(folder: Path, n_models: int, n_items: int, formats) -> dict:
    import pandas as pd

    x = scores_matrix(n_models, n_items)
    items = [f"item-{i:06d}" for i in range(n_items)]
    models = [f"org/model-{m:04d}" for m in range(n_models)]
    paths = {}
    if "wide" in formats:
        frame = pd.DataFrame(x, columns=models)
        frame.insert(0, "item_id", items)
        paths["wide"] = folder / "wide.parquet"
        frame.to_parquet(paths["wide"], index=False)
    if "long" in formats:
        paths["long"] = folder / "long.csv.gz"
        with gzip.open(paths["long"], "wt", encoding="utf-8", compresslevel=1) as out:
            out.write("model,item_id,score\n")
            for m, name in enumerate(models):
                cells = zip(items, x[:, m].tolist(), strict=True)
                out.write("".join(f"{name},{it},{c}\n" for it, c in cells))
    return paths


def _phases(path: str, layout: str, folder: str, queue) -> None:
    def mark(name):
        now = time.process_time()
        out.append((name, now - mark.last, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
        mark.last = now

    out: list = []
    mark.last = time.process_time()
    import evalgap
    from evalgap.io._write import write_table
    from evalgap.io.options import LoadOptions
    from evalgap.jobs._inputs import scores_of
    from evalgap.report.json_output import to_json
    from evalgap.stats.sequential import boundary

    mark("import")
    if layout == "wide":  # as audit --layout wide reads it: the file into the matrix
        score_set = scores_of([path], options=LoadOptions(layout=layout))
        mark("read")
        mark("align")
    else:
        long = evalgap.load_scores(path, LoadOptions(layout=layout))
        mark("read")
        score_set = scores_of(long)
        del long
        mark("align")
    result = evalgap.audit(
        score_set, family="all", n_bootstrap=0, n_bootstrap_required_n=0, n_cluster_bootstrap=0
    )
    mark("math")
    text = to_json(result)
    size = len(text)
    del text
    mark("json")
    write_table(result.to_arrow(), Path(folder) / "pairs.parquet")
    to_json(result.to_dict(pairs=False))
    mark("parquet")
    x = score_set.tasks[0].scores.astype(np.float32)
    start = time.process_time()
    x.T @ x
    floor = time.process_time() - start
    pairs = result.pairs
    start = time.process_time()
    boundary(pairs.a_only + pairs.b_only)
    bound = time.process_time() - start
    queue.put((out, floor, bound, len(pairs), size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--items", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--formats", nargs="+", default=["long", "wide"])
    args = parser.parse_args()
    print(
        f"{'K':>5} {'N':>7} {'input':<5} {'pairs':>8}  "
        + "  ".join(f"{p:>8}" for p in ("import", "read", "align", "math", "json", "parquet"))
        + "   peak GiB  math/matmul  boundary/math  JSON MB"
    )
    for n_models in args.models:
        for n_items in args.items:
            folder = Path(tempfile.mkdtemp(prefix="evalgap-phases-"))
            try:
                paths = write_inputs(folder, n_models, n_items, args.formats)
                for fmt, path in paths.items():
                    layout = "wide" if fmt == "wide" else "long"
                    phases, floor, bound, pairs, size = in_child(
                        _phases, str(path), layout, str(folder)
                    )
                    cpu = {name: seconds for name, seconds, _ in phases}
                    peak = max(rss for _, _, rss in phases) * 1024 / 2**30
                    print(
                        f"{n_models:>5} {n_items:>7} {fmt:<5} {pairs:>8}  "
                        + "  ".join(f"{cpu[p]:8.2f}" for p in cpu)
                        + f"   {peak:8.2f}  {cpu['math'] / max(floor, 1e-9):11.1f}  "
                        f"{bound / max(cpu['math'], 1e-9):13.1%}  {size / 1e6:7.1f}"
                    )
            finally:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
