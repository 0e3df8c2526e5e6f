"""evalgap: paired tests, required sample sizes and resolution diagnostics for LLM evaluation.

Is a gap between two models scored on the same items real, and could the benchmark even
have shown it? Every job of the command line is a function here, with the same option
names (``--n-bootstrap`` is ``n_bootstrap=``):

* :func:`compare` -- one paired gap: tests, intervals, N*, MDE, q = N/N* and a verdict;
* :func:`plan` -- sample sizes before running (items; items x reruns at a cost with a
  pilot; which items to run from a reference board; a degradation or non-inferiority test),
  and :func:`validate_sampling` to check a sampling design on held-back pairs;
* :func:`audit` -- a whole leaderboard: every pair on its own shared items, multiplicity,
  anytime-valid verdicts, clusters, tiers;
* :func:`ranks` -- which rank each model can claim: simultaneous rank sets, tiers, top-k
  sets, also for arena battles (Bradley-Terry);
* :func:`fragility` -- how few items would reverse each verdict of a board's pairs;
* :func:`configurations` -- is it the model or the configuration (seed, provider) it ran
  under? variance components, tests and the gap's interval over configurations;
* :func:`card` -- a leaderboard card (Markdown, HTML, JSON): what each model can claim;
* :func:`estimate` -- a new model's full-benchmark score from a few items, with an interval;
* :func:`adaptive` -- decide one pair with the items that say most about it, batch by batch;
* :func:`degrade`, :func:`trim` -- has an optimized model got worse?
* :func:`watch`, :class:`Monitor` -- an evaluation in progress: when can it stop?
* :func:`report_html` -- the HTML page of an audit or of rank sets (``--html``);
* :func:`store_add`, :func:`store_list`, :func:`store_audit`, ... -- a growing leaderboard
  kept in one DuckDB file (``evalgap store``);
* :mod:`evalgap.simulate` -- calibration of every test and validation of every prescription;
* :func:`load_scores`, :func:`align` -- per-item scores from files or DataFrames, aligned;
* :mod:`evalgap.stats` -- the vectorized statistics core (NumPy/SciPy only).

Names are imported on first use, so ``import evalgap`` (and ``evalgap --version``) stays
fast; ``dir(evalgap)`` and ``__all__`` list everything. A name of an earlier release that
left ``__all__`` still works for one release, with a DeprecationWarning saying what to use.

Examples
--------
>>> import evalgap
>>> r = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
>>> r.required_n, r.resolved
(20256, False)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public name -> private module that defines it (imported on first attribute access).
_HOMES = {
    "compare": "evalgap.jobs.compare",
    "audit": "evalgap.jobs.audit",
    "degrade": "evalgap.jobs.degrade",
    "ranks": "evalgap.jobs.ranks",
    "fragility": "evalgap.jobs.audit",
    "configurations": "evalgap.jobs.configurations",
    "ConfigurationsResult": "evalgap.jobs.configurations",
    "card": "evalgap.jobs.card",
    "estimate": "evalgap.jobs.estimate",
    "adaptive": "evalgap.jobs.adaptive",
    "AdaptiveResult": "evalgap.jobs.adaptive",
    "EstimateResult": "evalgap.jobs.estimate",
    "ModelEstimate": "evalgap.jobs.estimate",
    "CardResult": "evalgap.jobs.card",
    "TaskCard": "evalgap.jobs.card",
    "ModelCard": "evalgap.jobs.card",
    "PairCard": "evalgap.jobs.card",
    "OverTasks": "evalgap.jobs._ranks_result",
    "FragilityResult": "evalgap.jobs.fragility",
    "Fragility": "evalgap.jobs.fragility",
    "Monitor": "evalgap.jobs.watch",
    "watch": "evalgap.jobs.watch",
    "WatchStatus": "evalgap.jobs.watch",
    "RanksResult": "evalgap.jobs._ranks_result",
    "trim": "evalgap.jobs.degrade",
    "align": "evalgap.jobs._board",
    "CompareResult": "evalgap.jobs.compare_pair",
    "CompareGroupsResult": "evalgap.jobs.compare_groups",
    "AuditResult": "evalgap.jobs.audit",
    "PairTable": "evalgap.jobs.audit",
    "DegradeResult": "evalgap.jobs.degrade",
    "TrimResult": "evalgap.jobs.degrade",
    "plan": "evalgap.jobs.plan",
    "NonInferiorityPlan": "evalgap.jobs.plan",
    "PlanResult": "evalgap.jobs.plan",
    "validate_sampling": "evalgap.jobs.sampling_design",
    "SamplingDesign": "evalgap.jobs.sampling_design",
    "SamplingValidation": "evalgap.jobs.sampling_design",
    "PilotPlan": "evalgap.jobs.pilot",
    "Design": "evalgap.jobs.pilot",
    "DegradationPlan": "evalgap.jobs.plan",
    "ScoreSet": "evalgap._scores",
    "AlignmentReport": "evalgap._scores",
    "LongScores": "evalgap._scores",
    "LoadOptions": "evalgap.io.options",
    "load_scores": "evalgap.io.sources",
    "read_lm_eval_results": "evalgap.io.lm_eval",
    "read_inspect_frames": "evalgap.io.inspect_frames",
    "report_html": "evalgap.report.html",
    "inspect_data": "evalgap.jobs.inspect_data",
    "DataSummary": "evalgap.jobs.inspect_data",
    "InputError": "evalgap.errors",
    "store_add": "evalgap.jobs.store",
    "store_list": "evalgap.jobs.store",
    "store_remove": "evalgap.jobs.store",
    "store_export": "evalgap.jobs.store",
    "store_pairs": "evalgap.jobs.store",
    "store_read": "evalgap.jobs.store",
    "store_audit": "evalgap.jobs.store",
    "StoreAuditSummary": "evalgap.jobs.store",
    "StoreAddResult": "evalgap.jobs.store",
    "StoreListResult": "evalgap.jobs.store",
    "StoreRemoveResult": "evalgap.jobs.store",
    "StoreExportResult": "evalgap.jobs.store",
}
_SUBMODULES = ("simulate", "stats")
# Names of an earlier release that left the public namespace -> the module that still holds
# each (reached through ``_RENAMED`` below, with a DeprecationWarning).
_FORMER_HOMES = {
    "JudgeOnly": "evalgap.jobs._scale_parts",
    "GoldScore": "evalgap.jobs._scale_parts",
    "compare_counts": "evalgap.jobs.compare_pair",
    "compare_scores": "evalgap.jobs.compare_pair",
    "compare_lm_eval": "evalgap.jobs.compare",
    "against_baseline": "evalgap.jobs.compare",
    "plan_degradation": "evalgap.jobs.plan",
    "plan_noninferiority": "evalgap.jobs.plan",
    "plan_pilot": "evalgap.jobs.pilot",
    "plan_sampling": "evalgap.jobs.sampling_design",
    "store_audit_in_memory": "evalgap.jobs.store",
    "read_long_table": "evalgap.io.tables",
    "PValues": "evalgap.jobs.compare_pair",
    "BootstrapResult": "evalgap.jobs.compare_pair",
    "RequiredNInterval": "evalgap.jobs.compare_pair",
    "CorrelationSensitivity": "evalgap.jobs.compare_pair",
    "GroupComparison": "evalgap.jobs.compare_groups",
    "TaskDegradation": "evalgap.jobs.degrade",
    "ClusterStress": "evalgap.jobs.audit",
    "OverTasksModel": "evalgap.jobs._ranks_result",
    "TestFragility": "evalgap.jobs.fragility",
    "PairFragility": "evalgap.jobs.fragility",
    "RankClaimFragility": "evalgap.jobs.fragility",
    "TaskTestFragility": "evalgap.jobs.fragility",
    "ModelAlignment": "evalgap._scores",
    "TaskScores": "evalgap._scores",
    "PilotComponents": "evalgap.jobs.pilot",
    "Conventions": "evalgap.jobs.plan",
    "PairValidation": "evalgap.jobs.sampling_design",
    "Stratum": "evalgap.jobs.sampling_design",
}
# Names of an earlier release -> their name now (still importable, with a DeprecationWarning;
# not in ``__all__``).
_RENAMED = {
    "read_store": "store_read",
    "audit_store": "store_audit_in_memory",
    "audit_store_streamed": "store_audit",
    "compare_counts": "compare",
    "compare_scores": "compare",
    "compare_lm_eval": "compare",
    "against_baseline": "compare",
    "plan_degradation": "plan",
    "plan_noninferiority": "plan",
    "plan_pilot": "plan",
    "plan_sampling": "plan",
    "store_audit_in_memory": "store_audit",
    "read_long_table": "load_scores",
    "GoldScore": "CompareResult",
    "JudgeOnly": "CompareResult",
    "GoldCompareResult": "CompareResult",
    "WeightedCompareResult": "CompareResult",
    "GoldAuditResult": "AuditResult",
    "PValues": "CompareResult",
    "BootstrapResult": "CompareResult",
    "RequiredNInterval": "CompareResult",
    "CorrelationSensitivity": "CompareResult",
    "GroupComparison": "CompareGroupsResult",
    "TaskDegradation": "DegradeResult",
    "ClusterStress": "AuditResult",
    "OverTasksModel": "OverTasks",
    "TestFragility": "FragilityResult",
    "PairFragility": "FragilityResult",
    "RankClaimFragility": "FragilityResult",
    "TaskTestFragility": "FragilityResult",
    "ModelAlignment": "AlignmentReport",
    "TaskScores": "ScoreSet",
    "PilotComponents": "PilotPlan",
    "Conventions": "PlanResult",
    "PairValidation": "SamplingValidation",
    "Stratum": "SamplingDesign",
}

__all__ = sorted([*_HOMES, *_SUBMODULES, "__version__"])


def __getattr__(name: str) -> Any:  # the lazy re-export: its type is the named object's
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"evalgap.{name}")
    elif name in _RENAMED:
        import warnings

        new = _RENAMED[name]
        said = (
            f"evalgap.{name} is no longer a public name; use evalgap.{new}"
            if name in _FORMER_HOMES
            else f"evalgap.{name} is now evalgap.{new}"
        )
        warnings.warn(
            said + "; the old name will be removed in a later release",
            DeprecationWarning,
            stacklevel=2,
        )
        if name in _FORMER_HOMES:  # the object itself, until the name goes
            return getattr(importlib.import_module(_FORMER_HOMES[name]), name)
        return __getattr__(new)
    else:
        raise AttributeError(f"module 'evalgap' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
