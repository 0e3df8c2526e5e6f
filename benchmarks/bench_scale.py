"""Leaderboard-scale loading: peak memory and time per phase of a long CSV, gzipped.

    python benchmarks/bench_scale.py                       # 1,000 models x 20,000 items
    python benchmarks/bench_scale.py --models 100 --items 2000   # a smoke run

Writes a long CSV (one row per model and item: 20 million rows for the default, ~57 MB
gzipped) and measures, each in a fresh child process so its peak resident memory is its own:

1. read: ``read_long_table`` (batched, categorical codes), target < 1.5 GB peak;
2. read + align: ``load_scores`` then ``align`` (the dense path);
3. the whole CLI ``evalgap audit --family all --json`` (output discarded), target < 4 GB
   peak, with the time of each phase;
4. the whole CLI ``evalgap ranks --json`` (rank sets, B = 1,000: what ``bench_ranks.py``
   times in memory, here from the file), with its CPU seconds beside the wall time.
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


def write_long_csv(path: Path, n_models: int, n_items: int, seed: int = 0) -> int:
    """Write a long CSV of binary scores with item difficulty and model ability; return bytes."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, n_items)
    ability = np.sort(rng.normal(0.0, 1.0, n_models))[::-1]
    items = [f"item-{i:06d}" for i in range(n_items)]
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as out:
        out.write("model,item_id,score\n")
        for m in range(n_models):
            p = 1 / (1 + np.exp(difficulty - ability[m]))
            correct = (rng.random(n_items) < p).astype(int)
            name = f"org/model-{m:04d}"
            lines = zip(items, correct.tolist(), strict=True)
            out.write("".join(f"{name},{it},{c}\n" for it, c in lines))
    return path.stat().st_size


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _read(path: str, queue) -> None:
    from evalgap.io.tables import read_long_table

    start = time.perf_counter()
    seen = []
    table = read_long_table(path, progress=lambda done, total: seen.append((done, total)))
    queue.put((time.perf_counter() - start, _peak(), len(table.frame), len(seen)))


def _read_align(path: str, queue) -> None:
    from evalgap._scores import align
    from evalgap.io.sources import load_scores

    start = time.perf_counter()
    table = load_scores(path)
    read = time.perf_counter() - start
    s = align(table.frame, notes=table.notes)
    queue.put((read, time.perf_counter() - start - read, _peak(), len(s.models), s.n_items))


def _audit(path: str, as_json: bool, queue) -> None:
    import contextlib
    import os

    import evalgap._scores as scores_module
    import evalgap.jobs.audit as audit_module
    from evalgap import cli
    from evalgap.io import tables

    marks: dict[str, list] = {}

    def timed(module, name, label):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                marks[label] = [time.perf_counter() - begin, _peak()]

        setattr(module, name, wrapper)

    timed(tables, "read_long_table", "read")
    timed(scores_module, "align", "align")
    timed(audit_module, "audit_scores", "audit")
    start = time.perf_counter()
    # The JSON goes where a user's redirect would send it, not into this process's memory.
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        argv = ["audit", "--scores", path, "--family", "all"] + (["--json"] if as_json else [])
        code = cli.main(argv)
    total = time.perf_counter() - start
    queue.put((code, total, marks, _peak()))


def _ranks(path: str, queue) -> None:
    import contextlib
    import os

    from evalgap import cli

    start, cpu = time.perf_counter(), time.process_time()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        code = cli.main(["ranks", "--scores", path, "--json"])
    queue.put((code, time.perf_counter() - start, time.process_time() - cpu, _peak()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--skip-audit", action="store_true", help="measure loading only")
    parser.add_argument("--skip-load", action="store_true", help="measure the commands only")
    parser.add_argument("--skip-ranks", action="store_true", help="leave out the ranks command")
    parser.add_argument(
        "--terminal", action="store_true", help="audit with the terminal report, not --json"
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="evalgap-scale-"))
    try:
        path = folder / "long.csv.gz"
        start = time.perf_counter()
        size = write_long_csv(path, args.models, args.items)
        rows = args.models * args.items
        print(
            f"wrote {args.models:,} models x {args.items:,} items = {rows:,} rows, "
            f"{size / 2**20:.0f} MiB gzipped, in {time.perf_counter() - start:.0f} s"
        )
        if not args.skip_load:
            seconds, peak, n_rows, calls = in_child(_read, str(path))
            print(
                f"1. read:          {seconds:6.1f} s  peak {peak / 2**30:5.2f} GiB   "
                f"target < 1.5 GB   ({n_rows:,} rows, {calls} progress updates)"
            )
            read, aligned, peak, n_models, n_items = in_child(_read_align, str(path))
            print(
                f"2. read + align:  {read + aligned:6.1f} s  peak {peak / 2**30:5.2f} GiB"
                f"   (read {read:.1f} s, align {aligned:.1f} s; {n_models:,} models, "
                f"{n_items:,} items)"
            )
        if not args.skip_audit:
            code, total, marks, peak = in_child(_audit, str(path), not args.terminal)
            phases = ", ".join(
                f"{k} {t:.1f} s (peak so far {p / 2**30:.2f} GiB)" for k, (t, p) in marks.items()
            )
            other = total - sum(t for t, _ in marks.values())
            report = "terminal" if args.terminal else "JSON"
            print(
                f"3. audit --family all{'' if args.terminal else ' --json'}: {total:6.1f} s  "
                f"peak {peak / 2**30:5.2f} GiB   target < 4 GB   (exit {code}; {phases}; "
                f"{report} report and other {other:.1f} s)"
            )
        if not args.skip_ranks:
            code, total, cpu, peak = in_child(_ranks, str(path))
            print(
                f"4. ranks --json:  {total:6.1f} s  peak {peak / 2**30:5.2f} GiB   "
                f"(exit {code}; {cpu:.1f} CPU s; rank sets with B = 1,000 from the file)"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
