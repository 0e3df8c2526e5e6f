"""The ``compare`` job's front door: one paired gap, from whatever form the scores take.

:func:`compare` reads its data (two score arrays, the four 2x2 counts, or a table of per-item
scores with two model names), refuses what it cannot honour, and hands the pair to its
recipe: :mod:`evalgap.jobs.compare_pair` for one pair, :mod:`evalgap.jobs.compare_groups`
within groups (``by=``), :mod:`evalgap.jobs.weighted` under a sampling design (``weights=``)
and :mod:`evalgap.jobs.gold` on the gold scale (gold labels). Each variant builds on the
one-pair recipe, so the front door sits above them all. :func:`against_baseline` and
:func:`compare_lm_eval` compare what an inspect_ai log or lm-eval's ``simple_evaluate`` gives.

Nothing heavy is imported at module level: ``compare`` from counts needs NumPy and SciPy
only; pandas is loaded when a table is given.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from evalgap.errors import InputError, escape, fields
from evalgap.jobs import _board
from evalgap.jobs._board import judge_source, refuse_gold_clusters
from evalgap.jobs._inputs import (
    _check_columns,
    _is_source,
    _is_table,
    _renamed,
    _stored,
    long_scores,
    scores_of,
)
from evalgap.jobs.compare_pair import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    DEFAULT_REQUIRED_N_BOOTSTRAP,
    compare_counts,
    compare_scores,
)
from evalgap.stats import _validate

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.compare_groups import CompareGroupsResult
    from evalgap.jobs.compare_pair import CompareResult
    from evalgap.stats._types import Alternative, ArrayLike

    class _CompareSettings(TypedDict):
        """The settings ``compare`` hands to each comparison."""

        alpha: float
        power: float
        alternative: Alternative
        n_bootstrap: int
        n_bootstrap_required_n: int
        seed: int | None


# The baseline's model takes this suffix when it has the new log's model name.
BASELINE_SUFFIX = " (baseline)"


def compare(
    scores: ScoresInput | ArrayLike | None = None,
    scores_b: ArrayLike | None = None,
    *,
    both_correct: int | None = None,
    a_only: int | None = None,
    b_only: int | None = None,
    both_wrong: int | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    by: str | None = None,
    adjustment: Literal["holm", "bonferroni", "sidak", "bh"] = "holm",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_bootstrap_required_n: int = DEFAULT_REQUIRED_N_BOOTSTRAP,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int | None = 0,
    complete_case: bool = False,
    strict: bool = False,
    tasks: Sequence[str] | None = None,
    weights: str | Path | pd.DataFrame | ArrayLike | None = None,
    strata: str | ArrayLike | None = None,
    gold_column: str | None = None,
    gold: ScoresInput | None = None,
    cost_gold: float = 1.0,
    cost_judge: float = 0.0,
    configurations: Literal["random", "fixed"] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> CompareResult | CompareGroupsResult:
    """Test one paired gap (A minus B) and say whether the benchmark can resolve it.

    Give the data in one of three forms:

    * two score arrays, ``scores`` of model A and ``scores_b`` of model B (aligned, one
      score per item, binary or graded);
    * the four 2x2 counts of a binary comparison (``both_correct=``, ``a_only=``,
      ``b_only=``, ``both_wrong=``);
    * a table of per-item scores as ``scores`` -- a long DataFrame (name its columns with
      ``model_column=``, ``item_column=``, ``score_column=``, ...; unnamed ones are
      detected), a ScoreSet, or a path (or list of paths) to result files -- with
      ``model_a=`` and ``model_b=`` naming the two models. Each pair uses the items both
      models scored; what is left out is counted in ``result.alignment``.

    Parameters
    ----------
    scores : array_like, DataFrame, ScoreSet, str or Path, optional
        A table of per-item scores (with ``model_a=`` and ``model_b=``; the
        ``--scores`` of the command line), or model A's scores beside ``scores_b``.
    scores_b : array_like, optional
        Model B's scores, aligned with ``scores`` (two arrays).
    both_correct, a_only, b_only, both_wrong : int, optional
        The 2x2 counts of a binary comparison (instead of scores).
    model_a, model_b : str, optional
        The models to compare in a table; labels of the arrays otherwise.
    by : str, optional
        With a table: compare within each group -- ``"task"``, or a column name -- and
        pooled, with p-values adjusted over groups by ``adjustment``.
    adjustment : {"holm", "bonferroni", "sidak", "bh"}
        The multiplicity correction over groups (with ``by``).
    alpha, power : float
        Significance level and target power, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 is that A is better; ``"less"``: that B is better.
    n_bootstrap : int
        Resamples of the paired bootstrap test for graded scores (binary pairs use its
        exact law); 0 skips it.
    n_bootstrap_required_n : int
        Resamples of the N* bootstrap interval; 0 skips it.
    n_permutations : int
        Sign-flip permutations for graded scores; 0 skips the test.
    seed : int or None
        Seed of every resampling step.
    complete_case, strict : bool
        With a table: keep only items every model scored; treat any left-out row as an error.
    tasks : list of str, optional
        With a table: the tasks to keep.
    weights : str, Path, DataFrame or array_like, optional
        Items sampled with unequal probabilities (a stratified design): each item's weight
        ``1 / pi_i`` -- a column of the scores table, a design file or DataFrame with
        ``item_id``, ``weight`` (optionally ``stratum``, ``task``), or with two score
        arrays an array. The gap is then the weighted (Horvitz-Thompson) estimate of the
        full benchmark's gap with a design-based SE (:mod:`evalgap.stats.weighted`).
    strata : str or array_like, optional
        With ``weights``: the stratum of each item (a column, or an array). With gold
        labels: a column holding each item's stratum, within which the labels were drawn at
        random (at any rate per stratum); the gold-scale gap is then stratified by it (and
        by task).
    gold_column : str, optional
        The scores are a judge's; this column of the table holds a gold score (a human, or
        a stronger judge) on some items, empty elsewhere. The gap is then estimated on the
        gold scale by paired PPI++ (:mod:`evalgap.stats.ppi`), the judge-only figures kept
        beside it.
    gold : DataFrame, ScoreSet, str or Path, optional
        The gold scores as a second source instead (model, item, score; the same items'
        ids and tasks as the judge's).
    cost_gold, cost_judge : float
        With gold labels: the price of a gold label and of a judged item (both models'
        answers); with ``cost_judge`` > 0 the result gives the cheapest mix of both that
        resolves the gap.
    configurations : {"random", "fixed"}, optional
        With scores read with ``LoadOptions(config_columns=...)`` (each score's seed,
        provider...): ``"random"`` makes the headline the gap over configurations like
        these (the model x configuration component in its SE, Satterthwaite's df: the
        ``configuration`` scale of :mod:`evalgap.stats.pair_estimate`); ``"fixed"`` keeps
        today's gap over these configurations (runs averaged per item). Either adds the part
        ``configuration`` (components, the configuration tests, errored samples).
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        With a DataFrame or paths: ``model_column``, ``item_column``, ``score_column``,
        ``task_column``, ``run_column``, ``cluster_column``.

    Returns
    -------
    CompareResult
        Tests, intervals, N*, MDE, q = N/N* and the verdict, the headline on the board's
        scale: with gold labels its part ``gold`` (PPI++ on the gold scale), with
        ``weights`` its part ``design`` (the design-based gap); ``CompareGroupsResult``
        with ``by``.

    Examples
    --------
    >>> import evalgap
    >>> r = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
    >>> r.n_items, r.required_n, round(r.resolution_ratio, 2)
    (10042, 20256, 0.5)
    >>> round(r.p_values.exact, 3), r.resolved
    (0.054, False)
    """

    settings: _CompareSettings = {
        "alpha": alpha, "power": power, "alternative": alternative, "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n, "seed": seed,
    }  # fmt: skip
    counts = (both_correct, a_only, b_only, both_wrong)
    a = _renamed(columns, "a", "scores", scores)  # model A's scores, or a table
    b = _renamed(columns, "b", "scores_b", scores_b)  # model B's scores
    _check_columns(columns, "compare")
    _validate.arguments(
        both_correct=both_correct, a_only=a_only, b_only=b_only, both_wrong=both_wrong,
        model_a=model_a, model_b=model_b, by=by, adjustment=adjustment, alpha=alpha,
        power=power, alternative=alternative, n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n, n_permutations=n_permutations,
        seed=seed, complete_case=complete_case, strict=strict, tasks=tasks,
    )  # fmt: skip
    judged = gold_column is not None or gold is not None
    if configurations is not None:
        from evalgap.jobs.configurations import refuse_configurations

        clusters = columns.get("cluster_column") or getattr(options, "cluster_column", None)
        refuse_configurations(configurations, counts=counts, arrays=b, by=by, weights=weights,
                              judged=judged, clusters=clusters)  # fmt: skip
    columns = _strata_as_clusters(strata, weights, judged, options, columns)
    _check_gold(judged, gold_column, gold, cost_gold, cost_judge, weights=weights, by=by)
    if by is None and adjustment != "holm":
        raise InputError(
            "{adjustment} corrects over the groups of {by}; give {by} or leave it",
            param="adjustment",
        )
    if any(c is not None for c in counts):
        _refuse_beside_counts(counts, a, b, options, by=by, weights=weights, judged=judged)
        given = cast("tuple[int, int, int, int]", counts)  # none is None (checked above)
        return compare_counts(*given, model_a=model_a or "A", model_b=model_b or "B", **settings)
    _refuse_without_scores(a, options, weights, by, n_bootstrap, n_bootstrap_required_n,
                           n_permutations, seed)  # fmt: skip
    # The board's scale (a key of evalgap.stats.pair_estimate.SCALES) picks the recipe
    scale = _board.scale_of(
        gold=judged, weights=weights is not None, configurations=configurations == "random"
    )
    if b is not None and not _is_table(b) and not _is_table(a):
        return _compare_arrays(
            a, b, model_a or "A", model_b or "B", by=by, judged=judged, gold_column=gold_column,
            weights=weights, strata=strata, settings=settings, n_permutations=n_permutations,
            scale=scale,
        )  # fmt: skip
    model_a, model_b = _table_pair(a, b, model_a, model_b)
    read = {"tasks": tasks, "complete_case": complete_case, "strict": strict, "options": options}
    if by is not None:
        return _compare_by(a, model_a, model_b, by, adjustment, settings, n_permutations,
                           columns=columns, scale=scale, **read)  # fmt: skip
    if configurations is not None:
        from evalgap.jobs.configurations import compare_configurations

        return compare_configurations(
            a, model_a, model_b, configurations=configurations, settings=settings,
            n_permutations=n_permutations, read=read, columns=columns,
        )  # fmt: skip
    return _compare_table(
        a, model_a, model_b, weights=weights, strata=strata, scale=scale,
        gold=(gold_column, gold, cost_gold, cost_judge), settings=settings,
        n_permutations=n_permutations, read=read, columns=columns,
    )  # fmt: skip


def _strata_as_clusters(
    strata: object, weights: object, judged: bool, options: LoadOptions | None,
    columns: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """The column options, with gold labels drawn by stratum read as the judge's clusters;
    ``strata`` without a design or gold labels refused."""
    if strata is not None and weights is None and not judged:
        raise InputError(
            "{strata} goes with {weights} (a stratified item sample) or with gold labels drawn "
            "by stratum ({gold_column}); give one",
            param="strata",
        )
    if judged and strata is None:
        refuse_gold_clusters(columns, options)
    if not judged or strata is None:
        return columns
    if not isinstance(strata, str):
        raise InputError(
            "{strata} with gold labels names a column of the scores table (each item's "
            "stratum); got " + escape(type(strata).__name__),
            param="strata",
        )
    if columns.get("cluster_column") or (options is not None and options.cluster_column):
        raise InputError(
            "{strata} and {cluster_column}: with gold labels, give the strata alone",
            param="strata",
        )
    return {**columns, "cluster_column": strata}


def _refuse_beside_counts(
    counts: tuple[int | None, ...], a: object, b: object, options: LoadOptions | None, *,
    by: str | None, weights: object, judged: bool,
) -> None:  # fmt: skip
    """The four 2x2 counts: all of them, alone, and of a real comparison."""
    if a is not None or b is not None or _stored(options):
        raise InputError(
            "give either scores ({scores} and {scores_b}, or a table) or the four 2x2 counts "
            "({both_correct}, {a_only}, {b_only}, {both_wrong}), not both",
            param="scores",
        )
    names = ("both_correct", "a_only", "b_only", "both_wrong")
    missing = [n for n, v in zip(names, counts, strict=True) if v is None]
    if missing:
        raise InputError(
            f"missing {fields(*missing)}: give all four 2x2 counts, "
            "or a table of scores ({scores}) with {model_a} and {model_b}",
            param=missing[0],
        )
    if by is not None:
        raise InputError("{by} needs per-item scores; 2x2 counts have no groups", param="by")
    if weights is not None or judged:
        raise InputError(
            ("{gold_column} and {gold}" if judged else "{weights} and {strata}")
            + " need per-item {scores}; 2x2 counts have no items",
            param="gold_column" if judged else "weights",
        )
    if sum(int(c) for c in cast("tuple[int, ...]", counts)) == 0:
        raise InputError("the four counts add up to 0 items; give the counts of a real comparison")


def _refuse_without_scores(
    a: object, options: LoadOptions | None, weights: object, by: str | None,
    n_bootstrap: object, n_bootstrap_required_n: object, n_permutations: object, seed: object,
) -> None:  # fmt: skip
    """Scores to compare, and a weighted gap's settings that would be ignored, refused."""
    if a is None and not _stored(options):
        raise InputError(
            "nothing to compare: give two score arrays, a table of scores ({scores}) with "
            "{model_a} and {model_b}, or the four 2x2 counts",
            param="scores",
        )
    if weights is not None and by is not None:
        raise InputError(
            "{by} with {weights}: the weighted gap is one estimate of the whole benchmark; "
            "compare one group at a time with {tasks}",
            param="by",
        )
    if weights is not None:
        _refuse_resampling(n_bootstrap, n_bootstrap_required_n, n_permutations, seed)


def _compare_arrays(
    a: Any, b: ArrayLike, model_a: str, model_b: str, *, by: str | None, judged: bool,
    gold_column: str | None, weights: object, strata: object, settings: _CompareSettings,
    n_permutations: int, scale: str,
) -> CompareResult:  # fmt: skip
    """Two score arrays: the weighted comparison on the design scale, else compare's
    recipe with its headline on the board's scale."""
    if by is not None:
        raise InputError("{by} needs a table of scores with groups; got two arrays", param="by")
    if judged:
        raise InputError(
            "gold labels ({gold_column} or {gold}) go with a table of scores, where each "
            "label finds its model and item; got two arrays",
            param="gold_column" if gold_column is not None else "gold",
        )
    # Score arrays from here on: compare_scores and weighted_result refuse, in one line,
    # anything else (a path, a ScoreSet, an array of text)
    if scale == "design":
        from evalgap.jobs.weighted import weighted_result

        return weighted_result(
            a, b,
            cast("ArrayLike", weights),  # refused in one line unless an array of numbers
            cast("ArrayLike | None", strata), model_a=model_a, model_b=model_b,
            alpha=settings["alpha"], power=settings["power"],
            alternative=settings["alternative"],
        )  # fmt: skip
    return compare_scores(
        a, b, model_a=model_a, model_b=model_b, n_permutations=n_permutations, scale=scale,
        **settings,
    )  # fmt: skip


def _table_pair(a: object, b: object, model_a: str | None, model_b: str | None) -> tuple[str, str]:
    """The two models of a table of scores, named and different."""
    if b is not None:
        raise InputError(
            "give a table of scores as {scores} alone, with {model_a} and {model_b}",
            param="model_a",
        )
    if a is not None and not _is_source(a):
        raise InputError(
            escape(
                f"compare(scores, scores_b) needs two score arrays (got one {type(a).__name__}), "
            )
            + "or a table of scores with {model_a} and {model_b}, or the four 2x2 counts",
            param="scores",
        )
    if not model_a or not model_b:
        raise InputError(
            "a table of scores needs {model_a} and {model_b} (the two models to compare)",
            param="model_a" if not model_a else "model_b",
        )
    if model_a == model_b:
        raise InputError(
            "{model_a!n} and {model_b!n} are both {value!r}; name two models",
            param="model_a",
            value=model_a,
        )
    return model_a, model_b


def _compare_table(
    a: Any, model_a: str, model_b: str, *, weights: object, strata: object, scale: str,
    gold: tuple[str | None, Any, float, float], settings: _CompareSettings,
    n_permutations: int, read: dict[str, Any], columns: dict[str, Any],
) -> CompareResult:  # fmt: skip
    """Two models of a table of scores, by the board's scale: on the gold scale with gold
    labels, weighted under a design, else paired on the items both scored (with the headline
    on any other registered scale)."""
    options = read["options"]
    judged = scale == "gold"
    design = None if weights is None else _design(a, weights, strata, options, columns)
    judge, judge_column = _judge_of(a, judged, strata, options, columns)
    score_set = scores_of(judge, models=[model_a, model_b], **read, **columns)
    if judged:
        from evalgap.jobs.gold import compare_gold

        gold_column, labels, cost_gold, cost_judge = gold
        return compare_gold(
            a, score_set, model_a, model_b, gold_column=gold_column, gold=labels,
            cost_gold=cost_gold, cost_judge=cost_judge,
            settings=dict(settings, n_permutations=n_permutations), judge_column=judge_column,
            strata=strata is not None, tasks=read["tasks"], strict=read["strict"],
            options=options, **columns,
        )  # fmt: skip
    if scale == "design":
        from evalgap.jobs.weighted import compare_weighted

        return compare_weighted(
            score_set, model_a, model_b, design, alpha=settings["alpha"],
            power=settings["power"], alternative=settings["alternative"],
        )  # fmt: skip
    x, y = score_set.pair(model_a, model_b)
    result = compare_scores(
        x, y, model_a=model_a, model_b=model_b, alignment=score_set.report,
        item_ids=score_set.pair_items(model_a, model_b), n_permutations=n_permutations,
        scale=scale, **settings,
    )  # fmt: skip
    from evalgap.jobs.compare_groups import pooling_note

    note = pooling_note(score_set)
    if note:
        import dataclasses

        result = dataclasses.replace(result, notes=(*result.notes, note))
    return result


def _design(
    a: Any, weights: object, strata: object, options: LoadOptions | None,
    columns: dict[str, Any],
) -> Any:  # fmt: skip
    """The sampling design of the items: a weight column, a design file or a DataFrame."""
    from evalgap.jobs.weighted import design_table

    if a is None and not _is_table(weights) and not Path(str(weights)).is_file():
        raise InputError(
            "{weights}: with {store}, give the design file (item_id, weight[, stratum, "
            "stratum_size]); a store keeps no weight column",
            param="weights",
            weights=str(weights),
        )
    # a column name, design file or DataFrame; anything else is refused in one line
    design_given = cast("str | Path | pd.DataFrame", weights)
    column = cast("str | None", strata)  # a stratum column's name, else refused in one line
    return design_table(design_given, column, data=a, options=options, **columns)


def _judge_of(
    a: Any, judged: bool, strata: object, options: LoadOptions | None, columns: dict[str, Any]
) -> tuple[Any, str | None]:
    """The judge's scores and score column (see :func:`judge_source`), an error about the
    strata column naming it as such."""
    try:
        return judge_source(a, judged, options, columns)
    except InputError as error:  # the strata column is read as the judge's cluster column
        if strata is None or "(given for the cluster)" not in str(error):
            raise
        raise InputError(
            escape(str(error).replace("(given for the cluster)", "(given as the strata)"))
        ) from None


def _check_gold(
    judged: bool, gold_column: object, gold: object, cost_gold: float, cost_judge: float,
    *, weights: object, by: object,
) -> None:  # fmt: skip
    """Gold labels' settings: refused where they would be ignored."""
    for name, value in (("cost_gold", cost_gold), ("cost_judge", cost_judge)):
        if value is None:
            raise InputError(
                "{"
                + name
                + "} must be a number (the price of "
                + ("a gold label" if name == "cost_gold" else "a judged item")
                + "); got None",
                param=name,
            )
    _validate.arguments(cost_gold=cost_gold, cost_judge=cost_judge)
    if not float(cost_gold) > 0 or not float(cost_judge) >= 0:
        bad = "cost_gold" if not float(cost_gold) > 0 else "cost_judge"
        raise InputError(
            "{cost_gold} must be > 0 and {cost_judge} >= 0 (the prices of a gold label and of "
            "a judged item)",
            param=bad,
        )
    if not judged and (cost_gold != 1.0 or cost_judge != 0.0):
        raise InputError(
            "{cost_gold} and {cost_judge} price gold labels and judged items; give the gold "
            "labels ({gold_column} or {gold}) or leave them",
            param="cost_gold" if cost_gold != 1.0 else "cost_judge",
        )
    if not judged:
        return
    if cost_gold != 1.0 and cost_judge == 0.0:
        raise InputError(
            "{cost_gold} prices a gold label against a judged item: give {cost_judge} > 0 too "
            "(the cheapest mix of both), or leave it",
            param="cost_gold",
        )
    if weights is not None or by is not None:
        raise InputError(
            "gold labels with {weights} or {by}: the gold-scale gap is one estimate over the "
            "judged items; compare one group at a time with {tasks}",
            param="weights" if weights is not None else "by",
        )


def _refuse_resampling(
    n_bootstrap: object, n_bootstrap_required_n: object, n_permutations: object, seed: object
) -> None:
    """The weighted (design-based) test resamples nothing: its resampling settings are refused
    when set away from their defaults rather than ignored."""
    given = {
        "n_bootstrap": (n_bootstrap, DEFAULT_BOOTSTRAP),
        "n_bootstrap_required_n": (n_bootstrap_required_n, DEFAULT_REQUIRED_N_BOOTSTRAP),
        "n_permutations": (n_permutations, DEFAULT_PERMUTATIONS),
        "seed": (seed, 0),
    }
    for name, (value, default) in given.items():
        same = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if value is not default and not (same and value == default):
            raise InputError(
                fields(name) + ": the weighted gap's design-based test resamples nothing; "
                "leave it at its default with {weights}",
                param=name,
            )


def _compare_by(
    data: ScoresInput, model_a: str, model_b: str, by: str,
    adjustment: Literal["holm", "bonferroni", "sidak", "bh"], settings: _CompareSettings,
    n_permutations: int, **kw: Any,
) -> CompareGroupsResult:  # fmt: skip
    from evalgap.jobs.compare_groups import compare_by_group

    columns = dict(kw.pop("columns"))
    scale = kw.pop("scale")
    if by != "task" and _is_table(data) and by not in data.columns:
        raise InputError(
            "{by}: the table has no column {by!r} to group by (columns: {columns!s}); "
            "{by=task} groups by the task column",
            param="by",
            by=by,
            columns=", ".join(map(str, data.columns[:8])),
        )
    if by != "task":
        given = columns.get("task_column")
        if given and given != by:
            raise InputError(
                "{by} and {task_column} name different columns; {by=COLUMN} groups by that column",
                param="by",
                by=by,
                task_column=given,
            )
        columns["task_column"] = by
    from evalgap._scores import ScoreSet

    if not isinstance(data, ScoreSet):
        data = long_scores(data, options=kw.pop("options", None), **columns)
        if by != "task" and data.columns.get("task") != by:
            raise InputError(
                "{by}: {source!s} has no column {by!r} to group by (use {by=task} for a "
                "log's tasks)",
                param="by",
                by=by,
                source=data.source,
            )
    score_set = scores_of(data, models=[model_a, model_b], **kw)
    return compare_by_group(
        score_set,
        model_a,
        model_b,
        by=by,
        adjustment=adjustment,
        n_permutations=n_permutations,
        scale=scale,
        **settings,
    )


def against_baseline(
    log: str | Path,
    baseline: str | Path,
    *,
    model: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    **settings: Any,
) -> list[CompareResult]:
    """Compare each task of the inspect_ai log ``log`` with the same task in ``baseline``.

    Parameters
    ----------
    log : str or Path
        The new run's log (``.eval`` or ``.json``).
    baseline : str or Path
        A baseline log, or a folder of logs: there, the latest finished log of the same task,
        task arguments and model, as the inspect_ai extension chooses it
        (:func:`evalgap.io.inspect_baseline.find_baseline`).
    model : str, optional
        The baseline model, when logs of several models match in the folder.
    alpha, power : float
        As for :func:`evalgap.compare`.
    **settings
        Other settings of :func:`evalgap.compare` (``n_bootstrap``, ``seed``...).

    Returns
    -------
    list of CompareResult
        One per task of ``log``: the new model as A, the baseline's as B (named with
        ``" (baseline)"`` when both have one name), on the samples both scored.

    Examples
    --------
    The inspect_ai extension runs this at the end of each task; a baseline that is not
    there is one line of error:

    >>> from evalgap.jobs.compare import against_baseline
    >>> against_baseline("logs/new.eval", "no/such/folder")
    Traceback (most recent call last):
    evalgap.errors.InputError: log=: no such file or folder 'logs/new.eval'
    """
    import pandas as pd

    from evalgap._scores import LongScores
    from evalgap.io.inspect_baseline import find_baseline
    from evalgap.io.inspect_logs import read_inspect

    new_path, base_path = Path(log), Path(baseline)
    for name, path in (("log", new_path), ("baseline", base_path)):
        if not path.exists():
            raise InputError(
                "{" + name + "}" + escape(f": no such file or folder {str(path)!r}"), param=name
            )
    if base_path.is_dir():  # one log of the same task and -T arguments, as the hook picks
        base_path = find_baseline(new_path, base_path, model=model).path
    new_read, base_read = read_inspect([new_path]), read_inspect([base_path])
    results = []
    for task, mine in new_read.frame.groupby("task", sort=False):
        theirs = _baseline_rows(base_read.frame, task, base_path, model)
        a = str(mine["model"].iloc[0])
        b = str(theirs["model"].iloc[0])
        if a == b:
            b = b + BASELINE_SUFFIX
            theirs = theirs.assign(model=b)
        # the two logs as the reader gives them, as `evalgap compare` on both files reads them
        both = LongScores(
            frame=pd.concat([theirs, mine], ignore_index=True),
            source=f"{base_path}, {new_path}",
            columns=new_read.columns,
            notes=tuple(dict.fromkeys((*base_read.notes, *new_read.notes))),
        )
        result = compare(both, model_a=a, model_b=b, alpha=alpha, power=power, **settings)
        results.append(cast("CompareResult", result))  # a table without by/weights/gold
    return results


def _baseline_rows(base: pd.DataFrame, task: Any, base_path: Path, model: str | None) -> Any:
    """The baseline's rows of ``task``: of its one model, or of ``model``."""
    theirs = base[base["task"] == task]
    if theirs.empty:
        tasks = ", ".join(sorted(map(str, base["task"].unique()))) or "none"
        raise InputError(
            escape(f"{base_path}: no log of task {task!r}; tasks there: {tasks}"),
            param="baseline",
        )
    models = list(dict.fromkeys(theirs["model"].astype(str)))
    if model is not None:
        if model not in models:
            raise InputError(
                escape(f"{base_path}: no model {model!r} ran task {task!r}; models: ")
                + escape(", ".join(models)),
                param="model",
            )
        return theirs[theirs["model"].astype(str) == model]
    if len(models) > 1:
        raise InputError(
            escape(f"{base_path}: {len(models)} models ran task {task!r} ({', '.join(models)}); ")
            + "name the baseline's with {model}",
            param="model",
        )
    return theirs


def compare_lm_eval(
    results_a: Any,
    results_b: Any,
    *,
    model_a: str = "a",
    model_b: str = "b",
    metric: Any = None,
    filter_name: str | None = None,
    by: str | None = None,
    **settings: Any,
) -> CompareResult | CompareGroupsResult:
    """Compare two lm-evaluation-harness runs from the dicts ``simple_evaluate`` returns.

    Parameters
    ----------
    results_a, results_b : dict
        What ``lm_eval.simple_evaluate(..., log_samples=True)`` returned for each run.
    model_a, model_b : str
        The runs' names (the dicts carry none when the model was passed as an object).
    metric, filter_name
        lm-eval's metric (one name, or ``task=name``) and the filter of tasks scored under
        several (see :func:`evalgap.io.lm_eval.read_lm_eval_results`).
    by : str, optional
        ``"task"``: compare within each task, p-values adjusted over tasks.
    **settings
        Other settings of :func:`evalgap.compare` (``alpha``, ``power``, ``seed``...).

    Returns
    -------
    CompareResult or CompareGroupsResult
        As :func:`evalgap.compare` gives them on the runs' ``--log_samples`` files.

    Examples
    --------
    Without ``log_samples=True`` a run's dict has no per-item scores, and that is said:

    >>> from evalgap.jobs.compare import compare_lm_eval
    >>> compare_lm_eval({"results": {}}, {"results": {}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    evalgap.errors.InputError: results=['a'] has no per-sample records; ...
    """
    from evalgap.io.lm_eval import read_lm_eval_results

    if model_a == model_b:
        raise InputError(
            "{model_a!n} and {model_b!n} are both {value!r}; name the two runs apart",
            param="model_a",
            value=model_a,
        )
    long = read_lm_eval_results(
        {model_a: results_a, model_b: results_b}, metric=metric, filter_name=filter_name
    )
    return compare(long, model_a=model_a, model_b=model_b, by=by, **settings)
