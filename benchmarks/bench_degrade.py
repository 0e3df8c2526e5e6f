"""Degradation benchmarks, measured side by side in one run.

    python benchmarks/bench_degrade.py            # --quick: N = 5,000, m = 10,000

1. max-drop p-value of the paper's KV-FP8 row (6 tasks): the exact product of binomial CDFs
   against Algorithm 4's Monte Carlo with S = 100,000 simulations (time ratio, and the two
   p-values);
2. the permutation pooled test (Algorithm 5) on N = 25,000 graded items with m = 100,000
   sign-flip permutations, continuous scores (target < 5 s, peak memory < 2 GB) and scores
   averaged over 4 runs (few distinct differences: the exact grouped-binomial path).
Each timing is the median of several runs after a warm-up; peak memory is the child
process's own maximum resident size.
"""

from __future__ import annotations

import resource
import time

import numpy as np

from _child import in_child

KV_FP8_B = [250, 25, 23, 448, 479, 16]
KV_FP8_C = [234, 25, 23, 347, 393, 20]


def timed(func, *args, repeat=5, **kwargs):
    func(*args, **kwargs)
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def _permutation(kind, n, m, queue) -> None:
    from evalgap.stats.aggregation import permutation_aggregates

    rng = np.random.default_rng(0)
    if kind == "continuous":
        base, cand = rng.beta(4, 2, n), rng.beta(4, 2, n) * 0.99
    else:  # four runs averaged per item
        p = rng.uniform(0.2, 0.9, n)
        base = rng.binomial(4, p) / 4
        cand = rng.binomial(4, np.clip(p - 0.01, 0, 1)) / 4
    d = base - cand
    seconds, out = timed(permutation_aggregates, [d], m, 7, repeat=3)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put((seconds, peak, out.pooled))




def main() -> None:
    import argparse

    from evalgap.stats.aggregation import max_drop_p_value, max_drop_p_value_monte_carlo

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    args = parser.parse_args()
    n, m = (5_000, 10_000) if args.quick else (25_000, 100_000)
    t_exact, p_exact = timed(max_drop_p_value, KV_FP8_B, KV_FP8_C, repeat=50)
    t_mc, p_mc = timed(max_drop_p_value_monte_carlo, KV_FP8_B, KV_FP8_C, 100_000, 1)
    print("1. max-drop p-value, KV-FP8 (6 tasks)")
    print(f"   exact {t_exact * 1e3:8.3f} ms  p = {p_exact:.6f}   Monte Carlo S=100,000 "
          f"{t_mc * 1e3:8.1f} ms  p = {p_mc:.6f}   speed-up {t_mc / t_exact:6.0f}x")
    print(f"2. permutation pooled test, N = {n:,} graded items, m = {m:,}")
    for kind in ("continuous", "4 runs averaged"):
        seconds, peak, p = in_child(_permutation, kind, n, m)
        print(f"   {kind:16s} {seconds:6.2f} s   target < 5 s   ratio {seconds / 5:5.2f}   "
              f"peak memory {peak / 2**20:6.0f} MiB   target < 2048 MiB   (p = {p:.2e})")


if __name__ == "__main__":
    main()
