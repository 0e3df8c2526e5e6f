"""``compare --gold-column``: a judge's comparison corrected by gold labels on some items.

An LLM judge scores every item of both models; a gold score (a human, or a stronger judge)
exists on some of them, drawn at random. The gap on the gold scale is the paired PPI++
estimate (:mod:`evalgap.stats.ppi`; Angelopoulos, Duchi and Zrnic 2023): the judge's gap on
every item, corrected by the gold-minus-judge difference on the items labelled for both
models, with the power-tuned weight on the judge. Beside it: each model's gold-scale score,
the judge's bias per model and whether it differs between the two (the case where a judge
flips a comparison), the judge-only figures, and what it takes to resolve the gap: gold
labels, or gold labels and judged items at their prices (the two-phase allocation of
:func:`evalgap.stats.ppi.ppi_design`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from evalgap._results import Result, RowResult
from evalgap.errors import InputError, escape
from evalgap.stats import _validate, intervals
from evalgap.stats import ppi as sp
from evalgap.stats.power import mde, opposes_alternative, z_sum_squared

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.compare import CompareResult
    from evalgap.jobs.ranks import RanksResult
    from evalgap.stats._types import Alternative


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
        Its Student-t interval (``n_gold - 1`` degrees of freedom).
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
        Its paired t interval.
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
    agreement: float | None
    correlation: float | None
    _headline = ("model", "score", "bias")


@dataclass(frozen=True, repr=False)
class JudgeOnly(Result):
    """The judge's own comparison, as if its scores were the truth.

    Not a table (no ``to_frame()``): its figures are the last row of
    :meth:`GoldCompareResult.to_frame`.

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
class GoldCompareResult(RowResult):
    """The gap between two judged models on the gold scale (PPI++), with the judge's figures.

    Attributes
    ----------
    model_a, model_b : str
        The two models.
    n_items : int
        Items the judge scored for both models.
    n_gold : int
        Of them, items with a gold label for both models (the labels the gap uses).
    delta : float
        The PPI++ estimate of the gap (A minus B) on the gold scale.
    se : float
        Its standard error.
    ci : Interval
        Its two-sided ``1 - alpha`` Student-t interval (``n_gold - 1`` degrees of freedom:
        the variance is mostly the labelled items').
    statistic, p_value : float
        The t statistic of ``delta = 0`` and its p-value (by ``alternative``).
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
    required_gold : int or None
        Gold labels that resolve the estimated gap at (alpha, power), with the judged items
        there are (None: the gap is 0, lies against a one-sided alternative, or cannot be
        resolved without more judged items).
    resolution_ratio : float or None
        ``q``: the precision there is over the precision the gap needs, ``V* / se^2``
        (``N / N*`` when all items are labelled).
    mde : float
        The smallest gap this design resolves at (alpha, power).
    design_gold, design_judged : int or None
        With ``cost_judge`` > 0: the gold labels and judged items that resolve the gap at
        the least cost (the two-phase allocation).
    design_cost : float or None
        That design's cost at ``cost_gold`` and ``cost_judge``.
    cost_gold, cost_judge : float
        The prices of a gold label and of a judged item (both models' answers).
    alpha, power, alternative
        The settings.
    notes : tuple of str
        What was left out and why.
    verdict : str
        One plain sentence (a property).
    """

    model_a: str
    model_b: str
    n_items: int
    n_gold: int
    delta: float
    se: float
    ci: intervals.Interval
    statistic: float
    p_value: float
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
    required_gold: int | None
    resolution_ratio: float | None
    mde: float
    design_gold: int | None
    design_judged: int | None
    design_cost: float | None
    cost_gold: float
    cost_judge: float
    alpha: float
    power: float
    alternative: str
    notes: tuple[str, ...]
    _derived = ("verdict",)
    _headline = ("delta", "se", "p_value", "n_gold")

    @property
    def significant(self) -> bool:
        """Whether the gold-scale test rejects ``delta = 0`` at level alpha."""
        return self.p_value < self.alpha

    @property
    def judge_flips(self) -> bool:
        """Whether the judge's bias differs between the models (at alpha) and the judge's
        gap and the gold-scale gap point opposite ways."""
        return bool(
            self.bias_difference_p < self.alpha
            and np.sign(self.judge.delta) * np.sign(self.delta) < 0
        )

    def judge_frame(self) -> pd.DataFrame:
        """Each model's gold-scale score and the judge against the gold (the layout of
        ``RanksResult.gold``, without its task)."""
        return _judge_table(None, self.models).drop(columns="task")

    @property
    def width_ratio(self) -> float:
        """The PPI++ interval's width over the gold labels' own."""
        own = float(self.gold_only_ci.high - self.gold_only_ci.low)
        return float(self.ci.high - self.ci.low) / own if own > 0 else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The gap three ways, one row each: on the gold scale (PPI++), from the gold labels
        alone, and the judge's own (``estimate``, ``delta``, ``ci_low``, ``ci_high``,
        ``p_value``, ``n_gold``, ``n_items``)."""
        import pandas as pd

        rows = [
            ("gold scale (PPI++)", self.delta, self.ci, self.p_value, self.n_gold),
            ("gold labels only", self.gold_only_delta, self.gold_only_ci, self.gold_only_p,
             self.n_gold),
            (f"judge only ({self.judge.test})", self.judge.delta, self.judge.ci,
             self.judge.p_value, 0),
        ]  # fmt: skip
        return pd.DataFrame(
            [
                {"estimate": name, "delta": delta, "ci_low": float(ci.low),
                 "ci_high": float(ci.high), "p_value": p, "n_gold": n,
                 "n_items": self.n_items}
                for name, delta, ci, p, n in rows
            ]
        )  # fmt: skip

    @property
    def verdict(self) -> str:
        """One plain sentence."""
        from evalgap.report.sentences import gold_compare_verdict

        return gold_compare_verdict(self)


def gold_result(
    judge_a: np.ndarray,
    judge_b: np.ndarray,
    gold_a: np.ndarray,
    gold_b: np.ndarray,
    judge: CompareResult,
    *,
    model_a: str = "A",
    model_b: str = "B",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    cost_gold: float = 1.0,
    cost_judge: float = 0.0,
    notes: Sequence[str] = (),
) -> GoldCompareResult:
    """The gold-scale comparison of aligned arrays: both models' judge scores on every item,
    their gold scores NaN where unlabelled, and the judge-only :class:`CompareResult`."""
    notes = list(notes)
    both = ~(np.isnan(gold_a) | np.isnan(gold_b))
    n, big_n = int(both.sum()), int(judge_a.size)
    if n < 3:
        raise InputError(
            f"{n} item(s) have a gold label for both {model_a!r} and {model_b!r}; the "
            "gold-scale gap needs at least 3 (label more items for both models)"
        )
    one = int((~np.isnan(gold_a) ^ ~np.isnan(gold_b)).sum())
    if one:
        notes.append(
            f"{one:,} item(s) have a gold label for one model only: they enter that model's "
            "score and bias, not the gap (which needs both models' labels on an item)"
        )
    f = judge_a - judge_b
    y = gold_a[both] - gold_b[both]
    gap = sp.ppi_mean(f, f[both], y, alpha=alpha, alternative=alternative)
    own = sp.ppi_mean(f, f[both], y, alpha=alpha, lam=0.0, alternative=alternative)
    delta, se = float(gap["estimate"]), float(gap["se"])
    shift = sp.judge_bias(f[both], y, alpha=alpha)
    binary = bool(np.isin(np.concatenate([judge_a, judge_b]), (0.0, 1.0)).all())
    models = tuple(
        _model_score(m, fj, g, alpha, binary)
        for m, fj, g in ((model_a, judge_a, gold_a), (model_b, judge_b, gold_b))
    )
    target = delta**2 / float(z_sum_squared(alpha, power, alternative))
    against = bool(opposes_alternative(delta, alternative))
    a_term, b_term = float(gap["residual_variance"]), float(gap["judge_term"])
    required = design = None
    if delta != 0 and not against and a_term > 0:
        sizes = sp.ppi_design(
            a_term, b_term, abs(delta), alpha=alpha, power=power, alternative=alternative,
            n_judged=big_n,
        )  # fmt: skip
        required = int(sizes["n_gold"]) if np.isfinite(sizes["n_gold"]) else None
        if cost_judge > 0:
            design = sp.ppi_design(
                a_term, b_term, abs(delta), alpha=alpha, power=power, alternative=alternative,
                cost_gold=cost_gold, cost_judge=cost_judge,
            )  # fmt: skip
    ratio = target / se**2 if se > 0 and delta != 0 and not against else None
    return GoldCompareResult(
        model_a=model_a,
        model_b=model_b,
        n_items=big_n,
        n_gold=n,
        delta=delta,
        se=se,
        ci=intervals.Interval(
            np.float64(gap["low"]), np.float64(gap["high"]), "t (PPI++)", 1 - alpha
        ),
        statistic=float(gap["statistic"]),
        p_value=float(gap["p_value"]),
        lam=float(gap["lam"]),
        effective_n=float(gap["effective_n"]),
        gold_only_delta=float(own["estimate"]),
        gold_only_ci=intervals.Interval(
            np.float64(own["low"]), np.float64(own["high"]), "t (gold labels only)", 1 - alpha
        ),
        gold_only_p=float(own["p_value"]),
        judge=JudgeOnly(
            delta=judge.delta,
            ci=judge.ci,
            p_value=float(
                (judge.p_values.exact if judge.binary else judge.p_values.paired_t) or 1.0
            ),
            test="exact McNemar" if judge.binary else "paired t",
            required_n=judge.required_n,
            resolution_ratio=judge.resolution_ratio,
        ),
        models=models,  # type: ignore[arg-type]
        bias_difference=float(shift["bias"]),
        bias_difference_ci=intervals.Interval(
            np.float64(shift["low"]), np.float64(shift["high"]), "paired_t", 1 - alpha
        ),
        bias_difference_p=float(shift["p_value"]),
        required_gold=required,
        resolution_ratio=ratio,
        mde=float(mde(1, se, alpha=alpha, power=power, alternative=alternative)),
        design_gold=None if design is None else int(design["n_gold"]),
        design_judged=None if design is None else int(design["n_judged"]),
        design_cost=None if design is None else float(design["cost"]),
        cost_gold=float(cost_gold),
        cost_judge=float(cost_judge),
        alpha=float(alpha),
        power=float(power),
        alternative=alternative,
        notes=tuple(notes),
    )


def _model_score(
    model: str, judged: np.ndarray, gold: np.ndarray, alpha: float, binary: bool
) -> GoldScore:
    labelled = ~np.isnan(gold)
    n = int(labelled.sum())
    if n < 3:
        raise InputError(
            f"{n} item(s) have a gold label for {model!r}; its gold-scale score needs at least 3"
        )
    est = sp.ppi_mean(judged, judged[labelled], gold[labelled], alpha=alpha)
    bias = sp.judge_bias(judged[labelled], gold[labelled], alpha=alpha)
    binary = binary and bool(np.isin(gold[labelled], (0.0, 1.0)).all())
    corr = float(bias["correlation"])
    return GoldScore(
        model=model,
        score=float(est["estimate"]),
        se=float(est["se"]),
        ci=intervals.Interval(
            np.float64(est["low"]), np.float64(est["high"]), "t (PPI++)", 1 - alpha
        ),
        judge_score=float(judged.mean()),
        n_items=int(judged.size),
        n_gold=n,
        lam=float(est["lam"]),
        effective_n=float(est["effective_n"]),
        bias=float(bias["bias"]),
        bias_ci=intervals.Interval(
            np.float64(bias["low"]), np.float64(bias["high"]), "paired_t", 1 - alpha
        ),
        agreement=float(bias["agreement"]) if binary else None,
        correlation=corr if np.isfinite(corr) else None,
    )


def gold_set(
    data: ScoresInput | None,
    *,
    gold_column: str | None,
    gold: ScoresInput | None,
    models: Sequence[str],
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> tuple[ScoreSet, int]:
    """The gold scores of ``models`` as a ScoreSet, from a column of the scores table
    (empty where unlabelled) or from a second source; and the rows without a gold label."""
    from evalgap.jobs._inputs import long_scores, scores_of

    if (gold_column is None) == (gold is None):
        raise InputError(
            "give the gold labels one way: {gold_column} (a column of the scores table, "
            "empty where unlabelled) or {gold} (a second source)",
            param="gold_column",
        )
    if gold_column is not None:
        if not isinstance(gold_column, str):
            raise InputError(
                "{gold_column} names a column of the scores table; got "
                + escape(type(gold_column).__name__),
                param="gold_column",
            )
        if data is None:
            raise InputError(
                "{gold_column} names a column of a scores table, and a store keeps no such "
                "column: give the gold labels as a second source with {gold}",
                param="gold_column",
            )
        given = {k: v for k, v in columns.items() if k != "score_column"}
        try:
            long = long_scores(data, options=options, score_column=gold_column, **given)
        except InputError as error:  # name the gold labels, not "the score", as the role
            text = str(error)
            if f"no column {gold_column!r} (given for the score)" not in text:
                raise
            raise InputError(
                escape(text.replace("(given for the score)", "(given for the gold labels)"))
            ) from None
        if long.columns.get("score") != gold_column:
            raise InputError(
                escape(f"{long.source}: ")
                + "{gold_column} names a column of a scores table, and this source is not "
                "one; give the gold labels as a second source with {gold}",
                param="gold_column",
            )
    else:
        if isinstance(gold, (str, Path)) and not Path(gold).exists():
            raise InputError(
                "{gold}: no such file {value!r}; give a table of gold scores (model, item, "
                "score), or name a column of the scores table with {gold_column}",
                param="gold",
                value=str(gold),
            )
        long = long_scores(gold, options=None)
    frame = long.frame
    labelled = frame["score"].notna() & (frame["score"].astype(str).str.strip() != "")
    in_models = frame["model"].astype(str).isin([str(m) for m in models])
    unlabelled = int((~labelled & in_models).sum())
    chosen = frame[labelled & in_models]
    present = set(chosen["model"].astype(str))
    missing = [m for m in models if str(m) not in present]
    if missing:
        raise InputError(
            escape(f"{long.source}: no gold label for {missing[0]!r}; ")
            + "give gold scores for both models on some of the same items",
            param="gold_column" if gold_column is not None else "gold",
        )
    import pandas as pd

    value = pd.to_numeric(chosen["score"], errors="coerce")
    if value.isna().any():
        row = chosen.index[int(np.flatnonzero(value.isna().to_numpy())[0])]
        raise InputError(
            escape(
                f"{long.source}: row {int(row) + 1:,} has gold label "
                f"{chosen['score'].loc[row]!r}, not a number; "
            )
            + "give a number, or leave the cell empty where there is no gold label",
            param="gold_column" if gold_column is not None else "gold",
        )
    chosen = chosen.assign(score=value.to_numpy(dtype=float)).reset_index(drop=True)
    return scores_of(chosen, models=list(models), tasks=tasks), unlabelled


def _gold_rows(ids: np.ndarray, task: str, gold: ScoreSet, columns: list[int]) -> np.ndarray:
    """``(len(ids), len(columns))``: the gold scores of items ``ids`` of ``task`` for the
    gold set's model ``columns``, NaN where unlabelled."""
    out = np.full((ids.size, len(columns)), np.nan)
    g = next((t for t in gold.tasks if t.task == task), None)
    if g is None:
        return out
    position = {item: k for k, item in enumerate(np.asarray(g.item_ids).astype(str))}
    at = np.array([position.get(item, -1) for item in ids], dtype=np.int64)
    found = at >= 0
    out[found] = g.scores[np.ix_(at[found], np.asarray(columns, dtype=np.int64))]
    return out


def _unlabelled_note(unlabelled: int, gold_column: str | None) -> list[str]:
    """The note on the rows of the models compared that have no gold label."""
    if not unlabelled or gold_column is None:
        return []
    return [
        f"{unlabelled:,} of the models' rows have no gold label (empty {gold_column!r}): the "
        "judge's score stands there"
    ]


def _left_out_labels(gold: ScoreSet, columns: list[int], used: int) -> list[str]:
    """A note on the gold labels of ``columns`` not on any item the judge's scores use."""
    total = int(sum((~np.isnan(t.scores[:, columns])).sum() for t in gold.tasks))
    if total <= used:
        return []
    return [
        f"{total - used:,} gold label(s) are on items the judge did not score for the "
        "models compared and are left out"
    ]


def gold_pair(
    judged: ScoreSet, gold: ScoreSet, model_a: str, model_b: str
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Both models' gold scores on the items :meth:`ScoreSet.pair` returns for the judge
    (NaN where unlabelled), and notes on gold labels left out."""
    i, j = judged.model_index(model_a), judged.model_index(model_b)
    columns = [gold.model_index(model_a), gold.model_index(model_b)]
    parts = []
    for t in judged.tasks:
        ids = np.asarray(t.item_ids)[t.pair_rows(i, j)].astype(str)
        parts.append(_gold_rows(ids, t.task, gold, columns))
    rows = np.concatenate(parts) if parts else np.empty((0, 2))
    notes = _left_out_labels(gold, columns, int((~np.isnan(rows)).sum()))
    return rows[:, 0], rows[:, 1], notes


def compare_gold(
    data: ScoresInput | None,
    judged: ScoreSet,
    model_a: str,
    model_b: str,
    *,
    gold_column: str | None,
    gold: ScoresInput | None,
    cost_gold: float,
    cost_judge: float,
    settings: dict[str, Any],
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> GoldCompareResult:
    """``compare`` with gold labels: the judge's pair from ``judged``, the gold from a column
    of ``data`` or from the source ``gold``."""
    from evalgap.jobs.compare import compare_scores

    golden, unlabelled = gold_set(
        data, gold_column=gold_column, gold=gold, models=[model_a, model_b], tasks=tasks,
        options=options, **columns,
    )  # fmt: skip
    x, y = judged.pair(model_a, model_b)
    gold_a, gold_b, notes = gold_pair(judged, golden, model_a, model_b)
    notes[:0] = _unlabelled_note(unlabelled, gold_column)
    judge = compare_scores(
        x,
        y,
        model_a=model_a,
        model_b=model_b,
        alignment=judged.report,
        item_ids=judged.pair_items(model_a, model_b),
        **settings,
    )
    _validate.probability(settings["alpha"], "alpha")
    return gold_result(
        x, y, gold_a, gold_b, judge,
        model_a=model_a, model_b=model_b, alpha=settings["alpha"], power=settings["power"],
        alternative=settings["alternative"], cost_gold=cost_gold, cost_judge=cost_judge,
        notes=notes,
    )  # fmt: skip


def ranks_gold(
    judged: ScoreSet,
    gold: ScoreSet,
    *,
    unlabelled: int,
    gold_column: str | None,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
) -> RanksResult:
    """Rank sets on the gold scale: per task, every model's PPI++ score on the items the
    judge scored for every model, and the simultaneous sets from the normal law of their
    joint covariance (:func:`evalgap.stats.ppi.ppi_joint`, shared items making the
    estimates covary), with each model's judge bias and agreement in ``RanksResult.gold``."""
    import pandas as pd

    from evalgap.jobs.ranks import RanksResult, _one_method, _rank_frame, _top_models
    from evalgap.stats import ranks as rk
    from evalgap.stats import resample

    alpha = float(_validate.probability(alpha, "alpha"))
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    rk.check_replicates(n_bootstrap, alpha)
    rows, marginal_rows, judge_rows, notes = [], [], [], []
    methods: dict[str, str] = {}
    better, top, critical = {}, {}, {}
    notes.extend(_unlabelled_note(unlabelled, gold_column))
    used = 0
    columns = [gold.model_index(m) for m in judged.models]
    for task in judged.tasks:
        complete = ~np.isnan(task.scores).any(axis=1)
        if not complete.all():
            notes.append(
                f"task {task.task}: {int((~complete).sum()):,} item(s) not judged for every "
                "model are left out (the gold-scale scores share their items)"
            )
        ids = np.asarray(task.item_ids)[complete].astype(str)
        f = task.scores[complete].T
        y = _gold_rows(ids, task.task, gold, columns).T
        used += int((~np.isnan(y)).sum())
        n_gold = (~np.isnan(y)).sum(axis=1)
        keep = n_gold >= 3
        for name in np.array(judged.models)[~keep]:
            notes.append(
                f"task {task.task}: {name} has fewer than 3 gold labels on the items judged for "
                "every model and is left out of the gold-scale ranks"
            )
        models = np.array(judged.models)[keep]
        if models.size < 2 or f.shape[1] < 3:
            notes.append(f"task {task.task}: fewer than 2 models with gold labels, no ranks")
            continue
        f, y = f[keep], y[keep]
        joint = sp.ppi_joint(f, y)
        stream = resample.child_seed(seed, "ranks")  # the same stream for every task
        rng = np.random.Generator(np.random.PCG64(stream))
        draws = rng.multivariate_normal(joint["estimate"], joint["covariance"], n_bootstrap)
        sets = rk.rank_sets_from_draws(
            joint["estimate"], joint["covariance"], draws, alpha=alpha, top_k=top_k,
            n=np.full(models.size, f.shape[1]),
        )  # fmt: skip
        binary = bool(np.isin(f, (0.0, 1.0)).all())
        scores = [
            _model_score(str(m), f[k], y[k], alpha, binary) for k, m in enumerate(models)
        ]
        order = np.lexsort((models, np.asarray(sets.rank)))
        frame = _rank_frame(task.task, models, sets, order, alpha)
        # each model's score, SE and interval are its own PPI++ (as compare gives them)
        by_model = {g.model: g for g in scores}
        frame["se"] = [by_model[m].se for m in frame["model"]]
        frame["score_low"] = [float(by_model[m].ci.low) for m in frame["model"]]
        frame["score_high"] = [float(by_model[m].ci.high) for m in frame["model"]]
        rows.append(frame)
        marginal_rows.append(
            frame.assign(
                rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
                rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
            )
        )
        judge_rows.append(_judge_table(task.task, [by_model[m] for m in frame["model"]]))
        methods[task.task] = "max-t stepdown, normal-law draws (PPI++ gold scale)"
        critical[task.task] = float(sets.critical_value)
        better[task.task] = np.asarray(sets.shown_better, dtype=bool)[np.ix_(order, order)]
        if top_k is not None:
            top[task.task] = _top_models(models, sets)
    if not rows:
        raise InputError("nothing to rank on the gold scale: no task has 2 models with gold labels")
    notes.extend(_left_out_labels(gold, columns, used))
    notes.append(
        "gold scale: each score is the model's PPI++ estimate (judge corrected by the gold "
        "labels); the rank sets come from the normal law of the estimates' joint covariance; "
        "the rank sets over tasks and the items to flip are not computed on the gold scale"
    )
    return RanksResult(
        method=_one_method(methods),
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        ranks=pd.concat(rows, ignore_index=True),
        marginal=pd.concat(marginal_rows, ignore_index=True),
        methods=methods,
        top_k={"k": int(top_k), "models": top} if top_k is not None else None,
        shown_better=better,
        notes=(*judged.report.messages(), *notes),
        alignment=judged.report,
        critical_values=critical,
        gold=pd.concat(judge_rows, ignore_index=True),
    )



def _judge_table(task: str | None, scores: Sequence[GoldScore]) -> pd.DataFrame:
    """Per model: the judge against the gold (the ``gold`` table of ``ranks``)."""
    import pandas as pd

    return pd.DataFrame(
        {
            "task": task,
            "model": [g.model for g in scores],
            "score": [g.score for g in scores],
            "ci_low": [float(g.ci.low) for g in scores],
            "ci_high": [float(g.ci.high) for g in scores],
            "judge_score": [g.judge_score for g in scores],
            "n_gold": [g.n_gold for g in scores],
            "lam": [g.lam for g in scores],
            "effective_n": [g.effective_n for g in scores],
            "bias": [g.bias for g in scores],
            "bias_low": [float(g.bias_ci.low) for g in scores],
            "bias_high": [float(g.bias_ci.high) for g in scores],
            "agreement": [g.agreement for g in scores],
            "correlation": [g.correlation for g in scores],
        }
    )
