"""The recipe of ``compare`` on one pair: is the gap real, and could this benchmark resolve it?

The front door :func:`evalgap.jobs.compare.compare` reads what it is given and hands one pair
here (its variants -- by group, weighted, on the gold scale -- build on this recipe, so it sits
below them and the front door above). Given a 2x2 table or two aligned score arrays,
:func:`compare_counts` and :func:`compare_scores` run every paired test that fits the data
(the McNemar family for binary scores; the paired t and sign-flip tests for graded scores;
the paired bootstrap of Definition 2 for both), interval estimates of the gap, and the
resolution diagnostics of *Resolution Diagnostics* Section 3: N* (Eq. 3/6), the MDE (Eq. 4),
q = N/N* and the verdict, with a bootstrap interval for N* and the correlation sensitivity of
Section 6.2.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._pages import MarkdownPage
from evalgap.jobs._scale_parts import DesignScale, GoldScale
from evalgap.jobs.fragility import Fragility, pair_fragility
from evalgap.jobs.pair_tests import PairTests, pair_tests
from evalgap.stats import _validate, intervals, resample, tests
from evalgap.stats import pair_estimate as pe
from evalgap.stats import power as pw
from evalgap.stats.paired import (
    PairedSummary,
    counts_from_scores,
    is_binary,
    summarize_counts,
    summarize_moments,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure
    from rich.console import Console

    from evalgap._scores import AlignmentReport
    from evalgap.stats._types import Alternative, ArrayLike, CountOrArray, FloatOrArray
    from evalgap.stats.intervals import Interval

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_REQUIRED_N_BOOTSTRAP = 500  # Appendix I: "N* CI, B = 500 bootstrap"
DEFAULT_PERMUTATIONS = 10_000
CORRELATION_SHIFT = pw.CORRELATION_SHIFT


@dataclass(frozen=True, repr=False)
class PValues(Result):
    """p-values of one comparison, by test; None where a test does not apply.

    Not a table (no ``to_frame()``): its entries are the rows of
    :meth:`CompareResult.to_frame` (one per test).

    Attributes
    ----------
    mcnemar, mcnemar_cc : float or None
        McNemar's chi-square test, without and with continuity correction (binary scores).
    exact, mid_p : float or None
        The exact conditional binomial test on the discordant items, and its mid-p.
    paired_t, sign_flip : float or None
        The paired t test and the sign-flip permutation test (graded scores).
    bootstrap : float or None
        The paired percentile bootstrap of Definition 2.
    """

    mcnemar: float | None = None
    mcnemar_cc: float | None = None
    exact: float | None = None
    mid_p: float | None = None
    paired_t: float | None = None
    sign_flip: float | None = None
    bootstrap: float | None = None

    def __repr__(self) -> str:
        given = {k: v for k, v in self.to_dict().items() if v is not None}
        return f"PValues({', '.join(f'{k}={v:.4g}' for k, v in given.items())})"


@dataclass(frozen=True, repr=False)
class RequiredNInterval(Result):
    """Bootstrap percentile interval of N* (Section 6.1, Appendix I).

    Not a table (no ``to_frame()``): an interval of one number (N*), part of
    :class:`CompareResult`.

    Attributes
    ----------
    low, high : float
        The 5th and 95th percentiles of N* over the resamples (``inf`` when a resample has
        no gap; None in JSON).
    level : float
        The interval's coverage, 0.90.
    n_resamples : int
        Bootstrap draws.
    straddles_n : bool
        True when the interval contains the benchmark's size N: the verdict is not robust.
    """

    low: float
    high: float
    level: float
    n_resamples: int
    straddles_n: bool
    _headline = ("low", "high", "straddles_n")


@dataclass(frozen=True, repr=False)
class CorrelationSensitivity(Result):
    """The verdict recomputed at a perturbed correlation (clamped to the admissible range).

    Not a table (no ``to_frame()``): one row of ``CompareResult.correlation_sensitivity``.

    Attributes
    ----------
    correlation : float
        The perturbed correlation (Section 6.2: the estimate -/+ 0.1, clamped).
    required_n : int or None
        N* at that correlation.
    resolution_ratio : float
        q = N / N* at that correlation.
    resolved : bool
        Whether q >= 1.
    """

    correlation: float
    required_n: int | None
    resolution_ratio: float
    resolved: bool
    _headline = ("correlation", "required_n", "resolved")


@dataclass(frozen=True, repr=False)
class BootstrapResult(Result):
    """The paired percentile bootstrap of Definition 2.

    Not a table (no ``to_frame()``): a few numbers of one pair;
    :meth:`CompareResult.to_frame` holds its p-value.

    Attributes
    ----------
    n_resamples : int or None
        Monte Carlo draws; None for the exact bootstrap.
    seed : int or None
        The seed of the Monte Carlo draws; None for the exact bootstrap.
    p_value : float
        The bootstrap p-value.
    ci : Interval
        The percentile interval of the gap.
    method : str
        ``"exact"`` for binary pairs (the bootstrap law summed over the 2x2 multinomial: no
        resamples, no seed, no Monte Carlo error) or ``"monte_carlo"`` for graded scores.
    monte_carlo_se : float or None
        The standard error of a Monte Carlo p-value.
    """

    method: str
    n_resamples: int | None
    seed: int | None
    p_value: float
    monte_carlo_se: float | None
    ci: intervals.Interval
    _headline = ("method", "p_value")

    @property
    def p_floor(self) -> float:
        """The resolution of a Monte Carlo p-value (1/B); 0 for the exact bootstrap."""
        return 1.0 / self.n_resamples if self.n_resamples else 0.0


@dataclass(frozen=True, repr=False)
class CompareResult(MarkdownPage, Result):
    """Everything ``evalgap compare`` reports about one paired gap (A minus B), on any scale.

    The headline -- ``delta``, ``se``, ``ci``, ``p_value``, ``required_n``, ``mde``,
    ``resolution_ratio``, ``resolved`` and the verdict -- is ``estimate``, the gap on the
    board's scale. On the paired scale (plain scores, counts) every test, interval and
    diagnostic below is computed. On the gold scale (``gold_column=``/``gold=``: the judge's
    gap corrected by gold labels, PPI++) the part ``gold`` holds how the gap was made and how
    the judge departs from the gold; on the design scale (``weights=``: items sampled with
    unequal probabilities, Horvitz-Thompson) the part ``design`` holds the design's figures.
    There, ``binary``, the counts ``both_correct``..``both_wrong``, ``correlation`` and
    ``sd_diff`` describe the scores as compared item by item (the judge's; the sample's,
    unweighted), ``accuracy_a``/``accuracy_b`` are each model's score on the scale, and the
    paired-only figures are left out (``p_values`` empty, ``intervals`` the headline's
    alone, no bootstrap, N* interval, correlation sensitivity or items to flip).

    Attributes
    ----------
    model_a, model_b : str
        The two models; the gap is A minus B.
    binary : bool
        True for 0/1 scores (McNemar family), False for graded scores.
    n_items : int
        Items both models scored (N).
    accuracy_a, accuracy_b, delta : float
        Mean scores and their difference on those items.
    both_correct, a_only, b_only, both_wrong : int or None
        The 2x2 cells (binary); for graded scores ``a_only``/``b_only`` count the items where
        A or B scored higher and the other two are None.
    correlation : float or None
        The per-item correlation of the two models' scores (None when a model is constant).
    sd_diff, se : float
        sigma_D, the SD of the per-item differences (Eq. 2), and the SE of the gap.
    alpha, power, alternative
        The settings.
    p_values : PValues
        Every test that fits the data.
    ci : Interval
        The primary interval of the gap (Newcombe for binary, bootstrap for graded scores):
        ``estimate.ci``.
    intervals : tuple of Interval
        Every interval computed.
    required_n : int or None
        N*, the items needed to resolve this gap at (alpha, power) (Eq. 3/6).
    required_n_discordant : int or None
        Connor's discordance-form N* (binary).
    mde : float or None
        The minimum detectable effect at N items (Eq. 4).
    resolution_ratio : float or None
        q = N / N*; the benchmark resolves the gap when q >= 1.
    resolved : bool
        Whether q >= 1.
    unpaired_required_n : int or None
        N* if the items were not paired (the calculator pitfall).
    paired_efficiency : float or None
        unpaired N* / paired N*.
    required_n_interval : RequiredNInterval or None
        The bootstrap interval of N* (Section 6.1).
    correlation_sensitivity : tuple of CorrelationSensitivity
        N* and the verdict at rho -/+ 0.1 (Section 6.2).
    bootstrap : BootstrapResult or None
        The paired bootstrap (None when skipped).
    estimate : PairEstimate
        The gap on its scale (:mod:`evalgap.stats.pair_estimate`; ``"paired"`` unless the
        board resolves another): ``delta``, ``se``, ``ci``, ``required_n``,
        ``resolution_ratio`` and ``resolved`` are its figures, and ``p_value`` its test's
        (the exact McNemar test for binary scores, the paired t test for graded ones).
    fragility : Fragility or None
        Items to flip: for each test the verdict uses (exact and chi-square, or paired t and
        sign test, and resolution), the fewest items whose removal reverses it, and which.
    alignment : AlignmentReport or None
        What the alignment kept and left out (per-item inputs).
    notes : tuple of str
        Everything the result needs said beside the numbers.
    gold : GoldScale or None
        On the gold scale: the gold labels, the weight on the judge, the gap from the gold
        labels alone, the judge's own gap and its bias per model and between the two
        (:class:`evalgap.jobs._scale_parts.GoldScale`); None on other scales.
    design : DesignScale or None
        On the design scale: the strata, the unweighted gap, the weights and Kish's effective
        sample size (:class:`evalgap.jobs._scale_parts.DesignScale`); None on other scales.
    configuration : ConfigurationsResult or None
        With ``configurations=`` (scores read with ``config_columns``): the gap's variance
        components over the configurations, the model x configuration and item x
        configuration tests and the errored samples per configuration
        (:class:`evalgap.ConfigurationsResult`); with ``configurations="random"`` the
        headline is the gap over configurations like these (the ``configuration`` scale).
    p_value : float
        The headline test's p-value (a property, in the JSON).
    significant : bool
        Whether that test rejects at alpha, never with too few differing items (a property,
        in the JSON).
    verdict : str
        One plain sentence (a property).
    """

    model_a: str
    model_b: str
    binary: bool
    n_items: int
    accuracy_a: float
    accuracy_b: float
    delta: float
    both_correct: int | None
    a_only: int
    b_only: int
    both_wrong: int | None
    correlation: float | None
    sd_diff: float
    se: float
    alpha: float
    power: float
    alternative: str
    p_values: PValues
    ci: intervals.Interval
    intervals: tuple[intervals.Interval, ...]
    required_n: int | None
    required_n_discordant: int | None
    mde: float | None
    resolution_ratio: float | None
    resolved: bool
    unpaired_required_n: int | None
    paired_efficiency: float | None
    required_n_interval: RequiredNInterval | None
    correlation_sensitivity: tuple[CorrelationSensitivity, ...]
    bootstrap: BootstrapResult | None
    estimate: pe.PairEstimate
    fragility: Fragility | None = None
    alignment: AlignmentReport | None = None
    notes: tuple[str, ...] = field(default=())
    gold: GoldScale | None = None
    design: DesignScale | None = None
    configuration: Result | None = None  # a ConfigurationsResult (evalgap.jobs.configurations)
    _derived = ("p_value", "significant", "verdict")
    _headline = ("delta", "n_items", "required_n")

    @property
    def p_value(self) -> float:
        """The headline test's p-value, ``estimate.p_value`` (exact McNemar for binary scores,
        paired t for graded ones, on the paired scale; the PPI++ t test on the gold scale;
        the design-based z test on the design scale)."""
        return float(self.estimate.p_value)

    @property
    def confidence_interval(self) -> Interval:
        """The weighted comparison's former name of ``ci`` (kept for one release)."""
        import warnings

        warnings.warn(
            "CompareResult.confidence_interval (the weighted comparison's) is renamed ci; use "
            "result.ci",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.ci

    @property
    def significant(self) -> bool:
        """Whether the headline test rejects ``delta = 0`` at alpha (toward the alternative);
        never with fewer differing items than any valid test needs."""
        return self.p_value < self.alpha and not self.too_few_items

    @property
    def too_few_items(self) -> bool:
        """Whether fewer items differ than any valid test needs at alpha (the tests give no
        verdict, and N*, the MDE and q are not estimated)."""
        return any(note.startswith("too few items") for note in self.notes)

    @property
    def verdict(self) -> str:
        """One plain sentence: what the tests say and whether the benchmark resolves the gap."""
        from evalgap.report.sentences import compare_verdict

        return compare_verdict(self)

    def to_frame(self) -> pd.DataFrame:
        """Return the tests as a table: one row per test with its p-value.

        Returns
        -------
        pandas.DataFrame
            Columns ``test, p_value``, for the tests that apply to these scores; on the
            gold scale ``ppi_t`` (the headline), ``gold_only_t`` and the judge's own test
            (``judge_exact_mcnemar`` or ``judge_paired_t``), on the design scale
            ``design_z``.
        """
        import pandas as pd

        rows = [(k, v) for k, v in self.p_values.to_dict().items() if v is not None]
        if self.gold is not None:
            judge = "judge_" + self.gold.judge.test.lower().replace(" ", "_")
            rows = [("ppi_t", self.p_value), ("gold_only_t", self.gold.gold_only_p),
                    (judge, self.gold.judge.p_value)]  # fmt: skip
        elif self.design is not None:
            rows = [("design_z", self.p_value)]
        return pd.DataFrame(rows, columns=["test", "p_value"])

    _heading: ClassVar[str] = "evalgap compare"

    def _render(self, console: Console) -> None:
        if self.configuration is not None:
            from evalgap.report.configurations import render_configuration_compare

            render_configuration_compare(self, console)
            return
        from evalgap.report.terminal import render_compare

        render_compare(self, console)

    def _figure(self) -> Figure:
        from evalgap.report.plots import compare_figure

        return compare_figure(self)


def compare_counts(
    both_correct: int,
    a_only: int,
    b_only: int,
    both_wrong: int,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_bootstrap_required_n: int = DEFAULT_REQUIRED_N_BOOTSTRAP,
    seed: int | None = 0,
    model_a: str = "A",
    model_b: str = "B",
    alignment: AlignmentReport | None = None,
) -> CompareResult:
    """Compare two models from the 2x2 counts of a binary evaluation on shared items.

    Runs McNemar (chi-square, continuity-corrected), the exact conditional binomial test
    and its mid-p, the paired bootstrap of Definition 2 computed exactly (its law is the
    multinomial on the four cells: no resampling, the same p whatever the seed), Wald and
    Newcombe intervals, N* (Eq. 6) with its bootstrap interval (B = ``n_bootstrap_required_n``
    multinomial draws), Connor's discordance-form N*, the MDE (Eq. 4), q and the correlation
    sensitivity. ``n_bootstrap=0`` skips the bootstrap test (any other value runs the exact
    one); ``n_bootstrap_required_n=0`` skips the N* interval. Work and memory do not grow
    with N (4e9 items take milliseconds).

    Parameters
    ----------
    both_correct, a_only, b_only, both_wrong : int
        The 2x2 counts: items both models got right, only A, only B, neither.
    alpha, power : float
        Significance level and target power, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 is that A is better.
    n_bootstrap, n_bootstrap_required_n : int
        Resamples of the bootstrap test (graded scores) and of the N* interval; 0 skips.
    seed : int or None
        Seed of every resampling step.
    model_a, model_b : str
        Labels of the two models.
    alignment : AlignmentReport, optional
        The alignment report of the scores, carried into the result.

    Returns
    -------
    CompareResult
        Tests, intervals, N*, MDE, q and the verdict.

    Examples
    --------
    >>> r = compare_counts(7986, 295, 249, 1512)
    >>> r.required_n, round(r.resolution_ratio, 2), r.resolved
    (20256, 0.5, False)
    """
    _check_settings(alpha, power, alternative, n_bootstrap, n_bootstrap_required_n, seed)
    _validate.arguments(
        both_correct=both_correct,
        a_only=a_only,
        b_only=b_only,
        both_wrong=both_wrong,
        model_a=model_a,
        model_b=model_b,
    )
    s = summarize_counts(both_correct, a_only, b_only, both_wrong)
    n = int(s.n_items)
    too_few = _too_few_items(int(s.a_only) + int(s.b_only), alpha, alternative)
    pt = pair_tests(
        binary=[True], n_items=[n], delta=[float(s.delta)], sd_diff=[float(s.sd_diff)],
        a_only=[int(s.a_only)], b_only=[int(s.b_only)], both_correct=[both_correct],
        both_wrong=[both_wrong], alpha=alpha, power=power, alternative=alternative,
    )  # fmt: skip
    p = PValues(
        mcnemar=float(pt.p_mcnemar[0]),
        mcnemar_cc=float(pt.p_mcnemar_cc[0]),
        exact=float(pt.p_exact[0]),
        mid_p=float(pt.p_mid_p[0]),
    )
    estimate = pe.paired(
        counts=(both_correct, a_only, b_only, both_wrong), alpha=alpha, power=power,
        alternative=alternative,
    )  # fmt: skip
    newcombe = estimate.ci
    wald = intervals.wald_interval(s.delta, s.se, alpha)
    boot = req_ci = None
    if n_bootstrap and not too_few:
        boot = _exact_bootstrap(s.a_only, s.b_only, n, alpha, alternative)
        p = dataclasses.replace(p, bootstrap=boot.p_value)
    if n_bootstrap_required_n and s.sd_diff > 0 and _estimable(s.delta, too_few, alternative):
        levels = _levels(alpha, power, alternative)
        bounds = pw.required_n_bootstrap_interval(
            s.a_only, s.b_only, n, n_bootstrap_required_n, seed, **levels
        )
        req_ci = _required_n_interval(bounds, n, n_bootstrap_required_n)
    variance_a = float(s.accuracy_a * (1 - s.accuracy_a))
    variance_b = float(s.accuracy_b * (1 - s.accuracy_b))
    discordant = pw.required_n_discordant(
        s.a_only, s.b_only, n, alpha=alpha, power=power, alternative=alternative
    )
    return with_fragility(
        _assemble(
            s,
            p,
            pt,
            estimate=estimate,
            all_intervals=(newcombe, wald) + ((boot.ci,) if boot else ()),
            alpha=alpha,
            power_=power,
            alternative=alternative,
            bootstrap=boot,
            req_ci=req_ci,
            variances=(variance_a, variance_b),
            cells=(int(both_correct), int(both_wrong)),
            required_discordant=discordant,
            model_a=model_a,
            model_b=model_b,
            alignment=alignment,
            extra_notes=(too_few,) if too_few else (),
            too_few=bool(too_few),
        )
    )


def with_fragility(
    result: CompareResult,
    scores_a: ArrayLike | None = None,
    scores_b: ArrayLike | None = None,
    item_ids: ArrayLike | None = None,
) -> CompareResult:
    """Return ``result`` with its items to flip (naming the items when scores and ids are
    given)."""
    fragility = pair_fragility(
        a_only=result.a_only,
        b_only=result.b_only,
        n_items=result.n_items,
        binary=result.binary,
        alpha=result.alpha,
        power=result.power,
        alternative=result.alternative,  # type: ignore[arg-type]
        model_a=result.model_a,
        model_b=result.model_b,
        required_n=result.required_n,
        resolved=result.resolved,
        scores_a=scores_a,
        scores_b=scores_b,
        item_ids=item_ids,
    )
    return dataclasses.replace(result, fragility=fragility)


def compare_scores(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: Alternative = "two-sided",
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    n_bootstrap_required_n: int = DEFAULT_REQUIRED_N_BOOTSTRAP,
    n_permutations: int = DEFAULT_PERMUTATIONS,
    seed: int | None = 0,
    model_a: str = "A",
    model_b: str = "B",
    alignment: AlignmentReport | None = None,
    item_ids: ArrayLike | None = None,
    scale: str = "paired",
) -> CompareResult:
    """Compare two models from aligned per-item scores (1-D arrays, binary or graded).

    Binary scores are reduced to their 2x2 counts and compared exactly as by
    :func:`compare_counts`. Graded scores get the paired t test, the sign-flip permutation
    test, the paired bootstrap (Definition 2), t/Wald/bootstrap intervals and N* from the
    standard deviation of the per-item differences (Eq. 3).

    Parameters
    ----------
    scores_a, scores_b : array_like
        Aligned per-item scores of A and B (1-D, the same length, no missing values).
    n_permutations : int
        Sign-flip permutations of the graded test; 0 skips it.
    alpha, power : float
        Significance level and target power, in (0, 1).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 is that A is better.
    n_bootstrap, n_bootstrap_required_n : int
        Resamples of the bootstrap test (graded scores) and of the N* interval; 0 skips.
    seed : int or None
        Seed of every resampling step.
    model_a, model_b : str
        Labels of the two models.
    alignment : AlignmentReport, optional
        The alignment report of the scores, carried into the result.
    item_ids : array_like, optional
        The items' ids, aligned with the scores: the items to flip are then named.
    scale : str
        The scale of the headline gap, a key of
        :data:`evalgap.stats.pair_estimate.SCALES` that needs no more than the scores
        (``"paired"``; see :func:`on_scale`).

    Returns
    -------
    CompareResult
        Tests, intervals, N*, MDE, q and the verdict.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([0.9, 0.7, 0.8, 0.6, 0.95, 0.5])
    >>> b = np.array([0.8, 0.7, 0.6, 0.65, 0.9, 0.4])
    >>> r = compare_scores(a, b, n_bootstrap=0, n_bootstrap_required_n=0, n_permutations=0)
    >>> r.binary, round(r.delta, 4), round(r.p_values.paired_t, 3)
    (False, 0.0667, 0.121)
    """
    _check_settings(alpha, power, alternative, n_bootstrap, n_bootstrap_required_n, seed)
    _validate.whole_number(n_permutations, "n_permutations", 0)
    a, b = _numeric(scores_a, "scores_a"), _numeric(scores_b, "scores_b")
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError("compare_scores needs two 1-D score arrays of the same length")
    spread = 0.0  # each moment of the differences must be finite (their squares beyond 1e154 not)
    if np.isfinite(a).all() and np.isfinite(b).all():  # NaN and inf are refused below, by name
        with np.errstate(over="ignore"):
            spread = float(np.abs(a - b).max(initial=0.0))
    if spread > _validate.MAX_SCORE:
        raise InputError(
            f"scores differ by up to {spread:.3g}: beyond about 1e150 the variance of the "
            "differences overflows; rescale the scores"
        )
    if item_ids is not None and np.shape(item_ids) != a.shape:
        raise InputError(
            f"{{item_ids}} must give one id per score ({a.size}); got {np.size(item_ids)}",
            param="item_ids",
        )
    if is_binary(a) and is_binary(b):
        counted = compare_counts(
            *map(int, counts_from_scores(a, b)),
            alpha=alpha,
            power=power,
            alternative=alternative,
            n_bootstrap=n_bootstrap,
            n_bootstrap_required_n=n_bootstrap_required_n,
            seed=seed,
            model_a=model_a,
            model_b=model_b,
            alignment=alignment,
        )
        return with_fragility(on_scale(counted, scale, a, b), a, b, item_ids)
    s = summarize_moments(a, b)
    outside = bool(np.any((a < 0) | (a > 1) | (b < 0) | (b > 1)))
    n = int(s.n_items)
    if n < 2:
        raise InputError("graded comparisons need at least 2 shared items")
    d = a - b
    too_few = _too_few_items(int(s.a_only) + int(s.b_only), alpha, alternative)
    # The same "no spread" as summarize_moments (spread within rounding of the scale is none).
    sd_sample = float(d.std(ddof=1)) if s.sd_diff > 0 else 0.0
    pt = pair_tests(
        binary=[False], n_items=[n], delta=[float(s.delta)], sd_diff=[float(s.sd_diff)],
        a_only=[int(s.a_only)], b_only=[int(s.b_only)], sd_sample=[sd_sample], alpha=alpha,
        power=power, alternative=alternative,
    )  # fmt: skip
    p = PValues(paired_t=float(pt.p_paired_t[0]))
    if n_permutations:
        flip = tests.sign_flip_test(
            a,
            b,
            n_resamples=n_permutations,
            alternative=alternative,
            seed=resample.child_seed(seed, "sign_flip"),
        )
        p = dataclasses.replace(p, sign_flip=float(flip.p_value))
    t_ci = pt.interval(0)
    wald = intervals.wald_interval(s.delta, s.se, alpha)
    boot = req_ci = None
    if n_bootstrap and not too_few:
        draws = resample.paired_bootstrap(
            d, n_bootstrap, seed, alpha=alpha, alternative=alternative
        )
        boot = _bootstrap_result(draws, seed, alpha)
        p = dataclasses.replace(p, bootstrap=boot.p_value)
    if n_bootstrap_required_n and s.sd_diff > 0 and _estimable(s.delta, too_few, alternative):
        bounds = pw.required_n_bootstrap_interval(
            n_resamples=n_bootstrap_required_n,
            seed=seed,
            differences=d,
            **_levels(alpha, power, alternative),
        )
        req_ci = _required_n_interval(bounds, n, n_bootstrap_required_n)
    estimate = pe.paired(
        a, b, alpha=alpha, power=power, alternative=alternative,
        interval=boot.ci if boot else None,
    )  # fmt: skip
    result = _assemble(
        s,
        p,
        pt,
        estimate=estimate,
        all_intervals=((boot.ci,) if boot else ()) + (t_ci, wald),
        alpha=alpha,
        power_=power,
        alternative=alternative,
        bootstrap=boot,
        req_ci=req_ci,
        variances=(float(a.var()), float(b.var())),
        cells=(None, None),
        required_discordant=None,
        model_a=model_a,
        model_b=model_b,
        alignment=alignment,
        extra_notes=((_outside_unit_interval(a, b),) if outside else ())
        + ((too_few,) if too_few else ()),
        too_few=bool(too_few),
    )
    return with_fragility(on_scale(result, scale, a, b), a, b, item_ids)


def on_scale(
    result: CompareResult, scale: str, scores_a: np.ndarray, scores_b: np.ndarray
) -> CompareResult:
    """Return ``result`` with its headline -- the gap, its SE and interval, N*, q and the
    verdict -- estimated on ``scale`` (a key of :data:`evalgap.stats.pair_estimate.SCALES`,
    called with the two score arrays); the paired tests, intervals and diagnostics stay
    beside it. The paired scale is the result as it is."""
    if scale == "paired":
        return result
    estimate = pe.SCALES[scale](
        scores_a, scores_b, alpha=result.alpha, power=result.power,
        alternative=result.alternative,
    )  # fmt: skip
    return _with_headline(result, estimate)


def _with_headline(result: CompareResult, estimate: pe.PairEstimate, **more: Any) -> CompareResult:
    """``result`` with ``estimate`` as its headline (gap, SE, interval, N*, q, resolved)."""
    q = float(estimate.resolution_ratio)
    return dataclasses.replace(
        result, estimate=estimate, delta=float(estimate.delta) + 0.0, se=float(estimate.se),
        ci=estimate.ci, required_n=pw.round_up(float(estimate.required_n)),
        resolution_ratio=None if math.isnan(q) else q, resolved=bool(estimate.resolved),
        **more,
    )  # fmt: skip


def scaled(
    paired: CompareResult,
    estimate: pe.PairEstimate,
    *,
    accuracy: tuple[float, float],
    mde: float | None,
    notes: Sequence[str],
    gold: GoldScale | None = None,
    design: DesignScale | None = None,
    configuration: Result | None = None,
) -> CompareResult:
    """The one result on a scale with its own part (gold, design): ``paired`` -- compare's
    result on the scores as compared item by item -- keeps its counts, correlation and
    alignment; its headline becomes ``estimate``, each model's score ``accuracy``, and the
    paired-only tests, intervals and diagnostics are left out (they are not this scale's)."""
    return _with_headline(
        paired, estimate, accuracy_a=float(accuracy[0]), accuracy_b=float(accuracy[1]),
        p_values=PValues(), intervals=(estimate.ci,), required_n_discordant=None, mde=mde,
        unpaired_required_n=None, paired_efficiency=None, required_n_interval=None,
        correlation_sensitivity=(), bootstrap=None, fragility=None, notes=tuple(notes),
        gold=gold, design=design, configuration=configuration,
    )  # fmt: skip


def _numeric(scores: object, name: str) -> np.ndarray:
    """Return scores as floats; strings or objects are refused (NaN is checked later)."""
    try:
        arr = np.asarray(scores)
    except (TypeError, ValueError):
        arr = np.asarray([object()])
    if arr.dtype.kind not in "biuf":
        raise InputError(f"{name} must be an array of numeric scores; got {arr.dtype} values")
    return arr.astype(float)


def _too_few_items(differing: int, alpha: float, alternative: Alternative) -> str:
    """Return the note of the minimum-items rule, or "" when there are enough items."""
    needed = int(tests.min_differing_items(alpha, alternative))
    if differing >= needed:
        return ""
    smallest_p = 2.0 ** (1 - differing) if alternative == "two-sided" else 2.0**-differing
    return (
        f"too few items: only {differing:,} item{'s' if differing != 1 else ''} differ "
        f"between the models, and at alpha={_validate.show(float(alpha))} no valid test can "
        f"reject with fewer than {needed} (all {differing:,} signs alike give a sign-flip "
        f"p of {_validate.show(min(smallest_p, 1.0))}); the bootstrap is not run, the "
        "tests give no verdict, and N*, the MDE and q are not estimated (the spread of the "
        "differences rests on those few items)"
    )


def _estimable(delta: FloatOrArray, too_few: str, alternative: Alternative) -> bool:
    """Whether N*, the MDE and q are estimated (enough differing items, tested side)."""
    return not too_few and not bool(pw.opposes_alternative(delta, alternative))


def _outside_unit_interval(a: np.ndarray, b: np.ndarray) -> str:
    low, high = min(a.min(), b.min()), max(a.max(), b.max())
    return (
        f"scores lie outside [0, 1] (from {low:g} to {high:g}): they are compared as "
        "real-valued scores; the McNemar tests need 0/1 scores"
    )


def _assemble(
    s: PairedSummary,
    p: PValues,
    pt: PairTests,
    *,
    estimate: pe.PairEstimate,
    all_intervals: tuple[intervals.Interval, ...],
    alpha: float,
    power_: float,
    alternative: Alternative,
    bootstrap: BootstrapResult | None,
    req_ci: RequiredNInterval | None,
    variances: tuple[float, float],
    cells: tuple[int | None, int | None],
    required_discordant: FloatOrArray | None,
    model_a: str,
    model_b: str,
    alignment: AlignmentReport | None,
    extra_notes: tuple[str, ...] = (),
    too_few: bool = False,
) -> CompareResult:
    """Assemble the result; N*, the MDE and q are left out (None, not resolved) when the
    differences have no spread, when fewer items differ than any valid test needs (their
    spread is not estimable from so few), and N* is infinite (q = 0) when the gap lies on the
    side a one-sided alternative does not test. The gap, its interval, N* and q are
    ``estimate``'s."""
    n = int(s.n_items)
    kw: dict[str, Any] = {"alpha": alpha, "power": power_, "alternative": alternative}
    notes = list(extra_notes)
    degenerate = bool(s.sd_diff == 0) or too_few
    against = bool(pw.opposes_alternative(float(s.delta), alternative))
    floor = float(pt.required_n_floor[0])
    if too_few:
        required = mde = q = math.nan
    elif degenerate:
        # Every item differs the same way (or not at all): the plug-in sigma_D is 0 and
        # Equations (3)-(4) would claim N* = 0 and MDE = 0, artefacts of the estimate.
        notes.append(
            "every item differs between the models in the same way, so the per-item "
            "differences have no spread and N*, the MDE and q cannot be estimated from these "
            "data; plan with an assumed correlation instead (evalgap plan)"
        )
        required = mde = q = math.nan
    else:
        required = float(estimate.required_n)
        formula = float(pt.required_n_formula[0])
        if formula < floor:
            notes.append(
                f"Eq. 3 gives N* = {formula:.3g}, fewer items than hold the "
                f"{int(tests.min_differing_items(alpha, alternative))} differing items any valid "
                f"test needs at alpha={_validate.show(float(alpha))}; N* is raised to "
                f"{math.ceil(floor * (1 - 1e-12)):,}, the items that hold that many at this "
                "sample's rate of differing items"
            )
        mde = float(pw.mde(n, s.sd_diff, **kw))
        q = float(estimate.resolution_ratio)
    if against:
        side = "A" if alternative == "greater" else "B"
        notes.append(
            f"the observed gap ({s.delta + 0.0:+.4g}) lies on the side the one-sided "
            f"alternative ({alternative}: {side} better) does not test: it is no evidence for "
            "that alternative, and no number of items resolves a gap in the tested direction "
            "from this estimate (N* infinite, q = 0)"
        )
    if req_ci is not None and not degenerate:
        # The bootstrap's N* obeys the same floor (a resample with no spread gives N* = 0).
        low, high = max(req_ci.low, floor), max(req_ci.high, floor)
        req_ci = dataclasses.replace(req_ci, low=low, high=high, straddles_n=bool(low <= n <= high))
    unpaired = math.nan  # independent items with constant scores are degenerate as well
    if variances[0] + variances[1] > 0 and not too_few and not against:
        unpaired = float(pw.unpaired_required_n(s.delta, variances[0], variances[1], **kw))
    correlation = float(s.correlation) if np.isfinite(s.correlation) else None
    if correlation is None:
        notes.append("the correlation is undefined because one model's scores are constant")
    return CompareResult(
        model_a=model_a,
        model_b=model_b,
        binary=bool(s.binary),  # one pair
        n_items=n,
        accuracy_a=float(s.accuracy_a),
        accuracy_b=float(s.accuracy_b),
        delta=float(estimate.delta),
        both_correct=cells[0],
        a_only=int(s.a_only),
        b_only=int(s.b_only),
        both_wrong=cells[1],
        correlation=correlation,
        sd_diff=float(s.sd_diff),
        se=float(estimate.se),
        alpha=float(alpha),
        power=float(power_),
        alternative=alternative,
        p_values=p,
        ci=estimate.ci,
        intervals=tuple(all_intervals),
        required_n=pw.round_up(required),
        required_n_discordant=pw.round_up(float(required_discordant))
        if required_discordant is not None and not too_few and not against
        else None,
        mde=None if degenerate else mde,
        resolution_ratio=None if degenerate else q,
        resolved=bool(estimate.resolved),
        unpaired_required_n=pw.round_up(unpaired),
        paired_efficiency=(unpaired / required)
        if math.isfinite(required) and required > 0
        else None,
        required_n_interval=req_ci,
        correlation_sensitivity=(
            _sensitivity(s, variances, n, kw)
            if correlation is not None and not too_few and not against
            else ()
        ),
        bootstrap=bootstrap,
        estimate=estimate,
        alignment=alignment,
        notes=tuple(notes),
    )


def _sensitivity(
    s: PairedSummary, variances: tuple[float, float], n: int, kw: dict[str, Any]
) -> tuple[CorrelationSensitivity, ...]:
    """N* and the verdict at rho -/+ 0.1 (Section 6.2), marginals held at their estimates."""
    out = []
    for shift in (-CORRELATION_SHIFT, CORRELATION_SHIFT):
        rho, required, q = pw.correlation_sensitivity(
            s.delta,
            variances[0],
            variances[1],
            s.correlation,
            n,
            shift,
            binary=s.binary,
            accuracy_a=s.accuracy_a,
            accuracy_b=s.accuracy_b,
            **kw,
        )
        out.append(
            CorrelationSensitivity(
                correlation=float(rho),
                required_n=pw.round_up(float(required)),
                resolution_ratio=float(q),
                resolved=bool(q >= 1),
            )
        )
    return tuple(out)


def _bootstrap_result(
    draws: resample.PairedBootstrap, seed: int | None, alpha: float
) -> BootstrapResult:
    ci = intervals.Interval(draws.low, draws.high, "bootstrap_percentile", 1.0 - alpha)
    return BootstrapResult(
        n_resamples=draws.n_resamples,
        seed=seed,
        p_value=float(draws.p_value),
        ci=ci,
        method="monte_carlo",
        monte_carlo_se=float(draws.monte_carlo_se),
    )


def _exact_bootstrap(
    a_only: CountOrArray, b_only: CountOrArray, n: int, alpha: float, alternative: Alternative
) -> BootstrapResult:
    """The bootstrap of a binary pair from its exact law (no resampling, no seed)."""
    p = float(resample.binary_bootstrap_p_value(a_only, b_only, n, alternative))
    low, high = resample.binary_bootstrap_interval(a_only, b_only, n, alpha)
    ci = intervals.Interval(float(low), float(high), "bootstrap_percentile", 1.0 - alpha)
    return BootstrapResult(
        n_resamples=None, seed=None, p_value=p, ci=ci, method="exact", monte_carlo_se=None
    )


def _required_n_interval(
    bounds: tuple[FloatOrArray, FloatOrArray], n: int, n_resamples: int
) -> RequiredNInterval:
    """The 5th-95th percentile interval of bootstrap N* (Appendix I) and whether it holds N."""
    low, high = float(bounds[0]), float(bounds[1])
    return RequiredNInterval(
        low=low,
        high=high,
        level=0.90,
        n_resamples=int(n_resamples),
        straddles_n=bool(low <= n <= high),
    )


def _levels(alpha: float, power_: float, alternative: Alternative) -> dict[str, Any]:
    return {"alpha": alpha, "power": power_, "alternative": alternative}


def _check_settings(
    alpha: float, power_: float, alternative: Alternative, n_bootstrap: int,
    n_bootstrap_required_n: int, seed: int | None,
) -> None:  # fmt: skip
    """Validate every option before any work, each error naming its parameter."""
    _validate.arguments(
        alpha=alpha,
        power=power_,
        alternative=alternative,
        n_bootstrap=n_bootstrap,
        n_bootstrap_required_n=n_bootstrap_required_n,
        seed=seed,
    )
    _validate.levels(alpha, power_, alternative)
    _validate.whole_number(n_bootstrap, "n_bootstrap", 0)
    _validate.whole_number(n_bootstrap_required_n, "n_bootstrap_required_n", 0)
    resample.seed_sequence(seed)
