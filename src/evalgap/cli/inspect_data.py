"""evalgap inspect-data: what was read, before any test."""

from __future__ import annotations

import click

from evalgap.cli._load import has_scores, read_scores
from evalgap.cli._options import SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit
from evalgap.errors import InputError


@click.command(
    "inspect-data",
    epilog=SCORE_SOURCES
    + """
\b
Examples:
  evalgap inspect-data --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --items ../shared/data/mmlu_pro/mmlu_pro_items.csv --cluster-column category
  evalgap inspect-data --scores lm_eval_output/ --metric hellaswag=acc_norm
  evalgap inspect-data --scores logs/qwen.eval --scores logs/sonnet.eval --json
""",
)
@loader_options
@option("json", help="Print the summary as JSON.")
def inspect_data_command(as_json, **loader):
    """Show what was read: models, tasks, items, metric, scores and the alignment report.

    The first command to run on new files. Models are not paired here: every model is
    aligned with every other, so 'items kept' counts the items scored for all of them.
    """
    from evalgap.jobs.inspect_data import inspect_data

    if not has_scores(loader):
        raise InputError("give --scores FILE (repeatable) or --hub REPO")
    table, score_set = read_scores(loader, models=None, quiet=as_json)
    emit(inspect_data(table, score_set=score_set), as_json, "inspect-data")
