"""The ``configurations`` job: is it the model or the configuration it was run under?

For one model, or a pair on the same items, run under several configurations (seeds,
providers, batch sizes, harness versions: ``config_columns``), the variance of a score or of
the paired gap is split into item, configuration, item x configuration and residual
components (:mod:`evalgap.stats.config_components`), each with an interval and its share;
the configuration effect (for a gap: the model x configuration interaction) and the item x
configuration part are tested; the mean score or gap gets two intervals, with the
configurations a random factor (a claim about configurations like these) and fixed (about
these configurations only); and errored or empty samples are counted per configuration and
tested for association with it (:mod:`evalgap.stats.contingency`).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap.errors import InputError
from evalgap.jobs._config_design import ConfigurationSamples, configuration_design
from evalgap.jobs._pages import Views
from evalgap.stats import config_components
from evalgap.stats.config_components import COMPONENTS, ConfigurationComponents
from evalgap.stats.contingency import IndependenceTest, failure_association

if TYPE_CHECKING:
    from rich.console import Console

    from evalgap._scores import ScoresInput
    from evalgap.io.options import LoadOptions

__all__ = ["ConfigurationsResult", "configurations"]


@dataclass(frozen=True, repr=False)
class ConfigurationsResult(Views, Result):
    """What ``evalgap configurations`` reports for one model's score or a pair's gap.

    Attributes
    ----------
    models : tuple of str
        The model (one) or the pair (A, B: the gap is A minus B).
    factors : tuple of str
        The columns or run-metadata fields that name a configuration.
    configurations : tuple of str
        The configurations analysed, in order.
    configuration_means : tuple of float
        The mean score (or gap) under each configuration.
    components : ConfigurationComponents
        The four variance components with intervals, shares, mean squares, the two F tests
        and the mean's intervals (random and fixed configurations).
    samples : tuple of ConfigurationSamples
        Per model and configuration: samples read, errored, empty.
    error_test : IndependenceTest
        Are errored or empty samples associated with the configuration?
    items_left_out : int
        Items without a paired score under any configuration (pairs only).
    configurations_left_out : tuple of str
        Configurations where no item has a paired score (pairs only).
    """

    models: tuple[str, ...]
    factors: tuple[str, ...]
    configurations: tuple[str, ...]
    configuration_means: tuple[float, ...]
    components: ConfigurationComponents
    samples: tuple[ConfigurationSamples, ...]
    error_test: IndependenceTest
    items_left_out: int
    configurations_left_out: tuple[str, ...]
    _headline = ("models", "n_items", "n_configurations", "mean")
    _heading: ClassVar[str] = "evalgap configurations"
    _derived: ClassVar[tuple[str, ...]] = ("verdict",)

    @property
    def pair(self) -> bool:
        """True for a pair's gap, False for one model's score."""
        return len(self.models) == 2

    @property
    def n_items(self) -> int:
        """Items analysed."""
        return self.components.n_items

    @property
    def n_configurations(self) -> int:
        """Configurations analysed."""
        return self.components.n_configurations

    @property
    def mean(self) -> float:
        """The mean score (or gap) over every analysed score."""
        return self.components.mean

    @property
    def verdict(self) -> str:
        """The plain-language sentence: how far the configuration moves the score or gap, and
        what can be claimed."""
        from evalgap.report.sentences import configurations_sentence

        return configurations_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON of ``evalgap configurations --json``."""
        from evalgap._results import plain

        c = self.components
        out: dict[str, Any] = {
            "models": list(self.models),
            "gap": self.pair,
            "factors": list(self.factors),
            "n_items": c.n_items,
            "n_configurations": c.n_configurations,
            "n_observations": c.n_observations,
            "balanced": c.balanced,
            "confidence": c.confidence,
            "items_left_out": self.items_left_out,
            "configurations_left_out": list(self.configurations_left_out),
            "configurations": [
                {"configuration": name, "mean": mean}
                for name, mean in zip(self.configurations, self.configuration_means, strict=True)
            ],
            "components": self.to_frame().to_dict(orient="records"),
            "configuration_test": dataclasses.asdict(c.configuration_test),
            "interaction_test": dataclasses.asdict(c.interaction_test),
            "mean": c.mean,
            "mean_random": dataclasses.asdict(c.mean_random),
            "mean_fixed": dataclasses.asdict(c.mean_fixed),
            "samples": [s.to_dict() for s in self.samples],
            "error_test": dataclasses.asdict(self.error_test),
            "verdict": self.verdict,
        }
        return {k: plain(v) for k, v in out.items()}

    def to_frame(self) -> pd.DataFrame:
        """Return one row per component: estimate, interval, Satterthwaite df and share."""
        c = self.components
        return pd.DataFrame(
            {
                "component": list(COMPONENTS),
                "estimate": c.estimate,
                "lower": c.lower,
                "upper": c.upper,
                "df": c.df,
                "share": c.share,
            }
        )

    def _render(self, console: Console) -> None:
        from evalgap.report.configurations import render_configurations

        render_configurations(self, console)


def configurations(
    scores: ScoresInput | None = None,
    *,
    model: str | None = None,
    model_a: str | None = None,
    model_b: str | None = None,
    tasks: Sequence[str] | None = None,
    confidence: float = 0.95,
    options: LoadOptions | None = None,
    **columns: Any,
) -> ConfigurationsResult:
    """Return the variance components of one model's score, or a pair's gap, over the
    configurations it was run under (see the module docstring).

    Parameters
    ----------
    scores : LongScores, DataFrame, str, Path or list
        Per-item scores with their configuration: what :func:`evalgap.load_scores` read
        with ``LoadOptions(config_columns=...)``, or paths / a DataFrame read with
        ``options``.
    model : str, optional
        One model: the components of its score.
    model_a, model_b : str, optional
        A pair: the components of the gap A minus B on the items and configurations both
        have.
    tasks : list of str, optional
        Keep these tasks (items of several tasks are pooled).
    confidence : float
        Level of the components' and the mean's intervals.
    options : LoadOptions, optional
        How to read paths or a DataFrame; ``config_columns`` names the configuration.
    **columns
        Column names of a table (``model_column=``...).

    Returns
    -------
    ConfigurationsResult

    Examples
    --------
    >>> import numpy as np, pandas as pd, evalgap
    >>> from evalgap import LoadOptions
    >>> rng = np.random.default_rng(0)
    >>> shift = {"p": 0.0, "q": 0.1, "r": -0.1}
    >>> df = pd.DataFrame([{"model": "m", "item": i, "provider": c, "seed": s,
    ...     "score": 0.5 + shift[c] + rng.normal(0, 0.1)}
    ...     for i in range(50) for c in shift for s in (1, 2)])
    >>> r = evalgap.configurations(df, model="m", run_column="seed",
    ...     options=LoadOptions(config_columns=("provider",)))
    >>> r.n_items, r.n_configurations, r.components.configuration_test.p_value < 1e-6
    (50, 3, True)
    """
    from evalgap.jobs._inputs import _check_columns, long_scores

    _check_columns(columns, "configurations")
    pair = _models(model, model_a, model_b)
    for name, given in (
        ("cluster_column", columns.get("cluster_column")),
        ("models", options.model_columns if options is not None else None),
    ):
        if given:
            raise InputError(
                "{" + name + "} is not used by the decomposition of one model or pair (named "
                "with {model}, or {model_a} and {model_b}); leave it out",
                param=name,
            )
    long = long_scores(scores, options=options, **columns)
    design = configuration_design(long, pair, tasks)
    return _result(design, confidence)


def _models(model: str | None, model_a: str | None, model_b: str | None) -> tuple[str, ...]:
    if model is not None and (model_a is not None or model_b is not None):
        raise InputError(
            "give {model} for one model, or {model_a} and {model_b} for a pair", param="model"
        )
    if model is not None:
        return (model,)
    if model_a is None or model_b is None:
        raise InputError(
            "name the model with {model}, or the pair with {model_a} and {model_b}",
            param="model",
        )
    if model_a == model_b:
        raise InputError("{model_a} and {model_b} name the same model", param="model_b")
    return (model_a, model_b)


def _result(design: Any, confidence: float) -> ConfigurationsResult:
    """The result of a design (:class:`~evalgap.jobs._config_design.ConfigurationDesign`)."""
    if len(design.models) == 2:
        a, b, items_left_out, dropped = design.pair()
        y = a - b
        components = config_components.decompose_gap(a, b, confidence=confidence)
    else:
        y, items_left_out, dropped = design.scores[0], 0, ()
        design.require_crossed(y.shape[0], design.configurations)
        components = config_components.decompose(y, confidence=confidence)
    names = tuple(c for c in design.configurations if c not in dropped)
    with warnings.catch_warnings():  # an empty cell (item not run there) has no mean
        warnings.simplefilter("ignore", RuntimeWarning)
        cell = np.nanmean(y, axis=2)  # each item's mean under each configuration
    means = tuple(float(v) for v in np.nanmean(cell, axis=0))
    by_configuration: dict[str, list[int]] = {}
    for s in design.samples:
        failed, total = by_configuration.setdefault(s.configuration, [0, 0])
        by_configuration[s.configuration] = [failed + s.errored + s.empty, total + s.samples]
    failed_total = np.array(list(by_configuration.values()), dtype=float).reshape(-1, 2)
    return ConfigurationsResult(
        models=design.models,
        factors=design.factors,
        configurations=names,
        configuration_means=means,
        components=components,
        samples=design.samples,
        error_test=failure_association(failed_total[:, 0], failed_total[:, 1]),
        items_left_out=items_left_out,
        configurations_left_out=dropped,
    )


CONFIGURATIONS = ("random", "fixed")


def refuse_configurations(
    configurations: str, *, counts: tuple, arrays: object, by: object, weights: object,
    judged: bool, clusters: object = None,
) -> None:  # fmt: skip
    """Refuse ``configurations=`` where it cannot be honoured: it needs a table of scores
    read with ``config_columns`` (not counts, two arrays, groups, weights or gold labels)."""
    if configurations not in CONFIGURATIONS:
        raise InputError(
            "{configurations}" + f" must be 'random' or 'fixed'; got {configurations!r}",
            param="configurations",
        )
    if any(c is not None for c in counts) or arrays is not None:
        given = "2x2 counts" if any(c is not None for c in counts) else "two score arrays"
        raise InputError(
            "{configurations} needs the configuration of each score, which "
            + given
            + " do not carry: give a table or score files with {config_columns}",
            param="configurations",
        )
    others = ((by, "by"), (weights, "weights"), (judged or None, "gold_column"),
              (clusters, "cluster_column"))  # fmt: skip
    for other, name in others:
        if other is not None:
            raise InputError(
                "{configurations} and {" + name + "} are not taken together: the gap over "
                "configurations is one estimate of the pair; leave one out",
                param="configurations",
            )


def compare_configurations(
    scores: Any, model_a: str, model_b: str, *, configurations: str, settings: Any,
    n_permutations: int, read: dict[str, Any], columns: dict[str, Any],
) -> Any:  # fmt: skip
    """compare's one result with the configurations as a factor: the paired comparison of the
    per-item means (runs and configurations averaged) and, with ``configurations="random"``,
    its headline on the ``configuration`` scale (the gap over configurations like these);
    either way the part ``configuration`` (this job's result for the pair)."""
    from evalgap._scores import ScoreSet
    from evalgap.jobs._inputs import long_scores, scores_of
    from evalgap.jobs.compare_pair import compare_scores, scaled
    from evalgap.stats import pair_estimate as pe

    if isinstance(scores, ScoreSet):
        raise InputError(
            "{configurations}: an aligned ScoreSet holds one mean per item; give the table or "
            "score files with {config_columns}",
            param="configurations",
        )
    long = long_scores(scores, options=read["options"], **columns)
    design = configuration_design(long, (model_a, model_b), read["tasks"])
    alpha, power, alternative = settings["alpha"], settings["power"], settings["alternative"]
    part = _result(design, 1 - alpha)
    score_set = scores_of(
        long, models=[model_a, model_b], tasks=read["tasks"], strict=read["strict"],
        complete_case=read["complete_case"],
    )  # fmt: skip
    x, y = score_set.pair(model_a, model_b)
    paired = compare_scores(
        x, y, model_a=model_a, model_b=model_b, alignment=score_set.report,
        item_ids=score_set.pair_items(model_a, model_b), n_permutations=n_permutations,
        **settings,
    )  # fmt: skip
    if configurations == "fixed":
        return dataclasses.replace(paired, configuration=part)
    a, b, _, _ = design.pair()
    estimate = pe.SCALES["configuration"](a, b, alpha=alpha, power=power, alternative=alternative)
    return scaled(
        paired,
        estimate,
        accuracy=(float(np.nanmean(a)), float(np.nanmean(b))),
        mde=estimate.parts["mde"],  # the plan's rule, as its N*
        notes=paired.notes,
        configuration=part,
    )


def degrade_configurations(
    result: Any, long: Any, baseline: str, candidate: str, *, configurations: str,
    tasks: Sequence[str] | None, margin: float | None, equivalence: float | None,
    with_margins: Any,
) -> Any:  # fmt: skip
    """degrade's result with the pair's configuration part; with ``"random"`` its margins
    (non-inferiority, equivalence) on the ``configuration`` scale, per task and pooled, in
    degrade's frame (``delta`` is baseline minus candidate, a drop)."""
    from evalgap.stats import pair_estimate as pe

    design = configuration_design(long, (baseline, candidate), tasks)
    part = _result(design, 1 - result.alpha)
    if configurations == "fixed" or (margin is None and equivalence is None):
        return dataclasses.replace(
            with_margins(result, margin=margin, equivalence=equivalence), configuration=part
        )
    alpha = result.alpha
    pairs = [
        (t.task, configuration_design(long, (baseline, candidate), [t.task]).pair()[:2])
        for t in result.tasks
    ]
    pairs.append((result.total.task, design.pair()[:2]))
    out: dict[str, Any] = {}
    for field_name, verdict, value in (
        ("non_inferiority", "non_inferior", margin),
        ("equivalence", "equivalent", equivalence),
    ):
        if value is None:
            continue
        rows = []
        for task, (a, b) in pairs:
            # the interval at 1 - 2 alpha: its ends are the one-sided 1 - alpha bounds; the
            # p-values invert the same interval, so they agree with the verdicts
            e = pe.configuration(a, b, alpha=2 * alpha)
            below = pe.configuration_p_value(a, b, null=value, alternative="less")
            row: dict[str, Any] = {"task": task, "n_items": int(e.n_items), "delta": e.delta}
            if verdict == "non_inferior":
                row.update(upper_bound=float(e.ci.high), p_value=below,
                           non_inferior=bool(e.ci.high < value))  # fmt: skip
            else:
                above = pe.configuration_p_value(a, b, null=-value, alternative="greater")
                row.update(lower_bound=float(e.ci.low), upper_bound=float(e.ci.high),
                           p_value=max(below, above),
                           equivalent=bool(-value < e.ci.low and e.ci.high < value))  # fmt: skip
            rows.append(row)
        out[field_name] = {
            "margin": float(value),
            verdict: all(r[verdict] for r in rows[:-1]),
            "pooled": rows[-1],
            "tasks": rows[:-1],
            "scale": "configuration",
        }
    return dataclasses.replace(result, configuration=part, **out)
