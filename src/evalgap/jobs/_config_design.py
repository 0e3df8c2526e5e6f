"""The long table's configurations as arrays: items x configurations x replicates per model.

The ``configurations`` job and the configuration scale of compare and degrade read their
scores through :func:`configuration_design`, so both see the same items, configurations,
replicates and errored samples. A replicate is one run of an item under one configuration
(runs in the order of their run labels); replicate ``r`` of model A is paired with
replicate ``r`` of model B.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io.configurations import COLUMN, ERRORED
from evalgap.stats._types import FloatArray

NO_CONFIGURATIONS = (
    "the scores carry no configuration: name the columns (or run-metadata fields) that say "
    "what each score was run under with {config_columns}, e.g. seed,provider"
)


@dataclass(frozen=True, repr=False)
class ConfigurationSamples(Result):
    """One model under one configuration: samples read, errored (the run failed), empty
    (no score), and the mean of the scored ones.

    Attributes
    ----------
    model, configuration : str
    samples, errored, empty : int
        Rows read; samples whose run errored (where the reader knows it: inspect_ai);
        samples without a usable score.
    mean_score : float
        The mean of the model's usable scores under this configuration.
    """

    model: str
    configuration: str
    samples: int
    errored: int
    empty: int
    mean_score: float
    _headline = ("model", "configuration", "errored")


@dataclass(frozen=True)
class ConfigurationDesign:
    """Scores as ``(models, items, configurations, replicates)``, NaN where missing."""

    models: tuple[str, ...]
    item_ids: tuple[str, ...]
    configurations: tuple[str, ...]
    factors: tuple[str, ...]
    scores: FloatArray
    samples: tuple[ConfigurationSamples, ...]

    def pair(self) -> tuple[FloatArray, FloatArray, int, tuple[str, ...]]:
        """Model A's and B's arrays on the items and configurations both have a paired
        replicate in, with how many items and which configurations were left out."""
        a, b = self.scores[0], self.scores[1]
        paired = ~np.isnan(a) & ~np.isnan(b)
        items = paired.any(axis=(1, 2))
        configs = paired[items].any(axis=(0, 2))
        mask = np.where(paired, 1.0, np.nan)
        a, b = (a * mask)[items][:, configs], (b * mask)[items][:, configs]
        dropped = tuple(c for c, kept in zip(self.configurations, configs, strict=True) if not kept)
        return a, b, int((~items).sum()), dropped


def configuration_design(
    long: LongScores, models: Sequence[str], tasks: Sequence[str] | None = None
) -> ConfigurationDesign:
    """Return the design of ``models`` (one or two) in ``long``; items of several tasks are
    pooled (keyed by task and item id)."""
    frame = long.frame
    if COLUMN not in frame.columns:
        raise InputError(escape(f"{long.source}: ") + NO_CONFIGURATIONS, param="config_columns")
    found = list(pd.unique(frame["model"].astype(str)))
    for m in models:
        if m not in found:
            raise InputError(
                escape(f"{long.source}: no model {m!r}; models found: {', '.join(found[:20])}")
            )
    frame = frame[frame["model"].astype(str).isin(list(models))]
    if tasks:
        frame = frame[frame["task"].astype(str).isin(list(tasks))]
        if frame.empty:
            raise InputError(
                "{tasks}" + escape(f" {', '.join(tasks)} holds no scores of these models"),
                param="tasks",
            )
    several_tasks = frame["task"].nunique() > 1
    item = frame["item_id"].astype(str)
    if several_tasks:
        item = frame["task"].astype(str) + " / " + item
    score = pd.to_numeric(frame["score"], errors="coerce").astype(float)
    errored = (
        frame[ERRORED].fillna(False).astype(bool)
        if ERRORED in frame.columns
        else pd.Series(False, index=frame.index)
    )
    configuration = frame[COLUMN].astype(str)
    model = frame["model"].astype(str)
    counts = (
        pd.DataFrame(
            {
                "model": model,
                "configuration": configuration,
                "errored": errored,
                "empty": score.isna() & ~errored,
                "score": score.where(~errored),
            }
        )
        .groupby(["model", "configuration"], sort=False)
        .agg(
            samples=("errored", "size"),
            errored=("errored", "sum"),
            empty=("empty", "sum"),
            mean_score=("score", "mean"),
        )
    )
    usable = score.notna() & ~errored
    table = pd.DataFrame(
        {"model": model, "item": item, "configuration": configuration, "score": score}
    )[usable]
    if "run" in frame.columns:
        table = table.assign(run=frame.loc[usable, "run"].astype(str)).sort_values(
            "run", kind="stable"
        )
    if table.empty:
        raise InputError(escape(f"{long.source}: no usable score of {', '.join(models)}"))
    replicate = table.groupby(["model", "item", "configuration"], sort=False).cumcount()
    m_codes = pd.Categorical(table["model"], categories=list(models)).codes
    i_codes, items = pd.factorize(table["item"], sort=True)
    c_codes, configs = pd.factorize(table["configuration"], sort=True)
    scores = np.full((len(models), len(items), len(configs), int(replicate.max()) + 1), np.nan)
    scores[m_codes, i_codes, c_codes, replicate.to_numpy()] = table["score"].to_numpy()
    samples = tuple(
        ConfigurationSamples(
            str(m), str(c), int(r.samples), int(r.errored), int(r.empty), float(r.mean_score)
        )
        for (m, c), r in counts.sort_index().iterrows()
    )
    factors = tuple((long.columns.get(COLUMN) or "configuration").split(","))
    return ConfigurationDesign(
        models=tuple(models),
        item_ids=tuple(map(str, items)),
        configurations=tuple(map(str, configs)),
        factors=factors,
        scores=scores,
        samples=samples,
    )
