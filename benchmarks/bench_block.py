"""Resampling block size: time of item bootstraps and sign flips for block sizes around the
cache sizes, at N in 1k, 20k, 100k items (graded differences, B = 2,000 draws).

    python benchmarks/bench_block.py

A block of ``rows x N`` drawn indices costs 12 bytes per element (int32 index + float64 value
picked); the table shows where the time per draw is lowest, which sets
``evalgap.stats.resample.BLOCK_ELEMENTS``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from evalgap.stats import resample


def timed(function, *args, repeat=3):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--exponents", type=int, nargs="+", default=[16, 17, 18, 19, 20, 21, 22])
    args = parser.parse_args()
    saved = resample.BLOCK_ELEMENTS
    print(f"{'N':>7}  {'block':>6}  {'MiB':>6}  {'bootstrap s':>11}  {'sign-flip s':>11}")
    try:
        for n in args.items:
            d = np.random.default_rng(0).normal(size=n)
            for e in args.exponents:
                resample.BLOCK_ELEMENTS = 2**e
                boot = timed(resample.bootstrap_means, d, args.draws, 0)
                flip = timed(resample.sign_flip_sums, d, args.draws, 0)
                print(f"{n:>7}  2^{e:<4}  {12 * 2**e / 2**20:6.1f}  {boot:11.3f}  {flip:11.3f}")
    finally:
        resample.BLOCK_ELEMENTS = saved


if __name__ == "__main__":
    main()
