"""How well ``evalgap estimate`` recovers MMLU-Pro models' scores from few items, on models
like the reference board's and unlike them, against the plain mean of the same items.

    python benchmarks/bench_estimate.py                          # every setting, 25-800 items
    python benchmarks/bench_estimate.py --hold-out strongest --budgets 100 --draws 20
    python benchmarks/bench_estimate.py --hold-out each --models 6 --budgets 100 --draws 1
    python benchmarks/bench_estimate.py --hold-out strongest --adaptive 25 --budgets 100,400

Runs the study of ``evalgap simulate estimate`` (:func:`evalgap.simulate.estimate_study`, one
recipe for both) on MMLU-Pro's 29 models (``../shared/data/mmlu_pro``) in four settings:
each model held out in turn (the other 28 its reference), the 9 strongest held out together
(the 20 weakest the reference: out of distribution), the 9 weakest, and 9 chosen at random.
For each budget it prints the default (design-based) estimate's mean absolute error over the
random items' own mean's on the same draws, the coverage of both 95% intervals and their
width ratio; the model-based 2PL's error ratio and coverage; and the floor of any control
variate (the 2PL at the model's own ability: the answers' scatter around their own
probabilities, which no correction removes) as a ratio of the plain mean's expected error.
``--adaptive BATCH`` adds the items ``estimate --next BATCH`` draws (BATCH random items, then
batches drawn with known probabilities at the current ability, weighted): the weighted
design-based estimate's error over the default's from random items at the same budget, its
bias (mean signed error, with its Monte Carlo SE), the coverage of its intervals and their
width over the default's; and the 2PL's error from the most informative items.
``--table`` prints the study's full table as well.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MMLU_PRO = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"
SETTINGS = ("each", "strongest", "weakest", "random")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="25,50,100,200,400,800")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--hold-out", choices=SETTINGS, action="append",
                        help="settings to run (repeatable; default all four)")  # fmt: skip
    parser.add_argument("--k", type=int, default=9, help="models held out together")
    parser.add_argument("--models", type=int, default=29, help="with each: the first K held out")
    parser.add_argument("--adaptive", type=int, default=0, metavar="BATCH",
                        help="also choose items adaptively in batches of BATCH")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--table", action="store_true", help="print the study's full table")
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
    for setting in args.hold_out or SETTINGS:
        start = time.perf_counter()
        result = evalgap.simulate.estimate_study(
            board,
            budgets=[int(b) for b in args.budgets.split(",")],
            n_trials=args.draws,
            held_out=list(board.models)[: args.models] if setting == "each" else None,
            hold_out=setting,
            n_held_out=args.k,
            adaptive_batch=args.adaptive,
            seed=args.seed,
            jobs=args.jobs,
            progress=lambda done, total: print(f"  model {done}/{total}", file=sys.stderr),
        )
        seconds = time.perf_counter() - start
        print(f"\n{setting}: {len(result.held_out)} held out, {result.reference_models} "
              f"reference models, {args.draws} draws each, {seconds:.0f} s")  # fmt: skip
        print_ratios(result)
        if args.adaptive:
            print_adaptive(result)
        if args.table:
            render_simulation(result, Console(width=140))


def print_ratios(result: object) -> None:
    """One line per budget: the default against the plain mean, the 2PL, and the floor."""
    rows = result.rows.set_index(["budget", "design"])  # type: ignore[attr-defined]
    print("ratio: the estimate's MAE over the plain mean's on the same draws; cover: coverage "
          "of the 95% intervals; width: the estimate's median interval width over the plain "
          "mean's; floor: the MAE of a control variate at the model's own 2PL ability over the "
          "plain mean's")  # fmt: skip
    print(f"{'items':>6} {'MAE est':>8} {'MAE mean':>8} {'ratio':>6} {'cover est':>9} "
          f"{'cover mean':>10} {'width':>6} {'2PL ratio':>9} {'2PL cover':>9} "
          f"{'floor':>6}")  # fmt: skip
    for budget in sorted({b for b, _ in rows.index}):
        e, m = rows.loc[(budget, "estimate")], rows.loc[(budget, "random_mean")]
        model, floor = rows.loc[(budget, "model")], rows.loc[(budget, "floor_difference")]
        print(f"{budget:>6} {e['mae']:>8.4f} {m['mae']:>8.4f} {e['mae_ratio']:>6.2f} "
              f"{e['coverage']:>9.3f} {m['coverage']:>10.3f} {e['width_ratio']:>6.2f} "
              f"{model['mae_ratio']:>9.2f} {model['coverage']:>9.3f} "
              f"{floor['mae_ratio']:>6.2f}")  # fmt: skip


def print_adaptive(result: object) -> None:
    """One line per budget: the adaptive random draws against random items, same budget."""
    rows = result.rows.set_index(["budget", "design"])  # type: ignore[attr-defined]
    print("adaptive: the weighted design-based estimate from items drawn by estimate --next "
          "(known probabilities); vs random: its MAE over the default's from random items; "
          "2PL informative: the model-based estimate from the most informative items")  # fmt: skip
    print(f"{'items':>6} {'MAE adaptive':>12} {'MAE random':>10} {'vs random':>9} "
          f"{'bias (SE)':>16} {'cover adaptive':>14} {'cover random':>12} "
          f"{'width vs random':>15} {'2PL informative':>15}")  # fmt: skip
    for budget in sorted({b for b, _ in rows.index}):
        a, e = rows.loc[(budget, "estimate_adaptive")], rows.loc[(budget, "estimate")]
        informative = rows.loc[(budget, "model_adaptive")]
        bias = f"{a['bias']:+.4f} ({a['bias_se']:.4f})"
        print(f"{budget:>6} {a['mae']:>12.4f} {e['mae']:>10.4f} {a['mae'] / e['mae']:>9.2f} "
              f"{bias:>16} {a['coverage']:>14.3f} {e['coverage']:>12.3f} "
              f"{a['median_half_width'] / e['median_half_width']:>15.2f} "
              f"{informative['mae']:>15.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
