"""The ``plan --reference`` job: which items to run so one pair's full-benchmark gap resolves
with the fewest of them.

A reference matrix of earlier models on the benchmark shows which items separate models.
:mod:`evalgap.stats.stratified` turns it into a stratified design for the target pair (a 2PL
IRT prediction of where the two disagree, quantile strata, Neyman allocation,
Horvitz-Thompson weights); this job loads the reference, decides what is known about each
model of the pair (its responses, when it is in the reference; its expected accuracy when it
is new), draws the items and writes the design file that ``compare --weights`` reads when
the results come back. :func:`validate_sampling` measures, on held-back pairs of a complete
reference, what the design really delivers: bias, coverage and items saved.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from evalgap._results import Result
from evalgap.errors import InputError, escape, fields
from evalgap.jobs._pages import Views
from evalgap.stats import _validate
from evalgap.stats import stratified as st
from evalgap.stats.weighted import weighted_gap

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

    from evalgap._scores import LongScores, ScoresInput
    from evalgap.io.options import LoadOptions
    from evalgap.stats._types import ArrayLike


@dataclass(frozen=True, repr=False)
class Stratum(Result):
    """One stratum of the design.

    Not a table (no ``to_frame()``): one row of :meth:`SamplingDesign.to_frame`.

    Attributes
    ----------
    stratum : int
        Its label (0 = the items predicted least likely to separate the pair).
    size : int
        Items of the benchmark in it, ``N_h``.
    n_items : int
        Items drawn from it, ``n_h``.
    weight : float
        Each drawn item's weight, ``N_h / n_h``.
    predicted_sd : float
        The predicted SD of the per-item difference in it, ``S_h``.
    """

    stratum: int
    size: int
    n_items: int
    weight: float
    predicted_sd: float
    _headline = ("stratum", "size", "n_items")


@dataclass(frozen=True, repr=False)
class SamplingDesign(Views, Result):
    """A stratified item sample for one pair, with what it is predicted to save.

    Attributes
    ----------
    model_a, model_b : str
        The pair (A minus B).
    known : dict
        Per model, how it enters: ``"responses"`` (its own scores in the reference) or
        ``"accuracy"`` (a new or held-out model, from its expected accuracy).
    n_reference_models : int
        Models the IRT model was fitted on.
    n_population : int
        Items of the benchmark, ``N``.
    n_items : int
        Items drawn.
    delta : float
        The gap the design is sized for (given, or the predicted one).
    delta_predicted : bool
        Whether ``delta`` is the IRT prediction of the gap.
    alpha, power : float
        The two-sided level and the target power.
    predicted_se, srs_se : float
        Predicted SE of the full-benchmark gap from ``n_items`` items: this design, and
        simple random sampling.
    required_n_design, required_n_srs : int
        Items that resolve ``delta`` at (alpha, power): this design, and SRS (predicted).
    items_ratio : float
        ``required_n_design / required_n_srs`` (predicted; below 1 the design saves).
    predicted_disagreement : float
        Predicted share of the benchmark's items on which the two models disagree.
    strata : tuple of Stratum
        The strata, from least to most likely to separate the pair.
    seed : int
        The draw's seed.
    notes : tuple of str
        What was assumed and what was left out.
    verdict : str
        One plain sentence (a property).
    """

    model_a: str
    model_b: str
    known: dict[str, str]
    n_reference_models: int
    n_population: int
    n_items: int
    delta: float
    delta_predicted: bool
    alpha: float
    power: float
    predicted_se: float
    srs_se: float
    required_n_design: int
    required_n_srs: int
    items_ratio: float
    predicted_disagreement: float
    strata: tuple[Stratum, ...]
    seed: int
    notes: tuple[str, ...]
    design: pd.DataFrame | None = None  # (task, item_id, weight, stratum, stratum_size)
    _omit = ("design",)
    _derived = ("verdict",)
    _headline = ("n_items", "items_ratio")

    @property
    def verdict(self) -> str:
        """One plain sentence."""
        from evalgap.report.sentences import sampling_design_verdict

        return sampling_design_verdict(self)

    def to_frame(self) -> pd.DataFrame:
        """The design file's rows: ``task, item_id, weight, stratum, stratum_size`` (what to run).

        Returns
        -------
        pandas.DataFrame
        """
        assert self.design is not None  # sampling_design always sets it
        return self.design.copy()

    def write(self, path: str | os.PathLike) -> None:
        """Write the design file (CSV, or Parquet by the suffix) for ``compare --weights``."""
        from evalgap.io._write import write_table

        write_table(self.design, path, option="output=")

    _heading: ClassVar[str] = "evalgap plan"

    def _render(self, console: Console) -> None:
        from evalgap.report.terminal import render_sampling_design

        render_sampling_design(self, console)


def plan_sampling(
    reference: ScoresInput,
    *,
    model_a: str,
    model_b: str | None = None,
    accuracy_a: float | None = None,
    accuracy_b: float | None = None,
    n_items: int | None = None,
    delta: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_strata: int = st.DEFAULT_STRATA,
    seed: int | None = 0,
    tasks: Sequence[str] | None = None,
    options: LoadOptions | None = None,
    **columns: Any,
) -> SamplingDesign:
    """Draw a stratified item sample that resolves one pair's full-benchmark gap cheaply.

    Parameters
    ----------
    reference : path, list of paths or DataFrame
        Earlier models' per-item scores on the benchmark (any loader's input).
    model_a : str
        Model A: a model of the reference, or a new one (then give ``accuracy_a``).
    model_b : str, optional
        Model B; default the reference's most accurate model (the current leader).
    accuracy_a, accuracy_b : float, optional
        A model's expected accuracy on the benchmark. Required for a model not in the
        reference; for one in it, its responses are then set aside (the model is held out,
        as if new).
    n_items : int, optional
        Items to draw; default the items the design predicts it needs for ``delta``.
    delta : float, optional
        The gap to size the design for; default the gap the IRT model predicts.
    alpha, power : float
        Two-sided level and target power.
    n_strata : int
        Strata (quantiles of the predicted SD of the per-item difference).
    seed : int
        Seed of the draw.
    tasks : list of str, optional
        Restrict the reference to these tasks.
    options : LoadOptions, optional
        Loader options; ``**columns`` (``model_column=``, ...) as in :func:`load_scores`.

    Returns
    -------
    SamplingDesign
        ``to_frame()`` is the design file; ``write(path)`` saves it.

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(1)
    >>> theta, a, c = rng.normal(size=12), rng.uniform(.5, 2, 2000), rng.normal(size=2000)
    >>> y = rng.random((12, 2000)) < st.success_probability(theta, a, c)
    >>> ref = pd.DataFrame({"model": np.repeat([f"m{i}" for i in range(12)], 2000),
    ...                     "item_id": np.tile(np.arange(2000), 12), "score": y.ravel() * 1})
    >>> d = plan_sampling(ref, model_a="new", accuracy_a=0.45, n_items=400)
    >>> d.model_b, d.n_items, d.n_population, len(d.to_frame())
    ('m4', 400, 2000, 400)
    >>> bool(d.predicted_se < d.srs_se), round(float(d.to_frame()["weight"].sum()))
    (True, 2000)
    """
    _validate.arguments(
        accuracy_a=accuracy_a, accuracy_b=accuracy_b, n_items=n_items, delta=delta,
        alpha=alpha, power=power, n_strata=n_strata, seed=seed, tasks=tasks,
        model_a=model_a, model_b=model_b,
    )
    from evalgap.jobs._inputs import long_scores

    alpha, power = (float(x) for x in _validate.levels(alpha, power, "two-sided"))
    n_strata = _validate.whole_number(n_strata, "n_strata", 1)
    seed = _validate.whole_number(seed, "seed", 0)
    from evalgap.jobs._board import reference_source

    source, read = reference_source(reference, options)
    long = long_scores(source, options=read, **columns)
    matrix, models, keys, notes = _reference_matrix(long, tasks)
    model_b = model_b if model_b is not None else _leader(matrix, models, model_a)
    if model_a == model_b:
        raise InputError(
            "{model_a!n} and {model_b!n} are both {name!r}; name two models",
            param="model_a",
            name=model_a,
        )
    sides = {"a": (model_a, accuracy_a), "b": (model_b, accuracy_b)}
    known, held = _known_models(sides, models, notes)
    if all(v == "responses" for v in known.values()):
        gap = float(np.nanmean(matrix[models.index(model_a)] - matrix[models.index(model_b)]))
        raise InputError(
            escape(
                f"both {model_a!r} and {model_b!r} are in the reference, so their full gap is "
                f"already known ({gap:+.4f}); "
            )
            + "plan for a model not yet run by giving its expected accuracy ({accuracy_a}), "
            "which holds it out of the reference",
            param="accuracy_a",
        )
    fitted = [i for i, m in enumerate(models) if m not in held]
    fit = st.fit_2pl(matrix[fitted])
    if not fit.converged:
        notes.append(f"the IRT fit stopped after {fit.n_iter} sweeps before converging")
    probability = _success_probabilities(fit, matrix, models, fitted, sides, known)
    mu, v = st.difference_moments(probability[model_a], probability[model_b])
    labels = st.quantile_strata(np.sqrt(v), n_strata)
    sizes, s2 = st.stratum_variances(mu, v, labels)
    population_variance = float(v.mean() + mu.var())
    delta_predicted = delta is None
    delta = _planned_gap(delta, mu)
    population = len(keys)
    required_design, need_srs = _items_required(
        sizes, s2, population_variance, delta, alpha, power
    )
    if n_items is None:
        n_items = required_design
        if required_design >= population:
            notes.append(
                f"the design needs all {population:,} items of the benchmark for this gap: "
                "the whole benchmark is drawn"
            )
    n_items = _validate.whole_number(n_items, "n_items", 1)
    allocation = st.neyman_allocation(sizes, np.sqrt(s2), n_items)
    chosen, weights = st.draw(labels, allocation, np.random.default_rng(seed))
    design = _design_frame(keys, chosen, weights, labels, sizes)
    srs_variance = (1 - n_items / population) * population_variance / n_items
    return SamplingDesign(
        model_a=model_a,
        model_b=model_b,
        known=known,
        n_reference_models=len(fitted),
        n_population=population,
        n_items=n_items,
        delta=delta,
        delta_predicted=delta_predicted,
        alpha=alpha,
        power=power,
        predicted_se=math.sqrt(st.stratified_variance(sizes, allocation, s2)),
        srs_se=math.sqrt(max(srs_variance, 0.0)),
        required_n_design=required_design,
        required_n_srs=math.ceil(need_srs),
        items_ratio=required_design / math.ceil(need_srs) if need_srs > 0 else math.nan,
        predicted_disagreement=float((v + mu**2).mean()),
        strata=_strata(sizes, allocation, s2),
        seed=seed,
        notes=tuple(notes),
        design=design,
    )


def _known_models(
    sides: dict[str, tuple[str, float | None]], models: list[str], notes: list[str]
) -> tuple[dict[str, str], set[str]]:
    """Return how each of the two models is known ("accuracy": a given expected accuracy;
    "responses": its scores in the reference) and the reference models set aside (given an
    accuracy); refuse a model neither in the reference nor given an accuracy."""
    known, held = {}, set()
    for side, (name, accuracy) in sides.items():
        if accuracy is not None:
            _validate.numbers(accuracy, f"accuracy_{side}")
            known[name] = "accuracy"
            if name in models:
                held.add(name)
                notes.append(
                    f"{name} is in the reference but accuracy_{side}= was given: its "
                    "responses are set aside and it is planned for as a new model"
                )
        elif name in models:
            known[name] = "responses"
        else:
            listing = ", ".join(models[:6]) + (", ..." if len(models) > 6 else "")
            raise InputError(
                fields(f"model_{side}")
                + escape(f": {name!r} is not in the reference ({listing}); ")
                + "for a new model give its expected accuracy with "
                + fields(f"accuracy_{side}"),
                param=f"model_{side}",
            )
    return known, held


def _success_probabilities(
    fit: st.IRTFit,
    matrix: np.ndarray,
    models: list[str],
    fitted: list[int],
    sides: dict[str, tuple[str, float | None]],
    known: dict[str, str],
) -> dict[str, np.ndarray]:
    """Return each of the two models' success probability per item: from the 2PL at the
    ability of its given accuracy, or its own scores with the 2PL's where it has none."""
    probability = {}
    for name, accuracy in sides.values():
        if known[name] == "accuracy":
            assert accuracy is not None  # "accuracy" is known only from a given accuracy
            probability[name] = fit.probabilities(
                st.ability_for_accuracy(accuracy, fit.slope, fit.intercept)
            )
        else:
            row = fitted.index(models.index(name))
            own = matrix[models.index(name)]
            probability[name] = np.where(
                np.isnan(own), fit.probabilities(fit.ability[row]), own
            )
    return probability


def _planned_gap(delta: float | None, mu: np.ndarray) -> float:
    """Return the gap to plan for: ``delta``, else the predicted mean difference; refused
    when 0 or beyond 1."""
    delta = float(mu.mean()) if delta is None else float(_validate.numbers(delta, "delta"))
    if delta == 0:
        raise InputError(
            "{delta!b}" + escape(" must be non-zero: no design resolves a gap of zero"),
            param="delta",
        )
    if abs(delta) > 1:
        raise InputError(
            "{delta:g} is beyond any gap of scores in [0, 1] (the reference's scale): a gap "
            "is at most 1; give it as a share (0.05 = 5 points)",
            param="delta",
            delta=delta,
        )
    return delta


def _items_required(
    sizes: np.ndarray,
    s2: np.ndarray,
    population_variance: float,
    delta: float,
    alpha: float,
    power: float,
) -> tuple[int, float]:
    """Return the items the stratified design needs to resolve ``delta`` and the (continuous)
    items a simple random sample needs."""
    need_design, need_srs = st.items_needed(
        sizes, s2, population_variance, delta, alpha=alpha, power=power
    )
    # The whole allocation (at least 2 per stratum, rounded) must reach the target itself:
    # the continuous optimum rounded up can fall short of it.
    required_design = st.items_for_variance(
        sizes, s2, st.target_variance(delta, alpha=alpha, power=power), math.ceil(need_design)
    )
    return required_design, need_srs


def _strata(sizes: np.ndarray, allocation: np.ndarray, s2: np.ndarray) -> tuple[Stratum, ...]:
    """Return each stratum's size, items drawn, weight and predicted SD."""
    return tuple(
        Stratum(
            stratum=h,
            size=int(sizes[h]),
            n_items=int(allocation[h]),
            weight=float(sizes[h] / allocation[h]),
            predicted_sd=float(np.sqrt(s2[h])),
        )
        for h in range(sizes.size)
    )


@dataclass(frozen=True, repr=False)
class PairValidation(Result):
    """Repeated sampling of one held-back pair under its design.

    Not a table (no ``to_frame()``): one row of :meth:`SamplingValidation.to_frame`.

    Attributes
    ----------
    model_a, model_b : str
        The held-back pair.
    gap : float
        Its full-benchmark gap (the truth the estimates aim at).
    n_items : int
        Items drawn per repetition.
    bias, bias_se : float
        Mean estimate minus the gap, and its Monte Carlo SE.
    coverage, coverage_se : float
        Share of repetitions whose ``1 - alpha`` interval covered the gap, and its MC SE.
    items_ratio, items_ratio_se : float
        The estimates' variance over SRS's exact variance at the same n -- the items
        needed at equal power, as a ratio to SRS -- and its MC SE.
    predicted_items_ratio : float
        What the design predicted that ratio to be.
    """

    model_a: str
    model_b: str
    gap: float
    n_items: int
    bias: float
    bias_se: float
    coverage: float
    coverage_se: float
    items_ratio: float
    items_ratio_se: float
    predicted_items_ratio: float
    _headline = ("model_a", "model_b", "bias", "coverage", "items_ratio")


@dataclass(frozen=True, repr=False)
class SamplingValidation(Result):
    """Held-back pairs sampled repeatedly under their designs (see :func:`validate_sampling`).

    Attributes
    ----------
    pairs : tuple of PairValidation
        One row per held-back pair.
    n_repeats : int
        Repetitions per pair.
    alpha : float
        The intervals' level.
    """

    pairs: tuple[PairValidation, ...]
    n_repeats: int
    alpha: float
    _headline = ("pairs", "n_repeats")

    def to_frame(self) -> pd.DataFrame:
        """One row per pair.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame([p.to_dict() for p in self.pairs])


def validate_sampling(
    matrix: ArrayLike,
    models: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    *,
    n_items: int = 800,
    n_repeats: int = 1000,
    n_strata: int = st.DEFAULT_STRATA,
    leader_known: bool = False,
    alpha: float = 0.05,
    seed: int | None = 0,
) -> SamplingValidation:
    """Measure a stratified design's bias, coverage and saving on held-back pairs.

    For each pair, both models are removed from the reference, the IRT model is fitted on
    the rest, each held-back model enters only through its accuracy (as a new model
    would) -- or, with ``leader_known``, only A is held back and B (the leader a new model
    is compared with) stays in the reference with its responses -- the design is built,
    and ``n_repeats`` samples of ``n_items`` are drawn; each
    sample's weighted gap and SE come from :func:`evalgap.stats.weighted.weighted_gap`
    (the estimator ``compare --weights`` uses). The truth is the pair's gap over all items.

    Parameters
    ----------
    matrix : array_like
        Models x items, complete (0/1 or graded scores).
    models : sequence of str
        The models' names.
    pairs : sequence of (int, int)
        Row indices of the held-back pairs (A, B).
    n_items, n_repeats, n_strata
        Items per sample, repetitions per pair, strata.
    leader_known : bool
        Keep B in the reference and use its responses (a new model vs the leader).
    alpha, seed
        The intervals' level; the seed of the draws.

    Returns
    -------
    SamplingValidation

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> theta, a, c = rng.normal(size=10), rng.uniform(.5, 2, 3000), rng.normal(size=3000)
    >>> y = (rng.random((10, 3000)) < st.success_probability(theta, a, c)).astype(float)
    >>> v = validate_sampling(y, [f"m{i}" for i in range(10)], [(0, 1)], n_items=300,
    ...                       n_repeats=200)
    >>> p = v.pairs[0]
    >>> bool(abs(p.bias) < 3 * p.bias_se), bool(p.items_ratio < 1)
    (True, True)
    """
    _validate.arguments(
        n_items=n_items, n_repeats=n_repeats, n_strata=n_strata, leader_known=leader_known,
        alpha=alpha, seed=seed,
    )
    y = np.asarray(matrix, dtype=float)
    if np.isnan(y).any():
        raise InputError("validate_sampling needs a complete matrix (no missing scores)")
    rng = np.random.default_rng(seed)
    rows = []
    for i, j in pairs:
        held = (i,) if leader_known else (i, j)
        fit = st.fit_2pl(y[[k for k in range(y.shape[0]) if k not in held]])
        p = [fit.probabilities(st.ability_for_accuracy(y[k].mean(), fit.slope, fit.intercept))
             for k in held]
        mu, v = st.difference_moments(p[0], y[j] if leader_known else p[1])
        labels = st.quantile_strata(np.sqrt(v), n_strata)
        sizes, s2 = st.stratum_variances(mu, v, labels)
        allocation = st.neyman_allocation(sizes, np.sqrt(s2), n_items)
        d = y[i] - y[j]
        gap = float(d.mean())
        estimates = np.empty(n_repeats)
        covered = np.empty(n_repeats, dtype=bool)
        for r in range(n_repeats):
            chosen, weights = st.draw(labels, allocation, rng)
            g = weighted_gap(
                d[chosen], weights, labels[chosen], stratum_sizes=sizes[labels[chosen]],
                alpha=alpha,
            )
            estimates[r] = g.delta
            covered[r] = g.ci_low <= gap <= g.ci_high
        n = int(allocation.sum())
        srs = (1 - n / d.size) * d.var(ddof=1) / n
        ratio = float(estimates.var(ddof=1) / srs)
        predicted = st.stratified_variance(sizes, allocation, s2) / (
            (1 - n / d.size) * (v.mean() + mu.var()) / n
        )
        cover = float(covered.mean())
        rows.append(
            PairValidation(
                model_a=str(models[i]),
                model_b=str(models[j]),
                gap=gap,
                n_items=n,
                bias=float(estimates.mean() - gap),
                bias_se=float(estimates.std(ddof=1) / math.sqrt(n_repeats)),
                coverage=cover,
                coverage_se=math.sqrt(cover * (1 - cover) / n_repeats),
                items_ratio=ratio,
                items_ratio_se=ratio * math.sqrt(2 / (n_repeats - 1)),
                predicted_items_ratio=float(predicted),
            )
        )
    return SamplingValidation(pairs=tuple(rows), n_repeats=n_repeats, alpha=alpha)


def _reference_matrix(
    long: LongScores, tasks: Sequence[str] | None
) -> tuple[np.ndarray, list[str], pd.DataFrame, list[str]]:
    """Models x items (mean over runs; NaN where unscored), model names, item keys, notes."""
    import pandas as pd

    frame = long.frame
    if tasks is not None:
        tasks = [tasks] if isinstance(tasks, str) else [str(t) for t in tasks]
        frame = frame[frame["task"].isin(tasks)]
    if frame.empty:
        where = " for those tasks" if tasks else ""
        raise InputError(f"{long.source}: no scores in the reference{where}")
    score = pd.to_numeric(frame["score"], errors="coerce")
    if score.isna().any():
        raise InputError(
            f"{long.source}: {int(score.isna().sum()):,} reference score(s) are not numbers"
        )
    if ((score < 0) | (score > 1)).any():
        raise InputError(f"{long.source}: reference scores must lie in [0, 1] for the IRT fit")
    wide = (
        frame.assign(score=score)
        .groupby(["model", "task", "item_id"], observed=True, sort=False)["score"]
        .mean()
        .unstack(["task", "item_id"])
    )
    notes = list(long.notes)
    if "run" in frame.columns and frame["run"].nunique() > 1:
        notes.append("reference runs are averaged per item (a success rate per item and model)")
    models = [str(m) for m in wide.index]
    keys = wide.columns.to_frame(index=False)
    missing = int(wide.isna().to_numpy().sum())
    if missing:
        notes.append(
            f"{missing:,} (model, item) scores are missing from the reference; the IRT fit "
            "uses the scores there are"
        )
    return wide.to_numpy(dtype=float), models, keys, notes


def _leader(matrix: np.ndarray, models: list[str], model_a: str) -> str:
    """The reference's most accurate model other than model A (the current leader)."""
    accuracy = np.nanmean(matrix, axis=1)
    order = [models[k] for k in np.argsort(-accuracy, kind="stable")]
    leader = next((m for m in order if m != model_a), None)
    if leader is None:  # a bare StopIteration before
        raise InputError(
            escape(f"the reference holds no model but {model_a!r}, so it has no leader to ")
            + "plan against; name {model_b!n}, or give a reference of several models",
            param="model_b",
        )
    return leader


def _design_frame(
    keys: pd.DataFrame, chosen: np.ndarray, weights: np.ndarray, labels: np.ndarray,
    sizes: np.ndarray,
) -> pd.DataFrame:  # fmt: skip
    design = keys.iloc[chosen].reset_index(drop=True).copy()
    design["item_id"] = design["item_id"].astype(str)
    design["weight"] = weights
    design["stratum"] = labels[chosen]
    # The stratum's items in the benchmark: the finite-population correction compare reads.
    design["stratum_size"] = sizes[labels[chosen]].astype(np.int64)
    return design[["task", "item_id", "weight", "stratum", "stratum_size"]]
