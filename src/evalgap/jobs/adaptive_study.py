"""Simulation study: does adaptive item choice keep the decision valid, and how many items
does it save? (``simulate adaptive``)

Each configuration is a benchmark drawn from a 2PL (``P(y = 1) = expit(a_j theta + c_j)``,
slopes ``a_j ~ U(0.5, 2.5)``, intercepts ``c_j ~ N(0, 1.5^2)``) with a reference board of
models of abilities spread over [-2, 2]; the 2PL is fitted once on that board. Each replicate
draws the pair's answers at abilities ``theta_A`` and ``theta_B`` and runs the pair two ways,
looking after every item up to the horizon: in batches chosen as ``evalgap adaptive`` chooses
them (:func:`run_pair`), and in a random order; both are tested by the mixture e-process on
the differing items' signs. With ``theta_A = theta_B`` the two answers to each item are
exchangeable and every rejection is a Type-I error; otherwise the table gives the share of
replicates decided within the horizon and the median items to a decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._inputs import renamed_keywords
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample
from evalgap.stats import adaptive as design
from evalgap.stats.estimate import ability_map
from evalgap.stats.sequential import log_e_value
from evalgap.stats.stratified import IRTFit, fit_2pl, success_probability

if TYPE_CHECKING:
    pass

REFERENCE_MODELS = 20


@dataclass(frozen=True)
class AdaptiveConfiguration:
    """One simulated pair on a simulated benchmark.

    Attributes
    ----------
    name : str
        Its label in the study's table.
    theta_a, theta_b : float
        The pair's abilities (equal: the null).
    n_items : int
        Items of the benchmark.
    """

    name: str
    theta_a: float
    theta_b: float
    n_items: int


CONFIGURATIONS = (
    AdaptiveConfiguration("null: equal abilities, 2,000 items", 0.3, 0.3, 2000),
    AdaptiveConfiguration("null: equal strong models, 2,000 items", 1.5, 1.5, 2000),
    AdaptiveConfiguration("abilities 0.3 apart, 2,000 items", 0.45, 0.15, 2000),
    AdaptiveConfiguration("abilities 0.6 apart, 2,000 items", 0.6, 0.0, 2000),
)


def run_pair(
    y_a: np.ndarray,
    y_b: np.ndarray,
    fit: IRTFit,
    rng: np.random.Generator,
    *,
    adaptive: bool,
    alpha: float = 0.05,
    batch: int = 25,
    audit: float = design.AUDIT,
    max_items: int = 2000,
    budgets: Sequence[int] = (),
) -> dict[str, Any]:
    """Run one pair item by item until ``max_items`` distinct items (adaptive batches, or a
    random order), testing after every item; return ``{"decided_at"`` (items at the first
    rejection, or None), ``"direction"`` (+1: A, -1: B, 0), ``"estimates"`` (per budget of
    ``budgets``: the audit gap as (estimate, low, high))}``. Stops once decided and past the
    largest budget (the random design: once decided)."""
    n = y_a.size
    d = y_a - y_b
    done = np.zeros(n, dtype=bool)
    order = rng.permutation(n)
    wins = losses = count = 0
    decided_at, direction = None, 0
    terms: list[float] = []
    estimates: dict[int, tuple[float, float, float]] = {}
    bound = np.log(1 / alpha)
    last = max(budgets, default=0)
    while count < min(max_items, n):
        if adaptive:
            answers = np.where(done, np.vstack([y_a, y_b]), np.nan)
            theta = ability_map(answers, fit.slope, fit.intercept)[0]
            p = success_probability(theta, fit.slope, fit.intercept)
            items, drawn = design.choose_items(
                design.sign_information(p[0], p[1]), done, batch, audit=audit, rng=rng
            )
            m = p[0] - p[1]
            picked = items[drawn]
            terms += design.assisted_terms(
                d[picked], m[picked], np.full(picked.size, m.mean())
            ).tolist()
        else:
            items = order[count : count + batch]
        # the batch's items not run yet, in order (an audit draw may repeat one), each
        # tested as it comes: the running counts of the signs, the first crossing
        _, first = np.unique(items, return_index=True)
        new = items[np.sort(first)]
        new = new[~done[new]][: min(max_items, n) - count]
        if new.size:
            won = wins + np.cumsum(d[new] > 0)
            lost = losses + np.cumsum(d[new] < 0)
            counts = count + np.arange(1, new.size + 1)
            if decided_at is None:
                hit = np.flatnonzero((d[new] != 0) & (log_e_value(won, lost) >= bound))
                if hit.size:
                    at = int(hit[0])
                    decided_at, direction = int(counts[at]), 1 if won[at] > lost[at] else -1
            for budget in budgets:
                if count < budget <= counts[-1] and budget not in estimates:
                    g = design.gap_interval(terms, alpha=alpha)
                    estimates[budget] = (g["estimate"], g["low"], g["high"])
            done[new] = True
            wins, losses, count = int(won[-1]), int(lost[-1]), int(counts[-1])
        if decided_at is not None and (not adaptive or count >= last):
            break
    return {"decided_at": decided_at, "direction": direction, "estimates": estimates}


@dataclass(frozen=True, repr=False)
class AdaptiveStudyResult(Study, Result):
    """Rejections and items to a decision, adaptive against random items, per configuration.

    Attributes
    ----------
    rows : pandas.DataFrame
        Per configuration: ``configuration, theta_a, theta_b, n_items, gap`` (the pair's
        expected full-benchmark gap), ``null`` (equal abilities), then per design
        (``adaptive_``, ``random_``): ``rejected`` (share of replicates decided within the
        horizon: the Type-I error under the null), ``rejected_se``, ``median_items`` (to a
        decision, over replicates both designs decided), and ``ratio`` (adaptive over
        random medians).
    alpha : float
        The level.
    n_trials : int
        Replicates per configuration.
    horizon : int
        Items followed at most.
    """

    rows: pd.DataFrame
    alpha: float
    n_trials: int
    horizon: int
    _headline: ClassVar[tuple[str, ...]] = ("n_trials",)
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    def to_frame(self) -> pd.DataFrame:
        """Return the per-configuration rows."""
        return self.rows.copy()

    @property
    def verdict(self) -> str:
        """Whether the null rejections stay within alpha + 2 SE, and the items saved."""
        from evalgap.report.sentences import adaptive_study_verdict

        return adaptive_study_verdict(self)



def _simulate(
    config: AdaptiveConfiguration, n_trials: int, horizon: int, alpha: float,
    stream: np.random.SeedSequence,
) -> dict[str, object]:  # fmt: skip
    rng = np.random.Generator(np.random.PCG64(stream))
    a = rng.uniform(0.5, 2.5, config.n_items)
    c = rng.normal(0.0, 1.5, config.n_items)
    skills = np.linspace(-2.0, 2.0, REFERENCE_MODELS)
    board = rng.random((REFERENCE_MODELS, config.n_items)) < success_probability(skills, a, c)
    fit = fit_2pl(board.astype(float))
    p = success_probability(np.array([config.theta_a, config.theta_b]), a, c)
    decided: dict[str, list[int | None]] = {"adaptive": [], "random": []}
    for _ in range(n_trials):
        y = (rng.random(p.shape) < p).astype(float)
        for name in decided:
            found = run_pair(y[0], y[1], fit, rng, adaptive=name == "adaptive", alpha=alpha,
                             max_items=horizon)  # fmt: skip
            decided[name].append(found["decided_at"])
    row: dict[str, object] = {
        "configuration": config.name, "theta_a": config.theta_a, "theta_b": config.theta_b,
        "n_items": config.n_items, "gap": float((p[0] - p[1]).mean()),
        "null": config.theta_a == config.theta_b,
    }  # fmt: skip
    both = [
        (x, z) for x, z in zip(decided["adaptive"], decided["random"], strict=True)
        if x is not None and z is not None
    ]  # fmt: skip
    for k, name in enumerate(decided):
        share = float(np.mean([x is not None for x in decided[name]]))
        row[f"{name}_rejected"] = share
        row[f"{name}_rejected_se"] = float(resample.monte_carlo_se(share, n_trials))
        row[f"{name}_median_items"] = float(np.median([b[k] for b in both])) if both else np.nan
    row["ratio"] = (
        row["adaptive_median_items"] / row["random_median_items"] if both else np.nan  # type: ignore[operator]
    )
    return row


@renamed_keywords(n_simulations="n_trials")
def adaptive_study(
    configurations: Sequence[AdaptiveConfiguration] | None = None,
    *,
    n_trials: int = 200,
    horizon: int = 1000,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> AdaptiveStudyResult:
    """Run the adaptive study (see the module docstring).

    Parameters
    ----------
    configurations : sequence of AdaptiveConfiguration, optional
        The pairs to simulate (default :data:`CONFIGURATIONS`).
    n_trials : int
        Replicates per configuration.
    horizon : int
        Items followed at most (looked at after every one).
    alpha : float
        The level.
    seed : int or None
        Seed of every stream (each configuration has its own).
    jobs : int
        Processes to spread the configurations over; results do not depend on it.
    progress : callable, optional
        Called with (done, total) configurations.

    Returns
    -------
    AdaptiveStudyResult

    Examples
    --------
    >>> from evalgap.jobs.adaptive_study import AdaptiveConfiguration, adaptive_study
    >>> r = adaptive_study([AdaptiveConfiguration("far apart", 1.0, -1.0, 400)],
    ...                    n_trials=10, horizon=200)
    >>> float(r.rows["adaptive_rejected"][0]), float(r.rows["random_rejected"][0])
    (1.0, 1.0)
    """
    from evalgap.jobs.simulate import run_chunks, study_count

    alpha = float(_validate.probability(alpha, "alpha"))
    n_trials = study_count(n_trials, "n_trials")
    horizon = _validate.whole_number(horizon, "horizon", 1)
    configs = tuple(CONFIGURATIONS if configurations is None else configurations)
    if not configs:
        raise InputError("adaptive_study needs at least one configuration")
    streams = resample.child_seed(seed, "adaptive_study").spawn(len(configs))
    chunks = [
        (config, n_trials, horizon, alpha, stream)
        for config, stream in zip(configs, streams, strict=True)
    ]
    rows = run_chunks(_simulate, chunks, jobs, progress)
    return AdaptiveStudyResult(pd.DataFrame(rows), alpha, n_trials, horizon)
