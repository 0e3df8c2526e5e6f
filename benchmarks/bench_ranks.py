"""Rank sets at leaderboard scale, and the Bradley-Terry bootstrap against refitting.

    python benchmarks/bench_ranks.py                      # the issue's sizes
    python benchmarks/bench_ranks.py --models 100 --items 2000 --arena-models 10 \\
        --battles 20000 --replicates 100                  # a smoke run
    python benchmarks/bench_ranks.py --part arena --arena-models 300 --battles 300000 \\
        --refit-replicates 0                              # a large arena alone

1. Rank sets (max-t stepdown bootstrap, B replicates) of K models x N binary items, in a
   fresh process: wall time and peak resident memory.
2. A simulated arena (M models, battles with 10% ties): the Bradley-Terry fit, then B
   bootstrap replicates two ways on the same data, side by side: the vectorized bootstrap
   (multinomial weights on the distinct cells, every replicate fitted at once) and a
   refit-per-replicate loop (resample the battles, aggregate, fit); their ratio. With
   statsmodels installed, the largest gap between the fit and a logistic regression.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _child import in_child
from bench_phases import scores_matrix


def _rank_sets(n_models, n_items, replicates, queue) -> None:
    from evalgap.stats import ranks

    x = scores_matrix(n_models, n_items).astype(float)
    start = time.perf_counter()
    sets = ranks.rank_sets(x, n_bootstrap=replicates, seed=0, method="bootstrap")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    queue.put((seconds, peak, sets.method, float((sets.rank_high - sets.rank_low + 1).mean())))


def _arena_fit(n_models, n_battles, replicates, queue) -> None:
    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(n_models, n_battles)
    start = time.perf_counter()
    data = bt.battles(a, b, y, n_models)
    fit = bt.fit(data)
    bt.bootstrap(data, replicates, seed=1, start=fit.scores)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30
    queue.put((seconds, peak))


def arena(n_models, n_battles, seed=0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    tie = rng.random(n_battles) < 0.1
    return a, b, np.where(tie, 0.5, (rng.random(n_battles) < p).astype(float))


def refit_bootstrap(a, b, y, n_models, replicates, seed):
    """The usual way: resample the battles, then fit each replicate on its own."""
    from evalgap.stats import bradley_terry as bt

    rng = np.random.default_rng(seed)
    out = np.empty((replicates, n_models))
    for r in range(replicates):
        pick = rng.integers(0, a.size, a.size)
        out[r] = bt.fit(bt.battles(a[pick], b[pick], y[pick], n_models)).scores
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--arena-models", type=int, default=50)
    parser.add_argument("--battles", type=int, default=200_000)
    parser.add_argument("--part", choices=("all", "rank-sets", "arena"), default="all")
    parser.add_argument(
        "--refit-replicates",
        type=int,
        help="Replicates of the refit-per-replicate comparison (default: --replicates; 0 skips).",
    )
    args = parser.parse_args()

    if args.part in ("all", "rank-sets"):
        seconds, peak, method, width = in_child(
            _rank_sets, args.models, args.items, args.replicates
        )
        print(
            f"rank sets, {args.models:,} models x {args.items:,} items, B = {args.replicates:,} "
            f"({method}): {seconds:.1f} s, peak {peak:.2f} GiB; mean set size {width:.1f}"
        )
    if args.part == "rank-sets":
        return
    seconds, peak = in_child(_arena_fit, args.arena_models, args.battles, args.replicates)
    print(
        f"Bradley-Terry in a fresh process, {args.arena_models:,} models, {args.battles:,} "
        f"battles: fit and B = {args.replicates:,} bootstrap {seconds:.1f} s, peak {peak:.2f} GiB"
    )
    refits = args.replicates if args.refit_replicates is None else args.refit_replicates
    if refits == 0:
        return

    from evalgap.stats import bradley_terry as bt

    a, b, y = arena(args.arena_models, args.battles)
    start = time.perf_counter()
    data = bt.battles(a, b, y, args.arena_models)
    fit = bt.fit(data)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    fast = bt.bootstrap(data, args.replicates, seed=1, start=fit.scores)
    fast_seconds = time.perf_counter() - start
    start = time.perf_counter()
    slow = refit_bootstrap(a, b, y, args.arena_models, refits, seed=2)
    slow_seconds = (time.perf_counter() - start) * args.replicates / refits
    print(
        f"Bradley-Terry, {args.arena_models} models, {args.battles:,} battles: fit "
        f"{fit_seconds:.2f} s; bootstrap B = {args.replicates:,}: vectorized {fast_seconds:.2f} s "
        f"vs refit per replicate {slow_seconds:.2f} s (from {refits:,} refits), speed-up "
        f"{slow_seconds / fast_seconds:.0f}x"
    )
    print(
        "bootstrap SEs agree: median ratio "
        f"{np.median(fast.std(axis=0) / slow.std(axis=0)):.3f} (vectorized / refit)"
    )
    try:
        import statsmodels.api as sm
    except ImportError:
        return
    design = np.zeros((y.size, args.arena_models))
    design[np.arange(y.size), a] += 1
    design[np.arange(y.size), b] -= 1
    glm = sm.GLM(y, design[:, 1:], family=sm.families.Binomial()).fit(tol=1e-14)
    oracle = np.concatenate([[0.0], glm.params])
    gap = np.abs(fit.scores - (oracle - oracle.mean())).max()
    print(f"max |score - logistic regression| = {gap:.1e}")


if __name__ == "__main__":
    main()
