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

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.jobs._scale_parts import (
    GoldScale,
    GoldScore,
    JudgeOnly,
    flag_judge_bias,
    judge_table,
)
from evalgap.stats import _validate, intervals
from evalgap.stats import pair_estimate as pe
from evalgap.stats import ppi as sp
from evalgap.stats.power import mde, opposes_alternative

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import LongScores, ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs._ranks_result import RanksResult
    from evalgap.jobs.compare_pair import CompareResult
    from evalgap.stats._types import Alternative
    from evalgap.stats.ranks import RankSets


def judge_reverses(
    p_value: float, bias_p: float, judge_delta: float, delta: float, alpha: float
) -> bool:
    """Whether a judge reverses a comparison: the gold-scale gap is significant, the judge's
    gap points the other way, and the judge's bias differs between the two models."""
    return bool(p_value < alpha and bias_p < alpha and np.sign(judge_delta) * np.sign(delta) < 0)


MIN_GOLD = pe.MIN_GOLD  # gold labels a t interval needs at the least (two degrees of freedom)
FEW_GOLD = 80  # below it, a note: the t interval covered 0.95 from there (bench_gold.py)


def gold_result(
    judge_a: np.ndarray,
    judge_b: np.ndarray,
    gold_a: np.ndarray,
    gold_b: np.ndarray,
    judge: CompareResult,
    *,
    strata: np.ndarray | None = None,
    stratum: str = "task",
    model_a: str = "A",
    model_b: str = "B",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    cost_gold: float = 1.0,
    cost_judge: float = 0.0,
    notes: Sequence[str] = (),
) -> CompareResult:
    """The gold-scale comparison of aligned arrays: both models' judge scores on every item,
    their gold scores NaN where unlabelled, and the judge-only :class:`CompareResult`;
    ``strata`` (a task, or ``stratum``, per item) makes the estimate stratified
    (:func:`evalgap.stats.ppi.ppi_stratified`)."""
    notes = list(notes)
    both = ~(np.isnan(gold_a) | np.isnan(gold_b))
    n, big_n = int(both.sum()), int(judge_a.size)
    label = np.zeros(big_n, dtype=np.int64) if strata is None else _codes(strata)
    names = ["all"] if strata is None else list(dict.fromkeys(np.asarray(strata).tolist()))
    _refuse_few_labelled(both, label, names, strata is not None, stratum, (model_a, model_b))
    one = int((~np.isnan(gold_a) ^ ~np.isnan(gold_b)).sum())
    if one:
        notes.append(
            f"{one:,} item(s) have a gold label for one model only: they enter that model's "
            "score and bias, not the gap (which needs both models' labels on an item)"
        )
    fig = gap_figures(
        judge_a - judge_b, gold_a - gold_b, label, alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    estimate, own, shift, se = fig["estimate"], fig["own"], fig["shift"], fig["se"]
    if not se > 0:
        raise InputError(
            escape(
                f"the {n} gold labels of {model_a!r} and {model_b!r} differ by the same "
                "amount on every item and the judge adds nothing to them: the gap's standard "
                "error is 0 and no interval can be given; label more items"
            ),
            param="gold_column",
        )
    fewest = int(np.bincount(label[both], minlength=len(names)).min())
    if fewest < FEW_GOLD:
        where = "the items labelled for both models"
        if len(names) > 1:
            where += f" in a {stratum} (of {n} in all)"
        notes.append(_few_labels_note(fewest, where))
    models = tuple(
        _model_score(m, fj, g, alpha, strata=strata)
        for m, fj, g in ((model_a, judge_a, gold_a), (model_b, judge_b, gold_b))
    )
    design = _two_phase_design(
        estimate, alpha=alpha, power=power, alternative=alternative, cost_gold=cost_gold,
        cost_judge=cost_judge,
    )  # fmt: skip
    if strata is not None and len(names) > 1:
        notes.append(
            f"stratified by {stratum} ({len(names)} {'strata' if stratum == 'stratum' else 'tasks'}"
            f"): each {stratum}'s PPI++ "
            f"estimate is weighted by its judged items, so the labels need only be random "
            f"within each {stratum}"
        )
    delta = fig["delta"]
    part = GoldScale(
        n_gold=n,
        statistic=estimate.parts["statistic"],
        lam=estimate.parts["lam"],
        effective_n=float(estimate.effective_n),
        **_gold_only_and_bias(own, shift, alpha),
        judge=_judge_only(judge),
        models=models,  # type: ignore[arg-type]
        judge_flips=judge_reverses(
            float(estimate.p_value), float(shift["p_value"]), judge.delta, delta, alpha
        ),
        width_ratio=_width_ratio(estimate.ci, own),
        **design,
        cost_gold=float(cost_gold),
        cost_judge=float(cost_judge),
    )
    from evalgap.jobs.compare_pair import scaled

    return scaled(
        judge, estimate, accuracy=(models[0].score, models[1].score),
        mde=float(mde(1, se, alpha=alpha, power=power, alternative=alternative)),
        notes=notes, gold=part,
    )  # fmt: skip


def _width_ratio(ci: intervals.Interval, own: dict[str, Any]) -> float:
    """The PPI++ interval's width over the gold labels' own (NaN when theirs is 0)."""
    width = float(own["high"]) - float(own["low"])
    return float(ci.high - ci.low) / width if width > 0 else float("nan")


def _refuse_few_labelled(
    both: np.ndarray, label: np.ndarray, names: Sequence[object], stratified: bool,
    stratum: str, pair: tuple[str, str],
) -> None:  # fmt: skip
    """Refuse a gap with fewer than ``MIN_GOLD`` items labelled for both models of ``pair``
    in a stratum (``names[k]`` is the stratum of ``label == k``)."""
    for k, name in enumerate(names):
        inside = label == k
        if int((both & inside).sum()) >= MIN_GOLD:
            continue
        where = f"{stratum} {name!r} has" if stratified else "there are"
        raise InputError(
            escape(
                f"{where} {int((both & inside).sum())} item(s) labelled for both "
                f"{pair[0]!r} and {pair[1]!r} (of {int(inside.sum()):,} judged); the "
                f"gold-scale gap needs at least {MIN_GOLD} in every {stratum}: label more "
                "items for both models"
            )
            + (", or leave the task out with {tasks}" if stratified and stratum == "task" else ""),
            param=("tasks" if stratum == "task" else "strata") if stratified else "gold_column",
        )


def _two_phase_design(
    estimate: pe.PairEstimate, *, alpha: float, power: float, alternative: Alternative,
    cost_gold: float, cost_judge: float,
) -> dict[str, Any]:  # fmt: skip
    """The cheapest gold labels and judged items that resolve the gap at their prices
    (``design_gold``, ``design_judged``, ``design_cost``; None without a judge's price, a
    gap, or with a gap against the alternative)."""
    delta = float(estimate.delta)
    if delta == 0 or opposes_alternative(delta, alternative) or not cost_judge > 0:
        return {"design_gold": None, "design_judged": None, "design_cost": None}
    design = sp.ppi_design(
        estimate.parts["residual_variance"], estimate.parts["judge_term"], abs(delta),
        alpha=alpha, power=power, alternative=alternative, cost_gold=cost_gold,
        cost_judge=cost_judge, minimum_gold=MIN_GOLD,
    )  # fmt: skip
    return {"design_gold": int(design["n_gold"]), "design_judged": int(design["n_judged"]),
            "design_cost": float(design["cost"])}  # fmt: skip


def _gold_only_and_bias(
    own: dict[str, Any], shift: dict[str, Any], alpha: float
) -> dict[str, Any]:
    """The gap from the gold labels alone and the judge's bias difference, as the result's
    ``gold_only_*`` and ``bias_difference*`` fields."""
    return {
        "gold_only_delta": float(own["estimate"]),
        "gold_only_ci": intervals.Interval(
            np.float64(own["low"]), np.float64(own["high"]), "t (gold labels only)", 1 - alpha
        ),
        "gold_only_p": float(own["p_value"]),
        "bias_difference": float(shift["bias"]),
        "bias_difference_ci": intervals.Interval(
            np.float64(shift["low"]), np.float64(shift["high"]), "paired_t", 1 - alpha
        ),
        "bias_difference_p": float(shift["p_value"]),
    }


def _judge_only(judge: CompareResult) -> JudgeOnly:
    """The judge's own gap and test (exact McNemar for binary scores, else paired t)."""
    judge_p = judge.p_values.exact if judge.binary else judge.p_values.paired_t
    return JudgeOnly(
        delta=judge.delta,
        ci=judge.ci,
        p_value=float(judge_p) if judge_p is not None else float("nan"),
        test="exact McNemar" if judge.binary else "paired t",
        required_n=judge.required_n,
        resolution_ratio=judge.resolution_ratio,
    )


def gap_figures(
    f: np.ndarray,
    y: np.ndarray,
    label: np.ndarray,
    *,
    alpha: float,
    power: float,
    alternative: Alternative = "two-sided",
) -> dict[str, Any]:
    """A pair's gold-scale figures from its judge differences ``f`` on every item, its gold
    differences ``y`` (NaN where either model is unlabelled) and each item's stratum code
    ``label``: the gap on the gold scale (``estimate``, :func:`evalgap.stats.pair_estimate.gold`,
    with its ``delta``, ``se``, the t test's normal equivalent ``z``, ``q`` (never 1 or more
    when the t test does not reject) and the gold labels that resolve the gap,
    ``required``, at least ``MIN_GOLD``; None where not estimated), the gold labels' own gap
    (``own``) and the judge's stratified bias difference (``shift``). One home for
    ``compare`` and ``audit``."""
    estimate = pe.gold(f, gold_a=y, strata=label, alpha=alpha, power=power,
                       alternative=alternative)  # fmt: skip
    both = ~np.isnan(y)
    strata = range(int(label.max()) + 1 if label.size else 1)
    parts = [(f[label == k], f[(label == k) & both], y[(label == k) & both]) for k in strata]
    own = sp.ppi_stratified(parts, alpha=alpha, lam=0.0, alternative=alternative)
    shift = sp.judge_bias_stratified(
        [(fg, yg) for _, fg, yg in parts], [fa.size for fa, _, _ in parts], alpha=alpha
    )
    q, required = float(estimate.resolution_ratio), float(estimate.required_n)
    gap = {"statistic": estimate.parts["statistic"], "p_value": float(estimate.p_value),
           "low": float(estimate.ci.low), "high": float(estimate.ci.high)}  # fmt: skip
    return {"estimate": estimate, "gap": gap, "own": own, "shift": shift,
            "delta": float(estimate.delta), "se": float(estimate.se),
            "z": estimate.parts["z"], "q": None if np.isnan(q) else q,
            "required": int(required) if np.isfinite(required) else None}  # fmt: skip


def _codes(labels: np.ndarray) -> np.ndarray:
    """Each label's position among the distinct labels, in order of appearance."""
    return pe.stratum_codes(labels)


def _model_score(
    model: str,
    judged: np.ndarray,
    gold: np.ndarray,
    alpha: float,
    *,
    strata: np.ndarray | None = None,
) -> GoldScore:
    """One model's gold-scale score and judge bias; its agreement with the gold when its
    judge scores and its gold labels are both binary (one rule for every view)."""
    labelled = ~np.isnan(gold)
    n = int(labelled.sum())
    label = np.zeros(judged.size, dtype=np.int64) if strata is None else _codes(strata)
    counts = np.bincount(label[labelled], minlength=int(label.max()) + 1)
    if counts.min() < MIN_GOLD:
        raise InputError(
            escape(
                f"{int(counts.min())} item(s) of "
                + ("a task " if strata is not None and counts.size > 1 else "")
                + f"have a gold label for {model!r}; its gold-scale score needs at least "
                f"{MIN_GOLD}" + (" in every task" if strata is not None and counts.size > 1 else "")
            ),
            param="gold_column",
        )
    est = sp.ppi_stratified(
        [
            (judged[label == k], judged[(label == k) & labelled], gold[(label == k) & labelled])
            for k in range(counts.size)
        ],
        alpha=alpha,
    )
    bias = sp.judge_bias_stratified(
        [(judged[(label == k) & labelled], gold[(label == k) & labelled])
         for k in range(counts.size)],
        [int((label == k).sum()) for k in range(counts.size)],
        alpha=alpha,
    )  # fmt: skip
    binary = bool(np.isin(judged, (0.0, 1.0)).all() and np.isin(gold[labelled], (0.0, 1.0)).all())
    corr = float(bias["correlation"])
    differing = int(np.count_nonzero(judged[labelled] != gold[labelled]))
    return GoldScore(
        model=model,
        score=float(est["estimate"]),
        se=float(est["se"]),
        ci=_spread_or_none(est, "t (PPI++)", alpha),
        judge_score=float(judged.mean()),
        n_items=int(judged.size),
        n_gold=n,
        lam=float(est["lam"]),
        effective_n=float(est["effective_n"]),
        bias=float(bias["bias"]),
        bias_ci=_spread_or_none(bias, "paired_t", alpha),
        bias_p_value=float(sp.bias_p_value(bias["p_value"], bias["se"], differing)),
        agreement=float(bias["agreement"]) if binary else None,
        correlation=corr if np.isfinite(corr) else None,
    )


# The judge's column options a gold file shares (its score column is its own).
SHARED_COLUMNS = ("model_column", "item_column", "task_column", "run_column")


def _spread_or_none(figures: dict[str, Any], method: str, alpha: float) -> intervals.Interval:
    """A model's t interval from ``figures`` (``low``, ``high``, ``se``); NaN ends when the
    SE is 0, as when a few gold labels all agree with the judge: an interval of zero width
    would claim a certainty the labels cannot give."""
    if not float(figures["se"]) > 0:
        return intervals.Interval(np.float64(np.nan), np.float64(np.nan), method, 1 - alpha)
    return intervals.Interval(
        np.float64(figures["low"]), np.float64(figures["high"]), method, 1 - alpha
    )


def gold_set(
    data: ScoresInput | None,
    *,
    gold_column: str | None,
    gold: ScoresInput | None,
    models: Sequence[str],
    judge_column: str | None = None,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    strict: bool = False,
    **columns: Any,
) -> tuple[ScoreSet, list[str]]:
    """The gold scores of ``models`` as a ScoreSet, and notes on the labels left out.

    From ``gold_column`` of the judge's table ``data`` (empty where unlabelled; never the
    judge's own score column, ``judge_column``), or from the second source ``gold`` (a
    path, DataFrame, LongScores or ScoreSet; its score column is ``gold_column`` when
    given, else detected, its model, item, task and run columns the judge's). Labels must
    be finite numbers in [0, 1]; labels of other models are left out and counted.
    """
    from evalgap._scores import ScoreSet
    from evalgap.jobs._inputs import scores_of

    param = "gold" if gold is not None else "gold_column"
    _refuse_gold_arguments(gold_column, gold)
    notes: list[str] = []
    if gold is None:
        long: LongScores = _gold_from_column(data, gold_column, judge_column, options, columns)
    elif isinstance(gold, ScoreSet):
        if gold_column is not None:
            raise InputError(
                "{gold_column} names the score column of a {gold} table; a ScoreSet has its "
                "scores already",
                param="gold_column",
            )
        return _checked_set(gold, models, tasks, param), notes
    else:
        long = _gold_from_source(data, gold, gold_column, columns)
    chosen = _chosen_labels(
        long, models, param, strict=strict, second_source=gold is not None, notes=notes
    )
    return _read_gold(
        lambda: scores_of(chosen.reset_index(drop=True), models=list(models), tasks=tasks),
        None,
        param=param,
    ), notes


def _refuse_gold_arguments(gold_column: object, gold: object) -> None:
    """Refuse no gold labels at all, both ways at once, and a ``gold_column`` that is not a
    name."""
    if gold is None and gold_column is None:
        raise InputError(
            "give the gold labels: {gold_column} (a column of the scores table, empty where "
            "unlabelled) or {gold} (a second source)",
            param="gold_column",
        )
    if gold is not None and gold_column is not None:
        raise InputError(
            "{gold_column} and {gold} are two ways to give the gold labels; give one: "
            "{gold_column} names a column of the scores table, {gold} a second table (its "
            "score column is detected as any table's: a column named score, or the one numeric "
            "column with values in [0, 1])",
            param="gold",
        )
    if gold_column is not None and not isinstance(gold_column, str):
        raise InputError(
            "{gold_column} names a column; got " + escape(type(gold_column).__name__),
            param="gold_column",
        )


def _gold_from_column(
    data: ScoresInput | None, gold_column: str | None, judge_column: str | None,
    options: LoadOptions | None, columns: dict[str, Any],
) -> LongScores:  # fmt: skip
    """The long table of the gold labels in ``gold_column`` of the judge's table ``data``."""
    from evalgap.jobs._inputs import long_scores

    if data is None:
        raise InputError(
            "{gold_column} names a column of a scores table, and a store keeps no such "
            "column: give the gold labels as a second source with {gold}",
            param="gold_column",
        )
    if gold_column == judge_column:
        raise InputError(
            "{gold_column} "
            + escape(f"{gold_column!r} is the judge's score column too; ")
            + "name the judge's with {score_column}",
            param="gold_column",
        )
    given = {k: v for k, v in columns.items() if k != "score_column"}
    long = _read_gold(
        lambda: long_scores(data, options=options, score_column=gold_column, **given),
        gold_column,
    )
    if long.columns.get("score") != gold_column:
        raise InputError(
            escape(f"{long.source}: ")
            + "{gold_column} names a column of a scores table, and this source is not "
            "one; give the gold labels as a second source with {gold}",
            param="gold_column",
        )
    return long


def _gold_from_source(
    data: ScoresInput | None, gold: ScoresInput, gold_column: str | None,
    columns: dict[str, Any],
) -> LongScores:  # fmt: skip
    """The long table of the gold labels of the second source ``gold`` (a path or a table,
    never the judge's own file), read with the judge's model, item, task and run columns."""
    from evalgap._scores import LongScores
    from evalgap.jobs._inputs import long_scores

    if isinstance(gold, (str, Path)):
        if not Path(gold).exists():
            raise InputError(
                "{gold}: no such file {value!r}; give a table of gold scores (model, item, "
                "score), or name a column of the scores table with {gold_column}",
                param="gold",
                value=str(gold),
            )
        judge_paths = data if isinstance(data, (list, tuple)) else [data]
        if any(
            isinstance(p, (str, Path)) and Path(p).resolve() == Path(gold).resolve()
            for p in judge_paths
        ):
            raise InputError(
                "{gold} is the judge's own file; give the gold labels' file",
                param="gold",
            )
    elif not isinstance(gold, LongScores) and not hasattr(gold, "columns"):
        raise InputError(
            "{gold} must be a table of gold scores (a path, a DataFrame or a ScoreSet); "
            "got " + escape(type(gold).__name__),
            param="gold",
        )
    shared = {k: columns[k] for k in SHARED_COLUMNS if columns.get(k) is not None}
    if gold_column is not None:
        shared["score_column"] = gold_column
    return _read_gold(lambda: long_scores(gold, options=None, **shared), None, param="gold")


def _chosen_labels(
    long: LongScores, models: Sequence[str], param: str, *, strict: bool, second_source: bool,
    notes: list[str],
) -> pd.DataFrame:
    """The rows of ``long`` that are gold labels of ``models``, each label a number in
    [0, 1] and one per model and item (repeats collapsed, or refused under ``strict``, as
    are labels of other models in a ``second_source``); every model needs one."""
    frame = long.frame
    value, empty = _label_values(long, param)
    wanted = frame["model"].astype(str).isin([str(m) for m in models]).to_numpy()
    others = int((~empty & ~wanted).sum())
    if others:
        notes.append(f"{others:,} gold label(s) of other models are not used")
    if strict and second_source and others:
        raise InputError(
            escape(f"{long.source}: {others:,} gold label(s) are of models not compared; ")
            + "without {strict} they are left out",
            param="strict",
        )
    chosen = frame[~empty & wanted].assign(score=value[~empty & wanted])
    _collapse_repeats(chosen, long.source, param, strict=strict, notes=notes)
    present = set(chosen["model"].astype(str))
    missing = [m for m in models if str(m) not in present]
    if missing:
        raise InputError(
            escape(f"{long.source}: no gold label for {missing[0]!r}; ")
            + "give gold scores for the models compared on some of the same items",
            param=param,
        )
    return chosen


def _label_values(long: LongScores, param: str) -> tuple[np.ndarray, np.ndarray]:
    """Each row's gold label as a number, and whether its cell is empty (no label); a label
    that is not a finite number in [0, 1] is refused."""
    frame = long.frame
    value = pd_numeric(frame["score"])
    empty = frame["score"].isna().to_numpy() | (
        frame["score"].astype(str).str.strip().to_numpy() == ""
    )
    bad = ~empty & ~np.isfinite(value)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            escape(
                f"{long.source}: row {row + 1:,} has gold label {_shown(frame['score'].iloc[row])}"
                ", not a finite number; "
            )
            + "give a number in [0, 1], or leave the cell empty where there is no gold label",
            param=param,
        )
    outside = ~empty & ((value < 0) | (value > 1))
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise InputError(
            escape(
                f"{long.source}: row {row + 1:,} has gold label {value[row]:g}, outside [0, 1]; "
                "give gold scores on the judge's scale (binary, or graded in [0, 1]): rescale them"
            ),
            param=param,
        )
    return value, empty


def _collapse_repeats(
    chosen: pd.DataFrame, source: str, param: str, *, strict: bool, notes: list[str]
) -> None:
    """Refuse different gold labels of one model and item; note the repeats of one label
    (collapsed when read; refused under ``strict``)."""
    keys = [c for c in ("model", "task", "item_id") if c in chosen.columns]
    spread = chosen.groupby(keys, sort=False)["score"].agg(["nunique", "size"])
    if (spread["nunique"] > 1).any():
        first = spread.index[int(np.flatnonzero(spread["nunique"].to_numpy() > 1)[0])]
        raise InputError(
            escape(
                f"{source}: "
                + ", ".join(
                    f"{k.replace('_id', '')} {v!r}" for k, v in zip(keys, first, strict=True)
                )
                + " has different gold labels on different rows; a gold label is one score per "
                "model and item: keep one"
            ),
            param=param,
        )
    repeated = int((spread["size"] - 1).sum())
    if not repeated:
        return
    if strict:
        raise InputError(
            escape(f"{source}: {repeated:,} gold label(s) repeat another row; ")
            + "without {strict} the repeats are collapsed",
            param="strict",
        )
    notes.append(f"{repeated:,} repeated gold label row(s) were collapsed (same label)")


def _shown(value: Any) -> str:
    """A cell as the user wrote it: text quoted, a number plain (no NumPy repr)."""
    return repr(value) if isinstance(value, str) else str(getattr(value, "item", lambda: value)())


def pd_numeric(column: Any) -> np.ndarray:
    """The cells as numbers (NaN where not a number)."""
    import pandas as pd

    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def _read_gold(read: Any, gold_column: str | None, *, param: str = "gold_column") -> Any:
    """Run ``read``; its errors name the gold labels (the option, not "the score")."""
    try:
        return read()
    except InputError as error:
        text = str(error)
        if gold_column is not None:
            text = text.replace("(given for the score)", "(given for the gold labels)")
        label = "{gold}" if param == "gold" else "{gold_column}"
        raise InputError("gold labels (" + label + "): " + escape(text), param=param) from None


def _checked_set(
    gold: ScoreSet, models: Sequence[str], tasks: Sequence[str] | None, param: str
) -> ScoreSet:
    """A ScoreSet of gold scores: it has the models, its scores lie in [0, 1]."""
    for m in models:
        if m not in gold.models:
            raise InputError(escape(f"no gold label for {m!r} in the gold ScoreSet"), param=param)
    values = np.concatenate([t.scores.ravel() for t in gold.tasks])
    values = values[~np.isnan(values)]
    if ((values < 0) | (values > 1)).any():
        raise InputError("{gold} scores must lie in [0, 1]", param=param)
    if tasks:
        kept = tuple(t for t in gold.tasks if t.task in set(tasks))
        import dataclasses

        gold = dataclasses.replace(gold, tasks=kept)
    return gold


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


def _unlabelled_note(cells: int, total: int) -> list[str]:
    """The note on the judged scores of the models compared that have no gold label."""
    if not cells:
        return []
    return [
        f"{cells:,} of the {total:,} judged scores of the models compared have no gold label: "
        "the judge's score stands there"
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


def _label_notes(
    gold: ScoreSet, columns: list[int], used: int, unlabelled: int, cells: int, strict: bool
) -> list[str]:
    """The notes on the gold labels: those left out (refused under ``strict``) and the
    judged scores without one."""
    left = _left_out_labels(gold, columns, used)
    if strict and left:
        raise InputError("{strict}: " + escape(left[0]), param="strict")
    return left + _unlabelled_note(unlabelled, cells)


def gold_pair(
    judged: ScoreSet, gold: ScoreSet, model_a: str, model_b: str, *, strict: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Both models' gold scores on the items :meth:`ScoreSet.pair` returns for the judge
    (NaN where unlabelled), each item's task, and notes on gold labels left out (refused
    under ``strict``)."""
    i, j = judged.model_index(model_a), judged.model_index(model_b)
    columns = [gold.model_index(model_a), gold.model_index(model_b)]
    parts, tasks = [], []
    for t in judged.tasks:
        ids = np.asarray(t.item_ids)[t.pair_rows(i, j)].astype(str)
        parts.append(_gold_rows(ids, t.task, gold, columns))
        tasks.append(np.full(ids.size, t.task, dtype=object))
    rows = np.concatenate(parts) if parts else np.empty((0, 2))
    used = int((~np.isnan(rows)).sum())
    if used == 0:
        first = next((t for t in gold.tasks if t.scores.size), None)
        example = "" if first is None else f" (first gold item: task {first.task!r}, id " \
            f"{str(np.asarray(first.item_ids)[0])!r})"  # fmt: skip
        raise InputError(
            escape(
                f"none of the gold labels is on an item the judge scored for both {model_a!r} "
                f"and {model_b!r}{example}: the gold labels need the judge's item ids and tasks"
            ),
            param="gold_column",
        )
    notes = _label_notes(gold, columns, used, int(np.isnan(rows).sum()), rows.size, strict)
    return rows[:, 0], rows[:, 1], np.concatenate(tasks), notes


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
    judge_column: str | None = None,
    strata: bool = False,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> CompareResult:
    """``compare`` with gold labels: the judge's pair from ``judged``, the gold from a column
    of ``data`` or from the source ``gold``; several tasks are strata, and so are the
    judge's clusters with ``strata`` (the column given as the strata)."""
    from evalgap.jobs.compare_groups import pooling_note
    from evalgap.jobs.compare_pair import compare_scores

    shared = {k: v for k, v in columns.items() if k != "cluster_column"}
    golden, notes = gold_set(
        data, gold_column=gold_column, gold=gold, models=[model_a, model_b],
        judge_column=judge_column, tasks=tasks, options=options, strict=strict, **shared,
    )  # fmt: skip
    x, y = judged.pair(model_a, model_b)
    gold_a, gold_b, task_of, more = gold_pair(judged, golden, model_a, model_b, strict=strict)
    judge = compare_scores(
        x,
        y,
        model_a=model_a,
        model_b=model_b,
        alignment=judged.report,
        item_ids=judged.pair_items(model_a, model_b),
        **settings,
    )
    pooled = pooling_note(judged)
    if strata:
        task_of = _with_strata(judged, model_a, model_b, task_of, columns.get("cluster_column"))
    several = len(set(task_of.tolist())) > 1
    return gold_result(
        x, y, gold_a, gold_b, judge, strata=task_of if several else None,
        stratum="stratum" if strata else "task",
        model_a=model_a, model_b=model_b, alpha=settings["alpha"], power=settings["power"],
        alternative=settings["alternative"], cost_gold=cost_gold, cost_judge=cost_judge,
        notes=[*judge.notes, *([pooled] if pooled and not several else []), *notes, *more],
    )  # fmt: skip


def _with_strata(
    judged: ScoreSet, model_a: str, model_b: str, task_of: np.ndarray, column: str | None
) -> np.ndarray:
    """Each pair item's stratum (``task/stratum``, or the stratum alone with one task), from
    the judge's clusters read from the strata column."""
    i, j = judged.model_index(model_a), judged.model_index(model_b)
    labels = []
    for t in judged.tasks:
        rows = t.pair_rows(i, j)
        if t.clusters is None:
            raise InputError(
                "{strata} " + escape(f"{column!r} gives no stratum for task {t.task!r}"),
                param="strata",
            )
        labels.append(np.asarray(t.clusters, dtype=object)[rows])
    stratum = np.concatenate(labels)
    missing = np.array([v is None or v != v or str(v) == "" for v in stratum])
    if missing.any():
        raise InputError(
            "{strata} "
            + escape(
                f"{column!r} is empty for {int(missing.sum()):,} of the pair's items; give "
                "every item its stratum"
            ),
            param="strata",
        )
    several = len(set(task_of.tolist())) > 1
    return np.array(
        [f"{t}/{s}" if several else str(s) for t, s in zip(task_of, stratum, strict=True)],
        dtype=object,
    )


def read_board(
    scores: Any, *, gold_column: str | None, gold: Any, models: Sequence[str] | None,
    tasks: Sequence[str] | None, complete_case: bool, strict: bool,
    options: LoadOptions | None, columns: dict[str, Any],
) -> tuple[ScoreSet, tuple[ScoreSet, list[str]] | None]:  # fmt: skip
    """The board the ``ranks`` and ``audit`` front doors read: the scores aligned (the
    judge's, read once, when gold labels are given) and, with gold labels, every model's
    gold labels with the notes on those left out (None without)."""
    from evalgap.jobs._board import judge_source
    from evalgap.jobs._inputs import _models, scores_of

    judged = gold_column is not None or gold is not None
    judge, judge_column = judge_source(scores, judged, options, columns)
    board = scores_of(
        judge, models=_models(models, options), tasks=tasks, complete_case=complete_case,
        strict=strict, options=options, **columns,
    )  # fmt: skip
    if not judged:
        return board, None
    return board, gold_set(
        scores, gold_column=gold_column, gold=gold, models=list(board.models),
        judge_column=judge_column, tasks=tasks, options=options, strict=strict, **columns,
    )  # fmt: skip


GOLD_RANKS_NOTE = (
    "gold scale: each score is the model's PPI++ estimate on its judged items (the judge "
    "corrected by the gold labels); the rank sets come from the multivariate t law of the "
    "estimates' joint covariance; the rank sets over tasks and the items to flip are not "
    "computed on the gold scale"
)


def ranks_gold(
    judged: ScoreSet,
    gold: ScoreSet,
    *,
    gold_notes: Sequence[str] = (),
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
    strict: bool = False,
    progress: Callable[[int, int, str], object] | None = None,
) -> RanksResult:
    """Rank sets on the gold scale: per task, every model's PPI++ score on its own judged
    items (as ``compare --gold-column`` gives it), and the simultaneous sets drawn from the
    multivariate t law (``min(n) - 1`` degrees of freedom, as each score's t interval) of
    their joint covariance (:func:`evalgap.stats.ppi.ppi_joint`: shared items make the
    estimates covary), with each model's judge bias and agreement in ``RanksResult.gold``."""
    import pandas as pd

    from evalgap.jobs._ranks_result import RanksResult, one_method, top_models
    from evalgap.stats import ranks as rk
    from evalgap.stats import resample

    alpha = float(_validate.probability(alpha, "alpha"))
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    rk.check_replicates(n_bootstrap, alpha)
    rows, marginal_rows, judge_rows = [], [], []
    notes: list[str] = list(gold_notes)
    methods: dict[str, str] = {}
    better, top, critical = {}, {}, {}
    used = cells = unlabelled = 0
    fewest: tuple[int, str, str] | None = None
    columns = [gold.model_index(m) for m in judged.models]
    stream = resample.child_seed(seed, "ranks")  # the same stream for every task
    for index, task in enumerate(judged.tasks):
        if progress is not None:
            progress(index, len(judged.tasks), f"task {task.task}")
        f = task.scores.T  # (models, items), NaN where a model was not judged
        y = _gold_rows(np.asarray(task.item_ids).astype(str), task.task, gold, columns).T
        y = np.where(np.isnan(f), np.nan, y)  # labels on unjudged items: counted below
        used += int((~np.isnan(y)).sum())
        cells += int((~np.isnan(f)).sum())
        unlabelled += int((np.isnan(y) & ~np.isnan(f)).sum())
        n_gold, n_judged = (~np.isnan(y)).sum(axis=1), (~np.isnan(f)).sum(axis=1)
        keep = _rankable_on_gold(task.task, judged.models, n_gold, n_judged, notes)
        keep &= _with_spread(task.task, judged.models, f, y, keep, notes)
        models = np.array(judged.models)[keep]
        if models.size < 2:
            notes.append(f"task {task.task}: fewer than 2 models with gold labels, no ranks")
            continue
        fewest = _fewest_labels(fewest, n_gold[keep], models, task.task)
        sets, order, frame, scores = _gold_task_ranks(
            task.task, models, f[keep], y[keep], n_judged[keep], alpha=alpha,
            n_bootstrap=n_bootstrap, stream=stream, top_k=top_k,
        )  # fmt: skip
        rows.append(frame)
        marginal_rows.append(
            frame.assign(
                rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
                rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
            )
        )
        judge_rows.append(judge_table(task.task, scores))  # flagged over every task below
        methods[task.task] = "max-t stepdown, multivariate-t draws (PPI++ gold scale)"
        critical[task.task] = float(sets.critical_value)
        better[task.task] = np.asarray(sets.shown_better, dtype=bool)[np.ix_(order, order)]
        if top_k is not None:
            top[task.task] = top_models(models, sets)
    if not rows:
        raise InputError(
            "nothing to rank on the gold scale: no task has 2 models with "
            f"{MIN_GOLD} gold labels each on their judged items and a score with a standard "
            "error (see the notes)"
        )
    notes.extend(_label_notes(gold, columns, used, unlabelled, cells, strict))
    if fewest is not None and fewest[0] < FEW_GOLD:
        notes.append(_few_labels_note(fewest[0], f"{fewest[1]} (task {fewest[2]})"))
    notes.append(GOLD_RANKS_NOTE)
    return RanksResult(
        method=one_method(methods),
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
        gold=flag_judge_bias(pd.concat(judge_rows, ignore_index=True), alpha),
    )


def _fewest_labels(
    fewest: tuple[int, str, str] | None, n_gold: np.ndarray, models: np.ndarray, task: str
) -> tuple[int, str, str] | None:
    """The fewest gold labels of a ranked model so far, with the model and its task: the
    first of the fewest wins."""
    for count, m in zip(n_gold.tolist(), models.tolist(), strict=True):
        if fewest is None or count < fewest[0]:
            fewest = (int(count), str(m), task)
    return fewest


def _rankable_on_gold(
    task: str, models: Sequence[str], n_gold: np.ndarray, n_judged: np.ndarray,
    notes: list[str],
) -> np.ndarray:  # fmt: skip
    """Which models a task's gold-scale ranks take: at least ``MIN_GOLD`` gold labels on
    at least 2 judged items; the judged models left out are said in ``notes``."""
    keep = (n_gold >= MIN_GOLD) & (n_judged >= 2)
    for k in np.flatnonzero(~keep & (n_judged > 0)):
        notes.append(
            f"task {task}: {models[int(k)]} has {int(n_gold[k])} gold label(s) on its "
            f"{int(n_judged[k]):,} judged items (at least {MIN_GOLD} are needed) and is left "
            "out of the gold-scale ranks"
        )
    return keep


def _with_spread(
    task: str, models: Sequence[str], f: np.ndarray, y: np.ndarray, keep: np.ndarray,
    notes: list[str],
) -> np.ndarray:  # fmt: skip
    """Which of the ``keep`` models' gold-scale scores have a standard error: one whose few
    labels leave no spread (they all agree with the judge, say) would enter the rank sets
    as known exactly; it is left out, said in ``notes``."""
    out = keep.copy()
    if keep.sum() == 0:
        return out
    variance = np.diag(sp.ppi_joint(f[keep], y[keep])["covariance"])
    for k, v in zip(np.flatnonzero(keep), variance, strict=True):
        if not v > 0:
            out[k] = False
            notes.append(
                f"task {task}: {models[int(k)]}'s {int((~np.isnan(y[k])).sum())} gold labels "
                "leave its gold-scale score no standard error (they do not vary beside the "
                "judge), so it would rank as if known exactly; it is left out of the ranks: "
                "label more of its items"
            )
    return out


def _gold_task_ranks(
    task: str, models: np.ndarray, f: np.ndarray, y: np.ndarray, n_judged: np.ndarray, *,
    alpha: float, n_bootstrap: int, stream: Any, top_k: int | None,
) -> tuple[RankSets, np.ndarray, pd.DataFrame, list[GoldScore]]:  # fmt: skip
    """One task's rank sets on the gold scale from its models' judge scores ``f`` and gold
    labels ``y`` (``(models, items)``, NaN where absent), drawn on ``stream`` (restarted
    for every task); the rows' order (best first), the rank table with each model's own
    PPI++ score, SE and interval (as compare gives them), and those scores in its order."""
    from evalgap.jobs._ranks_result import rank_frame
    from evalgap.stats import ranks as rk

    joint = sp.ppi_joint(f, y)
    df = float((~np.isnan(y)).sum(axis=1).min() - 1)
    rng = np.random.Generator(np.random.PCG64(stream))
    draws = sp.joint_t_draws(joint["estimate"], joint["covariance"], df, n_bootstrap, rng)
    scores = [
        _model_score(str(m), f[k][~np.isnan(f[k])], y[k][~np.isnan(f[k])], alpha)
        for k, m in enumerate(models)
    ]
    sets = rk.rank_sets_from_draws(
        joint["estimate"], joint["covariance"], draws, alpha=alpha, top_k=top_k, n=n_judged
    )
    order = np.lexsort((models, np.asarray(sets.rank)))
    frame = rank_frame(task, models, sets, order, alpha)
    by_model = {g.model: g for g in scores}
    frame["score"] = [by_model[m].score for m in frame["model"]]
    frame["se"] = [by_model[m].se for m in frame["model"]]
    frame["score_low"] = [float(by_model[m].ci.low) for m in frame["model"]]
    frame["score_high"] = [float(by_model[m].ci.high) for m in frame["model"]]
    frame["own_items_mean"] = frame["score"]
    return sets, order, frame, [by_model[m] for m in frame["model"]]


def _few_labels_note(n: int, where: str) -> str:
    """The note on an interval from fewer than ``FEW_GOLD`` gold labels (bench_gold.py)."""
    return (
        f"only {n} gold labels for {where}: calibrated on AlpacaEval, the t interval covered "
        f"95% from {FEW_GOLD} labels, but 93% at 50 and 89% at 30 (pairs whose labels rarely "
        "differ): below it, read the interval as too narrow"
    )


PROCEDURES = ("bonferroni", "sidak", "holm", "bh")


class GoldAudit(NamedTuple):
    """What the audit on the gold scale computes, for the audit to make its result of."""

    pairs: pd.DataFrame
    rankings: pd.DataFrame
    gold: pd.DataFrame
    family_size: int
    notes: list[str]


def audit_gold(
    judged: ScoreSet,
    gold: ScoreSet,
    *,
    gold_notes: Sequence[str] = (),
    family: str = "adjacent",
    family_size: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    strict: bool = False,
    progress: Callable[[int, int, str], object] | None = None,
) -> GoldAudit:
    """Audit every pair of the family on the gold scale: the pairs with their verdicts, the
    models by PPI++ score, the judge against the gold, the family's size and the notes (the
    audit makes them its one result, :class:`~evalgap.AuditResult` on the gold scale)."""
    import pandas as pd

    alpha = float(_validate.probability(alpha, "alpha"))
    power = float(_validate.probability(power, "power"))
    _check_gold_audit(judged, family)
    notes = list(gold_notes)
    columns = [gold.model_index(m) for m in judged.models]
    rows, tables, used, cells, unlabelled = [], [], 0, 0, 0
    ranking: list[dict[str, Any]] = []
    for index, task in enumerate(judged.tasks):
        if progress is not None:
            progress(index, len(judged.tasks), f"task {task.task}")
        ids = np.asarray(task.item_ids).astype(str)
        labels = _gold_rows(ids, task.task, gold, columns)  # (items, models)
        x = task.scores
        used += int((~np.isnan(labels) & ~np.isnan(x)).sum())
        cells += int((~np.isnan(x)).sum())
        unlabelled += int((np.isnan(labels) & ~np.isnan(x)).sum())
        scores, kept = _gold_audit_scores(task.task, judged.models, x, labels, alpha, notes)
        if len(kept) < 2:
            notes.append(f"task {task.task}: fewer than 2 models with gold labels, no pairs")
            continue
        order = np.argsort([-s.score for s in scores], kind="stable")
        ranked = [kept[i] for i in order]
        tables.append(judge_table(task.task, [scores[i] for i in order]))
        ranking.extend(
            {"task": task.task, "rank": r + 1, "model": g.model, "score": g.score,
             "score_low": float(g.ci.low), "score_high": float(g.ci.high),
             "n_items": g.n_items, "n_gold": g.n_gold}
            for r, g in enumerate(scores[i] for i in order)
        )  # fmt: skip
        if family == "adjacent":
            pairs = list(itertools.pairwise(ranked))
        else:
            pairs = [(a, b) for p, a in enumerate(ranked) for b in ranked[p + 1 :]]
        for i, j in pairs:
            row = _gold_pair_row(task.task, judged.models, x, labels, (i, j), alpha=alpha,
                                 power=power, notes=notes)  # fmt: skip
            if row is not None:
                rows.append(row)
    if not rows:
        raise InputError(
            "nothing to audit on the gold scale: no pair has 3 items labelled for both models"
        )
    notes.extend(_label_notes(gold, columns, used, unlabelled, cells, strict))
    frame = pd.DataFrame(rows)
    m = len(frame) if family_size is None else int(family_size)
    if m < len(frame):
        raise InputError(
            "{family_size}" + escape(f" is {m}, fewer than the {len(frame)} pairs audited"),
            param="family_size",
        )
    _insert_verdicts(frame, m, alpha, power)
    frame["required_n"] = pd.Series(
        [None if v is None or v != v else int(v) for v in frame["required_n"]], dtype=object
    )
    smallest = int(frame["n_gold"].min())
    if smallest < FEW_GOLD:
        notes.append(_few_labels_note(smallest, "the items labelled for both models of a pair"))
    notes.append(
        "gold scale: each pair is compared as compare --gold-column compares it (paired PPI++ "
        "on the items both were judged on), the models ordered by their PPI++ scores; resolved "
        "means q >= 1 at the procedure's level (Definition 1, the PPI++ statistic in place of "
        "the Wald statistic)"
    )
    return GoldAudit(
        frame, pd.DataFrame(ranking), flag_judge_bias(pd.concat(tables, ignore_index=True), alpha),
        m,
        [*judged.report.messages(), *notes],
    )  # fmt: skip


def _check_gold_audit(judged: ScoreSet, family: str) -> None:
    """Refuse a family other than adjacent or all pairs, and fewer than 2 models."""
    if family not in ("adjacent", "all"):
        raise InputError(
            "{family!b}" + escape(f" must be 'adjacent' or 'all'; got {family!r}"),
            param="family",
        )
    if len(judged.models) < 2:
        raise InputError(
            escape(f"the audit compares models and there is {len(judged.models)}; ")
            + "give at least 2 (check {models})",
            param="models",
        )


def _gold_audit_scores(
    task: str, models: Sequence[str], x: np.ndarray, labels: np.ndarray, alpha: float,
    notes: list[str],
) -> tuple[list[GoldScore], list[int]]:  # fmt: skip
    """A task's gold-scale model scores and their columns: the models with at least
    ``MIN_GOLD`` gold labels on their judged items (the others said in ``notes``)."""
    scores, kept = [], []
    for k, model in enumerate(models):
        seen = ~np.isnan(x[:, k])
        if (~np.isnan(labels[seen, k])).sum() < MIN_GOLD:
            notes.append(
                f"task {task}: {model} has fewer than {MIN_GOLD} gold labels on its "
                "judged items and is left out of the gold-scale audit"
            )
            continue
        scores.append(_model_score(model, x[seen, k], labels[seen, k], alpha))
        kept.append(k)
    return scores, kept


def _gold_pair_row(
    task: str, models: Sequence[str], x: np.ndarray, labels: np.ndarray,
    pair: tuple[int, int], *, alpha: float, power: float, notes: list[str],
) -> dict[str, Any] | None:  # fmt: skip
    """One audited pair's row on the items both models were judged on, A ahead by the
    pair's own gold-scale gap; None (said in ``notes``) with fewer than ``MIN_GOLD`` items
    labelled for both or a gap without a standard error."""
    i, j = pair
    both = ~(np.isnan(x[:, i]) | np.isnan(x[:, j]))
    ya, yb = labels[both, i], labels[both, j]
    labelled = ~(np.isnan(ya) | np.isnan(yb))
    if labelled.sum() < MIN_GOLD:
        notes.append(
            f"task {task}: {models[i]} and {models[j]} share fewer "
            f"than {MIN_GOLD} items labelled for both and are left out"
        )
        return None
    label = np.zeros(int(both.sum()), dtype=np.int64)
    fig = gap_figures(x[both, i] - x[both, j], ya - yb, label, alpha=alpha, power=power)
    if fig["delta"] < 0:  # each row reads "A ahead": the pair's own gap orients it
        i, j = j, i
        ya, yb = yb, ya
        fig = gap_figures(x[both, i] - x[both, j], ya - yb, label, alpha=alpha, power=power)
    if not fig["se"] > 0:
        notes.append(
            f"task {task}: {models[i]} and {models[j]} have gold "
            "labels that differ by the same amount on every item (and a judge that adds "
            "nothing): the gap's standard error is 0, and the pair is left out"
        )
        return None
    fa, fb = x[both, i], x[both, j]
    gap, shift, delta = fig["gap"], fig["shift"], fig["delta"]
    return {
        "task": task,
        "model_a": models[i],
        "model_b": models[j],
        "n_items": int(fa.size),
        "n_gold": int(labelled.sum()),
        "delta": delta,
        "se": fig["se"],
        "statistic": float(gap["statistic"]),
        "z": fig["z"],
        "p_ppi_t": float(gap["p_value"]),
        "delta_low": float(gap["low"]),
        "delta_high": float(gap["high"]),
        "resolution_ratio": fig["q"],
        "required_n": fig["required"],
        "judge_delta": float((fa - fb).mean()),
        "judge_p_value": _judge_p_value(fa, fb),
        "bias_difference": float(shift["bias"]),
        "bias_p_value": float(shift["p_value"]),
        "judge_flips": judge_reverses(
            float(gap["p_value"]), float(shift["p_value"]), float((fa - fb).mean()), delta, alpha
        ),
    }


def _judge_p_value(fa: np.ndarray, fb: np.ndarray) -> float:
    """The judge's own test of a pair: exact McNemar when its scores are binary, else
    paired t."""
    from evalgap.stats.tests import mcnemar_exact, paired_t

    if bool(np.isin(np.concatenate([fa, fb]), (0.0, 1.0)).all()):
        return float(mcnemar_exact(int(((fa == 1) & (fb == 0)).sum()),
                                   int(((fa == 0) & (fb == 1)).sum())))  # fmt: skip
    return float(paired_t(fa, fb).p_value)


def _insert_verdicts(frame: pd.DataFrame, m: int, alpha: float, power: float) -> None:
    """Insert, after ``required_n``, each pair's resolved verdict at fixed n and under
    every family procedure over a family of ``m``, from the t tests' normal equivalents."""
    from evalgap.stats import multiplicity

    statistic = frame["z"].to_numpy(dtype=float)
    testable = np.ones(statistic.size, dtype=bool)
    frame.insert(
        frame.columns.get_loc("required_n") + 1,
        "resolved_fixed_n",
        multiplicity.resolved_single_step(statistic, alpha, power, 1),
    )
    verdicts = multiplicity.family_verdicts(statistic, testable, alpha, power, m)
    for k, name in enumerate(PROCEDURES):
        at = frame.columns.get_loc("resolved_fixed_n") + 1 + k
        frame.insert(at, f"resolved_{name}", verdicts[name])
