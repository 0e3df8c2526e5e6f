"""How to read scores: the options every loader takes.

Each field carries its command-line flag and help text in its metadata, so the CLI builds its
loader flags from this one definition (and imports nothing heavy to do so). The values of
``fmt`` are the sources' of :mod:`evalgap.io.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

_T = TypeVar("_T")


def _option(default: _T, flag: str, help: str, **click_kwargs: object) -> _T:
    """A LoadOptions field with its flag, help and click settings in the metadata."""
    return field(default=default, metadata={"flag": flag, "help": help, **click_kwargs})


@dataclass(frozen=True)
class LoadOptions:
    """Every option a user can give about how to read scores (CLI flags of the same names).

    Attributes
    ----------
    fmt : str, optional
        Force the source or table format (``--format``; default: detected).
    layout : {"long", "wide"}
        Table layout.
    models_in : {"columns", "rows"}
        Wide tables: models as columns or as rows.
    item_column, score_column, model_column, task_column, run_column, cluster_column : str
        Column names of a score table (default: detected; runs are averaged per item).
    config_columns : tuple of str
        Columns (or, in lm-eval and inspect_ai logs, run-metadata fields such as ``seed``)
        whose values name the configuration a score was run under (``--config-columns
        seed,provider``): one configuration per combination of their values, kept as a
        factor of the long table (column ``configuration``). Jobs that do not use it average
        a model's runs over the configurations, as they average runs.
    items : str, optional
        An item file: keep only the items it lists (and take clusters from it).
    model_columns : tuple of str
        Keep only these models (``--models``); in wide tables, the model columns.
    metric : tuple of str
        lm-eval/OLL metric: ``NAME`` for all tasks or ``TASK=NAME``.
    filter_name : str, optional
        lm-eval: the filter of tasks scored under several (``--filter``).
    all_runs : bool
        lm-eval/OLL: average every timestamped run instead of the latest.
    scorer, score_key : str, optional
        inspect_ai: the scorer, and the entry of a dict-valued score.
    on_error : {"skip", "fail"}
        inspect_ai: errored samples are left out and counted, or stop the read.
    reducer : str, optional
        inspect_ai: the epoch reducer of logs that record several (``mean``: average the
        epochs).
    stat : str
        HELM: the per-instance stat to compare.
    model_name : str, optional
        Name the model of files that carry no name.
    tasks : tuple of str
        Keep only these tasks (``--task``, repeatable).
    store : str, optional
        Read the scores from this results store (``--store``, see ``evalgap store``) in
        place of score files; the model and task selections still apply.
    """

    # Its values are the registry's (evalgap.io.registry.format_names), checked on reading.
    fmt: str | None = _option(
        None, "--format", "Force the source or table format (default: detected)."
    )
    layout: str = _option("long", "--layout", "Table layout.", choices=("long", "wide"))
    models_in: str = _option(
        "columns",
        "--models-in",
        "Wide tables: models as columns or as rows.",
        choices=("columns", "rows"),
    )
    item_column: str | None = _option(
        None, "--item-column", "Column identifying the item (default: detected)."
    )
    score_column: str | None = _option(
        None, "--score-column", "Column with the per-item score (default: detected)."
    )
    model_column: str | None = _option(
        None, "--model-column", "Column naming the model (default: detected)."
    )
    task_column: str | None = _option(
        None,
        "--task-column",
        "Column naming the task (default: detected; 'none': one task, no column detected).",
    )
    run_column: str | None = _option(
        None, "--run-column", "Column numbering repeated runs; runs are averaged per item."
    )
    cluster_column: str | None = _option(
        None, "--cluster-column", "Column with a cluster label (subject, category)."
    )
    config_columns: tuple = _option(
        (),
        "--config-columns",
        "Columns naming the configuration a score was run under (seed, provider, harness "
        "version...), comma-separated; lm-eval and inspect_ai logs: run-metadata fields "
        "(seed, model_args, batch_size, ...). One configuration per combination of values.",
        multiple=True,  # and comma-separated: the readers split the names
        metavar="COLUMN[,COLUMN...]",
    )
    items: str | None = _option(
        None,
        "--items",
        "Item file: keep only the items it lists (and, with --cluster-column, take their "
        "clusters from it).",
        path=True,
    )
    model_columns: tuple = _option(
        (),
        "--models",
        "Keep only these models (repeatable); in wide tables, the model columns (default: "
        "every model; wide: every numeric column).",
        multiple=True,
    )
    metric: tuple = _option(
        (),
        "--metric",
        "lm-eval/OLL metric: NAME for all tasks or TASK=NAME (repeatable).",
        multiple=True,
    )
    filter_name: str | None = _option(
        None,
        "--filter",
        "lm-eval: the filter of tasks scored under several (e.g. strict-match); required for "
        "them, as their filters score the same documents.",
    )
    all_runs: bool = _option(
        False,
        "--all-runs",
        "lm-eval/OLL: average every timestamped run instead of the latest.",
        is_flag=True,
    )
    scorer: str | None = _option(
        None, "--scorer", "inspect_ai: the scorer to use when there are several."
    )
    score_key: str | None = _option(
        None, "--score-key", "inspect_ai: the entry of a dict-valued score to use."
    )
    on_error: str = _option(
        "skip",
        "--on-error",
        "inspect_ai: errored samples are left out and counted, or stop the read.",
        choices=("skip", "fail"),
    )
    reducer: str | None = _option(
        None,
        "--reducer",
        "inspect_ai: the epoch reducer to use when a log records several (mean: average "
        "the epochs).",
    )
    stat: str = _option("exact_match", "--stat", "HELM: the per-instance stat to compare.")
    model_name: str | None = _option(
        None, "--model-name", "Name the model of files that carry no name."
    )
    tasks: tuple = _option(
        (),
        "--task",
        "Keep only this task (repeatable). Default: all tasks, pooled.",
        multiple=True,
    )
    store: str | None = _option(
        None,
        "--store",
        "Read the scores from this results store (evalgap store add) instead of --scores.",
        path=True,
    )
