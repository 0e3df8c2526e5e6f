"""Coverage of the gold-scale gap (``compare --gold-column``) on AlpacaEval's judged board.

    python benchmarks/bench_gold.py                      # 60 pairs + the flipped pair, 1,000 runs
    python benchmarks/bench_gold.py --pairs 5 --runs 100   # a smoke run
    python benchmarks/bench_gold.py --labels 30,50,80,160  # coverage by the number of labels

The study is the library's (``evalgap simulate gold`` / :func:`evalgap.simulate.gold_study`),
run on the judge's preferences of AlpacaEval 2.0 (``../shared/data/alpaca_eval``: 58 models x
805 instructions, GPT-4-turbo's probability that the model beats the baseline) taken as
given, with gold labels (a human's 0/1 preference) simulated from them with a known bias per
model, drawn uniformly in [-0.05, 0.10]: model m's gold label on an item is 1 with
probability ``clip(judge - bias_m, 0, 1)``. One pair is built to flip: the two models closest
in the judge's win rate, the judge's favourite given a bias of 0.10 and the other -0.05, so
the gold reverses the judge's order. Each run labels a random 10% of the pair's items
(``--label-share``) for both models and estimates the gap by paired PPI++ with its t
interval, and by the gold labels alone.

Printed: the coverage of the true gold-scale gap over every run of every pair with its
Monte Carlo SE (the floor 0.95 - 2 SE), the gold labels alone beside it, the median ratio of
the PPI++ interval's width to the gold-only one, the flipped pair's row, and the worst
pairs. ``--labels`` instead prints, for each number of labelled items per pair, the two
coverages and the width ratio (where the t interval stops covering).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ALPACA = ROOT.parent / "shared" / "data" / "alpaca_eval" / "alpaca_eval_long.csv.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=60, help="random pairs beside the flipped one")
    parser.add_argument("--runs", type=int, default=1000, help="runs per pair")
    parser.add_argument("--label-share", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--labels", default="", help="labelled items per pair, e.g. 30,50,80")
    args = parser.parse_args()
    if not ALPACA.exists():
        print(f"skipped: {ALPACA} is not present")
        return
    from evalgap.simulate import gold_study

    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    board = {"model_column": "model", "item_column": "item", "score_column": "win",
             "task_column": "none"}  # fmt: skip
    settings = {"n_pairs": args.pairs, "n_trials": args.runs, "seed": args.seed, "jobs": 2}
    if args.labels:
        print(f"{args.pairs + 1} pairs x {args.runs:,} runs per count of labelled items")
        print(f"{'labels':>7} {'PPI++':>7} {'gold only':>10} {'floor':>7} {'width ratio':>12}")
        for count in (int(c) for c in args.labels.split(",")):
            r = gold_study(ALPACA, label_share=count / 805, **settings, **board)
            floor = 1 - r.alpha - 2 * r.monte_carlo_se
            print(f"{count:>7} {r.coverage:7.4f} {r.gold_only_coverage:10.4f} {floor:7.4f} "
                  f"{r.width_ratio:12.3f}")  # fmt: skip
        return
    start = time.perf_counter()
    r = gold_study(ALPACA, label_share=args.label_share, **settings, **board)
    seconds = time.perf_counter() - start
    floor = 1 - r.alpha - 2 * r.monte_carlo_se
    print(
        f"{len(r.pairs)} pairs x {r.n_trials:,} runs, {100 * r.label_share:g}% of the items "
        f"gold-labelled per run, {seconds:.1f} s"
    )
    print(
        f"coverage of the true gold-scale gap: PPI++ {r.coverage:.4f}, gold labels alone "
        f"{r.gold_only_coverage:.4f} (MC SE {r.monte_carlo_se:.4f}; floor {floor:.4f})"
    )
    print(f"median width ratio, PPI++ / gold labels alone: {r.width_ratio:.3f}")
    frame = r.to_frame()
    columns = ["model_a", "model_b", "judge_gap", "true_gap", "coverage", "gold_only_coverage",
               "width_ratio"]  # fmt: skip
    print("the flipped pair:")
    print(frame.loc[[0], columns].round(4).to_string(index=False))
    print(f"pairs the judge's order misleads: {int(frame['flipped'].sum())} of {len(frame)}")
    print("the lowest coverage (per-pair MC SE "
          f"{np.sqrt(0.95 * 0.05 / r.n_trials):.4f}):")  # fmt: skip
    print(frame.nsmallest(3, "coverage")[columns].round(4).to_string(index=False))


if __name__ == "__main__":
    main()
