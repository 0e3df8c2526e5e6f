"""Which rank can each model claim? Simultaneous rank confidence sets, tiers, top-k sets.

Per task, the K models' scores on their items (binary or graded, NaN where a model has no
score) go to :mod:`evalgap.stats.ranks`: every pair's difference of means is bounded at once
by a studentized max-|t| bootstrap with the stepdown refinement (Mogstad, Romano, Shaikh and
Wilhelm 2024), and a model's rank set runs from one plus the number of models shown better to
K minus the number shown worse. Marginal sets bound one model's pairs only; tiers cut the
ranking where every model above is shown better than every model below. Arena-style battles
go through Bradley-Terry (:mod:`evalgap.stats.bradley_terry`) and the same sets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from evalgap._scores import ScoreSet
from evalgap.errors import InputError, escape, fields
from evalgap.jobs._board import names, per_item_options_given, refuse_gold_clusters
from evalgap.jobs._inputs import _check_columns, _renamed, _stored, _unless_default
from evalgap.jobs._ranks_result import (
    OverTasks,
    OverTasksModel,
    RanksResult,
    one_method,
    rank_frame,
    top_models,
)
from evalgap.jobs.fragility import battle_fragility, rank_fragility
from evalgap.report.sentences import ranking_exclusions
from evalgap.stats import _validate, resample

if TYPE_CHECKING:
    from evalgap._scores import ScoresInput
    from evalgap.engine import BoardSums
    from evalgap.io.battles import BattleTable
    from evalgap.io.options import LoadOptions
    from evalgap.stats.bradley_terry import Battles, BradleyTerryFit, StyleFit
    from evalgap.stats.ranks import RankSets


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
    engine: str = "local",
    scheduler: str | None = None,
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
    engine : {"local", "dask"}
        Where a complete binary board in Parquet shards (``scores`` a folder written by
        ``store_export(..., shard_items=)``) has its sums over items computed: in this
        process, or on a dask.distributed cluster (:func:`ranks_shards`; the rank sets equal
        the single machine's for the same seed). Other sources: ``local``.
    scheduler : str, optional
        The Dask scheduler's address, with ``engine="dask"`` (default
        ``$EVALGAP_SCHEDULER``).

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
    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "ranks")
    _validate.arguments(
        alpha=alpha, n_bootstrap=n_bootstrap, seed=seed, top_k=top_k, method=method,
        bootstrap=bootstrap, ties=ties, models=models, tasks=tasks,
        complete_case=complete_case, strict=strict,
    )  # fmt: skip
    _check_ranks_sources(scores, battles, gold_column, gold, method, bootstrap, columns, options)
    from evalgap.engine.inputs import refuse_off_engine, shards_folder

    folder = shards_folder(scores)
    if folder is not None or engine != "local" or scheduler is not None:
        ignored = per_item_options_given(
            models, None, complete_case, strict, options, columns,
            battles=battles is not None, gold_column=gold_column is not None,
            gold=gold is not None, method=method == "holm",
            bootstrap=bootstrap != "multiplier", ties=ties != "half",
            battle_format=battle_format is not None, style=bool(style),
        )  # fmt: skip
        refuse_off_engine(folder, engine, scheduler, [n for n in ignored if n != "tasks"])
        assert folder is not None  # refused above otherwise
        return ranks_shards(
            folder, engine=engine, scheduler=scheduler, alpha=alpha, n_bootstrap=n_bootstrap,
            seed=seed, top_k=top_k, tasks=tasks, progress=progress,
        )  # fmt: skip
    if battles is not None:
        return _ranks_battles(
            battles, options, columns, models, tasks, complete_case, strict, battle_format,
            alpha=alpha, n_bootstrap=n_bootstrap, seed=seed, top_k=top_k, method=method,
            ties=ties, bootstrap=bootstrap, style=style,
        )  # fmt: skip
    _refuse_battle_options(battle_format, ties, style)
    from evalgap.jobs._resolve import resolve
    from evalgap.jobs.gold import ranks_gold

    board = resolve(
        scores, gold_column=gold_column, gold=gold, models=models, tasks=tasks,
        complete_case=complete_case, strict=strict, options=options, columns=columns,
    )  # fmt: skip
    if board.scale == "gold":
        assert board.gold is not None  # the gold scale carries its labels
        return ranks_gold(
            board.scores, board.gold, gold_notes=board.gold_notes, alpha=alpha,
            n_bootstrap=n_bootstrap, seed=seed, top_k=top_k, strict=strict, progress=progress,
        )  # fmt: skip
    return ranks_scores(
        board.scores, alpha=alpha, n_bootstrap=n_bootstrap, seed=seed, top_k=top_k,
        method=method, bootstrap=bootstrap, progress=progress,
    )  # fmt: skip


def _check_ranks_sources(
    scores: Any, battles: Any, gold_column: str | None, gold: Any, method: str, bootstrap: str,
    columns: dict[str, Any], options: LoadOptions | None,
) -> None:  # fmt: skip
    """Refuse both or neither of ``battles`` and ``scores``, and gold labels beside battles,
    clusters or a rank-set method the gold scale does not use."""
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


def _refuse_battle_options(battle_format: str | None, ties: str, style: object) -> None:
    """The battles' own options, refused beside per-item scores."""
    if battle_format is not None or ties != "half" or style:
        only = (("battle_format", battle_format), ("ties", ties != "half"), ("style", style))
        given = [n for n, v in only if v]
        raise InputError(
            f"{fields(*given)}: for {{battles}} only; drop it with per-item {{scores}}",
            param=given[0],
        )


def _ranks_battles(
    battles: Any, options: LoadOptions | None, columns: dict[str, Any],
    models: Sequence[str] | None, tasks: Sequence[str] | None, complete_case: bool,
    strict: bool, battle_format: str | None, **settings: Any,
) -> RanksResult:  # fmt: skip
    """Ranks of arena battles, the per-item score options refused."""
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


def ranks_scores(
    score_set: ScoreSet,
    *,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
    use_clusters: bool = True,
    method: Literal["auto", "bootstrap", "holm"] = "auto",
    bootstrap: Literal["multiplier", "empirical"] = "multiplier",
    progress: Callable[..., object] | None = None,
    replicates_name: str = "n_bootstrap",
    claims: bool = True,
    over_tasks: bool = True,
) -> RanksResult:
    """Rank sets for every task of an aligned score set (see :func:`evalgap.ranks`);
    ``replicates_name`` is the caller's name of ``n_bootstrap`` (for its errors); ``claims``
    computes the items to flip of the rank claims and ``over_tasks`` the rank sets over
    tasks (the audit, which shows the sets only, leaves both out; the card the first)."""
    from evalgap.stats import ranks as rk

    _validate.probability(alpha, "alpha")
    n_bootstrap = _validate.resamples(n_bootstrap, replicates_name)
    per_task = _PerTask(alpha, top_k)
    notes = per_task.notes
    for t_index, task in enumerate(score_set.tasks):
        if progress is not None:
            progress(t_index, len(score_set.tasks), f"task {task.task}")
        x = task.scores
        counts = (~np.isnan(x)).sum(axis=0)
        scored = counts >= 2
        notes.extend(ranking_exclusions(task.task, list(score_set.models), counts.tolist()))
        models = np.array(score_set.models)[scored]
        if models.size < 2:
            notes.append(f"task {task.task}: fewer than 2 models with scores, no ranks")
            continue
        clusters = task.cluster_codes(use_clusters)
        sets = rk.rank_sets(
            x[:, scored],
            alpha=alpha,
            n_bootstrap=n_bootstrap,
            seed=resample.child_seed(seed, "ranks"),  # the same stream for every task
            clusters=clusters,
            method=method,
            bootstrap=bootstrap,
            top_k=top_k,
            replicates_name=replicates_name,
        )
        per_task.add(task.task, models, sets)
    if not per_task.rows:
        raise InputError("nothing to rank: every task has fewer than 2 models with scores")
    if progress is not None:
        progress(len(score_set.tasks), len(score_set.tasks), "done")
    over = _over_tasks(score_set, alpha, n_bootstrap, seed, notes) if over_tasks else None
    bootstrapped = any("bootstrap" in m for m in per_task.methods.values())
    result = RanksResult(
        **per_task.fields(),
        n_bootstrap=n_bootstrap if bootstrapped else 0,
        notes=(*score_set.report.messages(), *notes),
        alignment=score_set.report,
        over_tasks=over,
    )
    if not claims or bootstrap != "multiplier":
        return result  # the claims are checked by recomputing with the multiplier bootstrap
    found, left_out = rank_fragility(
        result, score_set, seed=seed, n_bootstrap=n_bootstrap, use_clusters=use_clusters
    )
    return dataclasses.replace(result, fragility=found, notes=(*result.notes, *left_out))


@dataclasses.dataclass
class _PerTask:
    """What a ranks job collects task by task from each task's rank sets (its views, method,
    critical value, top models and notes), and the result's fields they make."""

    alpha: float
    top_k: int | None
    rows: list[pd.DataFrame] = dataclasses.field(default_factory=list)
    marginal: list[pd.DataFrame] = dataclasses.field(default_factory=list)
    methods: dict[str, str] = dataclasses.field(default_factory=dict)
    critical: dict[str, float] = dataclasses.field(default_factory=dict)
    better: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    top: dict[str, Any] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)

    def add(self, task: str, models: np.ndarray, sets: RankSets) -> None:
        """Take one task's rank sets of ``models``."""
        self.methods[task], self.critical[task] = sets.method, float(sets.critical_value)
        frame, marginal, self.better[task] = _task_views(task, models, sets, self.alpha)
        self.rows.append(frame)
        self.marginal.append(marginal)
        if self.top_k is not None:
            self.top[task] = top_models(models, sets)
        self.notes.extend(f"task {task}: {n}" for n in sets.notes)

    def fields(self) -> dict[str, Any]:
        """The RanksResult fields of every task taken."""
        return {
            "method": one_method(self.methods),
            "alpha": float(self.alpha),
            "ranks": pd.concat(self.rows, ignore_index=True),
            "marginal": pd.concat(self.marginal, ignore_index=True),
            "methods": self.methods,
            "top_k": {"k": int(self.top_k), "models": self.top} if self.top_k is not None else None,
            "shown_better": self.better,
            "critical_values": self.critical,
        }


def _task_views(
    task: str, models: np.ndarray, sets: RankSets, alpha: float
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """One task's rows best first, in the board's order (stats.board: rank, score, name), its
    rows with the marginal sets, and its shown-better matrix in the same order."""
    order = np.lexsort((models, -np.asarray(sets.score), np.asarray(sets.rank)))
    frame = rank_frame(task, models, sets, order, alpha)
    marginal = frame.assign(
        rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
        rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
    )
    return frame, marginal, np.asarray(sets.shown_better, dtype=bool)[np.ix_(order, order)]


def ranks_shards(
    folder: str | Path,
    *,
    engine: str = "local",
    scheduler: str | None = None,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
    tasks: Sequence[str] | None = None,
    progress: Callable[[int, int, str], object] | None = None,
) -> RanksResult:
    """Rank sets of a complete binary board in Parquet shards, from its sums over items
    computed on ``engine`` (:func:`evalgap.engine.board_sums`): each task's sets as
    :func:`ranks_scores` gives them for the same seed (the multiplier bootstrap;
    :func:`evalgap.stats.ranks.rank_sets_from_sums`). The items to flip of the rank claims
    and the sets over tasks read the items and are left out, said in the notes; a board
    with missing scores is refused (its sets bootstrap each pair on the items both scored).
    ``progress(done, total, phase)`` is called as each block task finishes."""
    from evalgap.engine import board_sums

    _validate.probability(alpha, "alpha")
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    sums = board_sums(
        folder, engine=engine, scheduler=scheduler, tasks=tasks, projection=True, fit=False,
        progress=progress,
    )
    result = ranks_from_sums(sums, alpha=alpha, n_bootstrap=n_bootstrap, seed=seed, top_k=top_k)
    blocks = sum(s.blocks for s in sums)
    note = (
        f"sums from {blocks:,} block products of the shards in {folder} on the {engine} "
        "engine; the items to flip of the rank claims and the rank sets over tasks read the "
        "items and are left out of ranks from shards"
    )
    return dataclasses.replace(result, notes=(*result.notes, note))


def ranks_from_sums(
    sums: Sequence[BoardSums],
    *,
    alpha: float,
    n_bootstrap: int,
    seed: int | None,
    top_k: int | None = None,
    replicates_name: str = "n_bootstrap",
) -> RanksResult:
    """Every task's rank sets from its sums over items (complete binary boards, each with
    its projection), as :func:`ranks_scores` gives them for the same seed."""
    from evalgap.stats import ranks as rk

    per_task = _PerTask(alpha, top_k)
    for s in sums:
        if not s.complete:
            raise InputError(
                "{engine}"
                + escape(
                    f": task {s.task!r} has models without a score on some items, where "
                    "rank sets bootstrap each pair on the items both scored, which sums over "
                    "blocks of items do not give; rank its scores on one machine"
                ),
                param="engine",
            )
        models = np.array(s.models)
        assert s.projection is not None  # asked for
        sets = rk.rank_sets_from_sums(
            s.n_items, np.diag(s.right), s.both_correct, s.projection, alpha=alpha,
            n_bootstrap=n_bootstrap, seed=resample.child_seed(seed, "ranks"), top_k=top_k,
            replicates_name=replicates_name,
        )  # fmt: skip
        per_task.add(s.task, models, sets)
    return RanksResult(**per_task.fields(), n_bootstrap=n_bootstrap, notes=tuple(per_task.notes))


def ranks_battles(
    battles: pd.DataFrame | str | Path,
    *,
    alpha: float = 0.05,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    top_k: int | None = None,
    method: Literal["auto", "bootstrap", "holm"] = "auto",
    ties: Literal["half", "davidson"] = "half",
    file_format: str | None = None,
    prompt_column: str = "question_id",
    style: Sequence[str] = (),
) -> RanksResult:
    """Rank sets from arena battles by their Bradley-Terry scores (see :func:`evalgap.ranks`).

    Battles sharing a prompt (``prompt_column``, by default ``question_id`` when the table
    has it; ``"none"``: battle by battle) are resampled, and their sandwich summed, a prompt
    at a time; a battle without a prompt id is a prompt of its own.

    ``style`` names covariates (see :func:`evalgap.io.battles.read_battles`): the scores are
    then style-controlled (:func:`evalgap.stats.bradley_terry.fit_style`), the rank sets
    drawn from the normal law of their sandwich covariance, and the coefficients reported.

    The scores' bootstrap resamples battles (multinomial weights on the distinct pair and
    outcome cells, every replicate fitted at once); the max-t statistic is studentized by
    the sandwich standard errors. With Davidson's tie model the replicates are drawn from
    the normal law of the fitted scores (a parametric bootstrap).
    """
    from evalgap.io.battles import read_battles
    from evalgap.stats import bradley_terry as bt
    from evalgap.stats import ranks as rk

    _validate.probability(alpha, "alpha")
    style = _checked_battle_options(method, ties, style)
    table = read_battles(battles, fmt=file_format, prompt_column=prompt_column, style=style)
    prompts = _prompt_codes(table.question)
    data = bt.battles(
        table.model_a, table.model_b, table.outcome, len(table.models), cluster=prompts
    )
    model = bt.fit(data, ties=ties, names=table.models)
    notes = list(table.notes)
    widening = None
    if prompts is not None:
        widening = _prompt_widening(data, model, ties, prompt_column, notes)
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    rk.check_replicates(n_bootstrap, alpha)
    degenerate = ties == "half" and _sandwich_is_degenerate(data, model, notes)
    styled = _style_fit(table, prompts, style, notes) if style else None
    model, covariance, draws = _score_draws(
        data, model, styled, parametric=degenerate or ties != "half", n_bootstrap=n_bootstrap,
        stream=resample.child_seed(seed, "ranks"), alpha=alpha, notes=notes,
    )  # fmt: skip
    sets = rk.rank_sets_from_draws(
        model.scores, covariance, draws, alpha=alpha, top_k=top_k, n=data.per_model()
    )
    table_of_style = None if styled is None else _style_table(style, styled, alpha)
    bradley_terry = {"ties": ties, "prompt_widening": widening, "style": table_of_style}
    return _battles_result(
        np.array(table.models), data, model, sets, alpha=alpha, n_bootstrap=n_bootstrap,
        top_k=top_k, claims=ties == "half" and styled is None, bradley_terry=bradley_terry,
        notes=notes,
    )  # fmt: skip


def _battles_result(
    models: np.ndarray, data: Battles, model: BradleyTerryFit, sets: RankSets, *, alpha: float,
    n_bootstrap: int, top_k: int | None, claims: bool, bradley_terry: dict[str, Any],
    notes: list[str],
) -> RanksResult:  # fmt: skip
    """The battles' RanksResult, rows best first; ``claims``: with the items (battles) to
    flip of the rank claims; ``bradley_terry`` has the fit's ties, prompt widening and
    style table."""
    order = np.lexsort((models, np.asarray(sets.rank)))
    frame = rank_frame("battles", models, sets, order, alpha)
    fragility = None
    if claims and len(models) >= 2:
        by_score = np.argsort(-np.asarray(model.scores), kind="stable")
        fragility = battle_fragility(data, model, list(models), by_score)
    return RanksResult(
        method=f"{sets.method} (Bradley-Terry)",
        alpha=float(alpha),
        n_bootstrap=int(n_bootstrap),
        ranks=frame,
        marginal=frame.assign(
            rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
            rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
        ),
        methods={"battles": sets.method},
        top_k={"k": int(top_k), "models": {"battles": top_models(models, sets)}}
        if top_k is not None
        else None,
        shown_better={"battles": np.asarray(sets.shown_better)[np.ix_(order, order)]},
        notes=tuple(notes),
        bradley_terry={
            "ties": bradley_terry["ties"],
            "tie_parameter": model.tie_parameter,
            "n_battles": data.n_battles,
            "n_prompts": data.n_clusters or None,
            "prompt_widening": bradley_terry["prompt_widening"],
            "style": bradley_terry["style"],
            "models": models[order].tolist(),
            "win_probability": model.win_probability()[np.ix_(order, order)].tolist(),
        },
        critical_values={"battles": float(sets.critical_value)},
        fragility=fragility,
    )


def _checked_battle_options(method: str, ties: str, style: Sequence[str]) -> tuple[str, ...]:
    """The style covariates as a tuple, once ``method`` is one battles take and the style
    goes with ties as half wins."""
    if method == "holm":
        raise InputError(
            "{method=holm} needs per-item scores; battles use the bootstrap", param="method"
        )
    if method not in ("auto", "bootstrap"):
        raise InputError(
            "{method!b}" + escape(f" must be one of auto, bootstrap, holm; got {method!r}"),
            param="method",
        )
    style = tuple(style)
    if style and ties != "half":
        raise InputError(
            "{style} takes ties as half wins; drop {ties=davidson} or the style", param="style"
        )
    return style


def _prompt_codes(question: np.ndarray | None) -> np.ndarray | None:
    """Each battle's prompt as a code (None without prompt ids): battles on one prompt share
    its quirks, so they are resampled, and the sandwich summed, a prompt at a time. A battle
    without a prompt id is a prompt of its own."""
    if question is None:
        return None
    ids = pd.Series(question, dtype=object)
    known = ids.notna().to_numpy()
    prompts = np.empty(ids.size, dtype=np.int64)
    labels, prompts[known] = np.unique(ids[known].astype(str), return_inverse=True)
    prompts[~known] = labels.size + np.arange((~known).sum())
    return prompts


def _prompt_widening(
    data: Battles,
    model: BradleyTerryFit,
    ties: Literal["half", "davidson"],
    prompt_column: str,
    notes: list[str],
) -> float | None:
    """How much wider the standard errors are with battles resampled by prompt than one by
    one (median over models; None under Davidson's ties, which leave the prompts out), said
    in ``notes``."""
    from evalgap.stats import bradley_terry as bt

    if ties != "half":
        notes.append(
            f"with Davidson's tie model the prompts ({prompt_column}) are not used: its intervals "
            "come from the model covariance, as if battles were independent"
        )
        return None
    plain = bt.fit(dataclasses.replace(data, clusters=None), ties=ties)
    widening = float(
        np.median(
            np.sqrt(np.diag(model.robust_covariance)) / np.sqrt(np.diag(plain.robust_covariance))
        )
    )
    notes.append(
        f"battles resampled by prompt ({prompt_column}: {data.n_clusters:,} prompts for "
        f"{data.n_battles:,} battles): the standard errors are {widening:.2f}x those of "
        "battles resampled one by one (median over models)"
    )
    return widening


def _sandwich_is_degenerate(data: Battles, model: BradleyTerryFit, notes: list[str]) -> bool:
    """Whether the battles leave the sandwich standard errors at 0 in some direction (then
    said in ``notes``)."""
    from evalgap.stats import bradley_terry as bt

    if not bt.sandwich_is_degenerate(data, model):
        return False
    notes.append(
        "the battles leave the sandwich standard errors at 0 in some direction (every "
        "battle there has the outcome the model expects, e.g. all ties), which no finite "
        "number of battles supports: the model-based standard errors and a parametric "
        "bootstrap are used instead"
    )
    return True


def _style_fit(
    table: BattleTable, prompts: np.ndarray | None, style: Sequence[str], notes: list[str]
) -> StyleFit:
    """The style-controlled Bradley-Terry fit of the battles' ``style`` covariates."""
    from evalgap.stats import bradley_terry as bt

    assert table.style is not None  # read_battles gives the covariates it was asked for
    styled = bt.fit_style(
        table.model_a, table.model_b, table.outcome, table.style, len(table.models),
        cluster=prompts,
    )  # fmt: skip
    notes.append(
        f"style-controlled ({', '.join(style)}): the scores hold the answers' style equal; "
        "the rank sets come from the normal law of their sandwich covariance (a parametric "
        "bootstrap)"
    )
    return styled


def _score_draws(
    data: Battles, model: BradleyTerryFit, styled: StyleFit | None, *, parametric: bool,
    n_bootstrap: int, stream: Any, alpha: float, notes: list[str],
) -> tuple[BradleyTerryFit, np.ndarray, np.ndarray]:  # fmt: skip
    """The fit the rank sets use (its scores style-controlled under ``styled``), the scores'
    covariance, and their replicates: from the normal law of the style fit's sandwich
    covariance; else from the battles' bootstrap; else (``parametric``: Davidson's ties or a
    degenerate sandwich) from the normal law of the model covariance."""
    from evalgap.stats import bradley_terry as bt

    if styled is not None:
        k = len(model.scores)
        covariance = styled.robust_covariance[:k, :k]
        draws = _normal_draws(styled.scores, covariance, n_bootstrap, stream)
        return dataclasses.replace(model, scores=styled.scores), covariance, draws
    if parametric:
        draws = _normal_draws(model.scores, model.covariance, n_bootstrap, stream)
        return model, model.covariance, draws
    draws = bt.bootstrap(data, n_bootstrap, stream, start=model.scores)
    draws = _fitted_replicates(draws, data, n_bootstrap, alpha, notes)
    return model, model.robust_covariance, draws


def _normal_draws(mean: Any, covariance: Any, n: int, stream: Any) -> np.ndarray:
    """``n`` draws from the normal law (a parametric bootstrap) on the ranks' stream."""
    rng = np.random.Generator(np.random.PCG64(stream))
    return rng.multivariate_normal(mean, covariance, n)


def _fitted_replicates(
    draws: np.ndarray, data: Battles, n_bootstrap: int, alpha: float, notes: list[str]
) -> np.ndarray:
    """The bootstrap replicates that have Bradley-Terry scores (a replicate that leaves a
    model without a win or a loss has none), refused when too few are left for the critical
    value."""
    from evalgap.stats import ranks as rk

    failed = np.isnan(draws).any(axis=1)
    if not failed.any():
        return draws
    notes.append(
        f"{int(failed.sum()):,} of {n_bootstrap:,} bootstrap replicates left a model "
        "without a win or a loss (no Bradley-Terry scores) and were left out"
    )
    draws = draws[~failed]
    need = rk.minimum_replicates(alpha)
    if draws.shape[0] >= need:
        return draws
    clustered = data.clusters is not None
    raise InputError(
        "{n_bootstrap}"
        + escape(
            f": {int(failed.sum()):,} of {n_bootstrap:,} bootstrap replicates left "
            f"a model without a win or a loss, and the {draws.shape[0]:,} left "
            f"cannot determine the critical value (at least {need:,} are needed); "
            "add battles for the models with few of them"
            + (
                f" (or prompts: {data.n_clusters:,} are resampled; or resample "
                "battle by battle with "
                if clustered
                else ", or raise "
            )
        )
        + ("{cluster_column=none}), or raise " if clustered else "")
        + "{n_bootstrap!n}",
        param="n_bootstrap",
        n_bootstrap=n_bootstrap,
    )


def _style_table(names: Sequence[str], styled: StyleFit, alpha: float) -> list[dict[str, object]]:
    """Each style covariate's coefficient with its sandwich SE and (1 - alpha) interval."""
    from evalgap.stats.intervals import wald_interval

    k = len(styled.scores)  # the models' scores come first, then the coefficients
    se = np.sqrt(np.diag(styled.robust_covariance))[k:]
    bounds = wald_interval(styled.coefficients, se, alpha)
    return [
        {"covariate": name, "coefficient": float(c), "se": float(s), "low": float(lo),
         "high": float(hi)}
        for name, c, s, lo, hi in zip(
            names, styled.coefficients, se, np.atleast_1d(bounds.low), np.atleast_1d(bounds.high),
            strict=True,
        )
    ]  # fmt: skip


# Rank sets over tasks draw B x K x K numbers per task: boards up to this many models.
MAX_OVER_TASKS_MODELS = 200


def _over_tasks(
    score_set: ScoreSet, alpha: float, n_bootstrap: int, seed: int | None, notes: list[str]
) -> OverTasks | None:
    """The aggregate over tasks, when there are several and every model scored each."""
    from evalgap.stats import resample
    from evalgap.stats.ranks import minimum_replicates
    from evalgap.stats.task_ranks import task_rank_sets

    if len(score_set.tasks) < 2:
        return None
    if n_bootstrap < minimum_replicates(alpha):
        notes.append(
            f"no rank sets over tasks: {n_bootstrap:,} bootstrap replicates cannot determine "
            f"their critical value (at least {minimum_replicates(alpha):,})"
        )
        return None
    if len(score_set.models) > MAX_OVER_TASKS_MODELS:
        notes.append(
            f"no rank sets over tasks for more than {MAX_OVER_TASKS_MODELS} models "
            f"({len(score_set.models):,} here)"
        )
        return None
    missing = [t.task for t in score_set.tasks if np.isnan(t.scores).all(axis=0).any()]
    if missing:
        notes.append(
            f"no aggregate over tasks: some model has no score on {len(missing)} task(s) "
            f"(first: {missing[0]})"
        )
        return None
    found = task_rank_sets(
        [t.scores for t in score_set.tasks],
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=resample.child_seed(seed, "ranks"),
    )
    order = np.lexsort((np.array(score_set.models), -found.score))
    models = tuple(
        OverTasksModel(
            model=str(score_set.models[k]),
            score=float(found.score[k]),
            rank_low_items=int(found.items_only.rank_low[k]),
            rank_high_items=int(found.items_only.rank_high[k]),
            rank_low=int(found.two_way.rank_low[k]),
            rank_high=int(found.two_way.rank_high[k]),
            se_items=float(found.se_items_only[k]),
            se=float(found.se_two_way[k]),
        )
        for k in order
    )
    return OverTasks(len(score_set.tasks), models, found.widening())
