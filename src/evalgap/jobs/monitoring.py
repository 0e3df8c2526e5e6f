"""Simulation study: the error of stopping an evaluation when `watch` says a pair is decided.

Continuous peeking is the point of a monitor: the study looks after **every** item, up to a
horizon, and counts a trial as an error when the rule ever declares a difference that is not
there. Scenarios (all under the null, the models equal):

* ``binary pair``: two binary models on paired items (a share of discordant items, each
  favouring either model with probability 1/2), the mixture e-process of Appendix C;
* ``graded pair``: two graded models (Beta(2, 3) scores), the betting e-process;
* ``binary family``: K equal binary models, e-BH over all K(K-1)/2 pairs at every look; the
  rule stops at the first look where e-BH rejects anything (under the global null the false
  discovery rate at that stop is the chance of stopping at all).

Each rate comes with its Monte Carlo SE. The items the rule uses under an alternative are
measured by ``simulate sequential`` (calibrated to a real pair).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample, sequential

if TYPE_CHECKING:
    pass

SCENARIOS = ("binary pair", "graded pair", "binary family")


@dataclass(frozen=True, repr=False)
class MonitoringResult(Study, Result):
    """Type-I error of the stopping rule under continuous monitoring, per scenario.

    Attributes
    ----------
    rows : pandas.DataFrame
        ``scenario, n_models, horizon, n_trials, error_rate, error_se``.
    alpha : float
        The level of the rule.
    """

    rows: pd.DataFrame
    alpha: float
    _headline: ClassVar[tuple[str, ...]] = ("alpha",)

    def to_frame(self) -> pd.DataFrame:
        """Return the rows."""
        return self.rows.copy()



def monitoring_study(
    *,
    n_trials: int = 2000,
    horizon: int = 2000,
    n_models: int = 6,
    discordance: float = 0.2,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> MonitoringResult:
    """Run the study (see the module docstring).

    Parameters
    ----------
    n_trials : int
        Simulated evaluations per scenario.
    horizon : int
        Items followed, each one a look.
    n_models : int
        Models of the family scenario.
    discordance : float
        Share of items on which two binary models differ.
    alpha : float
        Level of the rule.
    seed : int or None
        Seed.
    jobs : int
        Processes: the study runs in one (any other value is refused).
    progress : callable, optional
        Called with ``(done, total)`` after each scenario.

    Returns
    -------
    MonitoringResult

    Examples
    --------
    >>> r = monitoring_study(n_trials=200, horizon=300)
    >>> r.rows["scenario"].tolist()
    ['binary pair', 'graded pair', 'binary family']
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    if jobs != 1:
        raise InputError(
            "{jobs}: the monitoring study runs in one process; leave it at 1", param="jobs"
        )
    from evalgap.jobs.simulate import MAX_ITEMS, check_batch, study_count

    n_trials = study_count(n_trials, "n_trials")
    horizon = study_count(horizon, "horizon", 2, MAX_ITEMS)
    n_models = study_count(n_models, "n_models", 3, 100)
    # a scenario holds every trial's path: trials x items (x models for the family)
    check_batch(n_trials, horizon * n_models, "{n_trials} x {horizon} x {n_models}")
    discordance = float(_validate.probability(discordance, "discordance"))
    streams = resample.seed_sequence(seed).spawn(len(SCENARIOS))
    threshold = -np.log(alpha)
    rows = []
    for k, (scenario, stream) in enumerate(zip(SCENARIOS, streams, strict=True), 1):
        rng = np.random.Generator(np.random.PCG64(stream))
        if scenario == "binary pair":
            d = _binary_differences(rng, (n_trials, horizon), discordance)
            table = sequential.excess_table(horizon, alpha)
            errors, models = int(_crossed(d, table).sum()), 2
        elif scenario == "graded pair":
            x = rng.beta(2, 3, (n_trials, horizon)) - rng.beta(2, 3, (n_trials, horizon))
            errors = int((sequential.betting_log_e(x) >= threshold).any(axis=-1).sum())
            models = 2
        else:
            errors, models = _family_errors(rng, n_trials, horizon, n_models, alpha), n_models
        rate = errors / n_trials
        rows.append(
            {
                "scenario": scenario,
                "n_models": models,
                "horizon": horizon,
                "n_trials": n_trials,
                "error_rate": rate,
                "error_se": float(resample.monte_carlo_se(rate, n_trials)),
            }
        )
        if progress is not None:
            progress(k, len(SCENARIOS))
    return MonitoringResult(pd.DataFrame(rows), alpha)


def _binary_differences(
    rng: np.random.Generator, shape: tuple[int, int], discordance: float
) -> np.ndarray:
    """Paired binary differences under H0: 0 w.p. 1 - discordance, else -1/+1 evenly."""
    u = rng.random(shape)
    return np.where(u < discordance / 2, 1, np.where(u < discordance, -1, 0)).astype(np.int8)


def _crossed(d: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each trial's e-process (rows of differences in time order) ever reaches the
    level of ``table``: ``|b - c| >= D(b + c)`` (the exact integer boundary)."""
    b = np.cumsum(d > 0, axis=-1)
    c = np.cumsum(d < 0, axis=-1)
    return (np.abs(b - c) >= sequential.excess_boundary(b + c, table)).any(axis=-1)


def _family_errors(
    rng: np.random.Generator, n_trials: int, horizon: int, k: int, alpha: float
) -> int:
    """Trials where e-BH over all m pairs of K equal binary models ever rejects, every item a
    look: e-BH rejects at a look when, for some j, j pairs have ``e >= m / (j alpha)``, that is
    ``|b - c|`` at or above the integer boundary of level ``j alpha / m``. Model scores share
    an item effect, so the pairs are correlated."""
    first, second = np.triu_indices(k, 1)
    m = first.size
    tables = [sequential.excess_table(horizon, min(j * alpha / m, 0.999)) for j in range(1, m + 1)]
    errors = 0
    block = max(1, 2**22 // (horizon * m))
    for start in range(0, n_trials, block):
        rows = min(block, n_trials - start)
        easy = rng.random((rows, horizon, 1))
        x = (rng.random((rows, horizon, k)) < 0.3 + 0.4 * easy).astype(np.int8)
        d = x[:, :, first] - x[:, :, second]  # (trials, items, pairs)
        b = np.cumsum(d > 0, axis=1)
        c = np.cumsum(d < 0, axis=1)
        excess, n = np.abs(b - c), b + c
        rejects = np.zeros((rows, horizon), dtype=bool)
        for j, table in enumerate(tables, start=1):
            above = (excess >= sequential.excess_boundary(n, table)).sum(axis=-1)
            rejects |= above >= j
        errors += int(rejects.any(axis=1).sum())
    return errors
