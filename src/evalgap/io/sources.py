"""One entry point for every input: read score files, any mix of sources, or a store.

Every job (compare, audit, degrade, simulate) reads its scores through :func:`load_scores`,
so a loader written once serves all. The sources and how each is recognised are the rows of
:mod:`evalgap.io.registry` (:func:`evalgap.io.registry.format_help` lists them); the files
are read by :mod:`evalgap.io.reading`, the stored rows by :mod:`evalgap.io.store`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from evalgap._scores import LongScores
from evalgap.errors import InputError, escape
from evalgap.io.options import LoadOptions
from evalgap.io.reading import detect_source, read_paths

__all__ = ["LoadOptions", "detect_source", "load_scores"]


def load_scores(
    paths: str | Path | Iterable[str | Path] | None,
    options: LoadOptions | None = None,
) -> LongScores:
    """Read every path (files or directories, any mix of sources) into one long table.

    Parameters
    ----------
    paths : str, Path or list of them
        Files or directories of any source of :data:`evalgap.io.registry.SOURCES` (score
        tables, lm-evaluation-harness outputs, Open LLM Leaderboard details, inspect_ai
        logs, HELM runs, AlpacaEval annotations...); the source of each is detected
        (``options.fmt`` forces one).
    options : LoadOptions, optional
        How to read them: column names, layout, metric, filter, scorer...

    Returns
    -------
    LongScores
        One row per (model, task, item[, run]) with its score; ``notes`` say what was
        detected or left out. :func:`evalgap.align` turns it into aligned arrays.

    Examples
    --------
    >>> import evalgap
    >>> table = evalgap.load_scores("examples/two_models.csv")
    >>> sorted(set(table.frame["model"])), len(table.frame)
    (['model-x', 'model-y'], 4000)
    """
    if options is not None and not isinstance(options, LoadOptions):
        raise InputError(
            "load_scores({options}...): expected a LoadOptions, got "
            + escape(type(options).__name__),
            param="options",
        )
    options = options or LoadOptions()
    if options.store:
        if options.config_columns:
            raise InputError(
                "a results store keeps one score per model and item, without configurations, "
                "so {config_columns} cannot be honoured with {store}; read the score files",
                param="config_columns",
            )
        if paths:
            raise InputError(
                "give either score files ({paths}) or a results store ({store}), not both",
                param="paths",
            )
        from evalgap.io import store

        return store.load(options)  # every option honoured on the stored rows, or refused
    if isinstance(paths, (str, Path)):
        paths = [paths]
    elif paths is None or not hasattr(paths, "__iter__"):
        raise InputError(
            "load_scores({paths}...): expected a path or a list of paths, got "
            + escape(type(paths).__name__),
            param="paths",
        )
    paths = list(paths)  # a generator is read once
    if not all(isinstance(p, (str, Path)) for p in paths):
        bad = next(p for p in paths if not isinstance(p, (str, Path)))
        raise InputError(
            "load_scores({paths}...): every path must be a string or a Path, got "
            + escape(type(bad).__name__),
            param="paths",
        )
    files = [Path(p) for p in paths]
    if not files:
        raise InputError("no score files given; pass {paths=FILE} (repeatable)", param="paths")
    return read_paths(files, options)
