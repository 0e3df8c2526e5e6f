"""Multiplicity: family-wise (Bonferroni, Sidak, Holm) and false-discovery (BH, BY) control.

Two uses (Resolution Diagnostics, Section 3 "Paired variance and multiplicity" and 6.3):

* **Resolution under a procedure.** A pair is resolved at level alpha' when its Wald
  statistic clears ``z_{1-alpha'/2} + z_{1-beta}`` (Definition 1 with alpha' in Equation 3),
  i.e. ``q' = T^2 / (z_{1-alpha'/2} + z_{1-beta})^2 >= 1``. Single-step procedures give every
  pair the same alpha' (Bonferroni ``alpha/m``, Sidak ``1 - (1-alpha)^(1/m)``), which
  multiplies every N* by the same :func:`inflation`. Holm is step-down and Benjamini-Hochberg
  step-up on ``|T|``: the pair ranked k-th by ``|T|`` gets level ``alpha/(m-k+1)`` (Holm) or
  ``k alpha/m`` (BH), with the usual stopping rules (:func:`resolved_holm`, :func:`resolved_bh`).
* **Adjusted p-values** for reporting (:func:`adjust_p_values`), the textbook versions.

All functions take arrays over the pairs of one family; ``family_size`` m may exceed the
number of pairs given (a declared family larger than what is displayed).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _validate, intervals
from evalgap.stats._types import (
    Alternative,
    ArrayLike,
    BoolArray,
    FloatArray,
    FloatOrArray,
    IntArray,
)

SingleStep = Literal["bonferroni", "sidak"]
Adjustment = Literal["bonferroni", "sidak", "holm", "bh", "by"]

METHODS = ("bonferroni", "sidak", "holm", "bh", "by")


def per_pair_alpha(
    alpha: ArrayLike, family_size: int, method: SingleStep = "bonferroni"
) -> FloatOrArray:
    """Return the single-step per-comparison level: ``alpha/m`` or ``1 - (1 - alpha)^(1/m)``."""
    alpha = _validate.probability(alpha, "alpha")
    m = _family_size(family_size)
    if method == "bonferroni":
        return _validate.scalar_or_array(alpha / m)
    if method == "sidak":
        return _validate.scalar_or_array(-np.expm1(np.log1p(-alpha) / m))
    raise InputError(f"per_pair_alpha takes 'bonferroni' or 'sidak'; got {method!r}")


def inflation(
    alpha: ArrayLike = 0.05,
    power: ArrayLike = 0.8,
    family_size: int = 1,
    method: SingleStep = "bonferroni",
) -> FloatOrArray:
    """Return the factor by which a single-step procedure multiplies every N*.

    ``((z_{1-alpha'/2} + z_{1-beta}) / (z_{1-alpha/2} + z_{1-beta}))^2``; 2.14 for Bonferroni
    with m = 45 and 2.11 with m = 40 at (0.05, 0.8) (Sections 6.2-6.3).
    """
    adjusted = per_pair_alpha(alpha, family_size, method)
    base = resolution_threshold(alpha, power)
    return _validate.scalar_or_array((resolution_threshold(adjusted, power) / base) ** 2)


def resolution_threshold(
    alpha_per_pair: ArrayLike, power: ArrayLike = 0.8, alternative: Alternative = "two-sided"
) -> FloatArray:
    """Return ``z_{1-alpha'/2} + z_{1-beta}``: the |T| a pair must reach to be resolved
    (``z_{1-alpha'}`` one-sided: the line ``q = 1`` of Definition 1).

    The quantile is taken from the tail (``-ndtri(alpha'/2)``): per-pair levels of large
    families are far below 1e-16, where ``1 - alpha'/2`` rounds to 1.
    """
    return intervals.z_quantile(alpha_per_pair, alternative) + special.ndtri(
        _validate.probability(power, "power")
    )


def resolved_single_step(
    statistic: ArrayLike,
    alpha: ArrayLike = 0.05,
    power: ArrayLike = 0.8,
    family_size: int = 1,
    method: SingleStep = "bonferroni",
) -> BoolArray:
    """Return which pairs are resolved at the single-step level of ``method``."""
    level = per_pair_alpha(alpha, family_size, method)
    return np.abs(np.asarray(statistic, dtype=float)) >= resolution_threshold(level, power)


def resolved_holm(
    statistic: ArrayLike,
    alpha: float = 0.05,
    power: float = 0.8,
    family_size: int | None = None,
    *,
    order: IntArray | None = None,
) -> BoolArray:
    """Return which pairs Holm's step-down procedure resolves.

    Sorted by ``|T|`` (largest first), the k-th pair (k = 1..n) is tested at ``alpha/(m-k+1)``;
    it is resolved when it and every pair before it clear ``z_{1-level/2} + z_{1-beta}``.
    ``order`` is that sort (:func:`by_statistic`) when the caller has it.
    """
    t = np.abs(np.asarray(statistic, dtype=float)).ravel()
    m = t.size if family_size is None else _family_size(family_size)
    order = by_statistic(t) if order is None else order
    k = np.arange(1, t.size + 1)
    clears = t[order] >= resolution_threshold(alpha / (m - k + 1), power)
    step_down = np.cumprod(clears).astype(bool)
    out = np.empty(t.size, dtype=bool)
    out[order] = step_down
    return out.reshape(np.shape(statistic))


def resolved_bh(
    statistic: ArrayLike,
    alpha: float = 0.05,
    power: float = 0.8,
    family_size: int | None = None,
    *,
    order: IntArray | None = None,
) -> BoolArray:
    """Return which pairs the Benjamini-Hochberg step-up procedure resolves.

    Sorted by ``|T|`` (largest first), find the largest k whose pair clears
    ``z_{1-(k alpha/m)/2} + z_{1-beta}``; the k pairs with the largest ``|T|`` are resolved.
    ``order`` is that sort (:func:`by_statistic`) when the caller has it.
    """
    t = np.abs(np.asarray(statistic, dtype=float)).ravel()
    m = t.size if family_size is None else _family_size(family_size)
    order = by_statistic(t) if order is None else order
    k = np.arange(1, t.size + 1)
    clears = t[order] >= resolution_threshold(k * alpha / m, power)
    last = np.flatnonzero(clears)
    out = np.zeros(t.size, dtype=bool)
    if last.size:
        out[order[: last[-1] + 1]] = True
    return out.reshape(np.shape(statistic))


def by_statistic(statistic: ArrayLike) -> IntArray:
    """Return the pairs' indices by ``|T|``, largest first (ties in their order): the order
    Holm's and Benjamini-Hochberg's procedures step through."""
    return np.argsort(-np.abs(np.asarray(statistic, dtype=float)).ravel(), kind="stable")


def family_verdicts(
    statistic: np.ndarray, testable: np.ndarray, alpha: float, power: float, family_size: int
) -> dict[str, np.ndarray]:
    """Return each family procedure's verdicts: resolved at its level (Section 6.3).

    Bonferroni's and Sidak's single-step levels, Holm's step-down and Benjamini-Hochberg's
    step-up over the whole family (``statistic`` holds every pair of it), each replacing
    ``z_{1-alpha/2}`` in Definition 1; a pair with too few differing items for any valid test
    (``testable`` False) is never resolved. The audit, the store's audit and the gold-scale
    audit all take their verdicts from here.

    Parameters
    ----------
    statistic : numpy.ndarray
        Every pair's Wald statistic, the whole family.
    testable : numpy.ndarray
        Whether enough items differ in each pair for a valid test to reject.
    alpha, power : float
        The level and power.
    family_size : int
        The family's size m.

    Returns
    -------
    dict
        ``{"bonferroni", "sidak", "holm", "bh"}`` -> boolean array over pairs.
    """
    t, m = statistic, family_size
    order = by_statistic(t)  # one sort for both stepwise procedures
    verdicts = {
        "bonferroni": resolved_single_step(t, alpha, power, m),
        "sidak": resolved_single_step(t, alpha, power, m, "sidak"),
        "holm": resolved_holm(t, alpha, power, m, order=order),
        "bh": resolved_bh(t, alpha, power, m, order=order),
    }
    return {proc: np.asarray(v) & testable for proc, v in verdicts.items()}


def adjust_p_values(
    p_values: ArrayLike, method: Adjustment, family_size: int | None = None
) -> FloatArray:
    """Return adjusted p-values (Bonferroni, Sidak, Holm, BH or BY), capped at 1.

    Matches ``statsmodels.stats.multitest.multipletests`` (``bonferroni``, ``sidak``,
    ``holm``, ``fdr_bh``, ``fdr_by``) when ``family_size`` is the number of p-values.
    """
    p = np.asarray(p_values, dtype=float).ravel()
    m = p.size if family_size is None else _family_size(family_size)
    if method == "bonferroni":
        out = np.minimum(p * m, 1.0)
    elif method == "sidak":
        out = -np.expm1(m * np.log1p(-np.minimum(p, 1.0)))
    elif method == "holm":
        out = holm_rows(p[None, :], m)[0]
    elif method in ("bh", "by"):
        order = np.argsort(p, kind="stable")
        scale = m / np.arange(1, p.size + 1)
        if method == "by":
            scale = scale * np.sum(1.0 / np.arange(1, m + 1))
        stepped = np.minimum.accumulate((scale * p[order])[::-1])[::-1]
        out = np.empty_like(p)
        out[order] = np.minimum(stepped, 1.0)
    else:
        raise InputError(
            "{method!b}" + escape(f" must be one of {', '.join(METHODS)}; got {method!r}"),
            param="method",
        )
    return out.reshape(np.shape(p_values))


def holm_rows(p_values: ArrayLike, family_size: int | None = None) -> FloatArray:
    """Holm-adjusted p-values of each row of ``p_values`` (each row its own family).

    Examples
    --------
    >>> holm_rows([[0.01, 0.04, 0.03], [0.2, 0.01, 0.5]]).round(2).tolist()
    [[0.03, 0.06, 0.06], [0.4, 0.03, 0.5]]
    """
    p = np.atleast_2d(np.asarray(p_values, dtype=float))
    m = p.shape[-1] if family_size is None else _family_size(family_size)
    order = np.argsort(p, axis=-1, kind="stable")
    steps = (m - np.arange(p.shape[-1])) * np.take_along_axis(p, order, axis=-1)
    out = np.empty_like(p)
    np.put_along_axis(out, order, np.minimum(np.maximum.accumulate(steps, axis=-1), 1.0), -1)
    return out


def _family_size(value: Any) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise InputError(
            "{family_size!b}" + escape(f" must be a whole number >= 1; got {value!r}"),
            param="family_size",
        )
    return int(value)
