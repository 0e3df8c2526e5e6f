"""Audit benchmark: all pairs of a large synthetic leaderboard, beside a naive per-pair loop.

    python benchmarks/bench_audit.py                    # K = 1,000 models, N = 20,000 items
    python benchmarks/bench_audit.py --models 200       # a smaller smoke run

The vectorized audit computes, for all K(K-1)/2 pairs (~500k), every statistic of the core
(2x2 counts by one matrix product, McNemar chi-square / exact / mid-p, N*, q, the e-process
boundary) and the fixed-n, Bonferroni, Sidak, Holm, BH and anytime-valid verdicts (target
< 20 s, peak memory < 4 GB). The naive loop computes the same per pair with scipy, one pair
at a time, on a subset; the ratio compares time per pair. Each side runs in its own process
so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from _child import in_child


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
    entries = tuple(ModelAlignment(m, "all", n, n, n, 0, 0, 0, 0, 1, float(means[j]))
                    for j, m in enumerate(models))
    task = TaskScores("all", np.arange(n).astype(str), scores, np.ones_like(scores, np.int64),
                      None)
    return ScoreSet(models, (task,), AlignmentReport(entries, {"all": n}, {"all": n}))


def _vectorized(n_models, n_items, queue) -> None:
    from evalgap.jobs.audit import audit_scores

    data = score_set(leaderboard(n_models, n_items))
    start = time.perf_counter()
    result = audit_scores(data, family="all", n_bootstrap=0, n_bootstrap_required_n=0,
                          use_clusters=False)
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




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--naive-pairs", type=int, default=2000)
    args = parser.parse_args()
    seconds, peak, n_pairs, unresolved = in_child(_vectorized, args.models, args.items)
    per_pair = in_child(_naive, args.models, args.items, args.naive_pairs)
    print(f"all pairs of {args.models:,} models x {args.items:,} items: {n_pairs:,} pairs")
    print(f"   vectorized audit  {seconds:7.1f} s   target < 20 s   ratio {seconds / 20:5.2f}   "
          f"peak memory {peak / 2**30:5.2f} GiB   target < 4 GiB")
    print(f"   naive loop        {per_pair * 1e6:7.0f} us per pair on {args.naive_pairs:,} "
          f"pairs -> {per_pair * n_pairs:7.0f} s for all   speed-up "
          f"{per_pair * n_pairs / seconds:6.0f}x")
    print("   unresolved: " + ", ".join(f"{k} {v:,}" for k, v in unresolved.items()))


if __name__ == "__main__":
    main()
