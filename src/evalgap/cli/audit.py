"""evalgap audit: which displayed rankings of a leaderboard the benchmark resolves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from evalgap.cli._command import command
from evalgap.cli._engine import engine_options
from evalgap.cli._load import inputs, score_keywords
from evalgap.cli._options import (
    SCORE_SOURCES,
    common_test_options,
    gold_options,
    loader_options,
    option,
)
from evalgap.cli._render import emit, working, write_html, write_markdown, written

if TYPE_CHECKING:
    from evalgap.jobs.audit import AuditResult

AUDIT_EXAMPLES = """
\b
Examples:
  # The MMLU-Pro top-10 adjacent pairs of Table 7, from their 2x2 counts:
  evalgap audit --pairs pairs.csv --family-size 45
\b
  # Every adjacent pair of a leaderboard, with subject clusters and an HTML report:
  evalgap audit --scores ../shared/data/mmlu_pro/mmlu_pro_long.csv.gz \\
      --cluster-column category --html audit.html
\b
  # All pairs, JSON:
  evalgap audit --scores lm_eval_out/ --family all --json
\b
  # Every pair of a board in Parquet shards, summed on a Dask cluster:
  evalgap audit --scores shards/ --family all --engine dask --scheduler tcp://host:8786 \\
      --output pairs.parquet
\b
  # An LLM judge's board with human labels on some items, audited on the gold scale:
  evalgap audit --scores examples/judged.csv --gold-column human --family all
"""


@command(epilog=AUDIT_EXAMPLES + SCORE_SOURCES)
@option("pairs")
@loader_options
@option("family", default="adjacent")
@option("family_size")
@click.option(
    "--procedure",
    type=click.Choice(
        ["fixed_n", "bonferroni", "sidak", "holm", "bh", "anytime_valid", "clustered"]
    ),
    default="fixed_n",
    show_default=True,
    help="Procedure behind the tiers.",
)
@option("mixture")
@click.option(
    "--n-cluster-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Cluster-bootstrap resamples (0: skip).",
)
@option(
    "n_bootstrap",
    default=2000,
    help="Resamples for each graded pair's bootstrap p-value (binary pairs get the exact "
    "bootstrap; 0: skip). Fewer than compare's 10,000 for one pair: the audit bootstraps "
    "every pair of the board.",
)
@option("n_bootstrap_required_n", help="Resamples for each pair's N* interval (0: skip).")
@click.option(
    "--n-rank-bootstrap",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Bootstrap replicates of the rank sets (as evalgap ranks; 0: skip).",
)
@option("seed")
@engine_options
@option(
    "output",
    help="Write the per-pair table to this .parquet (or .csv) file; --json then keeps the "
    "summary and names the file (for hundreds of thousands of pairs). '-': the table as CSV "
    "on standard output, in place of the report (not with --json).",
)
@gold_options
@option("html")
@option("markdown")
@common_test_options
def audit(
    json: bool, html: str | None, markdown: str | None, output: str | None, **given: Any
) -> None:
    """Which displayed rankings can this benchmark resolve? (a whole leaderboard)

    Per task, models are listed in the board's one order (as ranks and card list them);
    every rank-adjacent pair (or every pair) gets a resolved/unresolved verdict under fixed
    n, Bonferroni, Sidak, Holm, BH, anytime-valid testing and, with --cluster-column,
    clustering.
    """
    from evalgap.jobs.audit import audit as audit_job

    sources = [given["pairs"]] if given["pairs"] else inputs(given)
    source = score_keywords(given)
    with working(json, "audit") as progress:
        result = audit_job(**source, progress=progress, **given)
    if html:
        write_html(result, html, sources, quiet=json)
    write_markdown(result, markdown, quiet=json)
    if output and _write_pairs(result, output, json):
        return
    emit(result, json)


def _write_pairs(result: AuditResult, output: str, json: bool) -> bool:
    """--output: the per-pair table to a file; --json then prints the summary naming it
    (and True: the result is printed)."""
    from evalgap.io._write import write_table

    write_table(result.to_arrow(), output, option="--output")
    if json:
        emit({**result.to_dict(pairs=False), "pairs_output": str(output)}, True)
    else:
        written("pair table", output)
    return json
