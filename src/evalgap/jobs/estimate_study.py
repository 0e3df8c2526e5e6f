"""Validation study: how well does ``evalgap estimate`` recover models' scores from few items,
on models like the reference board's and unlike them? (``simulate estimate``)

Hold models of a real board out (``hold_out``): each in turn with the others as the reference
(``"each"``, leave one out), or the ``n_held_out`` strongest, weakest or randomly chosen models
together, the rest the reference (``"strongest"``, ``"weakest"``, ``"random"``: out of
distribution for the first two). A held-out model's answers are the truth (its mean over the
items it has; the benchmark is cut to those items). For each budget and draw, its score is
estimated from a sample of its items by each design, side by side:

* ``estimate``: the default, design-based estimate of :func:`evalgap.estimate` (the random
  items' mean with the reference 2PL's predictions as a control variate, its design t
  interval);
* ``random_mean``: those random items' own mean with its t interval, finite-population
  corrected (simple random sampling);
* ``model``: the 2PL's own (model-based) estimate, ``estimate(method="model")``, from the same
  random items, with its split-conformal interval;
* ``stratified_mean``: the stratified design of ``plan --reference`` at the same budget
  (strata by quantiles of the reference models' accuracy on each item, Neyman allocation
  from the variance that accuracy predicts) and its stratified mean with a normal interval;
* ``estimate_stratified``: the design-based estimate from those stratified items (the
  control variate within the strata);
* ``model_stratified``: the 2PL's estimate from those stratified items;
* ``estimate_adaptive`` (with ``adaptive_batch=BATCH``): the design-based estimate, weighted,
  from items drawn as ``estimate --next BATCH`` draws them: BATCH random items, then batches
  of BATCH drawn at random in proportion to the 2PL's variance ``p (1 - p)`` at the current
  ability with a uniform share (``uniform_share``), each item's weight the sum of its
  batches' (an item drawn again costs nothing), to the budget of distinct items;
* ``model_adaptive`` (with ``adaptive_batch=BATCH``): the 2PL's estimate from items chosen as
  ``estimate --next BATCH --next-draw informative`` proposes them: BATCH random items, then
  the BATCH most informative at the current estimate, to the budget (not random:
  model-based only).

Each row also gives its error and median interval width over the random items' mean's at the
same budget (``mae_ratio``, ``width_ratio``; the same draws for the designs on random items).

Beside them, three floors (``floor_*``, no draws: closed forms). They give the held-out
model its own 2PL ability fitted on all its items, which no design has. Two bound the
design-unbiased estimates: the difference estimator ``mean(p) + mean_S(y - p)`` from n
random items has variance ``S_e^2 / n (1 - n/N)`` (``S_e^2`` the variance of ``y - p``
over the items: a control variate cannot remove the answers' scatter around their own
probabilities), and with items drawn in proportion to ``sqrt(p (1 - p))`` (Neyman allocation
on the 2PL's own probabilities) ``mean(sqrt(p (1 - p)))^2 / n - mean(p (1 - p)) / N`` (both
finite-population corrected); a normal error's mean absolute value is ``sqrt(2 / pi)`` times
its SD. The third is where the 2PL estimate itself stops: the 2PL's mean probability at that
ability misses the model's score by ``|mean(p) - mean(y)|`` (one ability cannot describe a
model strong in some subjects and weak in others), on the ``1 - n/N`` share of the items it
predicts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._inputs import renamed_keywords
from evalgap.jobs._pages import Study
from evalgap.stats import _validate, resample, stratified, weighted
from evalgap.stats import estimate as est
from evalgap.stats.stratified import IRTFit, success_probability

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

# The designs in the order the table gives them, with their labels.
DESIGNS = {
    "estimate": "estimate (design-based), random items",
    "random_mean": "random items' mean",
    "model": "2PL (model-based), random items",
    "stratified_mean": "stratified mean",
    "estimate_stratified": "estimate (design-based), stratified items",
    "model_stratified": "2PL (model-based), stratified items",
    "estimate_adaptive": "estimate (design-based), adaptive random items",
    "model_adaptive": "2PL (model-based), most informative items",
    "floor_difference": "design-unbiased floor, random items",
    "floor_neyman": "design-unbiased floor, Neyman items",
    "floor_model": "2PL at the model's own ability",
}
# Which models are held out, and what the reference is then (module docstring).
HOLD_OUT = ("each", "strongest", "weakest", "random")
FLOORS = ("floor_difference", "floor_neyman", "floor_model")
# The designs that run only with an adaptive batch.
ADAPTIVE = ("estimate_adaptive", "model_adaptive")
# Items per stratum the stratified design asks for at least (a stratum's variance needs two).
ITEMS_PER_STRATUM = 4


@dataclass(frozen=True, repr=False)
class EstimateStudyResult(Study, Result):
    """Errors, coverage and widths of ``estimate`` and its rivals, per budget (models held
    out of a real board).

    Attributes
    ----------
    rows : pandas.DataFrame
        Per budget and design (:data:`DESIGNS`): ``budget, design, label, mae`` (mean
        absolute error over held-out models and draws), ``mae_se`` (its Monte Carlo SE),
        ``mae_ratio`` (over the random items' mean's at that budget), ``bias`` (mean signed
        error) and ``bias_se`` (its Monte Carlo SE), ``coverage`` (share of
        intervals holding the truth), ``coverage_se``, ``median_half_width``,
        ``width_ratio`` (over the random items' mean's), ``cases`` (held-out models x
        draws). The floors have ``cases`` 0 and no coverage or width (closed forms).
    alpha : float
        One minus the intervals' level.
    n_trials : int
        Item samples per held-out model and budget.
    held_out : tuple of str
        The models held out.
    hold_out : str
        How they were chosen (:data:`HOLD_OUT`): ``"each"`` in turn, the others the
        reference; ``"strongest"``, ``"weakest"`` or ``"random"`` together, the rest the
        reference.
    reference_models : int
        Models of each held-out model's reference board.
    n_items : int
        Items of the board.
    n_models : int
        Models of the board.
    target : float
        The mean absolute error ``items_for_target`` is computed for.
    misfit : float
        The 2PL's mean absolute misfit: ``|mean(p) - mean(y)|`` at each held-out model's own
        ability, over all its items, averaged over the held-out models.
    items_for_target : dict
        The items each needs for a mean absolute error of ``target``: the random items'
        mean (``random_mean``, from the answers' variance) and each floor; None when not
        even every item would.
    """

    rows: pd.DataFrame
    alpha: float
    n_trials: int
    held_out: tuple[str, ...]
    hold_out: str
    reference_models: int
    n_items: int
    n_models: int
    target: float
    misfit: float
    items_for_target: dict[str, int | None]
    _headline: ClassVar[tuple[str, ...]] = ("n_trials", "n_items")
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    def to_frame(self) -> pd.DataFrame:
        """Return the per-budget, per-design rows."""
        return self.rows.copy()

    @property
    def verdict(self) -> str:
        """The estimate's error and coverage against the items' mean, and the floor."""
        from evalgap.report.sentences import estimate_study_verdict

        return estimate_study_verdict(self)

    def _figure(self) -> Figure:
        from evalgap.report.plots import estimate_study_figure

        return estimate_study_figure(self)


def _floors(y: np.ndarray, fit: IRTFit) -> tuple[float, float, float, float, int, float]:
    """For a held-out model's answers ``y`` on the items of the reference 2PL ``fit``, what
    its estimators' variances are made of: the answers' variance ``S_y^2``, the variance
    ``S_e^2`` of what its own 2PL ability leaves unexplained (``e = y - p``),
    ``mean(sqrt(v))^2`` and ``mean(v)`` for ``v = p (1 - p)``, the items ``N``, and the
    2PL's misfit ``mean(p) - mean(y)``."""
    # the ability no design has: its posterior mode on all its items, with a flat prior
    theta, _ = est.ability_map(y[None, :], fit.slope, fit.intercept, prior_sd=1e3)
    p = success_probability(theta, fit.slope, fit.intercept)[0]
    v = p * (1 - p)
    return (
        float(y.var(ddof=1)),
        float((y - p).var(ddof=1)),
        float(np.sqrt(v).mean() ** 2),
        float(v.mean()),
        int(y.size),
        float(p.mean() - y.mean()),
    )


def _held_out(
    x: np.ndarray, k: int, reference_rows: np.ndarray, budgets: Sequence[int], draws: int,
    strata: int, adaptive: int, alpha: float, stream: np.random.SeedSequence,
) -> dict[str, Any]:  # fmt: skip
    """Every design's (error, covered, half-width) for held-out model ``k`` with the models
    ``reference_rows`` as its reference, per budget."""
    from evalgap.jobs.estimate import calibrate_matrix

    # the adaptive design has a stream of its own: asking for it changes no other design's draws
    main, own_stream = stream.spawn(2)
    rng = np.random.Generator(np.random.PCG64(main))
    rng_adaptive = np.random.Generator(np.random.PCG64(own_stream))
    own = np.flatnonzero(~np.isnan(x[k]))
    y_all = x[k, own]
    ref = x[reference_rows][:, own]
    # models held out together share a reference: fit it once per item set (the fits are
    # deterministic, so the results do not depend on the order or the worker)
    key = (ref.tobytes(), ref.shape)
    prepared = _CALIBRATED.get(key)
    if prepared is None:
        prepared = calibrate_matrix(ref, own.astype(str))
        _CALIBRATED.clear()
        _CALIBRATED[key] = prepared
    # the reference models' accuracy on each item (0.5 where none of them has it)
    answered = (~np.isnan(ref)).sum(axis=0)
    total = np.nansum(ref, axis=0)
    accuracy = np.divide(total, answered, out=np.full(total.shape, 0.5), where=answered > 0)
    cases: dict[tuple[int, str], list[tuple[float, bool, float]]] = {}
    sample = _Sample(y_all, prepared, alpha, float(y_all.mean()), cases)
    for b in budgets:
        for _ in range(draws):
            chosen = np.sort(rng.choice(own.size, b, replace=False))
            sample.design(b, chosen, "estimate", plain="random_mean")
            sample.model(b, chosen, "model")
            count = max(1, min(strata, b // ITEMS_PER_STRATUM))
            labels = stratified.quantile_strata(accuracy, count)
            sizes, variances = stratified.stratum_variances(
                accuracy, accuracy * (1 - accuracy), labels
            )
            allocation = stratified.neyman_allocation(sizes, np.sqrt(variances), b)
            picked, weights = stratified.draw(labels, allocation, rng)
            # the stratified mean (Horvitz-Thompson: weights N_h / n_h) and its design SE
            g = weighted.weighted_gap(y_all[picked], weights, strata=labels[picked],
                                      stratum_sizes=sizes[labels[picked]], alpha=alpha)  # fmt: skip
            sample.record(b, "stratified_mean", g.delta, g.ci_high - g.delta)
            sample.design(b, picked, "estimate_stratified", strata=labels)
            sample.model(b, picked, "model_stratified")
            if adaptive:
                picked, weights = adaptive_draws(y_all, prepared.fit, b, adaptive, rng_adaptive)
                sample.design(b, picked, "estimate_adaptive", weights=weights)
                sample.model(b, _adaptive_items(y_all, prepared.fit, b, adaptive, rng_adaptive),
                             "model_adaptive")  # fmt: skip
    return {"cases": cases, "floors": _floors(y_all, prepared.fit)}


_CALIBRATED: dict[tuple[bytes, tuple[int, ...]], Any] = {}


@dataclass
class _Sample:
    """One held-out model's answers, its reference, and the cases recorded so far."""

    y_all: np.ndarray
    prepared: Any
    alpha: float
    truth: float
    cases: dict[tuple[int, str], list[tuple[float, bool, float]]]

    def record(self, budget: int, design: str, value: float, half: float) -> None:
        error = value - self.truth
        self.cases.setdefault((budget, design), []).append((error, abs(error) <= half, half))

    def _answers(self, chosen: np.ndarray) -> np.ndarray:
        y = np.full((1, self.y_all.size), np.nan)
        y[0, chosen] = self.y_all[chosen]
        return y

    def design(
        self, budget: int, chosen: np.ndarray, name: str, *, plain: str | None = None,
        strata: np.ndarray | None = None, weights: np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Record the design-based estimate from ``chosen`` (and the plain mean, if named);
        ``weights`` (every item's, NaN off the sample) for items drawn with unequal
        probabilities."""
        from evalgap.jobs.estimate import design_estimated

        found, _ = design_estimated(
            self._answers(chosen), self.prepared.fit, self.alpha, strata=strata,
            weights=None if weights is None else weights[None, :],
        )  # fmt: skip
        d = found[0]
        self.record(budget, name, d.score, float(d.ci.high) - d.score)
        if plain:
            self.record(budget, plain, d.plain_score, float(d.plain_ci.high) - d.plain_score)

    def model(self, budget: int, chosen: np.ndarray, name: str) -> None:
        """Record the 2PL's estimate from ``chosen`` with its split-conformal half-width."""
        from evalgap.jobs.estimate import estimated

        score, _, half = estimated(self._answers(np.sort(chosen)), self.prepared, self.alpha)
        self.record(budget, name, float(score[0]), float(half[0]))


def adaptive_draws(
    y_all: np.ndarray, fit: IRTFit, budget: int, batch: int, rng: np.random.Generator,
    uniform_share: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The items ``estimate --next BATCH`` would have had run, and their weights: BATCH
    random items (weight 1), then batches of BATCH drawn with known probabilities at the
    current ability (:func:`evalgap.jobs.estimate.next_batch`), until ``budget`` distinct
    items are scored; the weights are every item's (NaN where not drawn)."""
    from evalgap.jobs.estimate import next_batch

    size = y_all.size
    chosen = np.sort(rng.choice(size, min(batch, budget), replace=False))
    weights = np.full(size, np.nan)
    weights[chosen] = 1.0
    while chosen.size < budget:
        y = np.full((1, size), np.nan)
        y[0, chosen] = y_all[chosen]
        theta, _ = est.ability_map(y, fit.slope, fit.intercept)
        step = min(batch, budget - chosen.size)
        drawn, weights = next_batch(float(theta[0]), fit, weights, step, uniform_share,
                                    np.random.SeedSequence(rng.integers(2**63)))  # fmt: skip
        chosen = np.union1d(chosen, drawn)
    return chosen, weights


def _adaptive_items(
    y_all: np.ndarray, fit: IRTFit, budget: int, batch: int, rng: np.random.Generator
) -> np.ndarray:
    """The items ``estimate --next BATCH`` would have had run: BATCH random items, then the
    BATCH most informative at the current estimate, to the budget."""
    size = y_all.size
    chosen = rng.choice(size, min(batch, budget), replace=False)
    while chosen.size < budget:
        y = np.full((1, size), np.nan)
        y[0, chosen] = y_all[chosen]
        theta, _ = est.ability_map(y, fit.slope, fit.intercept)
        free = np.ones(size, dtype=bool)
        free[chosen] = False
        step = min(batch, budget - chosen.size)
        chosen = np.concatenate(
            [chosen, est.next_items(theta[0], fit.slope, fit.intercept, free, step)]
        )
    return chosen


def _standard_error(values: np.ndarray) -> float:
    """The Monte Carlo SE of a mean of ``values`` (NaN with one value)."""
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else np.nan


@renamed_keywords(n_draws="n_trials", strata="n_strata", adaptive="adaptive_batch")
def estimate_study(
    scores: ScoresInput | None = None,
    *,
    budgets: Sequence[int] = (50, 100, 200, 400, 800),
    n_trials: int = 5,
    held_out: Sequence[str] | None = None,
    hold_out: str = "each",
    n_held_out: int = 9,
    n_strata: int = 10,
    adaptive_batch: int = 0,
    target: float = 0.02,
    alpha: float = 0.05,
    seed: int | None = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    tasks: Sequence[str] | None = None,
    strict: bool = False,
    complete_case: bool = False,
    options: LoadOptions | None = None,
    **columns: Any,
) -> EstimateStudyResult:
    """Run the held-out-model study of ``estimate`` on a real board (module docstring).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list
        A board of models scored on (nearly) every item, scores in [0, 1] (see
        :func:`evalgap.estimate`'s ``reference``); at least 4 models.
    budgets : sequence of int
        Items per sample.
    n_trials : int
        Item samples per held-out model and budget.
    held_out : sequence of str, optional
        With ``hold_out="each"``: the models to hold out in turn (default: every model).
    hold_out : {"each", "strongest", "weakest", "random"}
        Each model in turn, the others its reference (leave one out); or the
        ``n_held_out`` strongest, weakest or randomly chosen (by ``seed``) models together,
        the rest the reference (out of distribution for the strongest and weakest).
    n_held_out : int
        Models held out together (not with ``"each"``); at least 3 must stay.
    n_strata : int
        Strata of the stratified design (fewer when the budget gives fewer than 4 items
        each).
    adaptive_batch : int
        When positive, also choose items adaptively in batches of this size.
    target : float
        The mean absolute error whose items the floors are said to need.
    alpha : float
        One minus the intervals' level.
    seed : int or None
        Seed of every stream (each held-out model has its own).
    jobs : int
        Processes to spread the held-out models over; results do not depend on it.
    progress : callable, optional
        Called with (done, total) held-out models.
    tasks, strict, complete_case, options, **columns
        How to read and align the scores, as for :func:`evalgap.audit`.

    Returns
    -------
    EstimateStudyResult

    Examples
    --------
    >>> from evalgap import simulate
    >>> r = simulate.estimate_study("examples/board.csv", budgets=[100], n_trials=2,
    ...                             held_out=["model-04", "model-19"])
    >>> r.rows[["design", "cases"]].head(3).values.tolist()
    [['estimate', 4], ['random_mean', 4], ['model', 4]]
    >>> r.items_for_target
    {'random_mean': 177, 'floor_difference': 164, 'floor_neyman': 148}
    """
    from evalgap.jobs._inputs import scores_of
    from evalgap.jobs.estimate import _benchmark
    from evalgap.jobs.simulate import run_chunks, study_count

    alpha = float(_validate.probability(alpha, "alpha"))
    target = float(_validate.positive(target, "target"))
    n_trials = study_count(n_trials, "n_trials")
    n_strata = _validate.whole_number(n_strata, "n_strata", 1)
    adaptive_batch = _validate.whole_number(adaptive_batch, "adaptive_batch", 0)
    budgets = sorted({_validate.whole_number(b, "budgets", 2) for b in budgets})
    if not budgets:
        raise InputError("name at least one budget: {budgets}", param="budgets")
    score_set = scores_of(
        scores, tasks=tasks, strict=strict, complete_case=complete_case, options=options,
        **columns,
    )  # fmt: skip
    x, _ = _benchmark(score_set)
    names = [str(m) for m in score_set.models]
    chosen, groups = _held_out_groups(x, names, held_out, hold_out, n_held_out, seed)
    _check_board(x, names, chosen, budgets)
    streams = resample.child_seed(seed, "estimate_study").spawn(len(chosen))
    chunks = [
        (x, names.index(m), reference, budgets, n_trials, n_strata, adaptive_batch, alpha, stream)
        for m, reference, stream in zip(chosen, groups, streams, strict=True)
    ]
    found = run_chunks(_held_out, chunks, jobs, progress)
    designs = [d for d in DESIGNS if d not in FLOORS and (adaptive_batch or d not in ADAPTIVE)]
    moments = np.array([f["floors"] for f in found])
    return EstimateStudyResult(
        pd.DataFrame(_study_rows(found, moments, budgets, designs)),
        alpha,
        n_trials,
        tuple(chosen),
        hold_out,
        int(groups[0].size),
        int(x.shape[1]),
        len(names),
        target,
        float(np.abs(moments[:, 5]).mean()),
        _items_for_target(moments, target),
    )


def _held_out_groups(
    x: np.ndarray, names: list[str], held_out: Sequence[str] | None, hold_out: str,
    n_held_out: int, seed: int | None,
) -> tuple[list[str], list[np.ndarray]]:  # fmt: skip
    """The models to hold out and, for each, the rows of its reference board."""
    if hold_out not in HOLD_OUT:
        raise InputError(
            "{hold_out} must be one of " + ", ".join(HOLD_OUT) + ", not {given!s}",
            param="hold_out",
            given=str(hold_out),
        )
    everyone = np.arange(len(names))
    if hold_out == "each":
        chosen = _held_out_models(names, held_out)
        return chosen, [np.delete(everyone, names.index(m)) for m in chosen]
    if held_out is not None:
        raise InputError(
            "{held_out} names models to hold out in turn (hold_out each); with hold_out "
            "{hold_out!s} the models are chosen by their score",
            param="held_out",
            hold_out=hold_out,
        )
    k = _validate.whole_number(n_held_out, "n_held_out", 1)
    if len(names) - k < 3:
        raise InputError(
            f"holding out {k} of the board's {len(names)} models leaves fewer than the 3 "
            "the reference 2PL needs; ask for a smaller {n_held_out}",
            param="n_held_out",
        )
    order = np.argsort(np.nanmean(x, axis=1), kind="stable")
    if hold_out == "random":
        rng = np.random.default_rng(resample.child_seed(seed, "estimate_study", (1,)))
        group = np.sort(rng.choice(len(names), k, replace=False))
    else:
        group = order[-k:] if hold_out == "strongest" else order[:k]
    reference = np.setdiff1d(everyone, group)
    return [names[j] for j in group], [reference] * k


def _held_out_models(names: list[str], held_out: Sequence[str] | None) -> list[str]:
    """Return the models to hold out in turn (default: every model), refusing a board of
    fewer than 4 models and a name not on it."""
    if len(names) < 4:
        raise InputError(
            f"the board has {len(names)} model(s); holding one out needs at least 4 (3 for "
            "the 2PL of the rest)"
        )
    chosen = names if held_out is None else list(dict.fromkeys(str(m) for m in held_out))
    unknown = [m for m in chosen if m not in names]
    if unknown or not chosen:
        raise InputError(
            "{held_out} must name models of the board, not {unknown!s}",
            param="held_out",
            unknown=", ".join(unknown) if unknown else "none",
        )
    return chosen


def _check_board(x: np.ndarray, names: list[str], chosen: list[str], budgets: list[int]) -> None:
    """Refuse a board the study cannot run on: scores outside [0, 1], a held-out model
    sharing no item with another, a budget over a held-out model's items."""
    seen = ~np.isnan(x)
    if ((x[seen] < 0) | (x[seen] > 1)).any():
        raise InputError(
            "{scores} must lie in [0, 1] for the item-response fit (rescale them first)",
            param="scores",
        )
    for m in chosen:
        shared = (seen & seen[names.index(m)]).sum(axis=1)
        alone = [names[j] for j in np.flatnonzero(shared == 0)]
        if alone:
            raise InputError(
                "held-out model {model!s} shares no item with {alone!s}: the reference 2PL "
                "needs every other model on some of its items; leave those models out of "
                "{scores} or hold out others ({held_out})",
                param="scores",
                model=m,
                alone=", ".join(alone),
            )
    fewest = min(int(seen[names.index(m)].sum()) for m in chosen)
    if budgets[-1] > fewest:
        raise InputError(
            f"budget {budgets[-1]:,} is more than the {fewest:,} items a held-out model has; "
            "ask for smaller {budgets}",
            param="budgets",
        )


# a normal error's mean absolute value over its SD
_MEAN_ABSOLUTE_SCALE = np.sqrt(2 / np.pi)


def _study_rows(
    found: list[dict[str, Any]], moments: np.ndarray, budgets: list[int], designs: list[str]
) -> list[dict[str, Any]]:
    """Return the study's rows: per budget, each design's error, coverage and interval width
    over the held-out models' samples, then each floor's error."""
    rows: list[dict[str, Any]] = []
    for b in budgets:
        first = len(rows)
        for design in designs:
            signed, cover, half = (
                np.array(v, dtype=float)
                for v in zip(*[c for f in found for c in f["cases"][(b, design)]], strict=True)
            )
            err = np.abs(signed)
            rows.append({
                "budget": b, "design": design, "label": DESIGNS[design],
                "mae": float(err.mean()), "mae_se": _standard_error(err), "mae_ratio": np.nan,
                "bias": float(signed.mean()), "bias_se": _standard_error(signed),
                "coverage": float(cover.mean()),
                "coverage_se": float(resample.monte_carlo_se(cover.mean(), cover.size)),
                "median_half_width": float(np.median(half)), "width_ratio": np.nan,
                "cases": int(err.size),
            })  # fmt: skip
        floor = (_MEAN_ABSOLUTE_SCALE * np.sqrt(est.floor_variances(moments, b))).mean(axis=0)
        floor = floor[:, 0]
        # the 2PL's own misfit, on the items a sample of b leaves to it
        misfit = float((np.abs(moments[:, 5]) * np.clip(1 - b / moments[:, 4], 0, None)).mean())
        for design, mae in zip(FLOORS, [*floor[1:], misfit], strict=True):
            # a floor against the random items' mean in closed form (S_y^2 / n (1 - n/N))
            rows.append({
                "budget": b, "design": design, "label": DESIGNS[design], "mae": float(mae),
                "mae_se": 0.0, "mae_ratio": float(mae / floor[0]) if floor[0] > 0 else np.nan,
                "bias": np.nan, "bias_se": np.nan,
                "coverage": np.nan, "coverage_se": np.nan,
                "median_half_width": np.nan, "width_ratio": np.nan, "cases": 0,
            })  # fmt: skip
        # each design against the random items' mean at this budget (on random items: the
        # same draws)
        plain = next(r for r in rows[first:] if r["design"] == "random_mean")
        for row in rows[first:]:
            if not row["cases"]:
                continue
            row["mae_ratio"] = _ratio(row["mae"], plain["mae"])
            row["width_ratio"] = _ratio(row["median_half_width"], plain["median_half_width"])
    return rows


def _ratio(value: float, against: float) -> float:
    """``value / against``, NaN where ``against`` is 0 or either is not finite."""
    if not (math.isfinite(value) and math.isfinite(against)) or against == 0:
        return math.nan
    return float(value / against)


def _items_for_target(moments: np.ndarray, target: float) -> dict[str, int | None]:
    """Return per design (random mean and the first two floors) the smallest sample whose
    mean absolute error over the held-out models is at most ``target`` (None: no sample up
    to the largest held-out model's items)."""
    grid = np.arange(1, int(moments[:, 4].max()) + 1)
    curve = (_MEAN_ABSOLUTE_SCALE * np.sqrt(est.floor_variances(moments, grid))).mean(axis=0)
    need = {}
    for design, row in zip(("random_mean", *FLOORS[:2]), curve, strict=True):
        hit = np.flatnonzero(row <= target)
        need[design] = int(grid[hit[0]]) if hit.size else None
    return need
