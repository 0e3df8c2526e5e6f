"""The parts a :class:`~evalgap.CompareResult` carries on a scale other than the paired one.

A comparison's headline -- the gap, its SE, interval, test, N*, MDE and q -- is one
:class:`~evalgap.stats.pair_estimate.PairEstimate` on the board's scale. The paired scale
needs nothing more; the gold scale (PPI++, ``compare --gold-column``) adds how the gap was
made and how the judge departs from the gold (:class:`GoldScale`), and the design scale
(Horvitz-Thompson, ``compare --weights``) the sampling design's figures
(:class:`DesignScale`). They live here, below the jobs that fill them, so the one result
type can name them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalgap._results import Result, RowResult
from evalgap.stats import intervals

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, repr=False)
class GoldScore(RowResult):
    """One model's score on the gold scale, and how its judge departs from the gold.

    Attributes
    ----------
    model : str
        The model.
    score : float
        The PPI++ estimate of its mean gold score over the judged items.
    se : float
        Its standard error.
    ci : Interval
        Its Student-t interval (``n_gold - 1`` degrees of freedom; NaN ends when its SE is 0,
        as when a few labels all agree with the judge).
    judge_score : float
        The judge's mean over the same items.
    n_items, n_gold : int
        Items judged, and those with a gold label.
    lam : float
        The power-tuned weight on the judge (0: the gold labels alone).
    effective_n : float
        Gold labels whose mean alone would be as precise.
    bias : float
        The judge's mean score minus the gold's, on the labelled items.
    bias_ci : Interval
        Its paired t interval (NaN ends when the labelled items' differences do not vary:
        a zero-width interval would claim a certainty a few labels cannot give).
    bias_p_value : float
        Its two-sided test of no bias: the paired t test, or where the differences do not
        vary the exact sign test of the items that differ (1 when none does).
    agreement : float or None
        Binary scores: the share of labelled items where judge and gold agree; None for
        graded scores.
    correlation : float or None
        Pearson correlation of judge and gold on the labelled items (None when either is
        constant).
    """

    model: str
    score: float
    se: float
    ci: intervals.Interval
    judge_score: float
    n_items: int
    n_gold: int
    lam: float
    effective_n: float
    bias: float
    bias_ci: intervals.Interval
    bias_p_value: float
    agreement: float | None
    correlation: float | None
    _headline = ("model", "score", "bias")


@dataclass(frozen=True, repr=False)
class JudgeOnly(Result):
    """The judge's own comparison, as if its scores were the truth.

    Not a table (no ``to_frame()``): its figures are the last row of
    :meth:`GoldScale.to_frame`.

    Attributes
    ----------
    delta : float
        The judge's gap (A minus B) on the judged items.
    ci : Interval
        compare's interval for it.
    p_value : float
        compare's test of it (the exact McNemar test for binary scores, the paired t test
        for graded ones).
    test : str
        That test's name.
    required_n : int or None
        compare's N* for the judge's gap.
    resolution_ratio : float or None
        ``q = N / N*``.
    """

    delta: float
    ci: intervals.Interval
    p_value: float
    test: str
    required_n: int | None
    resolution_ratio: float | None
    _headline = ("delta", "p_value")


@dataclass(frozen=True, repr=False)
class GoldScale(Result):
    """The gold-scale part of a :class:`~evalgap.CompareResult` (``compare --gold-column``):
    how the PPI++ gap was made and how the judge departs from the gold.

    The result's ``delta``, ``se``, ``ci``, ``p_value``, ``required_n`` (gold labels),
    ``resolution_ratio`` and ``mde`` are the gap on the gold scale; this part holds the rest.
    :meth:`to_frame` gives the gap from the gold labels alone and the judge's own, to set
    beside the gold-scale one.

    Attributes
    ----------
    n_gold : int
        Items with a gold label for both models (the labels the gap uses).
    statistic : float
        The t statistic of ``delta = 0`` (``n_gold - 1`` degrees of freedom: the variance is
        mostly the labelled items').
    lam : float
        The power-tuned weight on the judge's gap (0: the gold labels alone).
    effective_n : float
        The gold labels whose paired differences alone would be as precise.
    gold_only_delta : float
        The gold labels' own mean difference (no judge).
    gold_only_ci : Interval
        Its t interval: the width PPI++ is measured against.
    gold_only_p : float
        Its t test's p-value (by ``alternative``).
    judge : JudgeOnly
        The judge-only comparison, kept beside the gold-scale one.
    models : tuple of GoldScore
        Model A's and model B's gold-scale scores and judge bias.
    bias_difference : float
        The judge's bias for A minus its bias for B, on the items labelled for both: how
        far the judge moves the gap (the judge's gap minus the gold's on those items).
    bias_difference_ci : Interval
        Its paired t interval.
    bias_difference_p : float
        Its two-sided paired t p-value (H0: the judge is as biased for both).
    judge_flips : bool
        Whether the judge reverses the comparison: the gold-scale gap is significant, the
        judge's gap points the other way, and the judge's bias differs between the two
        models (at alpha).
    width_ratio : float
        The PPI++ interval's width over the gold labels' own.
    design_gold, design_judged : int or None
        With ``cost_judge`` > 0: the gold labels and judged items that resolve the gap at
        the least cost (the two-phase allocation).
    design_cost : float or None
        That design's cost at ``cost_gold`` and ``cost_judge``.
    cost_gold, cost_judge : float
        The prices of a gold label and of a judged item (both models' answers).
    """

    n_gold: int
    statistic: float
    lam: float
    effective_n: float
    gold_only_delta: float
    gold_only_ci: intervals.Interval
    gold_only_p: float
    judge: JudgeOnly
    models: tuple[GoldScore, GoldScore]
    bias_difference: float
    bias_difference_ci: intervals.Interval
    bias_difference_p: float
    judge_flips: bool
    width_ratio: float
    design_gold: int | None
    design_judged: int | None
    design_cost: float | None
    cost_gold: float
    cost_judge: float
    _headline = ("n_gold", "lam", "bias_difference")

    def judge_frame(self, alpha: float = 0.05) -> pd.DataFrame:
        """Each model's gold-scale score and the judge against the gold (the layout of
        ``RanksResult.gold``, without its task), the bias flagged under Holm over the two
        models at ``alpha``."""
        return flag_judge_bias(judge_table(None, self.models), alpha).drop(columns="task")

    def to_frame(self) -> pd.DataFrame:
        """The gap from the gold labels alone and the judge's own, one row each, to set
        beside the result's gold-scale gap (``method``, ``delta``, ``delta_low``,
        ``delta_high``, ``p_value``, ``n_gold``)."""
        import pandas as pd

        rows = [
            ("gold labels only", self.gold_only_delta, self.gold_only_ci, self.gold_only_p,
             self.n_gold),
            (f"judge only ({self.judge.test})", self.judge.delta, self.judge.ci,
             self.judge.p_value, 0),
        ]  # fmt: skip
        return pd.DataFrame(
            [
                {"method": name, "delta": delta, "delta_low": float(ci.low),
                 "delta_high": float(ci.high), "p_value": p, "n_gold": n}
                for name, delta, ci, p, n in rows
            ]
        )  # fmt: skip


def judge_table(task: str | None, scores: Sequence[GoldScore]) -> pd.DataFrame:
    """Per model: the judge against the gold (the ``gold`` table of ``ranks``)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "task": task,
            "model": [g.model for g in scores],
            "score": [g.score for g in scores],
            "score_low": [float(g.ci.low) for g in scores],
            "score_high": [float(g.ci.high) for g in scores],
            "judge_score": [g.judge_score for g in scores],
            "n_gold": [g.n_gold for g in scores],
            "lam": [g.lam for g in scores],
            "effective_n": [g.effective_n for g in scores],
            "bias": [g.bias for g in scores],
            "bias_low": [float(g.bias_ci.low) for g in scores],
            "bias_high": [float(g.bias_ci.high) for g in scores],
            "bias_p_value": [g.bias_p_value for g in scores],
            "agreement": [g.agreement for g in scores],
            "correlation": [g.correlation for g in scores],
        }
    )


@dataclass(frozen=True, repr=False)
class DesignScale(Result):
    """The design-scale part of a :class:`~evalgap.CompareResult` (``compare --weights``):
    the sampling design behind the weighted (Horvitz-Thompson / Hajek) gap.

    The result's ``delta``, ``se``, ``ci``, ``p_value``, ``required_n`` (items a design
    like this one needs), ``resolution_ratio`` and ``mde`` are the weighted gap's; this
    part holds the rest.

    Attributes
    ----------
    n_strata : int or None
        Strata of the design (None: no strata given).
    unweighted_delta : float
        The plain mean difference of the sample (biased for the benchmark's gap when the
        items were drawn with unequal probabilities).
    statistic : float
        The Wald z of ``delta = 0``.
    weight_sum : float
        The sum of the weights as given (the benchmark items they stand for only when they
        are inverse probabilities).
    population_size : int or None
        The benchmark items the strata hold (the design's stratum sizes summed); None when
        the design gives no sizes (then there is no finite-population correction).
    effective_n : float
        Kish's effective sample size ``(sum w)^2 / sum w^2``.
    """

    n_strata: int | None
    unweighted_delta: float
    statistic: float
    weight_sum: float
    population_size: int | None
    effective_n: float
    _headline = ("n_strata", "effective_n")


def flag_judge_bias(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """``table`` (rows of :func:`judge_table`) with ``bias_flagged``: the models whose judge
    bias is significant under Holm over every row of the table (the family of models, and
    tasks, a verdict names), at level ``alpha``."""
    from evalgap.stats.multiplicity import adjust_p_values

    p = table["bias_p_value"].to_numpy(dtype=float)
    adjusted = adjust_p_values(p, "holm") if p.size else p
    return table.assign(bias_flagged=adjusted < alpha)
