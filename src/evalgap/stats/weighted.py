"""The weighted (survey-sampling) estimate of a paired gap, for items drawn with unequal
probabilities.

When the items run are a sample of a benchmark drawn with inclusion probabilities
``pi_i`` (a stratified design that favours items likely to separate the two models), each
item's difference ``d_i`` carries the weight ``w_i = 1 / pi_i`` and the full benchmark's
gap is estimated by the weighted (Hajek) mean

    delta_w = sum_i w_i d_i / sum_i w_i,

which is the Horvitz-Thompson estimator when the weights sum to the benchmark's size (as a
stratified design's ``N_h / n_h`` do). Its variance is the linearized (Taylor) survey
variance of a ratio, with ``e_i = w_i (d_i - delta_w)``:

* without strata (with-replacement approximation), ``n / (n - 1) sum_i e_i^2 / W^2``;
* with strata h, ``sum_h (1 - f_h) n_h / (n_h - 1) sum_{i in h} (e_i - ebar_h)^2 / W^2``,
  with the sampling fraction ``f_h = n_h / sum_{i in h} w_i`` (the finite-population
  correction; 0 when the weights say the stratum was sampled with replacement).

``W = sum_i w_i``. The test is the Wald z-test of ``delta_w = 0`` (*Resolution Diagnostics*
Eq. 1 with this SE in place of ``sigma_D / sqrt(N)``), and the items a design like this one
needs at (alpha, power) are ``n (z_{1-alpha/2} + z_{power})^2 se^2 / delta^2`` (Eq. 3 with the
design's variance per item, ``n se^2``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import intervals
from evalgap.stats.power import z_sum_squared
from evalgap.stats.tests import wald_p_value


@dataclass(frozen=True)
class WeightedGap:
    """The weighted gap and its design-based standard error (see the module docstring).

    Attributes
    ----------
    delta : float
        The weighted (Hajek / Horvitz-Thompson) gap.
    se : float
        Its linearized standard error.
    statistic, p_value : float
        The Wald z and its two-sided p-value.
    ci_low, ci_high : float
        The ``1 - alpha`` Wald interval.
    n_items : int
        Items in the sample.
    weight_sum : float
        ``W``, the population the weights stand for.
    effective_n : float
        Kish's effective sample size ``W^2 / sum w^2``.
    required_n : float
        Items this design needs to resolve ``delta`` at (alpha, power); inf at delta = 0.
    """

    delta: float
    se: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    n_items: int
    weight_sum: float
    effective_n: float
    required_n: float


def weighted_gap(differences, weights, strata=None, *, alpha=0.05, power=0.8) -> WeightedGap:
    """Estimate the gap of a weighted sample of items, with its design-based SE and test.

    Parameters
    ----------
    differences : array_like
        Per-item differences ``d_i`` (A minus B).
    weights : array_like
        Positive weights ``w_i = 1 / pi_i``.
    strata : array_like, optional
        A stratum label per item (at least 2 items per stratum).
    alpha, power : float
        The interval's level and the power of ``required_n``.

    Returns
    -------
    WeightedGap

    Examples
    --------
    Two strata of a 1,000-item benchmark: 600 easy items sampled 20 (weight 30), 400 hard
    ones sampled 40 (weight 10):

    >>> d = np.r_[np.zeros(18), 1, -1, np.tile([1, 0, 0, -1, 1], 8)]
    >>> w = np.r_[np.full(20, 30.0), np.full(40, 10.0)]
    >>> g = weighted_gap(d, w, strata=np.r_[np.zeros(20), np.ones(40)])
    >>> round(g.delta, 4), round(g.se, 4), g.weight_sum
    (0.08, 0.0624, 1000.0)
    """
    d = np.asarray(differences, dtype=float)
    w = np.asarray(weights, dtype=float)
    if d.ndim != 1 or w.shape != d.shape:
        raise InputError("differences and weights must be 1-D arrays of the same length")
    if d.size < 2:
        raise InputError("a weighted gap needs at least 2 items")
    if not np.isfinite(d).all():
        raise InputError("differences must be finite numbers")
    if not (np.isfinite(w).all() and (w > 0).all()):
        bad = int((~(np.isfinite(w) & (w > 0))).sum())
        raise InputError(f"{bad:,} weight(s) are not positive finite numbers; weights are 1/pi")
    total = w.sum()
    delta = float((w * d).sum() / total)
    e = w * (d - delta)
    if strata is None:
        n = d.size
        variance = n / (n - 1) * (e**2).sum() / total**2
    else:
        labels, codes = np.unique(np.asarray(strata), return_inverse=True)
        n_h = np.bincount(codes, minlength=labels.size).astype(float)
        if (n_h < 2).any():
            small = labels[n_h < 2][0]
            raise InputError(f"stratum {small!r} has 1 item; a stratum's variance needs at least 2")
        sum_e = np.bincount(codes, weights=e, minlength=labels.size)
        sum_e2 = np.bincount(codes, weights=e**2, minlength=labels.size)
        within = sum_e2 - sum_e**2 / n_h  # sum_{i in h} (e_i - ebar_h)^2
        w_h = np.bincount(codes, weights=w, minlength=labels.size)
        fpc = np.clip(1.0 - n_h / w_h, 0.0, 1.0)
        variance = float((fpc * n_h / (n_h - 1) * within).sum() / total**2)
    se = float(np.sqrt(variance))
    z = float(intervals.z_quantile(alpha))
    if se > 0:
        statistic = delta / se
    else:
        statistic = float(np.sign(delta) * np.inf) if delta else 0.0
    p_value = float(wald_p_value(statistic))
    with np.errstate(divide="ignore"):
        required = d.size * z_sum_squared(alpha, power) * variance / delta**2 if delta else np.inf
    return WeightedGap(
        delta=delta,
        se=se,
        statistic=float(statistic),
        p_value=p_value,
        ci_low=delta - z * se,
        ci_high=delta + z * se,
        n_items=int(d.size),
        weight_sum=float(total),
        effective_n=float(total**2 / (w**2).sum()),
        required_n=float(np.ceil(required)) if np.isfinite(required) else np.inf,
    )
