"""Simulation study: do the simultaneous rank sets cover the true ranks? (``simulate
rank-coverage``)

Each replicate draws a fresh benchmark: N item difficulties ``d_i ~ N(0, 1.5^2)`` and, for
model j of ability ``a_j``, a score on item i with mean ``sigmoid(a_j - d_i)``: a Bernoulli
draw (binary) or a Beta draw of concentration 4 (graded, an LLM judge's probability). Items
are shared, so the models' scores are correlated as on a real leaderboard. Model j's true
expected score is ``theta_j = E_d sigmoid(a_j - d)`` (Gauss-Hermite quadrature, 1e-12), its
true rank ``1 + #{k : theta_k > theta_j}`` (tied abilities share a rank). A replicate covers
when every model's true rank lies in its set; the coverage's Monte Carlo SE is
``sqrt(c (1 - c) / S)`` over S replicates.

The configurations stress near-ties (abilities 0.02 apart, about half a standard error of
the gap), exact ties, few and many models, binary and graded scores, and many models on few
items, where ``method="auto"`` must take Holm's pairwise tests; the same configuration with
the bootstrap forced shows why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
import pandas as pd
from scipy import special

from evalgap._results import Result
from evalgap.errors import InputError, escape
from evalgap.jobs._inputs import renamed_keywords
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample
from evalgap.stats import ranks as rk

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from evalgap.stats._types import ArrayLike

HERMITE = np.polynomial.hermite_e.hermegauss(80)
DIFFICULTY_SD = 1.5
BETA_CONCENTRATION = 4.0


@dataclass(frozen=True)
class Configuration:
    """One simulated leaderboard: its abilities, items, score kind and method.

    Attributes
    ----------
    name : str
        The configuration's label in the study's table.
    abilities : tuple of float
        One ability ``a_j`` per model (equal abilities: tied models).
    n_items : int
        Items drawn per simulated benchmark.
    kind : {"binary", "graded"}
        Bernoulli or Beta scores.
    method : str
        The ``method`` passed to :func:`evalgap.stats.ranks.rank_sets`.
    """

    name: str
    abilities: tuple[float, ...]
    n_items: int
    kind: str = "binary"
    method: Literal["auto", "bootstrap", "holm"] = "auto"


def _blocks(k: int, step: float, size: int) -> tuple[float, ...]:
    """Abilities falling by ``step``, ``size`` models tied at each level."""
    return tuple(float(-step * (m // size)) for m in range(k))


CONFIGURATIONS = (
    Configuration("5 models, all tied, binary", (0.0,) * 5, 200),
    Configuration("10 models, all tied, binary", (0.0,) * 10, 200),
    Configuration("20 models, all tied, binary", (0.0,) * 20, 400),
    Configuration("10 models 0.1 apart, binary", tuple(np.arange(10) * -0.1), 200),
    Configuration("5 models, near-ties, binary", tuple(np.arange(5) * -0.02), 2000),
    Configuration("10 models, pairs tied, graded", _blocks(10, 0.1, 2), 1000, "graded"),
    Configuration("20 models, near-ties, binary", tuple(np.arange(20) * -0.03), 3000),
    Configuration("30 models, blocks of 3 tied, graded", _blocks(30, 0.15, 3), 2000, "graded"),
    Configuration("50 models, all tied, binary", (0.0,) * 50, 1000),
    Configuration("100 models, all tied, 500 items, binary", (0.0,) * 100, 500),
    Configuration("100 models, near-ties, 500 items, binary", tuple(np.arange(100) * -0.02), 500),
    Configuration(
        "50 models, all tied, 250 items, binary, bootstrap forced",
        (0.0,) * 50,
        250,
        method="bootstrap",
    ),
)


@dataclass(frozen=True, repr=False)
class RankCoverageResult(Study, Result):
    """Simultaneous coverage of the true rank vector per configuration.

    Attributes
    ----------
    rows : pandas.DataFrame
        Per configuration: ``configuration, n_models, n_items, kind, method, coverage,
        coverage_se, mean_width`` (average rank-set size) and ``marginal_coverage`` (share of
        (replicate, model) marginal sets holding the true rank).
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
        """Which configurations reach the nominal coverage (within 2 Monte Carlo SE)."""
        from evalgap.report.sentences import rank_coverage_verdict

        return rank_coverage_verdict(self)


    def _figure(self) -> Figure:
        from evalgap.report.plots import rank_coverage_figure

        return rank_coverage_figure(self)


def true_scores(abilities: ArrayLike) -> np.ndarray:
    """``theta_j = E_d sigmoid(a_j - d)`` with ``d ~ N(0, DIFFICULTY_SD^2)`` (quadrature)."""
    nodes, weights = HERMITE
    a = np.asarray(abilities, dtype=float)
    values = special.expit(a[:, None] - DIFFICULTY_SD * nodes[None, :])
    return values @ weights / weights.sum()


def _simulate(
    config: Configuration, n_trials: int, n_bootstrap: int, alpha: float,
    stream: np.random.SeedSequence,
) -> dict[str, object]:  # fmt: skip
    data_stream, bootstrap_stream = stream.spawn(2)
    rng = np.random.Generator(np.random.PCG64(data_stream))
    seeds = bootstrap_stream.spawn(n_trials)
    theta = true_scores(config.abilities)
    true_rank = 1 + (theta[None, :] > theta[:, None] + 1e-12).sum(axis=1)
    k = theta.size
    covered, width, marginal, methods = 0, 0.0, 0, set()
    for s in range(n_trials):
        d = rng.normal(0.0, DIFFICULTY_SD, config.n_items)
        mean = special.expit(np.asarray(config.abilities)[None, :] - d[:, None])
        if config.kind == "binary":
            x = (rng.random(mean.shape) < mean).astype(float)
        else:
            x = rng.beta(mean * BETA_CONCENTRATION, (1 - mean) * BETA_CONCENTRATION)
        sets = rk.rank_sets(
            x,
            alpha=alpha,
            n_bootstrap=n_bootstrap,
            seed=seeds[s],
            method=config.method,
        )
        methods.add(sets.method)
        inside = (sets.rank_low <= true_rank) & (true_rank <= sets.rank_high)
        covered += bool(inside.all())
        width += float((sets.rank_high - sets.rank_low + 1).mean())
        marginal += int(
            ((sets.marginal_low <= true_rank) & (true_rank <= sets.marginal_high)).sum()
        )
    coverage = covered / n_trials
    return {
        "configuration": config.name,
        "n_models": k,
        "n_items": config.n_items,
        "kind": config.kind,
        "method": " / ".join(sorted(methods)),
        "coverage": coverage,
        "coverage_se": float(resample.monte_carlo_se(coverage, n_trials)),
        "mean_width": width / n_trials,
        "marginal_coverage": marginal / (n_trials * k),
    }


@renamed_keywords(n_simulations="n_trials")
def rank_coverage(
    configurations: Sequence[Configuration] | None = None,
    *,
    n_trials: int = 200,
    n_bootstrap: int = 400,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> RankCoverageResult:
    """Run the rank-coverage study (see the module docstring).

    Parameters
    ----------
    configurations : sequence of Configuration, optional
        The leaderboards to simulate (default :data:`CONFIGURATIONS`).
    n_trials : int
        Replicates per configuration.
    n_bootstrap : int
        Bootstrap draws per replicate.
    alpha : float
        One minus the nominal level.
    seed : int or None
        Seed of the study.
    jobs : int
        Processes to spread the configurations over (the results do not depend on it).
    progress : callable, optional
        Called with ``(done, total)`` after each configuration.

    Returns
    -------
    RankCoverageResult
        Coverage, its Monte Carlo SE and the mean set size per configuration.

    Examples
    --------
    >>> from evalgap.jobs.rank_coverage import Configuration, rank_coverage
    >>> r = rank_coverage([Configuration("3 models", (0.0, -0.3, -0.6), 300)],
    ...                   n_trials=20, n_bootstrap=200)
    >>> r.rows[["n_models", "method"]].to_numpy().tolist()
    [[3, 'max-t stepdown bootstrap']]
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    from evalgap.jobs.simulate import MAX_RESAMPLES, check_batch, study_count

    n_trials = study_count(n_trials, "n_trials")
    n_bootstrap = study_count(n_bootstrap, "n_bootstrap", 1, MAX_RESAMPLES)
    if rk.MIN_TAIL_REPLICATES / alpha > MAX_RESAMPLES:  # no n_bootstrap could serve it
        raise InputError(
            "{alpha:g}"
            + escape(
                f": the rank sets need at least {rk.MIN_TAIL_REPLICATES} / alpha bootstrap "
                f"draws, more than the {MAX_RESAMPLES:,} this study runs; use "
            )
            + "{alpha="
            + f"{rk.MIN_TAIL_REPLICATES / MAX_RESAMPLES:g}"
            + "} or more",
            param="alpha",
            alpha=alpha,
        )
    # each simulated leaderboard runs its own bootstrap: the work is their product
    check_batch(n_trials, n_bootstrap, "{n_trials} x {n_bootstrap}")
    configurations = tuple(CONFIGURATIONS if configurations is None else configurations)
    if not configurations:
        raise InputError("rank_coverage needs at least one configuration")
    from evalgap.jobs.simulate import run_chunks

    streams = resample.child_seed(seed, "rank_coverage").spawn(len(configurations))
    chunks = [
        (config, n_trials, n_bootstrap, alpha, stream)
        for config, stream in zip(configurations, streams, strict=True)
    ]
    rows = run_chunks(_simulate, chunks, jobs, progress)
    return RankCoverageResult(pd.DataFrame(rows), alpha, n_trials, n_bootstrap)
