"""evalgap store: a DuckDB results store for a growing leaderboard."""

from __future__ import annotations

import click

from evalgap.cli._load import has_scores, load_options
from evalgap.cli._options import SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit, progress_bar
from evalgap.errors import InputError

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
"""


@click.group(epilog=STORE_EXAMPLES)
def store():
    """A results store for a growing leaderboard: one DuckDB file, no server.

    Every job reads it with --store STORE in place of --scores; each source is added in one
    transaction with its content hash, and the pair statistics of new models are updated
    incrementally.
    """


@store.command("add", epilog=STORE_EXAMPLES + SCORE_SOURCES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.argument("sources", metavar="SOURCES...", nargs=-1, required=True, type=click.Path())
@loader_options
@option("json")
def store_add(store_path, sources, as_json, **loader):
    """Add score files or directories to STORE (created if absent); skip those already in it."""
    from evalgap.jobs.store import store_add as add_job

    if has_scores(loader):
        raise InputError("store add takes its sources as arguments; drop --scores/--hub/--store")
    switches = [flag for flag in ("strict", "complete_case") if loader[flag]]
    if switches:  # alignment switches: they apply when a job reads the store
        raise InputError(
            f"{switches[0]}=True: store add keeps every row; give it to the job that reads "
            "the store (evalgap audit --store STORE ...)"
        )
    with progress_bar(as_json, "adding sources", by_bytes=True) as progress:
        result = add_job(store_path, list(sources), load_options(loader), progress=progress)
    emit(result, as_json, "store-add")


@store.command("list", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@option("json")
def store_list(store_path, as_json):
    """List the models, tasks, items, runs and sources of STORE."""
    from evalgap.jobs.store import store_list as list_job

    emit(list_job(store_path), as_json, "store-list")


@store.command("remove", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option("--model", "models", multiple=True, help="Remove this model (repeatable).")
@click.option(
    "--source", "sources", multiple=True, help="Remove this source by its id (repeatable)."
)
@click.option(
    "--path",
    "source_paths",
    multiple=True,
    help="Remove the source added from this path (repeatable).",
)
@option("json")
def store_remove(store_path, models, sources, source_paths, as_json):
    """Remove models or sources from STORE (one transaction)."""
    from evalgap.jobs.store import store_remove as remove_job

    result = remove_job(store_path, models=models, sources=sources, source_paths=source_paths)
    emit(result, as_json, "store-remove")


@store.command("export", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The Parquet file to write.",
)
@option("json")
def store_export(store_path, output_path, as_json):
    """Export the long scores of STORE to Parquet (model, task, item_id, run, score, cluster)."""
    from evalgap.jobs.store import store_export as export_job

    emit(export_job(store_path, output_path), as_json, "store-export")


@store.command("audit", epilog=STORE_EXAMPLES)
@click.argument("store_path", metavar="STORE", type=click.Path(dir_okay=False))
@click.option(
    "--output",
    "output_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="The Parquet file every pair's row is written to (as audit --output).",
)
@click.option(
    "--family",
    type=click.Choice(["all", "adjacent"]),
    default="all",
    show_default=True,
    help="Every pair of each task's models, or the rank-adjacent ones.",
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
@option("json")
def store_audit(store_path, output_path, family, tasks, block_pairs, alpha, power, as_json):
    """Audit every pair of a binary STORE from its pair statistics, in bounded memory.

    No item is read: each pair's 2x2 counts come from the store. Holm and Benjamini-Hochberg
    run over the whole family; the rows stream to --output. For the cluster bootstrap, rank
    sets and trajectories, which resample items, use evalgap audit --store STORE.
    """
    from evalgap.jobs.store import audit_store_streamed

    with progress_bar(as_json, "store audit") as tick:
        result = audit_store_streamed(
            store_path,
            output_path,
            family=family,
            tasks=list(tasks) or None,
            block_pairs=block_pairs,
            alpha=alpha,
            power=power,
            n_bootstrap=0,
            n_bootstrap_required_n=0,
            progress=tick,
        )
    emit(result, as_json, "store-audit")
