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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import pandas as pd

from evalgap._results import Result, RowResult, TableResult
from evalgap._scores import AlignmentReport, ScoreSet
from evalgap.errors import InputError, escape
from evalgap.jobs._pages import HtmlPage, MarkdownPage
from evalgap.jobs.fragility import RankClaimFragility, battle_fragility, rank_fragility
from evalgap.stats import _validate, resample

if TYPE_CHECKING:
    from evalgap.stats.bradley_terry import StyleFit
    from evalgap.stats.ranks import RankSets

RANK_COLUMNS = (
    "task",
    "model",
    "score",
    "se",
    "score_low",
    "score_high",
    "own_items_mean",
    "n_items",
    "rank",
    "rank_low",
    "rank_high",
    "tier",
)


@dataclass(frozen=True, repr=False)
class OverTasksModel(RowResult):
    """One model's aggregate over tasks (``RanksResult.over_tasks``).

    Attributes
    ----------
    model : str
        The model.
    score : float
        The mean of its task scores.
    rank_low_items, rank_high_items : int
        Its simultaneous rank set with the tasks fixed (their items resampled).
    rank_low, rank_high : int
        Its simultaneous rank set with the tasks drawn from a population (tasks and items
        resampled: the claim about the benchmark's kind of task).
    se_items, se : float
        The aggregate's standard error under each.
    """

    model: str
    score: float
    rank_low_items: int
    rank_high_items: int
    rank_low: int
    rank_high: int
    se_items: float
    se: float
    _headline = ("model", "score")


@dataclass(frozen=True, repr=False)
class OverTasks(TableResult):
    """The aggregate over tasks (mean of task scores) with both kinds of rank sets.

    Attributes
    ----------
    n_tasks : int
        Tasks averaged.
    models : tuple of OverTasksModel
        Best first.
    widening : float
        The mean size of the two-way sets over that of the items-only sets.
    """

    n_tasks: int
    models: tuple[OverTasksModel, ...]
    widening: float
    _rows = "models"  # to_frame(): the models, one row each


@dataclass(frozen=True, repr=False)
class RanksResult(HtmlPage, MarkdownPage, Result):
    """Everything ``evalgap ranks`` reports (the documented ``--json`` contract).

    Attributes
    ----------
    method : str
        How the sets were made: ``"max-t stepdown bootstrap"`` or, where the ratio of
        models to items is too large for the bootstrap's coverage, ``"Holm pairwise"``
        (per task in ``methods`` when tasks differ).
    alpha : float
        One minus the simultaneous confidence level.
    n_bootstrap : int
        Bootstrap replicates (0 when no task used the bootstrap).
    ranks : pandas.DataFrame
        One row per task and model, best first: ``task, model, score, se, score_low,
        score_high, own_items_mean, n_items, rank, rank_low, rank_high, tier``. ``score``
        is the board score (:func:`evalgap.stats.board.board_scores`: the mean on complete
        data, the additive fit model + item when items are missing; Bradley-Terry: the
        log-strength), ``se`` its standard error, ``score_low``-``score_high`` its
        (1 - alpha) interval (that model alone; Wilson's for binary scores),
        ``own_items_mean`` the mean over the model's own items, ``rank`` one plus the models
        with a higher score (ties share the best rank), ``rank_low``-``rank_high`` the
        simultaneous set. ``audit`` and ``card`` list the models in this order.
    marginal : pandas.DataFrame
        The same keys, with each model's marginal set (valid for that model alone).
    methods : dict
        Per task: the method used.
    top_k : dict or None
        ``{"k": k, "models": {task: [models that could be among the best k]}}``.
    shown_better : dict
        Per task: a (K, K) boolean array, ``[i, j]`` true when model i is shown better than
        model j (models in ``models_of(task)`` order). Not in the JSON.
    notes : tuple of str
        What the result needs said beside the numbers (fallbacks, items left out).
    alignment : AlignmentReport or None
        What the alignment kept and left out.
    bradley_terry : dict or None
        Battles only: ``ties``, ``tie_parameter`` (Davidson's nu), ``n_battles``,
        ``models`` and ``win_probability`` (``[i][j]``: model i beats model j).
    critical_values : dict
        Per task: the final stepdown critical value of the studentized gaps (NaN for Holm).
    over_tasks : OverTasks or None
        With several tasks that every model scored: the mean of the task scores and its
        simultaneous rank sets with the tasks fixed and with the tasks drawn from a
        population (see :mod:`evalgap.stats.task_ranks`), and how much the second widen.
    fragility : tuple of RankClaimFragility or None
        Items (battles) to flip of the rank claims: each task's top claim (a single rank 1)
        and each rank-adjacent pair's, with the critical value held fixed (see
        :func:`evalgap.jobs.fragility.rank_fragility`); arenas: the top score and adjacent
        scores, by influence and refits.
    gold : pandas.DataFrame or None
        With gold labels (``gold_column=`` or ``gold=``): the scores are on the gold scale
        (PPI++) and this table gives, per task and model, the judge against the gold:
        ``score`` (PPI++) with its t interval ``ci_low``-``ci_high``, ``judge_score``,
        ``n_gold``, ``lam``, ``effective_n``, ``bias`` (the judge's mean minus the gold's
        on the labelled items) with its t interval
        ``bias_low``-``bias_high``, ``agreement`` (binary scores: the share of labelled
        items where judge and gold agree) and ``correlation``.
    """

    method: str
    alpha: float
    n_bootstrap: int
    ranks: pd.DataFrame
    marginal: pd.DataFrame
    methods: dict[str, str]
    top_k: dict[str, Any] | None = None
    shown_better: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    alignment: AlignmentReport | None = None
    bradley_terry: dict[str, Any] | None = None
    critical_values: dict[str, float] = field(default_factory=dict)
    fragility: tuple[RankClaimFragility, ...] | None = None
    over_tasks: OverTasks | None = None
    gold: pd.DataFrame | None = None
    _omit: ClassVar[tuple[str, ...]] = ("shown_better",)
    _derived: ClassVar[tuple[str, ...]] = ("separated", "verdict")
    _headline: ClassVar[tuple[str, ...]] = ("method",)

    @property
    def verdict(self) -> str:
        """One plain sentence: tiers, models with a rank of their own, the method."""
        from evalgap.report.sentences import ranks_verdict

        return ranks_verdict(self)

    @property
    def separated(self) -> dict[str, int]:
        """Per task: the adjacent rows of the rank table (each model and the next) whose
        upper model the simultaneous sets show better than the lower (the card's and the
        pages' count of separated pairs)."""
        return {
            task: int(np.diagonal(np.asarray(better, dtype=bool), offset=1).sum())
            for task, better in self.shown_better.items()
        }

    def to_frame(self) -> pd.DataFrame:
        """Return ``ranks`` with the marginal sets as ``marginal_low``/``marginal_high``."""
        out = self.ranks.copy()
        if len(self.marginal):
            m = self.marginal.set_index(["task", "model"])
            keys = pd.MultiIndex.from_frame(out[["task", "model"]])
            out["marginal_low"] = m["rank_low"].reindex(keys).to_numpy()
            out["marginal_high"] = m["rank_high"].reindex(keys).to_numpy()
        return out

    def models_of(self, task: str) -> list[str]:
        """The models of ``task`` in the order of ``shown_better``'s rows."""
        return self.ranks.loc[self.ranks["task"] == task, "model"].tolist()

    def tiers(self) -> dict:
        """Per task: the models of each tier, best tier first (the audit's ``tiers`` layout)."""
        out = {}
        for task, sub in self.ranks.groupby("task", sort=False):
            sub = sub.sort_values("rank", kind="stable")  # rows are in board order
            out[task] = [g["model"].tolist() for _, g in sub.groupby("tier", sort=True)]
        return out


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
    rows, marginal_rows, methods, better, top, notes = [], [], {}, {}, {}, []
    critical: dict[str, float] = {}
    for t_index, task in enumerate(score_set.tasks):
        if progress is not None:
            progress(t_index, len(score_set.tasks), f"task {task.task}")
        x = task.scores
        counts = (~np.isnan(x)).sum(axis=0)
        scored = counts >= 2
        for name in np.array(score_set.models)[counts == 1]:
            notes.append(
                f"task {task.task}: {name} has a score on 1 item only (a mean needs 2 to have a "
                "standard error) and is left out of the ranks"
            )
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
        methods[task.task] = sets.method
        critical[task.task] = float(sets.critical_value)
        # rows best first, the board's order (stats.board: rank, score, name); shown_better
        # follows the same order
        order = np.lexsort((models, -np.asarray(sets.score), np.asarray(sets.rank)))
        better[task.task] = np.asarray(sets.shown_better, dtype=bool)[np.ix_(order, order)]
        frame = _rank_frame(task.task, models, sets, order, alpha)
        rows.append(frame)
        marginal_rows.append(
            frame.assign(
                rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
                rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
            )
        )
        if top_k is not None:
            top[task.task] = _top_models(models, sets)
        notes.extend(f"task {task.task}: {n}" for n in sets.notes)
    if not rows:
        raise InputError("nothing to rank: every task has fewer than 2 models with scores")
    if progress is not None:
        progress(len(score_set.tasks), len(score_set.tasks), "done")
    over = _over_tasks(score_set, alpha, n_bootstrap, seed, notes) if over_tasks else None
    result = RanksResult(
        method=_one_method(methods),
        alpha=float(alpha),
        n_bootstrap=n_bootstrap if any("bootstrap" in m for m in methods.values()) else 0,
        ranks=pd.concat(rows, ignore_index=True),
        marginal=pd.concat(marginal_rows, ignore_index=True),
        methods=methods,
        top_k={"k": int(top_k), "models": top} if top_k is not None else None,
        shown_better=better,
        notes=(*score_set.report.messages(), *notes),
        alignment=score_set.report,
        critical_values=critical,
        over_tasks=over,
    )
    if not claims or bootstrap != "multiplier":
        return result  # the claims are checked by recomputing with the multiplier bootstrap
    found, left_out = rank_fragility(
        result, score_set, seed=seed, n_bootstrap=n_bootstrap, use_clusters=use_clusters
    )
    return dataclasses.replace(result, fragility=found, notes=(*result.notes, *left_out))


def _rank_frame(
    task: str, models: np.ndarray, sets: RankSets, order: np.ndarray, alpha: float
) -> pd.DataFrame:
    from evalgap.stats.ranks import score_interval

    if sets.score_low is not None and sets.score_high is not None:
        low, high = sets.score_low, sets.score_high
    else:  # battles: a strength's normal interval
        low, high = score_interval(sets.score, sets.se, alpha)
    own = sets.own_items_mean if sets.own_items_mean is not None else sets.score
    return pd.DataFrame(
        {
            "task": task,
            "model": models[order],
            "score": np.asarray(sets.score, dtype=float)[order],
            "se": np.asarray(sets.se, dtype=float)[order],
            "score_low": np.asarray(low, dtype=float)[order],
            "score_high": np.asarray(high, dtype=float)[order],
            "own_items_mean": np.asarray(own, dtype=float)[order],
            "n_items": np.asarray(sets.n, dtype=np.int64)[order],
            "rank": np.asarray(sets.rank, dtype=np.int64)[order],
            "rank_low": np.asarray(sets.rank_low, dtype=np.int64)[order],
            "rank_high": np.asarray(sets.rank_high, dtype=np.int64)[order],
            "tier": np.asarray(sets.tier, dtype=np.int64)[order],
        }
    )


def _top_models(models: np.ndarray, sets: RankSets) -> list[str]:
    """The models of the top-k set, best first."""
    inside = np.flatnonzero(np.asarray(sets.top_k, dtype=bool))
    order = np.lexsort((models[inside], np.asarray(sets.rank)[inside]))
    return models[inside][order].tolist()


def _one_method(methods: dict) -> str:
    distinct = list(dict.fromkeys(methods.values()))
    return distinct[0] if len(distinct) == 1 else " / ".join(distinct) + " (per task)"


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
    table = read_battles(battles, fmt=file_format, prompt_column=prompt_column, style=style)
    # battles on one prompt share its quirks: with prompt ids they are resampled, and the
    # sandwich summed, a prompt at a time
    prompts = None
    if table.question is not None:
        ids = pd.Series(table.question, dtype=object)
        known = ids.notna().to_numpy()
        prompts = np.empty(ids.size, dtype=np.int64)
        labels, prompts[known] = np.unique(ids[known].astype(str), return_inverse=True)
        prompts[~known] = labels.size + np.arange((~known).sum())  # each its own prompt
    data = bt.battles(
        table.model_a, table.model_b, table.outcome, len(table.models), cluster=prompts
    )
    model = bt.fit(data, ties=ties, names=table.models)
    stream = resample.child_seed(seed, "ranks")
    notes = list(table.notes)
    widening = None
    if prompts is not None and ties == "half":
        plain = bt.fit(dataclasses.replace(data, clusters=None), ties=ties)
        widening = float(
            np.median(
                np.sqrt(np.diag(model.robust_covariance))
                / np.sqrt(np.diag(plain.robust_covariance))
            )
        )
        notes.append(
            f"battles resampled by prompt ({prompt_column}: {data.n_clusters:,} prompts for "
            f"{data.n_battles:,} battles): the standard errors are {widening:.2f}x those of "
            "battles resampled one by one (median over models)"
        )
    elif prompts is not None:
        notes.append(
            f"with Davidson's tie model the prompts ({prompt_column}) are not used: its intervals "
            "come from the model covariance, as if battles were independent"
        )
    n_bootstrap = _validate.resamples(n_bootstrap, "n_bootstrap")
    need = rk.minimum_replicates(alpha)
    rk.check_replicates(n_bootstrap, alpha)
    degenerate = ties == "half" and bt.sandwich_is_degenerate(data, model)
    if degenerate:
        notes.append(
            "the battles leave the sandwich standard errors at 0 in some direction (every "
            "battle there has the outcome the model expects, e.g. all ties), which no finite "
            "number of battles supports: the model-based standard errors and a parametric "
            "bootstrap are used instead"
        )
    styled = None
    if style:
        assert table.style is not None  # read_battles gives the covariates it was asked for
        styled = bt.fit_style(
            table.model_a, table.model_b, table.outcome, table.style, len(table.models),
            cluster=prompts,
        )  # fmt: skip
        k = len(table.models)
        rng = np.random.Generator(np.random.PCG64(stream))
        covariance = styled.robust_covariance[:k, :k]
        draws = rng.multivariate_normal(styled.scores, covariance, n_bootstrap)
        notes.append(
            f"style-controlled ({', '.join(style)}): the scores hold the answers' style equal; "
            "the rank sets come from the normal law of their sandwich covariance (a parametric "
            "bootstrap)"
        )
        model = dataclasses.replace(model, scores=styled.scores)
    elif ties == "half" and not degenerate:
        draws = bt.bootstrap(data, n_bootstrap, stream, start=model.scores)
        failed = np.isnan(draws).any(axis=1)
        if failed.any():
            notes.append(
                f"{int(failed.sum()):,} of {n_bootstrap:,} bootstrap replicates left a model "
                "without a win or a loss (no Bradley-Terry scores) and were left out"
            )
            draws = draws[~failed]
            if draws.shape[0] < need:
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
                            if data.clusters is not None
                            else ", or raise "
                        )
                    )
                    + ("{cluster_column=none}), or raise " if data.clusters is not None else "")
                    + "{n_bootstrap!n}",
                    param="n_bootstrap",
                    n_bootstrap=n_bootstrap,
                )
        covariance = model.robust_covariance
    else:
        rng = np.random.Generator(np.random.PCG64(stream))
        draws = rng.multivariate_normal(model.scores, model.covariance, n_bootstrap)
        covariance = model.covariance
    sets = rk.rank_sets_from_draws(
        model.scores, covariance, draws, alpha=alpha, top_k=top_k, n=data.per_model()
    )
    models = np.array(table.models)
    order = np.lexsort((models, np.asarray(sets.rank)))
    frame = _rank_frame("battles", models, sets, order, alpha)
    marginal = frame.assign(
        rank_low=np.asarray(sets.marginal_low, dtype=np.int64)[order],
        rank_high=np.asarray(sets.marginal_high, dtype=np.int64)[order],
    )
    win = model.win_probability()[np.ix_(order, order)]
    claims = None
    if ties == "half" and len(models) >= 2 and styled is None:
        by_score = np.argsort(-np.asarray(model.scores), kind="stable")
        claims = battle_fragility(data, model, list(models), by_score)
    return RanksResult(
        method=f"{sets.method} (Bradley-Terry)",
        alpha=float(alpha),
        n_bootstrap=int(n_bootstrap),
        ranks=frame,
        marginal=marginal,
        methods={"battles": sets.method},
        top_k={"k": int(top_k), "models": {"battles": _top_models(models, sets)}}
        if top_k is not None
        else None,
        shown_better={"battles": np.asarray(sets.shown_better)[np.ix_(order, order)]},
        notes=tuple(notes),
        bradley_terry={
            "ties": ties,
            "tie_parameter": model.tie_parameter,
            "n_battles": data.n_battles,
            "n_prompts": data.n_clusters or None,
            "prompt_widening": widening,
            "style": None if styled is None else _style_table(style, styled, len(models), alpha),
            "models": models[order].tolist(),
            "win_probability": win.tolist(),
        },
        critical_values={"battles": float(sets.critical_value)},
        fragility=claims,
    )


def _style_table(
    names: Sequence[str], styled: StyleFit, k: int, alpha: float
) -> list[dict[str, object]]:
    """Each style covariate's coefficient with its sandwich SE and (1 - alpha) interval."""
    from evalgap.stats.intervals import wald_interval

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
