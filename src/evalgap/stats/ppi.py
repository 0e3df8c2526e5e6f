"""Prediction-powered inference (PPI++): a judge's scores on every item corrected by gold
scores on a few of them.

Angelopoulos, Duchi and Zrnic (2023), *PPI++: Efficient prediction-powered inference*. A
judge gives a score ``f_i`` to each of ``N`` items; a gold label ``y_i`` (a human, or a
stronger judge) is known on ``n`` of them, drawn at random. The mean of the gold scores
over all the items is estimated by

    theta_lambda = lambda * mean_{all N}(f) + mean_{labelled n}(y - lambda f),

unbiased for every ``lambda``: the judge's bias is measured where both are known and taken
out. The labelled items being among the N, its variance is ``Var(y - lambda f) / n +
(2 lambda Cov(f, y) - lambda^2 Var(f)) / N``; the power-tuned ``lambda`` minimizes it, so
the estimate is never worse than the gold labels' own mean (``lambda = 0``) in large
samples, and uses the judge as far as it agrees with the gold. Paired: for a pair of models,
``f`` and ``y`` are the differences of their scores on each item, and the estimate is the gap
on the gold scale.

Functions work on the last axis and broadcast over leading ones (many pairs at once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate, intervals
from evalgap.stats._types import Alternative, ArrayLike, FloatArray
from evalgap.stats.power import z_sum_squared
from evalgap.stats.tests import paired_t_from_moments


def _moments(
    f_all: FloatArray, f_gold: FloatArray, y_gold: FloatArray
) -> tuple[int, int, FloatArray, FloatArray, FloatArray, FloatArray]:
    """``n, N``, the judge's variance over all items and on the labelled ones, and the
    labelled covariance of judge and gold and variance of the gold."""
    n, big_n = f_gold.shape[-1], f_all.shape[-1]
    var_f = f_all.var(axis=-1, ddof=1)
    fg = f_gold - f_gold.mean(axis=-1, keepdims=True)
    yg = y_gold - y_gold.mean(axis=-1, keepdims=True)
    cov_fy = (fg * yg).sum(axis=-1) / (n - 1)
    var_fg = (fg * fg).sum(axis=-1) / (n - 1)
    var_y = (yg * yg).sum(axis=-1) / (n - 1)
    return n, big_n, var_f, var_fg, cov_fy, var_y


def tuned_lambda(f_all: ArrayLike, f_gold: ArrayLike, y_gold: ArrayLike) -> FloatArray:
    """Return the power-tuned ``lambda`` of the mean (clipped to [0, 1]).

    With the labelled items among the N, ``Var(theta_lambda) = Var(y - lambda f) / n +
    (2 lambda Cov(f, y) - lambda^2 Var(f)) / N``, smallest at ``lambda = Cov(f, y) /
    Var(f)`` (the regression slope of the gold on the judge), estimated with the labelled
    covariance and the judge's variance over all its items; clipped to [0, 1] (a judge
    that disagrees is not used against the gold).

    Examples
    --------
    >>> f = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    >>> float(tuned_lambda(f, f[:4], f[:4]))  # the judge is the gold: all weight on it
    1.0
    """
    f_all, f_gold, y_gold = (np.asarray(v, dtype=float) for v in (f_all, f_gold, y_gold))
    _, _, var_f, _, cov_fy, _ = _moments(f_all, f_gold, y_gold)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(var_f > 0, cov_fy / var_f, 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_mean(
    f_all: ArrayLike,
    f_gold: ArrayLike,
    y_gold: ArrayLike,
    *,
    alpha: float = 0.05,
    lam: ArrayLike | None = None,
    alternative: Alternative = "two-sided",
) -> dict[str, Any]:
    """Return the PPI++ estimate of the gold scale's mean over all items, with its
    (1 - alpha) interval and test.

    The interval and the test of a zero mean use Student's t on ``n - 1`` degrees of
    freedom rather than the normal law of the paper: the variance is mostly the labelled
    items' ``Var(y - lambda f) / n``, estimated from ``n`` of them, and with 80 labels the
    normal interval covered 0.946 in the simulation of ``benchmarks/bench_gold.py`` (0.95 -
    2 MC SE = 0.946), Student's 0.950.

    Parameters
    ----------
    f_all : array_like, (..., N)
        The judge's scores on every item (the labelled ones included).
    f_gold, y_gold : array_like, (..., n)
        The judge's and the gold scores on the labelled items (a random subset).
    alpha : float
        One minus the interval's level.
    lam : array_like, optional
        A fixed ``lambda`` (0: the gold labels alone; 1: classic PPI); default the
        power-tuned one (:func:`tuned_lambda`).
    alternative : {"two-sided", "greater", "less"}
        The side of the test of a zero mean (the interval is two-sided).

    Returns
    -------
    dict
        ``estimate``, ``se``, ``low``, ``high``, ``statistic`` and ``p_value`` (the t test
        of a zero mean), ``lam``, ``effective_n`` (the number of
        gold labels whose mean alone would be as precise: ``Var(y) / se^2``), and the two
        terms of the variance ``A / n + B / N`` that :func:`ppi_design` takes:
        ``residual_variance`` ``A = Var(y - lambda f)`` and ``judge_term`` ``B = 2 lambda
        Cov(f, y) - lambda^2 Var(f)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(5000) < 0.6).astype(float)
    >>> f = np.where(rng.random(5000) < 0.9, y, 1 - y)  # a judge right 90% of the time
    >>> gold = rng.choice(5000, 500, replace=False)
    >>> r = ppi_mean(f, f[gold], y[gold])
    >>> bool(r["low"] <= y.mean() <= r["high"]), bool(r["effective_n"] > 500)
    (True, True)
    """
    f_all, f_gold, y_gold = (np.asarray(v, dtype=float) for v in (f_all, f_gold, y_gold))
    if f_gold.shape != y_gold.shape or f_gold.shape[:-1] != f_all.shape[:-1]:
        raise InputError("f_gold and y_gold must match, with f_all's leading shape")
    n, big_n, var_f, var_fg, cov_fy, var_y = _moments(f_all, f_gold, y_gold)
    if n < 2 or big_n < n:
        raise InputError("give at least 2 gold labels, among the items the judge scored")
    lam_ = tuned_lambda(f_all, f_gold, y_gold) if lam is None else np.asarray(lam, dtype=float)
    estimate = lam_ * f_all.mean(axis=-1) + (y_gold - lam_[..., None] * f_gold).mean(axis=-1)
    # Var(lam mean_N(f) + mean_n(y - lam f)), the labelled items among the N:
    # Var(y - lam f) / n + (2 lam Cov(f, y) - lam^2 Var(f)) / N
    var_resid = var_y - 2 * lam_ * cov_fy + lam_**2 * var_fg
    judge_term = 2 * lam_ * cov_fy - lam_**2 * var_f
    variance = var_resid / n + judge_term / big_n
    se = np.sqrt(np.maximum(variance, 0.0))
    # Student's t on n - 1 degrees of freedom: the variance is mostly the labelled items'
    interval = intervals.t_interval(estimate, se * np.sqrt(n), n, alpha)
    test = paired_t_from_moments(estimate, se * np.sqrt(n), n, alternative=alternative)
    with np.errstate(divide="ignore", invalid="ignore"):
        effective = np.where(se > 0, var_y / se**2, np.inf)
    return {
        "estimate": estimate,
        "se": se,
        "low": interval.low,
        "high": interval.high,
        "statistic": test.statistic,
        "p_value": test.p_value,
        "lam": lam_,
        "effective_n": effective,
        "residual_variance": var_resid,
        "judge_term": judge_term,
        "gold_variance": var_y,
        "df": np.full(np.shape(estimate), n - 1.0),
    }


def ppi_stratified(
    parts: list[tuple[ArrayLike, ArrayLike, ArrayLike]],
    *,
    alpha: float = 0.05,
    lam: float | None = None,
    alternative: Alternative = "two-sided",
) -> dict[str, Any]:
    """Return the PPI++ estimate over strata (tasks) labelled at different rates.

    Each stratum ``(f_all, f_gold, y_gold)`` gets its own :func:`ppi_mean` (its own tuned
    ``lambda``), and the strata are weighted by their judged items ``w_t = N_t / N``:
    ``estimate = sum w_t estimate_t``, ``se^2 = sum w_t^2 se_t^2``. A single pooled estimate
    would be biased when the labels are not spread over the strata in proportion (all of
    them in one task, say); stratified, each stratum's labels need only be random within it.
    The t interval and test take Satterthwaite's degrees of freedom
    ``se^4 / sum (w_t^2 se_t^2)^2 / df_t``. ``residual_variance`` and ``judge_term`` are
    the strata's weighted means, the terms of :func:`ppi_design` for labels and judged
    items added in proportion to the strata; ``effective_n`` is ``sum w_t Var_t(y) / se^2``.
    One stratum gives :func:`ppi_mean`'s figures.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.6).astype(float); f = y.copy()
    >>> one = ppi_stratified([(f, f[:50], y[:50])])
    >>> float(one["estimate"]) == float(ppi_mean(f, f[:50], y[:50])["estimate"])
    True
    """
    if not parts:
        raise InputError("give at least one stratum")
    each = [
        ppi_mean(f, fg, yg, alpha=alpha, lam=lam, alternative=alternative) for f, fg, yg in parts
    ]
    sizes = [np.asarray(f).shape[-1] for f, _, _ in parts]
    combined = _strata_combined(
        each, sizes, "estimate", [float(r["df"]) for r in each], alpha, alternative
    )
    weighted, variance = combined["weighted"], combined["se"] ** 2
    gold_variance = weighted("gold_variance")
    return {
        "estimate": combined["estimate"],
        "se": combined["se"],
        "low": combined["low"],
        "high": combined["high"],
        "statistic": combined["statistic"],
        "p_value": combined["p_value"],
        "lam": weighted("lam"),
        "effective_n": gold_variance / variance if variance > 0 else float("inf"),
        "residual_variance": weighted("residual_variance"),
        "judge_term": weighted("judge_term"),
        "gold_variance": gold_variance,
        "df": combined["df"],
    }


def _strata_combined(
    each: list[dict[str, Any]],
    sizes: ArrayLike,
    key: str,
    dfs: list[float],
    alpha: float,
    alternative: Alternative = "two-sided",
) -> dict[str, Any]:
    """Strata's estimates ``each[t][key]`` (SE ``each[t]["se"]``, ``dfs[t]`` degrees of
    freedom) weighted by their items ``w_t = N_t / N``: ``sum w_t est_t``, ``se^2 = sum
    w_t^2 se_t^2``, and the t interval and test on Satterthwaite's degrees of freedom
    ``se^4 / sum (w_t^2 se_t^2)^2 / df_t``; ``weighted(k)`` weights any other entry alike.
    The one home of the stratified combination (:func:`ppi_stratified`,
    :func:`judge_bias_stratified`)."""
    w = np.asarray(sizes, dtype=float)
    w = w / w.sum()

    def weighted(k: str) -> float:
        return float(sum(wt * float(r[k]) for wt, r in zip(w, each, strict=True)))

    estimate = weighted(key)
    terms = np.array([wt**2 * float(r["se"]) ** 2 for wt, r in zip(w, each, strict=True)])
    variance = float(terms.sum())
    se = float(np.sqrt(variance))
    df_t = np.asarray(dfs, dtype=float)
    df = variance**2 / float((terms**2 / df_t).sum()) if variance > 0 else float(df_t.sum())
    interval = intervals.t_interval(estimate, se * np.sqrt(df + 1), df + 1, alpha)
    test = paired_t_from_moments(estimate, se * np.sqrt(df + 1), df + 1, alternative=alternative)
    return {
        "estimate": estimate,
        "se": se,
        "low": float(interval.low),
        "high": float(interval.high),
        "statistic": float(test.statistic),
        "p_value": float(test.p_value),
        "df": float(df),
        "weighted": weighted,
    }


def ppi_joint(judge: ArrayLike, gold: ArrayLike) -> dict[str, Any]:
    """Return every model's PPI++ estimate and their joint covariance, on shared items.

    Parameters
    ----------
    judge : array_like, (models, N)
        The judge's scores, NaN where a model was not judged on an item: each model's
        estimate is on its own judged items, as :func:`ppi_mean` gives it.
    gold : array_like, (models, N)
        The gold scores, NaN where a model's item is not labelled (the labelled items a
        random subset of each model's judged items; they may differ between models).

    Returns
    -------
    dict
        ``estimate`` and ``lam`` per model (as :func:`ppi_mean` gives each alone) and
        ``covariance`` ``(models, models)``: the sum over items of the products of the
        estimates' influence terms ``1[i judged for m] lambda_m (f_mi - mean f_m) / N_m +
        1[i labelled for m] (r_mi - mean r_m) / n_m`` with ``r = y - lambda f`` (each part
        scaled to unbiased variances), so that models judged and labelled on the same items
        covary as they should. Its diagonal equals :func:`ppi_mean`'s variance but for the judge's
        variance on the labelled items standing in for that on all items in one term (equal
        in expectation); rank sets and pair gaps over a board draw from it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random((3, 400)) < [[0.3], [0.5], [0.7]]).astype(float)
    >>> f = np.where(rng.random((3, 400)) < 0.9, y, 1 - y)
    >>> gold = np.where(rng.random((3, 400)) < 0.2, y, np.nan)
    >>> r = ppi_joint(f, gold)
    >>> alone = ppi_mean(f[1], f[1][~np.isnan(gold[1])], gold[1][~np.isnan(gold[1])])
    >>> bool(np.isclose(r["estimate"][1], alone["estimate"]))
    True
    """
    f, y = np.asarray(judge, dtype=float), np.asarray(gold, dtype=float)
    if f.ndim != 2 or f.shape != y.shape:
        raise InputError("{judge!b} and {gold!n} must be (models, items) alike", param="judge")
    judged = ~np.isnan(f)
    labelled = ~np.isnan(y) & judged
    if (~np.isnan(y) & ~judged).any():
        raise InputError(
            "{gold!b} has labels on items the judge did not score; leave them out", param="gold"
        )
    n, big_n = labelled.sum(axis=1), judged.sum(axis=1)
    if (n < 2).any():
        raise InputError("give every model at least 2 gold labels", param="gold")
    f0, y0 = np.where(judged, f, 0.0), np.where(labelled, y, 0.0)
    f_bar = f0.sum(axis=1, keepdims=True) / big_n[:, None]
    fl_bar = (f0 * labelled).sum(axis=1, keepdims=True) / n[:, None]
    yl_bar = y0.sum(axis=1, keepdims=True) / n[:, None]
    cov_fy = (((f0 - fl_bar) * (y0 - yl_bar)) * labelled).sum(axis=1) / (n - 1)
    var_f = (((f0 - f_bar) ** 2) * judged).sum(axis=1) / (big_n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.where(var_f > 0, cov_fy / var_f, 0.0), 0.0, 1.0)
    r = np.where(labelled, y0 - lam[:, None] * f0, 0.0)
    r_bar = r.sum(axis=1, keepdims=True) / n[:, None]
    estimate = lam * f_bar[:, 0] + r_bar[:, 0]
    judge_part = (
        np.where(judged, f0 - f_bar, 0.0) * (lam / big_n * np.sqrt(big_n / (big_n - 1)))[:, None]
    )
    gold_part = np.where(labelled, r - r_bar, 0.0) / n[:, None] * np.sqrt(n / (n - 1))[:, None]
    influence = judge_part + gold_part
    return {"estimate": estimate, "lam": lam, "covariance": influence @ influence.T}


def judge_bias_stratified(
    parts: list[tuple[ArrayLike, ArrayLike]], sizes: ArrayLike, *, alpha: float = 0.05
) -> dict[str, Any]:
    """Return the judge's bias over strata labelled at different rates: each stratum's
    :func:`judge_bias`, weighted by its judged items ``sizes`` (as
    :func:`ppi_stratified` weights the estimates), with Satterthwaite's degrees of freedom
    for the t interval and test; ``agreement`` and ``correlation`` are over every labelled
    item. One stratum gives :func:`judge_bias`'s figures.

    Examples
    --------
    >>> f, y = np.array([1.0, 1, 0, 1]), np.array([1.0, 0, 0, 1])
    >>> float(judge_bias_stratified([(f, y)], [10])["bias"])
    0.25
    """
    each = [judge_bias(fg, yg, alpha=alpha) for fg, yg in parts]
    dfs = [np.asarray(fg).shape[-1] - 1.0 for fg, _ in parts]
    combined = _strata_combined(each, sizes, "bias", dfs, alpha)
    pooled = judge_bias(
        np.concatenate([np.asarray(fg, dtype=float) for fg, _ in parts]),
        np.concatenate([np.asarray(yg, dtype=float) for _, yg in parts]),
        alpha=alpha,
    )
    return {
        "bias": combined["estimate"],
        "se": combined["se"],
        "low": combined["low"],
        "high": combined["high"],
        "p_value": combined["p_value"],
        "agreement": pooled["agreement"],
        "correlation": pooled["correlation"],
    }


def joint_t_draws(
    estimate: ArrayLike, covariance: ArrayLike, df: float, size: int, rng: np.random.Generator
) -> FloatArray:
    """Return ``size`` draws of the estimates from the multivariate t law with ``df``
    degrees of freedom (scale ``covariance``): a normal draw divided by ``sqrt(chi2_df /
    df)``, the joint law whose margins are the estimates' t intervals. Rank sets drawn from
    it cover tied models at their level (a normal law under-covers: 0.93 at 80 labels).
    """
    est = np.asarray(estimate, dtype=float)
    normal = rng.multivariate_normal(np.zeros(est.size), np.asarray(covariance, dtype=float), size)
    return est + normal / np.sqrt(rng.chisquare(df, size) / df)[:, None]


def bias_p_value(p_t: ArrayLike, se: ArrayLike, differing: ArrayLike) -> FloatArray:
    """The two-sided p-value of no judge bias: the paired t test's ``p_t`` where the
    differences vary (``se > 0``); where they do not, the exact sign test of the
    ``differing`` items (all one way), 1 when none differs (a t statistic of infinity would
    call three labels that all disagree certain).

    Examples
    --------
    >>> bias_p_value([0.01, 0.3, 0.3], [0.1, 0.0, 0.0], [40, 3, 0]).tolist()
    [0.01, 0.25, 1.0]
    """
    k = np.asarray(differing, dtype=float)
    sign = np.where(k > 0, np.minimum(1.0, 2.0 ** (1.0 - k)), 1.0)
    return np.asarray(np.where(np.asarray(se, dtype=float) > 0, p_t, sign), dtype=float)


def judge_bias(f_gold: ArrayLike, y_gold: ArrayLike, *, alpha: float = 0.05) -> dict[str, Any]:
    """Return how a judge's scores depart from the gold on the labelled items.

    Parameters
    ----------
    f_gold, y_gold : array_like, (..., n)
        The judge's and the gold scores on the same labelled items. For a pair of models,
        give the differences of their scores: the bias is then the judge's bias for model A
        minus its bias for model B, the amount by which the judge moves the pair's gap.
    alpha : float
        One minus the interval's level.

    Returns
    -------
    dict
        ``bias`` ``mean(f - y)``, its ``se`` and paired t interval ``low``, ``high`` and
        two-sided ``p_value`` (H0: no bias), ``agreement`` (the share of items where judge
        and gold give the same score: for binary scores, the accuracy of the judge) and
        the Pearson ``correlation`` of judge and gold (NaN when either is constant).

    Examples
    --------
    >>> r = judge_bias([1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0])
    >>> float(r["bias"]), float(r["agreement"])
    (0.25, 0.75)
    """
    f, y = np.asarray(f_gold, dtype=float), np.asarray(y_gold, dtype=float)
    if f.shape != y.shape or f.ndim == 0:
        raise InputError("f_gold and y_gold must have the same shape, items on the last axis")
    n = f.shape[-1]
    if n < 2:
        raise InputError("give at least 2 gold labels to measure the judge's bias")
    d = f - y
    bias, sd = d.mean(axis=-1), d.std(axis=-1, ddof=1)
    se = sd / np.sqrt(n)
    interval = intervals.t_interval(bias, sd, n, alpha)
    test = paired_t_from_moments(bias, sd, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        fc, yc = f - f.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
        correlation = (fc * yc).sum(axis=-1) / np.sqrt((fc**2).sum(axis=-1) * (yc**2).sum(axis=-1))
    return {
        "bias": bias,
        "se": se,
        "low": interval.low,
        "high": interval.high,
        "p_value": test.p_value,
        "agreement": (np.abs(d) < 1e-12).mean(axis=-1),
        "correlation": correlation,
    }


def ppi_design(
    residual_variance: float,
    judge_term: float,
    delta: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    cost_gold: float = 1.0,
    cost_judge: float = 0.0,
    n_judged: int | None = None,
    minimum_gold: int = 1,
) -> dict[str, float]:
    """Return the gold labels ``n`` and judged items ``N`` that resolve a gap ``delta`` at
    (alpha, power) with PPI++ at the least cost.

    The estimate's variance is ``A / n + B / N`` with ``A = Var(y - lambda f)`` (the
    ``residual_variance``) and ``B = 2 lambda Cov(f, y) - lambda^2 Var(f)`` (the
    ``judge_term``, what the judge's items add; 0 without a judge), both from a pilot; the
    gap is resolved when it is at most ``V* = (delta / (z_{1-alpha/2} + z_power))^2``
    (``z_{1-alpha}`` for a one-sided ``alternative``).
    Minimizing ``cost_gold n + cost_judge N`` under that constraint is the two-phase sampling
    allocation: ``n = sqrt(A / cost_gold) S / V*`` and ``N = sqrt(B / cost_judge) S / V*``
    with ``S = sqrt(A cost_gold) + sqrt(B cost_judge)``; when that ``N`` is below ``n`` (the
    judge is too dear to help) every judged item is labelled, ``n = N = (A + B) / V*``. With
    ``n_judged`` given (the judged items there are), only ``n`` is chosen: ``A / (V* - B /
    N)``, infinite when the judged items alone leave the variance above ``V*``. A judge that
    explains the gold on the pilot's labels (``A = 0``) needs no labels by these formulas;
    ``n`` is at least ``minimum_gold`` (and the cost counts them).

    Returns ``{"n_gold", "n_judged", "cost", "target_variance"}`` (counts rounded up).

    Examples
    --------
    >>> d = ppi_design(0.1, 0.3, 0.05, cost_gold=1.0, cost_judge=0.01)
    >>> d["n_gold"] < d["n_judged"], ppi_design(0.4, 0.0, 0.05)["n_gold"]
    (True, 1256.0)
    """
    a, b = float(residual_variance), max(float(judge_term), 0.0)
    if not (np.isfinite(a) and a >= 0 and np.isfinite(b)):
        raise InputError(
            "{residual_variance!b} must be a finite number >= 0 (and {judge_term!n} finite)",
            param="residual_variance",
        )
    minimum = _validate.whole_number(minimum_gold, "minimum_gold", 1)
    if not float(delta) > 0:
        raise InputError("{delta!b} must be > 0: the gap to resolve", param="delta")
    target = float(delta) ** 2 / float(z_sum_squared(alpha, power, alternative))
    if n_judged is not None:  # the judged items there are: only the labels to choose
        big_n = float(n_judged)
        room = target - b / big_n
        n = a / room if room > 0 else np.inf
        if n > big_n:  # more labels than judged items: more judged items are needed
            n = np.inf
    elif b == 0:  # the judge adds nothing: the gold labels alone
        n = big_n = a / target
    else:
        if not float(cost_judge) > 0:
            raise InputError(
                "{cost_judge!b} must be > 0 to choose the judged items (or give {n_judged!n})",
                param="cost_judge",
            )
        cg, cj = float(cost_gold), float(cost_judge)
        both = np.sqrt(a * cg) + np.sqrt(b * cj)
        n, big_n = np.sqrt(a / cg) * both / target, np.sqrt(b / cj) * both / target
        if big_n < n:  # the judge is too dear to help: label every judged item
            n = big_n = (a + b) / target
    n = max(n, minimum)
    if n_judged is None:  # the labelled items are judged too
        big_n = max(big_n, n)
    n_gold, judged = (float(np.ceil(v - 1e-9)) if np.isfinite(v) else np.inf for v in (n, big_n))
    cost = n_gold * float(cost_gold) + judged * float(cost_judge)
    return {"n_gold": n_gold, "n_judged": judged, "cost": cost, "target_variance": target}
