"""How well the gold-scale gap of ``compare --gold-column`` covers, on a judged board.

The judge's scores of a real board (AlpacaEval's judge preferences, say) are taken as
given; gold labels are simulated from them with a known bias per model: model m's gold
score on item i is 1 with probability ``clip(f_mi - bias_m, 0, 1)`` (a human who agrees
with the judge on average, less the judge's leniency toward m). The true gold-scale gap of
a pair is then known exactly, ``mean_i [clip(f_ai - bias_a) - clip(f_bi - bias_b)]``, and a
bias that differs between two models can reverse the judge's order. Each run labels a
random ``label_share`` of the pair's items for both models and estimates the gap by paired
PPI++ (:func:`evalgap.stats.ppi.ppi_mean`, as ``compare --gold-column`` does) and by the gold
labels alone; the runs are vectorized.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap._results import RowResult, TableResult
from evalgap.errors import InputError
from evalgap.stats import _validate, resample
from evalgap.stats import ppi as sp
from evalgap.stats._types import ArrayLike


@dataclass(frozen=True, repr=False)
class GoldPairCoverage(RowResult):
    """One pair's simulated runs.

    Attributes
    ----------
    model_a, model_b : str
        The pair.
    n_items, n_gold : int
        Items both models were judged on, and gold labels per run.
    judge_gap, true_gap : float
        The judge's gap and the true gold-scale gap.
    coverage, gold_only_coverage : float
        Share of runs whose PPI++ (gold labels only) interval holds the true gap.
    width, gold_only_width : float
        Median interval widths.
    width_ratio : float
        ``width / gold_only_width``.
    flipped : bool
        Whether the judge's gap and the true gap have opposite signs.
    """

    model_a: str
    model_b: str
    n_items: int
    n_gold: int
    judge_gap: float
    true_gap: float
    coverage: float
    gold_only_coverage: float
    width: float
    gold_only_width: float
    width_ratio: float
    flipped: bool
    _headline = ("model_a", "model_b", "coverage", "width_ratio")


@dataclass(frozen=True, repr=False)
class GoldCoverageResult(TableResult):
    """Coverage of the gold-scale gap over pairs of a judged board.

    Attributes
    ----------
    pairs : tuple of GoldPairCoverage
        One row per pair.
    runs : int
        Runs per pair.
    label_share : float
        Share of each pair's items labelled per run.
    alpha : float
        One minus the intervals' level.
    coverage, gold_only_coverage : float
        Over every run of every pair.
    monte_carlo_se : float
        The Monte Carlo SE of a coverage of ``1 - alpha`` over that many runs.
    width_ratio : float
        Median over pairs of the PPI++ width over the gold-only width.
    """

    pairs: tuple[GoldPairCoverage, ...]
    runs: int
    label_share: float
    alpha: float
    coverage: float
    gold_only_coverage: float
    monte_carlo_se: float
    width_ratio: float
    _rows = "pairs"
    _headline = ("coverage", "gold_only_coverage", "width_ratio")


def gold_coverage(
    judge: ArrayLike,
    bias: ArrayLike,
    pairs: list[tuple[int, int]],
    *,
    models: list[str] | None = None,
    label_share: float = 0.1,
    runs: int = 400,
    alpha: float = 0.05,
    seed: int = 0,
) -> GoldCoverageResult:
    """Simulate gold labels from a judged board and measure the gold-scale gap's coverage.

    Parameters
    ----------
    judge : array_like, (models, items)
        The judge's scores in [0, 1], NaN where a model was not judged.
    bias : array_like, (models,)
        Each model's judge bias: its gold score is 1 with probability
        ``clip(judge - bias, 0, 1)``.
    pairs : list of (int, int)
        Rows of ``judge`` to compare.
    models : list of str, optional
        The rows' names.
    label_share : float
        Share of a pair's items labelled per run (for both models).
    runs : int
        Runs per pair.
    alpha : float
        One minus the intervals' level.
    seed : int
        Seed of the labels and of the labelled items.

    Returns
    -------
    GoldCoverageResult
    """
    f = np.asarray(judge, dtype=float)
    b = np.asarray(bias, dtype=float)
    if f.ndim != 2 or b.shape != (f.shape[0],):
        raise InputError(
            "{judge!b} must be (models, items) and {bias!n} one number per model", param="judge"
        )
    if ((f[~np.isnan(f)] < 0) | (f[~np.isnan(f)] > 1)).any():
        raise InputError(
            "the scores of {judge!n} must lie in [0, 1] to simulate gold labels", param="judge"
        )
    _validate.probability(label_share, "label_share")
    runs = _validate.whole_number(runs, "runs", 2)
    names = models or [str(m) for m in range(f.shape[0])]
    rng = np.random.default_rng(seed)
    rows = []
    for i, j in pairs:
        both = ~(np.isnan(f[i]) | np.isnan(f[j]))
        fa, fb = f[i, both], f[j, both]
        pa, pb = np.clip(fa - b[i], 0, 1), np.clip(fb - b[j], 0, 1)
        n_items = int(both.sum())
        n = max(round(label_share * n_items), 3)
        true_gap = float((pa - pb).mean())
        d_f = fa - fb
        # each run: its labelled items, and both models' gold labels on them
        chosen = np.argsort(rng.random((runs, n_items)), axis=1)[:, :n]
        ya = (rng.random((runs, n)) < pa[chosen]).astype(float)
        yb = (rng.random((runs, n)) < pb[chosen]).astype(float)
        f_all = np.broadcast_to(d_f, (runs, n_items))
        out = {}
        for name, lam in (("ppi", None), ("gold", 0.0)):
            r = sp.ppi_mean(f_all, d_f[chosen], ya - yb, alpha=alpha, lam=lam)
            covered = (r["low"] <= true_gap) & (true_gap <= r["high"])
            out[name] = (float(covered.mean()), float(np.median(r["high"] - r["low"])))
        judge_gap = float(d_f.mean())
        rows.append(
            GoldPairCoverage(
                model_a=names[i],
                model_b=names[j],
                n_items=n_items,
                n_gold=n,
                judge_gap=judge_gap,
                true_gap=true_gap,
                coverage=out["ppi"][0],
                gold_only_coverage=out["gold"][0],
                width=out["ppi"][1],
                gold_only_width=out["gold"][1],
                width_ratio=out["ppi"][1] / out["gold"][1] if out["gold"][1] > 0 else np.nan,
                flipped=bool(judge_gap * true_gap < 0),
            )
        )
    level = 1 - alpha
    return GoldCoverageResult(
        pairs=tuple(rows),
        runs=runs,
        label_share=float(label_share),
        alpha=float(alpha),
        coverage=float(np.mean([r.coverage for r in rows])),
        gold_only_coverage=float(np.mean([r.gold_only_coverage for r in rows])),
        monte_carlo_se=float(resample.monte_carlo_se(level, runs * len(rows))),
        width_ratio=float(np.nanmedian([r.width_ratio for r in rows])),
    )


def flipped_pair(
    judge: ArrayLike, bias: np.ndarray, low: float = -0.05, high: float = 0.10
) -> tuple[int, int]:
    """Make a pair the judge misorders: the two models closest in the judge's mean score
    (away from the floor and the ceiling), the judge's favourite given bias ``high`` and
    the other ``low`` (``bias`` is changed in place). Returns (favourite, other)."""
    f = np.asarray(judge, dtype=float)
    mean = np.nanmean(f, axis=1)
    order = np.argsort(mean)
    middle = order[(mean[order] > 0.1) & (mean[order] < 0.9)]
    if middle.size < 2:
        raise InputError("no two models with a mean judge score inside (0.1, 0.9) to flip")
    k = int(np.argmin(np.diff(mean[middle])))
    favourite, other = int(middle[k + 1]), int(middle[k])
    bias[favourite], bias[other] = high, low
    return favourite, other
