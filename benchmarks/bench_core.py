"""Benchmarks of the paired core, measured side by side in one run.

    python benchmarks/bench_core.py            # full sizes of the targets
    python benchmarks/bench_core.py --quick    # smaller sizes, for a smoke run

Prints, for each target, the measured figure, the target and their ratio:

1. bootstrap of a binary pair, B = 100,000: multinomial draw on the 2x2 cells vs resampling
   items (target: cells >= 1000x faster);
2. 1,000,000 pairs of 2x2 counts through every p-value, interval and N* at once (< 2 s);
3. graded bootstrap, N = 100,000 items, B = 10,000 (< 10 s, peak memory < 2 GB).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from evalgap.stats import intervals, resample
from evalgap.stats import power as pw
from evalgap.stats.paired import summarize_counts
from evalgap.stats.tests import mcnemar, mcnemar_exact


def timed(func, *args, repeat: int = 1, **kwargs):
    """Return (median seconds over ``repeat`` runs after one warm-up if repeat > 1, output)."""
    if repeat > 1:
        func(*args, **kwargs)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = func(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def bootstrap_by_resampling_items(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """The general path: draw N item indices per resample (blocked to bound memory)."""
    rng = np.random.default_rng(seed)
    n = d.size
    rows = max(1, 2**22 // n)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=np.int32)
        out[start:stop] = np.take(d, idx).mean(axis=1)
    return out


def bench_binary_bootstrap(n_resamples: int) -> None:
    both_correct, a_only, b_only, both_wrong = 7986, 295, 249, 1512  # Table 6, HellaSwag
    n = both_correct + a_only + b_only + both_wrong
    d = np.repeat([1.0, -1.0, 0.0], [a_only, b_only, n - a_only - b_only])
    t_cells, (b_star, c_star) = timed(
        resample.bootstrap_counts, a_only, b_only, n, n_resamples, 1, repeat=7
    )
    t_items, by_items = timed(bootstrap_by_resampling_items, d, n_resamples, 2)
    by_cells = (b_star - c_star) / n
    print(f"1. binary bootstrap, N = {n:,}, B = {n_resamples:,}")
    print(
        f"   cells {t_cells * 1e3:9.2f} ms (median of 7)   items {t_items * 1e3:9.1f} ms   "
        f"speed-up {t_items / t_cells:8.0f}x   (target >= 1000x)"
    )
    print(f"   same distribution: sd {by_cells.std():.6f} (cells) vs {by_items.std():.6f} (items)")


def bench_million_pairs(n_pairs: int) -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(500, 20_000, n_pairs)
    disc = rng.binomial(n, rng.uniform(0.02, 0.4, n_pairs))
    b = rng.binomial(disc, rng.uniform(0.3, 0.7, n_pairs))
    c = disc - b
    both_correct = rng.binomial(n - disc, 0.7)
    both_wrong = n - disc - both_correct

    def everything():
        s = summarize_counts(both_correct, b, c, both_wrong)
        out = {
            "mcnemar": mcnemar(b, c).p_value,
            "mcnemar_cc": mcnemar(b, c, correction=True).p_value,
            "exact": mcnemar_exact(b, c),
            "mid_p": mcnemar_exact(b, c, mid_p=True),
            "newcombe": intervals.newcombe_interval(both_correct, b, c, both_wrong),
            "wald": intervals.wald_interval(s.delta, s.se),
        }
        n_star = pw.required_n(s.delta, s.sd_diff)
        out["required_n"] = n_star
        out["required_n_discordant"] = pw.required_n_discordant(b, c, s.n_items)
        out["mde"] = pw.mde(s.n_items, s.sd_diff)
        out["q"] = pw.resolution_ratio(s.n_items, n_star)
        return out

    seconds, out = timed(everything, repeat=3)
    print(f"2. {n_pairs:,} pairs of counts: summary, 4 p-values, 2 intervals, N* (2 forms), MDE, q")
    print(
        f"   {seconds:6.2f} s (median of 3)   target < 2 s   ratio to target {seconds / 2:5.2f}   "
        f"({np.mean(out['q'] < 1):.1%} of the random pairs unresolved)"
    )


def bench_graded_bootstrap(n_items: int, n_resamples: int) -> None:
    rng = np.random.default_rng(1)
    d = rng.beta(4, 2, n_items) - rng.beta(4, 2, n_items)
    tracemalloc.start()
    seconds, draws = timed(resample.bootstrap_means, d, n_resamples, 7)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"3. graded bootstrap, N = {n_items:,}, B = {n_resamples:,}")
    print(
        f"   {seconds:6.2f} s   target < 10 s   ratio to target {seconds / 10:5.2f}   "
        f"peak memory {peak / 2**20:7.1f} MiB   target < 2048 MiB   "
        f"ratio {peak / 2**31:5.3f}"
    )
    print(f"   check: sd of the means {draws.std():.6f} vs sd/sqrt(N) {d.std() / n_items**0.5:.6f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    bench_binary_bootstrap(100_000 // scale)
    bench_million_pairs(1_000_000 // scale)
    bench_graded_bootstrap(100_000 // scale, 10_000 // scale)


if __name__ == "__main__":
    main()
