"""evalgap store: a DuckDB results store for a growing leaderboard."""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import group, renamed
from evalgap.cli._engine import engine_options
from evalgap.cli._load import score_keywords
from evalgap.cli._options import (
    NOT_SCORE_SOURCES,
    OUTPUT_FILE,
    SCORE_SOURCES,
    loader_options,
    option,
    store_argument,
)
from evalgap.cli._render import emit, working

STORE_EXAMPLES = """
\b
Examples:
  # Add this week's logs (re-adding a file adds nothing), then audit from the store:
  evalgap store add board.duckdb ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz
  evalgap store add board.duckdb lm_eval_out/ logs/ --json
  evalgap audit --store board.duckdb --json
\b
  # Every pair of a large board from the stored statistics, rows to Parquet:
  evalgap store audit board.duckdb --output pairs.parquet
\b
  # What is in it; remove a model; export the long table:
  evalgap store list board.duckdb
  evalgap store remove board.duckdb --model old-model
  evalgap store export board.duckdb --output board.parquet
\b
  # Beyond one machine: shards of 20,000 items x 500 models, every pair summed on a cluster:
  evalgap store export board.duckdb --output shards/ --shard-items 20000 --shard-models 500
  evalgap audit --scores shards/ --family all --engine dask --scheduler tcp://host:8786
  evalgap store audit shards/ --output pairs.parquet --engine dask
"""


@group(epilog=STORE_EXAMPLES)
def store() -> None:
    """A results store for a growing leaderboard: one DuckDB file, no server.

    Every job reads it with --store STORE in place of --scores; each source is added in one
    transaction with its content hash, and the pair statistics of new models are updated
    incrementally.
    """


@store.command("add", epilog=STORE_EXAMPLES + SCORE_SOURCES)
@store_argument
@click.argument("paths", metavar="SOURCES...", nargs=-1, required=True, type=click.Path())
@loader_options(exclude=NOT_SCORE_SOURCES)
@option("json")
def store_add(store: str, paths: tuple[str, ...], json: bool, **given: Any) -> None:
    """Add score files or directories to STORE (created if absent); skip those already in it.

    The alignment switches (--strict, --complete-case) apply when a job reads the store.
    """
    from evalgap.jobs.store import store_add as add_job

    source = score_keywords(given)
    source.pop("tasks")  # kept in options, which select the rows stored
    with working(json, "adding sources", by_bytes=True) as progress:
        result = add_job(store, list(paths), progress=progress, **source)
    emit(result, json)


@store.command("list", epilog=STORE_EXAMPLES)
@store_argument
@option("json")
def store_list(store: str, json: bool) -> None:
    """List the models, tasks, items, runs and sources of STORE."""
    from evalgap.jobs.store import store_list as list_job

    emit(list_job(store), json)


@renamed(kept={"--path": "--source-path"})
@store.command("remove", epilog=STORE_EXAMPLES)
@store_argument
@click.option("--model", "models", multiple=True, help="Remove this model (repeatable).")
@click.option(
    "--source", "sources", multiple=True, help="Remove this source by its id (repeatable)."
)
@click.option(
    "--source-path",
    "source_paths",
    multiple=True,
    help="Remove the source added from this path (repeatable).",
)
@option("json")
def store_remove(store: str, json: bool, **given: Any) -> None:
    """Remove models or sources from STORE (one transaction)."""
    from evalgap.jobs.store import store_remove as remove_job

    emit(remove_job(store, **given), json)


@store.command("export", epilog=STORE_EXAMPLES)
@store_argument
@click.option(
    "--output",
    required=True,
    type=OUTPUT_FILE,
    help="The Parquet file to write (with --shard-items/--shard-models: a new folder).",
)
@click.option(
    "--shard-items",
    type=click.IntRange(min=1),
    default=None,
    help="Write the binary boards as Parquet shards of this many items (and a manifest), "
    "for audit --engine dask.",
)
@click.option(
    "--shard-models",
    type=click.IntRange(min=1),
    default=None,
    help="Models per shard (default: every model; with --shard-items or alone).",
)
@option("json")
def store_export(store: str, output: str, json: bool, **shards: Any) -> None:
    """Export the long scores of STORE to Parquet (model, task, item_id, run, score, cluster),
    or its binary boards as Parquet shards (--shard-items, --shard-models)."""
    from evalgap.jobs.store import store_export as export_job

    emit(export_job(store, output, **shards), json)


@store.command("audit", epilog=STORE_EXAMPLES)
@click.argument("store", metavar="STORE", type=click.Path())
@click.option(
    "--output",
    required=True,
    type=OUTPUT_FILE,
    help="The Parquet file every pair's row is written to (as audit --output).",
)
@option(
    "family",
    default="all",
    help="Every pair of each task's models, or the rank-adjacent ones (audit's default; "
    "this command's product is the file of every pair's row).",
)
@click.option("--task", "tasks", multiple=True, help="Only this task (repeatable).")
@click.option(
    "--block-pairs",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Pairs audited at a time (memory grows with it, about 0.5 KB per pair).",
)
@option("alpha")
@option("power")
@engine_options
@option("json")
def store_audit(store: str, output: str, tasks: tuple[str, ...], json: bool, **given: Any) -> None:
    """Audit every pair of a binary STORE from its pair statistics, in bounded memory.

    No item is read: each pair's 2x2 counts come from the store. Holm and Benjamini-Hochberg
    run over the whole family; the rows stream to --output. For the cluster bootstrap, rank
    sets and trajectories, which resample items, use evalgap audit --store STORE. STORE may
    be a folder of Parquet shards (store export --shard-items), whose counts are summed in
    this process or, with --engine dask, on a cluster.
    """
    from evalgap.jobs.store import store_audit as store_audit_job

    with working(json, "store audit") as progress:
        result = store_audit_job(
            store,
            output,
            tasks=list(tasks) or None,
            progress=progress,
            n_bootstrap=0,
            n_bootstrap_required_n=0,
            **given,
        )
    emit(result, json)
