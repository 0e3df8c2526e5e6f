"""The ``degrade`` job: has an optimized model got significantly worse than its baseline?

*When LLMs get significantly worse* (Sections 3.1-3.3, 4.1, Appendices A-D). Model A is the
baseline, model B the candidate (quantized, new kernel, new hardware...). Per task: the 2x2
counts, ``flip_rate = (b + c)/N``, ``degradation_rate = b/(b + c)``, ``delta = (b - c)/N`` with
``SE = sqrt((P_b + P_c - (P_b - P_c)^2) / N)``, and the exact one-sided McNemar p-value
(H1: the baseline is better). Across tasks: pooled, Fisher and max-drop p-values; the
candidate is **degraded** when any of the three is at most alpha (a decision whose Type-I
error is bounded by 3 alpha, Bonferroni). Graded scores (or ``permutation=True``) use the
sign-flip permutation versions (Algorithms 5-7). The rules of thumb of Dutta et al. —
``delta > 2%``, flip rate ``>= 5%`` — are reported beside the test, for contrast.

:func:`trim_items` implements Section 4.1: from several runs of the baseline, the items that
never flip carry no signal for degradation tests and can be left out of future runs.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import pandas as pd

from evalgap._results import Result, TableResult, plain
from evalgap._scores import ScoreSet
from evalgap.errors import InputError, escape, fields
from evalgap.io import counts
from evalgap.jobs._board import per_item_options_given
from evalgap.jobs._inputs import (
    _check_columns,
    _is_table,
    _renamed,
    _stored,
    long_scores,
)
from evalgap.jobs._pages import MarkdownPage, Views
from evalgap.jobs.fragility import Fragility, degrade_fragility
from evalgap.stats import _validate, aggregation
from evalgap.stats import noninferiority as ni
from evalgap.stats import power as pw
from evalgap.stats.paired import is_binary, summarize_counts

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

DELTA_RULE = 0.02  # Dutta et al. (2024): an accuracy drop above 2 points
FLIP_RULE = 0.05  # Dutta et al. (2024): a flip rate of 5% or more
DEFAULT_PERMUTATIONS = 100_000


@dataclass(frozen=True, repr=False)
class TaskDegradation(Result):
    """One task's paired comparison of baseline (A) and candidate (B).

    Not a table (no ``to_frame()``): one row of :meth:`DegradeResult.to_frame`.

    Attributes
    ----------
    task : str
        The task (``"total"`` for all tasks pooled).
    n_items : int or None
        Items both models scored (None when only discordant counts were given).
    a_only, b_only : int
        Items only the baseline, only the candidate got right (graded: scored higher).
    both_correct, both_wrong : int or None
        The concordant cells, when known.
    p_value : float
        One-sided p-value that the candidate is worse (exact McNemar, Eq. 5).
    flip_rate, degradation_rate : float or None
        Share of items that flipped; share of the flips that went against the candidate.
    delta, se : float or None
        Baseline minus candidate (A minus B; positive = the candidate is worse) and its
        standard error. Every ``delta`` of degrade has this sign.
    accuracy_baseline, accuracy_candidate : float or None
        Mean scores.
    """

    task: str
    n_items: int | None
    a_only: int
    b_only: int
    both_correct: int | None
    both_wrong: int | None
    p_value: float
    flip_rate: float | None
    degradation_rate: float | None
    delta: float | None
    se: float | None
    accuracy_baseline: float | None
    accuracy_candidate: float | None
    _headline = ("task", "a_only", "b_only", "p_value")


@dataclass(frozen=True, repr=False)
class DegradeResult(MarkdownPage, TableResult):
    """Everything ``evalgap degrade`` reports (the documented ``--json`` contract).

    Attributes
    ----------
    baseline, candidate : str
        The two models (A = baseline, B = candidate).
    alpha : float
        The level of each of the three tests.
    method : str
        ``"exact"`` (binary scores) or ``"permutation"`` (graded, or asked for).
    tasks : tuple of TaskDegradation
        Per task.
    total : TaskDegradation
        All tasks pooled.
    p_values : dict
        ``pooled``, ``max_drop`` and ``fisher`` p-values (one-sided).
    fisher_tasks_left_out : int
        Tasks with no flips, left out of Fisher's combination.
    max_drop_monte_carlo : float or None
        Algorithm 4's Monte Carlo max-drop p-value, when asked for.
    n_simulations : int or None
        Its simulations.
    permutation : PermutationAggregates or None
        The permutation versions (Algorithms 5-7).
    notes : tuple of str
        Everything the result needs said beside the numbers.
    max_drop_task : str or None
        The task with the largest standardized drop.
    non_inferiority : dict or None
        With a margin M: ``margin``, ``non_inferior`` (every task shows a drop below M),
        ``pooled`` (the same on all items together) and ``tasks[]`` with ``task, n_items,
        delta, upper_bound, p_value, non_inferior``: ``delta`` is baseline minus candidate as
        in ``tasks`` (positive = a drop), ``upper_bound`` the one-sided (1 - alpha) upper
        bound of the drop (below M exactly when ``non_inferior``).
    fragility : Fragility or None
        Items to flip (exact tests on binary scores): for ``pooled`` (exact), ``max_drop``,
        ``fisher`` and ``degraded`` (the gate, any of the three) the fewest removals found
        that reverse the verdict (greedy over tasks except pooled: an upper bound), and how
        many items of each kind per task.
    equivalence : dict or None
        With an equivalence margin M: ``margin``, ``equivalent``, ``pooled`` and ``tasks[]``
        with ``delta`` and the bounds ``lower_bound, upper_bound`` of the (1 - 2 alpha)
        interval of the drop, and the larger of the two one-sided p-values (TOST).
    degraded : bool
        Whether any of the three tests rejects (a property; false-alarm rate <= 3 alpha).
    gate_fails : bool
        What ``--fail-on-degradation`` exits 1 on (a property): with a margin, non-inferiority
        not shown on every task; without, ``degraded``.
    verdict : str
        A paragraph for a pull request (a property).
    """

    baseline: str
    candidate: str
    alpha: float
    method: str  # "exact" (binary) or "permutation" (graded, or asked for)
    tasks: tuple[TaskDegradation, ...]
    total: TaskDegradation
    p_values: dict[str, float]
    fisher_tasks_left_out: int
    max_drop_monte_carlo: float | None
    n_simulations: int | None
    permutation: aggregation.PermutationAggregates | None
    notes: tuple[str, ...] = field(default=())
    max_drop_task: str | None = None  # the task with the largest standardized drop
    non_inferiority: dict[str, Any] | None = None
    equivalence: dict[str, Any] | None = None
    fragility: Fragility | None = None
    # with configurations=: the pair's configuration part (evalgap.ConfigurationsResult)
    configuration: Any = None
    _derived = (
        "degraded",
        "gate_fails",
        "false_alarm_bound",
        "rules_of_thumb",
        "detectable_drop",
        "verdict",
    )
    _headline = ("degraded", "p_values")
    _rows = "tasks"

    @property
    def false_alarm_bound(self) -> float:
        """The decision's false-alarm rate bound, 3 alpha (any of three tests rejects)."""
        return 3 * self.alpha

    @property
    def gate_fails(self) -> bool:
        """Whether a CI gate fails: with a margin, when non-inferiority is not shown on every
        task (a drop smaller than the margin passes); without, when ``degraded``."""
        if self.non_inferiority is not None:
            return not self.non_inferiority["non_inferior"]
        return self.degraded

    @property
    def degraded(self) -> bool:
        """True when any of the pooled, max-drop and Fisher p-values is at most alpha."""
        return bool(min(self.p_values.values()) <= self.alpha)

    @property
    def detectable_drop(self) -> float | None:
        """The drop this size and flip rate detect with 80% power (one-sided, Eq. 11)."""
        t = self.total
        if not t.n_items or not t.flip_rate or not 0 < t.flip_rate < 1:
            return None
        return float(pw.degradation_detectable_drop(t.flip_rate, t.n_items, alpha=self.alpha))

    @property
    def rules_of_thumb(self) -> dict:
        """The baseline rules of Dutta et al., for contrast with the tests."""
        delta, flips = self.total.delta, self.total.flip_rate
        return {
            "delta_over_2_points": None if delta is None else bool(delta > DELTA_RULE),
            "flip_rate_at_least_5_percent": None if flips is None else bool(flips >= FLIP_RULE),
        }

    @property
    def verdict(self) -> str:
        """A paragraph a release manager can paste into a pull request."""
        from evalgap.report.sentences import degrade_verdict

        return degrade_verdict(self)

    def to_dict(self) -> dict:
        """Return the JSON-ready dict (the ``degrade --json`` contract).

        Returns
        -------
        dict
            The fields and derived properties; ``permutation`` only when it was run.
        """
        out = super().to_dict()
        for key in ("non_inferiority", "equivalence", "configuration"):
            if out[key] is None:
                del out[key]
        if self.permutation is None:
            del out["permutation"]
        else:
            keep = ("pooled", "fisher", "max_drop", "n_permutations")
            out["permutation"] = {k: plain(getattr(self.permutation, k)) for k in keep}
        return out

    _heading: ClassVar[str] = "evalgap degrade"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_degrade

        render_degrade(self, console)
        if self.configuration is not None:
            from evalgap.report.configurations import render_configuration_part

            render_configuration_part(self.configuration, console)

    def _figure(self) -> Figure:
        from evalgap.report.plots import degrade_figure

        return degrade_figure(self)


def degrade_counts(
    table: pd.DataFrame,
    *,
    alpha: float = 0.05,
    n_simulations: int | None = None,
    seed: int | None = 0,
    baseline: str = "baseline",
    candidate: str = "candidate",
    source: str = "the counts table",
) -> DegradeResult:
    """Test degradation from per-task counts: columns ``task, a_only, b_only`` and optionally
    ``both_correct, both_wrong`` (A = baseline, B = candidate)."""
    _alpha(alpha)
    counts.require_columns(table, counts.TASK_COLUMNS, source)
    table = table.assign(task=table["task"].astype(str))
    counts.unique_rows(table, "task", source)
    full = {"both_correct", "both_wrong"} <= set(table.columns)
    columns = ["a_only", "b_only"] + (["both_correct", "both_wrong"] if full else [])
    values = {c: counts.whole_numbers(table, c, source) for c in columns}
    for c in columns:
        counts.total_within_range(values[c], f"the {c} counts over tasks", source)
    counts.total_within_range(
        np.concatenate([values[c] for c in columns]), "all counts together", source
    )
    tasks = [
        _task(
            str(t),
            *(values[c][i] for c in ("a_only", "b_only")),
            *((values["both_correct"][i], values["both_wrong"][i]) if full else (None, None)),
        )
        for i, t in enumerate(table["task"])
    ]
    notes = (
        []
        if full
        else [
            "no both_correct/both_wrong columns: flip rates, deltas and the "
            "rules of thumb need them and are left out"
        ]
    )
    empty = [t.task for t in tasks if t.n_items == 0]
    if empty:
        notes.append(f"{len(empty)} task(s) without items: {', '.join(empty[:5])}")
    return _binary_result(
        tasks,
        alpha=alpha,
        n_simulations=n_simulations,
        seed=seed,
        baseline=baseline,
        candidate=candidate,
        notes=notes,
    )


def _alpha(alpha: float) -> float:
    """The level, in (0, 1) and not below the smallest whose quantiles stay finite."""
    value = float(_validate.probability(alpha, "alpha"))
    if value < _validate.MIN_ALPHA:
        raise InputError(
            "{alpha:g}"
            + f" is below {_validate.MIN_ALPHA:g}: smaller levels leave the floating-point "
            "range; give a larger alpha",
            param="alpha",
            alpha=value,
        )
    return value


def _share(value: object, name: str) -> float | None:
    """A margin: one number in (0, 1) (a share: 0.01 = one point), or None."""
    if value is None:
        return None
    what = "one number in (0, 1), a share of items (0.01 = one point)"
    try:
        if isinstance(value, (bool, np.bool_, str, bytes)):
            raise TypeError
        share = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            "{" + name + "} must be " + escape(what) + "; got {got!s}",
            param=name,
            got=_validate.show(value),
        ) from None
    if share.ndim != 0 or not 0 < float(share) < 1:
        raise InputError(
            "{" + name + "} must be " + escape(what) + "; got {got!s}",
            param=name,
            got=_validate.show(value),
        )
    return float(share)


def check_roles(baseline: str, candidate: str) -> None:
    """Raise when the baseline and the candidate are the same model (or the same path)."""
    if str(baseline) == str(candidate):
        raise InputError(
            "{baseline!n} and {candidate!n} are both {baseline!r}; name two different models "
            "(or two different outputs) to compare",
            param="baseline",
            baseline=baseline,
        )


def degrade_scores(
    score_set: ScoreSet,
    baseline: str,
    candidate: str,
    *,
    alpha: float = 0.05,
    permutation: bool = False,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    n_simulations: int | None = None,
    seed: int | None = 0,
) -> DegradeResult:
    """Test degradation from aligned per-item scores of the baseline and the candidate.

    Binary scores get the exact tests (and, with ``permutation=True``, the permutation ones
    beside them, the equivalence check of Table 10); graded scores — several runs averaged
    per item, or a continuous metric — get the permutation tests.
    """
    _alpha(alpha)
    check_roles(baseline, candidate)
    i, j = score_set.model_index(baseline), score_set.model_index(candidate)
    differences, tasks, graded = [], [], False
    for task in score_set.tasks:
        rows = task.pair_rows(i, j)  # the items both models scored
        a, b = task.scores[rows, i], task.scores[rows, j]
        differences.append(a - b)
        if is_binary(a) and is_binary(b):
            tasks.append(
                _task(
                    task.task,
                    int(np.sum((a == 1) & (b == 0))),
                    int(np.sum((a == 0) & (b == 1))),
                    int(np.sum((a == 1) & (b == 1))),
                    int(np.sum((a == 0) & (b == 0))),
                )
            )
        else:
            graded = True
            tasks.append(_graded_task(task.task, a, b))
    notes = list(score_set.report.messages())
    perm = None
    if graded or permutation:
        perm = aggregation.permutation_aggregates(differences, n_permutations, seed)
        tasks = (
            [_replace_p(t, p) for t, p in zip(tasks, perm.task_p_values, strict=True)]
            if graded
            else tasks
        )
    if graded:
        assert perm is not None  # computed above for graded scores
        runs = max(int(t.run_counts.max()) for t in score_set.tasks)
        if runs > 1:
            notes.append(f"up to {runs} runs per item were averaged per item (Appendix D.1)")
        total = _graded_total(tasks, differences, score_set, i, j)
        p_values = {"pooled": perm.pooled, "max_drop": perm.max_drop, "fisher": perm.fisher}
        if perm.tasks_left_out:
            notes.append(
                f"Fisher leaves out {perm.tasks_left_out} task(s) where the models "
                "never differ (no information)"
            )
        z = aggregation.permutation_max_drop_statistics(
            [d.sum() for d in differences],
            [np.dot(d, d) for d in differences],
            [d.size for d in differences],
        )
        return DegradeResult(
            baseline=baseline,
            candidate=candidate,
            alpha=float(alpha),
            method="permutation",
            tasks=tuple(tasks),
            total=total,
            p_values=p_values,
            fisher_tasks_left_out=perm.tasks_left_out,
            max_drop_monte_carlo=None,
            n_simulations=None,
            permutation=perm,
            notes=tuple(notes),
            max_drop_task=_largest(tasks, z),
        )
    result = _binary_result(
        tasks,
        alpha=alpha,
        n_simulations=n_simulations,
        seed=seed,
        baseline=baseline,
        candidate=candidate,
        notes=notes,
    )
    if perm is not None:
        result = DegradeResult(**{**result.__dict__, "permutation": perm})
    return result


@dataclass(frozen=True, repr=False)
class TrimResult(Views, Result):
    """Items of a baseline's repeated runs that flipped at least once (Section 4.1).

    Attributes
    ----------
    model : str
        The baseline model.
    runs : int
        The fewest runs of any item.
    kept : pandas.DataFrame
        The items that flipped: ``task, item_id, correct_share``.
    per_task : pandas.DataFrame
        Per task: ``items, never_flip, kept``.
    """

    model: str
    runs: int
    kept: pd.DataFrame  # task, item_id, correct_share
    per_task: pd.DataFrame  # task, items, never_flip, kept
    _headline = ("model", "runs")

    def __repr__(self) -> str:
        t = self.per_task
        return (
            f"TrimResult(model={self.model!r}, runs={self.runs}, kept {int(t['kept'].sum())} "
            f"of {int(t['items'].sum())} items)"
        )

    def to_frame(self) -> pd.DataFrame:
        """Return the kept items (``task, item_id, correct_share``)."""
        return self.kept

    def to_dict(self) -> dict:
        """Return the counts and the kept items."""
        return {
            "model": self.model,
            "runs": self.runs,
            "items": int(self.per_task["items"].sum()),
            "kept": int(self.per_task["kept"].sum()),
            "never_flip": int(self.per_task["never_flip"].sum()),
            "per_task": self.per_task.to_dict(orient="records"),
        }

    _heading: ClassVar[str] = "evalgap trim"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_trim

        render_trim(self, console)


def trim_items(score_set: ScoreSet, model: str) -> TrimResult:
    """Return the items whose score varied across the model's runs, and what was left out.

    An item solved right in every run, or wrong in every run, "never flips": it adds cost
    but no signal to degradation tests (Recommendation 1). Needs at least two runs per item.
    """
    column = score_set.model_index(model)
    runs = min(int(t.run_counts[:, column].min()) for t in score_set.tasks)
    if runs < 2:
        raise InputError(
            escape(f"trimming needs several runs of {model} per item (a run column, ")
            + "inspect epochs or lm-eval {all_runs}); found items with a single run",
            param="run_column",
            all_runs=True,
        )
    kept, per_task = [], []
    for task in score_set.tasks:
        share = task.scores[:, column]
        # only the runs' mean is kept: 0/1 runs give a whole number of correct runs; a mean
        # strictly inside (0, 1) from graded runs would pass for a flip without being one
        correct = share * task.run_counts[:, column]
        graded = np.abs(correct - np.round(correct)) > 1e-9
        if np.any(graded):
            k = int(np.argmax(graded))
            raise InputError(
                f"trimming needs 0/1 scores per run; task {task.task!r}, item "
                f"{task.item_ids[k]!r} averages {share[k]:.4g} over "
                f"{int(task.run_counts[k, column])} runs (a graded score): binarize the "
                "scores first"
            )
        flips = (share > 0) & (share < 1)
        kept.append(
            pd.DataFrame(
                {"task": task.task, "item_id": task.item_ids[flips], "correct_share": share[flips]}
            )
        )
        per_task.append(
            {
                "task": task.task,
                "items": int(share.size),
                "never_flip": int((~flips).sum()),
                "kept": int(flips.sum()),
            }
        )
    return TrimResult(model, runs, pd.concat(kept, ignore_index=True), pd.DataFrame(per_task))


# --- helpers -------------------------------------------------------------------------------


def _task(
    name: str, b: int, c: int, both_correct: int | None = None, both_wrong: int | None = None
) -> TaskDegradation:
    p = float(aggregation.task_p_values(b, c))
    flips = b + c
    if both_correct is not None and both_wrong is not None:
        n = int(both_correct + b + c + both_wrong)
        if n == 0:  # a task without items: its counts are known, its rates are not
            return TaskDegradation(name, 0, 0, 0, 0, 0, p, None, math.nan, None, None, None, None)
        s = summarize_counts(both_correct, b, c, both_wrong)  # delta, se: Var[D] of Appendix B
        return TaskDegradation(
            name,
            n,
            int(b),
            int(c),
            int(both_correct),
            int(both_wrong),
            p,
            flips / n,
            b / flips if flips else math.nan,
            float(s.delta),
            float(s.se),
            float(s.accuracy_a),
            float(s.accuracy_b),
        )
    return TaskDegradation(
        name,
        None,
        int(b),
        int(c),
        None,
        None,
        p,
        None,
        b / flips if flips else math.nan,
        None,
        None,
        None,
        None,
    )


def _graded_task(name: str, a: np.ndarray, b: np.ndarray) -> TaskDegradation:
    d = a - b
    n = d.size
    differ = np.count_nonzero(d)
    return TaskDegradation(
        name,
        n,
        int(np.sum(d > 0)),
        int(np.sum(d < 0)),
        None,
        None,
        math.nan,
        differ / n,
        (np.sum(d > 0) / differ) if differ else math.nan,
        float(d.mean()),
        float(d.std() / math.sqrt(n)),
        float(a.mean()),
        float(b.mean()),
    )


def _replace_p(task: TaskDegradation, p: float) -> TaskDegradation:
    return TaskDegradation(**{**task.__dict__, "p_value": float(p)})


def _binary_result(
    tasks: list[TaskDegradation],
    *,
    alpha: float,
    n_simulations: int | None,
    seed: int | None,
    baseline: str,
    candidate: str,
    notes: Sequence[str],
) -> DegradeResult:
    b = np.array([t.a_only for t in tasks])
    c = np.array([t.b_only for t in tasks])
    fisher, left_out = aggregation.fisher_over_tasks(b, c)
    # one family of tasks (1-D counts): scalar results
    assert isinstance(fisher, float) and isinstance(left_out, int)
    p_values = {
        "pooled": float(aggregation.pooled_p_value(b, c)),
        "max_drop": float(aggregation.max_drop_p_value(b, c)),
        "fisher": fisher,
    }
    notes = list(notes)
    if left_out:
        notes.append(
            f"Fisher and max-drop leave out {left_out} task(s) without flips (no information)"
        )
    mc = None
    if n_simulations:
        mc = aggregation.max_drop_p_value_monte_carlo(b, c, n_simulations, seed)
    full = all(t.n_items is not None for t in tasks)
    total = _task(
        "all",
        int(b.sum()),
        int(c.sum()),
        *(
            # every task has its four counts when it has its items
            (sum(t.both_correct or 0 for t in tasks), sum(t.both_wrong or 0 for t in tasks))
            if full
            else (None, None)
        ),
    )
    return DegradeResult(
        baseline=baseline,
        candidate=candidate,
        alpha=float(alpha),
        method="exact",
        tasks=tuple(tasks),
        total=total,
        p_values=p_values,
        fisher_tasks_left_out=left_out,
        max_drop_monte_carlo=mc,
        n_simulations=n_simulations,
        permutation=None,
        notes=tuple(notes),
        max_drop_task=_largest(tasks, aggregation.max_drop_statistics(b, c)),
        fragility=degrade_fragility(b, c, tuple(t.task for t in tasks), float(alpha)),
    )


def _largest(tasks: Sequence[TaskDegradation], z: np.ndarray | Sequence[float]) -> str | None:
    """The task with the largest max-drop statistic (None when no task has flips)."""
    z = np.asarray(z, dtype=float)
    if z.size == 0 or not np.isfinite(z).any():
        return None
    return tasks[int(np.nanargmax(np.where(np.isfinite(z), z, -np.inf)))].task


def _graded_total(
    tasks: Sequence[TaskDegradation],
    differences: list[np.ndarray],
    score_set: ScoreSet,
    i: int,
    j: int,
) -> TaskDegradation:
    d = np.concatenate(differences)
    a, b = score_set.pair(score_set.models[i], score_set.models[j])
    total = _graded_task("all", a, b)
    return _replace_p(total, math.nan) if d.size else total


def with_margins(
    result: DegradeResult, *, margin: float | None = None, equivalence: float | None = None
) -> DegradeResult:
    """Add non-inferiority (margin M: is the candidate's drop below M?) and equivalence
    (within +/- M?) per task and pooled (:mod:`evalgap.stats.noninferiority`): Tango's score
    test for binary tasks (exact unconditional below 100 items), a paired t test for graded
    ones. Every task must pass (an intersection-union test: no multiplicity penalty).

    Signs as everywhere in degrade: ``delta`` is baseline minus candidate (A minus B), a
    positive delta a drop. Non-inferiority reports the one-sided (1 - alpha) ``upper_bound``
    of the drop, below the margin exactly when ``non_inferior``; equivalence the
    (1 - 2 alpha) interval ``lower_bound, upper_bound`` of the drop."""
    margin, equivalence = _share(margin, "margin"), _share(equivalence, "equivalence")
    if margin is None and equivalence is None:
        return result
    alpha = result.alpha
    rows = (*result.tasks, result.total)  # the tasks, then the pooled items
    for task in rows:
        if not task.n_items:
            raise InputError(
                f"a margin needs each task's items: task {task.task!r} has "
                f"{'no item count' if task.n_items is None else 'no items'}; give the counts "
                "table both_correct and both_wrong columns (or per-item scores), and leave "
                "out tasks without items"
            )
    out: dict[str, Any] = {}  # DegradeResult fields by name
    for field_name, verdict, value in (
        ("non_inferiority", "non_inferior", margin),
        ("equivalence", "equivalent", equivalence),
    ):
        if value is None:
            continue
        tests = _margin_tests(rows, float(value), alpha)
        tasks = [_margin_row(t, test, verdict, alpha) for t, test in zip(rows, tests, strict=True)]
        out[field_name] = {
            "margin": float(value),
            verdict: all(t[verdict] for t in tasks[:-1]),  # every task must pass
            "pooled": tasks[-1],
            "tasks": tasks[:-1],
        }
    return dataclasses.replace(result, **out)


def _margin_tests(tasks: Sequence[TaskDegradation], margin: float, alpha: float) -> list[tuple]:
    """Per task ``(delta, p_noninferior, p_nonsuperior, lower, upper)`` in the drop's frame
    (baseline minus candidate): the statistics core works with candidate minus baseline, so
    its lower bound of the change is minus the upper bound of the drop. Binary tasks in one
    vectorized call."""
    out: list = [None] * len(tasks)
    binary = [k for k, t in enumerate(tasks) if t.both_correct is not None]
    if binary:
        a_only = np.array([tasks[k].a_only for k in binary])
        b_only = np.array([tasks[k].b_only for k in binary])
        n = np.array([tasks[k].n_items for k in binary])
        change, _, p, low, high = (
            np.atleast_1d(v) for v in ni.noninferiority_binary(b_only, a_only, n, margin, alpha)
        )
        p_upper = np.atleast_1d(ni.nonsuperiority_p_value(b_only, a_only, n, margin))
        for j, k in enumerate(binary):
            out[k] = (-change[j], p[j], p_upper[j], -high[j], -low[j])
    for k, task in enumerate(tasks):
        if out[k] is not None:
            continue
        n_items, se, delta = task.n_items, task.se, task.delta
        assert n_items is not None and se is not None and delta is not None  # a graded task's
        sd = se * math.sqrt(n_items) * math.sqrt(n_items / max(n_items - 1, 1))  # ddof 1
        shift = -delta  # the tests take candidate minus baseline
        _, p_mean, low_mean, high_mean = ni.noninferiority_mean(shift, sd, n_items, margin, alpha)
        _, p_upper_mean, _, _ = ni.noninferiority_mean(-shift, sd, n_items, margin, alpha)
        out[k] = (task.delta, p_mean, p_upper_mean, -high_mean, -low_mean)
    return [tuple(float(v) for v in row) for row in out]


def _margin_row(task: TaskDegradation, test: tuple, verdict: str, alpha: float) -> dict:
    delta, p_low, p_high, lower, upper = test
    if verdict == "non_inferior":
        return {
            "task": task.task,
            "n_items": task.n_items,
            "delta": delta,
            "upper_bound": upper,
            "p_value": p_low,
            "non_inferior": bool(p_low <= alpha),
        }
    return {
        "task": task.task,
        "n_items": task.n_items,
        "delta": delta,
        "lower_bound": lower,
        "upper_bound": upper,
        "p_value": float(np.maximum(p_low, p_high)),  # NaN (no test) stays NaN
        "equivalent": bool(np.maximum(p_low, p_high) <= alpha),
    }


def degrade(
    scores: ScoresInput | None = None,
    *,
    baseline: str | None = None,
    candidate: str | None = None,
    counts: pd.DataFrame | str | Path | None = None,
    alpha: float = 0.05,
    permutation: bool = False,
    n_permutations: int | None = None,
    n_simulations: int | None = None,
    seed: int | None = 0,
    margin: float | None = None,
    equivalence: float | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    configurations: Literal["random", "fixed"] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> DegradeResult:
    """Has the candidate (quantized, optimized...) got significantly worse than the baseline?

    Exact one-sided McNemar per task (*When LLMs get significantly worse*, Eq. 5),
    aggregated over tasks by the pooled, Fisher and max-drop tests; the candidate is flagged
    when any of them rejects (false-alarm rate at most 3 alpha). Graded scores (several runs
    averaged, or a continuous metric) get the permutation versions.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list, optional
        Per-item scores holding both models (see :func:`compare` for the forms).
    baseline, candidate : str
        The two models in ``scores`` (A = baseline, B = candidate).
    counts : DataFrame or path, optional
        Instead of ``scores``: per-task counts with columns ``task, a_only, b_only`` and
        optionally ``both_correct, both_wrong``.
    alpha : float
        Significance level of each of the three tests.
    permutation : bool
        Also run the permutation tests on binary scores.
    n_permutations : int, optional
        Sign-flip permutations of the permutation tests (default 100,000).
    n_simulations : int, optional
        Also run the Monte Carlo max-drop (Algorithm 4) with this many simulations.
    seed : int or None
        Seed of the permutations and simulations.
    margin : float, optional
        Also test non-inferiority: is the candidate no worse than ``margin`` (a share,
        0.01 = one point) on every task? (``result.non_inferiority``; it then decides
        ``result.gate_fails``). Every ``delta`` of the result is baseline minus candidate.
    equivalence : float, optional
        Also test equivalence within +/- ``equivalence`` (TOST; ``result.equivalence``).
    tasks : list of str, optional
        Select tasks.
    strict : bool
        Treat any left-out row as an error.
    configurations : {"random", "fixed"}, optional
        With scores read with ``LoadOptions(config_columns=...)``: adds the pair's
        configuration part (``result.configuration``); with ``"random"`` the margins'
        verdicts (non-inferiority, equivalence) use the gap over configurations like these,
        compare's ``configuration`` scale, per task and pooled.
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        Column names of a DataFrame or table file.

    Returns
    -------
    DegradeResult
        ``degraded``, the three p-values, per-task results and the verdict.

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> counts = pd.DataFrame({"task": ["gsm8k", "mmlu"], "a_only": [60, 30],
    ...     "b_only": [25, 28]})
    >>> r = evalgap.degrade(counts=counts)
    >>> r.degraded, r.max_drop_task
    (True, 'gsm8k')
    """
    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "degrade")
    _validate.arguments(
        alpha=alpha, permutation=permutation, n_permutations=n_permutations,
        n_simulations=n_simulations, seed=seed, margin=margin, equivalence=equivalence,
        tasks=tasks, strict=strict,
    )  # fmt: skip
    if configurations is not None:
        from evalgap.jobs.configurations import refuse_configurations

        refuse_configurations(configurations, counts=(counts,), arrays=None, by=None,
                              weights=None, judged=False)  # fmt: skip
        if scores is None:
            raise InputError(
                "{configurations} reads the pair from one source: give {scores} (read with "
                "{config_columns}) and name the models with {baseline} and {candidate}",
                param="configurations",
            )
        scores = long_scores(scores, options=options, **columns)
        options, columns = None, {}
    if counts is not None and (scores is not None or _stored(options) or baseline or candidate):
        raise InputError(
            "give either {counts=FILE} (per-task counts) or scores ({scores} with {baseline} "
            "and {candidate}, or {baseline=PATH} {candidate=PATH}), not both",
            param="counts",
        )
    if counts is not None:
        _refuse_for_counts(tasks, strict, options, columns, permutation, n_permutations)
        frame, source = _counts_table(counts)
        result = degrade_counts(
            frame, alpha=alpha, n_simulations=n_simulations, seed=seed, source=source,
            baseline="baseline", candidate="candidate",
        )  # fmt: skip
        return with_margins(result, margin=margin, equivalence=equivalence)
    score_set, baseline, candidate = _baseline_and_candidate(
        scores, baseline, candidate, tasks=tasks, strict=strict, options=options, **columns
    )
    result = degrade_scores(
        score_set, baseline, candidate, alpha=alpha, permutation=permutation,
        n_permutations=DEFAULT_PERMUTATIONS if n_permutations is None else n_permutations,
        n_simulations=n_simulations, seed=seed,
    )  # fmt: skip
    if configurations is not None:
        from evalgap.jobs.configurations import degrade_configurations

        return degrade_configurations(
            result, scores, baseline, candidate, configurations=configurations,
            tasks=tasks, margin=margin, equivalence=equivalence,
            with_margins=with_margins,
        )  # fmt: skip
    return with_margins(result, margin=margin, equivalence=equivalence)


def _refuse_for_counts(
    tasks: Sequence[str] | None, strict: bool, options: LoadOptions | None,
    columns: dict[str, Any], permutation: bool, n_permutations: int | None,
) -> None:  # fmt: skip
    """The per-item options a table of per-task counts cannot honour, refused."""
    ignored = per_item_options_given(
        None, tasks, False, strict, options, columns,
        permutation=permutation, n_permutations=n_permutations is not None,
    )  # fmt: skip
    # its own options first: they are what a counts table most plainly cannot honour
    ignored.sort(key=lambda name: name not in ("permutation", "n_permutations"))
    if ignored:
        raise InputError(
            f"{fields(*ignored)}: for per-item scores ({{scores}}), not {{counts}} "
            "(per-task counts); leave them out or give scores",
            param=ignored[0],
        )


def _counts_table(counts: object) -> tuple[pd.DataFrame, str]:
    """The per-task counts as a frame, and what to call their source."""
    if isinstance(counts, (str, Path)):
        from evalgap.io.tables import read_frame

        return read_frame(counts), str(counts)
    if _is_table(counts):
        return counts, "the counts table"
    raise InputError(
        "{counts} must be a DataFrame or a CSV path; got " + type(counts).__name__,
        param="counts",
    )


def _baseline_and_candidate(
    scores: ScoresInput | None, baseline: str | None, candidate: str | None, *,
    tasks: Sequence[str] | None, strict: bool, options: LoadOptions | None, **columns: Any,
) -> tuple[ScoreSet, str, str]:  # fmt: skip
    """The two models' aligned scores, from one table (two model names) or from each
    model's own outputs (two paths), with the names they go by."""
    if not baseline or not candidate:
        raise InputError(
            "name the baseline and the candidate: {baseline} and {candidate} (models of "
            "{scores}, or paths to each model's outputs)",
            param="baseline" if not baseline else "candidate",
        )
    check_roles(baseline, candidate)
    paths = [Path(str(x)).exists() for x in (baseline, candidate)]
    if any(paths) and not all(paths):
        raise InputError(
            "{baseline} and {candidate} must both be paths to score files or both model names",
            param="baseline",
        )
    if all(paths) and (scores is not None or _stored(options)):
        raise InputError(
            "with {baseline=PATH} {candidate=PATH} (each model's outputs), leave out {scores}",
            param="scores",
        )
    if scores is None and not _stored(options):  # each model from its own outputs
        scores, baseline, candidate = _two_outputs(
            baseline, candidate, options=options, tasks=tasks, strict=strict, **columns
        )
    from evalgap.jobs._resolve import resolve

    board = resolve(
        scores, models=[baseline, candidate], tasks=tasks, strict=strict, options=options,
        columns=columns,
    )  # fmt: skip
    return board.scores, baseline, candidate


def _two_outputs(
    baseline: str, candidate: str, *, options: LoadOptions | None,
    tasks: Sequence[str] | None, strict: bool, **columns: Any,
) -> tuple[ScoreSet, str, str]:  # fmt: skip
    """Align a baseline and a candidate read each from its own path (one model each)."""
    from evalgap._scores import align as align_frame

    for role, path in (("baseline", baseline), ("candidate", candidate)):
        if not Path(path).exists():
            raise InputError(
                fields(role) + ": without {scores}, the baseline and the candidate are paths "
                "to each model's outputs; no such file or directory",
                param=role,
                **{role: str(path)},
            )
    frames: list[pd.DataFrame] = []
    names: list[str] = []
    notes: list[str] = []
    for role, path in (("baseline", baseline), ("candidate", candidate)):
        table = long_scores(str(path), options=options, **columns)
        models = list(dict.fromkeys(table.frame["model"]))
        if len(models) != 1:
            raise InputError(
                fields(role) + ": holds {count!s} models ({names!s}); point it at one model's "
                "outputs",
                param=role,
                count=len(models),
                names=", ".join(models[:5]),
                **{role: str(path)},
            )
        names.append(f"{models[0]} ({Path(path).name})")
        frames.append(table.frame.assign(model=names[-1]))
        notes.extend(f"{role}: {note}" for note in table.notes)
    if names[0] == names[1]:
        names[1] += " [candidate]"
        frames[1] = frames[1].assign(model=names[1])
    score_set = align_frame(
        pd.concat(frames, ignore_index=True),
        models=names,
        tasks=list(tasks) if tasks is not None else None,
        strict=strict,
        source=f"{baseline}, {candidate}",
        notes=notes,
    )
    return score_set, names[0], names[1]


def trim(
    scores: ScoresInput | None = None,
    *,
    model: str,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> TrimResult:
    """Keep the items whose score varied across a baseline's repeated runs (Section 4.1).

    Items solved right (or wrong) in every run carry no signal for degradation tests;
    ``result.kept`` lists the others (``task, item_id, correct_share``), for
    ``degrade(..., )`` on those items.

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list
        Per-item scores with several runs per item (name the run column with
        ``run_column=`` unless it is detected).
    model : str
        The baseline model whose runs are read.
    tasks : list of str, optional
        Select tasks.
    strict : bool
        Treat any left-out row as an error.
    options : LoadOptions, optional
        With paths: how to read them (format, layout, metric, filter...).
    **columns
        Column names of a DataFrame or table file.

    Returns
    -------
    TrimResult
        The kept items and per-task counts.

    Examples
    --------
    >>> import pandas as pd, evalgap
    >>> runs = pd.DataFrame({"model": "base", "item": ["q1", "q1", "q2", "q2"],
    ...     "run": [1, 2, 1, 2], "correct": [1, 0, 1, 1]})
    >>> r = evalgap.trim(runs, model="base", score_column="correct")
    >>> r.kept["item_id"].tolist()
    ['q1']
    """
    scores = _renamed(columns, "data", "scores", scores)
    _check_columns(columns, "trim")
    if scores is None and not _stored(options):
        raise InputError(
            "nothing to trim: give the baseline's repeated runs, {scores=FILE}", param="scores"
        )
    _validate.arguments(model=model, tasks=tasks, strict=strict)
    from evalgap.jobs._resolve import resolve

    board = resolve(scores, models=[model], tasks=tasks, strict=strict, options=options,
                    columns=columns)  # fmt: skip
    return trim_items(board.scores, model)
