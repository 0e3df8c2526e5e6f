"""evalgap inspect-data: what was read, before any test."""

from __future__ import annotations

from typing import Any

from evalgap.cli._command import command
from evalgap.cli._load import score_keywords
from evalgap.cli._options import SCORE_SOURCES, loader_options, option
from evalgap.cli._render import emit, working


@command(
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
@option("json")
def inspect_data_command(json: bool, **given: Any) -> None:
    """Show what was read: models, tasks, items, metric, scores and the alignment report.

    The first command to run on new files. Models are not paired here: every model is
    aligned with every other, so 'items kept' counts the items scored for all of them.
    """
    from evalgap.jobs.inspect_data import inspect_data

    source = score_keywords(given)
    with working(json, "reading scores", by_bytes=True):
        result = inspect_data(**source)
    emit(result, json)
