"""The public job functions: one call per command, taking what a notebook holds.

Every function accepts per-item scores in the forms a user has them -- NumPy arrays, a long
pandas DataFrame with its own column names, a :class:`~evalgap.ScoreSet` from
:func:`align`, or paths to result files (any source :func:`~evalgap.load_scores` reads) --
and the same options, under the same names, as the command line. The command line calls
these functions, so both give the same numbers.

Nothing heavy is imported here at module level: ``compare`` from counts needs NumPy and
SciPy only; pandas is loaded when a table is given.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from evalgap.errors import InputError, escape, fields
from evalgap.jobs._board import judge_source, names, per_item_options_given, refuse_gold_clusters
from evalgap.jobs._inputs import (
    _check_columns,
    _is_source,
    _is_table,
    _models,
    _renamed,
    _stored,
    _unless_default,
    long_scores,
    scores_of,
)
from evalgap.jobs.compare import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    DEFAULT_REQUIRED_N_BOOTSTRAP,
    compare_counts,
    compare_scores,
)
from evalgap.stats import _validate

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.audit import AuditResult
    from evalgap.jobs.card import CardResult
    from evalgap.jobs.compare import CompareResult
    from evalgap.jobs.compare_groups import CompareGroupsResult
    from evalgap.jobs.fragility import FragilityResult
    from evalgap.jobs.gold import GoldAuditResult, GoldCompareResult
    from evalgap.jobs.ranks import RanksResult
    from evalgap.jobs.weighted import WeightedCompareResult
    from evalgap.stats._types import Alternative, ArrayLike

    class _CompareSettings(TypedDict):
        """The settings ``compare`` hands to each comparison."""

        alpha: float
        power: float
        alternative: Alternative
        n_bootstrap: int
        n_bootstrap_required_n: int
        seed: int | None

    class _AuditSettings(TypedDict):
        """The settings ``audit`` hands to the audit of counts or of scores."""

        family_size: int | None
        alpha: float
        power: float
        n_bootstrap: int
        n_bootstrap_required_n: int
        seed: int | None
        chain_procedure: str
        mixture: str


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
    options: LoadOptions | None = None,
    **columns: Any,
) -> CompareResult | CompareGroupsResult | WeightedCompareResult | GoldCompareResult:
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
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        With a DataFrame or paths: ``model_column``, ``item_column``, ``score_column``,
        ``task_column``, ``run_column``, ``cluster_column``.

    Returns
    -------
    CompareResult
        Tests, intervals, N*, MDE, q = N/N* and the verdict (``CompareGroupsResult`` with
        ``by``; ``WeightedCompareResult`` with ``weights``; ``GoldCompareResult`` with
        gold labels).

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
        "alpha": alpha,
        "power": power,
        "alternative": alternative,
        "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n,
        "seed": seed,
    }
    counts = (both_correct, a_only, b_only, both_wrong)
    scores = _renamed(columns, "a", "scores", scores)
    scores_b = _renamed(columns, "b", "scores_b", scores_b)
    a, b = scores, scores_b  # model A's scores or a table; model B's scores
    _check_columns(columns, "compare")
    _validate.arguments(
        both_correct=both_correct,
        a_only=a_only,
        b_only=b_only,
        both_wrong=both_wrong,
        model_a=model_a,
        model_b=model_b,
        by=by,
        adjustment=adjustment,
        alpha=alpha,
        power=power,
        alternative=alternative,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        n_permutations=n_permutations,
        seed=seed,
        complete_case=complete_case,
        strict=strict,
        tasks=tasks,
    )
    judged = gold_column is not None or gold is not None
    if strata is not None and weights is None and not judged:
        raise InputError(
            "{strata} goes with {weights} (a stratified item sample) or with gold labels drawn "
            "by stratum ({gold_column}); give one",
            param="strata",
        )
    if judged and strata is None:
        refuse_gold_clusters(columns, options)
    if judged and strata is not None:
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
        columns = {**columns, "cluster_column": strata}
    _check_gold(judged, gold_column, gold, cost_gold, cost_judge, weights=weights, by=by)
    if by is None and adjustment != "holm":
        raise InputError(
            "{adjustment} corrects over the groups of {by}; give {by} or leave it",
            param="adjustment",
        )
    if any(c is not None for c in counts):
        if a is not None or b is not None or _stored(options):
            raise InputError(
                "give either scores ({scores} and {scores_b}, or a table) or the four 2x2 counts "
                "({both_correct}, {a_only}, {b_only}, {both_wrong}), not both",
                param="scores",
            )
        missing = [
            n
            for n, v in zip(("both_correct", "a_only", "b_only", "both_wrong"), counts, strict=True)
            if v is None
        ]
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
        given = cast("tuple[int, int, int, int]", counts)  # none is None (checked above)
        if sum(int(c) for c in given) == 0:
            raise InputError(
                "the four counts add up to 0 items; give the counts of a real comparison"
            )
        return compare_counts(*given, model_a=model_a or "A", model_b=model_b or "B", **settings)
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
    if b is not None and not _is_table(b) and not _is_table(a):
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
        a = cast("ArrayLike", a)
        if weights is not None:
            from evalgap.jobs.weighted import weighted_result

            return weighted_result(
                a,
                b,
                cast("ArrayLike", weights),  # refused in one line unless an array of numbers
                strata,
                model_a=model_a or "A",
                model_b=model_b or "B",
                alpha=alpha,
                power=power,
                alternative=alternative,
            )
        return compare_scores(
            a,
            b,
            model_a=model_a or "A",
            model_b=model_b or "B",
            n_permutations=n_permutations,
            **settings,
        )
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
    if by is not None:
        return _compare_by(
            a,
            model_a,
            model_b,
            by,
            adjustment,
            settings,
            n_permutations,
            columns=columns,
            complete_case=complete_case,
            strict=strict,
            tasks=tasks,
            options=options,
        )
    design = None
    if weights is not None:
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
        design = design_table(design_given, column, data=a, options=options, **columns)
    try:
        judge, judge_column = judge_source(a, judged, options, columns)
    except InputError as error:  # the strata column is read as the judge's cluster column
        if strata is None or "(given for the cluster)" not in str(error):
            raise
        raise InputError(
            escape(str(error).replace("(given for the cluster)", "(given as the strata)"))
        ) from None
    score_set = scores_of(
        judge,
        models=[model_a, model_b],
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
        options=options,
        **columns,
    )
    if judged:
        from evalgap.jobs.gold import compare_gold

        return compare_gold(
            a,
            score_set,
            model_a,
            model_b,
            gold_column=gold_column,
            gold=gold,
            cost_gold=cost_gold,
            cost_judge=cost_judge,
            settings=dict(settings, n_permutations=n_permutations),
            judge_column=judge_column,
            strata=strata is not None,
            tasks=tasks,
            strict=strict,
            options=options,
            **columns,
        )
    if design is not None:
        from evalgap.jobs.weighted import compare_weighted

        return compare_weighted(
            score_set, model_a, model_b, design, alpha=alpha, power=power, alternative=alternative
        )
    x, y = score_set.pair(model_a, model_b)
    result = compare_scores(
        x,
        y,
        model_a=model_a,
        model_b=model_b,
        alignment=score_set.report,
        item_ids=score_set.pair_items(model_a, model_b),
        n_permutations=n_permutations,
        **settings,
    )
    from evalgap.jobs.compare_groups import pooling_note

    note = pooling_note(score_set)
    if note:
        import dataclasses

        result = dataclasses.replace(result, notes=(*result.notes, note))
    return result


def _gold_of_board(
    scores: Any, score_set: ScoreSet, gold_column: str | None, gold: Any,
    judge_column: str | None, tasks: Sequence[str] | None, options: LoadOptions | None,
    strict: bool, columns: dict[str, Any],
) -> tuple[ScoreSet, list[str]]:  # fmt: skip
    """The gold labels of every model of a judged board (ranks and audit)."""
    from evalgap.jobs.gold import gold_set

    return gold_set(
        scores, gold_column=gold_column, gold=gold, models=list(score_set.models),
        judge_column=judge_column, tasks=tasks, options=options, strict=strict, **columns,
    )  # fmt: skip


def _refuse_for_gold_audit(**given: tuple[object, object]) -> None:
    """The audit's settings the gold scale does not use, refused when set."""
    for name, (value, default) in given.items():
        if value != default:
            raise InputError(
                fields(name) + ": the gold-scale audit resamples nothing and tests each pair at "
                "fixed n and under the family procedures; leave it at its default with "
                "{gold_column} or {gold}",
                param=name,
            )


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
        **settings,
    )


def audit(
    scores: ScoresInput | None = None,
    *,
    pairs: pd.DataFrame | None = None,
    family: str = "adjacent",
    family_size: int | None = None,
    procedure: str = "fixed_n",
    mixture: str = "grid",
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    n_cluster_bootstrap: int = 1000,
    n_bootstrap: int = 2000,
    n_bootstrap_required_n: int = 500,
    n_rank_bootstrap: int = 1000,
    seed: int | None = 0,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    gold_column: str | None = None,
    gold: ScoresInput | None = None,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> AuditResult | GoldAuditResult:
    """Audit a leaderboard: which displayed rankings can the benchmark resolve?

    Per task, models are ranked by their mean score; every rank-adjacent pair
    (``family="adjacent"``) or every pair (``"all"``) is compared on the items both models
    scored and gets a resolved/unresolved verdict under fixed n, Bonferroni, Sidak, Holm,
    BH, anytime-valid testing and, with cluster labels, clustering (*Resolution
    Diagnostics*, Sections 6.1-6.5; the procedures put their level in place of
    ``z_{1-alpha/2}`` in Eq. 3).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores of K models: a long DataFrame (name its columns with
        ``model_column=``, ``item_column=``, ``score_column=``, ``task_column=``,
        ``cluster_column=``...; unnamed ones are detected), a ScoreSet, or result files.
    pairs : DataFrame, optional
        Instead of ``scores``: one row per displayed pair with columns ``model_a, model_b,
        both_correct, a_only, b_only, both_wrong`` (and optionally ``task``), A above B.
    family : {"adjacent", "all"}
        Rank-adjacent pairs or all pairs, per task.
    family_size : int, optional
        Declared family size m (default: the number of pairs audited).
    procedure : str
        The procedure whose rank-adjacent verdicts make the unresolved chains (``fixed_n``,
        ``bonferroni``, ``sidak``, ``holm``, ``bh``, ``anytime_valid``, ``clustered``);
        the tiers come from the rank sets.
    mixture : {"grid", "beta"}
        The e-process mixture of the anytime-valid boundary.
    alpha, power : float
        Significance level and target power.
    alternative : {"two-sided"}
        The audit tests two-sided gaps (any other value is refused).
    n_cluster_bootstrap, n_bootstrap, n_bootstrap_required_n : int
        Resamples of the cluster bootstrap, of each pair's bootstrap p-value and of each
        pair's N* interval (0 skips a step).
    n_rank_bootstrap : int
        Bootstrap replicates of the rank sets (see :func:`evalgap.ranks`; 0 skips them).
    seed : int or None
        Seed of every resampling step.
    models, tasks : list of str, optional
        Select and order models and tasks (all, in order of appearance, by default).
    complete_case, strict : bool
        Keep only items every model scored; treat any left-out row as an error.
    gold_column, gold : optional
        The scores are a judge's, with gold scores on some items (as for
        :func:`evalgap.compare`): every pair is audited on the gold scale instead
        (:class:`GoldAuditResult`: paired PPI++ gaps, q, and the verdicts at fixed n and
        under the family procedures), the judge's own figures beside them. The resampling
        settings, ``procedure`` and ``mixture`` do not apply and are refused.
    progress : callable, optional
        Called with the name of each phase as it starts.
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        Column names of a DataFrame or table file (see ``scores``).

    Returns
    -------
    AuditResult
        Rankings, the per-pair table (``result.pairs``, a :class:`PairTable`), unresolved
        counts per procedure, unresolved chains, rank-set tiers, stress tests and notes
        (``GoldAuditResult`` with gold labels).

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> pairs = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "z"],
    ...     "both_correct": [7986, 7000], "a_only": [295, 900],
    ...     "b_only": [249, 300], "both_wrong": [1512, 1842]})
    >>> r = evalgap.audit(pairs=pairs, n_bootstrap=0, n_bootstrap_required_n=0)
    >>> r.unresolved["fixed_n"], r.unresolved["bonferroni"]
    (1, 1)
    """
    from evalgap.jobs.audit import audit_counts, audit_scores

    settings: _AuditSettings = {
        "family_size": family_size,
        "alpha": alpha,
        "power": power,
        "n_bootstrap": n_bootstrap,
        "n_bootstrap_required_n": n_bootstrap_required_n,
        "seed": seed,
        "chain_procedure": procedure,
        "mixture": mixture,
    }
    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "audit")
    _validate.arguments(
        family=family,
        family_size=family_size,
        procedure=procedure,
        mixture=mixture,
        alpha=alpha,
        power=power,
        n_cluster_bootstrap=n_cluster_bootstrap,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        n_rank_bootstrap=n_rank_bootstrap,
        seed=seed,
        models=models,
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
    )
    if alternative != "two-sided":
        raise InputError(
            "{alternative}: the audit tests two-sided gaps; leave it at two-sided",
            param="alternative",
            alternative=alternative,
        )
    if (pairs is None) == (scores is None and not _stored(options)):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores)",
            param="pairs",
        )
    if pairs is not None and (gold_column is not None or gold is not None):
        raise InputError(
            "gold labels ({gold_column} or {gold}) go with per-item {scores}, not {pairs}",
            param="gold_column" if gold_column is not None else "gold",
        )
    if pairs is not None:
        if family != "adjacent":
            raise InputError(
                "{family=all} needs per-item {scores}; a {pairs} file lists its pairs itself",
                param="family",
            )
        ignored = per_item_options_given(
            models,
            tasks,
            complete_case,
            strict,
            options,
            columns,
            n_cluster_bootstrap=n_cluster_bootstrap != 1000,
            n_rank_bootstrap=n_rank_bootstrap != 1000,
        )
        if ignored:
            raise InputError(
                f"{fields(*ignored)}: not for a {{pairs}} file of 2x2 counts (it has no "
                "per-item scores to read, cluster or rank); leave it out, or audit {scores}",
                param=ignored[0],
            )
        if isinstance(pairs, (str, Path)):
            from evalgap.io.tables import read_frame

            return audit_counts(read_frame(pairs), source=str(pairs), **settings)
        if not _is_table(pairs):
            raise InputError(
                "{pairs} must be a DataFrame or a CSV path; got " + type(pairs).__name__,
                param="pairs",
            )
        return audit_counts(pairs, **settings)
    judged = gold_column is not None or gold is not None
    if judged:
        refuse_gold_clusters(columns, options)
        _refuse_for_gold_audit(
            procedure=(procedure, "fixed_n"), mixture=(mixture, "grid"),
            n_cluster_bootstrap=(n_cluster_bootstrap, 1000), n_bootstrap=(n_bootstrap, 2000),
            n_bootstrap_required_n=(n_bootstrap_required_n, 500),
            n_rank_bootstrap=(n_rank_bootstrap, 1000), seed=(seed, 0),
        )  # fmt: skip
    judge, judge_column = judge_source(scores, judged, options, columns)
    score_set = scores_of(
        judge,
        models=_models(models, options),
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
        options=options,
        **columns,
    )
    if judged:
        from evalgap.jobs.gold import audit_gold

        golden, gold_notes = _gold_of_board(
            scores, score_set, gold_column, gold, judge_column, tasks, options, strict, columns
        )
        return audit_gold(
            score_set, golden, gold_notes=gold_notes, family=family, family_size=family_size,
            alpha=alpha, power=power, strict=strict, progress=progress,
        )  # fmt: skip
    cluster = columns.get("cluster_column") or (options.cluster_column if options else None)
    return audit_scores(
        score_set,
        family=family,
        n_cluster_bootstrap=n_cluster_bootstrap,
        n_rank_bootstrap=n_rank_bootstrap,
        cluster_label=cluster or "cluster",
        progress=progress,
        **settings,
    )


def fragility(
    scores: ScoresInput | None = None,
    *,
    pairs: pd.DataFrame | None = None,
    family: str = "adjacent",
    family_size: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> FragilityResult:
    """How few items would reverse each verdict of a leaderboard's pairs?

    For every pair the audit judges (rank-adjacent per task, or all pairs), and for every
    test and procedure behind its verdicts -- the exact and chi-square McNemar tests (binary
    scores), the paired t and sign tests (graded), resolution at alpha and under Bonferroni,
    Sidak and Holm -- the fewest items whose removal from the pair reverses the verdict, and
    which (see :mod:`evalgap.stats.fragility`: exact for binary pairs, bounds for graded).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores, as :func:`audit` takes them.
    pairs : DataFrame, optional
        Instead: per-pair 2x2 counts (``model_a, model_b, both_correct, a_only, b_only,
        both_wrong``); removal sets are then counts, not item ids.
    family, family_size, alpha, power, models, tasks, complete_case, strict, options
        As in :func:`audit`.
    progress : callable, optional
        Called with the name of each phase as it starts.
    **columns
        Column names of a DataFrame or table file.

    Returns
    -------
    FragilityResult
        One row per pair with its entries per test (``result.pairs``; ``to_frame()`` one
        row per pair and test), and the sentence.

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> pairs = pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "both_correct": [7986],
    ...     "a_only": [295], "b_only": [249], "both_wrong": [1512]})
    >>> r = evalgap.fragility(pairs=pairs)
    >>> r.pairs[0].fragility["mcnemar"].items_to_flip
    1
    """
    from evalgap.jobs.fragility import board_fragility

    quiet: dict[str, Any] = {
        "n_bootstrap": 0, "n_bootstrap_required_n": 0, "alpha": alpha, "power": power
    }  # fmt: skip
    if pairs is not None and (scores is not None or _stored(options)):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores), "
            "not both",
            param="pairs",
        )
    if pairs is not None:  # the audit refuses the per-item options a counts file cannot use
        result = audit(
            pairs=pairs, family=family, family_size=family_size, models=models, tasks=tasks,
            complete_case=complete_case, strict=strict, options=options, **quiet, **columns,
        )  # fmt: skip
        return board_fragility(result)
    if scores is None and not _stored(options):
        raise InputError(
            "give either {pairs=FILE} (per-pair 2x2 counts) or {scores=FILE} (per-item scores)",
            param="pairs",
        )
    score_set = scores_of(
        _renamed(columns, "data", "scores", scores),
        models=_models(models, options),
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
        options=options,
        **columns,
    )
    result = audit(
        score_set,
        family=family,
        family_size=family_size,
        n_cluster_bootstrap=0,
        n_rank_bootstrap=0,
        progress=progress,
        **quiet,
    )
    return board_fragility(result, score_set)


def ranks(
    scores: ScoresInput | None = None,
    *,
    battles: pd.DataFrame | str | Path | None = None,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
    method: Literal["auto", "bootstrap", "holm"] = "auto",
    bootstrap: Literal["multiplier", "empirical"] = "multiplier",
    ties: Literal["half", "davidson"] = "half",
    battle_format: str | None = None,
    style: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    gold_column: str | None = None,
    gold: ScoresInput | None = None,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> RanksResult:
    """Which rank can each model claim? Simultaneous rank confidence sets and tiers.

    Per task, every pair of models' difference in mean score is bounded at once by a
    studentized max-|t| bootstrap over items (clusters with ``cluster_column=``), refined
    stepwise (Romano and Wolf); a model's rank set runs from one plus the number of models
    shown better to K minus the number shown worse (Mogstad, Romano, Shaikh and Wilhelm
    2024, *Review of Economic Studies*). With too many models for the items, where the
    bootstrap's coverage degrades, the sets come from Holm-adjusted pairwise tests instead,
    and the result says so. Battles (``battles=``, arena style) are ranked by their
    Bradley-Terry scores with the same method.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores of K models (binary or graded), as for :func:`evalgap.audit`.
    battles : DataFrame, str or Path, optional
        Instead of ``scores``: one row per battle with ``model_a, model_b, winner``
        (``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``).
    alpha : float
        One minus the simultaneous confidence level of the rank sets.
    n_bootstrap : int
        Bootstrap replicates.
    seed : int or None
        Seed of the bootstrap.
    top_k : int, optional
        Also return the models that could be among the best ``top_k``.
    method : {"auto", "bootstrap", "holm"}
        ``auto`` uses the bootstrap unless the models-to-items ratio calls for Holm.
    bootstrap : {"multiplier", "empirical"}
        Gaussian multiplier weights on the items (clusters), or items (clusters) resampled
        with replacement.
    ties : {"half", "davidson"}
        Battles only: ties as half a win each, or Davidson's tie model.
    battle_format : {"csv", "tsv", "parquet", "jsonl", "json"}, optional
        Battles only: force the battle file's format (default: from its name and content;
        ``json`` is a JSON array of records such as LMArena's ``clean_battle_<date>.json``).
    style : list of str, optional
        Battles only: style control. Names of covariates, each a column of the differences
        between the two answers (a minus b), or a pair ``NAME_a``/``NAME_b`` of each
        answer's value (their normalized difference); the scores hold them equal and the
        result's ``bradley_terry.style`` gives their coefficients.
    models, tasks, complete_case, strict, options, **columns
        As for :func:`evalgap.audit`.
    gold_column, gold : optional
        The scores are a judge's, with gold scores on some items (as for
        :func:`evalgap.compare`): the models are ranked on the gold scale by their PPI++
        scores, on the items the judge scored for every model, the rank sets drawn from
        the multivariate t law of the scores' joint covariance (``n_bootstrap`` draws); the
        result's ``gold`` table gives each model's judge bias and agreement.
    progress : callable, optional
        Called with ``(done, total, label)`` per task.

    Returns
    -------
    RanksResult
        Per model: score, SE, items, rank, simultaneous and marginal rank sets, tier.

    Examples
    --------
    >>> import numpy as np, pandas as pd, evalgap
    >>> rng = np.random.default_rng(0)
    >>> skill = {"a": 0.8, "b": 0.79, "c": 0.5}
    >>> df = pd.DataFrame([(m, i, float(rng.random() < p)) for m, p in skill.items()
    ...     for i in range(400)], columns=["model", "item", "score"])
    >>> r = evalgap.ranks(df, n_bootstrap=500)
    >>> r.ranks[["model", "rank_low", "rank_high", "tier"]].to_numpy().tolist()
    [['b', 1, 2, 1], ['a', 1, 2, 1], ['c', 3, 3, 2]]
    """
    from evalgap.jobs.ranks import ranks_battles, ranks_scores

    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "ranks")
    _validate.arguments(
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        top_k=top_k,
        method=method,
        bootstrap=bootstrap,
        ties=ties,
        models=models,
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
    )
    if (battles is None) == (scores is None and not _stored(options)):
        raise InputError(
            "give either {battles=FILE} (arena battles) or {scores=FILE} (per-item scores)",
            param="battles",
        )
    judged = gold_column is not None or gold is not None
    if judged and battles is None:
        refuse_gold_clusters(columns, options)
    if judged and battles is not None:
        raise InputError(
            "gold labels ({gold_column} or {gold}) go with per-item {scores}, not {battles}",
            param="gold_column" if gold_column is not None else "gold",
        )
    if judged and (method == "holm" or bootstrap != "multiplier"):
        raise InputError(
            "on the gold scale the rank sets come from the multivariate t law of the PPI++ "
            "scores' covariance: leave {method} and {bootstrap} at their defaults",
            param="method" if method == "holm" else "bootstrap",
        )
    if battles is not None:
        if options is not None and options.fmt is not None:  # the battle file's format
            battle_format = battle_format or options.fmt
            options = _unless_default(dataclasses.replace(options, fmt=None))
        # --cluster-column (cluster_column=): the battles' prompt column
        prompt_column = columns.pop("cluster_column", None) or "question_id"
        if options is not None and options.cluster_column is not None:
            prompt_column = options.cluster_column
            options = _unless_default(dataclasses.replace(options, cluster_column=None))
        stray = per_item_options_given(
            models,
            tasks,
            complete_case,
            strict,
            options,
            columns,
            bootstrap=bootstrap != "multiplier",
        )
        if stray:
            raise InputError(
                f"{fields(*stray)}: per-item score options do not apply to {{battles}}; drop them",
                param=stray[0],
            )
        return ranks_battles(
            battles,
            alpha=alpha,
            n_bootstrap=n_bootstrap,
            seed=seed,
            top_k=top_k,
            method=method,
            ties=ties,
            file_format=battle_format,
            prompt_column=prompt_column,
            style=names(style, "style"),
        )
    if battle_format is not None or ties != "half" or style:
        only = (("battle_format", battle_format), ("ties", ties != "half"), ("style", style))
        given = [n for n, v in only if v]
        raise InputError(
            f"{fields(*given)}: for {{battles}} only; drop it with per-item {{scores}}",
            param=given[0],
        )
    judge, judge_column = judge_source(scores, judged, options, columns)
    score_set = scores_of(
        judge,
        models=_models(models, options),
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
        options=options,
        **columns,
    )
    if judged:
        from evalgap.jobs.gold import ranks_gold

        golden, gold_notes = _gold_of_board(
            scores, score_set, gold_column, gold, judge_column, tasks, options, strict, columns
        )
        return ranks_gold(
            score_set, golden, gold_notes=gold_notes, alpha=alpha, n_bootstrap=n_bootstrap,
            seed=seed, top_k=top_k, strict=strict, progress=progress,
        )  # fmt: skip
    return ranks_scores(
        score_set,
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        top_k=top_k,
        method=method,
        bootstrap=bootstrap,
        progress=progress,
    )


def card(
    scores: ScoresInput | None = None,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    complete_case: bool = False,
    strict: bool = False,
    progress: Callable[..., object] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> CardResult:
    """A leaderboard card: what each model and each adjacent pair can claim, on one page.

    Per task: each model's score and interval, simultaneous and marginal rank sets and tier
    (as :func:`ranks`), and the items it lacks; each rank-adjacent pair's gap, interval,
    p-value, q (as :func:`audit`) and items to flip (as :func:`fragility`); the adjacent
    pairs separated, the models with a single rank and the benchmark's signal-to-noise
    ratio; and the settings. ``result.to_markdown()`` gives GitHub-flavoured Markdown (a
    README section or a pull-request comment), ``result.to_html(path)`` the page of ``card
    --html``.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list
        Per-item scores, as :func:`ranks` takes them (``cluster_column=`` for clustered
        items; ``task_column=`` names the tasks, e.g. categories).
    alpha, power : float
        The level of the sets, tests and intervals, and the power of N*.
    n_bootstrap : int
        Bootstrap replicates of the rank sets.
    seed : int or None
        Seed of every resampling step.
    models, tasks, complete_case, strict, options
        As in :func:`ranks`.
    progress : callable, optional
        Called as the rank sets of each task are computed.
    **columns
        Column names of a DataFrame or table file.

    Returns
    -------
    CardResult
        The card (``tasks``, ``settings``, ``notes``, the sentence).

    Examples
    --------
    >>> import numpy as np, pandas as pd, evalgap
    >>> rng = np.random.default_rng(0)
    >>> p = {"a": 0.8, "b": 0.7, "c": 0.69}
    >>> rows = [(m, f"q{i}", int(rng.random() < p[m])) for m in p for i in range(600)]
    >>> card = evalgap.card(pd.DataFrame(rows, columns=["model", "item_id", "score"]),
    ...                     n_bootstrap=300)
    >>> sorted((m.model, m.rank_low, m.rank_high) for m in card.tasks[0].models)
    [('a', 1, 1), ('b', 2, 3), ('c', 2, 3)]
    >>> card.to_markdown().splitlines()[0]
    '## Leaderboard card'
    """
    from evalgap.jobs.card import card_scores

    _validate.arguments(alpha=alpha, power=power, n_bootstrap=n_bootstrap, seed=seed)
    score_set = scores_of(
        _renamed(columns, "data", "scores", scores),
        models=_models(models, options),
        tasks=tasks,
        complete_case=complete_case,
        strict=strict,
        options=options,
        **columns,
    )
    return card_scores(
        score_set, alpha=alpha, power=power, n_bootstrap=n_bootstrap, seed=seed, progress=progress
    )


# The baseline's model takes this suffix when it has the new log's model name.
BASELINE_SUFFIX = " (baseline)"


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
        A baseline log, or a folder of logs (its latest log of each task and model is used).
    model : str, optional
        The baseline model, when the folder holds several for the task.
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

    >>> import evalgap
    >>> evalgap.against_baseline("logs/new.eval", "no/such/folder")
    Traceback (most recent call last):
    evalgap.errors.InputError: log=: no such file or folder 'logs/new.eval'
    """
    import pandas as pd

    from evalgap._scores import LongScores
    from evalgap.io.inspect_logs import read_inspect

    new_path, base_path = Path(log), Path(baseline)
    for name, path in (("log", new_path), ("baseline", base_path)):
        if not path.exists():
            raise InputError(
                "{" + name + "}" + escape(f": no such file or folder {str(path)!r}"), param=name
            )
    new_read, base_read = read_inspect([new_path]), read_inspect([base_path])
    new, base = new_read.frame, base_read.frame
    results = []
    for task, mine in new.groupby("task", sort=False):
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
            theirs = theirs[theirs["model"].astype(str) == model]
        elif len(models) > 1:
            raise InputError(
                escape(
                    f"{base_path}: {len(models)} models ran task {task!r} ({', '.join(models)}); "
                )
                + "name the baseline's with {model}",
                param="model",
            )
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
        several (see :func:`evalgap.read_lm_eval_results`).
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

    >>> import evalgap
    >>> evalgap.compare_lm_eval({"results": {}}, {"results": {}})  # doctest: +ELLIPSIS
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
    result = compare(long, model_a=model_a, model_b=model_b, by=by, **settings)
    return cast("CompareResult | CompareGroupsResult", result)
