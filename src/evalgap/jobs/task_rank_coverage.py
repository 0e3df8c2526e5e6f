"""Simulation study: do rank sets over tasks cover the ranks on the population of tasks?
(``simulate task-rank-coverage``)

Each replicate draws a benchmark of T tasks from a population: model k's score on task t is
``m_tk = mu_k + c_t + u_tk`` (a common task difficulty ``c_t ~ N(0, 0.08^2)`` and a model x
task interaction ``u_tk ~ N(0, tau^2)``, clipped to [0.02, 0.98]), and each of the task's N
items is a Bernoulli draw with that probability. The truth is the rank by ``mu_k``, the
expected score on the population of tasks. Both kinds of sets of
:func:`evalgap.stats.task_ranks.task_rank_sets` are computed on every replicate: with the
items of these tasks resampled only (the naive sets, which treat the tasks as fixed), and
with the tasks resampled too (two-way). A replicate covers when every model's true rank
lies in its simultaneous set; the Monte Carlo SE is ``sqrt(c (1 - c) / S)``.

With ``tau = 0`` every task measures the same thing and both kinds cover; with model x task
interaction, the naive sets claim orders that the next draw of tasks would not keep.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._inputs import renamed_keywords
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample
from evalgap.stats.task_ranks import task_rank_sets

if TYPE_CHECKING:
    pass

TASK_DIFFICULTY_SD = 0.08


@dataclass(frozen=True)
class TaskConfiguration:
    """One simulated multi-task benchmark.

    Attributes
    ----------
    name : str
        Its label in the study's table.
    means : tuple of float
        Each model's expected score on the population of tasks (``mu_k``).
    interaction : float
        ``tau``: the SD of the model x task interaction.
    n_tasks, n_items : int
        Tasks drawn per benchmark and items per task.
    """

    name: str
    means: tuple[float, ...]
    interaction: float
    n_tasks: int
    n_items: int


CONFIGURATIONS = (
    TaskConfiguration("5 models 2 points apart, no interaction", (0.62, 0.6, 0.58, 0.56, 0.54),
                      0.0, 10, 300),
    TaskConfiguration("5 models 2 points apart, interaction 0.05",
                      (0.62, 0.6, 0.58, 0.56, 0.54), 0.05, 10, 300),
    TaskConfiguration("5 models 3 points apart, interaction 0.06, 1,000 items per task",
                      (0.63, 0.6, 0.57, 0.54, 0.51), 0.06, 10, 1000),
    TaskConfiguration("8 models 1 point apart, interaction 0.03, 20 tasks",
                      tuple(0.6 - 0.01 * np.arange(8)), 0.03, 20, 200),
)  # fmt: skip


@dataclass(frozen=True, repr=False)
class TaskRankCoverageResult(Study, Result):
    """Simultaneous coverage of the population ranks, per configuration and kind of sets.

    Attributes
    ----------
    rows : pandas.DataFrame
        Per configuration and ``sets`` (``items only`` or ``two-way``): ``configuration,
        n_models, n_tasks, n_items, interaction, sets, coverage, coverage_se, mean_width``.
    alpha : float
        One minus the nominal level.
    n_trials, n_bootstrap : int
        Replicates per configuration; bootstrap draws per replicate.
    """

    rows: pd.DataFrame
    alpha: float
    n_trials: int
    n_bootstrap: int
    _headline: ClassVar[tuple[str, ...]] = ("n_trials",)
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    def to_frame(self) -> pd.DataFrame:
        """Return the per-configuration rows."""
        return self.rows.copy()

    @property
    def verdict(self) -> str:
        """Where each kind of sets reaches the nominal coverage (within 2 Monte Carlo SE)."""
        from evalgap.report.sentences import task_rank_coverage_verdict

        return task_rank_coverage_verdict(self)



def _simulate(
    config: TaskConfiguration, n_trials: int, n_bootstrap: int, alpha: float,
    stream: np.random.SeedSequence,
) -> list[dict[str, object]]:  # fmt: skip
    data_stream, bootstrap_stream = stream.spawn(2)
    rng = np.random.Generator(np.random.PCG64(data_stream))
    seeds = bootstrap_stream.spawn(n_trials)
    mu = np.asarray(config.means, dtype=float)
    true_rank = 1 + (mu[None, :] > mu[:, None] + 1e-12).sum(axis=1)
    covered = {"items only": 0, "two-way": 0}
    width = {"items only": 0.0, "two-way": 0.0}
    for s in range(n_trials):
        difficulty = rng.normal(0.0, TASK_DIFFICULTY_SD, (config.n_tasks, 1))
        interaction = rng.normal(0.0, config.interaction, (config.n_tasks, mu.size))
        p = np.clip(mu[None, :] + difficulty + interaction, 0.02, 0.98)
        tasks = [
            (rng.random((config.n_items, mu.size)) < p[t]).astype(float)
            for t in range(config.n_tasks)
        ]
        found = task_rank_sets(tasks, alpha=alpha, n_bootstrap=n_bootstrap, seed=seeds[s])
        for name, sets in (("items only", found.items_only), ("two-way", found.two_way)):
            low, high = np.asarray(sets.rank_low), np.asarray(sets.rank_high)
            covered[name] += bool(((low <= true_rank) & (true_rank <= high)).all())
            width[name] += float((high - low + 1).mean())
    rows = []
    for name in ("items only", "two-way"):
        coverage = covered[name] / n_trials
        rows.append(
            {
                "configuration": config.name,
                "n_models": mu.size,
                "n_tasks": config.n_tasks,
                "n_items": config.n_items,
                "interaction": config.interaction,
                "sets": name,
                "coverage": coverage,
                "coverage_se": float(resample.monte_carlo_se(coverage, n_trials)),
                "mean_width": width[name] / n_trials,
            }
        )
    return rows


@renamed_keywords(n_simulations="n_trials")
def task_rank_coverage(
    configurations: Sequence[TaskConfiguration] | None = None,
    *,
    n_trials: int = 200,
    n_bootstrap: int = 400,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> TaskRankCoverageResult:
    """Run the task-rank-coverage study (see the module docstring).

    Parameters
    ----------
    configurations : sequence of TaskConfiguration, optional
        The benchmarks to simulate (default :data:`CONFIGURATIONS`).
    n_trials : int
        Replicates per configuration.
    n_bootstrap : int
        Bootstrap draws per replicate and kind of sets.
    alpha : float
        One minus the nominal level.
    seed : int or None
        Seed of every stream (each configuration has its own).
    jobs : int
        Processes to spread the configurations over; results do not depend on it.
    progress : callable, optional
        Called with (done, total) configurations.

    Returns
    -------
    TaskRankCoverageResult

    Examples
    --------
    >>> from evalgap.jobs.task_rank_coverage import TaskConfiguration, task_rank_coverage
    >>> r = task_rank_coverage([TaskConfiguration("3 models", (0.7, 0.6, 0.5), 0.0, 4, 100)],
    ...                        n_trials=10, n_bootstrap=200)
    >>> r.rows["sets"].tolist()
    ['items only', 'two-way']
    """
    from evalgap.jobs.simulate import MAX_RESAMPLES, check_batch, run_chunks, study_count

    alpha = float(_validate.probability(alpha, "alpha"))
    n_trials = study_count(n_trials, "n_trials")
    n_bootstrap = study_count(n_bootstrap, "n_bootstrap", 1, MAX_RESAMPLES)
    check_batch(n_trials, n_bootstrap, "{n_trials} x {n_bootstrap}")
    configs = tuple(CONFIGURATIONS if configurations is None else configurations)
    if not configs:
        raise InputError("task_rank_coverage needs at least one configuration")
    streams = resample.child_seed(seed, "task_rank_coverage").spawn(len(configs))
    chunks = [
        (config, n_trials, n_bootstrap, alpha, stream)
        for config, stream in zip(configs, streams, strict=True)
    ]
    rows = [row for part in run_chunks(_simulate, chunks, jobs, progress) for row in part]
    return TaskRankCoverageResult(pd.DataFrame(rows), alpha, n_trials, n_bootstrap)
