"""The ``plan`` job: how many paired items does a comparison need, before running it?

Binary accuracies (``accuracy_a``, ``accuracy_b``, ``correlation``) use the McNemar-Connor
N* of Equation (6); graded scores (``delta``, ``sd_diff``) use Equation (3). With
``n_items`` the plan also gives the MDE (Eq. 4), q = N/N* and the exact power at N
(footnote 1). For binary plans it lays out what common calculators return (Table 1), the
unpaired Cohen-h shortcut and its Lemma 1 constant (Eq. 11, Corollary 1), and the
independent-samples N for contrast.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result, RowResult
from evalgap.errors import InputError, escape, fields
from evalgap.jobs._pages import Views
from evalgap.stats import _validate
from evalgap.stats import noninferiority as ni
from evalgap.stats import power as pw
from evalgap.stats._validate import check_countable

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.jobs.pilot import PilotPlan
    from evalgap.jobs.sampling_design import SamplingDesign

SHORTCUT_EPSILON = 0.05  # the epsilon of Corollary 1 reported by default


@dataclass(frozen=True, repr=False)
class Conventions(Result):
    """The ``K/h^2`` and ``2K/h^2`` sample sizes and their ``x (1 - rho)`` read-outs, rounded up.

    Not a table (no ``to_frame()``): four sample sizes of one plan, part of
    :meth:`PlanResult.to_frame`'s row.

    See :class:`evalgap.stats.power.CalculatorConventions` for which tool returns which.

    Attributes
    ----------
    one_sample_per_arm, two_sample_per_arm : int or None
        ``K/h^2`` and ``2K/h^2``: what one- and two-sample calculators return (Cohen's h).
    one_sample_shortcut, two_sample_shortcut : int or None
        The same times ``(1 - rho)``, the shortcut that halves N* (Section 4).
    """

    one_sample_per_arm: int | None
    one_sample_shortcut: int | None
    two_sample_per_arm: int | None
    two_sample_shortcut: int | None
    _headline = ("one_sample_per_arm", "one_sample_shortcut")


@dataclass(frozen=True, repr=False)
class DegradationPlan(Views, RowResult):
    """Items needed to detect an accuracy drop at a flip rate (Degradation paper, Eq. 11).

    Attributes
    ----------
    delta, flip_rate, alpha, power : float
        The drop to detect, the share of items that flip, the one-sided level and power.
    required_n : int or None
        Items needed, ``p (z_{1-alpha} + z_{1-beta})^2 / delta^2``.
    n_items : int or None
        A benchmark size to evaluate (optional).
    power_at_n, snr_at_n, detectable_drop : float or None
        At ``n_items``: the power, the signal-to-noise ratio and the smallest drop detected
        with the target power.
    verdict : str
        One plain sentence (a property).
    """

    delta: float
    flip_rate: float
    alpha: float
    power: float
    required_n: int | None
    n_items: int | None
    power_at_n: float | None
    snr_at_n: float | None
    detectable_drop: float | None
    _derived = ("verdict",)
    _headline = ("delta", "flip_rate", "required_n")

    @property
    def verdict(self) -> str:
        """One plain sentence."""
        from evalgap.report.sentences import degradation_plan_verdict

        return degradation_plan_verdict(self)

    _heading: ClassVar[str] = "evalgap plan"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_plan_degradation

        render_plan_degradation(self, console)


def plan_degradation(
    *,
    delta: float,
    flip_rate: float,
    n_items: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> DegradationPlan:
    """Return the items needed to detect ``delta`` at ``flip_rate``: ``p (z_a + z_b)^2 / delta^2``.

    With ``n_items``: the power there, ``1 - Phi(z_{1-alpha} - SNR)`` with
    ``SNR = sqrt(N / p) delta``, and the smallest drop detected with the target power
    (*When LLMs get significantly worse*, Eq. 11).

    Parameters
    ----------
    delta : float
        The accuracy drop to detect (positive).
    flip_rate : float
        Share of items whose correctness differs between the two models, in (0, 1).
    n_items : int, optional
        A benchmark size: adds the power, the SNR and the detectable drop there.
    alpha, power : float
        One-sided level and target power.

    Returns
    -------
    DegradationPlan
        Items needed, and at ``n_items`` the power and the detectable drop.

    Examples
    --------
    >>> r = plan_degradation(delta=0.005, flip_rate=0.09, n_items=25282)
    >>> r.required_n, round(r.power_at_n, 3)
    (22258, 0.843)
    """
    _validate.arguments(delta=delta, flip_rate=flip_rate, n_items=n_items, alpha=alpha, power=power)
    _validate.levels(alpha, power, "greater")
    delta = float(_validate.numbers(delta, "delta"))
    flip_rate = float(_validate.probability(flip_rate, "flip_rate"))
    if not delta > 0:
        raise InputError(
            "{delta} must be a positive accuracy drop for a degradation plan; got {value!s}",
            param="delta",
            value=_validate.show(delta),
        )
    if delta > flip_rate:
        # The drop is (c - b)/N and the flip rate (b + c)/N: a drop above it is impossible.
        raise InputError(
            "{delta:g} exceeds {flip_rate:g}: an accuracy drop comes from items that flip, so "
            "it cannot exceed the flip rate",
            param="delta",
            delta=delta,
            flip_rate=flip_rate,
        )
    if n_items is not None:
        n_items = _validate.whole_number(n_items, "n_items", 1)
    required = float(pw.degradation_required_n(delta, flip_rate, alpha=alpha, power=power))
    check_countable(required, f"a drop of {_validate.show(delta)}")
    at_n = snr = detectable = None
    if n_items is not None:
        at_n = float(pw.degradation_power(delta, flip_rate, n_items, alpha=alpha))
        snr = float(pw.degradation_snr(delta, flip_rate, n_items))
        detectable = float(
            pw.degradation_detectable_drop(flip_rate, n_items, alpha=alpha, power=power)
        )
    return DegradationPlan(
        float(delta),
        float(flip_rate),
        float(alpha),
        float(power),
        pw.round_up(required),
        n_items,
        at_n,
        snr,
        detectable,
    )


@dataclass(frozen=True, repr=False)
class NonInferiorityPlan(Views, RowResult):
    """Items needed to show a candidate no worse than a margin (Tango's test, Nam 1997).

    Attributes
    ----------
    margin, flip_rate, delta, alpha, power : float
        The margin, the expected share of items that flip, the expected drop (baseline minus
        candidate; 0 for an unchanged model), the one-sided level and the power.
    required_n : int
        Items per task needed to show non-inferiority with that power.
    verdict : str
        One plain sentence (a property).
    """

    margin: float
    flip_rate: float
    delta: float
    alpha: float
    power: float
    required_n: int
    _derived = ("verdict",)
    _headline = ("margin", "flip_rate", "required_n")

    @property
    def verdict(self) -> str:
        """One plain sentence."""
        from evalgap.report.sentences import noninferiority_plan_verdict

        return noninferiority_plan_verdict(self)

    _heading: ClassVar[str] = "evalgap plan"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_plan_degradation

        render_plan_degradation(self, console)


def plan_noninferiority(
    *,
    margin: float,
    flip_rate: float,
    delta: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> NonInferiorityPlan:
    """Return the items needed to show non-inferiority at ``margin`` (see
    :func:`evalgap.stats.noninferiority.noninferiority_required_n`).

    Parameters
    ----------
    margin : float
        The largest drop still acceptable (a share: 0.01 = one point).
    flip_rate : float
        Expected share of items whose correctness differs between the two models.
    delta : float
        Expected drop, baseline minus candidate (below the margin; 0 by default).
    alpha, power : float
        One-sided level and target power.

    Returns
    -------
    NonInferiorityPlan

    Examples
    --------
    >>> plan_noninferiority(margin=0.02, flip_rate=0.1).required_n
    1578
    """
    _validate.arguments(margin=margin, flip_rate=flip_rate, delta=delta, alpha=alpha, power=power)
    _validate.levels(alpha, power, "greater")
    delta = float(_validate.numbers(delta, "delta"))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        required = float(ni.noninferiority_required_n(flip_rate, -delta, margin, alpha, power))
    check_countable(required, f"a margin of {_validate.show(margin)}", "margin=")
    return NonInferiorityPlan(
        float(margin), float(flip_rate), delta, float(alpha), float(power), int(required)
    )


@dataclass(frozen=True, repr=False)
class PlanResult(Views, RowResult):
    """A prospective sample-size plan for one paired comparison.

    Attributes
    ----------
    accuracy_a, accuracy_b, correlation : float or None
        The binary design (expected accuracies and per-item correlation).
    delta, sd_diff : float
        The gap and sigma_D, the SD of the per-item differences (Eq. 2).
    n_items : int or None
        A benchmark size to evaluate (optional).
    alpha, power, alternative
        The settings.
    required_n : int or None
        N*, paired items needed (Eq. 3).
    mde, resolution_ratio, resolved, power_at_n
        At ``n_items``: the minimum detectable effect (Eq. 4), q = N/N*, q >= 1, the power.
    conventions : Conventions or None
        What common power calculators return for the same design (Section 4).
    unpaired_required_n, paired_efficiency : int, float or None
        N* of an unpaired design, and its ratio to the paired N*.
    lemma_constant, shortcut_ratio, shortcut_tolerance : float or None
        Lemma 1's constant, the (1 - rho) shortcut's ratio to N*, and Corollary 1's tolerance.
    correlation_bounds : tuple of float or None
        The admissible correlation range at these accuracies.
    verdict : str
        One plain sentence (a property).
    """

    accuracy_a: float | None
    accuracy_b: float | None
    correlation: float | None
    delta: float
    sd_diff: float
    n_items: int | None
    alpha: float
    power: float
    alternative: str
    required_n: int | None
    mde: float | None
    resolution_ratio: float | None
    resolved: bool | None
    power_at_n: float | None
    conventions: Conventions | None
    unpaired_required_n: int | None
    paired_efficiency: float | None
    lemma_constant: float | None
    shortcut_ratio: float | None
    shortcut_tolerance: float | None
    correlation_bounds: tuple[float, float] | None
    _derived = ("verdict",)
    _headline = ("delta", "required_n")

    @property
    def verdict(self) -> str:
        """One plain sentence summarising the plan."""
        from evalgap.report.sentences import plan_verdict

        return plan_verdict(self)

    _heading: ClassVar[str] = "evalgap plan"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_plan

        render_plan(self, console)


# Options of the plans read from files (a pilot, a reference): refused on the other plans.
FILE_PLAN_OPTIONS = (
    "model_a",
    "model_b",
    "n_strata",
    "seed",
    "output",
    "cost_per_item",
    "cost_per_run",
    "cost_per_configuration",
    "price_per_1k_tokens",
    "tokens_per_item",
    "max_runs",
    "tasks",
)


def plan(
    result: Any = None,
    /,
    *,
    accuracy_a: float | None = None,
    accuracy_b: float | None = None,
    correlation: float | None = None,
    delta: float | None = None,
    sd_diff: float | None = None,
    n_items: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
    flip_rate: float | None = None,
    margin: float | None = None,
    pilot: ScoresInput | None = None,
    reference: ScoresInput | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    n_strata: int | None = None,
    seed: int | None = None,
    output: str | Path | None = None,
    cost_per_item: float | None = None,
    cost_per_run: float | None = None,
    price_per_1k_tokens: float | None = None,
    tokens_per_item: float | None = None,
    max_runs: int | None = None,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    cost_per_configuration: float | None = None,
    **columns: Any,
) -> PlanResult | PilotPlan | SamplingDesign | DegradationPlan | NonInferiorityPlan:
    """Return a sample-size plan: the one ``evalgap plan`` makes for the same options.

    Which plan is chosen by what is given, as on the command line:

    * ``result`` (a result of :func:`evalgap.compare` or :func:`evalgap.audit`, the one
      argument given by position): the paired plan from the result's own figures, the one
      the figures give directly (binary: its ``accuracy_a`` and ``correlation``; graded, or
      a model scoring the same on every item: its ``sd_diff``; its ``n_items``, ``alpha``,
      ``power`` and alternative) for the gap ``delta`` (default: the result's own gap);
      ``n_items`` replaces the result's size. An audit plans the pair named by
      ``model_a``/``model_b`` (and ``tasks`` when it is in several), or the one pair it
      has (with several, one plan per pair is a loop over ``audit.to_frame()``'s pairs).
      Results on the gold or design scale are refused (their N* counts gold labels or a
      design's items: their own ``required_n`` says it);
    * ``reference=`` (earlier models' scores on the benchmark): a stratified item sample
      for ``model_a`` vs ``model_b`` (:func:`evalgap.plan_sampling`; ``output=`` writes its
      design file);
    * ``pilot=`` (scores with repeated runs): items x reruns (:func:`evalgap.plan_pilot`);
    * ``margin=`` with ``flip_rate=``: a non-inferiority plan (:func:`plan_noninferiority`);
    * ``flip_rate=`` with ``delta=``: a degradation plan (:func:`plan_degradation`);
    * otherwise a paired comparison: binary (``accuracy_a``, ``correlation`` and
      ``accuracy_b`` or the gap ``delta``; with neither the two accuracies are taken as equal
      and only the MDE at ``n_items`` is defined) or graded (``delta`` and ``sd_diff``).

    An option the chosen plan does not take is refused with an ``InputError`` naming it,
    never ignored; so is every number out of range (finite, in range, a number and not a
    string).

    Parameters
    ----------
    accuracy_a, accuracy_b : float, optional
        Expected accuracies of the two models, in (0, 1) (a reference plan: a new model's).
    correlation : float, optional
        Per-item correlation of the two models' scores (binary design, Eq. 5).
    delta : float, optional
        The gap A - B (binary, instead of ``accuracy_b``; graded, with ``sd_diff``; the
        drop of a degradation plan; the gap a pilot or reference plan resolves).
    sd_diff : float, optional
        sigma_D, the SD of the per-item differences (graded design).
    n_items : int, optional
        A benchmark size: adds the MDE, q and the power there (see each plan).
    alpha, power : float
        Significance level and target power.
    alternative : {"two-sided", "greater", "less"}
        The test a paired plan is for (the other plans fix it).
    flip_rate, margin : float, optional
        Degradation and non-inferiority plans.
    pilot, reference : path, list of paths or DataFrame, optional
        The files (or table) a pilot or reference plan reads.
    model_a, model_b, n_strata, seed, output, cost_per_item, cost_per_run, price_per_1k_tokens,
    tokens_per_item, max_runs, tasks, options, cost_per_configuration, **columns
        As in :func:`evalgap.plan_pilot` and :func:`evalgap.plan_sampling`
        (``cost_per_configuration``: a pilot with configuration columns).

    Returns
    -------
    PlanResult, PilotPlan, SamplingDesign, DegradationPlan or NonInferiorityPlan
        The chosen plan's result.

    Examples
    --------
    Table 1's worked example:

    >>> p = plan(accuracy_a=0.65, accuracy_b=0.60, correlation=0.30)
    >>> p.required_n, p.conventions.one_sample_shortcut, p.conventions.two_sample_shortcut
    (1028, 515, 1030)

    From a comparison already run: the items a gap of one point needs on these data.

    >>> import evalgap
    >>> r = evalgap.compare(both_correct=700, a_only=60, b_only=40, both_wrong=200)
    >>> evalgap.plan(r).required_n == r.required_n, evalgap.plan(r, delta=0.01).required_n
    (True, 7710)
    """
    from evalgap.jobs._inputs import _check_columns

    _check_columns(columns, "plan")
    _validate.arguments(
        accuracy_a=accuracy_a, accuracy_b=accuracy_b, correlation=correlation, delta=delta,
        sd_diff=sd_diff, n_items=n_items, flip_rate=flip_rate, margin=margin, alpha=alpha,
        power=power, alternative=alternative, seed=seed, n_strata=n_strata, max_runs=max_runs,
        cost_per_item=cost_per_item, cost_per_run=cost_per_run,
        price_per_1k_tokens=price_per_1k_tokens, tokens_per_item=tokens_per_item,
        cost_per_configuration=cost_per_configuration,
    )
    given = {
        "accuracy_a": accuracy_a,
        "accuracy_b": accuracy_b,
        "correlation": correlation,
        "sd_diff": sd_diff,
        "flip_rate": flip_rate,
        "margin": margin,
        "model_a": model_a,
        "model_b": model_b,
        "n_strata": n_strata,
        "seed": seed,
        "output": output,
        "cost_per_item": cost_per_item,
        "cost_per_run": cost_per_run,
        "cost_per_configuration": cost_per_configuration,
        "price_per_1k_tokens": price_per_1k_tokens,
        "tokens_per_item": tokens_per_item,
        "max_runs": max_runs,
        "tasks": tasks,
        **columns,
    }
    if options is not None:  # a loader setting counts as given when it is not the default
        given.update(_loader_settings(options))
    if result is not None:
        return _plan_from_result(
            result, delta=delta, n_items=n_items, alpha=alpha, power=power,
            alternative=alternative, given=given | {"pilot": pilot, "reference": reference},
        )  # fmt: skip
    if reference is not None:
        if pilot is not None:
            raise InputError(
                "{pilot} and {reference} are two plans; give one of them", param="pilot"
            )
        return _reference_plan(
            reference, given, model_a=model_a, model_b=model_b, accuracy_a=accuracy_a,
            accuracy_b=accuracy_b, n_items=n_items, delta=delta, alpha=alpha, power=power,
            alternative=alternative, n_strata=n_strata, seed=seed, output=output, tasks=tasks,
            options=options, columns=columns,
        )  # fmt: skip
    if pilot is not None:
        return _pilot_plan(
            pilot, given, model_a=model_a, model_b=model_b, delta=delta, alpha=alpha,
            power=power, alternative=alternative, cost_per_item=cost_per_item,
            cost_per_run=cost_per_run, cost_per_configuration=cost_per_configuration,
            price_per_1k_tokens=price_per_1k_tokens, tokens_per_item=tokens_per_item,
            n_items=n_items, max_runs=max_runs, tasks=tasks, options=options, columns=columns,
        )  # fmt: skip
    if output is not None:
        raise InputError(
            "{output}: only with {reference} (it writes the design file)", param="output"
        )
    _refuse(
        given,
        (*FILE_PLAN_OPTIONS, *_loader_settings(options), *columns),
        "{names}: only with {pilot} (a plan from a pilot) or {reference} (an item sample)",
    )
    if margin is not None:
        return _noninferiority_plan(
            given | {"n_items": n_items}, margin, flip_rate, delta, alpha, power, alternative
        )
    if flip_rate is not None:
        return _degradation_plan(given, flip_rate, delta, n_items, alpha, power, alternative)
    return _plan_paired(
        accuracy_a, accuracy_b, correlation, delta, sd_diff, n_items, alpha, power, alternative
    )


# plan(result)'s defaults of the settings a result carries (a given other value is refused)
_RESULT_SETTINGS = {"alpha": 0.05, "power": 0.8, "alternative": "two-sided"}


def _plan_from_result(
    result: Any,
    *,
    delta: float | None,
    n_items: int | None,
    alpha: float,
    power: float,
    alternative: str,
    given: dict[str, Any],
) -> PlanResult:
    """:func:`plan` from a compare or audit result's own figures (see :func:`plan`)."""
    model_a, model_b, tasks = given.pop("model_a"), given.pop("model_b"), given.pop("tasks")
    _refuse(
        given,
        given,
        "{names}: a plan from a result takes its figures from the result; give only "
        "{delta} (and {n_items} for another size)",
    )
    kind = type(result).__name__
    if kind not in ("CompareResult", "AuditResult"):
        raise InputError(
            "plan() takes a result of compare or audit as its one positional argument; "
            f"got {_validate.show(result)} ({kind})"
        )
    for name, value in (("alpha", alpha), ("power", power), ("alternative", alternative)):
        own = getattr(result, name, _RESULT_SETTINGS[name])
        if value != _RESULT_SETTINGS[name] and value != own:
            said = escape(f" is {value!r}, but the {kind} was made at {own!r}; ")
            raise InputError(
                "{" + name + "}" + said + "a plan from a result keeps the result's own: run "
                "the job again with it",
                param=name,
            )
    figures = _result_figures(result, model_a, model_b, tasks)
    settings = {
        "alpha": result.alpha,
        "power": result.power,
        "alternative": getattr(result, "alternative", "two-sided"),
    }
    return _plan_figures(figures, delta, n_items, settings)


def _plan_figures(
    f: dict[str, Any], delta: float | None, n_items: int | None, settings: dict[str, Any]
) -> PlanResult:
    """The paired plan of one pair's figures: binary from accuracy A and the correlation
    (the two define the spread at any gap), else graded from the SD of the differences."""
    gap = f["delta"] if delta is None else delta
    size = f["n_items"] if n_items is None else n_items
    rho = f["correlation"]
    if f["binary"] and rho is not None and not math.isnan(rho):
        return _plan_paired(f["accuracy_a"], None, rho, gap, None, size, **settings)
    return _plan_paired(None, None, None, gap, f["sd_diff"], size, **settings)


def _result_figures(
    result: Any, model_a: str | None, model_b: str | None, tasks: Sequence[str] | None
) -> dict[str, Any]:
    """The figures a plan takes from a result: its pair's, or the audit pair chosen."""
    names = ("binary", "n_items", "accuracy_a", "correlation", "sd_diff", "delta")
    if type(result).__name__ == "CompareResult":
        if result.gold is not None or result.design is not None:
            raise InputError(
                "plan() from a result plans paired items; this comparison is on the "
                f"{'gold' if result.gold is not None else 'design'} scale, whose N* "
                "(its required_n) counts what that scale needs"
            )
        _refuse({"model_a": model_a, "model_b": model_b, "tasks": tasks},
                ("model_a", "model_b", "tasks"),
                "{names}: a compare result has one pair; these choose an audit's")  # fmt: skip
        return {n: getattr(result, n) for n in names}
    if result.scale != "paired":
        raise InputError(
            "plan() from a result plans paired items; this audit is on the gold scale, whose "
            "N* (its pairs' required_n) counts gold labels"
        )
    frame = result.pairs.to_frame()
    keep = np.ones(len(frame), dtype=bool)
    if tasks is not None:
        keep &= frame["task"].isin(list(tasks)).to_numpy()
    named = [m for m in (model_a, model_b) if m is not None]
    for model in named:
        keep &= ((frame["model_a"] == model) | (frame["model_b"] == model)).to_numpy()
    chosen = frame[keep]
    if len(chosen) != 1:
        shown = chosen if len(chosen) else frame
        listed = ", ".join(
            f"{r.model_a} vs {r.model_b} ({r.task})" for r in shown.head(4).itertuples()
        )
        more = ", ..." if len(shown) > 4 else ""
        why = (
            "no pair of the audit matches" if not len(chosen)
            else "the audit has several pairs there; name one with {model_a} and {model_b} "
            "(and {tasks} for a task)"
        )  # fmt: skip
        raise InputError(
            why + escape(f" (pairs: {listed}{more})"),
            param="model_a" if not named or not len(chosen) else "tasks",
        )
    row = chosen.to_dict("records")[0]
    figures = {n: row[n] for n in names}
    figures["binary"] = bool(figures["binary"])
    if model_a is not None and row["model_b"] == model_a:  # named the other way round
        figures["accuracy_a"], figures["delta"] = row["accuracy_b"], -row["delta"]
    return figures


def _reference_plan(
    reference: ScoresInput,
    given: dict[str, Any],
    *,
    model_a: str | None,
    model_b: str | None,
    accuracy_a: float | None,
    accuracy_b: float | None,
    n_items: int | None,
    delta: float | None,
    alpha: float,
    power: float,
    alternative: str,
    n_strata: int | None,
    seed: int | None,
    output: str | Path | None,
    tasks: Sequence[str] | None,
    options: LoadOptions | None,
    columns: dict[str, Any],
) -> SamplingDesign:
    """Return :func:`plan`'s stratified item sample from a reference (written to ``output``
    when given), refusing the options it does not take."""
    _refuse(
        given,
        (
            "correlation",
            "sd_diff",
            "flip_rate",
            "margin",
            "cost_per_item",
            "cost_per_run",
            "cost_per_configuration",
            "price_per_1k_tokens",
            "tokens_per_item",
            "max_runs",
        ),
        "{reference} plans from the reference's scores; drop {names}",
    )
    _two_sided(alternative, "reference plans are for the two-sided test")
    if model_a is None:
        raise InputError(
            "{reference}: name model A with {model_a} (a new model with {accuracy_a})",
            param="model_a",
        )
    from evalgap.jobs.sampling_design import plan_sampling
    from evalgap.stats.stratified import DEFAULT_STRATA

    result = plan_sampling(
        reference,
        model_a=model_a,
        model_b=model_b,
        accuracy_a=accuracy_a,
        accuracy_b=accuracy_b,
        n_items=n_items,
        delta=delta,
        alpha=alpha,
        power=power,
        n_strata=DEFAULT_STRATA if n_strata is None else n_strata,
        seed=0 if seed is None else seed,
        tasks=tasks,
        options=options,
        **columns,
    )
    if output is not None:
        result.write(output)
    return result


def _pilot_plan(
    pilot: ScoresInput,
    given: dict[str, Any],
    *,
    model_a: str | None,
    model_b: str | None,
    delta: float | None,
    alpha: float,
    power: float,
    alternative: str,
    cost_per_item: float | None,
    cost_per_run: float | None,
    cost_per_configuration: float | None,
    price_per_1k_tokens: float | None,
    tokens_per_item: float | None,
    n_items: int | None,
    max_runs: int | None,
    tasks: Sequence[str] | None,
    options: LoadOptions | None,
    columns: dict[str, Any],
) -> PilotPlan:
    """Return :func:`plan`'s items x reruns plan from a pilot, refusing the options it does
    not take."""
    _refuse(
        given,
        (
            "accuracy_a",
            "accuracy_b",
            "correlation",
            "sd_diff",
            "flip_rate",
            "margin",
            "n_strata",
            "seed",
            "output",
        ),
        "{pilot} plans from the pilot's scores; drop {names}",
    )
    _two_sided(alternative, "pilot plans are for the two-sided test")
    from evalgap.jobs.pilot import DEFAULT_MAX_RUNS, plan_pilot

    return plan_pilot(
        pilot,
        model_a=model_a,
        model_b=model_b,
        delta=delta,
        alpha=alpha,
        power=power,
        cost_per_item=cost_per_item,
        cost_per_run=cost_per_run,
        cost_per_configuration=cost_per_configuration,
        price_per_1k_tokens=price_per_1k_tokens,
        tokens_per_item=tokens_per_item,
        n_items=n_items,
        max_runs=DEFAULT_MAX_RUNS if max_runs is None else max_runs,
        tasks=tasks,
        options=options,
        **columns,
    )


def _noninferiority_plan(
    given: dict[str, Any],
    margin: float,
    flip_rate: float | None,
    delta: float | None,
    alpha: float,
    power: float,
    alternative: str,
) -> NonInferiorityPlan:
    """Return :func:`plan`'s non-inferiority plan, refusing the options it does not take."""
    if flip_rate is None:
        raise InputError(
            "a non-inferiority plan takes {margin} with {flip_rate}", param="flip_rate"
        )
    _refuse(
        given,
        ("accuracy_a", "accuracy_b", "correlation", "sd_diff", "n_items"),
        "{names}: a non-inferiority plan takes {margin}, {flip_rate} and {delta} only",
    )
    _two_sided(alternative, "non-inferiority plans are one-sided already")
    return plan_noninferiority(
        margin=margin,
        flip_rate=flip_rate,
        delta=0.0 if delta is None else delta,
        alpha=alpha,
        power=power,
    )


def _degradation_plan(
    given: dict[str, Any],
    flip_rate: float,
    delta: float | None,
    n_items: int | None,
    alpha: float,
    power: float,
    alternative: str,
) -> DegradationPlan:
    """Return :func:`plan`'s degradation plan, refusing the options it does not take."""
    stray = [
        n for n in ("accuracy_a", "accuracy_b", "correlation", "sd_diff") if given[n] is not None
    ]
    if stray or delta is None:
        raise InputError(
            "a degradation plan takes {flip_rate} with {delta} (the drop to detect)"
            + (f" and not {fields(*stray)}" if stray else ""),
            param="delta",
        )
    _two_sided(alternative, "degradation plans are one-sided already")
    return plan_degradation(
        delta=delta, flip_rate=flip_rate, n_items=n_items, alpha=alpha, power=power
    )


def _loader_settings(options: LoadOptions | None) -> dict:
    """The loader settings of ``options`` that differ from their defaults, by name."""
    import dataclasses

    if options is None:
        return {}
    return {
        f.name: getattr(options, f.name)
        for f in dataclasses.fields(options)
        if getattr(options, f.name) != f.default
    }


def _refuse(given: dict, names: Iterable[str], message: str) -> None:
    """Raise ``message`` naming those of ``names`` that were given."""
    stray = [n for n in names if given.get(n) is not None]
    if stray:
        raise InputError(message.replace("{names}", fields(*stray)), param=stray[0])


def _two_sided(alternative: str, why: str) -> None:
    if alternative != "two-sided":
        raise InputError(
            "{alternative}: " + escape(why), param="alternative", alternative=alternative
        )


def _plan_paired(
    accuracy_a: float | None,
    accuracy_b: float | None,
    correlation: float | None,
    delta: float | None,
    sd_diff: float | None,
    n_items: int | None,
    alpha: float,
    power: float,
    alternative: str,
) -> PlanResult:
    """The paired plan of :func:`plan`: binary (Eq. 6) or graded (Eq. 3)."""
    alpha, power = (float(x) for x in _validate.levels(alpha, power, alternative))
    if n_items is not None:
        n_items = _validate.whole_number(n_items, "n_items", 1)
    if delta is not None:
        delta = float(_validate.numbers(delta, "delta")) + 0.0  # never a -0.0 gap
    kw: dict[str, Any] = {"alpha": alpha, "power": power, "alternative": alternative}
    binary = accuracy_a is not None or accuracy_b is not None or correlation is not None
    if binary and (sd_diff is not None or (delta is not None and accuracy_b is not None)):
        raise InputError(
            "give either accuracies with a correlation (binary; {delta} may replace "
            "{accuracy_b}) or delta with sd_diff (graded), not both",
            param="delta",
        )
    if binary:
        return _plan_binary(accuracy_a, accuracy_b, correlation, delta, n_items, kw)
    if delta is None or sd_diff is None:
        raise InputError(
            "give {accuracy_a}, {accuracy_b} (or {delta}) and {correlation} (binary scores) "
            "or {delta} and {sd_diff} (graded scores)",
            param="accuracy_a",
        )
    sd = float(_validate.positive(sd_diff, "sd_diff"))
    required = float(pw.required_n(delta, sd, **kw))
    _check_finite_required(required, delta, sd)
    return _finish(None, None, None, delta, sd, n_items, kw, required, extras={})


def _check_finite_required(required: float, delta: float, sd: float) -> None:
    if delta != 0:
        check_countable(
            required, f"a gap of {_validate.show(delta)} with sd_diff {_validate.show(sd)}"
        )


def _plan_binary(
    accuracy_a: float | None,
    accuracy_b: float | None,
    correlation: float | None,
    gap: float | None,
    n_items: int | None,
    kw: dict[str, Any],
) -> PlanResult:
    if accuracy_a is None:
        raise InputError(
            "{accuracy_a} is required for a binary plan (a proportion in (0, 1))",
            param="accuracy_a",
        )
    if correlation is None:
        raise InputError(
            "{correlation} is required for a binary plan: the per-item correlation "
            "of the two models' scores (e.g. from a previous run)",
            param="correlation",
        )
    pa = float(_validate.probability(accuracy_a, "accuracy_a"))
    rho = float(_validate.numbers(correlation, "correlation", what="a finite number in [-1, 1]"))
    if gap is not None:
        pb = pa - gap
        # 0.65 - 0.05 reads back as 0.6, not 0.6000000000000001: a 15-digit rounding is
        # taken when it moves accuracy_b by at most 2 ulps.
        rounded = float(f"{pb:.15g}")
        if abs(rounded - pb) <= 2 * math.ulp(pb):
            pb = rounded
        if gap != 0 and pb == pa:
            raise InputError(
                "{delta} is below the precision of {accuracy_a}: the two accuracies would be "
                "equal",
                param="delta",
                delta=gap,
                accuracy_a=pa,
            )
        if not 0 < pb < 1:
            raise InputError(
                "{accuracy_a:g} minus {delta:g}"
                + escape(f" gives accuracy_b = {_validate.show(pb)}, outside (0, 1); ")
                + "the gap is A minus B",
                param="delta",
                accuracy_a=pa,
                delta=gap,
            )
        accuracy_b = pb
    pb = pa if accuracy_b is None else float(_validate.probability(accuracy_b, "accuracy_b"))
    pw.check_correlation(pa, pb, rho)
    delta = pa - pb + 0.0
    if gap is not None and abs(delta - gap) <= 1e-12 * abs(gap):
        delta = gap  # the gap as given, not its rounding through the two accuracies
    sd = float(pw.sd_diff_binary(pa, pb, rho))
    if sd == 0:
        # At the edge of the admissible interval (with equal accuracies, rho = 1: the two
        # models identical), where Eq. 3 and the MDE of Eq. 4 are 0 and say nothing.
        raise InputError(
            f"correlation {_validate.show(rho)} with accuracies {_validate.show(pa)} and "
            f"{_validate.show(pb)} leaves the per-item differences no spread; choose a "
            "correlation inside the admissible interval (Equations 7-8)"
        )
    required = float(pw.required_n(delta, sd, **kw))
    _check_finite_required(required, delta, sd)
    midpoint = (pa + pb) / 2
    conventions = None
    shortcut_ratio = None
    unpaired = efficiency = None
    if delta != 0:
        c = pw.calculator_conventions(pa, pb, rho, **kw)
        conventions = Conventions(
            *(
                pw.round_up(float(x))
                for x in (
                    c.one_sample_per_arm,
                    c.one_sample_shortcut,
                    c.two_sample_per_arm,
                    c.two_sample_shortcut,
                )
            )
        )
        shortcut_ratio = float(c.one_sample_shortcut) / required if required > 0 else None
        unpaired_f = float(pw.unpaired_required_n(delta, pa * (1 - pa), pb * (1 - pb), **kw))
        unpaired = pw.round_up(unpaired_f)
        efficiency = unpaired_f / required if required > 0 else None
    lemma = float(pw.lemma_constant(midpoint, rho)) if rho < 1 else None
    extras = {
        "conventions": conventions,
        "unpaired_required_n": unpaired,
        "paired_efficiency": efficiency,
        "lemma_constant": lemma,
        "shortcut_ratio": shortcut_ratio,
        "shortcut_tolerance": (
            float(pw.shortcut_tolerance(midpoint, rho, SHORTCUT_EPSILON)) if lemma else None
        ),
        "correlation_bounds": tuple(float(x) for x in pw.correlation_bounds(pa, pb)),
    }
    return _finish(
        pa, None if accuracy_b is None else pb, rho, delta, sd, n_items, kw, required, extras
    )


def _finish(
    pa: float | None,
    pb: float | None,
    rho: float | None,
    delta: float,
    sd: float,
    n_items: int | None,
    kw: dict[str, Any],
    required: float,
    extras: dict[str, Any],
) -> PlanResult:
    mde = q = power_at_n = None
    # A zero gap is never resolved, whatever the size; otherwise the verdict needs a size.
    resolved = False if not math.isfinite(required) else None
    if n_items is not None:
        mde = float(pw.mde(n_items, sd, **kw))
        q = float(pw.resolution_ratio(n_items, required))
        resolved = bool(q >= 1)
        power_at_n = float(
            pw.power_at(delta, sd, n_items, alpha=kw["alpha"], alternative=kw["alternative"])
        )
    return PlanResult(
        accuracy_a=pa,
        accuracy_b=pb,
        correlation=rho,
        delta=delta,
        sd_diff=sd,
        n_items=None if n_items is None else int(n_items),
        alpha=float(kw["alpha"]),
        power=float(kw["power"]),
        alternative=kw["alternative"],
        required_n=pw.round_up(required),
        mde=mde,
        resolution_ratio=q,
        resolved=resolved,
        power_at_n=power_at_n,
        conventions=extras.get("conventions"),
        unpaired_required_n=extras.get("unpaired_required_n"),
        paired_efficiency=extras.get("paired_efficiency"),
        lemma_constant=extras.get("lemma_constant"),
        shortcut_ratio=extras.get("shortcut_ratio"),
        shortcut_tolerance=extras.get("shortcut_tolerance"),
        correlation_bounds=extras.get("correlation_bounds"),
    )
