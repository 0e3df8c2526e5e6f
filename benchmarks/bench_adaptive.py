"""Adaptive paired testing against random items, through the same anytime-valid e-process.

    python benchmarks/bench_adaptive.py                       # 40 pairs x 5 seeds, 200 null runs
    python benchmarks/bench_adaptive.py --pairs 8 --seeds 2 --null-runs 40   # a smoke run
    python benchmarks/bench_adaptive.py --variance    # the most any draw design could save

MMLU-Pro (``../shared/data/mmlu_pro``, 29 models x 12,032 items). For each pair a 2PL is
fitted on the other 27 models (leave the pair out). Then, seed by seed, the pair runs items
in batches of ``--batch``, chosen as ``evalgap adaptive`` chooses them
(:func:`evalgap.jobs.adaptive_study.run_pair`, as ``simulate adaptive`` runs them: the items
of most sign information under the abilities refitted on the answers so far, plus an audit
share drawn at random), or in a random order, and is tested after every item by the mixture
e-process on the signs of the items where the two differ
(:func:`evalgap.stats.sequential.log_e_value`), up to ``--max-items`` distinct items.

Printed:
- pairs with their real answers: the share decided within the cap by each design, the
  decisions whose direction is not the sign of the full-benchmark gap, and
  the median distinct items to a decision over runs where both decided, with their ratio;
- the full-benchmark gap estimated from the audit draws (model-assisted difference
  estimate) at 100-800 items: mean absolute error, mean signed error (bias) and the
  coverage of the 95% interval;
- null pairs -- the pair's answers swapped on exactly half of the items where they differ,
  chosen at random, so that the full-benchmark gap is 0 and each differing item's sign is
  a coin the design cannot see -- monitored after every item up to the cap: the share of
  runs that ever reject (Type-I under continuous monitoring), with its Monte Carlo SE.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from evalgap.jobs.adaptive_study import run_pair
from evalgap.stats.estimate import ability_map
from evalgap.stats.stratified import fit_2pl, success_probability

ROOT = Path(__file__).resolve().parents[1]
MMLU_PRO = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro_long.csv.gz"
BUDGETS = (100, 200, 400, 800)


def board() -> tuple[list[str], np.ndarray]:
    import pandas as pd

    frame = pd.read_csv(MMLU_PRO, usecols=["model", "question_id", "correct"])
    wide = frame.pivot_table(index="model", columns="question_id", values="correct")
    return list(wide.index), wide.to_numpy(dtype=float)


def balanced_null(y_a, y_b, rng):
    """The pair's answers swapped on exactly half of the items where they differ, chosen at
    random (with an odd count the last one is made concordant), so the gap is exactly 0."""
    differ = np.flatnonzero(y_a != y_b)
    rng.shuffle(differ)
    a, b = y_a.copy(), y_b.copy()
    if differ.size % 2:
        b[differ[-1]] = a[differ[-1]]
        differ = differ[:-1]
    half = differ.size // 2
    a[differ[:half]], b[differ[:half]] = 1.0, 0.0
    a[differ[half:]], b[differ[half:]] = 0.0, 1.0
    return a, b


def variance_bound(names, y, n_pairs: int = 12) -> None:
    """How much any draw probabilities could shrink the full-benchmark gap's variance: per
    pair, the 2PL (without the pair) at abilities fitted on all the pair's answers (the best
    it can do); the variance of the inverse-probability-weighted residual with draw
    probabilities proportional to the predicted spread (the best allocation), mixed with a
    uniform share, and of the plain residual, as ratios to simple random sampling's."""
    k = len(names)
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    ratios, residual = [], []
    for t in rng.choice(len(pairs), size=n_pairs, replace=False):
        i, j = pairs[t]
        keep = ~np.isnan(y[i]) & ~np.isnan(y[j])
        fit = fit_2pl(y[np.delete(np.arange(k), [i, j])][:, keep])
        y_a, y_b = y[i, keep], y[j, keep]
        n, d = y_a.size, y_a - y_b
        theta = ability_map(np.vstack([y_a, y_b]), fit.slope, fit.intercept)[0]
        p = success_probability(theta, fit.slope, fit.intercept)
        m = p[0] - p[1]
        v = p[0] + p[1] - 2 * p[0] * p[1] - m**2
        e = d - m
        srs = d.var()
        residual.append(e.var() / srs)
        for share in (0.1, 0.3, 0.5):
            w = np.sqrt(v + 1e-6)
            q = (1 - share) * w / w.sum() + share / n
            ratios.append(((e**2 / (n * n * q)).sum() - e.mean() ** 2) / srs)
    print(
        f"  the gap's variance, best draw probabilities vs random items ({n_pairs} pairs, "
        f"uniform share 0.1-0.5): {min(ratios):.2f}-{max(ratios):.2f}; the predictions' "
        f"residuals alone: {min(residual):.2f}-{max(residual):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--null-runs", type=int, default=200)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=25)
    parser.add_argument("--audit", type=float, default=0.2)
    parser.add_argument("--max-items", type=int, default=2000)
    parser.add_argument(
        "--variance",
        action="store_true",
        help="Only the bound on how much draw probabilities can shrink the gap's variance.",
    )
    args = parser.parse_args()
    if not MMLU_PRO.exists():
        raise SystemExit(f"skipped: {MMLU_PRO} is absent (the shared MMLU-Pro data)")
    start = time.perf_counter()
    names, y = board()
    if args.variance:
        variance_bound(names, y)
        return
    k = len(names)
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    chosen = [pairs[t] for t in rng.choice(len(pairs), size=args.pairs, replace=False)]
    common = dict(
        alpha=args.alpha,
        batch=args.batch,
        audit=args.audit,
        max_items=args.max_items,
        budgets=BUDGETS,
    )
    fits = {}
    steps, errors, nulls, wrong = [], {b: [] for b in BUDGETS}, [], []
    for i, j in chosen:
        keep = ~np.isnan(y[i]) & ~np.isnan(y[j])
        rest = np.delete(np.arange(k), [i, j])
        fits[i, j] = fit = fit_2pl(y[rest][:, keep])
        y_a, y_b = y[i, keep], y[j, keep]
        mu = float((y_a - y_b).mean())
        for seed in range(args.seeds):
            ad = run_pair(y_a, y_b, fit, np.random.default_rng(seed), adaptive=True, **common)
            ra = run_pair(y_a, y_b, fit, np.random.default_rng(seed), adaptive=False, **common)
            (a, sa, est), (r, sr) = (
                (ad["decided_at"], ad["direction"], ad["estimates"]),
                (ra["decided_at"], ra["direction"]),
            )
            steps.append((a, r))
            truth = np.sign(mu)
            wrong.append((a is not None and sa != truth, r is not None and sr != truth))
            for budget, (e, lo, hi) in est.items():
                errors[budget].append((e - mu, lo <= mu <= hi))
    for run_index in range(args.null_runs):
        i, j = chosen[run_index % len(chosen)]
        keep = ~np.isnan(y[i]) & ~np.isnan(y[j])
        na, nb = balanced_null(y[i, keep], y[j, keep], np.random.default_rng(10_000 + run_index))
        z = run_pair(na, nb, fits[i, j], np.random.default_rng(run_index), adaptive=True, **common)
        nulls.append(z["decided_at"] is not None)
    print(
        f"MMLU-Pro: {args.pairs} pairs x {args.seeds} seeds, alpha {args.alpha}, batches of "
        f"{args.batch} ({args.audit:.0%} audit draws), at most {args.max_items} items"
    )
    ad = np.array([np.nan if a is None else a for a, _ in steps], dtype=float)
    ra = np.array([np.nan if r is None else r for _, r in steps], dtype=float)
    both = ~np.isnan(ad) & ~np.isnan(ra)
    print(
        f"  decided within the cap: adaptive {np.mean(~np.isnan(ad)):.3f}, random "
        f"{np.mean(~np.isnan(ra)):.3f}"
    )
    if both.any():
        ma, mr = np.median(ad[both]), np.median(ra[both])
        print(
            f"  items to a decision ({both.sum()} runs both decided): adaptive median "
            f"{ma:.0f}, random {mr:.0f}: ratio of medians {ma / mr:.2f}; median per-run "
            f"ratio {np.median(ad[both] / ra[both]):.2f}"
        )
    bad = np.array(wrong, dtype=bool)
    print(
        f"  decisions against the sign of the full-benchmark gap: adaptive {bad[:, 0].sum()} of "
        f"{np.sum(~np.isnan(ad))}, random {bad[:, 1].sum()} of {np.sum(~np.isnan(ra))}"
    )
    for budget, rows in errors.items():
        if rows:
            e = np.array([r[0] for r in rows])
            cover = np.mean([r[1] for r in rows])
            print(
                f"  gap from the audit draws at {budget} items: mean absolute error "
                f"{np.nanmean(np.abs(e)):.4f}, mean error {np.nanmean(e):+.4f}, 95% "
                f"interval coverage {cover:.3f} ({len(rows)} runs)"
            )
    rate = float(np.mean(nulls))
    se = float(np.sqrt(rate * (1 - rate) / len(nulls)))
    print(
        f"  null pairs: rejected in {rate:.3f} of {len(nulls)} runs (MC SE {se:.3f}); "
        f"alpha + 2 SE = {args.alpha + 2 * np.sqrt(args.alpha * (1 - args.alpha) / len(nulls)):.3f}"
    )
    print(f"  {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
