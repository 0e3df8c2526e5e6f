"""Stratified item sampling for one pair: predict where two models disagree, sample there.

A benchmark's full gap ``delta = mean_j d_j`` (``d_j = y_Aj - y_Bj``, N items) can be
estimated from a sample. Simple random sampling (SRS) of n items has variance
``(1 - n/N) S^2 / n`` with ``S^2`` the items' variance of ``d``. Most of that variance sits
on the items where the two models may disagree; items both surely solve (or both surely
fail) carry almost none. A stratified design spends the items where the variance is:

1. **Predict each item's difference.** A two-parameter logistic IRT model fitted on a
   reference matrix of earlier models (``P(y_ij = 1) = expit(a_j theta_i + c_j)``,
   slope-intercept form, joint maximum likelihood with ridge penalties; see
   :func:`fit_2pl`) gives, for each model of the pair, a success probability ``p_j`` per
   item -- from the model's own responses when it is in the reference, else from its
   expected accuracy (:func:`ability_for_accuracy`). With the two models conditionally
   independent given the item, ``d_j`` has mean ``mu_j = p_Aj - p_Bj`` and variance
   ``v_j = p_Aj + p_Bj - 2 p_Aj p_Bj - mu_j^2`` (:func:`difference_moments`).
   IRT rather than a plain per-item discordance rate, because the pair is usually not in
   the reference: a discordance rate needs the pair's own responses, whereas the 2PL
   carries each item's difficulty and discrimination over to any ability.
2. **Strata** by quantiles of the predicted SD ``sqrt(v_j)`` (:func:`quantile_strata`).
3. **Neyman allocation** ``n_h proportional to N_h S_h`` with ``S_h^2`` the predicted
   variance of ``d`` within stratum h, ``mean(v_j) + var(mu_j)`` (:func:`neyman_allocation`;
   at least 2 items per stratum, at most ``N_h``).
4. **Sample** ``n_h`` items without replacement in each stratum; weight ``N_h / n_h``
   (:func:`draw`). The weighted (Horvitz-Thompson) mean is exactly design-unbiased for the
   full gap whatever the model predicted -- a poor prediction costs efficiency, never bias
   -- and :func:`evalgap.stats.weighted.weighted_gap` gives its SE with the per-stratum
   finite-population correction.

The predicted variance of the stratified estimator is
``sum_h W_h^2 (1 - n_h/N_h) S_h^2 / n_h`` (``W_h = N_h/N``; :func:`stratified_variance`),
and the items it needs for a target variance ``V = delta^2 / (z_{1-alpha/2} + z_power)^2``
(*Resolution Diagnostics* Eq. 3 with the design's variance) are, under Neyman allocation,
``n = (sum_h W_h S_h)^2 / (V + sum_h W_h S_h^2 / N)``, against SRS's
``n = S^2 / (V + S^2 / N)`` (:func:`items_needed`). Both are predictions of a model; only
the repeated-sampling validation on held-back pairs measures what a design really saves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from evalgap.errors import InputError, escape
from evalgap.stats._types import ArrayLike, FloatArray, IntArray
from evalgap.stats.power import z_sum_squared

DEFAULT_STRATA = 6
MIN_PER_STRATUM = 2


@dataclass(frozen=True)
class IRTFit:
    """A 2PL fit: ``P(y_ij = 1) = expit(slope_j * ability_i + intercept_j)``.

    Attributes
    ----------
    ability : ndarray
        Per model, standardized to mean 0 and SD 1 over the fitted models.
    slope, intercept : ndarray
        Per item: discrimination ``a_j`` and intercept ``c_j`` (difficulty ``-c_j / a_j``).
    n_iter : int
        Alternating Newton sweeps run.
    converged : bool
        Whether the largest parameter change fell below the tolerance.
    """

    ability: FloatArray
    slope: FloatArray
    intercept: FloatArray
    n_iter: int
    converged: bool

    def probabilities(self, ability: ArrayLike) -> FloatArray:
        """Success probability of each item at ``ability`` (scalar or array of models)."""
        return success_probability(ability, self.slope, self.intercept)


def success_probability(ability: ArrayLike, slope: ArrayLike, intercept: ArrayLike) -> FloatArray:
    """``expit(slope * ability + intercept)``, models in rows when ``ability`` is an array."""
    theta = np.asarray(ability, dtype=float)
    return expit(np.multiply.outer(theta, slope) + intercept)


def fit_2pl(
    responses: ArrayLike,
    *,
    slope_ridge: float = 1.0,
    intercept_ridge: float = 0.1,
    max_iter: int = 200,
    tol: float = 1e-6,
) -> IRTFit:
    """Fit a two-parameter logistic IRT model by penalized joint maximum likelihood.

    Alternating vectorized Newton steps: every item's (slope, intercept) at once (a 2x2
    Newton system per item, with ridge penalties ``slope_ridge (a_j - 1)^2 / 2`` and
    ``intercept_ridge c_j^2 / 2`` that keep items seen by few models finite), then every
    model's ability; abilities are re-standardized after each sweep (the 2PL's scale is
    not identified), with the items' parameters transformed so the fit is unchanged.

    Parameters
    ----------
    responses : array_like
        Models x items, 1 correct, 0 wrong, NaN not scored (graded scores in [0, 1] enter
        as fractional successes).
    slope_ridge, intercept_ridge : float
        Penalty strengths (0 for plain maximum likelihood).
    max_iter : int
        Most sweeps.
    tol : float
        Convergence: the largest change of any parameter in a sweep.

    Returns
    -------
    IRTFit

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.normal(size=40)
    >>> a, c = rng.uniform(0.5, 2, 3000), rng.normal(size=3000)
    >>> y = (rng.random((40, 3000)) < success_probability(theta, a, c)).astype(float)
    >>> fit = fit_2pl(y)
    >>> bool(np.corrcoef(fit.ability, theta)[0, 1] > 0.99), fit.converged
    (True, True)
    """
    y = np.asarray(responses, dtype=float)
    if y.ndim != 2:
        raise InputError("responses must be a models x items matrix")
    seen = ~np.isnan(y)
    if y.shape[0] < 3:
        raise InputError(f"an IRT fit needs at least 3 reference models; got {y.shape[0]}")
    y = np.where(seen, y, 0.0)
    if ((y < 0) | (y > 1)).any():
        raise InputError("responses must be scores in [0, 1]")
    mask = seen.astype(float)
    counts = mask.sum(axis=1)
    if (counts == 0).any():
        raise InputError("every reference model needs at least one scored item")
    accuracy = y.sum(axis=1) / counts
    spread = accuracy.std()
    theta = (accuracy - accuracy.mean()) / (spread if spread > 0 else 1.0)
    a = np.ones(y.shape[1])
    c = np.zeros(y.shape[1])
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        old = np.concatenate([theta, a, c])
        p = expit(np.outer(theta, a) + c)
        r, w = (y - p) * mask, p * (1 - p) * mask
        grad_a = theta @ r - slope_ridge * (a - 1)
        grad_c = r.sum(axis=0) - intercept_ridge * c
        h_aa = (theta**2) @ w + slope_ridge
        h_cc = w.sum(axis=0) + intercept_ridge
        h_ac = theta @ w
        det = h_aa * h_cc - h_ac**2
        a = a + (h_cc * grad_a - h_ac * grad_c) / det
        c = c + (h_aa * grad_c - h_ac * grad_a) / det
        p = expit(np.outer(theta, a) + c)
        r, w = (y - p) * mask, p * (1 - p) * mask
        theta = theta + (r @ a - 0.01 * theta) / (w @ a**2 + 0.01)
        mean, sd = theta.mean(), theta.std()
        sd = sd if sd > 0 else 1.0
        theta = (theta - mean) / sd
        c = c + a * mean
        a = a * sd
        if np.abs(np.concatenate([theta, a, c]) - old).max() < tol:
            converged = True
            break
    return IRTFit(ability=theta, slope=a, intercept=c, n_iter=n_iter, converged=converged)


def ability_for_accuracy(accuracy: float, slope: ArrayLike, intercept: ArrayLike) -> float:
    """The ability whose expected accuracy over the items is ``accuracy``.

    ``mean_j expit(a_j theta + c_j)`` increases in theta when the mean slope is positive;
    solved by bisection to machine precision.

    Examples
    --------
    >>> a, c = np.ones(4), np.array([-1.0, 0.0, 0.5, 2.0])
    >>> theta = ability_for_accuracy(0.6, a, c)
    >>> round(float(success_probability(theta, a, c).mean()), 12)
    0.6
    """
    target = float(accuracy)
    if not 0 < target < 1:
        raise InputError(f"an expected accuracy must lie strictly between 0 and 1; got {target}")
    lo, hi = -50.0, 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if success_probability(mid, slope, intercept).mean() < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    return 0.5 * (lo + hi)


def difference_moments(p_a: FloatArray, p_b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Mean and variance of ``d_j = y_Aj - y_Bj`` for independent Bernoulli scores.

    Returns ``(mu, v)`` with ``mu = p_a - p_b`` and
    ``v = P(disagree) - mu^2 = p_a + p_b - 2 p_a p_b - mu^2``.

    Examples
    --------
    >>> difference_moments(np.array([0.5, 1.0]), np.array([0.5, 0.0]))
    (array([0., 1.]), array([0.5, 0. ]))
    """
    pa = np.asarray(p_a, dtype=float)
    pb = np.asarray(p_b, dtype=float)
    mu = pa - pb
    return mu, np.clip(pa + pb - 2 * pa * pb - mu**2, 0.0, None)


def quantile_strata(score: ArrayLike, n_strata: int = DEFAULT_STRATA) -> IntArray:
    """Stratum labels 0..H-1 by quantiles of ``score`` (ties kept together; empty strata
    merged, so fewer than ``n_strata`` may come back).

    Examples
    --------
    >>> quantile_strata(np.arange(10.0), 2)
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """
    s = np.asarray(score, dtype=float)
    if n_strata < 1:
        raise InputError("{n_strata!b}" + escape(" must be at least 1"), param="n_strata")
    edges = np.quantile(s, np.linspace(0, 1, n_strata + 1)[1:-1])
    raw = np.searchsorted(edges, s, side="right")
    _, labels = np.unique(raw, return_inverse=True)
    return labels


def stratum_variances(
    mu: ArrayLike, v: ArrayLike, strata: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Per stratum: its size ``N_h`` and predicted variance ``S_h^2 = mean(v) + var(mu)``."""
    mu = np.asarray(mu, dtype=float)
    v = np.asarray(v, dtype=float)
    labels = np.asarray(strata)
    k = int(labels.max()) + 1
    size = np.bincount(labels, minlength=k).astype(float)
    mean_mu = np.bincount(labels, weights=mu, minlength=k) / size
    var_mu = np.bincount(labels, weights=mu**2, minlength=k) / size - mean_mu**2
    return size, np.bincount(labels, weights=v, minlength=k) / size + np.clip(var_mu, 0, None)


def neyman_allocation(
    sizes: ArrayLike, sds: ArrayLike, n_items: int, minimum: int = MIN_PER_STRATUM
) -> IntArray:
    """Integer Neyman allocation ``n_h ~ N_h S_h`` of ``n_items``, each in [minimum, N_h].

    The optimum of ``sum_h N_h^2 S_h^2 / n_h`` under these bounds is ``n_h = clip(lambda N_h
    S_h, minimum, N_h)`` with ``lambda`` set so the sizes sum to ``n_items`` (strata asking
    for more than they hold are taken whole, the rest re-allocated); strata with no predicted
    spread keep their minimum until every other stratum is whole, then share the rest by
    size. Rounding by largest remainders, so the allocation sums to ``n_items`` exactly.

    Examples
    --------
    Cochran's textbook case, sizes 400 / 300 / 300 and SDs 5 / 15 / 10, n = 100:

    >>> neyman_allocation([400, 300, 300], [5.0, 15.0, 10.0], 100)
    array([21, 47, 32])
    """
    size = np.asarray(sizes, dtype=float)
    sd = np.asarray(sds, dtype=float)
    n = int(n_items)
    floor = np.minimum(size, minimum)
    if n > size.sum():
        raise InputError(
            "{n_items:,}" + escape(f" exceeds the {int(size.sum()):,} items there are"),
            param="n_items",
            n_items=n,
        )
    if n < floor.sum():
        raise InputError(
            "{n_items:,}"
            + escape(
                f" is too few for {size.size} strata of at least {minimum} items; give at "
                f"least {int(floor.sum()):,} or fewer strata"
            ),
            param="n_items",
            n_items=n,
        )
    share = size * sd
    if share.sum() <= 0:
        share = size.copy()
    spread = share > 0
    full = np.where(spread, size, floor)  # every stratum with spread taken whole
    if n <= full.sum():
        alloc = _fill(share, floor, size, n)
    else:
        alloc = full
        alloc[~spread] = _fill(size[~spread], floor[~spread], size[~spread], n - size[spread].sum())
    whole = np.minimum(np.floor(alloc + 1e-9), size).astype(int)
    remainder = n - whole.sum()
    if remainder > 0:
        room = np.flatnonzero(whole < size)
        order = room[np.argsort(-(alloc - whole)[room], kind="stable")]
        whole[order[:remainder]] += 1
    return whole


def _fill(weight: FloatArray, low: FloatArray, high: FloatArray, total: float) -> FloatArray:
    """``clip(lambda * weight, low, high)`` summing to ``total``.

    The sum is piecewise linear in ``lambda`` with kinks where a stratum reaches a bound
    (``low / weight``, ``high / weight``): found between two kinks, then solved exactly.
    """
    positive = weight > 0
    if not positive.any():
        return low.astype(float)
    kinks = np.unique(
        np.concatenate([low[positive], high[positive]]) / np.tile(weight[positive], 2)
    )
    sums = np.clip(np.multiply.outer(kinks, weight), low, high).sum(axis=1)
    i = int(np.searchsorted(sums, total - 1e-9 * max(total, 1.0)))
    if i == 0:
        lam = kinks[0]
    elif i == kinks.size:
        lam = kinks[-1]
    else:
        lam = kinks[i - 1] + (total - sums[i - 1]) * (kinks[i] - kinks[i - 1]) / (
            sums[i] - sums[i - 1]
        )
    return np.clip(lam * weight, low, high)


def stratified_variance(sizes: ArrayLike, allocation: ArrayLike, variances: ArrayLike) -> float:
    """``sum_h W_h^2 (1 - n_h/N_h) S_h^2 / n_h``: the stratified mean's variance."""
    size = np.asarray(sizes, dtype=float)
    n_h = np.asarray(allocation, dtype=float)
    s2 = np.asarray(variances, dtype=float)
    share = size / size.sum()
    return float((share**2 * (1 - n_h / size) * s2 / n_h).sum())


def items_needed(
    sizes: ArrayLike,
    variances: ArrayLike,
    population_variance: float,
    delta: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> tuple[float, float]:
    """Items resolving ``delta`` at (alpha, power): Neyman-stratified, and SRS.

    Parameters
    ----------
    sizes, variances : array_like
        Per stratum, ``N_h`` and the (predicted) ``S_h^2``.
    population_variance : float
        ``S^2`` of all N items (for SRS; it adds the spread of the strata's means).
    delta : float
        The gap to resolve.
    alpha, power : float
        Two-sided level and power.

    Returns
    -------
    (float, float)
        ``n`` for the stratified design and for SRS (real numbers; round up to use them).

    Examples
    --------
    Half the items nearly settled (S^2 = 0.01), half a coin flip (S^2 = 0.49):

    >>> n_design, n_srs = items_needed([500, 500], [0.01, 0.49], 0.25, 0.05)
    >>> round(n_design), round(n_srs)
    (281, 440)
    """
    size = np.asarray(sizes, dtype=float)
    s2 = np.asarray(variances, dtype=float)
    total = size.sum()
    share = size / total
    target = target_variance(delta, alpha=alpha, power=power)
    design = (share * np.sqrt(s2)).sum() ** 2 / (target + (share * s2).sum() / total)
    s2_all = float(population_variance)
    return float(design), float(s2_all / (target + s2_all / total))


def target_variance(delta: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The estimator's variance that resolves ``delta``: ``delta^2 / (z_{1-alpha/2} + z_power)^2``
    (*Resolution Diagnostics* Eq. 3 solved for the variance of the gap)."""
    return float(delta) ** 2 / float(z_sum_squared(alpha, power))


def items_for_variance(
    sizes: ArrayLike,
    variances: ArrayLike,
    target: float,
    start: int = 1,
    minimum: int = MIN_PER_STRATUM,
) -> int:
    """The fewest items ``n >= start`` whose integer Neyman allocation reaches ``target``.

    :func:`items_needed` is the continuous optimum; the whole allocation of
    :func:`neyman_allocation` (rounded, at least ``minimum`` and at most ``N_h`` per stratum)
    has a variance at or above it, so the continuous ``n`` rounded up can fall short of the
    target. This searches upwards from ``start`` (doubling steps, then bisection) for an ``n``
    whose :func:`stratified_variance` is at most ``target``; the whole benchmark (variance 0)
    always reaches it. A handful of allocations are computed, whatever the benchmark's size.

    Examples
    --------
    :func:`items_needed`'s example, 281.4 items: 282 reach the target, 281 do not.

    >>> sizes, s2, target = np.array([500.0, 500.0]), np.array([0.01, 0.49]), target_variance(0.05)
    >>> items_for_variance(sizes, s2, target, start=281)
    282
    """
    size = np.asarray(sizes, dtype=float)
    s2 = np.asarray(variances, dtype=float)
    sd = np.sqrt(s2)
    total = int(size.sum())
    low = min(total, max(int(start), int(np.minimum(size, minimum).sum())))

    def reaches(n: int) -> bool:
        return stratified_variance(size, neyman_allocation(size, sd, n, minimum), s2) <= target

    if reaches(low):
        return low
    failed, step = low, 1
    while True:
        n = min(low + step, total)
        if n == total or reaches(n):
            break
        failed, step = n, 2 * step
    while n - failed > 1:
        middle = (failed + n) // 2
        if reaches(middle):
            n = middle
        else:
            failed = middle
    return n


def draw(
    strata: ArrayLike, allocation: ArrayLike, rng: np.random.Generator
) -> tuple[IntArray, FloatArray]:
    """Sample ``allocation[h]`` items of stratum h without replacement.

    Returns the chosen items' indices (sorted) and their weights ``N_h / n_h``.
    """
    labels = np.asarray(strata)
    n_h = np.asarray(allocation, dtype=int)
    size = np.bincount(labels, minlength=n_h.size)
    keys = rng.random(labels.size)
    order = np.lexsort((keys, labels))  # within each stratum a random order
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    rank = np.empty(labels.size, dtype=int)
    rank[order] = np.arange(labels.size) - np.repeat(start, size)
    chosen = np.flatnonzero(rank < n_h[labels])
    return chosen, (size / n_h)[labels[chosen]]
