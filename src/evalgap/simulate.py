"""Simulation studies: calibrate every test and check every prescription.

Each study is seeded, vectorized across trials, and returns a typed result with its Monte
Carlo standard errors (``to_dict()``, ``to_frame()``); the ``evalgap simulate`` commands of
the same names run them from the command line. Sizes are checked before any work and capped
(``MAX_TRIALS``, ``MAX_RESAMPLES``, ``MAX_ITEMS`` and ``MAX_BATCH`` numbers held by one batch,
in ``evalgap.jobs.simulate``): a larger request is an ``InputError``, never hours or a MemoryError.

* :func:`calibration` -- Type-I error and power of the McNemar family and the paired
  bootstrap on a (p, rho) grid (*Resolution Diagnostics* Table 2);
* :func:`prospective` -- subsample real pairs to 0.8 N*, N*, 1.2 N* and measure power
  (Table 10), given as 2x2 counts or as model pairs of per-item ``scores=``;
* :func:`power_curve` -- bootstrap power against n with N* marked (Figures 5-6);
* :func:`sequential` -- the mixture e-process under H0 and H1 (Appendix C, Figure 4);
* :func:`aggregation` -- pooled, max-drop, Fisher and any-of-three rejection rates over
  T = 1..20 tasks (*When LLMs get significantly worse*, Figure 3);
* :func:`rank_coverage` -- simultaneous coverage of the true ranks by the rank sets of
  :func:`evalgap.ranks`, near-ties and many models included;
* :func:`task_rank_coverage` -- rank sets over tasks when the tasks are drawn from a
  population: two-way (tasks and items) against items-only sets;
* :func:`monitoring` -- the error of stopping when ``watch`` says a pair is decided, looking
  after every item (binary and graded pairs, and an e-BH family);
* :func:`adaptive` -- the Type-I error and the items saved by choosing a pair's items
  adaptively (``evalgap adaptive``), on pairs drawn from a 2PL;
* :func:`estimate_study` -- leave one model of a real board out and estimate its score from
  few items (``evalgap estimate``) beside the items' mean and the stratified design, with
  the floors no design on the board's 2PL can beat;
* :func:`configuration_study` -- size and power of the configuration tests, coverage of the
  variance components' intervals and of the gap's interval with configurations random beside
  fixed, on crossed designs with known components (binary and graded);
* :func:`gold_study` -- the coverage of the gold-scale gap (``compare --gold-column``) on a
  judged board, gold labels simulated with a known bias per model and one pair built to flip.
"""

from __future__ import annotations

from evalgap.jobs.adaptive_study import AdaptiveConfiguration, AdaptiveStudyResult
from evalgap.jobs.adaptive_study import adaptive_study as adaptive
from evalgap.jobs.configuration_study import ConfigurationStudyResult, configuration_study
from evalgap.jobs.estimate_study import EstimateStudyResult, estimate_study
from evalgap.jobs.gold_study import GoldCoverageResult, gold_study
from evalgap.jobs.monitoring import MonitoringResult
from evalgap.jobs.monitoring import monitoring_study as monitoring
from evalgap.jobs.rank_coverage import Configuration, RankCoverageResult, rank_coverage
from evalgap.jobs.simulate import (
    AggregationResult,
    CalibrationResult,
    PowerCurveResult,
    ProspectiveResult,
    SequentialResult,
    calibration,
    power_curve,
    prospective,
)
from evalgap.jobs.simulate import aggregation_study as aggregation

# deprecated, kept one release: prospective(pairs, scores=...)
from evalgap.jobs.simulate import prospective_study as prospective_study
from evalgap.jobs.simulate import sequential_study as sequential
from evalgap.jobs.task_rank_coverage import (
    TaskConfiguration,
    TaskRankCoverageResult,
    task_rank_coverage,
)

__all__ = [
    "AdaptiveConfiguration",
    "AdaptiveStudyResult",
    "AggregationResult",
    "CalibrationResult",
    "Configuration",
    "ConfigurationStudyResult",
    "EstimateStudyResult",
    "GoldCoverageResult",
    "MonitoringResult",
    "PowerCurveResult",
    "ProspectiveResult",
    "RankCoverageResult",
    "SequentialResult",
    "TaskConfiguration",
    "TaskRankCoverageResult",
    "adaptive",
    "aggregation",
    "calibration",
    "configuration_study",
    "estimate_study",
    "gold_study",
    "monitoring",
    "power_curve",
    "prospective",
    "rank_coverage",
    "sequential",
    "task_rank_coverage",
]
