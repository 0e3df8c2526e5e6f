"""evalgap: paired tests, required sample sizes and resolution diagnostics for LLM evaluation.

Is a gap between two models scored on the same items real, and could the benchmark even
have shown it? Every job of the command line is a function here, with the same option
names (``--n-bootstrap`` is ``n_bootstrap=``):

* :func:`compare` -- one paired gap: tests, intervals, N*, MDE, q = N/N* and a verdict;
* :func:`plan`, :func:`plan_degradation`, :func:`plan_pilot`, :func:`plan_sampling` --
  sample sizes before running (items, items x reruns at a cost, and which items to run);
* :func:`audit` -- a whole leaderboard: every pair on its own shared items, multiplicity,
  anytime-valid verdicts, clusters, tiers;
* :func:`ranks` -- which rank each model can claim: simultaneous rank sets, tiers, top-k
  sets, also for arena battles (Bradley-Terry);
* :func:`degrade`, :func:`trim` -- has an optimized model got worse?
* :mod:`evalgap.simulate` -- calibration of every test and validation of every prescription;
* :func:`load_scores`, :func:`align` -- per-item scores from files or DataFrames, aligned;
* :mod:`evalgap.stats` -- the vectorized statistics core (NumPy/SciPy only).

Names are imported on first use, so ``import evalgap`` (and ``evalgap --version``) stays
fast; ``dir(evalgap)`` and ``__all__`` list everything.

Examples
--------
>>> import evalgap
>>> r = evalgap.compare(both_correct=7986, a_only=295, b_only=249, both_wrong=1512)
>>> r.required_n, r.resolved
(20256, False)
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# Public name -> private module that defines it (imported on first attribute access).
_HOMES = {
    "compare": "evalgap._api",
    "audit": "evalgap._api",
    "degrade": "evalgap._api",
    "ranks": "evalgap._api",
    "Monitor": "evalgap._watch",
    "watch": "evalgap._watch",
    "WatchStatus": "evalgap._watch",
    "RanksResult": "evalgap._ranks",
    "trim": "evalgap._api",
    "align": "evalgap._api",
    "compare_counts": "evalgap._compare",
    "compare_scores": "evalgap._compare",
    "CompareResult": "evalgap._compare",
    "WeightedCompareResult": "evalgap._weighted",
    "PValues": "evalgap._compare",
    "BootstrapResult": "evalgap._compare",
    "RequiredNInterval": "evalgap._compare",
    "CorrelationSensitivity": "evalgap._compare",
    "CompareGroupsResult": "evalgap._compare_groups",
    "GroupComparison": "evalgap._compare_groups",
    "AuditResult": "evalgap._audit",
    "PairTable": "evalgap._audit",
    "ClusterStress": "evalgap._audit",
    "DegradeResult": "evalgap._degrade",
    "TaskDegradation": "evalgap._degrade",
    "TrimResult": "evalgap._degrade",
    "plan": "evalgap._plan",
    "plan_degradation": "evalgap._plan",
    "plan_noninferiority": "evalgap._plan",
    "NonInferiorityPlan": "evalgap._plan",
    "PlanResult": "evalgap._plan",
    "plan_pilot": "evalgap._pilot",
    "plan_sampling": "evalgap._sampling_design",
    "validate_sampling": "evalgap._sampling_design",
    "SamplingDesign": "evalgap._sampling_design",
    "SamplingValidation": "evalgap._sampling_design",
    "PairValidation": "evalgap._sampling_design",
    "Stratum": "evalgap._sampling_design",
    "PilotPlan": "evalgap._pilot",
    "PilotComponents": "evalgap._pilot",
    "Design": "evalgap._pilot",
    "DegradationPlan": "evalgap._plan",
    "Conventions": "evalgap._plan",
    "ScoreSet": "evalgap._scores",
    "TaskScores": "evalgap._scores",
    "AlignmentReport": "evalgap._scores",
    "ModelAlignment": "evalgap._scores",
    "LongScores": "evalgap._scores",
    "LoadOptions": "evalgap.io.options",
    "load_scores": "evalgap.io.sources",
    "read_long_table": "evalgap.io.tables",
    "inspect_data": "evalgap._inspect_data",
    "DataSummary": "evalgap._inspect_data",
    "InputError": "evalgap.errors",
    "store_add": "evalgap._store",
    "store_list": "evalgap._store",
    "store_remove": "evalgap._store",
    "store_export": "evalgap._store",
    "store_pairs": "evalgap._store",
    "read_store": "evalgap._store",
    "audit_store": "evalgap._store",
    "audit_store_streamed": "evalgap._store",
    "StoreAuditSummary": "evalgap._store",
    "StoreAddResult": "evalgap._store",
    "StoreListResult": "evalgap._store",
    "StoreRemoveResult": "evalgap._store",
    "StoreExportResult": "evalgap._store",
}
_SUBMODULES = ("simulate", "stats")

__all__ = sorted([*_HOMES, *_SUBMODULES, "__version__"])


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"evalgap.{name}")
    else:
        raise AttributeError(f"module 'evalgap' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
