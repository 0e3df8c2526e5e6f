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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result, RowResult, TableResult
from evalgap.errors import InputError
from evalgap.jobs._pages import Views
from evalgap.stats import _validate, multiplicity, resample
from evalgap.stats import ppi as sp
from evalgap.stats._types import ArrayLike
from evalgap.stats.tests import paired_t_from_moments

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions


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
class JudgeBiasFlags(Result):
    """How often the per-model judge-bias flags of ``ranks``/``audit``/``card`` (Holm over
    the models) name a model whose judge is unbiased, over simulated label sets.

    Attributes
    ----------
    n_models : int
        Models of the board (the family the flags are adjusted over).
    n_unbiased : int
        Of them, models whose true bias is exactly 0 (their gold drawn from the judge).
    n_trials : int
        Label sets simulated (each labels ``label_share`` of the items for every model).
    family_wise_holm : float
        Share of label sets in which Holm flags at least one unbiased model (the
        family-wise error the flags control at alpha).
    family_wise_unadjusted : float
        The same without adjustment (each model's own test at alpha), for contrast.
    monte_carlo_se : float
        Monte Carlo SE of a rate of alpha over ``n_trials`` label sets.
    """

    n_models: int
    n_unbiased: int
    n_trials: int
    family_wise_holm: float
    family_wise_unadjusted: float
    monte_carlo_se: float
    _headline = ("family_wise_holm", "family_wise_unadjusted")


@dataclass(frozen=True, repr=False)
class GoldCoverageResult(Views, TableResult):
    """Coverage of the gold-scale gap over pairs of a judged board.

    Attributes
    ----------
    pairs : tuple of GoldPairCoverage
        One row per pair (from :func:`gold_study`, the flipped pair first).
    n_trials : int
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
    bias_flags : JudgeBiasFlags or None
        With models whose judge is unbiased (``bias_low = bias_high = 0`` makes them all
        so): how often the Holm-adjusted judge-bias flags name one of them; None otherwise.
    """

    pairs: tuple[GoldPairCoverage, ...]
    n_trials: int
    label_share: float
    alpha: float
    coverage: float
    gold_only_coverage: float
    monte_carlo_se: float
    width_ratio: float
    bias_flags: JudgeBiasFlags | None = None
    _rows = "pairs"
    _headline = ("coverage", "gold_only_coverage", "width_ratio")
    _derived = ("verdict",)

    @property
    def verdict(self) -> str:
        """One sentence: the coverage against its floor, the width saved, the flipped pairs."""
        from evalgap.report.sentences import gold_study_verdict

        return gold_study_verdict(self)

    _heading: ClassVar[str] = "evalgap simulate gold"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_gold_coverage

        render_gold_coverage(self, console)


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
    rows = [
        _pair_coverage(f[i], f[j], b[i], b[j], (names[i], names[j]), label_share, runs, alpha, rng)
        for i, j in pairs
    ]
    return _summary(rows, runs, label_share, alpha)


def _pair_coverage(
    judge_a: np.ndarray,
    judge_b: np.ndarray,
    bias_a: float,
    bias_b: float,
    names: tuple[str, str],
    label_share: float,
    runs: int,
    alpha: float,
    rng: np.random.Generator,
) -> GoldPairCoverage:
    """One pair's runs: PPI++ and the gold labels alone against the known gold-scale gap."""
    both = ~(np.isnan(judge_a) | np.isnan(judge_b))
    fa, fb = judge_a[both], judge_b[both]
    pa, pb = np.clip(fa - bias_a, 0, 1), np.clip(fb - bias_b, 0, 1)
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
    return GoldPairCoverage(
        model_a=names[0],
        model_b=names[1],
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


def bias_flags(
    judge: np.ndarray, bias: np.ndarray, *, label_share: float, runs: int, alpha: float,
    rng: np.random.Generator,
) -> JudgeBiasFlags | None:  # fmt: skip
    """Label ``label_share`` of the items for every model in each of ``runs`` label sets
    (gold 1 with probability ``clip(judge - bias)``), test each model's judge bias as the
    views do (paired t, the exact sign test where the differences do not vary) and count
    the sets in which a model of bias 0 is flagged, under Holm over all models and
    unadjusted; None when no model's bias is 0."""
    unbiased = bias == 0
    if not unbiased.any():
        return None
    k, n_items = judge.shape
    n = max(round(label_share * n_items), 3)
    chosen = np.argsort(rng.random((runs, n_items)), axis=1)[:, :n]  # the same items for all
    f = judge[:, chosen].transpose(1, 0, 2)  # (runs, models, n)
    p_gold = np.clip(f - bias[None, :, None], 0, 1)
    y = np.where(np.isnan(f), np.nan, (rng.random(f.shape) < p_gold).astype(float))
    d = f - y
    count = (~np.isnan(d)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(d, axis=-1)
        sd = np.nanstd(d, axis=-1, ddof=1)
    p = np.asarray(paired_t_from_moments(mean, sd, count).p_value, dtype=float)
    p = sp.bias_p_value(p, sd, (np.nan_to_num(d) != 0).sum(axis=-1))
    p = np.where(count >= 2, p, 1.0)  # a model with fewer labels is not tested
    holm = multiplicity.holm_rows(p) < alpha
    return JudgeBiasFlags(
        n_models=int(k),
        n_unbiased=int(unbiased.sum()),
        n_trials=int(runs),
        family_wise_holm=float(holm[:, unbiased].any(axis=1).mean()),
        family_wise_unadjusted=float((p[:, unbiased] < alpha).any(axis=1).mean()),
        monte_carlo_se=float(resample.monte_carlo_se(alpha, runs)),
    )


def _summary(
    rows: list[GoldPairCoverage], runs: int, label_share: float, alpha: float,
    flags: JudgeBiasFlags | None = None,
) -> GoldCoverageResult:  # fmt: skip
    """The pairs' rows with their coverage over every run and its Monte Carlo SE."""
    level = 1 - alpha
    return GoldCoverageResult(
        pairs=tuple(rows),
        n_trials=runs,
        label_share=float(label_share),
        alpha=float(alpha),
        coverage=float(np.mean([r.coverage for r in rows])),
        gold_only_coverage=float(np.mean([r.gold_only_coverage for r in rows])),
        monte_carlo_se=float(resample.monte_carlo_se(level, runs * len(rows))),
        width_ratio=float(np.nanmedian([r.width_ratio for r in rows])),
        bias_flags=flags,
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


def gold_study(
    scores: ScoresInput,
    *,
    n_pairs: int = 60,
    n_trials: int = 1000,
    label_share: float = 0.1,
    bias_low: float = -0.05,
    bias_high: float = 0.10,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[..., object] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> GoldCoverageResult:
    """Return the coverage of the gold-scale gap (``compare --gold-column``) on a judged board.

    The judge's scores of the board (one task) are taken as given and gold labels simulated
    from them (:func:`gold_coverage`) with a bias per model drawn uniformly in
    ``[bias_low, bias_high]``; one pair is built to flip (:func:`flipped_pair`: the two
    models closest in the judge's mean, the judge's favourite given ``bias_high`` and the
    other ``bias_low``; with a binary judge the bias moves only the items the judge scored 1,
    and the pair may not flip), and ``n_pairs`` random pairs stand beside it. ``evalgap simulate
    gold`` runs it; ``benchmarks/bench_gold.py`` runs it on AlpacaEval.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list
        The judge's scores in [0, 1] (any source :func:`evalgap.load_scores` reads).
    n_pairs : int
        Random pairs beside the flipped one.
    n_trials : int
        Runs per pair (each labels ``label_share`` of the pair's items, at least 3).
    label_share, alpha
        As for :func:`gold_coverage`.
    bias_low, bias_high : float
        The range of the models' judge biases.
    seed : int or None
        Seed of the biases, the pairs and the labels (each pair its own stream, so the
        results do not depend on ``jobs``).
    jobs : int
        Processes to spread the pairs over.
    progress : callable, optional
        Called as ``progress(done, total)`` after each pair.
    tasks, strict, complete_case, options, **columns
        How to read and align the scores, as for :func:`evalgap.audit`.

    Returns
    -------
    GoldCoverageResult
        The flipped pair first, then the random pairs; the coverage over every run.

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.gold_study("examples/board.csv", n_pairs=3, n_trials=200)
    >>> len(r.pairs), r.n_trials, bool(r.coverage >= 0.95 - 2 * r.monte_carlo_se)
    (4, 200, True)
    """
    from evalgap.jobs._inputs import scores_of
    from evalgap.jobs.simulate import run_chunks, study_count

    n_pairs = _validate.whole_number(n_pairs, "n_pairs", 0)
    n_trials = study_count(n_trials, "n_trials", 2)
    _validate.probability(label_share, "label_share")
    alpha = float(_validate.probability(alpha, "alpha"))
    if not bias_low <= bias_high:
        raise InputError(
            "{bias_low!b} must be at most {bias_high}", param="bias_low", bias_high=bias_high
        )
    board = scores_of(
        scores, tasks=tasks, strict=strict, complete_case=complete_case, options=options,
        **columns,
    )  # fmt: skip
    if len(board.tasks) != 1:
        there = ", ".join(t.task for t in board.tasks)
        raise InputError(f"the gold study takes one task; name one with {{tasks}} ({there})",
                         param="tasks")  # fmt: skip
    judge = np.asarray(board.tasks[0].scores, dtype=float).T
    stream = resample.child_seed(seed, "gold_study")
    rng = np.random.default_rng(stream)
    bias = rng.uniform(bias_low, bias_high, judge.shape[0])
    flip = flipped_pair(judge, bias, bias_low, bias_high)
    pairs = [flip] + [
        (int(i), int(j))
        for i, j in (rng.choice(judge.shape[0], 2, replace=False) for _ in range(n_pairs))
    ]
    names = [str(m) for m in board.models]
    streams = stream.spawn(len(pairs))
    chunks = [
        (judge[i], judge[j], bias[i], bias[j], (names[i], names[j]), label_share, n_trials,
         alpha, np.random.default_rng(stream))
        for (i, j), stream in zip(pairs, streams, strict=True)
    ]  # fmt: skip
    rows = run_chunks(_pair_coverage, chunks, jobs, progress)
    flags = bias_flags(
        judge, bias, label_share=label_share, runs=n_trials, alpha=alpha,
        rng=np.random.default_rng(resample.child_seed(seed, "gold_study", key=(1,))),
    )  # fmt: skip
    return _summary(rows, n_trials, label_share, alpha, flags)
