"""Configuration components of many models at once, measured side by side in one run.

    python benchmarks/bench_configurations.py           # 100 models x 10,000 items x 8 x 2
    python benchmarks/bench_configurations.py --quick   # 20 models x 2,000 items

Four ways over the same (models, items, configurations, replicates) array of normal scores
with known components, balanced and with 10% of scores missing (each model its own
pattern, so nothing of the count-table algebra is shared):

* ``one pass``: the cell totals (``np.nansum`` over replicates), the least any fit reads;
* ``numpy ANOVA``: the plain ANOVA sums of squares of every model as one writes them with
  NumPy (cell, item and configuration means, NaN-aware), vectorized over models, without the
  Henderson algebra, intervals or tests (on missing data these are not the fitted-constants
  sums of squares: its configuration mean square is shown beside the fit's);
* ``decompose_models``: every model's components, intervals, tests and mean intervals;
* ``per-model loop``: ``decompose(scores[m])`` for each model in turn.

Each step runs in a fresh process (its peak resident memory is its own), the steps
interleaved over ``--rounds`` rounds; the figure is the median CPU seconds (user + system of
that process, data generation excluded) and the ratio to ``numpy ANOVA``. One BLAS thread.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import resource  # noqa: E402

import numpy as np  # noqa: E402

from _child import in_child  # noqa: E402

COMPONENTS = np.array([0.04, 0.01, 0.01, 0.03])  # item, configuration, item x config, residual
STEPS = ("one pass", "numpy ANOVA", "decompose_models", "per-model loop")


def scores(shape: tuple[int, int, int, int], missing: float, seed: int = 0) -> np.ndarray:
    """Normal scores of the crossed random model, each model with its own effects."""
    rng = np.random.default_rng(seed)
    m, i, c, _ = shape
    sd = np.sqrt(COMPONENTS)
    y = rng.normal(0.0, sd[3], shape)
    y += rng.normal(0.6, sd[0], (m, i, 1, 1))
    y += rng.normal(0.0, sd[1], (m, 1, c, 1))
    y += rng.normal(0.0, sd[2], (m, i, c, 1))
    if missing:
        y[rng.random(shape) < missing] = np.nan
        y[:, :, :, 0] = np.where(np.isnan(y).all(axis=3), 0.6, y[:, :, :, 0])  # no empty cell
    return y


def anova_sums_of_squares(y: np.ndarray) -> np.ndarray:
    """The four ANOVA sums of squares of every model (the unweighted means when unbalanced)."""
    grand = np.nanmean(y, axis=(1, 2, 3), keepdims=True)
    cell = np.nanmean(y, axis=3, keepdims=True)
    item = np.nanmean(y, axis=(2, 3), keepdims=True)
    configuration = np.nanmean(y, axis=(1, 3), keepdims=True)
    _, i, c, r = y.shape
    return np.stack(
        [
            r * c * ((item - grand) ** 2).sum(axis=(1, 2, 3)),
            r * i * ((configuration - grand) ** 2).sum(axis=(1, 2, 3)),
            r * ((cell - item - configuration + grand) ** 2).sum(axis=(1, 2, 3)),
            np.nansum((y - cell) ** 2, axis=(1, 2, 3)),
        ],
        axis=1,
    )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _step(step: str, shape: tuple[int, int, int, int], missing: float, queue) -> None:
    from evalgap.stats import config_components as cc

    y = scores(shape, missing)
    start = _cpu()
    if step == "one pass":
        checksum = float(np.nansum(y, axis=3).sum())
    elif step == "numpy ANOVA":
        checksum = float(anova_sums_of_squares(y)[:, 1].sum())
    elif step == "decompose_models":
        checksum = float(cc.decompose_models(y).mean_squares[:, 1].sum())
    else:
        checksum = float(sum(cc.decompose(y[m]).mean_squares[1] for m in range(shape[0])))
    seconds = _cpu() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put((seconds, peak, checksum))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 models x 2,000 items")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    shape = (20, 2000, 8, 2) if args.quick else (100, 10_000, 8, 2)
    print(f"{shape[0]} models x {shape[1]:,} items x {shape[2]} configurations x "
          f"{shape[3]} replicates; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    for missing in (0.0, 0.1):
        runs: dict[str, list[tuple[float, float, float]]] = {step: [] for step in STEPS}
        for _ in range(args.rounds):
            for step in STEPS:
                runs[step].append(in_child(_step, step, shape, missing))
        label = "balanced" if not missing else f"{missing:.0%} missing"
        anova = float(np.median([r[0] for r in runs["numpy ANOVA"]]))
        print(f"\n{label}: median CPU s over {args.rounds} interleaved rounds")
        for step in STEPS:
            cpu = float(np.median([r[0] for r in runs[step]]))
            peak = max(r[1] for r in runs[step])
            print(f"  {step:<18} {cpu:7.2f} CPU s  {cpu / anova:5.2f} x numpy ANOVA  "
                  f"peak {peak:,.0f} MB")  # fmt: skip
        # the fitted configuration mean squares agree (numpy ANOVA's only when balanced)
        fitted = runs["decompose_models"][0][2], runs["per-model loop"][0][2]
        print(f"  sum of MS_configuration: {fitted[0]:.6g} (batch), {fitted[1]:.6g} (loop), "
              f"{runs['numpy ANOVA'][0][2] / 7:.6g} (numpy ANOVA)")  # fmt: skip
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
