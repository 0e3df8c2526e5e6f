"""The loader flags as the library's keywords: where the scores are and how to read them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evalgap.cli._options import NOT_LOAD_OPTIONS
from evalgap.jobs._inputs import COLUMN_OPTIONS, _unless_default  # the jobs' own names


def score_keywords(given: dict[str, Any], *, complete_case: bool = True) -> dict[str, Any]:
    """Take the loader flags out of ``given``; return them as keywords of a job.

    ``scores`` holds the score sources (the paths given, Hub downloads included; None when
    none), as every job names them; ``options`` is None when every reading option is left at its
    default, so a job can tell per-item options given from none; column names given become
    the job's own column keywords (``--models`` travels in ``options``, whose
    ``model_columns`` the jobs take as the models to keep).
    """
    from evalgap.io.options import LoadOptions

    loader = {k: given.pop(k) for k in [*_fields(), *NOT_LOAD_OPTIONS] if k in given}
    paths = [*loader.get("scores", ()), *_downloads(loader.get("hub", ()))]
    reading = {k: v for k, v in loader.items() if k not in NOT_LOAD_OPTIONS}
    columns = {k: reading.pop(k) for k in COLUMN_OPTIONS if reading.get(k) is not None}
    tasks = list(reading.get("tasks", ())) or None
    options = LoadOptions(**{k: v for k, v in reading.items() if k in _fields()})
    keywords: dict[str, Any] = {
        "options": _unless_default(options),
        "tasks": tasks,
        **columns,
    }
    if "scores" in loader:
        keywords["scores"] = paths or None
    if "strict" in loader:
        keywords["strict"] = loader["strict"]
    if complete_case and "complete_case" in loader:
        keywords["complete_case"] = loader["complete_case"]
    return keywords


def _fields() -> set[str]:
    import dataclasses

    from evalgap.io.options import LoadOptions

    return {f.name for f in dataclasses.fields(LoadOptions)}


def _downloads(repos: Iterable[str]) -> list[str]:
    """Open LLM Leaderboard details downloaded from the Hub, as local paths."""
    if not repos:
        return []
    from evalgap.io.open_llm_leaderboard import download_details

    return [str(download_details(repo)) for repo in repos]


def inputs(loader: dict[str, Any]) -> list[str]:
    """The score files, Hub repos and store the loader options name (for provenance)."""
    return [*loader["scores"], *loader["hub"], *filter(None, [loader.get("store")])]
