"""Variance components of a paired gap with reruns: how many items, how many runs?

Model A's score on item i in run r is ``mu_A + a_i + e_ir`` (and model B's ``mu_B + b_i +
f_ir``): ``a_i - b_i`` varies between items, the run noise ``e``, ``f`` within them. With
``K`` runs per model averaged per item, the per-item difference has variance

    Var(D_i) = sigma2_between + (sigma2_within_A + sigma2_within_B) / K,

and the gap over N items the standard error ``sqrt(Var(D_i) / N)``. More runs shrink only the
second term: when the between-item part dominates, reruns cannot help, and on a closed
benchmark (N fixed) they are the only lever.

Estimators (unbiased, one-way ANOVA, unequal runs allowed): each model's within-item variance
is the pooled run variance ``sum_i sum_r (x_ir - xbar_i)^2 / sum_i (K_i - 1)``; for binary
scores it estimates ``E[p_i (1 - p_i)]``, the per-item success probability's Bernoulli
variance. The between-item part is the variance over items of the per-item mean difference
less its expected run noise, ``S2(Dbar) - mean_i(s2_A / K_Ai + s2_B / K_Bi)`` (negative
estimates are kept, and said, so that the estimator stays unbiased).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, FloatArray, FloatOrArray, IntArray
from evalgap.stats.power import z_sum_squared


@dataclass(frozen=True)
class VarianceComponents:
    """The components of ``Var(D_i)`` (see the module docstring).

    Attributes
    ----------
    between_items : float
        ``sigma2_between``: the variance of the items' true differences.
    within_items : float
        ``sigma2_within_A + sigma2_within_B``: the run noise of one run of each model.
    within_a, within_b : float
        Each model's within-item (run) variance.
    runs_per_item : float
        The mean runs per item and model seen in the pilot.
    n_items : int
        Items in the pilot.
    delta : float
        The pilot's gap, mean of A minus mean of B.
    """

    between_items: float
    within_items: float
    within_a: float
    within_b: float
    runs_per_item: float
    n_items: int
    delta: float


def paired_components(runs_a: ArrayLike, runs_b: ArrayLike) -> VarianceComponents:
    """Estimate the components from a pilot: ``runs_a``, ``runs_b`` are (items, runs) arrays
    of each model's scores, NaN where a run is missing (at least 2 runs on some items).

    Examples
    --------
    >>> a = np.array([[1, 1], [0, 1], [0, 0], [1, 1]], dtype=float)
    >>> b = np.array([[0, 0], [0, 0], [1, 0], [1, 1]], dtype=float)
    >>> c = paired_components(a, b)
    >>> round(c.within_a, 4), round(c.within_b, 4), round(c.between_items, 4)
    (0.125, 0.125, 0.2917)
    """
    a = np.asarray(runs_a, dtype=float)
    b = np.asarray(runs_b, dtype=float)
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
        raise InputError("runs_a and runs_b must be (items, runs) arrays over the same items")
    if a.shape[0] < 2:
        raise InputError("a pilot needs at least 2 items")
    within_a, mean_a, count_a = _within(a, "runs_a")
    within_b, mean_b, count_b = _within(b, "runs_b")
    differences = mean_a - mean_b
    noise = np.mean(within_a / count_a + within_b / count_b)
    between = float(np.var(differences, ddof=1) - noise)
    return VarianceComponents(
        between_items=between,
        within_items=float(within_a + within_b),
        within_a=float(within_a),
        within_b=float(within_b),
        runs_per_item=float((count_a.mean() + count_b.mean()) / 2),
        n_items=int(a.shape[0]),
        delta=float(differences.mean()),
    )


def _within(x: FloatArray, name: str) -> tuple[float, FloatArray, IntArray]:
    observed = ~np.isnan(x)
    count = observed.sum(axis=1)
    if (count < 1).any():
        raise InputError(f"{name}: every item needs at least one run")
    if (count - 1).sum() < 1:
        raise InputError(f"{name}: no item has 2 runs, so the run-to-run variance is unknown")
    mean = np.where(observed, x, 0.0).sum(axis=1) / count
    squares = np.where(observed, (x - mean[:, None]) ** 2, 0.0).sum()
    return squares / (count - 1).sum(), mean, count


def standard_error(
    between_items: ArrayLike, within_items: ArrayLike, n_items: ArrayLike, n_runs: ArrayLike
) -> FloatOrArray:
    """The gap's standard error with ``n_items`` items and ``n_runs`` runs of each model.

    Examples
    --------
    >>> round(float(standard_error(0.2, 0.4, 1000, 4)), 5)
    0.01732
    """
    n = np.asarray(n_items, dtype=float)
    k = np.asarray(n_runs, dtype=float)
    variance = np.maximum(np.asarray(between_items) + np.asarray(within_items) / k, 0.0)
    return _validate.scalar_or_array(np.sqrt(variance / n))


def required_items(
    between_items: ArrayLike,
    within_items: ArrayLike,
    delta: float,
    n_runs: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> FloatOrArray:
    """Items needed with ``n_runs`` runs per model: ``(z_a + z_b)^2 Var(D_i) / delta^2``."""
    k = np.asarray(n_runs, dtype=float)
    variance = np.maximum(np.asarray(between_items) + np.asarray(within_items) / k, 0.0)
    delta = float(_validate.numbers(delta, "delta"))
    if delta == 0:
        raise InputError(
            "{delta!b}" + escape(" must be non-zero: no design resolves a gap of zero"),
            param="delta",
        )
    with np.errstate(over="ignore", divide="ignore"):  # a gap below ~1e-154: N is infinite
        items = np.ceil(z_sum_squared(alpha, power) * variance / delta**2)
    return _validate.scalar_or_array(items)


def runs_for_items(
    between_items: ArrayLike,
    within_items: ArrayLike,
    delta: float,
    n_items: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> FloatOrArray:
    """Runs per model needed on a fixed set of ``n_items`` items (a closed benchmark).

    Solves ``(z_a + z_b)^2 (sigma2_between + sigma2_within / K) / N = delta^2`` for K:
    ``K = sigma2_within / (N delta^2 / (z_a + z_b)^2 - sigma2_between)``, rounded up; ``inf``
    when the items alone cannot resolve ``delta`` (``N delta^2 / (z_a + z_b)^2 <=
    sigma2_between``: no number of reruns helps).

    Examples
    --------
    >>> float(runs_for_items(0.06, 0.4, 0.02, 1000))
    inf
    >>> int(runs_for_items(0.01, 0.4, 0.02, 1000))
    10
    """
    n = np.asarray(n_items, dtype=float)
    delta = float(_validate.numbers(delta, "delta"))
    if delta == 0:
        raise InputError(
            "{delta!b}" + escape(" must be non-zero: no design resolves a gap of zero"),
            param="delta",
        )
    room = n * delta**2 / z_sum_squared(alpha, power) - np.asarray(between_items, dtype=float)
    with np.errstate(divide="ignore"):
        runs = np.where(room > 0, np.asarray(within_items, dtype=float) / room, np.inf)
    return _validate.scalar_or_array(np.ceil(np.maximum(runs, 1.0)))


def design_cost(
    n_items: ArrayLike, n_runs: ArrayLike, *, cost_per_item: float, cost_per_run: float
) -> FloatOrArray:
    """The cost of N items run K times by each of the two models: ``N (c_item + 2 K c_run)``.

    ``cost_per_item`` is what adding an item costs once (writing, checking, licensing it);
    ``cost_per_run`` what one model's run on one item costs (its tokens times their price).

    Examples
    --------
    >>> float(design_cost(1000, 3, cost_per_item=0.5, cost_per_run=0.01))
    560.0
    """
    n = np.asarray(n_items, dtype=float)
    k = np.asarray(n_runs, dtype=float)
    return _validate.scalar_or_array(n * (cost_per_item + 2 * k * cost_per_run))


def optimal_runs(
    between_items: ArrayLike,
    within_items: ArrayLike,
    *,
    cost_per_item: float,
    cost_per_run: float,
) -> FloatOrArray:
    """The continuous cost-optimal runs per model, ``K* = sqrt(c_item s2_within / (2 c_run
    s2_between))``.

    Minimising ``N (c_item + 2 K c_run)`` subject to ``(s2_between + s2_within / K) / N``
    fixed (the classic two-stage allocation); the best whole K is one of the two integers
    around it. ``inf`` when the between-item component is not positive (then every rerun
    pays), 0 when runs are free of noise.

    Examples
    --------
    >>> round(float(optimal_runs(0.05, 0.4, cost_per_item=0.1, cost_per_run=0.01)), 3)
    6.325
    """
    between = np.asarray(between_items, dtype=float)
    within = np.asarray(within_items, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = cost_per_item * within / (2.0 * cost_per_run * between)
    return _validate.scalar_or_array(np.where(between > 0, np.sqrt(np.maximum(ratio, 0)), np.inf))
