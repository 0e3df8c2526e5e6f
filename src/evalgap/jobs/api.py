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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from evalgap.errors import InputError, fields
from evalgap.jobs._board import judge_source, names, per_item_options_given, refuse_gold_clusters
from evalgap.jobs._inputs import (
    _check_columns,
    _is_table,
    _models,
    _renamed,
    _stored,
    _unless_default,
    scores_of,
)
from evalgap.stats import _validate

if TYPE_CHECKING:
    import pandas as pd

    from evalgap._scores import ScoreSet, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.audit import AuditResult
    from evalgap.jobs.fragility import FragilityResult
    from evalgap.jobs.gold import GoldAuditResult
    from evalgap.jobs.ranks import RanksResult
    from evalgap.stats._types import Alternative

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
    from evalgap.jobs.audit import audit_scores

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
        return _audit_pairs(
            pairs,
            family,
            models,
            tasks,
            complete_case,
            strict,
            options,
            columns,
            n_cluster_bootstrap,
            n_rank_bootstrap,
            settings,
        )
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
    from evalgap.jobs.ranks import ranks_scores

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
        return _ranks_battles(
            battles,
            options,
            columns,
            models,
            tasks,
            complete_case,
            strict,
            battle_format,
            alpha=alpha,
            n_bootstrap=n_bootstrap,
            seed=seed,
            top_k=top_k,
            method=method,
            ties=ties,
            bootstrap=bootstrap,
            style=style,
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


# The baseline's model takes this suffix when it has the new log's model name.
BASELINE_SUFFIX = " (baseline)"


def _audit_pairs(
    pairs: Any, family: str, models: Sequence[str] | None, tasks: Sequence[str] | None,
    complete_case: bool, strict: bool, options: LoadOptions | None, columns: dict[str, Any],
    n_cluster_bootstrap: int, n_rank_bootstrap: int, settings: _AuditSettings,
) -> AuditResult:  # fmt: skip
    """The audit of a table of per-pair 2x2 counts, the per-item options refused."""
    from evalgap.jobs.audit import audit_counts

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


def _ranks_battles(
    battles: Any, options: LoadOptions | None, columns: dict[str, Any],
    models: Sequence[str] | None, tasks: Sequence[str] | None, complete_case: bool,
    strict: bool, battle_format: str | None, **settings: Any,
) -> RanksResult:  # fmt: skip
    """Ranks of arena battles, the per-item score options refused."""
    from evalgap.jobs.ranks import ranks_battles

    bootstrap, style = settings.pop("bootstrap"), settings.pop("style")
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
        file_format=battle_format,
        prompt_column=prompt_column,
        style=names(style, "style"),
        **settings,
    )
