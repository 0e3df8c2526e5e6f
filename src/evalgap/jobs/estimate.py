"""The ``estimate`` job: a model's full-benchmark score from a few of its items, with an
interval that holds whatever the item-response model's fit.

A 2PL is fitted on a reference board (:func:`evalgap.stats.stratified.fit_2pl`); each new
model's ability is its posterior mode given the items it was scored on
(:mod:`evalgap.stats.estimate`). Two estimators use it:

* ``"design"`` (the default): the scored items' mean corrected by the 2PL's predictions as a
  control variate (the difference estimator with the PPI++ coefficient,
  :func:`evalgap.stats.estimate.control_variate`). It is design-unbiased when the items were
  drawn at random, however badly the 2PL fits the model, and its t interval comes from the
  sampling design, not from the reference models. The items' own mean and its interval are
  reported beside it, with the width ratio of the two intervals.
* ``"model"``: the 2PL's estimate (the model's answers where it has them, the 2PL's
  probabilities elsewhere) with a split-conformal interval: every reference model is held out
  of the fit in turn and estimated from the *same items* the new model answered; the
  ``ceil((m + 1)(1 - alpha))``-th smallest of those m absolute errors is the half-width. It is
  model-based: it answers for this design on models like the reference board's, and is biased
  towards the board for a model unlike them (an ability outside the board's range is flagged).

The items to run next are drawn at random with known probabilities by default
(``next_draw="random"``): in proportion to the 2PL's variance ``p (1 - p)`` at the model's
ability, mixed with a uniform share so that every item can be drawn
(:func:`evalgap.stats.estimate.draw_probabilities`). Each drawn item carries its design weight
(relative to a uniform draw), and the design after the batch (``design_items``,
``design_weights``) goes back in as ``weights``: the design-based estimate is then the
weighted one and stays unbiased. ``next_draw="informative"`` proposes the most informative
items instead: a model-based choice with no inclusion probabilities, so items chosen that way
call for ``estimator="model"``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

import numpy as np

from evalgap._results import RowResult, TableResult
from evalgap._scores import ScoreSet
from evalgap.errors import InputError
from evalgap.jobs._board import reference_source
from evalgap.jobs._inputs import _models, _renamed, _stored, scores_of
from evalgap.jobs._pages import Views
from evalgap.stats import _validate, intervals
from evalgap.stats import estimate as est
from evalgap.stats.stratified import IRTFit, fit_2pl, success_probability

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

# Abilities beyond the reference board's range by more than this (in its SD units) are
# extrapolations the calibration does not cover.
RANGE_MARGIN = 0.25
# The estimators of estimate, the default first.
ESTIMATORS = ("design", "model")
Estimator = Literal["design", "model"]
# How the next items are chosen, the default first (module docstring).
NEXT_DRAWS = ("random", "informative")
NextDraw = Literal["random", "informative"]
# The uniform share of a random draw's probabilities: no item's is below this share of 1/N.
UNIFORM_SHARE = 0.2


@dataclass(frozen=True, repr=False)
class ModelEstimate(RowResult):
    """One model's estimated full-benchmark score.

    Attributes
    ----------
    model : str
        The model.
    score : float
        Its estimated mean score over every item of the benchmark.
    ci : Interval
        The score's (1 - alpha) interval, clipped to [0, 1]: its method ``"design_t"`` (the
        design-based t interval, finite-population corrected) or ``"split_conformal"``
        (``estimator="model"``); ``interval``, its former name, still reads ``(low, high)`` with
        a DeprecationWarning for one release.
    half_width : float
        Half its width before clipping (infinite with too few reference models).
    estimator : str
        ``"design"`` (design-unbiased, the 2PL as control variate) or ``"model"`` (the 2PL's
        estimate: model-based).
    plain_score : float
        The scored items' own mean.
    plain_ci : Interval
        Its (1 - alpha) t interval (finite-population corrected), clipped to [0, 1].
    width_ratio : float
        The score's interval width over the plain mean's (before clipping): below 1, the
        estimate is the more precise.
    coefficient : float
        ``estimator="design"``: the coefficient on the 2PL's predictions (0: the plain mean, 1:
        the difference estimator); NaN for ``"model"``.
    n_items : int
        Items the model was scored on.
    ability : float
        Its posterior-mode ability on the reference board's scale (models there: mean 0,
        SD 1).
    extrapolated : bool
        Whether that ability lies outside the reference board's range (the model-based
        estimate extrapolates there; the design-based one does not depend on it).
    next_items : tuple of str
        The items to run next, not yet scored: drawn at random with known probabilities
        (``next_draw="random"``), or the most informative at its ability (``"informative"``:
        a model-based choice, not a random draw).
    design_items, design_weights : tuple
        ``next_draw="random"``: the design after the next batch, every scored or drawn item
        with its weight relative to a uniform draw (give it back as ``weights``); empty for
        ``"informative"``.
    """

    model: str
    score: float
    ci: intervals.Interval
    half_width: float
    estimator: str
    plain_score: float
    plain_ci: intervals.Interval
    width_ratio: float
    coefficient: float
    n_items: int
    ability: float
    extrapolated: bool
    next_items: tuple[str, ...]
    design_items: tuple[str, ...] = ()
    design_weights: tuple[float, ...] = ()
    _headline = ("model", "score")

    @property
    def interval(self) -> tuple[float, float]:
        """The interval's former name, as ``(low, high)``: use ``ci`` (kept for one release)."""
        warnings.warn(
            "ModelEstimate.interval is renamed ci (an Interval); use (e.ci.low, e.ci.high)",
            DeprecationWarning,
            stacklevel=2,
        )
        return float(self.ci.low), float(self.ci.high)


@dataclass(frozen=True, repr=False)
class EstimateResult(Views, TableResult):
    """Full-benchmark scores of new models from few items (``evalgap estimate``).

    Attributes
    ----------
    estimates : tuple of ModelEstimate
        One per new model.
    estimator : str
        ``"design"`` or ``"model"`` (see :class:`ModelEstimate`).
    alpha : float
        One minus the intervals' level.
    n_benchmark_items : int
        Items of the benchmark (the reference board's).
    reference_models : int
        Reference models the 2PL was fitted on (and, for ``"model"``, the interval
        calibrated on).
    notes : tuple of str
        What the numbers need said beside them.
    next_draw : str
        How the next items were chosen: ``"random"`` (with known probabilities) or
        ``"informative"`` (model-based).
    weighted : bool
        Whether the scored items came with design weights or strata (``weights``).
    verdict : str
        One sentence (a property).
    """

    estimates: tuple[ModelEstimate, ...]
    estimator: str
    alpha: float
    n_benchmark_items: int
    reference_models: int
    notes: tuple[str, ...] = field(default=())
    next_draw: str = "random"
    weighted: bool = False
    _rows: ClassVar[str] = "estimates"
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    @property
    def verdict(self) -> str:
        """One sentence: the estimates, their intervals, and any extrapolation."""
        from evalgap.report.sentences import estimate_verdict

        return estimate_verdict(self)

    _heading: ClassVar[str] = "evalgap estimate"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_estimate

        render_estimate(self, console)

    def next_design(self) -> pd.DataFrame:
        """Return the items to run next, one row per model and item: ``model, item_id``, and
        with ``next_draw="random"`` the whole design after the batch, ``model, item_id,
        weight, scored`` (``scored`` 0: run it), which goes back in as ``weights``."""
        import pandas as pd

        if self.next_draw != "random":
            return pd.DataFrame(
                [(e.model, item) for e in self.estimates for item in e.next_items],
                columns=["model", "item_id"],
            )
        rows = [
            (e.model, item, weight, int(item not in pending))
            for e in self.estimates
            for pending in [set(e.next_items)]
            for item, weight in zip(e.design_items, e.design_weights, strict=True)
        ]
        return pd.DataFrame(rows, columns=["model", "item_id", "weight", "scored"])


def _benchmark(
    score_set: ScoreSet, *, several: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The board's (models x items) matrix over every task, and the items' ids (``task/id``
    when ``several``: by default when the board has several tasks; a board of new scores
    takes the reference's rule, so a batch from one task of a multi-task benchmark matches)."""
    several = len(score_set.tasks) > 1 if several is None else several
    ids = [
        np.char.add(f"{t.task}/", np.asarray(t.item_ids).astype(str))
        if several
        else np.asarray(t.item_ids).astype(str)
        for t in score_set.tasks
    ]
    matrix = np.concatenate([t.scores for t in score_set.tasks], axis=0).T
    return matrix, np.concatenate(ids)


@dataclass(frozen=True)
class Calibration:
    """A reference board prepared once: its matrix, item ids, 2PL fit, and the item
    parameters with each model held out (reused across new models and item sets; empty
    when only the design-based estimate is wanted)."""

    matrix: np.ndarray
    ids: np.ndarray
    fit: IRTFit
    held_out: tuple[tuple[np.ndarray, np.ndarray], ...]


def calibrate(reference: ScoreSet, *, held_out: bool = True) -> Calibration:
    """Fit the reference board's 2PL, and again without each of its models (``held_out``:
    the conformal calibration of ``estimator="model"``)."""
    return calibrate_matrix(*_benchmark(reference), held_out=held_out)


def calibrate_matrix(ref: np.ndarray, ids: np.ndarray, *, held_out: bool = True) -> Calibration:
    """:func:`calibrate` on a reference board given as its (models x items) matrix and the
    items' ids."""
    if ref.shape[0] < 3:
        raise InputError(
            f"the reference board has {ref.shape[0]} model(s); the 2PL needs at least 3"
        )
    if ((ref[~np.isnan(ref)] < 0) | (ref[~np.isnan(ref)] > 1)).any():
        raise InputError(
            "{reference} scores must lie in [0, 1] for the item-response fit", param="reference"
        )
    held = tuple(_held_out_fit(ref, j) for j in range(ref.shape[0])) if held_out else ()
    return Calibration(ref, ids, fit_2pl(ref), held)


def estimated(
    y: np.ndarray, prepared: Calibration, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row of ``y`` (new models x the benchmark's items, NaN where not scored): its
    model-based full-benchmark score, its ability, and the split-conformal half-width of the
    design of its scored items (every reference model held out of the fit and estimated from
    those items; its error over the items it has, so a reference model with missing items is
    compared with its own mean)."""
    ref, fit = prepared.matrix, prepared.fit
    theta, _ = est.ability_map(y, fit.slope, fit.intercept)
    score = est.predicted_score(y, theta, fit.slope, fit.intercept)
    own = ~np.isnan(ref)
    truth = np.nanmean(ref, axis=1)
    half = np.empty(y.shape[0])
    for m in range(y.shape[0]):
        scored = ~np.isnan(y[m])
        errors = []
        for j, (slope, intercept) in enumerate(prepared.held_out):
            answers = np.where(scored, ref[j], np.nan)
            t_j, _ = est.ability_map(answers[None, :], slope, intercept)
            guess = est.predicted_score(answers, t_j, slope, intercept, items=own[j])[0]
            errors.append(guess - truth[j])
        half[m] = est.conformal_half_width(errors, alpha)
    return score, theta, half


def design_estimated(
    y: np.ndarray,
    fit: IRTFit,
    alpha: float,
    *,
    strata: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    stratum_sizes: np.ndarray | None = None,
) -> tuple[list[est.ControlVariateEstimate], np.ndarray]:
    """Each row of ``y`` (new models x the benchmark's items, NaN where not scored): the
    design-based estimate of its full-benchmark score, the 2PL's probabilities at its
    ability as the control variate, and that ability. ``strata`` labels every item (the
    scored ones drawn at random within each), or with ``stratum_sizes`` (models x items:
    each scored item's stratum size) each model's scored items (models x items);
    ``weights`` (models x items) gives the scored items' design weights ``1 / pi``."""
    theta, _ = est.ability_map(y, fit.slope, fit.intercept)
    predictions = success_probability(theta, fit.slope, fit.intercept)
    found = []
    for m in range(y.shape[0]):
        at = np.flatnonzero(~np.isnan(y[m]))
        labels, sizes = strata, None
        if stratum_sizes is not None and strata is not None:
            labels, sizes = strata[m, at], stratum_sizes[m, at]
        found.append(
            est.control_variate(
                y[m, at],
                predictions[m],
                at,
                strata=labels,
                weights=None if weights is None else weights[m, at],
                stratum_sizes=sizes,
                alpha=alpha,
            )
        )
    return found, theta


def next_batch(
    theta: float, fit: IRTFit, weights: np.ndarray, count: int, uniform_share: float,
    seed: np.random.SeedSequence,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The items of a batch of ``count`` drawn at random at ability ``theta``
    (:func:`evalgap.stats.estimate.draw_probabilities`, over every item, scored or not), and
    the design after it: every item's weight relative to a uniform draw (NaN where neither
    scored nor drawn). ``weights`` is the design so far (NaN off it); it is rescaled to
    average 1 over its items, the scale of a uniform draw, before the batch's weights are
    added (an item drawn again gets both)."""
    size = weights.size
    pi = est.draw_probabilities(theta, fit.slope, fit.intercept, min(count, size),
                                uniform_share=uniform_share)  # fmt: skip
    drawn = est.draw_items(pi, seed=seed)
    seen = ~np.isnan(weights)
    after = np.where(seen, weights, 0.0)
    if seen.any():
        after *= seen.sum() / after.sum()
    after[drawn] += est.batch_weights(pi, drawn)
    return drawn, np.where(after > 0, after, np.nan)


def _scored_matrix(
    scores: ScoreSet, ids: np.ndarray, several: bool
) -> tuple[np.ndarray, list[str]]:
    """The new models' scores on the reference's items (NaN where not scored), and the notes
    on items the reference does not have."""
    new, new_ids = _benchmark(scores, several=several)
    position = {item: k for k, item in enumerate(ids)}
    known = np.array([item in position for item in new_ids], dtype=bool)
    notes = []
    if not known.all():
        notes.append(
            f"{int((~known).sum()):,} scored item(s) are not in the reference board and are left "
            "out of the estimates"
        )
    y = np.full((new.shape[0], ids.size), np.nan)
    columns = np.array([position[item] for item in new_ids[known]], dtype=np.int64)
    y[:, columns] = new[:, known]
    if ((y[~np.isnan(y)] < 0) | (y[~np.isnan(y)] > 1)).any():
        raise InputError(
            "{scores} must lie in [0, 1] for the item-response estimate", param="scores"
        )
    return y, notes


def design_of(
    weights: object, strata: object, scores: Any, options: LoadOptions | None,
    columns: dict[str, Any],
) -> pd.DataFrame:  # fmt: skip
    """The scored items' design, read by compare's design reader
    (:func:`evalgap.jobs.weighted.design_table`): a column of the scores table, a design
    file or a DataFrame. A design with a ``model`` column (the one ``next_design`` writes)
    gives each model its own, one design table per model."""
    import pandas as pd

    from evalgap.jobs.weighted import design_table

    frame = weights if isinstance(weights, pd.DataFrame) else None
    if isinstance(weights, (str, Path)) and Path(weights).is_file():
        from evalgap.io._write import unescape_cell
        from evalgap.io.tables import read_frame

        frame = read_frame(Path(weights), as_text=True)
        for name in ("model", "task", "item_id"):  # evalgap's CSVs escape formula-like cells
            if name in frame.columns:
                frame[name] = frame[name].map(unescape_cell, na_action="ignore")
    if frame is not None and "item_id" in frame.columns and "weight" not in frame.columns:
        raise InputError(
            "{weights!b} lists items but no weight: items chosen as the most informative have "
            "no inclusion probabilities, so the design-based estimate cannot weight them; "
            "estimate them with {estimator=model}, or draw the next items with "
            "{next_draw=random}",
            param="weights",
        )
    if frame is not None and "model" in frame.columns:
        if strata is not None or "stratum" in frame.columns:
            raise InputError(
                "{strata!b} goes with a design shared by every model; a design with a model "
                "column is a random draw per model, weighted without strata",
                param="strata",
            )
        parts = [
            design_table(part.drop(columns="model")).assign(model=str(name))
            for name, part in frame.groupby("model", sort=False)
        ]
        return pd.concat(parts, ignore_index=True)
    return design_table(
        cast("str | Path | pd.DataFrame", weights), cast("str | None", strata), data=scores,
        options=options, **columns,
    )  # fmt: skip


def _design_matrices(
    design: pd.DataFrame | None, scores: ScoreSet, ids: np.ndarray, y: np.ndarray,
    several: bool, notes: list[str],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
    """The design as (models x items) arrays: weights (NaN off the design), and for a
    stratified design each item's stratum and stratum size (else None). Refuses a scored
    item without a weight and weights that vary within a stratum; notes design items not
    scored."""
    if design is None:
        return None, None, None
    key = design["item_id"].astype(str)
    if "task" in design.columns and several:
        key = design["task"].astype(str) + "/" + key
    position = {item: k for k, item in enumerate(ids)}
    column = key.map(position)
    if column.isna().any():
        notes.append(f"{int(column.isna().sum()):,} item(s) of the design are not in the "
                     "reference board and are left out")  # fmt: skip
    models = [str(m) for m in scores.models]
    weights = np.full(y.shape, np.nan)
    for m, model in enumerate(models):
        rows = design if "model" not in design.columns else design[design["model"] == model]
        at = rows.index[column[rows.index].notna()]
        weights[m, column[at].to_numpy(dtype=np.int64)] = rows.loc[at, "weight"].to_numpy(float)
    scored = ~np.isnan(y)
    unweighted = (scored & np.isnan(weights)).sum(axis=1)
    if unweighted.any():
        m = int(np.flatnonzero(unweighted)[0])
        raise InputError(
            "{model!s} has {count!s} scored item(s) with no weight in {weights}: give every "
            "scored item its weight (the design the items were drawn by)",
            param="weights", model=models[m], count=f"{int(unweighted[m]):,}",
        )  # fmt: skip
    pending = int((~scored & ~np.isnan(weights)).sum())
    if pending:
        notes.append(f"{pending:,} item(s) of the design are not scored yet and are left out, "
                     "of the estimate and of the design written with the next items (the "
                     "estimate stays unbiased only if they are run)")  # fmt: skip
    weights[~scored] = np.nan
    if "stratum" not in design.columns:
        return weights, None, None
    return (weights, *_strata_matrices(design, column, weights, y.shape, ids.size))


def _strata_matrices(
    design: pd.DataFrame, column: pd.Series, weights: np.ndarray, shape: tuple[int, ...],
    size: int,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """A stratified design's stratum and stratum size per (model, item): the sizes given, or
    the weights' sums within each stratum scaled to the benchmark's items (the weights of a
    stratified draw are ``N_h / n_h``, so their sums are the sizes)."""
    at = column.notna().to_numpy()
    where = column[at].to_numpy(dtype=np.int64)
    labels = np.full(shape, None, dtype=object)
    labels[:, where] = design.loc[at, "stratum"].to_numpy(dtype=object)
    sizes = np.full(shape, np.nan)
    for m in range(shape[0]):
        scored = ~np.isnan(weights[m])
        codes, first = np.unique(labels[m, scored].astype(str), return_inverse=True)
        w = weights[m, scored]
        spread = np.array([np.ptp(w[first == h]) for h in range(codes.size)])
        if (spread > 1e-9 * w.max()).any():
            raise InputError(
                "{strata}: the weights vary within a stratum; a stratified draw weighs every "
                "item of a stratum alike (N_h / n_h), so give these weights without strata",
                param="strata",
            )
        if "stratum_size" in design.columns:
            sizes[:, where] = design.loc[at, "stratum_size"].to_numpy(dtype=float)
        else:
            total = np.bincount(first, weights=w)
            sizes[m, scored] = (total * size / total.sum())[first]
    return labels, sizes


def _clipped(low: float, high: float, kind: str, alpha: float) -> intervals.Interval:
    return intervals.Interval(float(max(low, 0.0)), float(min(high, 1.0)), kind, 1.0 - alpha)


def estimate_scores(
    reference: ScoreSet,
    scores: ScoreSet,
    *,
    estimator: Estimator = "design",
    alpha: float = 0.05,
    next_count: int = 50,
    calibration: Calibration | None = None,
    design: pd.DataFrame | None = None,
    next_draw: NextDraw = "random",
    uniform_share: float = UNIFORM_SHARE,
    seed: int | None = 0,
) -> EstimateResult:
    """Return each model of ``scores`` estimated over the benchmark of ``reference``.

    Parameters
    ----------
    reference : ScoreSet
        A board of models scored on (nearly) every item: the benchmark's items and the
        2PL's fit (and, for ``estimator="model"``, the interval's calibration).
    scores : ScoreSet
        The new models' scores on some of those items (tasks and item ids as in the
        reference), drawn at random for ``estimator="design"``.
    estimator : {"design", "model"}
        The design-based estimate with the 2PL as control variate, or the 2PL's own
        (model-based) estimate (module docstring).
    alpha : float
        One minus the level of the intervals.
    next_count : int
        How many items to propose to run next, per model.
    calibration : Calibration, optional
        ``calibrate(reference)``, when several calls share one reference board.
    design : DataFrame, optional
        The scored items' design (:func:`design_of`): ``item_id, weight`` and optionally
        ``model``, ``task``, ``stratum``, ``stratum_size``.
    next_draw : {"random", "informative"}
        Draw the next items at random with known probabilities, or propose the most
        informative (model-based).
    uniform_share : float
        The uniform share of a random draw's probabilities, in (0, 1].
    seed : int, optional
        Seed of the random draw (each model and design size has its own stream).

    Returns
    -------
    EstimateResult
    """
    alpha = float(_validate.probability(alpha, "alpha"))
    next_count = _validate.whole_number(next_count, "next_count", 0)
    estimator, next_draw = _estimator(estimator), _next_draw(next_draw)
    share = _validate.probability(uniform_share, "uniform_share", open_interval=False)
    uniform_share = float(share)
    if uniform_share == 0:
        raise InputError("{uniform_share!b} must be above 0 (no item out of reach)",
                         param="uniform_share")  # fmt: skip
    if design is not None and estimator == "model":
        raise InputError(
            "{weights!b} are a design for the design-based estimate; the model-based one "
            "({estimator=model}) does not use them: leave out one or the other",
            param="weights",
        )
    if calibration is not None and estimator == "model" and not calibration.held_out:
        calibration = None  # prepared for the design-based estimate only
    prepared = calibration or calibrate(reference, held_out=estimator == "model")
    ref, ids, fit = prepared.matrix, prepared.ids, prepared.fit
    y, notes = _scored_matrix(scores, ids, len(reference.tasks) > 1)
    few = [str(scores.models[m]) for m in range(y.shape[0]) if (~np.isnan(y[m])).sum() < 3]
    if few:
        raise InputError(
            "{model!s} has fewer than 3 scored items of the reference board; the design-based "
            "interval needs at least 3 (score more items)",
            param="scores",
            model=few[0],
        )
    if not fit.converged:
        notes.append(f"the reference 2PL fit stopped after {fit.n_iter} sweeps before converging")
    weights, strata, sizes = _design_matrices(design, scores, ids, y, len(reference.tasks) > 1,
                                              notes)  # fmt: skip
    designed, theta = design_estimated(
        y, fit, alpha, strata=strata, stratum_sizes=sizes,
        weights=weights if strata is None else None,
    )  # fmt: skip
    if estimator == "model":
        score, _, halves = estimated(y, prepared, alpha)
    else:
        score = np.array([d.score for d in designed])
        halves = np.array([float(d.ci.high) - d.score for d in designed])
    draws = _next_items(y, theta, fit, weights, next_count, next_draw, uniform_share, seed)
    low_range, high_range = fit.ability.min() - RANGE_MARGIN, fit.ability.max() + RANGE_MARGIN
    interval_method = "design_t" if estimator == "design" else "split_conformal"
    rows = []
    for m, model in enumerate(scores.models):
        d, half, (upcoming, after) = designed[m], float(halves[m]), draws[m]
        plain_half = float(d.plain_ci.high) - d.plain_score
        rows.append(
            ModelEstimate(
                model=str(model),
                score=float(score[m]),
                ci=_clipped(score[m] - half, score[m] + half, interval_method, alpha),
                half_width=half,
                estimator=estimator,
                plain_score=d.plain_score,
                plain_ci=_clipped(float(d.plain_ci.low), float(d.plain_ci.high), "design_t", alpha),
                width_ratio=half / plain_half if plain_half > 0 else float("nan"),
                coefficient=d.coefficient if estimator == "design" else float("nan"),
                n_items=int((~np.isnan(y[m])).sum()),
                ability=float(theta[m]),
                extrapolated=bool(not low_range <= theta[m] <= high_range),
                next_items=tuple(ids[upcoming].tolist()),
                design_items=tuple(ids[np.flatnonzero(~np.isnan(after))].tolist()),
                design_weights=tuple(after[~np.isnan(after)].tolist()),
            )
        )
    notes.extend(_estimator_notes(rows, estimator, ref.shape[0], alpha))
    notes.extend(_draw_notes(estimator, next_draw, next_count, design is not None))
    return EstimateResult(
        tuple(rows), estimator, alpha, int(ids.size), int(ref.shape[0]), tuple(notes),
        next_draw, design is not None,
    )  # fmt: skip


def _next_items(
    y: np.ndarray, theta: np.ndarray, fit: IRTFit, weights: np.ndarray | None, count: int,
    next_draw: str, uniform_share: float, seed: int | None,
) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """Per model: the items to run next and the design after them (random draws; all NaN
    for the informative choice)."""
    from evalgap.stats.resample import seed_sequence

    found = []
    for m in range(y.shape[0]):
        scored = ~np.isnan(y[m])
        if next_draw == "informative" or count == 0:
            chosen = est.next_items(theta[m], fit.slope, fit.intercept, ~scored, count)
            found.append((chosen, np.full(scored.size, np.nan)))
            continue
        # each model and each design size draws from a stream of its own, so successive
        # batches of one model are independent draws
        root = seed_sequence(seed)
        stream = np.random.SeedSequence(root.entropy, spawn_key=(int(scored.sum()), m))
        before = np.where(scored, 1.0, np.nan) if weights is None else weights[m]
        drawn, after = next_batch(float(theta[m]), fit, before, count,
                                  uniform_share, stream)  # fmt: skip
        found.append((drawn[~scored[drawn]], after))
    return found


def _next_draw(next_draw: object) -> NextDraw:
    """How the next items are chosen, or a one-line refusal naming the choices."""
    if next_draw not in NEXT_DRAWS:
        raise InputError(
            "{next_draw} must be one of " + ", ".join(NEXT_DRAWS) + ", not {given!s}",
            param="next_draw",
            given=str(next_draw),
        )
    return next_draw  # type: ignore[return-value]  # checked against NEXT_DRAWS


def _draw_notes(estimator: str, next_draw: str, count: int, weighted: bool) -> list[str]:
    """What the next items' choice means for the next estimate."""
    if count == 0:
        return []
    if next_draw == "random" and estimator == "model":
        return [
            "the next items are drawn at random with known probabilities; the design written "
            "with them is for the design-based estimate, the model-based one takes the items "
            "alone"
        ]
    if next_draw == "random":
        return [
            "the next items are drawn at random with known probabilities (in proportion to the "
            "2PL's variance at each model's ability, with a uniform share of "
            "every item): run them and give the design written with them back as the weights, "
            "and the design-based estimate stays unbiased"
            + ("" if weighted else " (the items scored so far count as a uniform random draw)")
        ]
    if estimator == "design":
        return [
            "the next items are the most informative at each model's ability, a model-based "
            "choice with no inclusion probabilities: once they are scored the design-based "
            "estimate no longer holds; estimate them with the model-based estimator, or draw "
            "them at random"
        ]
    return []


def _estimator(estimator: object) -> Estimator:
    """The estimator, or a one-line refusal naming the choices."""
    if estimator not in ESTIMATORS:
        raise InputError(
            "{estimator} must be one of " + ", ".join(ESTIMATORS) + ", not {given!s}",
            param="estimator",
            given=str(estimator),
        )
    return estimator  # type: ignore[return-value]  # checked against ESTIMATORS


def _estimator_notes(
    rows: list[ModelEstimate], estimator: str, reference_models: int, alpha: float
) -> list[str]:
    """What each estimator's numbers need said beside them."""
    notes = []
    if estimator == "design":
        notes.append(
            "design-based: the intervals hold when the scored items were drawn at random from "
            "the benchmark (uniformly, or with the probabilities of the design given as "
            "weights), however well the 2PL fits; items chosen as the most informative are "
            "not random, estimate those with the model-based estimator"
        )
        return notes
    notes.append(
        "model-based: the 2PL's estimate, biased towards the reference board for a model "
        "unlike its models; the default design-based estimate does not depend on the fit"
    )
    if any(r.extrapolated for r in rows):
        notes.append(
            "an ability outside the reference board's range is an extrapolation: the interval "
            "is calibrated on the reference models only; add models like it to the reference"
        )
    if not np.isfinite(min((r.half_width for r in rows), default=0.0)):
        notes.append(
            f"{reference_models} reference models are too few for a {100 * (1 - alpha):g}% "
            f"conformal interval (at least {int(np.ceil(1 / alpha)) - 1} are needed)"
        )
    return notes


def _held_out_fit(ref: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """The 2PL's item parameters without reference model ``j``."""
    fit = fit_2pl(np.delete(ref, j, axis=0))
    return fit.slope, fit.intercept


def estimate(
    scores: ScoresInput | None = None,
    *,
    reference: ScoresInput | None = None,
    estimator: Estimator = "design",
    alpha: float = 0.05,
    next_count: int = 50,
    weights: str | Path | pd.DataFrame | None = None,
    strata: str | None = None,
    next_draw: NextDraw = "random",
    uniform_share: float = UNIFORM_SHARE,
    seed: int | None = 0,
    models: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> EstimateResult:
    """A new model's full-benchmark score from a few of its items, with an honest interval.

    A 2PL item-response model is fitted on a reference board scored on the whole benchmark,
    and each new model's ability estimated from its answers. By default (``estimator="design"``)
    the score is the scored items' mean corrected by the 2PL's predictions as a control
    variate: ``lambda mean(p over all items) + mean(y - lambda p over the scored items)``,
    ``lambda`` in [0, 1] tuned to the smallest variance (PPI++). With the items drawn at
    random it is design-unbiased however badly the 2PL fits (a poor fit drives ``lambda`` to
    0, the plain mean), and its t interval (finite-population corrected) comes from the
    sampling design. ``estimator="model"`` gives the 2PL's own estimate (the model's answers,
    the 2PL's probabilities elsewhere) with a split-conformal interval calibrated on the
    reference models: model-based, biased towards the board for a model unlike its models.
    Every estimate comes with the plain mean of the same items, its interval, the width
    ratio, and the items to run next: drawn at random with known probabilities, in
    proportion to the 2PL's variance ``p (1 - p)`` at the model's ability mixed with a
    uniform share (``next_draw="random"``), their design weights in ``next_design()`` to
    give back as ``weights`` (the estimate is then the weighted one, Horvitz-Thompson weights
    on the residuals, and stays unbiased); or the most informative items
    (``next_draw="informative"``: model-based, no inclusion probabilities).

    Parameters
    ----------
    scores : DataFrame, ScoreSet, str, Path or list
        The new models' per-item scores on some of the benchmark's items.
    reference : DataFrame, ScoreSet, str, Path or list
        A board of models scored on the benchmark (the same task and item ids).
    estimator : {"design", "model"}
        The design-based estimate with the 2PL as control variate, or the 2PL's own
        model-based estimate.
    alpha : float
        One minus the intervals' level.
    next_count : int
        Items to propose to run next, per model.
    weights : str, Path or DataFrame, optional
        The design the scored items were drawn by: a column of the scores table with each
        item's weight ``1 / pi``, a design file or DataFrame (``item_id, weight``[, ``task``,
        ``stratum``, ``stratum_size``], as ``compare(weights=...)`` reads), or the design
        ``next_design()`` wrote (with a ``model`` column: one per model). The design-based
        estimate is then the weighted one (stratified with ``stratum``).
    strata : str, optional
        With ``weights``: the column of stratum labels (default: the design's ``stratum``).
    next_draw : {"random", "informative"}
        Draw the next items at random with known probabilities, or propose the most
        informative (a model-based choice: estimate those with ``estimator="model"``).
    uniform_share : float
        The uniform share of the random draw's probabilities, in (0, 1]: every item is
        drawn with at least this share of a uniform draw's probability.
    seed : int, optional
        Seed of the random draw of the next items.
    models, tasks : list of str, optional
        Select the new models and the tasks (of both).
    options : LoadOptions, optional
        With paths: how to read them.
    **columns
        Column names of DataFrames or table files (both inputs).

    Returns
    -------
    EstimateResult
        One estimate per new model (``score``, ``ci``, ``plain_score``, ``plain_ci``,
        ``width_ratio``, ``n_items``, ``next_items``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, evalgap
    >>> rng = np.random.default_rng(0)
    >>> skill = np.linspace(-1.5, 1.5, 25)
    >>> a, c = rng.uniform(0.5, 2, 800), rng.normal(0, 1, 800)
    >>> p = 1 / (1 + np.exp(-(np.outer(skill, a) + c)))
    >>> y = (rng.random(p.shape) < p).astype(int)
    >>> board = pd.DataFrame([(f"m{k}", i, y[k, i]) for k in range(24) for i in range(800)],
    ...                      columns=["model", "item_id", "score"])
    >>> new = pd.DataFrame([("new", i, y[24, i]) for i in range(0, 800, 8)],
    ...                    columns=["model", "item_id", "score"])
    >>> r = evalgap.estimate(new, reference=board)
    >>> e = r.estimates[0]
    >>> e.n_items, bool(e.ci.low <= y[24].mean() <= e.ci.high)
    (100, True)
    """
    from evalgap.jobs._inputs import _check_columns

    _check_columns(columns, "estimate")
    _validate.arguments(alpha=alpha, models=models, tasks=tasks)
    estimator = _estimator(estimator)
    if (scores is None and not _stored(options)) or reference is None:
        raise InputError(
            "give the new models' {scores} and a {reference} board scored on the benchmark",
            param="reference" if reference is None else "scores",
        )
    if strata is not None and weights is None:
        raise InputError("{strata!b} goes with {weights} (the design's strata)", param="strata")
    source, read = reference_source(reference, options)
    board = scores_of(source, tasks=tasks, options=read, **columns)
    given = _renamed(columns, "data", "scores", scores)
    new = scores_of(given, models=_models(models, options), tasks=tasks, options=options,
                    **columns)  # fmt: skip
    design = None if weights is None else design_of(weights, strata, given, options, columns)
    return estimate_scores(
        board, new, estimator=estimator, alpha=alpha, next_count=next_count, design=design,
        next_draw=next_draw, uniform_share=uniform_share, seed=seed,
    )  # fmt: skip
