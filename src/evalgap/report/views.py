"""Which view draws each result: the terminal renderer of every result type.

One registry for the terminal and for the Markdown report (which replays the same renderer
into a recording console, so both say the same numbers and sentences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# The terminal renderer of each result type (by class name, so this module imports no job);
# every other result of the simulation studies and of the store has one renderer each.
RENDERERS = {
    "CompareResult": "render_compare",
    "CompareGroupsResult": "render_compare_groups",
    "WeightedCompareResult": "render_weighted_compare",
    "GoldCompareResult": "render_gold_compare",
    "GoldAuditResult": "render_gold_audit",
    "PlanResult": "render_plan",
    "DegradationPlan": "render_plan_degradation",
    "NonInferiorityPlan": "render_plan_degradation",
    "PilotPlan": "render_pilot_plan",
    "SamplingDesign": "render_sampling_design",
    "DataSummary": "render_data",
    "AuditResult": "render_audit",
    "RanksResult": "render_ranks",
    "DegradeResult": "render_degrade",
    "TrimResult": "render_trim",
    "WatchStatus": "render_watch",
    "FragilityResult": "render_fragility",
    "CardResult": "render_card",
    "EstimateResult": "render_estimate",
    "AdaptiveResult": "render_adaptive",
    "GoldCoverageResult": "render_gold_coverage",
}
RENDERERS_BY_MODULE = {
    "evalgap.jobs.simulate": "render_simulation",
    "evalgap.jobs.monitoring": "render_simulation",
    "evalgap.jobs.rank_coverage": "render_simulation",
    "evalgap.jobs.task_rank_coverage": "render_simulation",
    "evalgap.jobs.adaptive_study": "render_simulation",
    "evalgap.jobs.estimate_study": "render_simulation",
    "evalgap.jobs.store": "render_store",
}


def renderer(result: object) -> Callable[[Any, Console], None]:
    """The terminal renderer of ``result``, found from its type."""
    from evalgap.report import terminal

    kind = type(result)
    name = RENDERERS.get(kind.__name__) or RENDERERS_BY_MODULE.get(kind.__module__)
    if name is None:
        raise TypeError(f"no terminal renderer for {kind.__name__}")
    if name == "render_compare_groups":
        from evalgap.report.groups import render_compare_groups

        return render_compare_groups
    if name == "render_fragility":
        from evalgap.report.fragility import render_fragility

        return render_fragility
    if name == "render_card":
        return _print_markdown
    return getattr(terminal, name)


def _print_markdown(result: Any, console: Console) -> None:
    """The card in the terminal: its Markdown, as it would be pasted (no Rich markup)."""
    console.print(result.to_markdown(), markup=False, highlight=False, end="")
