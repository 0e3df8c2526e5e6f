"""The ``plan --pilot`` job: how many items and how many reruns, at what cost?

A pilot in which both models ran some items several times (lm-eval repeats, inspect epochs,
a long table with a run column) separates the two sources of noise in the paired gap: the
items (which differ in how much better A is) and the runs (sampling at temperature > 0).
From them :mod:`evalgap.stats.variance_components` gives the gap's standard error for any N
items x K runs; this job lays out the (N, K) designs that resolve a target gap at (alpha,
power) -- the frontier -- and, given what an item and a run cost, the cheapest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result
from evalgap.errors import InputError, escape
from evalgap.jobs._pages import Views
from evalgap.stats import _validate
from evalgap.stats import config_components as cc
from evalgap.stats import variance_components as vc
from evalgap.stats._validate import check_countable
from evalgap.stats.config_components import PlannedDesign
from evalgap.stats.power import z_sum_squared

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from evalgap._scores import LongScores, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.stats.variance_components import VarianceComponents

DEFAULT_MAX_RUNS = 10
DEFAULT_MAX_CONFIGURATIONS = 16
# The frontier has a row per K: beyond this many runs per item a frontier is not a plan (and
# its arrays would grow with the option); the cost-optimal K beyond it is given in closed form.
MAX_RUNS = 1000
# Reruns "cannot help" when even unlimited reruns would cut the items needed by less than this.
SMALL_RERUN_SAVING = 0.2


@dataclass(frozen=True, repr=False)
class PilotComponents(Result):
    """The variance components of the per-item difference, as the pilot estimates them.

    Not a table (no ``to_frame()``): a few variance components of one pilot, part of
    :class:`PilotPlan`.

    Attributes
    ----------
    between_items : float
        Variance of the items' true differences (unbiased; may be negative by chance).
    within_items : float
        Run-to-run variance of one run of each model (``within_a + within_b``).
    runs_per_item : float
        Mean runs per item and model seen in the pilot.
    n_items : int
        Items both models scored in the pilot.
    within_a, within_b : float
        Each model's run-to-run variance (for 0/1 scores, the mean ``p_i (1 - p_i)``).
    pilot_delta : float
        The pilot's gap, mean of A minus mean of B.
    """

    between_items: float
    within_items: float
    runs_per_item: float
    n_items: int
    within_a: float
    within_b: float
    pilot_delta: float
    _headline = ("between_items", "within_items", "runs_per_item", "n_items")


@dataclass(frozen=True, repr=False)
class Design(Result):
    """One design: N items, each run K times by each model.

    Not a table (no ``to_frame()``): one row of :meth:`PilotPlan.to_frame` (the frontier).

    Attributes
    ----------
    n_items, n_runs : int
        Items, and runs per item and model.
    se : float
        The gap's standard error under this design.
    cost : float or None
        ``N (cost_per_item + 2 K cost_per_run)``, when costs are given.
    """

    n_items: int
    n_runs: int
    se: float
    cost: float | None
    _headline = ("n_items", "n_runs", "cost")


@dataclass(frozen=True, repr=False)
class ConfigurationPlan(Result):
    """Items x runs x configurations, from a pilot run under several configurations.

    Not a table (no ``to_frame()``): part of :class:`PilotPlan`, whose ``configurations`` it is
    when the pilot carries configuration columns (``config_columns``).

    Attributes
    ----------
    factors : tuple of str
        The columns (or run-metadata fields) naming a configuration.
    n_configurations : int
        Configurations in the pilot.
    components : dict
        The gap's variance components (:func:`evalgap.stats.config_components.decompose_gap`):
        ``item``, ``configuration`` (the model x configuration interaction),
        ``item_configuration`` and ``residual`` (NaN without replicates).
    interaction_p_value : float
        The test of a model x configuration interaction (does the gap move with the
        configuration?).
    n_items, n_runs : int
        The items (``n_items``, else the pilot's) and runs per item and configuration (the
        pilot's) that ``configurations_needed`` is for.
    configurations_needed : float
        The fewest configurations resolving ``delta`` over ``n_items`` x ``n_runs`` with the
        configurations random (inf: the items alone cannot).
    frontier : tuple of PlannedDesign
        For C = 2, 3, ... up to ``max_configurations``: the fewest items at ``n_runs`` runs.
    cheapest : PlannedDesign or None
        The cheapest (N, C, R) for the costs (with any cost given).
    cost_per_configuration : float or None
        What adding one configuration costs (a provider's setup, a harness build).
    """

    factors: tuple[str, ...]
    n_configurations: int
    components: dict[str, float]
    interaction_p_value: float
    n_items: int
    n_runs: int
    configurations_needed: float
    frontier: tuple[PlannedDesign, ...]
    cheapest: PlannedDesign | None
    cost_per_configuration: float | None
    _headline = ("n_configurations", "configurations_needed")


@dataclass(frozen=True, repr=False)
class PilotPlan(Views, Result):
    """The (N, K) plan from a pilot with reruns.

    Attributes
    ----------
    model_a, model_b : str
        The two models.
    variance_components : PilotComponents
        The pilot's components of the per-item difference's variance.
    delta : float
        The gap to resolve (the pilot's, unless given).
    delta_from_pilot : bool
        Whether ``delta`` is the pilot's own gap.
    alpha, power : float
        The two-sided level and the target power.
    cost_per_item, cost_per_run : float or None
        What adding an item costs, and one model's run of one item.
    tokens_per_item : float or None
        Tokens of one model's run of one item (given, or read from the logs).
    frontier : tuple of Design
        For K = 1, 2, ..., the fewest items N that resolve ``delta``.
    cheapest : Design or None
        The frontier's cheapest design (with costs).
    optimal_runs : float or None
        The continuous cost-optimal K (with costs; inf when the items' component is 0).
    items_floor : int
        Items needed with unlimited reruns: no K goes below this.
    rerun_saving : float
        ``1 - items_floor / N(K=1)``: the most reruns can save in items.
    n_items : int or None
        A fixed item set (a closed benchmark) to plan reruns for.
    runs_needed : float or None
        Runs per model that resolve ``delta`` on ``n_items`` items (inf: none do).
    mde_unlimited_runs : float or None
        On ``n_items`` items, the smallest gap resolvable with unlimited reruns.
    notes : tuple of str
        What was left out of the pilot, and what was assumed.
    configurations : ConfigurationPlan or None
        With configuration columns: the gap's components over items x configurations and
        the designs across configurations.
    verdict : str
        One plain sentence (a property).
    """

    model_a: str
    model_b: str
    variance_components: PilotComponents
    delta: float
    delta_from_pilot: bool
    alpha: float
    power: float
    cost_per_item: float | None
    cost_per_run: float | None
    tokens_per_item: float | None
    frontier: tuple[Design, ...]
    cheapest: Design | None
    optimal_runs: float | None
    items_floor: int
    rerun_saving: float
    n_items: int | None
    runs_needed: float | None
    mde_unlimited_runs: float | None
    notes: tuple[str, ...]
    configurations: ConfigurationPlan | None = None
    _derived = ("verdict",)
    _headline = ("delta", "cheapest")

    @property
    def verdict(self) -> str:
        """One plain sentence."""
        from evalgap.report.sentences import pilot_plan_verdict

        return pilot_plan_verdict(self)

    @property
    def reruns_help(self) -> bool:
        """Whether unlimited reruns would cut the items needed by at least a fifth."""
        return self.rerun_saving >= SMALL_RERUN_SAVING

    def to_frame(self) -> pd.DataFrame:
        """The frontier as a DataFrame (one row per K)."""
        import pandas as pd

        return pd.DataFrame([d.to_dict() for d in self.frontier])

    _heading: ClassVar[str] = "evalgap plan"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_pilot_plan

        render_pilot_plan(self, console)


def plan_pilot(
    pilot: ScoresInput,
    *,
    model_a: str | None = None,
    model_b: str | None = None,
    delta: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    cost_per_item: float | None = None,
    cost_per_run: float | None = None,
    price_per_1k_tokens: float | None = None,
    tokens_per_item: float | None = None,
    n_items: int | None = None,
    max_runs: int = DEFAULT_MAX_RUNS,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    cost_per_configuration: float | None = None,
    max_configurations: int = DEFAULT_MAX_CONFIGURATIONS,
    **columns: Any,
) -> PilotPlan:
    """Plan items x reruns from a pilot in which both models ran items several times.

    The per-item difference's variance splits into a between-item part and the run noise
    (:func:`evalgap.stats.variance_components.paired_components`); with K runs averaged
    per item, ``Var(D_i) = s2_between + s2_within / K`` (the per-item success probability,
    not a single 0/1, enters sigma_D of *Resolution Diagnostics* Eq. 2), and Eq. 3 gives
    the items needed, ``N_K = (z_{1-alpha/2} + z_{power})^2 Var(D_i) / delta^2``.

    Parameters
    ----------
    pilot : DataFrame, LongScores, str, Path or list
        Per-item, per-run scores of the two models: a long table with a run column
        (``run_column=``), lm-eval logs of repeated runs (``options=LoadOptions(all_runs=
        True)``) or inspect logs with epochs. Tasks are pooled, items keyed by task and id.
    model_a, model_b : str, optional
        The two models (default: the pilot's two models, when it has exactly two).
    delta : float, optional
        The gap to resolve (default: the pilot's).
    alpha, power : float
        Two-sided significance level and target power.
    cost_per_item, cost_per_run : float, optional
        What adding an item costs once, and one model's run of one item; either alone
        takes the other as 0. A design costs ``N (cost_per_item + 2 K cost_per_run)``.
    price_per_1k_tokens : float, optional
        Instead of ``cost_per_run``: the price of 1,000 tokens, times ``tokens_per_item``
        (given, or read from inspect logs' model usage).
    tokens_per_item : float, optional
        Tokens of one model's run of one item.
    n_items : int, optional
        A fixed item set (a closed benchmark): the runs that resolve ``delta`` on it.
    max_runs : int
        The frontier's largest K (at most :data:`MAX_RUNS`, 1,000).
    tasks : list of str, optional
        The tasks to keep.
    options : LoadOptions, optional
        With paths: how to read them; its ``config_columns`` (``--config-columns``) name the
        configuration each score was run under, and the plan then spans configurations too
        (:class:`ConfigurationPlan`).
    cost_per_configuration : float, optional
        With configurations: what adding one configuration costs; the cheapest (N, C, R)
        costs ``N cost_per_item + 2 N C R cost_per_run + C cost_per_configuration``.
    max_configurations : int
        With configurations: the most configurations laid out and searched.
    **columns
        With a DataFrame or a table: ``model_column``, ``item_column``, ``score_column``,
        ``task_column``, ``run_column``.

    Returns
    -------
    PilotPlan
        The components, the (N, K) frontier and the cheapest design.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> pa = rng.beta(2, 2, 300)  # 300 items, each with its own success probabilities
    >>> pb = np.clip(pa - 0.05 + rng.normal(0, 0.2, 300), 0, 1)
    >>> runs = rng.random((2, 300, 4)) < np.array([pa, pb])[:, :, None]  # 4 runs each
    >>> pilot = pd.DataFrame(
    ...     [(m, i, r, int(runs[j, i, r])) for j, m in enumerate("ab")
    ...      for i in range(300) for r in range(4)], columns=["model", "item", "run", "score"])
    >>> p = plan_pilot(pilot, run_column="run", delta=0.05, cost_per_item=1, cost_per_run=0.1)
    >>> c = p.variance_components
    >>> round(c.between_items, 3), round(c.within_items, 3), c.runs_per_item, c.n_items
    (0.034, 0.386, 4.0, 300)
    >>> p.frontier[0].n_items, p.cheapest.n_items, p.cheapest.n_runs, p.items_floor
    (1320, 281, 7, 108)
    """
    _validate.arguments(
        delta=delta, alpha=alpha, power=power, cost_per_item=cost_per_item,
        cost_per_run=cost_per_run, price_per_1k_tokens=price_per_1k_tokens,
        tokens_per_item=tokens_per_item, n_items=n_items, max_runs=max_runs, tasks=tasks,
        cost_per_configuration=cost_per_configuration,
    )
    max_configurations = _validate.whole_number(max_configurations, "max_configurations", 2)
    alpha, power = (float(x) for x in _validate.levels(alpha, power, "two-sided"))
    max_runs = _check_max_runs(max_runs)
    if n_items is not None:
        n_items = _validate.whole_number(n_items, "n_items", 1)
    long, frame = _pilot_frame(pilot, tasks, options, columns)
    model_a, model_b = _models(frame, model_a, model_b, long.source)
    frame = _runs_across_configurations(frame, cost_per_configuration)
    if "run" not in frame.columns:
        raise InputError(
            escape(long.source)
            + ": the pilot has no run column, so run-to-run noise cannot be told from "
            "item-to-item differences; name it with {run_column} (lm-eval: {all_runs!b}; "
            "inspect: epochs)",
            param="run_column",
        )
    notes = list(long.notes)
    cost_per_item, cost_per_run, tokens = _costs(
        cost_per_item, cost_per_run, price_per_1k_tokens, tokens_per_item, pilot, long.source, notes
    )
    runs_a, runs_b = _pilot_runs(frame, model_a, model_b, long.source, notes)
    c = _paired_components(runs_a, runs_b, long.source)
    between = c.between_items
    if between < 0:
        notes.append(
            f"the between-item component is estimated below zero ({between:.3g}; sampling "
            "noise of a small pilot): the designs take it as 0"
        )
        between = 0.0
    delta_from_pilot = delta is None
    delta = _gap_to_resolve(delta, c.delta)
    span = _check_gap(delta, runs_a, runs_b)
    kw = {"alpha": alpha, "power": power}
    if between <= 0 and c.within_items == 0:
        raise InputError(_no_spread(delta, span, c, kw, long.source), param="delta", delta=delta)
    needed, cost, frontier = _frontier(
        between, c.within_items, delta, max_runs, cost_per_item, cost_per_run, kw
    )
    cheapest = optimal = None
    if cost_per_item is not None and cost_per_run is not None:
        cheapest = frontier[int(np.argmin(cost))]  # the first minimum: fewer runs on a tie
        optimal = _optimal_runs(
            between, c.within_items, cost_per_item, cost_per_run, max_runs, notes
        )
    floor = vc.required_items(between, 0.0, delta, 1, **kw) if between > 0 else 0.0
    runs_needed = mde = None
    if n_items is not None:
        runs_needed = float(vc.runs_for_items(between, c.within_items, delta, n_items, **kw))
        mde = math.sqrt(z_sum_squared(alpha, power) * between / n_items)
    return PilotPlan(
        model_a=model_a,
        model_b=model_b,
        variance_components=PilotComponents(
            between_items=c.between_items,
            within_items=c.within_items,
            runs_per_item=c.runs_per_item,
            n_items=c.n_items,
            within_a=c.within_a,
            within_b=c.within_b,
            pilot_delta=c.delta,
        ),
        delta=delta,
        delta_from_pilot=delta_from_pilot,
        alpha=alpha,
        power=power,
        cost_per_item=cost_per_item,
        cost_per_run=cost_per_run,
        tokens_per_item=tokens,
        frontier=frontier,
        cheapest=cheapest,
        optimal_runs=optimal,
        items_floor=int(max(floor, 0)),
        rerun_saving=float(1 - floor / needed[0]),
        n_items=n_items,
        runs_needed=runs_needed,
        mde_unlimited_runs=mde,
        notes=tuple(notes),
        configurations=_configuration_plan(
            long, (model_a, model_b), tasks, delta, kw, n_items,
            (cost_per_item, cost_per_run, cost_per_configuration), max_configurations, notes,
        ),
    )


def _check_max_runs(max_runs: int) -> int:
    """Return ``max_runs`` as a whole number from 1 to :data:`MAX_RUNS`, else refuse it."""
    max_runs = _validate.whole_number(max_runs, "max_runs", 1)
    if max_runs > MAX_RUNS:
        raise InputError(
            "{max_runs} must be at most "
            + escape(
                f"{MAX_RUNS:,}: the frontier lays out one design per runs count, and the "
                f"cost-optimal runs are given beyond it anyway; got {max_runs:,}"
            ),
            param="max_runs",
        )
    return max_runs


def _pilot_frame(
    pilot: ScoresInput,
    tasks: Sequence[str] | None,
    options: LoadOptions | None,
    columns: dict[str, Any],
) -> tuple[LongScores, pd.DataFrame]:
    """Return the pilot's long scores and their rows of the chosen tasks (refused when
    there are none)."""
    from evalgap.jobs._inputs import long_scores

    long = long_scores(pilot, options=options, **columns)
    frame = long.frame
    if tasks is not None:
        tasks = [tasks] if isinstance(tasks, str) else [str(t) for t in tasks]
        frame = frame[frame["task"].isin(tasks)]
        if frame.empty:
            present = ", ".join(map(str, list(dict.fromkeys(long.frame["task"]))[:6]))
            raise InputError(
                escape(f"{long.source} has no pilot scores for {', '.join(tasks)} (tasks: ")
                + escape(f"{present})"),
                param="tasks",
            )
    return long, frame


def _pilot_runs(
    frame: pd.DataFrame, model_a: str, model_b: str, source: str, notes: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Return the two models' (items, runs) scores on the items both scored, noting the
    items left out; refused when a model ran no item twice."""
    runs_a, runs_b, dropped = _run_matrices(frame, model_a, model_b, source)
    if dropped:
        notes.append(
            f"{dropped:,} item{'s' if dropped != 1 else ''} scored by only one of the two "
            "models left out of the pilot"
        )
    for name, runs in ((model_a, runs_a), (model_b, runs_b)):
        if not ((~np.isnan(runs)).sum(axis=1) >= 2).any():
            raise InputError(
                f"{source}: model {name!r} ran no item twice in the pilot, so its "
                "run-to-run noise is unknown; a pilot needs repeated runs (lm-eval: all_runs; "
                "inspect: epochs)"
            )
    return runs_a, runs_b


def _paired_components(
    runs_a: np.ndarray, runs_b: np.ndarray, source: str
) -> VarianceComponents:
    """Return the pilot's between-item and run-noise components
    (:func:`evalgap.stats.variance_components.paired_components`), refused when they
    overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        c = vc.paired_components(runs_a, runs_b)
    if not all(math.isfinite(x) for x in (c.between_items, c.within_items, c.delta)):
        raise InputError(
            f"{source}: the pilot's scores (up to {np.nanmax(np.abs([runs_a, runs_b])):.3g})"
            " are too large for their variances to be computed in floating point; rescale them"
        )
    return c


def _gap_to_resolve(delta: float | None, pilot_delta: float) -> float:
    """Return the gap the designs resolve: ``delta``, else the pilot's; refused when 0."""
    if delta is None:
        delta = pilot_delta
        if delta == 0:
            raise InputError(
                "the pilot's gap is exactly 0: give the gap to resolve with {delta}",
                param="delta",
            )
    delta = float(_validate.numbers(delta, "delta"))
    if delta == 0:
        raise InputError(
            "{delta!b}" + escape(" must be non-zero: no design resolves a gap of zero"),
            param="delta",
        )
    return delta


def _optimal_runs(
    between: float,
    within: float,
    cost_per_item: float,
    cost_per_run: float,
    max_runs: int,
    notes: list[str],
) -> float:
    """Return the cost-optimal runs per item (in closed form), noting when it lies beyond
    the frontier."""
    optimal = float(
        vc.optimal_runs(between, within, cost_per_item=cost_per_item, cost_per_run=cost_per_run)
    )
    if optimal > max_runs:
        notes.append(
            f"the cost-optimal number of runs ({_show_runs(optimal)}) is beyond the "
            f"frontier's {max_runs} (max_runs=)"
        )
    return optimal


def _frontier(
    between: float,
    within: float,
    delta: float,
    max_runs: int,
    cost_per_item: float | None,
    cost_per_run: float | None,
    kw: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, tuple[Design, ...]]:
    """Return per runs count K = 1..max_runs the items that resolve ``delta`` (Eq. 3), the
    design's cost (NaN without costs) and the designs."""
    runs = np.arange(1, max_runs + 1)
    needed = np.atleast_1d(vc.required_items(between, within, delta, runs, **kw))
    check_countable(float(needed[0]), f"a gap of {_validate.show(delta)}")
    needed = np.maximum(needed, 2)
    se = np.atleast_1d(vc.standard_error(between, within, needed, runs))
    costed = cost_per_item is not None  # and so cost_per_run: both or neither (_costs)
    cost = (
        np.atleast_1d(
            vc.design_cost(needed, runs, cost_per_item=cost_per_item, cost_per_run=cost_per_run)
        )
        if cost_per_item is not None and cost_per_run is not None
        else np.full(runs.size, np.nan)
    )
    frontier = tuple(
        Design(int(n), int(k), float(s), float(x) if costed else None)
        for n, k, s, x in zip(needed, runs, se, cost, strict=True)
    )
    return needed, cost, frontier


def _check_gap(delta: float, runs_a: np.ndarray, runs_b: np.ndarray) -> float | None:
    """Refuse a gap no two models can have on the pilot's scale; return that scale's width.

    Scores within [0, 1] (0/1 correctness, graded shares) are on the unit scale, whatever
    values the pilot happened to show; other scores span what the pilot saw (None when they
    are all equal: the scale is unknown).
    """
    low = float(min(np.nanmin(runs_a), np.nanmin(runs_b)))
    high = float(max(np.nanmax(runs_a), np.nanmax(runs_b)))
    if low >= 0 and high <= 1:
        span, scale = 1.0, "scores in [0, 1]"
    elif high > low:
        span, scale = high - low, f"the pilot's scores, which span [{low:.4g}, {high:.4g}]"
    else:
        return None
    if abs(delta) > span:
        raise InputError(
            "{delta:g}"
            + escape(
                f" is beyond any gap of {scale}: a gap is at most {span:.4g} there; give it in "
                "the scores' units (0.05 = 5 points of accuracy)"
            ),
            param="delta",
            delta=delta,
        )
    return span


def _no_spread(
    delta: float, span: float | None, c: VarianceComponents, kw: dict[str, Any], source: str
) -> str:
    """The refusal of a pilot whose per-item differences have no spread (sigma_D = 0)."""
    from evalgap.stats.power import required_n, round_up

    out = escape(
        f"{source}: the pilot's per-item differences have no spread (the between-item and "
        f"run-to-run variances are both 0: every item's A minus B is the same in every run), "
        "so sigma_D estimates as 0 and the items needed are not estimable from this pilot"
    )
    if span is not None and abs(delta) < span:
        # Bhatia-Davis: a difference confined to [-span, span] with mean delta has variance
        # at most (span - delta)(span + delta), so this many items suffice whatever the spread.
        bound = round_up(float(required_n(delta, math.sqrt(span**2 - delta**2), **kw)))
        if bound is not None:
            out += f"; at most {max(bound, 2):,} items resolve " + "{delta:g} whatever the spread"
    return out + "; pilot more (or harder) items, or plan without a pilot from an assumed {sd_diff}"


def _show_runs(k: float) -> str:
    return "unbounded" if not math.isfinite(k) else f"{k:.1f}"


def _models(
    frame: pd.DataFrame, model_a: str | None, model_b: str | None, source: str
) -> tuple[str, str]:
    present = list(dict.fromkeys(frame["model"].astype(str)))
    if model_a is None and model_b is None:
        if len(present) != 2:
            raise InputError(
                escape(
                    f"{source}: the pilot has {len(present)} models ({', '.join(present[:6])}"
                    f"{', ...' if len(present) > 6 else ''}); "
                )
                + "name the two with {model_a} and {model_b}",
                param="model_a",
            )
        return present[0], present[1]
    for name, value in (("model_a", model_a), ("model_b", model_b)):
        if value is None:
            raise InputError("give both {model_a} and {model_b} (or neither)", param="model_a")
        if value not in present:
            raise InputError(
                "{" + name + "}"
                + escape(
                    f": {source} has no model {value!r} in the pilot "
                    f"(models: {', '.join(present[:6])})"
                ),
                param=name,
            )
    if model_a == model_b:
        raise InputError(
            "{model_a!n} and {model_b!n} are both {name!r}; name two models",
            param="model_a",
            name=model_a,
        )
    assert model_a is not None and model_b is not None  # refused above otherwise
    return model_a, model_b


def _run_matrices(
    frame: pd.DataFrame, model_a: str, model_b: str, source: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """(items, runs) score arrays of each model over the items both scored, NaN-padded."""
    import pandas as pd

    sub = frame[frame["model"].isin([model_a, model_b])].copy()
    sub["score"] = pd.to_numeric(sub["score"], errors="coerce")
    bad = int((~np.isfinite(sub["score"].to_numpy(dtype=float))).sum())
    if bad:
        raise InputError(
            f"{source}: {bad:,} pilot score{'s are' if bad != 1 else ' is'} empty, not a "
            "number or infinite; fix or remove those rows"
        )
    sub["key"] = sub["task"].astype(str) + "\x1f" + sub["item_id"].astype(str)
    counts = sub.groupby(["model", "key", "run"], sort=False).size()
    if (counts > 1).any():
        (model, key, run) = counts[counts > 1].index[0]
        raise InputError(
            f"{source}: model {model!r} has item {key.split(chr(31))[1]!r} run {run!r} more "
            "than once; each (model, item, run) must appear once"
        )
    sub["slot"] = sub.groupby(["model", "key"], sort=False).cumcount()
    keys_a = set(sub.loc[sub["model"] == model_a, "key"])
    keys_b = set(sub.loc[sub["model"] == model_b, "key"])
    shared = sorted(keys_a & keys_b)
    dropped = len(keys_a ^ keys_b)
    if len(shared) < 2:
        raise InputError(
            f"{source}: {model_a!r} and {model_b!r} share {len(shared)} item(s); a pilot "
            "needs at least 2 items both models ran"
        )
    width = int(sub["slot"].max()) + 1
    out = []
    for model in (model_a, model_b):
        part = sub[(sub["model"] == model) & sub["key"].isin(shared)]
        row = pd.Index(shared).get_indexer(part["key"])
        x = np.full((len(shared), width), np.nan)
        x[row, part["slot"].to_numpy()] = part["score"].to_numpy(dtype=float)
        out.append(x)
    return out[0], out[1], dropped


def _costs(
    cost_per_item: float | None,
    cost_per_run: float | None,
    price: float | None,
    tokens: float | None,
    pilot: ScoresInput,
    source: str,
    notes: list[str],
) -> tuple[float, float, float | None] | tuple[None, None, None]:
    """(cost_per_item, cost_per_run, tokens_per_item): None, None, None without costs."""
    for name, value in (
        ("cost_per_item", cost_per_item),
        ("cost_per_run", cost_per_run),
        ("price_per_1k_tokens", price),
        ("tokens_per_item", tokens),
    ):
        if value is not None and not float(_validate.numbers(value, name)) >= 0:
            raise InputError(
                "{" + name + "} must be a finite number >= 0; got {got!r}", param=name, got=value
            )
    if price is not None:
        if cost_per_run is not None:
            raise InputError(
                "give {cost_per_run} or {price_per_1k_tokens}, not both", param="cost_per_run"
            )
        if tokens is None:
            tokens = _logged_tokens(pilot)
            if tokens is None:
                raise InputError(
                    escape(f"{source} records no token counts; ")
                    + "give {tokens_per_item} with {price_per_1k_tokens}",
                    param="tokens_per_item",
                )
            notes.append(f"{tokens:,.0f} tokens per run of an item, from the logs' model usage")
        cost_per_run = float(tokens) * float(price) / 1000
    elif tokens is not None:
        raise InputError(
            "{tokens_per_item} prices runs only with {price_per_1k_tokens}",
            param="tokens_per_item",
        )
    if cost_per_item is None and cost_per_run is None:
        return None, None, None
    cost_per_item = float(cost_per_item or 0.0)
    cost_per_run = float(cost_per_run or 0.0)
    if cost_per_item == 0 and cost_per_run == 0:
        raise InputError(
            "the costs are both 0: give a positive {cost_per_item} or {cost_per_run}",
            param="cost_per_item",
        )
    return cost_per_item, cost_per_run, None if tokens is None else float(tokens)


def _logged_tokens(pilot: ScoresInput) -> float | None:
    """Mean tokens of one run of one item, from inspect logs' model usage (None: unknown)."""
    from pathlib import Path

    paths = [pilot] if isinstance(pilot, (str, Path)) else pilot
    if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in paths):
        return None
    from evalgap.io import inspect_logs
    from evalgap.io.sources import detect_source

    if not paths or any(detect_source(Path(p)) != "inspect" for p in paths):
        return None
    return inspect_logs.mean_sample_tokens(paths)


def _configuration_plan(
    long: LongScores,
    models: tuple[str, str],
    tasks: Sequence[str] | None,
    delta: float,
    kw: dict[str, float],
    n_items: int | None,
    costs: tuple[float | None, float | None, float | None],
    max_configurations: int,
    notes: list[str],
) -> ConfigurationPlan | None:
    """The plan across configurations, when the pilot names them (else None; a
    ``cost_per_configuration`` without them is refused)."""
    from evalgap.io.configurations import COLUMN
    from evalgap.jobs._config_design import configuration_design

    if COLUMN not in long.frame.columns:
        return None
    design = configuration_design(long, models, tasks)
    a, b, dropped_items, dropped = design.pair()
    if dropped_items or dropped:
        notes.append(
            f"{dropped_items:,} item(s) and {len(dropped)} configuration(s) without a paired "
            "run of both models left out of the configuration plan"
        )
    # one configuration is refused by the design itself (naming config_columns)
    gap = cc.decompose_gap(a, b, confidence=1 - kw["alpha"])
    components = np.maximum(np.nan_to_num(gap.estimate, nan=0.0), 0.0)
    n = int(n_items if n_items is not None else gap.n_items)
    runs = int(a.shape[2])
    alpha, power = kw["alpha"], kw["power"]
    needed = float(cc.required_configurations(components, delta, n, runs, alpha=alpha, power=power))
    counts = np.arange(2, max_configurations + 1)
    items = np.asarray(cc.required_items(components, delta, counts, runs, alpha=alpha, power=power))
    item_cost, run_cost, configuration_cost = (0.0 if c is None else float(c) for c in costs)
    frontier = []
    for c, n_c in zip(counts, items, strict=True):
        if not np.isfinite(n_c):
            continue
        half, se = cc.expected_half_width(components, n_c, c, runs, confidence=1 - kw["alpha"])
        cost = n_c * item_cost + 2 * n_c * c * runs * run_cost + c * configuration_cost
        frontier.append(PlannedDesign(int(n_c), int(c), runs, float(se), float(half), float(cost)))
    cheapest = None
    if any(c is not None for c in costs):
        cheapest = cc.cheapest_design(
            components, delta, cost_per_item=item_cost, cost_per_run=run_cost,
            cost_per_configuration=configuration_cost, max_configurations=max_configurations,
            max_runs=max(runs, DEFAULT_MAX_RUNS), alpha=alpha, power=power,
        )  # fmt: skip
    if np.isnan(gap.estimate[3]):
        notes.append(
            "the pilot has one run per item and configuration: the run noise is inside the "
            "item x configuration component, so more runs are not priced below it"
        )
    return ConfigurationPlan(
        factors=design.factors,
        n_configurations=int(a.shape[1]),
        components=dict(zip(cc.COMPONENTS, map(float, gap.estimate), strict=True)),
        interaction_p_value=float(gap.configuration_test.p_value),
        n_items=n,
        n_runs=runs,
        configurations_needed=needed,
        frontier=tuple(frontier),
        cheapest=cheapest,
        cost_per_configuration=costs[2],
    )


def _runs_across_configurations(
    frame: pd.DataFrame, cost_per_configuration: float | None
) -> pd.DataFrame:
    """For the items x reruns plan, a run under each configuration is one more run of the
    item: the run label becomes (configuration, run), or the configuration alone. A cost per
    configuration without configurations is refused."""
    from evalgap.io.configurations import COLUMN

    if COLUMN not in frame.columns:
        if cost_per_configuration is not None:
            raise InputError(
                "{cost_per_configuration} prices configurations, and the pilot names none: "
                "say which columns (or run-metadata fields) name them with {config_columns}",
                param="cost_per_configuration",
            )
        return frame
    configuration = frame[COLUMN].astype(str)
    if "run" in frame.columns:
        return frame.assign(run=configuration + " / " + frame["run"].astype(str))
    return frame.assign(run=configuration)
