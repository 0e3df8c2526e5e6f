"""Items to flip and the leaderboard card, measured on the commands users run.

    python benchmarks/bench_fragility.py                  # MMLU-Pro, and a 1,000 x 20,000 card
    python benchmarks/bench_fragility.py --models 100 --items 2000 --replicates 200   # smoke
    python benchmarks/bench_fragility.py --part pairs --pairs-graded \
        --pairs-models 100 --pairs-items 2000       # all pairs of a graded board vs its audit

1. MMLU-Pro (29 models, all 406 pairs, from ../shared/data): the items to flip of every pair,
   every test and procedure (``board_flips``, the statistics alone), interleaved with the
   same counts found by removing one item at a time and recomputing scipy's exact test on a
   few pairs (the brute force the exact count replaces), scaled to 406 pairs; then
   ``evalgap fragility --family all`` end to end in a fresh process.
2. ``evalgap card`` on a synthetic board of K models x N binary items (a long Parquet file,
   as a leaderboard keeps it), end to end in a fresh process: wall time and peak memory.
3. All pairs of a synthetic board (``--pairs-models`` x ``--pairs-items``, 300 x 10,000 by
   default: 44,850 pairs): ``evalgap fragility --family all`` beside ``evalgap audit
   --family all`` of the same file, each as a whole process in interleaved rounds, terminal
   and ``--json``; CPU seconds (the machine is shared), bytecode cached as in an install.
   The target is fragility <= 2x the audit. ``--pairs-graded`` makes the scores graded
   (the greedy search over each pair's differences instead of the exact binary counts;
   docs/fragility.md quotes it at 100 x 2,000 and 300 x 10,000).
The machine's load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _child import cpu_run, installed_env
from bench_phases import scores_matrix

ROOT = Path(__file__).resolve().parents[1]
MMLU_PRO = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"


def _brute_exact(b: int, c: int, alpha: float = 0.05) -> int:
    """Remove one A-only item at a time, recomputing scipy's exact test, until p > alpha."""
    from scipy import stats

    k = 0
    while stats.binomtest(b - k, b - k + c, 0.5).pvalue <= alpha:
        k += 1
    return k


def mmlu_pro(rounds: int) -> None:
    import evalgap
    from evalgap.jobs.fragility import board_flips

    if not MMLU_PRO.exists():
        print(f"MMLU-Pro: skipped ({MMLU_PRO} is not present)")
        return
    audit = evalgap.audit(
        str(MMLU_PRO), family="all", n_bootstrap=0, n_bootstrap_required_n=0,
        n_rank_bootstrap=0,
    )  # fmt: skip
    p = audit.pairs
    args = dict(
        a_only=np.asarray(p.a_only), b_only=np.asarray(p.b_only), n_items=np.asarray(p.n_items),
        binary=np.asarray(p.binary), statistic=np.asarray(p.statistic, dtype=float),
        alpha=0.05, power=0.8, family_size=len(p),
    )  # fmt: skip
    flips = board_flips(**args)["exact"]
    claimed = np.flatnonzero(flips.decided & (flips.favours == 1))
    sample = claimed[np.argsort(flips.items[claimed])][:: max(1, claimed.size // 8)][:8]
    fast, slow = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        board_flips(**args)
        fast.append(time.perf_counter() - start)
        start = time.perf_counter()
        found = [_brute_exact(int(p.a_only[k]), int(p.b_only[k])) for k in sample]
        slow.append((time.perf_counter() - start) / len(sample))
    assert found == [int(flips.items[k]) for k in sample]
    per_pair = float(np.median(slow))
    print(
        f"MMLU-Pro, all {len(p)} pairs, every test and procedure: {np.median(fast):.3f} s "
        f"(median of {rounds}); one item at a time with scipy's exact test: {per_pair:.3f} s "
        f"per claimed pair, {per_pair * len(p):.1f} s for {len(p)} (one test): ratio "
        f"{per_pair * len(p) / np.median(fast):.0f}x"
    )
    seconds, peak = _timed(["fragility", "--scores", str(MMLU_PRO), "--family", "all", "--json"])
    print(f"evalgap fragility --family all (CLI, end to end): {seconds:.2f} s, peak {peak:.2f} GiB")


# Runs the command line in this interpreter and reports its own peak resident memory (KiB).
RUN = (
    "import resource, sys; from evalgap.cli import main; code = main(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
    "sys.exit(code)"
)


def _timed(args: list[str]) -> tuple[float, float]:
    """Run ``evalgap ARGS`` in a fresh process; return its wall time and peak memory (GiB)."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, cwd=ROOT
    )
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return seconds, int(out.stderr.strip().splitlines()[-1]) * 1024 / 2**30


def _board_file(n_models: int, n_items: int, path: Path, graded: bool = False) -> Path:
    """Write a K x N board as a long Parquet file (as a leaderboard keeps it): binary scores,
    or graded ones (ability plus noise in [0, 1], two decimals)."""
    import pandas as pd

    x = scores_matrix(n_models, n_items)
    if graded:
        rng = np.random.default_rng(1)
        ability = np.sort(rng.normal(0.0, 0.3, n_models))[::-1]
        x = np.clip(0.5 + ability + rng.normal(0.0, 0.3, (n_items, n_models)), 0, 1).round(2)
    items, models = np.meshgrid(np.arange(n_items), np.arange(n_models), indexing="ij")
    pd.DataFrame(
        {
            "model": pd.Categorical.from_codes(
                models.ravel(), [f"org/model-{m:04d}" for m in range(n_models)]
            ),
            "item_id": items.ravel().astype(np.int32),
            "score": x.ravel(),
        }
    ).to_parquet(path, index=False)
    return path


def card(n_models: int, n_items: int, replicates: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = _board_file(n_models, n_items, Path(folder) / "board.parquet")
        seconds, peak = _timed(
            ["card", "--scores", str(path), "--n-bootstrap", str(replicates),
             "--output", str(Path(folder) / "card.md"), "--html", str(Path(folder) / "card.html")]
        )  # fmt: skip
    print(
        f"evalgap card, {n_models:,} models x {n_items:,} items, B = {replicates:,} (CLI, end "
        f"to end, Markdown and HTML): {seconds:.1f} s, peak {peak:.2f} GiB"
    )


def many_pairs(n_models: int, n_items: int, rounds: int, graded: bool = False) -> None:
    """Fragility of all pairs beside the audit of the same file, whole commands, CPU s."""
    import shutil
    import statistics

    evalgap = shutil.which("evalgap") or "evalgap"
    with tempfile.TemporaryDirectory() as folder:
        path = _board_file(n_models, n_items, Path(folder) / "board.parquet", graded)
        env = installed_env(str(Path(folder) / "pycache"))
        cases = {
            f"{job}{' --json' if json else ''}": [
                evalgap, job, "--scores", str(path), "--family", "all", *(["--json"] * json)
            ]
            for json in (False, True)
            for job in ("audit", "fragility")
        }  # fmt: skip
        for argv in cases.values():  # warm the bytecode and file caches
            cpu_run(argv, env)
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        loads = []
        for _ in range(rounds):
            loads.append(os.getloadavg()[0])
            for name, argv in cases.items():
                cpu[name].append(cpu_run(argv, env)[0])
    pairs = n_models * (n_models - 1) // 2
    print(
        f"all {pairs:,} pairs of {n_models:,} models x {n_items:,} "
        f"{'graded' if graded else 'binary'} items (CLI, whole process, "
        f"median CPU s of {rounds} interleaved rounds; load {min(loads):.1f}-{max(loads):.1f}):"
    )
    for view in ("", " --json"):
        audit, flips = (statistics.median(cpu[f"{job}{view}"]) for job in ("audit", "fragility"))
        print(
            f"  fragility{view} {flips:.2f} s vs audit{view} {audit:.2f} s: "
            f"fragility/audit {flips / audit:.2f}x (target <= 2x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs-models", type=int, default=300)
    parser.add_argument("--pairs-items", type=int, default=10_000)
    parser.add_argument(
        "--pairs-graded", action="store_true", help="graded scores in the all-pairs part"
    )
    parser.add_argument(
        "--part", choices=("all", "mmlu-pro", "card", "pairs"), default="all",
        help="run one part only",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.part in ("all", "mmlu-pro"):
        mmlu_pro(args.rounds)
    if args.part in ("all", "card"):
        card(args.models, args.items, args.replicates)
    if args.part in ("all", "pairs"):
        many_pairs(args.pairs_models, args.pairs_items, args.rounds, args.pairs_graded)


if __name__ == "__main__":
    main()
