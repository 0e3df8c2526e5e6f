"""Reading the scores the loader options name (files, Hub repos, a results store)."""

from __future__ import annotations

import click

from evalgap.cli._options import NOT_LOAD_OPTIONS
from evalgap.cli._render import progress_bar


def load_long(loader: dict, *, quiet: bool = True):
    """Read the scores named by the loader options into the long layout (LongScores).

    Unless ``quiet``, a progress bar with an estimate covers the reading of tables.
    """
    from evalgap.io.open_llm_leaderboard import download_details
    from evalgap.io.sources import load_scores
    from evalgap.io.tables import reporting_progress

    paths = list(loader["scores_paths"]) + [str(download_details(r)) for r in loader["hub"]]
    options = load_options(loader)
    with progress_bar(quiet, "reading scores", by_bytes=True) as tick, reporting_progress(tick):
        return load_scores(paths, options)


def inputs(loader: dict) -> list:
    """The score files, Hub repos and store the loader options name (for provenance)."""
    return [*loader["scores_paths"], *loader["hub"], *filter(None, [loader["store"]])]


def has_scores(loader: dict) -> bool:
    """Whether the loader options name scores: files, Hub repos or a results store."""
    return bool(loader["scores_paths"] or loader["hub"] or loader.get("store"))


def load_options(loader: dict):
    """The LoadOptions of the loader flags."""
    from evalgap.io.options import LoadOptions

    return LoadOptions(**{k: v for k, v in loader.items() if k not in NOT_LOAD_OPTIONS})


def alignment(loader: dict) -> dict:
    """The alignment settings of the loader options, as the jobs' keyword arguments."""
    return {
        "tasks": list(loader["tasks"]) or None,
        "strict": loader["strict"],
        "complete_case": loader["complete_case"],
    }


def read_scores(loader: dict, *, models, quiet: bool = True):
    """Read and align the scores named by the loader options; return (long table, ScoreSet).

    The loader's notes travel in the alignment report, so every job shows them on the
    terminal and in --json alike.
    """
    from evalgap.jobs.api import scores_of

    table = load_long(loader, quiet=quiet)
    if models is None:
        models = list(loader["model_columns"]) or None
    return table, scores_of(table, models=models, **alignment(loader))


def given_options() -> dict:
    """The options of this invocation the user gave (not left at their defaults)."""
    ctx = click.get_current_context()
    return {
        param.opts[0]: ctx.params[param.name]
        for param in ctx.command.params
        if param.name in ctx.params
        and ctx.get_parameter_source(param.name) is not click.core.ParameterSource.DEFAULT
    }
