"""Simulation study: the error of stopping an evaluation when `watch` says a pair is decided.

Continuous peeking is the point of a monitor: the study looks after **every** item, up to a
horizon, and counts a trial as an error when the rule ever declares a difference that is not
there. Scenarios (all under the null, the models equal):

* ``binary pair``: two binary models on paired items (a share of discordant items, each
  favouring either model with probability 1/2), the mixture e-process of Appendix C;
* ``graded pair``: two graded models (Beta(2, 3) scores), the watch's mixture of constant
  bets at mean 0 (:func:`sequential.mixture_log_e_zero`);
* ``binary family``: K equal binary models, e-BH over all K(K-1)/2 pairs at every look; the
  rule stops at the first look where e-BH rejects anything (under the global null the false
  discovery rate at that stop is the chance of stopping at all).

Each rate comes with its Monte Carlo SE. The watch decides a pair only once its e-process at
0 has reached the level (its interval must leave 0 out, :func:`sequential.sequence_bounds`),
so these rates, of the e-process at 0, bound the watch's own. The items the rule uses under an
alternative are measured by ``simulate sequential`` (calibrated to a real pair).

Given a real board (``scores=``), the study instead **replays** it (:func:`replay_study`):
e-BH over every pair, as ``watch`` applies it, in random orders of the board's items, and
counts the orders that decide, before the last item, a pair the fixed-n audit leaves
unresolved on the whole board, and the early decisions whose sign the whole board reverses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample, sequential

if TYPE_CHECKING:
    from evalgap._scores import ScoreSet

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
    scores: Any = None,
    every: int | None = None,
    n_trials: int | None = None,
    horizon: int | None = None,
    n_models: int | None = None,
    discordance: float = 0.2,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    **reading: Any,
) -> MonitoringResult | ReplayResult:
    """Run the study (see the module docstring).

    Parameters
    ----------
    scores : DataFrame, path or list, optional
        A board of 0/1 scores to replay (:func:`replay_study`) instead of the simulated
        scenarios; read with ``reading`` (``tasks``, ``options`` and column names, as every
        job reads scores).
    every : int, optional
        With ``scores``: items between looks (default 100).
    n_trials : int, optional
        Simulated evaluations per scenario (default 2,000), or with ``scores`` the item
        orders replayed (default 200).
    horizon : int, optional
        Items followed, each one a look (default 2,000; not with ``scores``).
    n_models : int, optional
        Models of the family scenario (default 6; not with ``scores``).
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
    MonitoringResult or ReplayResult

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
    from evalgap.jobs._inputs import scores_of
    from evalgap.jobs.simulate import MAX_ITEMS, check_batch, study_count

    replay = scores is not None
    for name, value in (("horizon", horizon), ("n_models", n_models), ("every", every)):
        if value is not None and (name == "every") != replay:
            raise InputError(
                "{" + name + "} is not used " + ("with {scores}" if replay else "without {scores}"),
                param=name,
            )
    if replay:
        return replay_study(
            scores_of(scores, **reading), n_orders=200 if n_trials is None else n_trials,
            every=100 if every is None else every, alpha=alpha, seed=seed, progress=progress,
        )  # fmt: skip
    if reading:
        name = next(iter(reading))
        raise InputError("{" + name + "} reads a board to replay: give {scores} too", param=name)
    n_trials = study_count(2000 if n_trials is None else n_trials, "n_trials")
    horizon = study_count(2000 if horizon is None else horizon, "horizon", 2, MAX_ITEMS)
    n_models = study_count(6 if n_models is None else n_models, "n_models", 3, 100)
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
            block = max(1, 2**22 // (horizon * sequential.THETA_GRID.size))
            errors = sum(
                int((sequential.mixture_log_e_zero(x[i : i + block]) >= threshold).any(-1).sum())
                for i in range(0, n_trials, block)
            )
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


@dataclass(frozen=True, repr=False)
class ReplayResult(Study, Result):
    """e-BH over every pair of a real board, replayed in random item orders.

    Attributes
    ----------
    rows : pandas.DataFrame
        One row per pair the fixed-n audit leaves unresolved on the whole board:
        ``task, model_a, model_b, n_items, delta`` (the whole board's), ``orders_early``
        (orders in which e-BH decides it before the last item), ``orders_opposite`` (of
        those, decided with the sign opposite to ``delta``) and ``median_first_items`` (the
        items seen at its first decision, median over the orders that decide it early).
    task : str
        The task replayed.
    n_orders, every : int
        Item orders replayed; items between looks (the last look sees every item).
    family_size : int
        Pairs under e-BH (every pair of the board).
    early_rate, early_se : float
        Share of orders that decide some unresolved pair before the last item, and its Monte
        Carlo SE.
    opposite_rate, opposite_se : float
        Share of orders that decide some unresolved pair early with the sign opposite to
        the whole board's gap.
    early_decisions, opposite_decisions : int
        Over every pair and order: first early decisions, and those whose sign the whole
        board reverses.
    alpha : float
        The false discovery rate of e-BH.
    """

    rows: pd.DataFrame
    task: str
    n_orders: int
    every: int
    family_size: int
    early_rate: float
    early_se: float
    opposite_rate: float
    opposite_se: float
    early_decisions: int
    opposite_decisions: int
    alpha: float
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)
    _headline: ClassVar[tuple[str, ...]] = ("n_orders", "early_rate", "opposite_rate")

    def to_frame(self) -> pd.DataFrame:
        """Return the rows."""
        return self.rows.copy()

    @property
    def verdict(self) -> str:
        """What the replay found, in one sentence."""
        share = f"{self.early_rate:.3f} (SE {self.early_se:.3f})"
        return (
            f"replaying {self.task} in {self.n_orders:,} random item orders (a look every "
            f"{self.every:,} items, e-BH over its {self.family_size:,} pairs at alpha="
            f"{self.alpha:g}): {share} of the orders decide one of the {len(self.rows):,} "
            f"pairs the fixed-n audit leaves unresolved before the last item, "
            f"{self.opposite_rate:.3f} (SE {self.opposite_se:.3f}) with the sign opposite to "
            f"the whole board's gap; of {self.early_decisions:,} early decisions over every "
            f"pair, {self.opposite_decisions:,} have the sign the whole board reverses"
        )


def replay_study(
    board: ScoreSet,
    *,
    n_orders: int = 200,
    every: int = 100,
    alpha: float = 0.05,
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayResult:
    """Replay a board of 0/1 scores in random item orders through e-BH, as ``watch`` decides.

    Each order is a seeded permutation of the task's items; at every ``every``-th item (and
    the last) every pair's counts over the items both models have scored so far give its
    evidence (:func:`sequential.mixture_evidence_counts`, the watch's own) and e-BH over
    all pairs decides (:func:`sequential.e_bh`). The pairs the fixed-n audit leaves
    unresolved on the whole board (``|T| < z_{1-alpha/2} + z_{1-beta}`` at power 0.8, as
    the audit's ``resolved_fixed_n``) are followed.
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    from evalgap.jobs.simulate import study_count

    n_orders = study_count(n_orders, "n_trials")
    every = study_count(every, "every", 1, 10**9)
    if len(board.tasks) != 1:
        raise InputError(
            "{scores}: the replay follows one task; choose it with {tasks}", param="scores"
        )
    task = board.tasks[0]
    x = np.asarray(task.scores, dtype=float)
    if not np.isin(x[~np.isnan(x)], (0.0, 1.0)).all():
        raise InputError("{scores}: the replay needs 0/1 scores", param="scores")
    first, second = np.triu_indices(x.shape[1], 1)
    if not first.size:
        raise InputError("{scores}: the replay needs two models or more", param="scores")
    both = ~np.isnan(x[:, first]) & ~np.isnan(x[:, second])
    d = np.nan_to_num(x)[:, first] - np.nan_to_num(x)[:, second]
    cells = [(both & (d > 0)).astype(np.int32), (both & (d < 0)).astype(np.int32),
             (both & (d == 0)).astype(np.int32)]  # fmt: skip
    total = [c.sum(axis=0) for c in cells]
    both_correct = (both & (np.nan_to_num(x)[:, first] + np.nan_to_num(x)[:, second] == 2)).sum(0)
    unresolved = _unresolved(total[0], total[1], total[2], both_correct, alpha)
    sign = np.sign(total[0] - total[1])
    looks = np.unique(np.append(np.arange(every, x.shape[0], every), x.shape[0]))
    early = np.zeros((n_orders, first.size), dtype=bool)
    opposite = np.zeros_like(early)
    first_items = np.full(early.shape, np.nan)
    for k, stream in enumerate(resample.seed_sequence(seed).spawn(n_orders)):
        order = np.random.Generator(np.random.PCG64(stream)).permutation(x.shape[0])
        decided, counts = order_decisions(cells, order, looks[:-1], alpha)
        for t in range(len(looks) - 1):
            new = decided[t] & ~early[k]
            early[k] |= decided[t]
            first_items[k, new] = counts[t].sum(axis=0)[new]
            opposite[k, new] = np.sign(counts[t][0] - counts[t][1])[new] == -sign[new]
        if progress is not None:
            progress(k + 1, n_orders)
    names = board.models
    rows = pd.DataFrame(
        {
            "task": task.task,
            "model_a": [names[i] for i in first[unresolved]],
            "model_b": [names[j] for j in second[unresolved]],
            "n_items": sum(v[unresolved] for v in total),
            "delta": (total[0] - total[1])[unresolved] / np.maximum(sum(total)[unresolved], 1),
            "orders_early": early[:, unresolved].sum(axis=0),
            "orders_opposite": opposite[:, unresolved].sum(axis=0),
            "median_first_items": [
                float(np.nanmedian(v)) if np.isfinite(v).any() else np.nan
                for v in first_items[:, unresolved].T
            ],
        }
    )
    early_rate = float(early[:, unresolved].any(axis=1).mean())
    opposite_rate = float(opposite[:, unresolved].any(axis=1).mean())
    return ReplayResult(
        rows, str(task.task), n_orders, every, int(first.size),
        early_rate, float(resample.monte_carlo_se(early_rate, n_orders)),
        opposite_rate, float(resample.monte_carlo_se(opposite_rate, n_orders)),
        int(early.sum()), int(opposite.sum()), alpha,
    )  # fmt: skip


def order_decisions(
    cells: list[np.ndarray], order: np.ndarray, looks: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """e-BH's decisions over every pair at each look of one item order, as ``watch`` makes
    them: ``(decided, counts)``, ``decided[t, pair]`` and ``counts[t] = (a_only, b_only,
    ties)`` per pair over the first ``looks[t]`` items of ``order``. ``cells`` holds the
    three per-item indicators (items x pairs) of the pairs' shared items."""
    counts = np.stack([np.cumsum(c[order], axis=0)[looks - 1] for c in cells], axis=1)
    floor, ceiling = -np.log(alpha), np.log(counts.shape[-1] / alpha)
    grid = sequential.mean_grid()
    decided = np.zeros((len(looks), counts.shape[-1]), dtype=bool)
    for t, (b, c, z) in enumerate(counts):
        evidence = sequential.mixture_evidence_counts(b, c, z, grid, floor, ceiling)
        decided[t] = sequential.e_bh(np.exp(np.minimum(evidence, 700.0)), alpha)
    return decided, counts


def _unresolved(
    a_only: np.ndarray, b_only: np.ndarray, ties: np.ndarray, both_correct: np.ndarray,
    alpha: float,
) -> Any:  # fmt: skip
    """The pairs the fixed-n audit leaves unresolved: its ``resolved_fixed_n`` (one test at
    alpha, power 0.8, on the pair's shared items), from the pairs' 0/1 counts."""
    from evalgap.jobs.pair_tests import pair_tests
    from evalgap.stats import multiplicity

    n = a_only + b_only + ties
    delta = (a_only - b_only) / np.maximum(n, 1)
    second = (a_only + b_only) / np.maximum(n, 1)
    tested = pair_tests(
        binary=np.ones(n.size, dtype=bool), n_items=n, delta=delta,
        sd_diff=np.sqrt(np.maximum(second - delta**2, 0.0)), a_only=a_only, b_only=b_only,
        both_correct=both_correct, both_wrong=ties - both_correct, alpha=alpha, power=0.8,
    )  # fmt: skip
    resolved = multiplicity.resolved_single_step(tested.statistic, alpha, 0.8, 1)
    return ~(resolved & tested.resolved)
