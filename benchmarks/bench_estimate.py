"""How well ``evalgap estimate`` recovers held-out models' MMLU-Pro scores from few items.

    python benchmarks/bench_estimate.py                 # budgets 50-800, 5 draws per model
    python benchmarks/bench_estimate.py --budgets 100 --draws 1 --models 6    # a smoke run
    python benchmarks/bench_estimate.py --floor         # what no design on this 2PL can beat

Leave one model out of MMLU-Pro's 29 (``../shared/data/mmlu_pro``): the other 28 are the
reference board, the held-out model's answers are the truth. For each budget, items are drawn
at random; the estimate (``evalgap.jobs.estimate.estimate_scores``, the function the command
runs) and the items' own mean with its t interval (simple random sampling, finite-population
corrected) are compared side by side: mean absolute error, 95% interval coverage and median
half-width over held-out models and draws. Beside them, the stratified design at the same
budget (``--strata`` strata by quantiles of the reference models' accuracy on each item,
Neyman allocation from the variance that accuracy predicts, as ``plan --reference`` designs
a sample): its stratified mean with its normal interval, and the 2PL estimate from the same
stratified items.

``--floor`` computes, per held-out model, what the best design could reach if it knew the
model's own 2PL ability (fitted on all its items, which no design has): the difference
estimator ``mean(p) + mean_S(y - p)`` from n random items has variance ``mean((y - p)^2) / n``,
and with items drawn in proportion to ``sqrt(p (1 - p))`` (Neyman allocation on the 2PL's own
probabilities) ``mean(sqrt(p (1 - p)))^2 / n``; the mean absolute error of a normal error is
``sqrt(2 / pi)`` times its SD. It prints those errors at each budget and the items each needs
for a mean absolute error of 0.02.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MMLU_PRO = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", default="50,100,200,400,800")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--models", type=int, default=29, help="held-out models (first K)")
    parser.add_argument("--strata", type=int, default=10, help="strata of the stratified design")
    parser.add_argument(
        "--adaptive",
        type=int,
        default=0,
        metavar="BATCH",
        help="choose the items adaptively: start from BATCH random items, then add the BATCH "
        "most informative at the current estimate (evalgap estimate --next BATCH), to the budget",
    )
    parser.add_argument(
        "--floor", action="store_true", help="the error no design on this 2PL can beat, and exit"
    )
    args = parser.parse_args()
    if not MMLU_PRO.exists():
        print(f"skipped: {MMLU_PRO} is not present")
        return
    if args.floor:
        floor([int(b) for b in args.budgets.split(",")], args.models)
        return
    import pandas as pd
    from scipy import stats

    import evalgap
    from evalgap.jobs.estimate import calibrate, estimate_scores
    from evalgap.stats import stratified

    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    frame = pd.read_csv(MMLU_PRO)
    board = evalgap.align(frame)
    names = list(board.models)
    x = board.tasks[0].scores.T
    ids = np.asarray(board.tasks[0].item_ids).astype(str)
    rng = np.random.default_rng(0)
    budgets = [int(b) for b in args.budgets.split(",")]
    rows = {b: {"est": [], "srs": [], "strat": [], "est_strat": []} for b in budgets}
    start = time.perf_counter()
    for k in range(min(args.models, len(names))):
        truth = np.nanmean(x[k])
        reference = evalgap.align(frame[frame["model"] != names[k]])
        prepared = calibrate(reference)  # shared by every budget and draw of this model
        answered = np.flatnonzero(~np.isnan(x[k]))
        # the stratified design's strata: the reference models' accuracy on each item
        accuracy = np.nanmean(np.delete(x, k, axis=0)[:, answered], axis=0)
        for b in budgets:
            for _ in range(args.draws):

                def run(chosen, count, k=k, reference=reference, prepared=prepared):
                    part = pd.DataFrame(
                        {"model": names[k], "question_id": ids[chosen], "correct": x[k, chosen]}
                    )
                    return estimate_scores(
                        reference, evalgap.align(part), next_count=count, calibration=prepared
                    ).estimates[0]

                if args.adaptive:
                    chosen = rng.choice(answered, min(args.adaptive, b), replace=False)
                    while chosen.size < b:
                        step = min(args.adaptive, b - chosen.size)
                        proposed = run(chosen, 4 * step).next_items
                        index = {item: i for i, item in enumerate(ids)}
                        fresh = [index[i] for i in proposed if index[i] in set(answered)]
                        chosen = np.concatenate([chosen, fresh[:step]])
                    chosen = np.sort(chosen)
                else:
                    chosen = np.sort(rng.choice(answered, b, replace=False))
                e = run(chosen, 0)
                rows[b]["est"].append(
                    (abs(e.score - truth), e.interval[0] <= truth <= e.interval[1], e.half_width)
                )
                y = x[k, chosen]
                half = (
                    stats.t.ppf(0.975, b - 1)
                    * y.std(ddof=1)
                    / np.sqrt(b)
                    * np.sqrt(1 - b / answered.size)
                )
                rows[b]["srs"].append((abs(y.mean() - truth), abs(y.mean() - truth) <= half, half))
                # the stratified design at the same budget
                strata = stratified.quantile_strata(accuracy, min(args.strata, b // 4))
                sizes, variances = stratified.stratum_variances(
                    accuracy, accuracy * (1 - accuracy), strata
                )
                allocation = stratified.neyman_allocation(sizes, np.sqrt(variances), b)
                picked, _ = stratified.draw(strata, allocation, rng)
                labels, ys = strata[picked], x[k, answered[picked]]
                means = np.bincount(labels, weights=ys) / allocation
                spread = np.array(
                    [ys[labels == h].var(ddof=1) if allocation[h] > 1 else 0.0
                     for h in range(sizes.size)]
                )  # fmt: skip
                w = sizes / sizes.sum()
                mean = float(w @ means)
                var = float((w**2 * spread / allocation * (1 - allocation / sizes)).sum())
                half = 1.96 * np.sqrt(var)
                rows[b]["strat"].append((abs(mean - truth), abs(mean - truth) <= half, half))
                e = run(np.sort(answered[picked]), 0)
                rows[b]["est_strat"].append(
                    (abs(e.score - truth), e.interval[0] <= truth <= e.interval[1], e.half_width)
                )
        print(f"  model {k + 1}/{min(args.models, len(names))} done", file=sys.stderr)
    design = f"adaptive, batches of {args.adaptive}" if args.adaptive else "random items"
    print(f"held-out models: {min(args.models, len(names))}, draws per budget: {args.draws}, "
          f"items: {design}, {time.perf_counter() - start:.0f} s")  # fmt: skip
    print(f"{'items':>6}  {'method':<22} {'MAE':>7} {'coverage':>9} {'median half-width':>18}")
    for b in budgets:
        for key, label in (
            ("est", "estimate (2PL)"),
            ("srs", "chosen items' mean" if args.adaptive else "random items' mean"),
            ("strat", "stratified mean"),
            ("est_strat", "2PL, stratified items"),
        ):
            err, cover, half = (np.array(v, dtype=float) for v in zip(*rows[b][key], strict=True))
            print(f"{b:>6}  {label:<22} {err.mean():7.4f} {cover.mean():9.3f} "
                  f"{np.median(half):18.4f}")  # fmt: skip


def floor(budgets: list[int], n_models: int) -> None:
    """Print the oracle floors of the module's docstring."""
    import pandas as pd
    from scipy.special import expit

    import evalgap
    from evalgap.stats import estimate as est
    from evalgap.stats.stratified import fit_2pl

    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    x = evalgap.align(pd.read_csv(MMLU_PRO)).tasks[0].scores.T
    x = x[:, ~np.isnan(x).any(axis=0)]  # items every model answered
    spread = []
    for k in range(min(n_models, x.shape[0])):
        fit = fit_2pl(np.delete(x, k, axis=0))
        ability, _ = est.ability_map(x[k][None, :], fit.slope, fit.intercept, prior_sd=1e3)
        p = expit(fit.slope * ability[0] + fit.intercept)
        spread.append((x[k].var(), ((x[k] - p) ** 2).mean(), np.sqrt(p * (1 - p)).mean() ** 2))
    variance = np.mean(spread, axis=0)  # per item: random mean, oracle difference, oracle Neyman
    scale = np.sqrt(2 / np.pi)
    print(f"held-out models: {len(spread)}, items: {x.shape[1]:,}")
    print(f"{'items':>6} {'random mean':>12} {'oracle difference':>18} {'oracle Neyman':>14}")
    for b in budgets:
        mae = scale * np.sqrt(variance / b)
        print(f"{b:>6} {mae[0]:12.4f} {mae[1]:18.4f} {mae[2]:14.4f}")
    need = np.ceil(scale**2 * variance / 0.02**2).astype(int)
    print(f"items for a mean absolute error of 0.02: {need[0]:,} / {need[1]:,} / {need[2]:,}")


if __name__ == "__main__":
    main()
