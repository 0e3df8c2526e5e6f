"""The ``card`` job: one page per leaderboard with what each model and each adjacent pair can
claim, in the form a maintainer publishes (Markdown for GitHub, HTML, JSON).

Per task: each model's score and interval, its simultaneous and marginal rank sets and tier
(:mod:`evalgap.jobs.ranks`), and the items it lacks; each rank-adjacent pair's gap, interval,
p-value, q and items to flip (:mod:`evalgap.jobs.audit`, :mod:`evalgap.jobs.fragility`); and
board figures: adjacent pairs separated, models with a single rank, the benchmark's
signal-to-noise ratio. The card computes nothing of its own: every number is one those jobs
give, so the card, ``ranks``, ``audit`` and ``fragility`` agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result, RowResult, TableResult
from evalgap._scores import ScoreSet
from evalgap.errors import InputError, escape
from evalgap.jobs._pages import HtmlPage
from evalgap.jobs.ranks import OverTasks
from evalgap.stats import _validate

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

# The test whose p-value and items to flip the card shows per pair, by kind of scores.
PAIR_TEST = {True: "exact", False: "paired_t"}


@dataclass(frozen=True, repr=False)
class ModelCard(RowResult):
    """One model of a task on the card.

    Attributes
    ----------
    model : str
        The model.
    rank : int
        One plus the models ahead of it.
    score, score_low, score_high : float
        Its board score and (1 - alpha) interval, that model alone (as ``evalgap ranks``:
        the mean, or with items missing the additive fit model + item).
    own_items_mean : float
        Its mean over the items it was scored on.
    rank_low, rank_high : int
        Its simultaneous rank set (all models at once, level 1 - alpha).
    marginal_low, marginal_high : int
        Its marginal rank set (valid for that model alone).
    tier : int
        Its rank-set tier.
    n_items : int
        Items it was scored on.
    items_missing : int
        Items of the task it has no score for.
    """

    model: str
    rank: int
    score: float
    score_low: float
    score_high: float
    own_items_mean: float
    rank_low: int
    rank_high: int
    marginal_low: int
    marginal_high: int
    tier: int
    n_items: int
    items_missing: int
    _headline = ("model", "rank")


@dataclass(frozen=True, repr=False)
class PairCard(RowResult):
    """One rank-adjacent pair of a task on the card (A ranked above B).

    Attributes
    ----------
    model_a, model_b : str
        The pair.
    n_items : int
        Items both scored.
    delta, delta_low, delta_high : float
        A's mean minus B's on the items both scored, and its (1 - alpha) paired interval.
    test : str
        The test shown: ``exact`` (binary) or ``paired_t`` (graded).
    p_value : float
        Its p-value.
    resolution_ratio : float or None
        q = N / N*.
    separated : bool
        Whether the rank sets show A better than B (simultaneously over all pairs).
    items_to_flip : int or None
        The fewest items whose removal reverses the test's verdict (an upper bound for
        graded pairs where ``items_to_flip_exact`` is false).
    items_to_flip_exact : bool
        Whether that count is exact.
    items_to_flip_resolution : int or None
        The same for resolution (q >= 1) at alpha.
    """

    model_a: str
    model_b: str
    n_items: int
    delta: float
    delta_low: float
    delta_high: float
    test: str
    p_value: float
    resolution_ratio: float | None
    separated: bool
    items_to_flip: int | None
    items_to_flip_exact: bool
    items_to_flip_resolution: int | None
    _headline = ("model_a", "model_b")


@dataclass(frozen=True, repr=False)
class TaskCard(TableResult):
    """One task of the card.

    Attributes
    ----------
    task : str
        The task.
    n_items : int
        Its items (any model scored).
    models : tuple of ModelCard
        Best first.
    pairs : tuple of PairCard
        The rank-adjacent pairs, best first.
    separated : int
        Adjacent pairs the rank sets order.
    resolved : int
        Adjacent pairs resolved at alpha (q >= 1).
    single_rank : int
        Models whose simultaneous rank set is one rank.
    signal_to_noise : float
        The spread of the models' scores (their SD) over the median standard error of one
        score: how many standard errors apart a typical pair of models is.
    """

    task: str
    n_items: int
    models: tuple[ModelCard, ...]
    pairs: tuple[PairCard, ...]
    separated: int
    resolved: int
    single_rank: int
    signal_to_noise: float
    _headline = ("task", "n_items")
    _rows = "models"  # to_frame(): the models, one row each (pairs: records_frame(pairs))


@dataclass(frozen=True, repr=False)
class CardResult(HtmlPage, Result):
    """A leaderboard card (``evalgap card``): per task, models and adjacent pairs.

    Attributes
    ----------
    tasks : tuple of TaskCard
        One per task.
    settings : dict
        ``alpha``, ``power``, ``n_bootstrap``, ``seed``, the rank-set ``method`` and the
        evalgap version: everything needed to reproduce the card.
    over_tasks : OverTasks or None
        With several tasks that every model scored: the aggregate over tasks and its rank
        sets with the tasks fixed and with the tasks sampled (as ``evalgap ranks`` gives).
    notes : tuple of str
        What the numbers need said beside them (items left out, fallbacks).
    verdict : str
        One sentence (a property).
    """

    tasks: tuple[TaskCard, ...]
    settings: dict[str, Any]
    over_tasks: OverTasks | None = None
    notes: tuple[str, ...] = field(default=())
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)
    _headline: ClassVar[tuple[str, ...]] = ()

    @property
    def verdict(self) -> str:
        """One sentence: how much of the ranking the benchmark can claim."""
        from evalgap.report.sentences import card_verdict

        return card_verdict(self)

    _heading: ClassVar[str] = "evalgap card"

    def _markdown(self) -> str:
        """The card as GitHub-flavoured Markdown (a README section or a PR comment)."""
        from evalgap.report.markdown import card_markdown

        return str(card_markdown(self))

    def _render(self, console: Console) -> None:
        """The card in the terminal: its Markdown, as it would be pasted (no Rich markup)."""
        console.print(self._markdown(), markup=False, highlight=False, end="")

    def _page(self, title: str | None, provenance: dict[str, Any] | None) -> str:
        from evalgap.report.html import card_report

        return card_report(self, title=title or "evalgap card", provenance=provenance)

    def _figure(self) -> Figure:
        return self.plot()

    def plot(self, task: str | None = None) -> Figure:
        """Return a task's rank-set chart (the first task's when ``task`` is None): each
        model's simultaneous set, its marginal set inside it, its rank and the tiers."""
        import pandas as pd

        from evalgap.report.plots import rank_sets_figure

        names = [t.task for t in self.tasks]
        chosen = names[0] if task is None else task
        if chosen not in names:
            raise InputError(
                "{task}" + escape(f" {chosen!r} is not a task of the card ({', '.join(names)})"),
                param="task",
            )
        card = self.tasks[names.index(chosen)]
        frame = pd.DataFrame([m.to_dict() for m in card.models])
        level = f"{100 * (1 - self.settings['alpha']):g}%"
        return rank_sets_figure(frame, f"{chosen}: rank sets", level=level)

    def to_frame(self) -> Any:
        """Return the models of every task as one table.

        Returns
        -------
        pandas.DataFrame
            ``task`` and the :class:`ModelCard` fields, one row per task and model.
        """
        import pandas as pd

        return pd.concat([t.to_frame().assign(task=t.task) for t in self.tasks], ignore_index=True)


def card_scores(
    score_set: ScoreSet,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    use_clusters: bool = True,
    progress: Callable[..., object] | None = None,
) -> CardResult:
    """Return the card of an aligned board (see :func:`evalgap.card`)."""
    from evalgap import __version__
    from evalgap.jobs.audit import audit_scores
    from evalgap.jobs.fragility import board_fragility
    from evalgap.jobs.ranks import ranks_scores

    ranks = ranks_scores(
        score_set,
        alpha=alpha,
        n_bootstrap=n_bootstrap,
        seed=seed,
        use_clusters=use_clusters,
        progress=progress,
        claims=False,
    )
    audit = audit_scores(
        score_set,
        alpha=alpha,
        power=power,
        n_bootstrap=0,
        n_bootstrap_required_n=0,
        n_cluster_bootstrap=0,
        n_rank_bootstrap=0,
        seed=seed,
    )
    flips = audit.fragility or board_fragility(audit, score_set, name_items=False)
    pairs = audit.pairs.to_frame()
    tasks = []
    for task in score_set.tasks:
        if task.task not in ranks.methods:
            continue
        tasks.append(_task_card(task, ranks, pairs[pairs["task"] == task.task], flips))
    settings = {
        "alpha": float(alpha),
        "power": float(power),
        "n_bootstrap": ranks.n_bootstrap,
        "seed": seed,
        "method": ranks.method,
        "evalgap_version": __version__,
    }
    notes = tuple(dict.fromkeys((*ranks.notes, *audit.notes)))
    return CardResult(
        tasks=tuple(tasks), settings=settings, over_tasks=ranks.over_tasks, notes=notes
    )


def _task_card(task: Any, ranks: Any, pairs: Any, flips: Any) -> TaskCard:
    name = task.task
    sub = ranks.ranks[ranks.ranks["task"] == name]
    marginal = ranks.marginal[ranks.marginal["task"] == name].set_index("model")
    total = int(task.scores.shape[0])
    models = tuple(
        ModelCard(
            model=str(row.model),
            rank=int(row.rank),
            score=float(row.score),
            score_low=float(row.score_low),
            score_high=float(row.score_high),
            own_items_mean=float(row.own_items_mean),
            rank_low=int(row.rank_low),
            rank_high=int(row.rank_high),
            marginal_low=int(marginal.loc[row.model, "rank_low"]),
            marginal_high=int(marginal.loc[row.model, "rank_high"]),
            tier=int(row.tier),
            n_items=int(row.n_items),
            items_missing=total - int(row.n_items),
        )
        for row in sub.itertuples()
    )
    order = ranks.models_of(name)
    better = ranks.shown_better[name]
    fragility = {(p.model_a, p.model_b): p.fragility for p in flips.pairs if p.task == name}
    cards = []
    for row in pairs.itertuples():
        binary = bool(row.binary)
        test = PAIR_TEST[binary]
        entry = fragility[(row.model_a, row.model_b)][test]
        resolution = fragility[(row.model_a, row.model_b)]["resolution"]
        i, j = order.index(row.model_a), order.index(row.model_b)
        q = float(row.resolution_ratio)
        cards.append(
            PairCard(
                model_a=str(row.model_a),
                model_b=str(row.model_b),
                n_items=int(row.n_items),
                delta=float(row.delta),
                delta_low=float(row.delta_low),
                delta_high=float(row.delta_high),
                test=test,
                p_value=float(row.p_exact if binary else row.p_paired_t),
                resolution_ratio=q if np.isfinite(q) else None,
                separated=bool(better[i, j]),
                items_to_flip=entry.items_to_flip,
                items_to_flip_exact=bool(entry.exact),
                items_to_flip_resolution=resolution.items_to_flip,
            )
        )
    scores = np.array([m.score for m in models])
    se = float(np.median(sub["se"])) if len(sub) else float("nan")
    spread = float(scores.std(ddof=1)) if scores.size > 1 else 0.0
    return TaskCard(
        task=str(name),
        n_items=total,
        models=models,
        pairs=tuple(cards),
        separated=ranks.separated[name],
        resolved=int(pairs["resolved_fixed_n"].sum()),
        single_rank=sum(m.rank_low == m.rank_high for m in models),
        signal_to_noise=spread / se if se > 0 else float("inf"),
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
    from evalgap.jobs._inputs import _check_columns

    _check_columns(columns, "card")
    _validate.arguments(alpha=alpha, power=power, n_bootstrap=n_bootstrap, seed=seed)
    from evalgap.jobs._resolve import resolve

    board = resolve(
        scores, models=models, tasks=tasks, complete_case=complete_case, strict=strict,
        options=options, columns=columns,
    )  # fmt: skip
    return card_scores(
        board.scores, alpha=alpha, power=power, n_bootstrap=n_bootstrap, seed=seed,
        progress=progress,
    )  # fmt: skip
