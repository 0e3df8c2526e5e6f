"""One estimate of a pair's gap, whatever the scale it is computed on.

A gap (A minus B) is estimated on a *scale*: the plain paired differences of two models'
scores (``paired``), the gold scale of a judged pair corrected by gold labels on some items
(``gold``, PPI++), or the full benchmark a weighted item sample stands for (``design``,
Horvitz-Thompson). Each scale is one function returning the same :class:`PairEstimate`
(the gap, its SE and degrees of freedom, its interval and test, N* and q, its effective
sample size) by calling the formulas where they live -- :mod:`~evalgap.stats.paired`,
:mod:`~evalgap.stats.tests`, :mod:`~evalgap.stats.intervals`, :mod:`~evalgap.stats.power`,
:mod:`~evalgap.stats.ppi`, :mod:`~evalgap.stats.weighted` -- and :data:`SCALES` names them.
A job asks its board for the scale's name and calls ``SCALES[name]``, so a new scale is one
function here (registered in :data:`SCALES`) and one branch of the step that resolves a
board's scale (``evalgap.jobs._board.scale_of``).

A scale's function takes the two models' aligned scores and ``alpha``, ``power`` and
``alternative`` as keywords, plus the parts of the board its scale needs (gold labels, a
design); it returns the estimate with ``scale`` set to its name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalgap.errors import InputError
from evalgap.stats import _validate, intervals, tests
from evalgap.stats import power as pw
from evalgap.stats import ppi as sp
from evalgap.stats import weighted as sw
from evalgap.stats._types import (
    Alternative,
    ArrayLike,
    BoolArray,
    CountOrArray,
    FloatArray,
    FloatOrArray,
)
from evalgap.stats.paired import (
    PairedSummary,
    counts_from_scores,
    is_binary,
    summarize_counts,
    summarize_moments,
)

MIN_GOLD = 3  # gold labels a t interval needs at the least (two degrees of freedom)


@dataclass(frozen=True)
class PairEstimate:
    """The gap of one pair (or of arrays of pairs) on one scale: estimate, interval, test, N*.

    Attributes
    ----------
    scale : str
        The scale's name, a key of :data:`SCALES` (``"paired"``, ``"gold"``, ``"design"``).
    delta : float
        The gap, A minus B, on that scale.
    se : float
        Its standard error.
    df : float
        The degrees of freedom of the law of ``delta / se`` behind the test and interval
        (``inf`` for a normal law, or where the test is exact: binary pairs).
    ci : Interval
        The gap's two-sided ``1 - alpha`` interval.
    p_value : float
        The headline test of ``delta = 0`` (by ``alternative``).
    required_n : float
        N*: the units that resolve the gap at (alpha, power) -- paired items, gold labels on
        the gold scale, items of a like design -- not rounded; ``inf`` when none do (a zero
        gap, or one on the side a one-sided alternative does not test), NaN where the data
        cannot estimate it.
    resolution_ratio : float
        q, the precision there is over the precision the gap needs (``N / N*`` on the paired
        scale); NaN where it is not estimated.
    effective_n : float
        The units whose plain paired differences would be as precise: the items (paired),
        the effective gold labels (PPI++), Kish's effective sample size (design).
    n_items : int
        The items the estimate uses (judged items on the gold scale).
    parts : mapping
        The scale's own figures behind the estimate, for its job's report (the t or z
        statistic; PPI++'s weight and variance terms; the design's weight sum and
        population size); not part of :meth:`to_dict`.
    """

    scale: str
    delta: FloatOrArray
    se: FloatOrArray
    df: FloatOrArray
    ci: intervals.Interval
    p_value: FloatOrArray
    required_n: FloatOrArray
    resolution_ratio: FloatOrArray
    effective_n: FloatOrArray
    n_items: CountOrArray
    parts: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def resolved(self) -> bool | BoolArray:
        """Whether q >= 1 (False where q is not estimated)."""
        with np.errstate(invalid="ignore"):
            return _validate.scalar_or_array(np.asarray(self.resolution_ratio) >= 1)

    def to_dict(self) -> dict[str, Any]:
        """Return the estimate as plain JSON-ready data (non-finite numbers as None).

        Returns
        -------
        dict
            ``scale, delta, se, df, ci {low, high, method, level}, p_value, required_n,
            resolution_ratio, resolved, effective_n, n_items``.
        """
        names = ("delta", "se", "df")
        rest = ("p_value", "required_n", "resolution_ratio", "resolved", "effective_n", "n_items")
        out: dict[str, Any] = {"scale": self.scale}
        out.update({name: _plain(getattr(self, name)) for name in names})
        out["ci"] = {key: _plain(value) for key, value in self.ci.to_dict().items()}
        out.update({name: _plain(getattr(self, name)) for name in rest})
        return out


def _plain(value: Any) -> Any:
    """A number or array as Python data, non-finite numbers as None."""
    if isinstance(value, (str, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)) or np.ndim(value) > 0:
        return [_plain(v) for v in np.asarray(value).tolist()]
    value = np.asarray(value).item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def paired_required_n(
    delta: ArrayLike,
    sd_diff: ArrayLike,
    n_items: ArrayLike,
    differing: ArrayLike,
    *,
    alpha: float,
    power: float,
    alternative: Alternative = "two-sided",
) -> tuple[FloatArray, FloatArray, BoolArray, FloatArray, FloatArray]:
    """Return N* of paired items with its floor, and q: ``(formula, floor, testable,
    required_n, resolution_ratio)``, arrays over pairs.

    ``formula`` is Equation 3's ``K (sigma_D / delta)^2`` (infinite where the gap opposes a
    one-sided alternative); ``floor`` the items that hold the
    :func:`~evalgap.stats.tests.min_differing_items` differing items any valid test needs, at
    the pair's rate of differing items; ``testable`` whether that many differ. N* is the
    formula raised to the floor, NaN where it is not estimated (no spread of the
    differences, or too few differing items); ``q = N / N*`` (NaN where N* is). The one home
    of this rule: compare's and the audit's pair tests read it here.

    Parameters
    ----------
    delta, sd_diff, n_items : array_like
        The gap, the plug-in SD of the differences (Eq. 2) and the items.
    differing : array_like
        Items on which the two scores differ.
    alpha, power : float
        The level and the power.
    alternative : {"two-sided", "greater", "less"}
        The tested side.

    Returns
    -------
    tuple of numpy.ndarray

    Examples
    --------
    >>> out = paired_required_n(0.1, 0.5, 100, 40, alpha=0.05, power=0.8)
    >>> round(float(out[3]), 1), round(float(out[4]), 3)
    (196.2, 0.51)
    """
    n = np.asarray(n_items, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    sd = np.asarray(sd_diff, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        against = np.asarray(pw.opposes_alternative(delta, alternative), dtype=bool)
        formula = np.asarray(
            pw.required_n(delta, sd, alpha=alpha, power=power, alternative=alternative),
            dtype=np.float64,
        )
        formula = np.where(against, np.inf, formula)
        testable = np.asarray(differing) >= tests.min_differing_items(alpha, alternative)
        floor = np.asarray(
            tests.required_n_floor(differing, n, alpha, alternative), dtype=np.float64
        )
        required = np.where((sd > 0) & testable, np.maximum(formula, floor), np.nan)
        q = np.where(np.isnan(required), np.nan, pw.resolution_ratio(n, required))
    return formula, floor, np.asarray(testable, dtype=bool), required, np.asarray(q)


def paired(
    scores_a: ArrayLike | None = None,
    scores_b: ArrayLike | None = None,
    *,
    counts: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike] | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    interval: intervals.Interval | None = None,
) -> PairEstimate:
    """Return the plain paired gap of two models' aligned scores (or of 2x2 counts).

    Binary scores (or ``counts``): the gap of the 2x2 table with its plug-in SE (Eq. 1),
    the exact conditional (McNemar) test, Newcombe's method-10 interval, and N* from
    Eq. 6 at the estimates, raised to the items any valid test needs
    (:func:`paired_required_n`). Graded scores: the mean difference, the paired t test and
    interval on ``N - 1`` degrees of freedom, N* from Eq. 3. These are the figures
    ``compare`` leads with; vectorized over arrays of counts.

    Parameters
    ----------
    scores_a, scores_b : array_like, optional
        Aligned per-item scores of A and B (1-D, finite).
    counts : tuple of array_like, optional
        ``(both_correct, a_only, b_only, both_wrong)`` instead of scores; arrays give arrays.
    alpha, power : float
        The level (the interval is ``1 - alpha``) and the power of N*.
    alternative : {"two-sided", "greater", "less"}
        The test's side (``"greater"``: A better).
    interval : Interval, optional
        An interval of the gap to report in place of the closed-form one: ``compare`` gives
        its paired bootstrap's percentile interval for graded scores (resampled once, there).

    Returns
    -------
    PairEstimate
        ``scale="paired"``; ``effective_n`` is the number of items.

    Examples
    --------
    The HellaSwag pair of Table 6 (gemma-7b vs Llama-3-8B):

    >>> e = paired(counts=(7986, 295, 249, 1512))
    >>> round(float(e.delta), 5), round(float(e.p_value), 3), math.ceil(e.required_n)
    (0.00458, 0.054, 20256)
    """
    _validate.levels(alpha, power, alternative)
    if counts is not None:
        if scores_a is not None or scores_b is not None:
            raise InputError("give scores (scores_a, scores_b) or the 2x2 counts, not both")
        return _paired_binary(*counts, alpha=alpha, power=power, alternative=alternative)
    if scores_a is None or scores_b is None:
        raise InputError("give both models' scores (scores_a and scores_b), or the 2x2 counts")
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError("scores_a and scores_b must be 1-D arrays of the same length")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError("the scores must be finite numbers (no NaN or inf)")
    if is_binary(a) and is_binary(b):
        cells = (int(c) for c in counts_from_scores(a, b))
        return _paired_binary(*cells, alpha=alpha, power=power, alternative=alternative)
    s = summarize_moments(a, b)
    n = int(s.n_items)
    if n < 2:
        raise InputError("graded comparisons need at least 2 shared items")
    d = a - b
    # The same "no spread" as summarize_moments (spread within rounding of the scale is none).
    sd_sample = float(d.std(ddof=1)) if s.sd_diff > 0 else 0.0
    test = tests.paired_t_from_moments(s.delta, sd_sample, n, alternative=alternative)
    ci = interval if interval is not None else intervals.t_interval(s.delta, sd_sample, n, alpha)
    return _paired_estimate(
        s, ci, test.p_value, float(n - 1), alpha, power, alternative,
        statistic=float(test.statistic),
    )  # fmt: skip


def _paired_binary(
    both_correct: ArrayLike, a_only: ArrayLike, b_only: ArrayLike, both_wrong: ArrayLike, *,
    alpha: float, power: float, alternative: Alternative,
) -> PairEstimate:  # fmt: skip
    """The paired estimate of binary pairs from their 2x2 counts."""
    s = summarize_counts(both_correct, a_only, b_only, both_wrong)
    b, c = np.asarray(s.a_only), np.asarray(s.b_only)
    if alternative == "two-sided":
        exact = tests.mcnemar_exact_and_mid_p(b, c)[0]
    else:
        exact = tests.mcnemar_exact(b, c, alternative=alternative)
    ci = intervals.newcombe_interval(
        np.asarray(both_correct, dtype=np.float64), b.astype(float), c.astype(float),
        np.asarray(both_wrong, dtype=np.float64), alpha,
    )  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = tests.wald_statistic(s.delta, s.sd_diff, s.n_items)
    return _paired_estimate(
        s, ci, exact, np.inf, alpha, power, alternative, statistic=statistic
    )


def _paired_estimate(
    s: PairedSummary, ci: intervals.Interval, p_value: ArrayLike, df: FloatOrArray,
    alpha: float, power: float, alternative: Alternative, *, statistic: ArrayLike,
) -> PairEstimate:  # fmt: skip
    f = _validate.scalar_or_array
    differing = np.asarray(s.a_only) + np.asarray(s.b_only)
    *_, required, q = paired_required_n(
        s.delta, s.sd_diff, s.n_items, differing, alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    return PairEstimate(
        scale="paired",
        delta=f(np.asarray(s.delta, dtype=float) + 0.0),  # never -0.0
        se=f(np.asarray(s.se, dtype=float)),
        df=f(np.broadcast_to(np.asarray(df, dtype=float), np.shape(s.delta))),
        ci=ci,
        p_value=f(np.asarray(p_value, dtype=float)),
        required_n=f(required),
        resolution_ratio=f(q),
        effective_n=f(np.asarray(s.n_items, dtype=float)),
        n_items=f(np.asarray(s.n_items, dtype=np.int64)),
        parts={"statistic": f(np.asarray(statistic, dtype=float)), "sd_diff": s.sd_diff},
    )


def stratum_codes(labels: ArrayLike) -> np.ndarray:
    """Each label's position among the distinct labels, in order of appearance."""
    order = {v: k for k, v in enumerate(dict.fromkeys(np.asarray(labels).tolist()))}
    return np.array([order[v] for v in np.asarray(labels).tolist()], dtype=np.int64)


def gold(
    scores_a: ArrayLike,
    scores_b: ArrayLike | None = None,
    *,
    gold_a: ArrayLike,
    gold_b: ArrayLike | None = None,
    strata: ArrayLike | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> PairEstimate:
    """Return the gap of a judged pair on the gold scale, by paired PPI++.

    The judge's differences ``f = judge_A - judge_B`` on every item and the gold ones
    ``y = gold_A - gold_B`` where both models are labelled give, per stratum, the PPI++
    estimate of :func:`evalgap.stats.ppi.ppi_mean` (power-tuned weight on the judge), the
    strata weighted by their judged items (:func:`evalgap.stats.ppi.ppi_stratified`), with
    its Student-t interval and test (Satterthwaite's degrees of freedom). ``q`` is the t
    test's normal equivalent squared over ``(z_{1-alpha/2} + z_power)^2``
    (:func:`evalgap.stats.power.statistic_resolution_ratio`), and N* the gold labels that
    resolve the gap with the judged items there are (:func:`evalgap.stats.ppi.ppi_design`,
    at least ``MIN_GOLD``; ``inf`` when the judged items alone leave too much variance);
    both NaN at a zero gap, one on the untested side of a one-sided alternative, or no spread.

    Parameters
    ----------
    scores_a, scores_b : array_like
        The judge's scores of A and B on every judged item (``scores_b`` omitted:
        ``scores_a`` holds the judge's differences A minus B).
    gold_a, gold_b : array_like
        Their gold scores, NaN where unlabelled (``gold_b`` omitted: ``gold_a`` holds the
        gold differences, NaN where either is unlabelled).
    strata : array_like, optional
        Each item's stratum (a task), within which the labels were drawn at random.
    alpha, power : float
        The level and the power.
    alternative : {"two-sided", "greater", "less"}
        The test's side.

    Returns
    -------
    PairEstimate
        ``scale="gold"``; ``required_n`` counts gold labels, ``effective_n`` is PPI++'s
        effective number of gold labels; ``parts`` holds ``statistic`` (t), ``z``,
        ``lam``, ``residual_variance``, ``judge_term`` and ``gold_variance``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> truth = rng.random((2, 400)) < [[0.7], [0.55]]
    >>> judge = np.where(rng.random((2, 400)) < 0.9, truth, ~truth).astype(float)
    >>> labels = np.where(np.arange(400) % 4 == 0, truth, np.nan)
    >>> e = gold(judge[0], judge[1], gold_a=labels[0], gold_b=labels[1])
    >>> e.scale, e.n_items, bool(e.ci.low < e.delta < e.ci.high)
    ('gold', 400, True)
    """
    _validate.levels(alpha, power, alternative)
    f = np.asarray(scores_a, dtype=float)
    y = np.asarray(gold_a, dtype=float)
    if scores_b is not None:
        f = f - np.asarray(scores_b, dtype=float)
    if gold_b is not None:
        y = y - np.asarray(gold_b, dtype=float)
    if f.ndim != 1 or y.shape != f.shape:
        raise InputError("the judge's and the gold scores must give one value per judged item")
    label = np.zeros(f.size, dtype=np.int64) if strata is None else stratum_codes(strata)
    if label.shape != f.shape:
        raise InputError("{strata} must give one label per judged item", param="strata")
    both = ~np.isnan(y)
    parts = [
        (f[label == k], f[(label == k) & both], y[(label == k) & both])
        for k in range(int(label.max()) + 1 if label.size else 1)
    ]
    gap = sp.ppi_stratified(parts, alpha=alpha, alternative=alternative)
    delta, se = float(gap["estimate"]), float(gap["se"])
    against = bool(pw.opposes_alternative(delta, alternative))
    z = float(tests.normal_equivalent(gap["p_value"], np.sign(delta), alternative))
    q = required = math.nan
    if delta != 0 and not against and se > 0:
        q = float(pw.statistic_resolution_ratio(z, alpha, power, alternative))
        sizes = sp.ppi_design(
            float(gap["residual_variance"]), float(gap["judge_term"]), abs(delta), alpha=alpha,
            power=power, alternative=alternative, n_judged=f.size, minimum_gold=MIN_GOLD,
        )  # fmt: skip
        required = float(sizes["n_gold"])
    ci = intervals.Interval(np.float64(gap["low"]), np.float64(gap["high"]), "t (PPI++)", 1 - alpha)
    keep = ("statistic", "lam", "residual_variance", "judge_term", "gold_variance")
    return PairEstimate(
        scale="gold",
        delta=delta,
        se=se,
        df=float(gap["df"]),
        ci=ci,
        p_value=float(gap["p_value"]),
        required_n=required,
        resolution_ratio=q,
        effective_n=float(gap["effective_n"]),
        n_items=int(f.size),
        parts={"z": z, **{k: float(gap[k]) for k in keep}},
    )


def design(
    scores_a: ArrayLike,
    scores_b: ArrayLike | None = None,
    *,
    weights: ArrayLike,
    strata: ArrayLike | None = None,
    stratum_sizes: ArrayLike | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> PairEstimate:
    """Return the gap of the full benchmark a weighted item sample stands for.

    The weighted (Horvitz-Thompson / Hajek) mean of the differences with its linearized
    design-based SE, Wald test and interval (:func:`evalgap.stats.weighted.weighted_gap`),
    and the items a design like this one needs, ``n (z_{1-alpha/2} + z_power)^2 se^2 /
    delta^2``; q is ``n / N*``. N* and q are not estimated (NaN) when fewer items differ
    than any valid test needs (:func:`evalgap.stats.tests.min_differing_items`), or when the
    design-based SE is 0 beside a non-zero gap; N* is ``inf`` (q NaN) at a zero gap or one
    the one-sided alternative does not test.

    Parameters
    ----------
    scores_a, scores_b : array_like
        Aligned per-item scores of A and B (``scores_b`` omitted: ``scores_a`` holds the
        differences A minus B).
    weights : array_like
        Each item's weight ``1 / pi_i`` (only their ratios matter).
    strata, stratum_sizes : array_like, optional
        Each item's stratum, and its stratum's items in the benchmark (the
        finite-population correction).
    alpha, power : float
        The level and the power.
    alternative : {"two-sided", "greater", "less"}
        The test's side.

    Returns
    -------
    PairEstimate
        ``scale="design"``; ``df`` is ``inf`` (a normal law), ``effective_n`` Kish's
        ``(sum w)^2 / sum w^2``; ``parts`` holds ``statistic`` (z), ``weight_sum`` and
        ``population_size``.

    Examples
    --------
    >>> d = np.r_[np.zeros(18), 1, -1, np.tile([1, 0, 0, -1, 1], 8)]
    >>> w = np.r_[np.full(20, 30.0), np.full(40, 10.0)]
    >>> e = design(d, weights=w, strata=np.r_[np.zeros(20), np.ones(40)])
    >>> round(float(e.delta), 4), e.df, e.ci.method
    (0.08, inf, 'wald (design-based SE)')
    """
    d = np.asarray(scores_a, dtype=float)
    if scores_b is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            d = d - np.asarray(scores_b, dtype=float)
    g = sw.weighted_gap(
        d, weights, strata, stratum_sizes=stratum_sizes, alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    too_few = int(np.count_nonzero(d)) < tests.min_differing_items(alpha, alternative)
    estimable = not too_few and not (g.se == 0 and g.delta != 0)
    required = float(g.required_n) if estimable else math.nan
    q = g.n_items / max(required, 1.0) if math.isfinite(required) else math.nan
    ci = intervals.Interval(
        np.float64(g.ci_low), np.float64(g.ci_high), "wald (design-based SE)", 1 - alpha
    )
    return PairEstimate(
        scale="design",
        delta=g.delta,
        se=g.se,
        df=math.inf,
        ci=ci,
        p_value=g.p_value,
        required_n=required,
        resolution_ratio=q,
        effective_n=g.effective_n,
        n_items=g.n_items,
        parts={
            "statistic": g.statistic,
            "weight_sum": g.weight_sum,
            "population_size": g.population_size,
        },
    )


def configuration(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
) -> PairEstimate:
    """Return the gap over configurations like the ones run (the configuration a random factor).

    The scores are ``(items, configurations[, replicates])`` arrays, NaN where missing
    (:func:`~evalgap.stats.config_components.decompose_gap`): the gap is the mean of the
    paired differences, its SE the random-configuration one (the model x configuration
    component enters it, ``s2_configuration / C``, so a gap measured under few configurations
    is not over-claimed), its interval the components' (each mean square's term at its own
    df's t quantile), its test that interval inverted (:func:`configuration_p_value`: the test
    rejects exactly when the interval excludes zero); ``df`` is Satterthwaite's df of the SE
    and ``parts["statistic"]`` the t ratio, for the report; ``parts["mde"]`` the smallest gap
    this design resolves by N*'s rule
    (:func:`~evalgap.stats.config_components.detectable_gap`). N* is the whole items that
    resolve the gap at this design's configurations and replicates, as ``plan`` gives them
    (:func:`~evalgap.stats.config_components.required_items`: from the normal closed form
    ``K (s2_i + s2_ic / C + s2_e / (C R)) / (delta^2 - K s2_c / C)`` up to where the
    interval's t quantiles of few configurations still leave the gap resolved), infinite
    where more items cannot (only more configurations can).

    Returns
    -------
    PairEstimate
        ``scale="configuration"``; ``effective_n`` the items whose plain paired
        differences would be as precise; ``parts`` holds ``components``
        (:class:`~evalgap.stats.config_components.ConfigurationComponents`) and
        ``statistic`` (t).

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> a = rng.normal(0, 1, (200, 4, 2)) + np.array([0.0, 0.2, -0.2, 0.1])[None, :, None]
    >>> b = a - 0.1 + rng.normal(0, 0.5, (200, 4, 2))
    >>> e = configuration(a, b)
    >>> round(float(e.delta), 3), e.ci.method
    (0.1, 'configurations random')
    """
    from evalgap.stats import config_components  # only this scale needs it (start-up)

    c = config_components.decompose_gap(scores_a, scores_b, confidence=1 - alpha)
    m = c.mean_random
    t = m.mean / m.standard_error if m.standard_error > 0 else math.nan
    df = m.df if math.isfinite(m.df) else math.inf
    p = configuration_p_value(scores_a, scores_b, alternative=alternative)
    s2 = np.maximum(np.nan_to_num(c.estimate, nan=0.0), 0.0)
    n_c = c.n_configurations
    n_r = c.n_observations / (c.n_items * n_c)  # replicates per cell, on average
    against = bool(pw.opposes_alternative(m.mean, alternative))
    # the plan's N* (t quantiles of few configurations' df, checked by simulation): a
    # one-sided test at alpha is the two-sided interval at 1 - 2 alpha
    level = alpha if alternative == "two-sided" else 2 * alpha
    required = (
        math.inf
        if against or m.mean == 0
        else float(config_components.required_items(s2, m.mean, n_c, n_r, alpha=level, power=power))
    )
    mde = float(
        config_components.detectable_gap(s2, c.n_items, n_c, n_r, alpha=level, power=power)
    )
    q = c.n_items / max(required, 1.0) if math.isfinite(required) else 0.0
    ci = intervals.Interval(
        np.float64(m.lower), np.float64(m.upper), "configurations random", 1 - alpha
    )
    per_item_means = c.mean_fixed.standard_error**2 * c.n_items
    return PairEstimate(
        scale="configuration",
        delta=m.mean,
        se=m.standard_error,
        df=df,
        ci=ci,
        p_value=p,
        required_n=required,
        resolution_ratio=q,
        effective_n=per_item_means / m.standard_error**2 if m.standard_error > 0 else math.nan,
        n_items=c.n_items,
        parts={"components": c, "statistic": t, "mde": mde},
    )


def configuration_p_value(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    null: float = 0.0,
    alternative: Alternative = "two-sided",
) -> float:
    """Return the p-value of ``gap = null`` that agrees with the random-configuration interval.

    The interval of :func:`configuration` scales each mean square's term by its own t
    quantile, so no single t law gives its test; this inverts the interval instead: the
    two-sided p-value is the level ``alpha`` at which the ``1 - alpha`` interval's near end
    reaches ``null`` (found by Brent's method on ``log alpha``), and a one-sided one half of
    it towards the observed side (one minus half away from it). A test at ``alpha`` then
    rejects exactly when the interval (at ``1 - alpha``, or ``1 - 2 alpha`` one-sided)
    excludes ``null``. Below 1e-15 it is 1e-15.

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> a = rng.normal(0, 1, (100, 3, 2)) + np.array([0.0, 0.3, -0.3])[None, :, None]
    >>> b = a - 0.3 + rng.normal(0, 0.5, (100, 3, 2))
    >>> p = configuration_p_value(a, b)
    >>> from evalgap.stats import config_components as cc
    >>> m = cc.decompose_gap(a, b, confidence=1 - p).mean_random
    >>> round(m.lower, 9), round(p, 4)
    (0.0, 0.0045)
    """
    from scipy import optimize

    from evalgap.stats import config_components

    def interval(log_alpha: float) -> config_components.MeanInterval:
        alpha = math.exp(log_alpha)
        fit = config_components.decompose_gap(scores_a, scores_b, confidence=1 - alpha)
        return fit.mean_random

    gap = interval(math.log(0.05)).mean
    if not math.isfinite(gap) or gap == null:
        return 1.0 if gap == null else math.nan

    def clearance(log_alpha: float) -> float:  # > 0 where the interval excludes null
        m = interval(log_alpha)
        return m.lower - null if gap > null else null - m.upper

    low, high = math.log(1e-15), math.log(1 - 1e-9)
    if clearance(low) >= 0:
        two_sided = 1e-15
    elif clearance(high) <= 0:
        two_sided = 1.0
    else:
        two_sided = math.exp(optimize.brentq(clearance, low, high, xtol=1e-12))
    if alternative == "two-sided":
        return two_sided
    toward = (gap > null) == (alternative == "greater")
    return two_sided / 2 if toward else 1 - two_sided / 2


#: Every estimation scale by name: a board's scale (``evalgap.jobs._board.scale_of``) is a
#: key here, and a job estimates its gaps with ``SCALES[scale](scores_a, scores_b, ...)``.
SCALES: dict[str, Callable[..., PairEstimate]] = {
    "paired": paired,
    "gold": gold,
    "design": design,
    "configuration": configuration,
}
