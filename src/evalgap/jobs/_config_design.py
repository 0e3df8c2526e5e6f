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
from typing import Any

import numpy as np
import pandas as pd

from evalgap._results import Result
from evalgap._scores import LongScores, unknown_model
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
        kept = [c for c, k in zip(self.configurations, configs, strict=True) if k]
        self.require_crossed(a.shape[0], kept, "paired ")
        dropped = tuple(c for c, kept in zip(self.configurations, configs, strict=True) if not kept)
        return a, b, int((~items).sum()), dropped

    def require_crossed(self, n_items: int, configurations: Sequence[str], what: str = "") -> None:
        """Refuse a design with fewer than 2 items or 2 configurations, saying which."""
        if n_items >= 2 and len(configurations) >= 2:
            return
        shown = ", ".join(configurations[:3]) or "none"
        raise InputError(
            escape(
                f"{' and '.join(self.models)}: {n_items} item{'s' * (n_items != 1)} with "
                f"{what}scores under {len(configurations)} configuration"
                f"{'s' * (len(configurations) != 1)} ({shown}); telling the model from its "
                "configuration needs at least 2 items under at least 2 configurations: run "
                "another seed or provider, or name other columns with "
            )
            + "{config_columns}",
            param="config_columns",
        )


def configuration_design(
    long: LongScores, models: Sequence[str], tasks: Sequence[str] | None = None
) -> ConfigurationDesign:
    """Return the design of ``models`` (one or two) in ``long``; items of several tasks are
    pooled (keyed by task and item id).

    Built on the columns' integer codes (no text per row): the rows of the chosen models and
    tasks, each usable score placed at (model, item, configuration, replicate), the
    replicate being its rank among the runs of its cell in the order of their labels.
    """
    frame = long.frame
    if COLUMN not in frame.columns:
        raise InputError(escape(f"{long.source}: ") + NO_CONFIGURATIONS, param="config_columns")
    model, found = pd.factorize(frame["model"])
    found = [str(m) for m in found]
    for m in models:
        if m not in found:
            raise unknown_model(m, found, f" in {long.source}")
    position = np.array([list(models).index(m) if m in models else -1 for m in found])
    model = position[model]
    keep = model >= 0
    task, task_names = pd.factorize(frame["task"])
    if tasks:
        wanted = np.isin(np.asarray(task_names, dtype=str), list(tasks))
        keep &= wanted[task]
        if not keep.any():
            raise InputError(
                "{tasks}" + escape(f" {', '.join(tasks)} holds no scores of these models"),
                param="tasks",
            )
    item, item_names = pd.factorize(frame["item_id"])
    item_key = task.astype(np.int64) * len(item_names) + item
    configuration, configs = pd.factorize(frame[COLUMN], sort=True)
    score = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=float)
    errored = (
        frame[ERRORED].fillna(False).to_numpy(dtype=bool)
        if ERRORED in frame.columns
        else np.zeros(len(frame), dtype=bool)
    )
    model, item_key, configuration = model[keep], item_key[keep], configuration[keep]
    score, errored = score[keep], errored[keep]
    usable = ~np.isnan(score) & ~errored
    samples = _samples(models, configs, model, configuration, score, errored, usable)
    if not usable.any():
        raise InputError(escape(f"{long.source}: no usable score of {', '.join(models)}"))
    run = (
        pd.factorize(frame["run"].astype(str), sort=True)[0][keep][usable]
        if "run" in frame.columns
        else np.zeros(int(usable.sum()), dtype=np.int64)
    )
    items, item_code = np.unique(item_key[usable], return_inverse=True)
    used = np.unique(configuration[usable])
    config_code = np.searchsorted(used, configuration[usable])
    cell = (model[usable] * items.size + item_code) * used.size + config_code
    order = np.lexsort((run, cell))
    first = np.r_[True, cell[order][1:] != cell[order][:-1]]
    rank = np.arange(order.size)
    replicate = np.empty(order.size, dtype=np.int64)
    replicate[order] = rank - np.maximum.accumulate(np.where(first, rank, 0))
    scores = np.full((len(models), items.size, used.size, int(replicate.max()) + 1), np.nan)
    scores[model[usable], item_code, config_code, replicate] = score[usable]
    names = np.asarray(item_names).astype(str)[items % len(item_names)]
    if len(np.unique(items // len(item_names))) > 1:  # several tasks: "task / item"
        prefix = np.asarray(task_names).astype(str)[items // len(item_names)]
        names = np.char.add(np.char.add(prefix, " / "), names)
    return ConfigurationDesign(
        models=tuple(models),
        item_ids=tuple(names.tolist()),
        configurations=tuple(str(configs[c]) for c in used),
        factors=tuple((long.columns.get(COLUMN) or "configuration").split(",")),
        scores=scores,
        samples=samples,
    )


def _samples(
    models: Sequence[str], configs: Any, model: np.ndarray, configuration: np.ndarray,
    score: np.ndarray, errored: np.ndarray, usable: np.ndarray,
) -> tuple[ConfigurationSamples, ...]:  # fmt: skip
    """Per model and configuration with rows: samples, errored, empty, mean usable score."""
    cell = model * len(configs) + configuration
    size = len(models) * len(configs)
    rows = np.bincount(cell, minlength=size)
    failed = np.bincount(cell, weights=errored, minlength=size)
    empty = np.bincount(cell, weights=~usable & ~errored, minlength=size)
    scored = np.bincount(cell, weights=usable, minlength=size)
    total = np.bincount(cell[usable], weights=score[usable], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / scored
    return tuple(
        ConfigurationSamples(
            models[k // len(configs)], str(configs[k % len(configs)]), int(rows[k]),
            int(failed[k]), int(empty[k]), float(mean[k]),
        )
        for k in np.flatnonzero(rows)
    )  # fmt: skip
