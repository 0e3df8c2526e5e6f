"""Variance components of a score or a paired gap over items crossed with configurations.

A configuration is whatever can change a score without changing the model: a seed, a
provider, a batch size, a harness version. Items and configurations are crossed (every item
can be run under every configuration), with ``r`` replicates in a cell. The score of item
``i`` under configuration ``c`` in replicate ``r`` is modelled as

    y_icr = mu + a_i + b_c + (ab)_ic + e_icr,

with independent zero-mean random effects of variances ``sigma2_item``,
``sigma2_configuration``, ``sigma2_item_configuration`` and ``sigma2_residual`` (within a
cell). For a pair of models on the same items and configurations the same model holds for
the gap ``d_icr = y^A_icr - y^B_icr``: its configuration component is the model x
configuration interaction (the gap moves with the configuration), its item x configuration
component the model x item x configuration one.

Estimators (method of moments; unbiased, negative estimates kept and said). Four sums of
squares, each a reduction of the fitted-constants kind (Henderson's method III; Searle,
Casella and McCulloch 1992, Variance Components, Chapter 5):

    SS_item          = R(a | mu, b)          df I - 1
    SS_configuration = R(b | mu, a)          df C - 1
    SS_interaction   = R(ab | mu, a, b)      df s - I - C + 1   (s: cells with data)
    SS_residual      = sum y^2 - R(mu, a, b, ab)   df n - s

Their expectations are linear in the four components, with coefficients from the cell counts
``n_ic`` alone (traces of projections, computed on the I x C table of counts; the design
must be connected). Solving ``E[SS] = K sigma2`` gives the estimates. When every cell holds
``r`` replicates the reductions are the ANOVA sums of squares and the coefficients the
textbook expected mean squares,

    E[MS_item]          = s2_e + r s2_ic + r C s2_i
    E[MS_configuration] = s2_e + r s2_ic + r I s2_c
    E[MS_interaction]   = s2_e + r s2_ic
    E[MS_residual]      = s2_e,

so the estimator is the exact ANOVA one. With one score per cell the residual is not
separable from the item x configuration part: that component then holds both, and the
residual is NaN.

Intervals are the modified large-sample (MLS) intervals of a linear combination of mean
squares (Graybill and Wang 1980; Ting, Burdick, Graybill, Jeyaratnam and Lu 1990; Burdick and
Graybill 1992, Chapter 3): each estimate is ``sum_k c_k MS_k``, and the MLS bounds combine
chi-square and F quantiles of the mean squares' df (formula in ``_modified_large_sample``).
It is a closed form, like Satterthwaite's (1946) and unlike a parametric bootstrap (no random
numbers, nothing to seed, nothing to cost on 10,000 items), and for normal scores in a
balanced design, where the mean squares are independent scaled chi-squares, it keeps its
level where Satterthwaite's interval does not: a component that is a difference of mean
squares (the item x configuration part, ``(MS_interaction - MS_residual) / r``) got 0.926
coverage from Satterthwaite's interval at 30 items x 6 configurations x 2 replicates, and 0.94
to 0.96 from MLS (this module's tests). For binary scores and unbalanced
designs it is an approximation too. Each component's Satterthwaite df,
``nu = (sum_k c_k MS_k)^2 / sum_k (c_k MS_k)^2 / df_k``, is reported beside it.

Tests. The configuration effect: ``F = MS_configuration / MS_interaction`` on
``(C - 1, (I - 1)(C - 1))`` df, exact in a balanced design; unbalanced, the denominator is the
combination of interaction and residual mean squares whose expectation is the numerator's
when ``sigma2_configuration = 0``, with Satterthwaite df (an approximate F). Item x
configuration: ``MS_interaction / MS_residual``, exact (needs replicates). For a gap the
first is the test of a model x configuration interaction.

The SE of a mean over N items x C configurations x R replicates is in :func:`standard_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np
from scipy import special

from evalgap.errors import InputError, escape
from evalgap.stats import _validate
from evalgap.stats._types import ArrayLike, BoolArray, FloatArray, FloatOrArray, IntArray
from evalgap.stats.power import z_sum_squared

__all__ = [
    "COMPONENTS",
    "ConfigurationComponents",
    "FTest",
    "MeanInterval",
    "ModelComponents",
    "PlannedDesign",
    "cheapest_design",
    "decompose",
    "decompose_gap",
    "decompose_models",
    "expected_half_width",
    "model_configuration_interaction",
    "normal_required_items",
    "required_configurations",
    "required_items",
    "standard_error",
]

COMPONENTS = ("item", "configuration", "item_configuration", "residual")


@dataclass(frozen=True)
class FTest:
    """An F test: its statistic, degrees of freedom and p-value (NaN when not computable)."""

    statistic: float
    df_numerator: float
    df_denominator: float
    p_value: float


@dataclass(frozen=True)
class MeanInterval:
    """The observed mean score (or gap) with its SE, df and interval."""

    mean: float
    standard_error: float
    df: float
    lower: float
    upper: float


@dataclass(frozen=True)
class ConfigurationComponents:
    """The four variance components of a score (or a gap), in the order of ``COMPONENTS``.

    Attributes
    ----------
    estimate : ndarray (4,)
        Method-of-moments estimates of ``sigma2_item``, ``sigma2_configuration``,
        ``sigma2_item_configuration`` and ``sigma2_residual`` (unbiased; may be negative).
    lower, upper : ndarray (4,)
        The modified large-sample interval of each component at ``confidence`` (lower bound
        at least 0).
    df : ndarray (4,)
        Satterthwaite degrees of freedom of each estimate (NaN when it is not positive).
    share : ndarray (4,)
        Each component's share of the variance of one score, negative estimates taken as 0.
    mean_squares, mean_square_df : ndarray (4,)
        The mean squares (item, configuration, interaction, residual) and their df.
    configuration_test : FTest
        Is the configuration a source of variance (do configurations differ on the same items)?
        ``MS_configuration / MS_interaction`` in a balanced design; an approximate F with a
        denominator of matching expectation (Satterthwaite df) otherwise. For a gap, the
        test of a model x configuration interaction.
    interaction_test : FTest
        Does the item x configuration component exceed zero: ``MS_interaction / MS_residual``
        (needs replicates).
    mean : float
        The mean of all scores.
    mean_random, mean_fixed : MeanInterval
        The mean's SE and interval with the configurations a random factor (the claim is
        about configurations like these: the configuration component enters) or fixed (about
        these configurations only; the ordinary per-item interval in a balanced design).
    n_items, n_configurations, n_observations : int
        The design's size.
    balanced : bool
        Every cell has the same number of replicates (the estimator is then the ANOVA one).
    confidence : float
        The intervals' confidence level.
    """

    estimate: FloatArray
    lower: FloatArray
    upper: FloatArray
    df: FloatArray
    share: FloatArray
    mean_squares: FloatArray
    mean_square_df: FloatArray
    configuration_test: FTest
    interaction_test: FTest
    mean: float
    mean_random: MeanInterval
    mean_fixed: MeanInterval
    n_items: int
    n_configurations: int
    n_observations: int
    balanced: bool
    confidence: float

    def component(self, name: str) -> float:
        """Return the estimate of the component ``name`` (one of ``COMPONENTS``)."""
        if name not in COMPONENTS:
            raise InputError(
                "{name!b}" + escape(f" must be one of {', '.join(COMPONENTS)}; got {name!r}"),
                param="name",
            )
        return float(self.estimate[COMPONENTS.index(name)])

    def standard_error(
        self,
        n_items: ArrayLike,
        n_configurations: ArrayLike = 1,
        n_replicates: ArrayLike = 1,
        *,
        configurations: Literal["random", "fixed"] = "random",
    ) -> FloatOrArray:
        """Return the SE of a mean over a new balanced design; see :func:`standard_error`."""
        return standard_error(
            self.estimate,
            n_items,
            n_configurations,
            n_replicates,
            configurations=configurations,
        )


@dataclass(frozen=True)
class ModelComponents:
    """The components of many models (or many gaps) over the same items and configurations.

    The fields of :class:`ConfigurationComponents` stacked over models (first axis);
    ``result[m]`` is model ``m``'s :class:`ConfigurationComponents`.

    Attributes
    ----------
    estimate, lower, upper, df, share, mean_squares, mean_square_df : ndarray (models, 4)
        As in :class:`ConfigurationComponents`, one row per model.
    configuration_test, interaction_test : ndarray (models, 4)
        Each model's F test: statistic, df_numerator, df_denominator, p_value (the fields of
        :class:`FTest`).
    mean : ndarray (models,)
        Each model's mean score.
    mean_random, mean_fixed : ndarray (models, 5)
        Each model's mean interval: mean, standard_error, df, lower, upper (the fields of
        :class:`MeanInterval`).
    n_items, n_configurations : int
        The design's size.
    n_observations : ndarray (models,) of int
        Scores per model.
    balanced : ndarray (models,) of bool
        Every cell of the model's table holds the same number of scores.
    confidence : float
        The intervals' confidence level.
    """

    estimate: FloatArray
    lower: FloatArray
    upper: FloatArray
    df: FloatArray
    share: FloatArray
    mean_squares: FloatArray
    mean_square_df: FloatArray
    configuration_test: FloatArray
    interaction_test: FloatArray
    mean: FloatArray
    mean_random: FloatArray
    mean_fixed: FloatArray
    n_items: int
    n_configurations: int
    n_observations: IntArray
    balanced: BoolArray
    confidence: float

    def __len__(self) -> int:
        return int(self.mean.size)

    def __getitem__(self, model: int) -> ConfigurationComponents:
        """Return model ``model``'s components."""
        return ConfigurationComponents(
            estimate=self.estimate[model],
            lower=self.lower[model],
            upper=self.upper[model],
            df=self.df[model],
            share=self.share[model],
            mean_squares=self.mean_squares[model],
            mean_square_df=self.mean_square_df[model],
            configuration_test=FTest(*map(float, self.configuration_test[model])),
            interaction_test=FTest(*map(float, self.interaction_test[model])),
            mean=float(self.mean[model]),
            mean_random=MeanInterval(*map(float, self.mean_random[model])),
            mean_fixed=MeanInterval(*map(float, self.mean_fixed[model])),
            n_items=self.n_items,
            n_configurations=self.n_configurations,
            n_observations=int(self.n_observations[model]),
            balanced=bool(self.balanced[model]),
            confidence=self.confidence,
        )

    def to_dict(self) -> dict[str, object]:
        """Return the fields as plain Python numbers (lists over models; tests and mean
        intervals as dicts of their named fields)."""
        named: dict[str, type] = {
            "configuration_test": FTest,
            "interaction_test": FTest,
            "mean_random": MeanInterval,
            "mean_fixed": MeanInterval,
        }
        out: dict[str, object] = {}
        for name in (f.name for f in fields(self)):
            value = getattr(self, name)
            if name in named:
                keys = [f.name for f in fields(named[name])]
                out[name] = {k: value[:, i].tolist() for i, k in enumerate(keys)}
            else:
                out[name] = np.asarray(value).tolist()
        return out


def standard_error(
    components: ArrayLike,
    n_items: ArrayLike,
    n_configurations: ArrayLike = 1,
    n_replicates: ArrayLike = 1,
    *,
    configurations: Literal["random", "fixed"] = "random",
) -> FloatOrArray:
    """Return the SE of a mean score (or gap) over N items x C configurations x R replicates.

    ``Var = s2_item / N + s2_configuration / C + s2_item_configuration / (N C)
    + s2_residual / (N C R)``, negative components taken as 0 and a NaN residual (no
    replicates in the pilot: it is inside the item x configuration part) as 0. With
    ``configurations="random"`` the claim is about configurations like these, so a gap measured
    under one configuration (C = 1) carries the whole configuration component; with
    ``"fixed"`` it is about these configurations only and that term is left out. Broadcasts
    over ``n_items``, ``n_configurations`` and ``n_replicates``.

    Examples
    --------
    >>> round(float(standard_error([0.04, 0.001, 0.002, 0.05], 1000, 1)), 5)
    0.03305
    >>> round(float(standard_error([0.04, 0.001, 0.002, 0.05], 1000, 1, configurations="fixed")), 5)
    0.00959
    """
    s2 = _planned_components(components)
    if configurations not in ("random", "fixed"):
        raise InputError(
            "{configurations!b} must be 'random' or 'fixed'",
            param="configurations",
        )
    n = _validate.numbers(n_items, "n_items")
    c = _validate.numbers(n_configurations, "n_configurations")
    r = _validate.numbers(n_replicates, "n_replicates")
    if np.any(n < 1) or np.any(c < 1) or np.any(r < 1):
        raise InputError("n_items, n_configurations and n_replicates must be at least 1")
    configuration = s2[1] / c if configurations == "random" else 0.0
    variance = s2[0] / n + configuration + s2[2] / (n * c) + s2[3] / (n * c * r)
    return _validate.scalar_or_array(np.sqrt(variance))


# --- planning across configurations ---------------------------------------------------------


def _planned_components(components: ArrayLike) -> FloatArray:
    """The four components as a plan reads them: NaN (not estimable) and negative as 0."""
    s2 = np.asarray(components, dtype=float)
    if s2.shape != (4,):
        raise InputError(
            "{components!b} must hold 4 numbers: " + escape(", ".join(COMPONENTS)),
            param="components",
        )
    return np.maximum(np.nan_to_num(s2, nan=0.0), 0.0)


def _gap(delta: object) -> float:
    value = float(_validate.numbers(delta, "delta"))
    if value == 0:
        raise InputError(
            "{delta!b}" + escape(" must be non-zero: no design resolves a gap of zero"),
            param="delta",
        )
    return abs(value)


def _term_quantiles(df: ArrayLike, confidence: float) -> FloatArray:
    """Squared two-sided t quantiles at ``df``, at least the normal one (the mean interval's
    per-mean-square scaling; see :func:`_mean_interval`)."""
    tail = (1 - confidence) / 2
    z = -special.ndtri(tail)
    return np.asarray(np.maximum(special.stdtrit(df, 1 - tail), z) ** 2)


def expected_half_width(
    components: ArrayLike,
    n_items: ArrayLike,
    n_configurations: ArrayLike = 1,
    n_replicates: ArrayLike = 1,
    *,
    confidence: float = 0.95,
    configurations: Literal["random", "fixed"] = "random",
) -> tuple[FloatOrArray, FloatOrArray]:
    """Return the half-width of the mean's interval over N x C x R at the components'
    expected mean squares, and the mean's SE.

    The interval of :attr:`ConfigurationComponents.mean_random` (or ``mean_fixed``) on a
    balanced design is ``sqrt(sum_k q_k g_k MS_k)`` with ``q_k`` the squared t quantile of
    ``MS_k``'s df: ``(q_i MS_item + q_c MS_configuration - q_ic MS_interaction) / (N C R)``
    with the configurations random, ``q_i MS_item / (N C R)`` fixed. Here each mean square is
    its expectation, ``E[MS_item] = s2_e + R s2_ic + R C s2_i``, ``E[MS_configuration] = s2_e
    + R s2_ic + R N s2_c``, ``E[MS_interaction] = s2_e + R s2_ic``. With many configurations
    and items every ``q_k`` is ``z^2`` and the half-width is ``z SE``; with few
    configurations ``q_c`` (on C - 1 df) makes it wider. Broadcasts.

    Examples
    --------
    >>> half, se = expected_half_width([0.04, 0.0002, 0.01, 0.2], 1000, [4, 40], 2)
    >>> np.round(half / se, 2).tolist()      # z = 1.96 with many configurations
    [2.83, 1.97]
    """
    half, se, _ = _expected_interval(
        _planned_components(components),
        n_items,
        n_configurations,
        n_replicates,
        float(_validate.probability(confidence, "confidence")),
        configurations,
    )
    return _validate.scalar_or_array(half), _validate.scalar_or_array(se)


def _expected_interval(
    s2: FloatArray,
    n_items: ArrayLike,
    n_configurations: ArrayLike,
    n_replicates: ArrayLike,
    level: float,
    configurations: Literal["random", "fixed"],
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Half-width, SE and the SE's Satterthwaite df at the expected mean squares (the df of
    ``sum_k g_k E[MS_k]``: about C - 1 when the configurations dominate)."""
    n, c, r = np.broadcast_arrays(
        *(
            np.asarray(_validate.numbers(v, name), dtype=float)
            for v, name in (
                (n_items, "n_items"),
                (n_configurations, "n_configurations"),
                (n_replicates, "n_replicates"),
            )
        )
    )
    within = s2[3] + r * s2[2]
    item = within + r * c * s2[0]
    z2 = _term_quantiles(np.inf, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms: tuple[FloatArray, ...] = (item,)
        dfs: tuple[FloatArray, ...] = (n - 1,)
        if configurations == "random":
            terms += (within + r * n * s2[1], -within)
            dfs += (c - 1, (n - 1) * (c - 1))
        width = sum(_term_quantiles(d, level) * t for t, d in zip(terms, dfs, strict=True))
        variance = sum(terms)
        spread = sum(np.where(t != 0, t**2 / d, 0.0) for t, d in zip(terms, dfs, strict=True))
        df = np.where(spread > 0, variance**2 / spread, np.inf)
    width = np.where(np.isnan(width), np.inf, np.maximum(width, z2 * variance))
    cells = n * c * r
    return np.sqrt(width / cells), np.sqrt(variance / cells), np.where(np.isnan(df), 0.0, df)


def detectable_gap(
    components: ArrayLike,
    n_items: ArrayLike,
    n_configurations: ArrayLike = 1,
    n_replicates: ArrayLike = 1,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    configurations: Literal["random", "fixed"] = "random",
) -> FloatOrArray:
    """Return the smallest gap a mean over N x C x R resolves: ``H + t_{power, nu} SE``, the
    interval's expected half-width cleared by the power's quantile (the rule
    :func:`required_items` inverts; the configuration scale's MDE). Broadcasts.

    Examples
    --------
    >>> components = [0.04, 0.0002, 0.01, 0.2]
    >>> n = required_items(components, 0.03, n_configurations=8, n_replicates=2)
    >>> bool(detectable_gap(components, n, 8, 2) <= 0.03 < detectable_gap(components, n - 1, 8, 2))
    True
    """
    s2 = _planned_components(components)
    return _validate.scalar_or_array(
        _detectable(
            s2, np.asarray(n_items, dtype=float), np.asarray(n_configurations, dtype=float),
            np.asarray(n_replicates, dtype=float), alpha, power, configurations,
        )
    )  # fmt: skip


def _detectable(
    s2: FloatArray,
    n: FloatArray,
    c: FloatArray,
    r: FloatArray,
    alpha: float,
    power: float,
    configurations: Literal["random", "fixed"],
) -> FloatArray:
    """``H + t_{power, nu} SE`` (t on the SE's df, for the half-width's own noise)."""
    half, se, df = _expected_interval(s2, n, c, r, 1 - alpha, configurations)
    with np.errstate(invalid="ignore"):
        quantile = np.where(df > 0, special.stdtrit(np.maximum(df, 1e-9), power), np.inf)
    return np.asarray(half + quantile * se)


def _resolves(
    s2: FloatArray,
    delta: float,
    n: FloatArray,
    c: FloatArray,
    r: FloatArray,
    alpha: float,
    power: float,
    configurations: Literal["random", "fixed"],
) -> BoolArray:
    """``delta >= H + t_{power, nu} SE``: the gap clears the interval's expected half-width
    by the power's quantile."""
    return np.asarray(delta >= _detectable(s2, n, c, r, alpha, power, configurations))


def _least(
    passes: Callable[[FloatArray], BoolArray], start: FloatArray, limit: float
) -> FloatArray:
    """The least whole x >= ``start`` with ``passes(x)`` (monotone; ``start - 1`` is known to
    fail), inf where none up to ``limit``: doubling, then bisection, elementwise."""
    finite = np.isfinite(start)
    low = np.where(finite, start - 1, 0.0)
    high = np.where(finite, start, 1.0)
    ok = finite & passes(high)
    for _ in range(64):  # doubling until it passes or passes the limit
        todo = finite & ~ok & (high <= limit)
        if not todo.any():
            break
        low = np.where(todo, high, low)
        high = np.where(todo, high * 2, high)
        ok = np.where(todo, passes(np.minimum(high, 2 * limit)), ok)
    for _ in range(64):  # bisection: low fails, high passes
        todo = ok & (high - low > 1)
        if not todo.any():
            break
        middle = np.floor((low + high) / 2)
        good = passes(np.where(todo, middle, high))
        high = np.where(todo & good, middle, high)
        low = np.where(todo & ~good, middle, low)
    return np.where(ok & (high <= limit), high, np.inf)


def normal_required_items(
    components: ArrayLike,
    delta: ArrayLike,
    n_configurations: ArrayLike = 1,
    n_replicates: ArrayLike = 1,
    *,
    k: float,
    configurations: Literal["random", "fixed"] = "random",
) -> FloatOrArray:
    """Return the items a gap ``delta`` needs over C configurations x R runs with normal
    quantiles, ``K = (z_a + z_b)^2`` given: the closed form

        N = K (s2_item + s2_item_configuration / C + s2_residual / (C R))
            / (delta^2 - K s2_configuration / C),

    (*Resolution Diagnostics* Eq. 3 with the configuration term taken off the gap), inf where
    ``delta^2 <= K s2_configuration / C``: more items cannot help, only more configurations.
    Unrounded: the lower bound :func:`required_items` (the plan's and the configuration
    scale's N*) starts from.
    """
    s2 = _planned_components(components)
    gap = np.asarray(delta, dtype=float)
    c = np.asarray(n_configurations, dtype=float)
    r = np.asarray(n_replicates, dtype=float)
    random = 1.0 if configurations == "random" else 0.0
    room = gap**2 - k * random * s2[1] / c  # the part of the gap more items can resolve
    per_item = s2[0] + s2[2] / c + s2[3] / (c * r)
    with np.errstate(divide="ignore", invalid="ignore"):
        items = np.where(room > 0, k * per_item / np.where(room > 0, room, 1.0), np.inf)
    return _validate.scalar_or_array(items)


def required_items(
    components: ArrayLike,
    delta: float,
    n_configurations: ArrayLike = 1,
    n_replicates: ArrayLike = 1,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    configurations: Literal["random", "fixed"] = "random",
) -> FloatOrArray:
    """Return the fewest items N whose mean over C configurations x R runs resolves ``delta``.

    Resolves: ``delta >= H + t_{power, nu} SE`` with ``H`` the interval's half-width at the
    expected mean squares, ``SE`` the mean's (:func:`expected_half_width`) and ``nu`` its
    Satterthwaite df: the gap's interval then excludes 0 with probability about ``power``
    (measured in this module's tests by simulation at the planned designs). With every t
    quantile normal (``H = z_{1-alpha/2} SE``, ``q = z_a + z_b``) it is the closed form

        N = (s2_item + s2_item_configuration / C + s2_residual / (C R))
            / (delta^2 / q^2 - s2_configuration / C),

    a lower bound from which N rises until the inequality holds (the t quantiles of few
    configurations widen H). inf when no N does: the configuration term does not shrink
    with items (``s2_configuration / C >= delta^2 / q^2``: more configurations can help,
    more items cannot). Broadcasts over ``n_configurations`` and ``n_replicates``.

    Examples
    --------
    >>> components = [0.04, 0.0002, 0.01, 0.2]   # item, configuration, item x config, residual
    >>> required_items(components, 0.03, n_configurations=[2, 4, 8], n_replicates=2).tolist()
    [inf, 21555.0, 719.0]
    """
    s2 = _planned_components(components)
    delta = _gap(delta)
    alpha, power = (float(x) for x in _validate.levels(alpha, power, "two-sided"))
    c, r = np.broadcast_arrays(
        np.asarray(_validate.numbers(n_configurations, "n_configurations"), dtype=float),
        np.asarray(_validate.numbers(n_replicates, "n_replicates"), dtype=float),
    )
    k = float(z_sum_squared(alpha, power))
    normal = normal_required_items(s2, delta, c, r, k=k, configurations=configurations)
    start = np.where(np.isfinite(normal), np.maximum(np.ceil(normal), 2.0), np.inf)
    n = _least(
        lambda n: _resolves(s2, delta, n, c, r, alpha, power, configurations),
        start,
        _MAX_PLANNED,
    )
    return _validate.scalar_or_array(n)


def required_configurations(
    components: ArrayLike,
    delta: float,
    n_items: ArrayLike,
    n_replicates: ArrayLike = 1,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> FloatOrArray:
    """Return the fewest configurations C (seeds, providers) a claim of size ``delta`` needs
    over N items x R runs, with the configurations random.

    The least C >= 2 with ``delta >= H + t_{power, nu} SE`` (:func:`required_items`); with normal
    quantiles (``q = z_a + z_b``) the closed form

        C = (s2_configuration + s2_item_configuration / N + s2_residual / (N R))
            / (delta^2 / q^2 - s2_item / N),

    a lower bound from which C rises until the t quantile of the configurations' C - 1 df
    allows. inf when the items alone cannot resolve ``delta`` (``s2_item / N >= delta^2 /
    q^2``). Broadcasts over ``n_items`` and ``n_replicates``.

    Examples
    --------
    >>> components = [0.04, 0.0002, 0.01, 0.2]
    >>> required_configurations(components, 0.03, [500, 1000, 4000], 2).tolist()
    [15.0, 7.0, 5.0]
    """
    s2 = _planned_components(components)
    delta = _gap(delta)
    alpha, power = (float(x) for x in _validate.levels(alpha, power, "two-sided"))
    n, r = np.broadcast_arrays(
        np.asarray(_validate.numbers(n_items, "n_items"), dtype=float),
        np.asarray(_validate.numbers(n_replicates, "n_replicates"), dtype=float),
    )
    budget = delta**2 / z_sum_squared(alpha, power) - s2[0] / n
    spread = s2[1] + s2[2] / n + s2[3] / (n * r)
    with np.errstate(divide="ignore", invalid="ignore"):
        start = np.where(budget > 0, np.maximum(np.ceil(spread / budget), 2.0), np.inf)
    c = _least(lambda c: _resolves(s2, delta, n, c, r, alpha, power, "random"), start, _MAX_PLANNED)
    return _validate.scalar_or_array(c)


# Designs beyond this many items or configurations are reported as inf (none found).
_MAX_PLANNED = 1e12


@dataclass(frozen=True)
class PlannedDesign:
    """A balanced design: N items x C configurations x R runs, its SE, half-width and cost.

    Attributes
    ----------
    n_items, n_configurations, n_runs : int
        The design.
    standard_error : float
        The gap's SE over it (:func:`standard_error`).
    half_width : float
        The expected half-width of its interval (:func:`expected_half_width`).
    cost : float
        ``N cost_per_item + 2 N C R cost_per_run + C cost_per_configuration`` (both models
        run every item under every configuration R times).
    """

    n_items: int
    n_configurations: int
    n_runs: int
    standard_error: float
    half_width: float
    cost: float

    def to_dict(self) -> dict[str, float]:
        """Return the fields as plain numbers."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def cheapest_design(
    components: ArrayLike,
    delta: float,
    *,
    cost_per_item: float = 0.0,
    cost_per_run: float = 0.0,
    cost_per_configuration: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    max_configurations: int = 64,
    max_runs: int = 10,
    configurations: Literal["random", "fixed"] = "random",
) -> PlannedDesign | None:
    """Return the cheapest (N, C, R) that resolves ``delta``, or None if none up to the limits.

    For every C <= ``max_configurations`` and R <= ``max_runs`` at once, N is
    :func:`required_items`, and the design costs ``N cost_per_item + 2 N C R cost_per_run +
    C cost_per_configuration``; the least cost wins (fewer configurations, then fewer runs,
    on a tie). With the configurations random, C >= 2 when their component is above 0.

    Examples
    --------
    >>> components = [0.04, 0.0002, 0.01, 0.2]
    >>> d = cheapest_design(components, 0.03, cost_per_item=1, cost_per_run=0.05,
    ...                     cost_per_configuration=200)
    >>> d.n_items, d.n_configurations, d.n_runs, round(d.cost)
    (926, 8, 1, 3267)
    """
    for name, value in (
        ("cost_per_item", cost_per_item),
        ("cost_per_run", cost_per_run),
        ("cost_per_configuration", cost_per_configuration),
    ):
        if float(_validate.numbers(value, name)) < 0:
            raise InputError("{" + name + "!b} must be at least 0", param=name)
    c_max = _validate.whole_number(max_configurations, "max_configurations", 1)
    r_max = _validate.whole_number(max_runs, "max_runs", 1)
    c = np.arange(1, c_max + 1, dtype=float)[:, None]
    r = np.arange(1, r_max + 1, dtype=float)[None, :]
    s2 = _planned_components(components)
    n = np.asarray(
        required_items(s2, delta, c, r, alpha=alpha, power=power, configurations=configurations)
    )
    if configurations == "random" and s2[1] > 0:
        n = np.where(c < 2, np.inf, n)  # one configuration cannot show their spread
    with np.errstate(invalid="ignore"):
        cost = n * cost_per_item + 2 * n * c * r * cost_per_run + c * cost_per_configuration
    cost = np.where(np.isfinite(n), cost, np.inf)
    if not np.isfinite(cost).any():
        return None
    i, j = divmod(int(np.argmin(cost)), r_max)  # row-major: the first minimum
    best = (float(n[i, j]), float(c[i, 0]), float(r[0, j]))
    half, se, _ = _expected_interval(s2, *best, 1 - float(alpha), configurations)
    return PlannedDesign(
        n_items=int(best[0]),
        n_configurations=int(best[1]),
        n_runs=int(best[2]),
        standard_error=float(se),
        half_width=float(half),
        cost=float(cost[i, j]),
    )


def decompose(scores: ArrayLike, *, confidence: float = 0.95) -> ConfigurationComponents:
    """Return the variance components of one model's scores over items x configurations.

    Parameters
    ----------
    scores : array (items, configurations) or (items, configurations, replicates)
        Scores, NaN where a replicate is missing; a cell may be empty as long as the design
        stays connected (configurations linked through shared items).
    confidence : float
        Confidence level of the components' intervals.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> item = rng.normal(0, 0.3, (200, 1, 1))
    >>> configuration = np.array([0.0, 0.1, -0.1, 0.05])[None, :, None]
    >>> scores = item + configuration + rng.normal(0, 0.2, (200, 4, 3))
    >>> c = decompose(scores)
    >>> np.round(c.estimate, 3).tolist()
    [0.084, 0.007, -0.0, 0.04]
    >>> c.configuration_test.p_value < 1e-6
    True
    """
    y = _as_design(scores, "scores")
    return _fit(y, _validate.probability(confidence, "confidence").item())


def decompose_gap(
    scores_a: ArrayLike, scores_b: ArrayLike, *, confidence: float = 0.95
) -> ConfigurationComponents:
    """Return the variance components of the paired gap ``scores_a - scores_b``.

    Both arrays are (items, configurations[, replicates]) over the same items and
    configurations; replicate ``r`` of A is paired with replicate ``r`` of B (the same seed
    within a configuration, or any order when replicates are exchangeable). A score missing in
    either model leaves that replicate out. The result's ``configuration_test`` is the test of
    a model x configuration interaction: does the gap depend on the configuration?
    """
    a = _as_design(scores_a, "scores_a")
    b = _as_design(scores_b, "scores_b")
    if a.shape != b.shape:
        raise InputError(
            f"scores_a and scores_b must have the same shape; got {a.shape} and {b.shape}"
        )
    return _fit(a - b, _validate.probability(confidence, "confidence").item())


def decompose_models(scores: ArrayLike, *, confidence: float = 0.95) -> ModelComponents:
    """Return the variance components of many models' scores over items x configurations.

    One fit per model, vectorized: the Henderson coefficients depend only on which scores are
    missing, so models sharing that pattern (every balanced board) share one count-table
    algebra and the rest is a few passes over the array. ``result[m]`` equals
    ``decompose(scores[m])``. For many gaps, pass the differences ``a - b`` of paired arrays
    (a score missing in either model is missing in the gap).

    Parameters
    ----------
    scores : array (models, items, configurations) or (models, items, configurations, replicates)
        Scores, NaN where missing; each model's design must be connected.
    confidence : float
        Confidence level of the components' intervals.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> item = rng.normal(0, 0.3, (1, 200, 1, 1))
    >>> shift = rng.normal(0, 0.1, (3, 1, 4, 1))          # each model's configuration shifts
    >>> scores = item + shift + rng.normal(0, 0.2, (3, 200, 4, 2))
    >>> many = decompose_models(scores)
    >>> len(many), many.estimate.shape
    (3, (3, 4))
    >>> bool(np.allclose(many[1].estimate, decompose(scores[1]).estimate))
    True
    """
    y = _as_design(scores, "scores", models=True)
    return _fit_models(y, _validate.probability(confidence, "confidence").item())


def model_configuration_interaction(scores_a: ArrayLike, scores_b: ArrayLike) -> FTest:
    """Return the F test of a model x configuration interaction (the gap's configuration effect).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> a = rng.normal(0, 1, (100, 3, 2))
    >>> b = a - 0.2 - np.array([0.0, 0.0, 0.5])[None, :, None] + rng.normal(0, 0.3, (100, 3, 2))
    >>> model_configuration_interaction(a, b).p_value < 1e-6
    True
    """
    return decompose_gap(scores_a, scores_b).configuration_test


def _as_design(scores: ArrayLike, name: str, *, models: bool = False) -> FloatArray:
    """The scores as (items, configurations, replicates), or with a leading models axis."""
    try:
        y = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be an array of numbers (NaN where missing)") from None
    lead = int(models)
    if y.ndim == 2 + lead:
        y = y[..., None]
    if y.ndim != 3 + lead:
        axes = (
            "(models, items, configurations[, replicates])"
            if models
            else ("(items, configurations[, replicates])")
        )
        raise InputError(f"{name} must be an {axes} array; got {y.ndim} axes")
    if models and y.shape[0] < 1:
        raise InputError(f"{name} needs at least 1 model")
    if y.shape[lead] < 2 or y.shape[lead + 1] < 2:
        raise InputError(
            f"{name} needs at least 2 items and 2 configurations; got {y.shape[lead : lead + 2]}"
        )
    if np.isinf(y).any():
        raise InputError(f"{name} must hold finite scores or NaN")
    return y


def _fit(y: FloatArray, confidence: float) -> ConfigurationComponents:
    return _fit_models(y[None], confidence)[0]


def _fit_models(y: FloatArray, confidence: float) -> ModelComponents:
    """Fit every model of a (models, items, configurations, replicates) array.

    The Henderson coefficients depend on the cell counts alone, so models sharing one pattern
    of missing scores (every balanced board) share one count-table algebra; the rest is a few
    passes over the scores. Models with and without replicates are fitted apart (the latter on
    three components) and put back in order.
    """
    m = y.shape[0]
    step = max(1, _CHUNK_NUMBERS // max(1, y[0].size))  # models per pass over the scores
    chunks = [slice(start, start + step) for start in range(0, m, step)]
    counts = np.empty(y.shape[:3])
    for part in chunks:
        counts[part] = (~np.isnan(y[part])).sum(axis=3)
    empty = (counts.sum(axis=2) == 0).any(axis=1) | (counts.sum(axis=1) == 0).any(axis=1)
    if empty.any():
        raise InputError(
            "every item and every configuration needs at least one score" + _which(empty, m)
        )
    shared = bool((counts == counts[:1]).all())
    common = _Design(counts[:1]) if shared else None
    mean = np.empty(m)
    squares = np.empty((m, 4))
    # each chunk's count-table algebra: coefficients, df, the mean's design
    parts: list[tuple[FloatArray, FloatArray, FloatArray]] = []
    for part in chunks:
        # one pattern: one algebra for every model; else each chunk's models their own
        design = common or _Design(counts[part], first=part.start, n_models=m)
        mean[part], totals, sum_squares = _cell_sums(y[part])
        squares[part] = design.sums_of_squares(totals, sum_squares)
        if common is None or not parts:
            parts.append((design.coefficients, design.df, design.mean_design))
    coefficients, df, mean_design = (np.concatenate(v) for v in zip(*parts, strict=True))
    n = counts.sum(axis=(1, 2))
    replicated = np.broadcast_to(df[:, 3] > 0, (m,))
    out = {
        "estimate": np.full((m, 4), np.nan),
        "lower": np.full((m, 4), np.nan),
        "upper": np.full((m, 4), np.nan),
        "df": np.full((m, 4), np.nan),
        "mean_squares": np.full((m, 4), np.nan),
        "mean_square_df": np.zeros((m, 4)),
        "configuration_test": np.full((m, 4), np.nan),
        "interaction_test": np.full((m, 4), np.nan),
        "mean_random": np.full((m, 5), np.nan),
        "mean_fixed": np.full((m, 5), np.nan),
    }
    for keep in (replicated, ~replicated):
        if keep.any():
            own = slice(None) if shared else keep  # the pattern's rows of the algebra
            _solve(
                out,
                keep,
                squares[keep],
                coefficients[own],
                df[own],
                mean_design[own],
                mean[keep],
                confidence,
            )
    positive = np.maximum(np.nan_to_num(out["estimate"], nan=0.0), 0.0)
    total = positive.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, positive / total, np.nan)
    # every cell holds the same number of scores (none empty)
    balanced = counts.min(axis=(1, 2)) == counts.max(axis=(1, 2))
    return ModelComponents(
        share=share,
        mean=mean,
        n_items=int(y.shape[1]),
        n_configurations=int(y.shape[2]),
        n_observations=n.astype(int),
        balanced=balanced,
        confidence=confidence,
        **out,
    )


# Numbers per pass over the scores (a few models), so the temporaries stay in cache.
_CHUNK_NUMBERS = 1 << 20


def _cell_sums(y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per model: the grand mean, the cell totals (I, C) about it and the sum of squares."""
    observed = ~np.isnan(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(observed, y, 0.0).sum(axis=(1, 2, 3)) / observed.sum(axis=(1, 2, 3))
    centred = y - mean[:, None, None, None]  # the sums of squares ignore the grand mean
    centred[~observed] = 0.0
    return mean, centred.sum(axis=3), np.einsum("micr,micr->m", centred, centred)


def _which(bad: BoolArray, n_models: int, first: int = 0) -> str:
    """`` (model 3 of 5)`` naming the first failing model of a stack (``bad`` over models
    ``first`` on), nothing for one model."""
    return f" (model {first + int(np.argmax(bad))} of {n_models})" if n_models > 1 else ""


def _solve(
    out: dict[str, FloatArray],
    keep: BoolArray,
    squares: FloatArray,
    coefficients: FloatArray,
    df: FloatArray,
    mean_design: FloatArray,
    mean: FloatArray,
    confidence: float,
) -> None:
    """Estimates, intervals and tests of the models ``keep`` (one pattern, or one each)."""
    replicated = bool(df[0, 3] > 0)
    if not replicated:  # one score per cell: the residual lives inside the interaction
        squares, coefficients, df = squares[:, :3], coefficients[:, :3, :3].copy(), df[:, :3]
        coefficients[:, :, 2] = df  # the merged component enters each SS as the residual would
    k = df.shape[1]
    mean_squares = squares / df
    per_df = coefficients / df[:, :, None]
    # each component as a combination of mean squares: estimate = weights @ mean_squares
    weights: FloatArray = np.linalg.inv(per_df).astype(float)
    estimate = np.einsum("...jk,...k->...j", weights, mean_squares)
    lower, upper, nu = _modified_large_sample(weights, mean_squares, df, confidence)
    out["estimate"][keep, :k] = estimate
    out["lower"][keep, :k] = lower
    out["upper"][keep, :k] = upper
    out["df"][keep, :k] = nu
    out["mean_squares"][keep, :k] = mean_squares
    out["mean_square_df"][keep, :k] = df
    for name, random in (("mean_random", True), ("mean_fixed", False)):
        out[name][keep] = _mean_interval(
            mean_design, weights, mean_squares, df, mean, confidence, random=random
        )
    out["configuration_test"][keep] = _configuration_test(per_df, mean_squares, df)
    if replicated:
        out["interaction_test"][keep] = _f_test(
            mean_squares[:, 2], df[:, 2], mean_squares[:, 3], df[:, 3]
        )
    else:
        out["interaction_test"][keep, 1:3] = np.column_stack([df[:, 2], np.zeros(len(df))])


class _Design:
    """Henderson III's count-table algebra for one or many patterns of cell counts (P, I, C).

    ``coefficients`` (P, 4, 4): the expectations of the four sums of squares in the components
    (rows: item | configuration, configuration | item, interaction, residual; columns: the
    components in the order of ``COMPONENTS``); ``df`` (P, 4). Items are absorbed, so the only
    linear system is C x C: ``A = diag(n_.c) - N' diag(1/n_i.) N``.
    """

    def __init__(self, counts: FloatArray, first: int = 0, n_models: int = 1) -> None:
        n_patterns, n_items, n_configurations = counts.shape
        filled = counts > 0
        n = counts.sum(axis=(1, 2))
        cells = filled.sum(axis=(1, 2))
        with np.errstate(divide="ignore"):
            self.inverse_counts = np.where(filled, 1 / counts, 0.0)  # empty cells: totals are 0
        self.n_item = counts.sum(axis=2)
        self.n_configuration = counts.sum(axis=1)
        self.proportions = counts / self.n_item[:, :, None]  # p_ic = n_ic / n_i.
        diagonal = np.eye(n_configurations)[None] * self.n_configuration[:, :, None]
        absorbed = diagonal - counts.transpose(0, 2, 1) @ self.proportions
        self.absorbed_inverse = np.linalg.pinv(absorbed, rcond=1e-9, hermitian=True)
        singular = np.linalg.eigvalsh(absorbed)
        # the constant vector is always in the kernel; a second null direction means two blocks
        rank = (singular > 1e-9 * singular.max(axis=1, keepdims=True)).sum(axis=1)
        if (rank != n_configurations - 1).any():
            raise InputError(
                "the design is not connected: some configurations share no items with the others"
                + _which(rank != n_configurations - 1, n_models, first)
            )
        # traces of the additive fit's projection on the cell indicators (module docstring)
        w = counts**2
        by_item = (w / self.n_item[:, :, None]).sum(axis=(1, 2))  # sum n_ic^2 / n_i.
        by_configuration = (w / self.n_configuration[:, None, :]).sum(axis=(1, 2))
        cross = w.transpose(0, 2, 1) @ self.proportions
        spread = (
            np.eye(n_configurations)[None] * w.sum(axis=1)[:, :, None]
            - cross
            - cross.transpose(0, 2, 1)
            + (self.proportions * w.sum(axis=2)[:, :, None]).transpose(0, 2, 1) @ self.proportions
        )
        trace_cells = by_item + np.einsum("pcd,pdc->p", self.absorbed_inverse, spread)
        self.df = np.column_stack(
            [
                np.full(n_patterns, n_items - 1.0),
                np.full(n_patterns, n_configurations - 1.0),
                cells - n_items - n_configurations + 1.0,
                n - cells,
            ]
        )
        if (self.df[:, 2] < 1).any():
            raise InputError(
                "the design has no item x configuration degrees of freedom: too few cells hold "
                "scores" + _which(self.df[:, 2] < 1, n_models, first)
            )
        # the mean's variance per component: sum n_i.^2, sum n_.c^2, sum n_ic^2 (over n^2), 1 / n
        self.mean_design = np.column_stack(
            [
                (self.n_item**2).sum(axis=1) / n**2,
                (self.n_configuration**2).sum(axis=1) / n**2,
                w.sum(axis=(1, 2)) / n**2,
                1 / n,
            ]
        )
        zero = np.zeros(n_patterns)
        self.coefficients = np.stack(
            [
                np.column_stack(
                    [n - by_configuration, zero, trace_cells - by_configuration, self.df[:, 0]]
                ),
                np.column_stack([zero, n - by_item, trace_cells - by_item, self.df[:, 1]]),
                np.column_stack([zero, zero, n - trace_cells, self.df[:, 2]]),
                np.column_stack([zero, zero, zero, self.df[:, 3]]),
            ],
            axis=1,
        )

    def sums_of_squares(self, totals: FloatArray, sum_squares: FloatArray) -> FloatArray:
        """The four sums of squares (M, 4) of the models' cell totals (M, I, C) about their means
        (the design's one pattern, or one per model).

        ``R(b | mu, a) = q' A^- q`` with ``q = y_.c - N' ybar_i.``; the other reductions are
        sums of squared totals over counts.
        """
        reduction_cells = (totals**2 * self.inverse_counts).sum(axis=(1, 2))
        row_totals = totals.sum(axis=2)
        column_totals = totals.sum(axis=1)
        reduction_items = (row_totals**2 / self.n_item).sum(axis=1)
        reduction_configurations = (column_totals**2 / self.n_configuration).sum(axis=1)
        q = column_totals - (row_totals[:, None, :] @ self.proportions)[:, 0, :]
        given_items = np.einsum("...c,...cd,...d->...", q, self.absorbed_inverse, q)
        additive = reduction_items + given_items
        squares = np.column_stack(
            [
                additive - reduction_configurations,
                given_items,
                reduction_cells - additive,
                sum_squares - reduction_cells,
            ]
        )
        return np.maximum(squares, 0.0)


def _modified_large_sample(
    weights: FloatArray, mean_squares: FloatArray, df: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Intervals of each row's ``weights @ mean_squares``, and its Satterthwaite df.

    Vectorized over models: ``weights`` (P, K, K), ``mean_squares`` (M, K), ``df`` (P, K), with
    P = 1 (one pattern) or M. The modified large-sample interval of
    ``g = sum_q c_q S_q - sum_r c_r S_r`` (all ``c >= 0``; Burdick and Graybill 1992,
    Chapter 3, after Ting et al. 1990), with ``a = (1 - confidence) / 2``, ``F_u(a; n, m)``
    the upper and ``F_l(a; n, m)`` the lower ``a`` quantile of F (``m = inf`` is
    chi-square / n)::

        G_q = 1 - 1 / F_u(a; n_q, inf)        H_q = 1 / F_l(a; n_q, inf) - 1
        G_qr = ((F_u(a; n_q, n_r) - 1)^2 - G_q^2 F_u^2 - H_r^2) / F_u(a; n_q, n_r)
        H_qr = ((1 - F_l(a; n_q, n_r))^2 - H_q^2 F_l^2 - G_r^2) / F_l(a; n_q, n_r)
        L = g - sqrt(sum G_q^2 c_q^2 S_q^2 + sum H_r^2 c_r^2 S_r^2 + sum G_qr c_q c_r S_q S_r
                     + sum_{q < t} G*_qt c_q c_t S_q S_t)
        U = g + sqrt(sum H_q^2 c_q^2 S_q^2 + sum G_r^2 c_r^2 S_r^2 + sum H_qr c_q c_r S_q S_r)

    with ``G*_qt = ((1 - 1/F_u(a; n_q + n_t, inf))^2 (n_q + n_t)^2 / (n_q n_t)
    - G_q^2 n_q / n_t - G_t^2 n_t / n_q) / (P - 1)`` over the P positive terms. For one
    positive term it is the exact chi-square interval. The lower bound is kept at 0 or above.
    """
    tail = (1 - confidence) / 2
    chi_upper = special.chdtri(df, tail) / df  # F_u(a; n, inf)
    chi_lower = special.chdtri(df, 1 - tail) / df  # F_l(a; n, inf)
    g = (1 - 1 / chi_upper)[:, None, :]  # (P, 1, K): over the mean squares of each row
    h = (1 / chi_lower - 1)[:, None, :]
    terms = weights * mean_squares[:, None, :]  # (M, K rows, K mean squares)
    plus, minus = terms > 0, terms < 0
    v_low = (np.where(plus, g * terms, 0.0) ** 2 + np.where(minus, h * terms, 0.0) ** 2).sum(-1)
    v_up = (np.where(plus, h * terms, 0.0) ** 2 + np.where(minus, g * terms, 0.0) ** 2).sum(-1)
    # pairs (q positive, r negative): (P, 1, K, K) coefficients, (M, K, K, K) products
    dq, dr = df[:, :, None], df[:, None, :]
    f_u = special.fdtri(dq, dr, 1 - tail)
    f_l = special.fdtri(dq, dr, tail)
    g_q, h_q = g[:, 0, :, None], h[:, 0, :, None]
    g_r, h_r = g[:, 0, None, :], h[:, 0, None, :]
    g_qr = (((f_u - 1) ** 2 - (g_q * f_u) ** 2 - h_r**2) / f_u)[:, None]
    h_qr = (((1 - f_l) ** 2 - (h_q * f_l) ** 2 - g_r**2) / f_l)[:, None]
    opposite = (plus[:, :, :, None] & minus[:, :, None, :]) * (
        terms[:, :, :, None] * -terms[:, :, None, :]
    )
    v_low += (g_qr * opposite).sum(axis=(2, 3))
    v_up += (h_qr * opposite).sum(axis=(2, 3))
    # pairs of positive terms q < t
    pooled_df = dq + dr
    pooled = 1 - 1 / (special.chdtri(pooled_df, tail) / pooled_df)
    g_star = (pooled**2 * pooled_df**2 / (dq * dr) - g_q**2 * dq / dr - g_r**2 * dr / dq)[:, None]
    above = np.triu(np.ones((df.shape[1],) * 2, dtype=bool), 1)
    both = plus[:, :, :, None] & plus[:, :, None, :] & above
    n_plus = plus.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        products = np.where(both, g_star * terms[:, :, :, None] * terms[:, :, None, :], 0.0)
        v_low += np.where(n_plus > 1, products.sum(axis=(2, 3)) / (n_plus - 1), 0.0)
    estimate = terms.sum(axis=2)
    lower = np.maximum(estimate - np.sqrt(np.maximum(v_low, 0.0)), 0.0)
    upper = np.maximum(estimate + np.sqrt(np.maximum(v_up, 0.0)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = estimate**2 / (terms**2 / df[:, None, :]).sum(axis=2)
    return lower, upper, np.where(estimate > 0, nu, np.nan)


def _mean_interval(
    mean_design: FloatArray,
    weights: FloatArray,
    mean_squares: FloatArray,
    df: FloatArray,
    mean: FloatArray,
    confidence: float,
    *,
    random: bool,
) -> FloatArray:
    """The grand mean's variance as a combination of mean squares, and its interval.

    Returns (M, 5): mean, SE, df, lower, upper (the fields of :class:`MeanInterval`).
    ``mean_design`` (P, 4) holds the four sums over ``n^2`` (the last, ``1 / n``); with one
    score per cell the residual is inside the interaction term and the last is not used.
    ``Var(ybar) = s2_i sum n_i.^2 / n^2 + s2_c sum n_.c^2 / n^2 + s2_ic sum n_ic^2 / n^2
    + s2_e / n`` (the configuration term only for random configurations); with the estimates
    written as ``weights @ mean_squares`` it is ``sum_k g_k MS_k``. Balanced, it is
    ``(MS_item + MS_configuration - MS_interaction) / (I C r)`` (random) or
    ``MS_item / (I C r)`` (fixed). A non-positive combination keeps its positive terms.

    The interval's half-width is ``sqrt(sum_k t_k^2 g_k MS_k)``, each term scaled by the t
    quantile of its own mean square's df (and at least the normal one), rather than one t
    quantile at Satterthwaite's df: with few configurations the configuration term dominates
    and its df are few, and Satterthwaite's t interval then covered 0.93 where 0.95 was asked
    (4 configurations; 3 configurations: 0.929), because its estimated df grow exactly when
    the configuration mean square comes out small. With one term the interval is the exact
    t interval; with several it is conservative (0.955 to 0.98 where 0.95 was asked, measured
    in this module's tests). ``df`` reports Satterthwaite's df of the variance.
    """
    design = mean_design[:, : df.shape[1]] * ([1.0, float(random), 1.0, 1.0][: df.shape[1]])
    terms = np.einsum("pj,pjk->pk", design, weights) * mean_squares
    terms = np.where((terms.sum(axis=1, keepdims=True) <= 0) & (terms <= 0), 0.0, terms)
    variance = terms.sum(axis=1)
    denominator = (terms**2 / df).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = np.where(denominator > 0, variance**2 / denominator, np.nan)
    quantiles = _term_quantiles(df, confidence)
    z2 = _term_quantiles(np.inf, confidence)
    half = np.sqrt(np.maximum((quantiles * terms).sum(axis=1), z2 * variance))
    return np.column_stack([mean, np.sqrt(variance), nu, mean - half, mean + half])


def _configuration_test(per_df: FloatArray, mean_squares: FloatArray, df: FloatArray) -> FloatArray:
    """F (or approximate F) of the configuration main effect, (M, 4) as in :class:`FTest`.

    The denominator is the combination of the interaction and residual mean squares whose
    expectation equals the numerator's when ``sigma2_configuration = 0``; in a balanced design
    (or without replicates) it is ``MS_interaction`` alone and the F test exact.
    """
    if df.shape[1] == 3:
        return _f_test(mean_squares[:, 1], df[:, 1], mean_squares[:, 2], df[:, 2])
    weight = per_df[:, 1, 2] / per_df[:, 2, 2]
    rest = 1.0 - weight  # the residual's share; per_df[:, :, 3] is 1 in every row
    exact = np.abs(rest) < 1e-9  # balanced: MS_interaction alone
    weight, rest = np.where(exact, 1.0, weight), np.where(exact, 0.0, rest)
    parts = np.column_stack([weight * mean_squares[:, 2], rest * mean_squares[:, 3]])
    denominator = parts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df_denominator = np.where(
            rest == 0, df[:, 2], denominator**2 / (parts**2 / df[:, 2:]).sum(axis=1)
        )
    return _f_test(mean_squares[:, 1], df[:, 1], denominator, df_denominator)


def _f_test(
    numerator: FloatArray,
    df_numerator: FloatArray,
    denominator: FloatArray,
    df_denominator: FloatArray,
) -> FloatArray:
    """Statistic, df and p-value (M, 4) of F tests; NaN statistic and p where not computable."""
    numerator, df_numerator, denominator, df_denominator = np.broadcast_arrays(
        numerator, df_numerator, denominator, df_denominator
    )
    valid = (df_numerator > 0) & (df_denominator > 0) & (denominator > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.where(valid, numerator / denominator, np.nan)
        p = np.where(valid, special.fdtrc(df_numerator, df_denominator, statistic), np.nan)
    return np.column_stack([statistic, df_numerator, df_denominator, p]).astype(float)
