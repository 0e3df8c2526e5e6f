"""Audit benchmark: all pairs of a large synthetic leaderboard, beside a naive per-pair loop;
all pairs of MMLU-Pro beside a statsmodels loop.

    python benchmarks/bench_audit.py                    # K = 1,000 models, N = 20,000 items
    python benchmarks/bench_audit.py --models 200       # a smaller smoke run
    python benchmarks/bench_audit.py --part small       # MMLU-Pro beside statsmodels alone
    python benchmarks/bench_audit.py --part command     # the commands beside floor and peer
    python benchmarks/bench_audit.py --part command --models 200 --items 2000 --rounds 3
    python benchmarks/bench_audit.py --part command --against 50349da   # beside an earlier version

Small board (``--part small``; skipped with a message without statsmodels or the data in
``../shared/data/mmlu_pro``): ``evalgap.audit(frame, family="all")`` on MMLU-Pro (29 models,
12,032 questions, 406 pairs, the frame read once) beside what a user would write with
statsmodels: the frame pivoted to items x models, then per pair the 2x2 table on the items
both models answered, ``mcnemar(table, exact=True)``, and Holm over the 406 p-values
(``multipletests``). Both sides are imported and run once before timing; then interleaved
rounds (the order alternating), medians and their ratio: the audit as called, the audit
with every per-pair column read (``to_dict()``: its lazy bootstrap columns computed), the
audit without rank sets, and both sides end to end from the file (``evalgap.audit(path)``
against ``pandas.read_csv`` + the loop). The one-minute load average is printed beside.
On a loaded two-core machine OpenBLAS's threads wait on each other in the audit's matrix
products (rank sets, cluster sums): ``--blas-threads 1`` runs the child with one BLAS
thread, to tell that wait from the work.

The command (``--part command``): what users run, each side in a fresh process, CPU seconds
(user + system, from the children's resource usage), interleaved rounds with the order
alternating, medians and ratios, the load average before and after:

* ``evalgap audit --scores FILE --family all --output pairs.parquet --json`` on a generated
  K x N binary board (a wide Parquet file, ``--layout wide``, and the same board as a long
  CSV, gzipped) beside its floor, a float32 ``X^T X`` on the same matrix (the all-pairs
  counts; only the product is timed), target <= 10x; beside the long CSV, decompressing it
  alone (Python's gzip in 1 MiB reads) and pyarrow's ``read_csv`` of it on one thread, what
  no reader of a gzipped long CSV avoids;
* ``evalgap audit --scores mmlu_pro_long.csv.gz --family all --json`` (and the default
  family) beside a plain script reading the same file with pandas and running the
  statsmodels exact-McNemar loop and Holm (:func:`statsmodels_holm`), target <= 1.5x.

The vectorized audit computes, for all K(K-1)/2 pairs (~500k), every statistic of the core
(2x2 counts by one matrix product, McNemar chi-square / exact / mid-p, N*, q, the e-process
boundary) and the fixed-n, Bonferroni, Sidak, Holm, BH and anytime-valid verdicts (target
< 20 s, peak memory < 4 GB). The naive loop computes the same per pair with scipy, one pair
at a time, on a subset; the ratio compares time per pair. Each side runs in its own process
so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _child import cpu_run, in_child, installed_env

MMLU_PRO = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mmlu_pro"


def leaderboard(n_models: int, n_items: int, seed: int = 0) -> np.ndarray:
    """Binary scores (items x models) from a latent-ability model: correlated, realistic."""
    rng = np.random.default_rng(seed)
    ability = np.sort(rng.normal(0, 1, n_models))[::-1]
    difficulty = rng.normal(0, 1.5, n_items)
    logits = ability[None, :] - difficulty[:, None] + rng.normal(0, 1, (n_items, n_models))
    return (logits > 0).astype(np.float64)


def score_set(scores: np.ndarray):
    from evalgap._scores import AlignmentReport, ModelAlignment, ScoreSet, TaskScores

    n, k = scores.shape
    models = tuple(f"model-{j:04d}" for j in range(k))
    means = scores.mean(axis=0)
    entries = tuple(
        ModelAlignment(m, "all", n, n, n, 0, 0, 0, 0, 1, float(means[j]))
        for j, m in enumerate(models)
    )
    task = TaskScores("all", np.arange(n).astype(str), scores, np.ones_like(scores, np.int64), None)
    return ScoreSet(models, (task,), AlignmentReport(entries, {"all": n}, {"all": n}))


def _vectorized(n_models, n_items, queue) -> None:
    from evalgap.jobs.audit import audit_scores

    data = score_set(leaderboard(n_models, n_items))
    start = time.perf_counter()
    result = audit_scores(
        data, family="all", n_bootstrap=0, n_bootstrap_required_n=0, use_clusters=False
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put((seconds, peak, len(result.pairs), dict(result.unresolved)))


def _naive(n_models, n_items, n_pairs, queue) -> None:
    from scipy import stats

    scores = leaderboard(n_models, n_items)
    rng = np.random.default_rng(1)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    start = time.perf_counter()
    for _ in range(n_pairs):
        i, j = rng.choice(n_models, 2, replace=False)
        a, b = scores[:, i], scores[:, j]
        only_a = int(np.sum((a == 1) & (b == 0)))
        only_b = int(np.sum((a == 0) & (b == 1)))
        n = only_a + only_b
        stats.chi2.sf((only_a - only_b) ** 2 / max(n, 1), 1)
        if n:
            stats.binomtest(only_a, n, 0.5)
        delta = (only_a - only_b) / n_items
        var = n / n_items - delta**2
        if delta:
            _ = z**2 * var / delta**2
    queue.put((time.perf_counter() - start) / n_pairs)


def statsmodels_holm(frame):
    """Exact McNemar per pair on the items both models answered, then Holm: the loop a user
    writes with statsmodels. Returns Holm's rejections and the p-values."""
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    wide = frame.pivot(index="question_id", columns="model", values="correct")
    x = wide.to_numpy(dtype=float)
    p_values = []
    for i in range(x.shape[1]):
        for j in range(i + 1, x.shape[1]):
            a, b = x[:, i], x[:, j]
            both = ~(np.isnan(a) | np.isnan(b))
            a, b = a[both] == 1, b[both] == 1
            table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
            p_values.append(mcnemar(table, exact=True).pvalue)
    first, second = np.triu_indices(x.shape[1], 1)  # the loop's order
    names = zip(wide.columns[first], wide.columns[second], strict=True)
    return multipletests(p_values, alpha=0.05, method="holm")[0], dict(
        zip(names, p_values, strict=True)
    )


def _small_board(rounds, queue) -> None:
    import pandas as pd

    import evalgap

    path = MMLU_PRO / "mmlu_pro_long.csv.gz"
    frame = pd.read_csv(path)
    sides = {
        "statsmodels loop": lambda: statsmodels_holm(frame),
        "audit": lambda: evalgap.audit(frame, family="all"),
        "audit + to_dict()": lambda: evalgap.audit(frame, family="all").to_dict(),
        "audit without rank sets": lambda: evalgap.audit(frame, family="all", n_rank_bootstrap=0),
        "statsmodels from the file": lambda: statsmodels_holm(pd.read_csv(path)),
        "audit from the file": lambda: evalgap.audit(path, family="all"),
    }
    first = {}
    for name, run in sides.items():  # imports, caches: not part of the rounds
        start = time.perf_counter()
        out = run()
        first[name] = time.perf_counter() - start
    result = evalgap.audit(frame, family="all")
    reject, p_values = statsmodels_holm(frame)
    table = result.to_frame()
    ours = {}
    for a, b, p in zip(table["model_a"], table["model_b"], table["p_exact"], strict=True):
        ours[a, b] = ours[b, a] = p
    agree = np.mean([ours[pair] == p for pair, p in p_values.items()])
    times = {name: [] for name in sides}
    names = list(sides)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            start = time.perf_counter()
            out = sides[name]()
            times[name].append(time.perf_counter() - start)
    del out
    medians = {name: statistics.median(t) for name, t in times.items()}
    queue.put((medians, first, len(table), int(reject.sum()), agree, os.getloadavg()[0]))


def small_board(rounds: int) -> None:
    try:
        import statsmodels  # noqa: F401
    except ImportError:
        print("small board: skipped, statsmodels is not installed (pip install statsmodels)")
        return
    if not (MMLU_PRO / "mmlu_pro_long.csv.gz").exists():
        print(f"small board: skipped, {MMLU_PRO / 'mmlu_pro_long.csv.gz'} is not present")
        return
    load_before = os.getloadavg()[0]
    medians, first, n_pairs, holm, agree, load = in_child(_small_board, rounds)
    floor = medians["statsmodels loop"]
    print(
        f"small board: MMLU-Pro, all {n_pairs} pairs, {rounds} interleaved rounds (medians; "
        f"load average {load_before:.2f} before, {load:.2f} after; BLAS threads "
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}); statsmodels: Holm rejects "
        f"{holm} pairs; its exact McNemar p-values equal evalgap's for {agree:.0%} of pairs"
    )
    for name, seconds in medians.items():
        base = floor if "file" not in name else medians["statsmodels from the file"]
        target = "   target <= 2x" if name == "audit" else ""
        print(
            f"   {name:26s} {seconds:6.3f} s   {seconds / base:5.2f}x statsmodels"
            f"   (first call {first[name]:5.2f} s){target}"
        )


HERE = Path(__file__).resolve().parent

# the peer, in its own process: pandas reads the file, statsmodels tests every pair, Holm
PEER = """
import sys
sys.path.insert(0, {here!r})
import pandas as pd
from bench_audit import statsmodels_holm
statsmodels_holm(pd.read_csv({path!r}))
"""


# the floor of the all-pairs counts in a fresh process: the float32 X^T X of the board's
# matrix, only the product timed (CPU seconds, user + system)
FLOOR = """
import resource, sys
sys.path.insert(0, {here!r})
import numpy as np
from bench_phases import scores_matrix
x = scores_matrix({models}, {items}).astype(np.float32)
before = resource.getrusage(resource.RUSAGE_SELF)
x.T @ x
after = resource.getrusage(resource.RUSAGE_SELF)
print(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
"""


# Decompress a gzipped file to nothing, in 1 MiB reads: the part of reading a gzipped long CSV
# that no parser can avoid.
GUNZIP = (
    "import gzip, sys\n"
    "with gzip.open(sys.argv[1], 'rb') as f:\n"
    "    while f.read(1 << 20):\n"
    "        pass\n"
)

# Parse it into an Arrow table on one thread, as the command's reader does: decompression and
# parsing, no alignment, no statistics.
ARROW_CSV = (
    "import sys, pyarrow as pa, pyarrow.csv as c\n"
    "pa.set_cpu_count(1)\n"
    "c.read_csv(sys.argv[1], read_options=c.ReadOptions(use_threads=False))\n"
)


def floor_seconds(n_models: int, n_items: int, threads: str) -> float:
    """CPU seconds of the floor's product on ``threads`` BLAS threads ("default": unset)."""
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(name, None) if threads == "default" else env.update({name: threads})
    code = FLOOR.format(here=str(HERE), models=n_models, items=n_items)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the floor failed: {done.stderr[-1000:]}")
    return float(done.stdout)


def interleaved(sides: dict, rounds: int, env: dict[str, str]) -> dict[str, list[float]]:
    """CPU seconds of each side per round, the order alternating, after one run of each
    (imports compiled and cached, as in an install). A side is a command line, or a
    ``(function, *args)`` that returns its own seconds."""

    def run(side) -> float:
        if isinstance(side, tuple):
            return float(side[0](*side[1:]))
        return cpu_run(side, env)[0]

    for side in sides.values():
        run(side)
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            times[name].append(run(sides[name]))
    return times


def _command_seconds(argv: list[str], env: dict[str, str]) -> float:
    return cpu_run(argv, env)[0]


def command_board(
    n_models: int, n_items: int, rounds: int, formats: list[str], against: str | None = None
) -> None:
    """The audit command on a generated board's files beside the float32 matmul floor (and,
    with ``against``, the same command from git revision ``against``'s code)."""
    from bench_phases import write_inputs
    from bench_ranks import extract

    folder = Path(tempfile.mkdtemp(prefix="evalgap-bench-audit-"))
    try:
        paths = write_inputs(folder, n_models, n_items, formats)
        env = installed_env(str(folder / "bytecode"))
        old = {}
        if against:  # the same commands from the earlier revision's code, bytecode apart
            (folder / "old").mkdir()
            old = {**env, "PYTHONPATH": extract(against, str(folder / "old"))}
            old["PYTHONPYCACHEPREFIX"] = str(folder / "bytecode-old")
        audit = [sys.executable, "-m", "evalgap", "audit", "--family", "all", "--json"]
        sides: dict = {
            "floor": (floor_seconds, n_models, n_items, "1"),
            "floor, default threads": (floor_seconds, n_models, n_items, "default"),
        }
        for fmt, path in paths.items():
            layout = ["--layout", "wide"] if fmt == "wide" else []
            output = ["--output", str(folder / f"pairs-{fmt}.parquet")]
            sides[f"audit, {fmt} file"] = [*audit, "--scores", str(path), *layout, *output]
            if against:
                argv = [*audit, "--scores", str(path), *layout, *output]
                sides[f"{fmt} file, {against}"] = (_command_seconds, argv, old)
            if str(path).endswith(".gz"):  # what decompressing the file alone costs
                gunzip = [sys.executable, "-c", GUNZIP, str(path)]
                sides[f"gunzip of the {fmt} file alone"] = gunzip
                arrow = [sys.executable, "-c", ARROW_CSV, str(path)]
                sides[f"Arrow's read of the {fmt} file"] = arrow
        load_before = os.getloadavg()[0]
        times = interleaved(sides, rounds, env)
        load_after = os.getloadavg()[0]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"audit --family all --output pairs.parquet --json, {n_models:,} models x {n_items:,} "
        f"items, {rounds} interleaved rounds (median CPU seconds, user + system; load average "
        f"{load_before:.2f} before, {load_after:.2f} after)"
    )
    floor, default = medians["floor"], medians["floor, default threads"]
    for name, seconds in medians.items():
        spread = f"{min(times[name]):.2f}-{max(times[name]):.2f}"
        ratio = (
            ""
            if name.startswith("floor")
            else f"   {seconds / floor:5.1f}x the floor ({seconds / default:4.1f}x the default "
            "threads' floor)" + ("" if name.startswith(("gunzip", "Arrow")) else "   target <= 10x")
        )
        label = {"floor": "float32 X^T X, 1 thread", "floor, default threads":
                 "float32 X^T X, default"}.get(name, name)  # fmt: skip
        print(f"   {label:24s} {seconds:6.2f} s  ({spread}){ratio}")


def command_small(rounds: int) -> None:
    """The MMLU-Pro audit command from the file beside pandas + statsmodels from the file."""
    path = MMLU_PRO / "mmlu_pro_long.csv.gz"
    if not path.exists():
        print(f"MMLU-Pro command: skipped, {path} is not present")
        return
    audit = [sys.executable, "-m", "evalgap", "audit", "--scores", str(path), "--json"]
    sides = {
        "statsmodels loop": [sys.executable, "-c", PEER.format(here=str(HERE), path=str(path))],
        "audit --family all": [*audit, "--family", "all"],
        "audit (adjacent pairs)": audit,
    }
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="evalgap-bytecode-") as cache:
        times = interleaved(sides, rounds, installed_env(cache))
    load_after = os.getloadavg()[0]
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"MMLU-Pro from the file, each side a fresh process (imports included), {rounds} "
        f"interleaved rounds (median CPU seconds; load average {load_before:.2f} before, "
        f"{load_after:.2f} after)"
    )
    peer = medians["statsmodels loop"]
    for name, seconds in medians.items():
        spread = f"{min(times[name]):.2f}-{max(times[name]):.2f}"
        ratio = "" if name == "statsmodels loop" else f"   {seconds / peer:5.2f}x   target <= 1.5x"
        print(f"   {name:24s} {seconds:6.2f} s  ({spread}){ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--naive-pairs", type=int, default=2000)
    parser.add_argument("--part", choices=("all", "large", "small", "command"), default="all")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (small board)")
    parser.add_argument(
        "--command-rounds", type=int, default=5, help="interleaved rounds (--part command)"
    )
    parser.add_argument(
        "--against", help="git revision whose audit command runs beside (--part command)"
    )
    parser.add_argument(
        "--formats", nargs="+", choices=("wide", "long"), default=["wide", "long"],
        help="files of the generated board (--part command)",
    )  # fmt: skip
    parser.add_argument(
        "--blas-threads", type=int, help="BLAS threads of the measuring processes (default: as set)"
    )
    args = parser.parse_args()
    if args.blas_threads:  # read by OpenBLAS when the spawned child imports numpy
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.blas_threads)
    if args.part == "command":
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")  # as the command line runs, floor and peer alike
        command_small(args.command_rounds)
        command_board(args.models, args.items, args.command_rounds, args.formats, args.against)
        return
    if args.part in ("all", "small"):
        small_board(args.rounds)
    if args.part == "small":
        return
    seconds, peak, n_pairs, unresolved = in_child(_vectorized, args.models, args.items)
    per_pair = in_child(_naive, args.models, args.items, args.naive_pairs)
    print(f"all pairs of {args.models:,} models x {args.items:,} items: {n_pairs:,} pairs")
    print(
        f"   vectorized audit  {seconds:7.1f} s   target < 20 s   ratio {seconds / 20:5.2f}   "
        f"peak memory {peak / 2**30:5.2f} GiB   target < 4 GiB"
    )
    print(
        f"   naive loop        {per_pair * 1e6:7.0f} us per pair on {args.naive_pairs:,} "
        f"pairs -> {per_pair * n_pairs:7.0f} s for all   speed-up "
        f"{per_pair * n_pairs / seconds:6.0f}x"
    )
    print("   unresolved: " + ", ".join(f"{k} {v:,}" for k, v in unresolved.items()))


if __name__ == "__main__":
    main()
