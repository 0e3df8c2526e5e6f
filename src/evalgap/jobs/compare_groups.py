"""``compare --by``: one pair, compared within each group (task, category) and pooled.

A pair compared over several groups in one call, instead of a shell loop: each group's
comparison is :func:`evalgap.jobs.compare.compare_scores` on the items both models scored in that
group, and the groups' primary p-values (the exact McNemar test for binary scores, the
paired t test for graded ones) are adjusted for the number of groups (Holm by default, any
method of :func:`evalgap.stats.multiplicity.adjust_p_values`). The pooled comparison over
every group is given beside them, saying that it pools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from evalgap._lazy import LazyModule
from evalgap._results import Result
from evalgap._scores import ScoreSet
from evalgap.errors import InputError, escape
from evalgap.jobs._pages import MarkdownPage
from evalgap.jobs.compare_pair import CompareResult, compare_scores
from evalgap.stats import multiplicity

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
else:
    pd = LazyModule("pandas")  # a table only when asked for (to_frame): not at start

ADJUSTMENTS = ("holm", "bonferroni", "sidak", "bh")


@dataclass(frozen=True, repr=False)
class GroupComparison(Result):
    """One group's comparison and its p-value adjusted for the number of groups.

    Not a table (no ``to_frame()``): one row of :meth:`CompareGroupsResult.to_frame`.

    Attributes
    ----------
    group : str
        The group (a task, or a value of the grouping column).
    result : CompareResult
        The comparison on the group's items.
    p_value, p_adjusted : float
        The primary p-value (the estimate's: exact McNemar, or paired t for graded scores)
        and its multiplicity-adjusted value.
    significant : bool
        Whether the adjusted p-value is at most alpha.
    """

    group: str
    result: CompareResult
    p_value: float
    p_adjusted: float
    significant: bool
    _headline = ("group", "p_value", "p_adjusted", "significant")

    def to_dict(self) -> dict:
        """Return the group's p-values beside its comparison's fields (alignment left out)."""
        inner = {k: v for k, v in self.result.to_dict().items() if k != "alignment"}
        return {
            "group": self.group,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "significant": self.significant,
            **inner,
        }


@dataclass(frozen=True, repr=False)
class CompareGroupsResult(MarkdownPage, Result):
    """A pair compared per group (``groups``), with a multiplicity correction, and pooled.

    Attributes
    ----------
    by : what the groups are (a column name, or ``"task"``).
    adjustment : the multiplicity correction over groups.
    groups : per group: its comparison, primary p-value and adjusted p-value.
    pooled : the comparison over every group's items together.
    notes : groups left out (too few shared items) and what was pooled.
    """

    model_a: str
    model_b: str
    by: str
    adjustment: str
    alpha: float
    groups: tuple[GroupComparison, ...]
    pooled: CompareResult
    notes: tuple[str, ...] = field(default=())
    _derived = ("verdict",)

    @property
    def significant_groups(self) -> tuple[str, ...]:
        """Groups whose adjusted p-value is at most alpha."""
        return tuple(g.group for g in self.groups if g.significant)

    @property
    def verdict(self) -> str:
        """One sentence: in how many groups the gap is significant after the correction."""
        from evalgap.report.sentences import compare_groups_verdict

        return compare_groups_verdict(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per group: items, accuracies, the gap and its interval's bounds
        (``delta_low``, ``delta_high``), p-values, q and the verdict."""
        return pd.DataFrame(
            [
                {
                    self.by: g.group,
                    "n_items": g.result.n_items,
                    "accuracy_a": g.result.accuracy_a,
                    "accuracy_b": g.result.accuracy_b,
                    "delta": g.result.delta,
                    "delta_low": float(g.result.ci.low),
                    "delta_high": float(g.result.ci.high),
                    "p_value": g.p_value,
                    "p_adjusted": g.p_adjusted,
                    "significant": g.significant,
                    "required_n": g.result.required_n,
                    "resolution_ratio": g.result.resolution_ratio,
                    "resolved": g.result.resolved,
                }
                for g in self.groups
            ]
        )

    _heading: ClassVar[str] = "evalgap compare (by group)"

    def _render(self, console: Console) -> None:
        from evalgap.report.groups import render_compare_groups

        render_compare_groups(self, console)


def compare_by_group(
    score_set: ScoreSet,
    model_a: str,
    model_b: str,
    *,
    by: str = "task",
    adjustment: Literal["holm", "bonferroni", "sidak", "bh"] = "holm",
    alpha: float = 0.05,
    **settings: Any,
) -> CompareGroupsResult:
    """Compare ``model_a`` and ``model_b`` within each task of ``score_set`` and pooled.

    Parameters
    ----------
    score_set : aligned scores whose tasks are the groups (``align`` on a frame whose task
        column holds the group labels).
    model_a, model_b : the two models.
    by : the name of the grouping, for the report.
    adjustment : multiplicity correction over groups: holm, bonferroni, sidak or bh.
    alpha : significance level of each adjusted p-value.
    **settings : passed to :func:`evalgap.jobs.compare.compare_scores` (power, alternative, seed,
        n_bootstrap, ...).

    Returns
    -------
    CompareGroupsResult
    """
    if adjustment not in ADJUSTMENTS:
        raise InputError(
            "{adjustment!b}"
            + escape(
                f" must be one of {', '.join(ADJUSTMENTS)}; got {adjustment!r}"
            ),
            param="adjustment",
        )
    i, j = score_set.model_index(model_a), score_set.model_index(model_b)
    groups, p_values = [], []
    # what alignment left out (rows without a group label, items one model lacks in a group,
    # unusable scores) is said here as in compare's own report, never dropped silently
    report = score_set.report
    notes = [m for m in report.messages() if m not in report.loader_notes]
    for task in score_set.tasks:
        rows = task.pair_rows(i, j)
        if rows.sum() < 2:
            notes.append(
                f"{by} {task.task}: {int(rows.sum())} shared item"
                f"{'' if rows.sum() == 1 else 's'}, left out of the groups"
            )
            continue
        result = compare_scores(
            task.scores[rows, i],
            task.scores[rows, j],
            model_a=model_a,
            model_b=model_b,
            alpha=alpha,
            **settings,
        )
        groups.append((task.task, result))
        p_values.append(result.p_value)
    if not groups:
        raise InputError(f"no {by} group has 2 items both {model_a} and {model_b} scored")
    p = np.asarray(p_values, dtype=float)
    adjusted = multiplicity.adjust_p_values(np.nan_to_num(p, nan=1.0), adjustment)
    a, b = score_set.pair(model_a, model_b)
    pooled = compare_scores(a, b, model_a=model_a, model_b=model_b, alpha=alpha, **settings)
    notes.append(
        f"the pooled comparison takes the {pooled.n_items:,} items of all "
        f"{len(score_set.tasks)} {by} groups together"
    )
    return CompareGroupsResult(
        model_a=model_a,
        model_b=model_b,
        by=by,
        adjustment=adjustment,
        alpha=float(alpha),
        groups=tuple(
            # Below the minimum-items rule a group's test gives no verdict, whatever its p.
            GroupComparison(
                name, r, float(pv), float(pa), bool(pa <= alpha and not r.too_few_items)
            )
            for (name, r), pv, pa in zip(groups, p, adjusted, strict=True)
        ),
        pooled=pooled,
        notes=tuple(notes),
    )


def pooling_note(score_set: ScoreSet) -> str | None:
    """The sentence that says a comparison pools several tasks, or None for one task."""
    if len(score_set.tasks) < 2:
        return None
    names = ", ".join(t.task for t in score_set.tasks[:4])
    more = ", ..." if len(score_set.tasks) > 4 else ""
    return (
        f"{len(score_set.tasks)} tasks pooled ({names}{more}); "
        "--by task compares the pair within each task"
    )
