"""How well ``evalgap estimate`` recovers held-out models' MMLU-Pro scores from few items.

    python benchmarks/bench_estimate.py                      # budgets 50-800, 5 draws per model
    python benchmarks/bench_estimate.py --adaptive 20 --jobs 2       # adaptive items beside them
    python benchmarks/bench_estimate.py --budgets 100 --draws 1 --models 6   # a smoke run

Leave one model out of MMLU-Pro's 29 (``../shared/data/mmlu_pro``): the other 28 are the
reference board, the held-out model's answers are the truth. This runs the study of
``evalgap simulate estimate`` (:func:`evalgap.simulate.estimate_study`, one recipe for both)
on that board and prints its table: for each budget the 2PL estimate from random items, the
random items' own mean, the stratified design of ``plan --reference`` (its stratified mean,
and the 2PL estimate from its items), optionally items chosen adaptively, and the two
design-unbiased floors (the held-out model's own 2PL ability known): mean absolute error,
95% interval coverage and median half-width over held-out models and draws.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MMLU_PRO = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="50,100,200,400,800")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--models", type=int, default=29, help="held-out models (first K)")
    parser.add_argument("--strata", type=int, default=10, help="strata of the stratified design")
    parser.add_argument("--adaptive", type=int, default=0, metavar="BATCH",
                        help="also choose items adaptively in batches of BATCH")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if not MMLU_PRO.exists():
        print(f"skipped: {MMLU_PRO} is not present")
        return
    import pandas as pd
    from rich.console import Console

    import evalgap
    from evalgap.report.terminal import render_simulation

    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    board = evalgap.align(pd.read_csv(MMLU_PRO))
    start = time.perf_counter()
    result = evalgap.simulate.estimate_study(
        board,
        budgets=[int(b) for b in args.budgets.split(",")],
        n_trials=args.draws,
        held_out=list(board.models)[: args.models],
        n_strata=args.strata,
        adaptive_batch=args.adaptive,
        jobs=args.jobs,
        progress=lambda done, total: print(f"  model {done}/{total} done", file=sys.stderr),
    )
    print(f"{time.perf_counter() - start:.0f} s")
    render_simulation(result, Console(width=120))


if __name__ == "__main__":
    main()
