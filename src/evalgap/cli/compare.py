"""evalgap compare: one paired gap, from 2x2 counts or per-item scores."""

from __future__ import annotations

from typing import Any

import click

from evalgap.cli._command import command
from evalgap.cli._load import score_keywords
from evalgap.cli._options import (
    SCORE_SOURCES,
    common_test_options,
    counts_options,
    gold_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit, working, write_markdown
from evalgap.cli.configurations import configurations_option

COMPARE_EXAMPLES = """
\b
Examples:
  # From the 2x2 counts of a binary comparison (HellaSwag, gemma-7b vs Llama-3-8B):
  evalgap compare --both-correct 7986 --a-only 295 --b-only 249 --both-wrong 1512
\b
  # From a long table of per-item scores (CSV/TSV/Parquet/JSONL, optionally .gz):
  evalgap compare --scores examples/two_models.csv --model-a model-x --model-b model-y
\b
  # Machine-readable output, one-sided test (H1: A better):
  evalgap compare --scores results.csv.gz --model-a new --model-b old \\
      --alternative greater --json
\b
  # Two models' inspect logs under 2 providers x 2 seeds, the provider and seed random:
  evalgap compare --scores examples/configurations/logs --model-a mockllm/wide \\
      --model-b mockllm/narrow --config-columns model_args.provider,seed \\
      --configurations random
\b
  # An LLM judge's scores, with human labels on some items (empty elsewhere):
  evalgap compare --scores judged.csv --model-a new --model-b old --gold-column human \\
      --cost-gold 2.0 --cost-judge 0.01
"""


@command(epilog=COMPARE_EXAMPLES + SCORE_SOURCES)
@counts_options
@loader_options
@click.option("--model-a", help="Model A's name in the scores file.")
@click.option("--model-b", help="Model B's name in the scores file.")
@common_test_options
@option(
    "n_bootstrap",
    default=10_000,
    help="Bootstrap resamples for the paired bootstrap test and interval of graded scores "
    "(binary pairs get the exact bootstrap, no resamples; 0: skip the bootstrap). More than "
    "audit's 2,000: compare bootstraps one pair, audit every pair of a board.",
)
@option("n_bootstrap_required_n")
@option("seed")
@click.option(
    "--by",
    metavar="COLUMN",
    help="Compare the pair within each group: 'task', or a column of a score table "
    "(e.g. category); p-values adjusted over the groups.",
)
@click.option(
    "--adjustment",
    type=click.Choice(["holm", "bonferroni", "sidak", "bh"]),
    default="holm",
    show_default=True,
    help="With --by: the multiplicity correction over groups.",
)
@click.option(
    "--weights",
    help="Items sampled with unequal probabilities: a column of the scores table with each "
    "item's weight 1/pi, or the design file plan --reference wrote (item_id, weight, stratum).",
)
@click.option(
    "--strata",
    help="With --weights: the column of stratum labels (default: the design's 'stratum'). "
    "With gold labels: the column of the strata within which the labels were drawn at "
    "random; the gold-scale gap is stratified by it.",
)
@gold_options
@click.option(
    "--cost-gold",
    type=float,
    default=1.0,
    show_default=True,
    help="With gold labels: the price of one gold label (for the cheapest design).",
)
@click.option(
    "--cost-judge",
    type=float,
    default=0.0,
    show_default=True,
    help="With gold labels: the price of judging one more item for both models; > 0 gives "
    "the cheapest mix of gold labels and judged items that resolves the gap.",
)
@configurations_option
@option("markdown")
def compare(json: bool, markdown: str | None, **given: Any) -> None:
    """Test one paired gap and say whether the benchmark can resolve it.

    Give either the four 2x2 counts of a binary comparison, or --scores with --model-a and
    --model-b. Items not scored for both models are left out and counted in the output.
    """
    from evalgap.jobs.compare import compare as compare_job

    with working(json, "reading scores", by_bytes=True):
        source = score_keywords(given)
        result = compare_job(**source, **given)
    write_markdown(result, markdown, quiet=json)
    emit(result, json)
